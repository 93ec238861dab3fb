"""The public JSON API v1 (/api/v1/aoristos/...), through Django's test client.

Expected probabilities are computed here by brute force over every ordered roll
(itertools.product), independently of the rules core's multiset enumeration; expected
costs and secondary attributes come from the formulas in rulings.md.

The API never touches the database (no session, no login), so these tests carry no
django_db marker: a request that reached the database would fail loudly.
"""

import json
import re
from collections import Counter
from fractions import Fraction
from itertools import product

import pytest
from django.test import Client
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

ODDS = "/api/v1/aoristos/odds"
EVALUATE = "/api/v1/aoristos/evaluate"
ROLL = "/api/v1/aoristos/roll"

ATTRIBUTE_KEYS = ("physique", "composure", "agility", "alertness", "willpower")
SKILL_KEYS = (
    "car", "blowpipe", "airplane", "mechanics", "helicopter", "throwing", "climbing",
    "first_aid", "motorboat", "motorcycle", "melee_weapons", "bow", "psychology", "riding",
    "sailboat", "swimming", "firearms", "brawling", "sling", "evasion", "wilderness",
)  # fmt: skip
ALBERT = {"physique": 3, "composure": 3, "agility": 2, "alertness": 5, "willpower": 3}


@pytest.fixture
def api():
    """A client that enforces CSRF like a browser would: the API must not need a token."""
    return Client(enforce_csrf_checks=True)


def post_json(client, url, body):
    data = body if isinstance(body, str | bytes) else json.dumps(body)
    return client.post(url, data, content_type="application/json")


def json_of(response) -> object:
    assert response["Content-Type"].startswith("application/json"), response["Content-Type"]
    return json.loads(response.content)


def assert_bad_request(response):
    assert response.status_code == 400, response.content
    body = json_of(response)
    assert isinstance(body, dict)
    assert isinstance(body.get("error"), str)
    assert body["error"]


# --- brute force -------------------------------------------------------------------------


def brute_distribution(dice: int, pick, modifier: int = 0) -> dict[int, Fraction]:
    """Result distribution over all 6**dice ordered rolls; ``pick`` maps the sorted roll
    to the counted dice."""
    counts = Counter(
        sum(pick(sorted(roll))) + modifier for roll in product(range(1, 7), repeat=dice)
    )
    total = 6**dice
    return {result: Fraction(n, total) for result, n in sorted(counts.items())}


def lowest(n):
    return lambda faces: faces[:n]


def highest(n):
    return lambda faces: faces[-n:]


def every(faces):
    return faces


# hand, dice rolled, which of the sorted dice count, modifier, purpose
BRUTE_CASES = [
    ("1B1T", 2, lowest(1), 0, "test"),
    ("2B2T+1", 4, lowest(2), 1, "test"),
    ("1B1F", 2, highest(1), 0, "test"),
    ("1B1F", 2, lowest(1), 0, "stress"),
    ("2B1F-3", 3, highest(2), -3, "test"),
    ("2B1F-3", 3, lowest(2), -3, "stress"),
    ("3B-2", 3, every, -2, "test"),
    ("3B-2", 3, every, -2, "stress"),
    ("1B5T", 6, lowest(1), 0, "test"),
]


def p_at_least(distribution: dict[int, Fraction], target: int) -> Fraction:
    return sum((p for result, p in distribution.items() if result >= target), Fraction(0))


# --- odds --------------------------------------------------------------------------------


def test_odds_example_from_the_issue(api):
    response = api.get(ODDS + "?hand=2B2T%2B1&tb=6&st=9")
    assert response.status_code == 200
    body = json_of(response)
    assert {"hand", "tb", "st", "p_success", "distribution"} <= set(body)
    assert body["hand"] == "2B2T+1"
    assert body["tb"] == 6
    assert body["st"] == 9
    # TB 6 + the lowest possible result 1+1+1 = 9 >= ST 9: success is certain.
    assert body["p_success"] == 1.0
    expected = brute_distribution(4, lowest(2), 1)
    assert set(body["distribution"]) == {str(result) for result in expected}
    for result, p in expected.items():
        assert body["distribution"][str(result)] == pytest.approx(float(p), abs=1e-12)


def test_odds_1b1t_needs_both_dice_at_least_3(api):
    body = json_of(api.get(ODDS, {"hand": "1B1T", "tb": 5, "st": 8}))
    # TB 5 needs a result of 3; the lower of two dice is >= 3 when both are: (4/6)**2.
    assert body["p_success"] == pytest.approx(16 / 36, abs=1e-12)
    assert body["p_success"] == pytest.approx(
        float(p_at_least(brute_distribution(2, lowest(1)), 3)), abs=1e-12
    )


@pytest.mark.parametrize(("hand", "dice", "pick", "modifier", "purpose"), BRUTE_CASES)
@pytest.mark.parametrize(("tb", "threshold"), [(0, 4), (3, 9), (6, 9), (-2, 1), (5, 30)])
def test_odds_match_brute_force(api, hand, dice, pick, modifier, purpose, tb, threshold):
    response = api.get(ODDS, {"hand": hand, "tb": tb, "st": threshold, "purpose": purpose})
    assert response.status_code == 200, response.content
    body = json_of(response)
    expected = brute_distribution(dice, pick, modifier)
    assert body["distribution"] == pytest.approx(
        {str(result): float(p) for result, p in expected.items()}, abs=1e-12
    )
    assert body["p_success"] == pytest.approx(
        float(p_at_least(expected, threshold - tb)), abs=1e-12
    )


@pytest.mark.parametrize(
    ("hand", "low", "high"),
    [("1B", 1, 6), ("2B2T+1", 3, 13), ("3B-2", 1, 16), ("6B", 6, 36), ("1B1F+999", 1000, 1005)],
)
def test_distribution_sums_to_one_with_integer_keys_in_range(api, hand, low, high):
    body = json_of(api.get(ODDS, {"hand": hand, "tb": 0, "st": 0}))
    distribution = body["distribution"]
    assert sum(distribution.values()) == pytest.approx(1.0, abs=1e-9)
    assert all(isinstance(key, str) for key in distribution)
    results = sorted(int(key) for key in distribution)
    assert [str(result) for result in results] == sorted(distribution, key=int)
    assert results[0] == low
    assert results[-1] == high
    assert all(0 < p <= 1 for p in distribution.values())


@pytest.mark.parametrize(
    ("given_hand", "normalised"),
    [
        ("8B", "6B"),  # B above 6 is capped at 6
        ("1B2F1T", "1B1F"),  # F and T cancel one for one
        ("1B1T2F", "1B1F"),
        ("2b2t+1", "2B2T+1"),  # lowercase accepted
        ("1b1f", "1B1F"),
        ("0B", "1B"),  # always at least 1B
        ("1B7F", "1B5F"),  # never more than 6 dice
        ("4B4T", "4B2T"),
        ("3B - 2", "3B-2"),
        (" 2B+0 ", "2B"),
    ],
)
def test_odds_hand_comes_back_normalised(api, given_hand, normalised):
    response = api.get(ODDS, {"hand": given_hand, "tb": 0, "st": 0})
    assert response.status_code == 200, response.content
    assert json_of(response)["hand"] == normalised


@pytest.mark.parametrize(
    "query",
    [
        {"tb": "6", "st": "9"},  # missing hand
        {"hand": "1B", "st": "9"},  # missing tb
        {"hand": "1B", "tb": "6"},  # missing st
        {"hand": "1B", "tb": "x", "st": "9"},
        {"hand": "1B", "tb": "", "st": "9"},
        {"hand": "1B", "tb": "6.5", "st": "9"},
        {"hand": "zz", "tb": "6", "st": "9"},
        {"hand": "", "tb": "6", "st": "9"},
        {"hand": "2B2T" + "1" * 46, "tb": "6", "st": "9"},  # 50 characters
        {"hand": "1B" * 25, "tb": "6", "st": "9"},
        {"hand": "1B2F2F", "tb": "6", "st": "9"},
        {"hand": "1B", "tb": "6", "st": "1e9"},
        {"hand": "1B", "tb": "6", "st": "9" * 5000},
        {"hand": "1B", "tb": "6", "st": "9", "purpose": "bogus"},
        {"hand": "1B", "tb": "6", "st": "9", "purpose": ""},
        {"hand": "1B", "tb": "6", "st": "9", "colour": "red"},
    ],
)
def test_malformed_odds_queries_answer_400_json(api, query):
    assert_bad_request(api.get(ODDS, query))


def test_odds_unencoded_plus_is_a_space_and_rejected_not_a_crash(api):
    # In a query string a literal "+" means a space: "2B2T 1" is not a hand.
    response = api.get(ODDS + "?hand=2B2T+1&tb=6&st=9")
    assert_bad_request(response)
    assert "%2B" in response.json()["error"]


# --- evaluate ----------------------------------------------------------------------------


def attribute_cost(level: int) -> int:
    return (level - 1) * level * (level + 1) // 6


def skill_cost(level: int) -> int:
    return (level - 1) * level // 2 if level else 0


def expected_secondary(a: dict[str, int]) -> dict[str, int]:
    return {
        "carrying_capacity": 4 * a["physique"],
        "shock_tolerance": a["willpower"] + 3,
        "movement": a["agility"] + 5,
        "drive": a["composure"] + a["alertness"] // 2 + 4,
        "toughness": a["physique"] + 1,
    }


def test_evaluate_albert_exactly_as_in_the_issue(api):
    response = post_json(
        api, EVALUATE, {"attributes": ALBERT, "skills": {}, "dp_budget": 40, "level_cap": 5}
    )
    assert response.status_code == 200, response.content
    assert json_of(response) == {
        "dp_spent": 33,
        "dp_left": 7,
        "secondary": {
            "carrying_capacity": 12,
            "shock_tolerance": 6,
            "movement": 7,
            "drive": 9,
            "toughness": 4,
        },
        "errors": [],
    }


def test_evaluate_missing_attributes_count_as_1_and_missing_skills_as_0(api):
    body = json_of(post_json(api, EVALUATE, {"dp_budget": 40, "level_cap": 5}))
    assert body["dp_spent"] == 0
    assert body["dp_left"] == 40
    assert body["secondary"] == expected_secondary(dict.fromkeys(ATTRIBUTE_KEYS, 1))
    assert body["errors"] == []

    partial = {"physique": 4, "alertness": 3}
    skills = {"firearms": 3, "evasion": 2}
    body = json_of(
        post_json(
            api,
            EVALUATE,
            {"attributes": partial, "skills": skills, "dp_budget": 40, "level_cap": 5},
        )
    )
    levels = dict.fromkeys(ATTRIBUTE_KEYS, 1) | partial
    spent = sum(attribute_cost(level) for level in levels.values()) + sum(
        skill_cost(level) for level in skills.values()
    )
    assert spent == 10 + 4 + 3 + 1  # 18, by hand from the tables on p. 2-3
    assert body["dp_spent"] == spent
    assert body["dp_left"] == 40 - spent
    assert body["secondary"] == expected_secondary(levels)


def test_evaluate_zero_levels_cost_nothing_and_are_allowed(api):
    attributes = dict.fromkeys(ATTRIBUTE_KEYS, 0)
    body = json_of(
        post_json(
            api,
            EVALUATE,
            {"attributes": attributes, "skills": {}, "dp_budget": 0, "level_cap": 0},
        )
    )
    assert body["dp_spent"] == 0
    assert body["errors"] == []
    assert body["secondary"] == expected_secondary(attributes)


def test_evaluate_over_budget_is_a_200_with_an_over_budget_error(api):
    response = post_json(
        api,
        EVALUATE,
        {"attributes": ALBERT, "skills": {"firearms": 3}, "dp_budget": 33, "level_cap": 5},
    )
    assert response.status_code == 200
    body = json_of(response)
    assert body["dp_spent"] == 36
    assert body["dp_left"] == -3
    assert [(e["field"], e["code"]) for e in body["errors"]] == [("dp_budget", "over_budget")]
    for error in body["errors"]:
        assert set(error) == {"field", "code", "message"}
        assert isinstance(error["message"], str)
        assert error["message"]


def test_evaluate_above_level_cap_names_each_field(api):
    response = post_json(
        api,
        EVALUATE,
        {
            "attributes": {"alertness": 6},
            "skills": {"firearms": 7, "brawling": 5},
            "dp_budget": 500,
            "level_cap": 5,
        },
    )
    assert response.status_code == 200
    errors = json_of(response)["errors"]
    assert sorted((e["field"], e["code"]) for e in errors) == [
        ("alertness", "above_level_cap"),
        ("firearms", "above_level_cap"),
    ]
    assert all(e["message"] for e in errors)


def test_evaluate_reports_both_kinds_of_rule_violation_at_once(api):
    body = json_of(
        post_json(
            api,
            EVALUATE,
            {"attributes": {"physique": 6}, "skills": {}, "dp_budget": 10, "level_cap": 5},
        )
    )
    assert body["dp_spent"] == attribute_cost(6)
    assert {(e["field"], e["code"]) for e in body["errors"]} == {
        ("dp_budget", "over_budget"),
        ("physique", "above_level_cap"),
    }


def test_evaluate_accepts_every_glossary_key(api):
    body = json_of(
        post_json(
            api,
            EVALUATE,
            {
                "attributes": dict.fromkeys(ATTRIBUTE_KEYS, 2),
                "skills": dict.fromkeys(SKILL_KEYS, 2),
                "dp_budget": 500,
                "level_cap": 5,
            },
        )
    )
    assert body["dp_spent"] == 5 * attribute_cost(2) + 21 * skill_cost(2)
    assert body["errors"] == []


def padded(body: dict, size: int) -> str:
    text = json.dumps(body)
    return text + " " * (size - len(text))


MALFORMED_EVALUATE = {
    "unknown top-level key": {"attributes": {}, "colour": "red"},
    "unknown attribute": {"attributes": {"strength": 3}},
    "skill key as attribute": {"attributes": {"firearms": 3}},
    "unknown skill": {"skills": {"hacking": 2}},
    "string level": {"attributes": {"physique": "3"}},
    "float level": {"attributes": {"physique": 3.0}},
    "bool level": {"skills": {"firearms": True}},
    "negative level": {"attributes": {"physique": -1}},
    "level 31": {"skills": {"firearms": 31}},
    "huge level": {"skills": {"firearms": 10**30}},
    "null level": {"attributes": {"physique": None}},
    "null attributes": {"attributes": None},
    "attributes not an object": {"attributes": [3, 3, 2, 5, 3]},
    "skills not an object": {"skills": "firearms"},
    "list body": [{"attributes": ALBERT}],
    "string body": "attributes",
    "null body": None,
    "number body": 42,
    "dp_budget 501": {"dp_budget": 501},
    "dp_budget negative": {"dp_budget": -1},
    "dp_budget string": {"dp_budget": "40"},
    "level_cap 31": {"level_cap": 31},
    "level_cap negative": {"level_cap": -1},
    "level_cap float": {"level_cap": 5.5},
}


@pytest.mark.parametrize("body", MALFORMED_EVALUATE.values(), ids=MALFORMED_EVALUATE.keys())
def test_malformed_evaluate_bodies_answer_400_json(api, body):
    assert_bad_request(post_json(api, EVALUATE, json.dumps(body)))


@pytest.mark.parametrize(
    "raw",
    [
        b"",
        b"not json",
        b"{'attributes': {}}",
        b'{"attributes": {}',
        b"\xff\xfe\x00garbage",
        b'{"attributes": {"physique": NaN}}',
        b'{"attributes": {"physique": 1e400}}',
        b'{"attributes": {"physique": ' + b"9" * 5000 + b"}}",
        padded({"attributes": ALBERT}, 16_385).encode(),
        padded({"attributes": ALBERT}, 100_000).encode(),
    ],
    ids=[
        "empty",
        "text",
        "single quotes",
        "truncated",
        "bad bytes",
        "NaN",
        "infinity",
        "5000 digits",
        "16 KB + 1",
        "100 KB",
    ],
)
def test_non_json_and_oversized_evaluate_bodies_answer_400_json(api, raw):
    assert_bad_request(post_json(api, EVALUATE, raw))


def test_a_body_of_exactly_16_kb_is_still_read(api):
    response = post_json(api, EVALUATE, padded({"attributes": ALBERT, "dp_budget": 40}, 16_384))
    assert response.status_code == 200, response.content
    assert json_of(response)["dp_spent"] == 33


@pytest.mark.parametrize("url", [EVALUATE, ROLL])
def test_deeply_nested_json_answers_400_not_500(url):
    # The parser gives up on ~10k levels with RecursionError; that is malformed input too.
    client = Client(raise_request_exception=False)
    assert_bad_request(post_json(client, url, "[" * 16_000))


# --- roll --------------------------------------------------------------------------------


def is_sub_multiset(part, whole) -> bool:
    return not Counter(part) - Counter(whole)


def check_roll(body: dict, hand: str, dice_count: int, base: int, modifier: int):
    assert set(body) == {"hand", "dice", "counted", "result"}
    assert body["hand"] == hand
    assert len(body["dice"]) == dice_count
    assert all(isinstance(d, int) and 1 <= d <= 6 for d in body["dice"])
    assert len(body["counted"]) == base
    assert is_sub_multiset(body["counted"], body["dice"])
    assert body["result"] == sum(body["counted"]) + modifier


def test_roll_shape_from_the_issue(api):
    response = post_json(api, ROLL, {"hand": "1B1F", "purpose": "test"})
    assert response.status_code == 200, response.content
    check_roll(json_of(response), "1B1F", 2, 1, 0)


@pytest.mark.parametrize(
    ("purpose", "choose"),
    [("test", max), ("stress", min)],
)
def test_a_free_hand_counts_the_best_die_for_the_purpose(api, purpose, choose):
    for _ in range(30):
        body = json_of(post_json(api, ROLL, {"hand": "1b1f", "purpose": purpose}))
        check_roll(body, "1B1F", 2, 1, 0)
        assert body["counted"] == [choose(body["dice"])], body


@pytest.mark.parametrize("purpose", ["test", "stress"])
def test_a_forced_hand_counts_the_lowest_dice_whatever_the_purpose(api, purpose):
    for _ in range(30):
        body = json_of(post_json(api, ROLL, {"hand": "2B2T+1", "purpose": purpose}))
        check_roll(body, "2B2T+1", 4, 2, 1)
        assert sorted(body["counted"]) == sorted(body["dice"])[:2], body


def test_a_free_hand_for_a_test_counts_the_highest_dice(api):
    for _ in range(30):
        body = json_of(post_json(api, ROLL, {"hand": "2B2F-1", "purpose": "test"}))
        check_roll(body, "2B2F-1", 4, 2, -1)
        assert sorted(body["counted"]) == sorted(body["dice"])[2:], body


def test_a_plain_hand_counts_every_die_and_normalises(api):
    for _ in range(10):
        body = json_of(post_json(api, ROLL, {"hand": "9B-2", "purpose": "stress"}))
        check_roll(body, "6B-2", 6, 6, -2)
        assert body["counted"] == body["dice"]


def test_rolls_are_random_not_fixed(api):
    seen = {
        tuple(json_of(post_json(api, ROLL, {"hand": "3B", "purpose": "test"}))["dice"])
        for _ in range(20)
    }
    # 20 rolls of 3 dice all equal has probability 216**-19.
    assert len(seen) > 1


MALFORMED_ROLL = {
    "missing hand": {"purpose": "test"},
    "empty body object": {},
    "hand not a string": {"hand": 2, "purpose": "test"},
    "hand null": {"hand": None},
    "hand list": {"hand": ["1B", "1F"]},
    "hand gibberish": {"hand": "zz", "purpose": "test"},
    "hand empty": {"hand": ""},
    "hand too long": {"hand": "1B1F" + " " * 40 + "+1"},
    "hand F twice": {"hand": "1B1F1F"},
    "purpose bogus": {"hand": "1B1F", "purpose": "bogus"},
    "purpose uppercase": {"hand": "1B1F", "purpose": "TEST!"},
    "purpose number": {"hand": "1B1F", "purpose": 1},
    "purpose list": {"hand": "1B1F", "purpose": ["test"]},
    "purpose null": {"hand": "1B1F", "purpose": None},
    "unknown key": {"hand": "1B1F", "purpose": "test", "seed": 4},
    "list body": ["1B1F", "test"],
    "string body": "1B1F",
}


@pytest.mark.parametrize("body", MALFORMED_ROLL.values(), ids=MALFORMED_ROLL.keys())
def test_malformed_roll_bodies_answer_400_json(api, body):
    assert_bad_request(post_json(api, ROLL, json.dumps(body)))


@pytest.mark.parametrize("raw", [b"", b"hand=1B1F", b"{", padded({"hand": "1B"}, 20_000)])
def test_non_json_roll_bodies_answer_400_json(api, raw):
    assert_bad_request(post_json(api, ROLL, raw))


# --- methods, routing, CSRF ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("method", "url", "allowed"),
    [
        ("post", ODDS, "GET"),
        ("put", ODDS, "GET"),
        ("delete", ODDS, "GET"),
        ("get", EVALUATE, "POST"),
        ("put", EVALUATE, "POST"),
        ("patch", EVALUATE, "POST"),
        ("get", ROLL, "POST"),
        ("delete", ROLL, "POST"),
    ],
)
def test_wrong_method_answers_405_json(api, method, url, allowed):
    response = getattr(api, method)(url)
    assert response.status_code == 405
    assert isinstance(json_of(response)["error"], str)
    assert response["Allow"] == allowed


@pytest.mark.parametrize(
    "url", ["/api/v1/aoristos/nope", "/api/v1/", "/api/v2/aoristos/odds", "/api/v1/aoristos/odds/"]
)
def test_unknown_api_urls_answer_404_json(api, url):
    response = api.get(url)
    assert response.status_code == 404
    assert isinstance(json_of(response)["error"], str)


def test_api_needs_no_login_and_no_csrf_token(api):
    assert "sessionid" not in api.cookies
    assert post_json(api, EVALUATE, {"attributes": ALBERT}).status_code == 200
    assert post_json(api, ROLL, {"hand": "1B1F", "purpose": "stress"}).status_code == 200
    assert api.get(ODDS, {"hand": "1B", "tb": 1, "st": 4}).status_code == 200


# --- never a 500 -------------------------------------------------------------------------

no_surrogates = st.characters(exclude_categories=("Cs",))
text = st.text(no_surrogates, max_size=60)
hand_like = st.from_regex(
    r"\s?[0-9]{1,3}[bB]([0-9]{1,3}[fFtT]){0,3}(\s?[+-]\s?[0-9]{1,5})?\s?", fullmatch=True
)
int_like = st.one_of(st.integers(-20_000, 20_000).map(str), st.integers().map(str), text)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | text,
    lambda children: st.lists(children, max_size=5) | st.dictionaries(text, children, max_size=5),
    max_leaves=20,
)
levels = st.one_of(st.integers(-5, 40), json_values)
evaluate_bodies = st.one_of(
    json_values,
    st.fixed_dictionaries(
        {},
        optional={
            "attributes": st.one_of(
                st.dictionaries(st.sampled_from(ATTRIBUTE_KEYS), levels), json_values
            ),
            "skills": st.one_of(st.dictionaries(st.sampled_from(SKILL_KEYS), levels), json_values),
            "dp_budget": st.one_of(st.integers(-10, 600), json_values),
            "level_cap": st.one_of(st.integers(-5, 40), json_values),
        },
    ),
)
roll_bodies = st.one_of(
    json_values,
    st.fixed_dictionaries(
        {},
        optional={
            "hand": st.one_of(hand_like, text, json_values),
            "purpose": st.one_of(st.sampled_from(["test", "stress"]), json_values),
        },
    ),
)
FUZZ = settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow], database=None
)


def assert_200_or_400_json(response):
    assert response.status_code in (200, 400), (response.status_code, response.content[:300])
    body = json_of(response)
    assert isinstance(body, dict)
    if response.status_code == 400:
        assert isinstance(body["error"], str)
    return body


@FUZZ
@given(
    query=st.fixed_dictionaries(
        {},
        optional={
            "hand": st.one_of(hand_like, text),
            "tb": int_like,
            "st": int_like,
            "purpose": st.one_of(st.sampled_from(["test", "stress"]), text),
        },
    )
)
def test_odds_never_answers_500(query):
    client = Client(raise_request_exception=False)
    body = assert_200_or_400_json(client.get(ODDS, query))
    if "distribution" in body:
        assert sum(body["distribution"].values()) == pytest.approx(1.0, abs=1e-9)
        assert 0 <= body["p_success"] <= 1


@FUZZ
@given(raw=st.binary(max_size=200))
def test_odds_never_answers_500_for_raw_query_bytes(raw):
    client = Client(raise_request_exception=False)
    # WSGI hands the query string over as latin-1 text; any byte may arrive.
    assert_200_or_400_json(client.get(ODDS, QUERY_STRING=raw.decode("latin-1")))


@FUZZ
@given(body=evaluate_bodies)
def test_evaluate_never_answers_500(body):
    client = Client(raise_request_exception=False)
    result = assert_200_or_400_json(post_json(client, EVALUATE, json.dumps(body)))
    if "errors" in result and "dp_budget" in body:
        assert result["dp_left"] == body["dp_budget"] - result["dp_spent"]


@FUZZ
@given(body=roll_bodies)
def test_roll_never_answers_500(body):
    client = Client(raise_request_exception=False)
    result = assert_200_or_400_json(post_json(client, ROLL, json.dumps(body)))
    if "dice" in result:
        modifier = re.search(r"([+-][0-9]+)?$", result["hand"]).group(1) or "0"
        assert result["result"] == sum(result["counted"]) + int(modifier)
        assert is_sub_multiset(result["counted"], result["dice"])
        assert 1 <= len(result["counted"]) <= len(result["dice"]) <= 6


@FUZZ
@given(raw=st.binary(max_size=300))
def test_post_endpoints_never_answer_500_for_raw_bytes(raw):
    client = Client(raise_request_exception=False)
    assert_200_or_400_json(post_json(client, EVALUATE, raw))
    assert_200_or_400_json(post_json(client, ROLL, raw))
