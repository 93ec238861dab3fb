"""Public JSON API v1 for bots and tools: stateless, no login, keys from glossary.md.

Malformed input answers 400 {"error": "..."}; rule violations in a valid build answer
200 with a non-empty "errors" list. Every die is rolled on the server.
"""

import json
from functools import wraps

from django.http import JsonResponse
from django.views.decorators.csrf import csrf_exempt

from rules import RulesError
from rules.aoristos import character, dice

MAX_BODY_BYTES = 16_384
INT_BOUND = 10_000


class BadRequest(Exception):
    pass


def api_view(method: str):
    """Allow one method, turn BadRequest/RulesError into 400 {"error": ...}."""

    def decorate(view):
        @csrf_exempt
        @wraps(view)
        def wrapper(request, *args, **kwargs):
            if request.method != method:
                response = JsonResponse(
                    {"error": f"method {request.method} not allowed; use {method}"}, status=405
                )
                response["Allow"] = method
                return response
            try:
                return JsonResponse(view(request, *args, **kwargs))
            except (BadRequest, RulesError) as error:
                return JsonResponse({"error": str(error)}, status=400)

        return wrapper

    return decorate


def json_body(request) -> dict:
    if len(request.body) > MAX_BODY_BYTES:
        raise BadRequest(f"request body is larger than {MAX_BODY_BYTES} bytes")
    try:
        body = json.loads(request.body or b"null")
    except (ValueError, UnicodeDecodeError) as error:
        raise BadRequest(f"request body is not valid JSON: {error}") from error
    except RecursionError as error:
        raise BadRequest("request body is nested too deeply") from error
    if not isinstance(body, dict):
        raise BadRequest("request body must be a JSON object")
    return body


def reject_unknown(body: dict, allowed: set[str]) -> None:
    unknown = sorted(set(body) - allowed)
    if unknown:
        raise BadRequest(f"unknown key {unknown[0]!r}; allowed: {', '.join(sorted(allowed))}")


def int_value(value, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise BadRequest(f"{name} must be an integer")
    if not -INT_BOUND <= value <= INT_BOUND:
        raise BadRequest(f"{name} must be between {-INT_BOUND} and {INT_BOUND}")
    return value


def query_int(request, name: str) -> int:
    raw = request.GET.get(name)
    if raw is None:
        raise BadRequest(f"missing query parameter {name!r}")
    try:
        return int_value(int(raw.strip()), name)
    except ValueError as error:
        raise BadRequest(f"{name} must be an integer, not {raw!r}") from error


def purpose_value(value) -> dice.Purpose:
    try:
        return dice.Purpose(value)
    except ValueError as error:
        choices = ", ".join(p.value for p in dice.Purpose)
        raise BadRequest(f"purpose must be one of: {choices}") from error


def hand_value(value) -> dice.Hand:
    if not isinstance(value, str):
        raise BadRequest("hand must be a string such as '2B2T+1'")
    return dice.parse_hand(value)


@api_view("GET")
def odds(request):
    reject_unknown(request.GET, {"hand", "tb", "st", "purpose"})
    if "hand" not in request.GET:
        raise BadRequest("missing query parameter 'hand'")
    text = request.GET["hand"]
    try:
        hand = hand_value(text)
    except dice.DiceError as error:
        if " " in text.strip():  # a "+" that the query string decoded as a space
            raise BadRequest(f"{error}; in a URL write + as %2B, e.g. hand=2B2T%2B1") from error
        raise
    test_base, threshold = query_int(request, "tb"), query_int(request, "st")
    purpose = purpose_value(request.GET.get("purpose", dice.Purpose.TEST))
    distribution = dice.distribution(hand, purpose)
    return {
        "hand": str(hand),
        "tb": test_base,
        "st": threshold,
        "purpose": purpose.value,
        "p_success": float(dice.p_at_least(hand, threshold - test_base, purpose)),
        "distribution": {str(result): float(p) for result, p in distribution.items()},
    }


@api_view("POST")
def evaluate(request):
    body = json_body(request)
    reject_unknown(body, {"attributes", "skills", "dp_budget", "level_cap"})
    levels = {}
    for group in ("attributes", "skills"):
        value = body.get(group, {})
        if not isinstance(value, dict):
            raise BadRequest(f"{group} must be a JSON object of levels")
        levels[group] = {key: int_value(level, f"{group}.{key}") for key, level in value.items()}
    report = character.evaluate_build(
        levels["attributes"],
        levels["skills"],
        int_value(body.get("dp_budget", character.DEFAULT_DP_BUDGET), "dp_budget"),
        int_value(body.get("level_cap", character.DEFAULT_LEVEL_CAP), "level_cap"),
    )
    return {
        "dp_spent": report.dp_spent,
        "dp_left": report.dp_left,
        "secondary": report.secondary.as_dict(),
        "errors": [
            {"field": issue.field, "code": issue.code, "message": issue.message}
            for issue in report.issues
        ],
    }


@api_view("POST")
def roll(request):
    body = json_body(request)
    reject_unknown(body, {"hand", "purpose"})
    if "hand" not in body:
        raise BadRequest("missing key 'hand'")
    hand = hand_value(body["hand"])
    result = dice.roll(hand, purpose=purpose_value(body.get("purpose", dice.Purpose.TEST)))
    return {
        "hand": str(result.hand),
        "dice": list(result.dice),
        "counted": list(result.counted),
        "result": result.result,
    }
