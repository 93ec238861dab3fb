"""An outside check of the Aoristos attack preview: seeded random attacks set up through
the JSON API as the campaign's GM (every combatant, position, posture, hand, hidden area,
cover, nervchock, windup and distance aim by command), each preview compared with an
independent reference written from the rule text (tests/combat/aoristos_reference.py,
which imports nothing of the project's `rules`).

Compared, within 0.1 percentage point: the chance to hit, to miss and to land on a hidden
area, every damage's chance, every area's chance and its damage spread, and the
projectiles' spread; exactly: the test base, the threshold, the hand and the suggested
vigilance. The server's own dice (stress at each activation, the hazards' strength) are
seeded too, so a failing configuration replays the same way.
"""

import json
import math
import random
import re
from dataclasses import dataclass, field
from fractions import Fraction

import pytest
from django.urls import reverse

from combat import services
from combat.models import Encounter
from tests.combat.aoristos_reference import (
    AREAS,
    ARMOUR,
    WEAPONS,
    Body,
    Query,
    hand_counts,
    hand_sums,
    range_malus,
    reference,
)

pytestmark = pytest.mark.django_db

SEEDS = tuple(range(7100, 7196))  # 96 configurations, 16 of each kind
KINDS = ("melee", "gun", "auto", "thrown", "bow", "close")
MELEE = ("unarmed", "knife", "sword", "two_handed_sword", "trench_spade", "bar_stool", "rifle_butt")
GUNS = (
    "pistol",
    "revolver",
    "light_crossbow",
    "heavy_crossbow",
    "flintlock_rifle",
    "shotgun",
    "carbine",
)
AUTO = ("smg", "carbine", "assault_carbine", "machine_gun")
THROWN = ("throwing_knife", "cobblestone", "hand_grenade")
RANGED = GUNS + AUTO + THROWN + ("bow", "sling")
TARGET_HOLDS = {
    "nothing": (None, None),
    "knife": ("knife", None),
    "sword": ("sword", None),
    "pistol": ("pistol", None),
    "knife+pistol": ("knife", "pistol"),
    "two_handed_sword": ("two_handed_sword", "two_handed_sword"),
}
# The attacker's toughness and the hazards that give it exactly 1 or 2 degrees of
# nervchock (strength 1B+7: 8-13, // 7 = 1; 1B+14: 15-20, // 7 = 2; no area, no armour).
TOUGH = 7
NERVE_HAZARD = {1: "1B+7", 2: "1B+14"}
SHOCK_TOLERANCE = 12
TOLERANCE_PERCENT = 0.1


@dataclass
class Plan:
    """One attack configuration, all of it chosen by `random.Random(seed)`."""

    seed: int
    kind: str
    reach: float
    weapon: str
    attacker: dict
    target: dict
    others: list = field(default_factory=list)
    round: int = 1
    attacker_nerve: int = 0
    target_nerve: int = 0
    range_aim: int = 0
    query: Query | None = None


def place(r: random.Random, origin: tuple[float, float], metres: float):
    angle = r.uniform(0, 2 * math.pi)
    return (
        round(origin[0] + metres * math.cos(angle), 2),
        round(origin[1] + metres * math.sin(angle), 2),
    )


def holds_for(r: random.Random, weapon: str) -> tuple[str | None, str | None, list[str]]:
    """The attacker's hands: the weapon in its grip, maybe something in the other hand."""
    if weapon == "unarmed":
        right, left = r.choice(
            [(None, None), ("knife", None), (None, "pistol"), ("knife", "pistol"), (None, None)]
        )
        return right, left, [k for k in (right, left) if k]
    hands = WEAPONS[weapon].hands
    if hands == (2,) or (2 in hands and r.random() < 0.5):
        return weapon, weapon, [weapon]
    if r.random() < 0.35:
        other = "pistol" if weapon != "pistol" else "knife"
        return weapon, other, [weapon, other]
    return weapon, None, [weapon]


def make_plan(seed: int) -> Plan:
    r = random.Random(seed)
    kind = KINDS[seed % len(KINDS)]
    reach = r.choice([2.0, 2.0, 2.0, 1.5, 3.0])
    weapon = {
        "melee": lambda: r.choice((*MELEE, "unarmed")),
        "gun": lambda: r.choice((*GUNS, "carbine", "carbine")),
        "auto": lambda: r.choice(AUTO),
        "thrown": lambda: r.choice(THROWN),
        "bow": lambda: r.choice(("bow", "sling")),
        "close": lambda: r.choice(RANGED),
    }[kind]()
    w = WEAPONS[weapon]
    right, left, weapons = holds_for(r, weapon)
    attacker = {
        "name": "Anfallaren",
        "side": "a",
        "physique": r.randint(0, 5),
        "agility": r.randint(0, 5),
        "alertness": r.randint(0, 5),
        "composure": r.randint(1, 4),
        "willpower": r.randint(1, 4),
        "skills": {w.skill: r.randint(0, 5), "evasion": r.randint(0, 2)},
        "drive": 14,
        "toughness": TOUGH,
        "shock_tolerance": SHOCK_TOLERANCE,
        "posture": r.choices(["standing", "sitting", "lying"], [6, 3, 1])[0],
        "weapons": weapons,
        "right": right,
        "left": left,
        "x": 0.0,
        "y": 0.0,
    }
    holds = r.choice(list(TARGET_HOLDS) + ["nothing"])
    t_right, t_left = TARGET_HOLDS[holds]
    target_nerve = r.choices([0, 1], [3, 1])[0]
    armour = r.sample(sorted(ARMOUR), r.choice([0, 0, 1, 1, 2, 3]))
    hidden: list[str] = []
    if r.random() < 0.05:
        hidden = list(AREAS)
    elif r.random() < 0.35:
        hidden = r.sample(AREAS, r.randint(1, 3))
    cover = {}
    if r.random() < 0.3:
        cover = {area: r.randint(1, 8) for area in r.sample(AREAS, r.randint(1, 4))}
    target = {
        "name": "Målet",
        "side": "b",
        "physique": r.randint(0, 5),
        "agility": r.randint(0, 5),
        "alertness": r.randint(0, 5),
        "composure": r.randint(1, 3),
        "willpower": r.randint(1, 3),
        "skills": {
            "evasion": r.randint(0, 4),
            "melee_weapons": r.randint(0, 4),
            "brawling": r.randint(0, 4),
            w.skill: r.randint(0, 4),
        },
        "drive": r.randint(3, 10),
        "movement": r.choice([None, None, None, 0, 1, 2]),
        "weapons": sorted({k for k in (t_right, t_left) if k}),
        "right": t_right,
        "left": t_left,
        "armour": armour,
        "posture": r.choices(["standing", "sitting", "lying"], [6, 3, 2])[0],
        "aware": r.random() < 0.9,
        "hidden_areas": hidden,
        "cover": cover,
    }
    if target_nerve:
        target.update(toughness=TOUGH, shock_tolerance=SHOCK_TOLERANCE)
    # Where everyone ends up: the target at a distance, and maybe a foe of the attacker
    # within reach of it (the attacker in melee) or a friend of the attacker within reach
    # of the target (the target in melee).
    if w.melee or kind == "close" or r.random() < 0.15:
        metres = r.uniform(0.5, reach)
    else:
        metres = r.choice([r.uniform(reach + 0.1, 10), r.uniform(10, 40), r.uniform(40, 80)])
    target["x"], target["y"] = place(r, (0.0, 0.0), metres)
    others = []
    if not w.melee and r.random() < (0.6 if kind == "close" else 0.25):
        x, y = place(r, (0.0, 0.0), r.uniform(0.5, reach))
        others.append({"name": "Motståndaren", "side": "b", "x": x, "y": y})
    if r.random() < (0.6 if kind == "close" else 0.25):
        x, y = place(r, (target["x"], target["y"]), r.uniform(0.5, reach))
        others.append({"name": "Kamraten", "side": "a", "x": x, "y": y})
    plan = Plan(
        seed=seed,
        kind=kind,
        reach=reach,
        weapon=weapon,
        attacker=attacker,
        target=target,
        others=others,
        round=r.choices([1, 2, 3], [5, 4, 1])[0],
        attacker_nerve=r.choices([0, 1, 2], [5, 3, 2])[0],
        target_nerve=target_nerve,
    )
    # The attack's own fields.
    attacker_in_melee = any(
        o["side"] == "b" and math.dist((0.0, 0.0), (o["x"], o["y"])) <= reach
        for o in [target, *others]
    )
    modes = [m for m in w.modes.split("/") if m] + [""]
    mode = r.choice(modes)
    if kind in ("auto", "gun") and len(modes) > 2 and r.random() < 0.7:
        mode = r.choice(modes[1:-1])  # a burst or auto fire, not the first mode
    auto = (mode or modes[0]).startswith("auto")
    shots = None
    if auto:
        shots = r.choice([None, None, 0, 0, 1, 2, 3, 5, 8, 12, w.max_per_round])
    aim = 0
    if not auto and not (not w.melee and attacker_in_melee):
        aim = r.choices([0, 1, 2], [4, 3, 3])[0]
    area = r.choice([None, None, *AREAS])
    plan.query = Query(weapon=weapon, aim=aim, mode=mode, shots=shots, area=area)
    if (
        not w.melee
        and attacker["posture"] != "standing"
        and not attacker_in_melee
        and r.random() < 0.5
    ):
        plan.range_aim = 1  # p. 11: one level for stable support (sitting or lying)
    return plan


class Api:
    """The GM's side of the JSON API for one encounter."""

    def __init__(self, client, encounter):
        self.client = client
        self.encounter = encounter
        self.state_url = reverse("combat:api_encounter", args=[encounter.pk])
        self.command_url = reverse("combat:api_command", args=[encounter.pk])
        self.preview_url = reverse("combat:api_preview", args=[encounter.pk])
        self.version = self.state()["version"]

    def state(self) -> dict:
        answer = self.client.get(self.state_url)
        assert answer.status_code == 200, answer.content[:300]
        data = answer.json()
        self.version = data["version"]
        return data

    def send(self, command: dict) -> dict:
        body = json.dumps({"version": self.version, "command": command})
        answer = self.client.post(self.command_url, body, content_type="application/json")
        assert answer.status_code == 200, (command, answer.status_code, answer.content[:400])
        data = answer.json()
        self.version = data["version"]
        return data

    def preview(self, query: dict):
        return self.client.get(self.preview_url, query)


def by_name(state: dict, name: str) -> dict:
    return next(c for c in state["state"]["combatants"] if c["name"] == name)


def set_up(api: Api, plan: Plan) -> tuple[dict, dict[str, str]]:
    """Everything by command: the combatants added far apart (so that windups and distance
    aim are not started in melee), the fight started and run to the attacker's activation
    in the planned round, nervchock dealt by hazards, the windup and the distance aim
    paid, then everyone placed where the plan puts them. Returns the state and the ids."""
    ids = {}
    staging = [(0.0, 0.0), (0.0, 500.0), (500.0, 0.0), (500.0, 500.0)]
    people = [plan.attacker, plan.target, *plan.others]
    for spot, person in zip(staging, people, strict=False):
        later = ("aware", "hidden_areas", "cover", "x", "y")  # set once placed
        command = {"type": "add_combatant", "x": spot[0], "y": spot[1]}
        command.update((k, v) for k, v in person.items() if k not in later and v is not None)
        if person is plan.target:
            command["posture"] = "standing"
        data = api.send(command)
        ids[person["name"]] = by_name(data, person["name"])["id"]
    attacker, target = ids[plan.attacker["name"]], ids[plan.target["name"]]
    data = api.send({"type": "start"})
    for _ in range(40):
        view = data["state"]
        if view["round"] == plan.round and view["active"] == attacker:
            break
        data = api.send({"type": "skip"})
    else:
        raise AssertionError("the attacker's activation never came")
    if plan.attacker_nerve:
        api.send({"type": "hazard", "id": attacker, "hand": NERVE_HAZARD[plan.attacker_nerve]})
    if plan.target_nerve:  # its armour's Totalrustning is taken off a hazard with no area
        worn = (
            sum(
                v * (3 if area == "torso" else 1)
                for key in plan.target["armour"]
                for area, v in ARMOUR[key]["areas"].items()
            )
            // 10
        )
        api.send({"type": "hazard", "id": target, "hand": f"1B+{TOUGH + worn}"})
    weapon = WEAPONS[plan.weapon]
    if weapon.windup:
        api.send({"type": "windup", "id": attacker, "weapon": plan.weapon})
    if plan.range_aim:
        api.send({"type": "range_aim", "id": attacker, "target": target, "levels": plan.range_aim})
    t = plan.target
    api.send(
        {
            "type": "update_combatant",
            "id": target,
            "x": t["x"],
            "y": t["y"],
            "posture": t["posture"],
            "aware": t["aware"],
            "hidden_areas": t["hidden_areas"],
            "cover": t["cover"],
        }
    )
    for other in plan.others:
        api.send(
            {"type": "update_combatant", "id": ids[other["name"]], "x": other["x"], "y": other["y"]}
        )
    return api.state(), ids


def body_of(view: dict, person: dict, *, range_aim_target: str | None = None) -> Body:
    """A combatant as the reference takes it: what the GM's state shows, plus its hands
    and catalogue keys (as the plan gave them)."""
    attributes = view["attributes"]
    movement = person.get("movement")
    if movement is None:
        movement = attributes["agility"] + 5  # Förflyttning RÖR + 5 (p. 2)
    return Body(
        id=view["id"],
        side=view["side"],
        x=view["x"],
        y=view["y"],
        posture=view["posture"],
        physique=attributes["physique"],
        agility=attributes["agility"],
        alertness=attributes["alertness"],
        skills=dict(view["skills"]),
        nerve_shock=view["nerve_shock"],
        movement=movement,
        moved=view["moved"],
        vigilance_bonus=view["vigilance_bonus"],
        aware=view["aware"],
        acts=view["alive"] and view["conscious"],
        hidden=frozenset(view["hidden_areas"]),
        cover={k: int(v) for k, v in view["cover"].items()},
        armour=tuple(person.get("armour", ())),
        armour_areas=tuple(piece["areas"] for piece in view["armour"]),
        toughness=view["toughness"],
        right=person.get("right"),
        left=person.get("left"),
        rounds={w["key"]: w["rounds"] for w in view["weapons"] if w["rounds"] is not None},
        range_aim=view["range_aim"],
        range_aim_target=range_aim_target,
    )


def state_problems(plan: Plan, state: dict, ids: dict) -> list[str]:
    """What the state must show for the reference to read it as planned."""
    problems = []
    view = state["state"]
    attacker = by_name(state, plan.attacker["name"])
    target = by_name(state, plan.target["name"])
    if view["round"] != plan.round or view["active"] != attacker["id"]:
        problems.append(f"state: round {view['round']}, active {view['active']}")
    if attacker["nerve_shock"] != plan.attacker_nerve:
        problems.append(f"state: attacker nervchock {attacker['nerve_shock']}")
    if target["nerve_shock"] != plan.target_nerve:
        problems.append(f"state: target nervchock {target['nerve_shock']}")
    if view["house"]["melee_reach"] != plan.reach:
        problems.append(f"state: melee reach {view['house']['melee_reach']}")
    for person, shown in ((plan.attacker, attacker), (plan.target, target)):
        held = {w["key"] for w in shown["weapons"] if w["held"]}
        if held != {k for k in (person["right"], person["left"]) if k}:
            problems.append(f"state: {person['name']} holds {sorted(held)}")
        if [piece["name"] for piece in shown["armour"]] != [
            ARMOUR[k]["name"] for k in person.get("armour", ())
        ]:
            problems.append(f"state: {person['name']} wears {shown['armour']}")
    if WEAPONS[plan.weapon].windup and attacker["wound_up"] != plan.weapon:
        problems.append(f"state: wound up {attacker['wound_up']!r}")
    weapon = WEAPONS[plan.weapon]
    if weapon.belt:
        rounds = next(w["rounds"] for w in attacker["weapons"] if w["key"] == plan.weapon)
        if rounds < weapon.max_per_round:
            problems.append(
                f"state: {plan.weapon} is loaded with {rounds} round(s); a belt is of any "
                f"length (p. 11), so its max of {weapon.max_per_round} a round should be "
                "possible"
            )
    if attacker["range_aim"] != plan.range_aim:
        problems.append(f"state: distance aim {attacker['range_aim']}")
    return problems


def as_percent(p) -> float:
    return float(p) * 100


def close(shown, expected: float) -> bool:
    return shown is not None and abs(shown - expected) <= TOLERANCE_PERCENT + 1e-9


def compare(answer: dict, ref) -> list[str]:
    """Every figure of the preview against the reference: (what, expected, shown)."""
    problems = []

    def exact(name, expected, shown):
        if expected != shown:
            problems.append(f"{name}: expected {expected!r}, shown {shown!r}")

    def near(name, expected, shown):
        if not close(shown, as_percent(expected)):
            problems.append(f"{name}: expected {as_percent(expected):.3f}%, shown {shown}")

    exact("test_base", ref.test_base, answer.get("test_base"))
    exact("threshold", ref.threshold, answer.get("threshold"))
    exact("hand", ref.hand, answer.get("hand"))
    exact("vigilance", sorted(ref.vigilance), sorted(answer.get("vigilance") or []))
    near("p_hit", ref.p_hit, answer.get("p_hit"))
    near("p_miss", ref.p_miss, answer.get("p_miss"))
    near("p_hidden", ref.p_hidden, answer.get("p_hidden"))
    shown_damage = {d["damage"]: d["percent"] for d in answer.get("damage", [])}
    expected_damage = ref.damage()
    for dealt in sorted(set(shown_damage) | set(expected_damage)):
        near(f"damage {dealt}", expected_damage.get(dealt, 0), shown_damage.get(dealt, 0.0))
    shown_areas = {a["area"]: a for a in answer.get("areas", [])}
    expected_areas = ref.areas()
    for area in sorted(set(shown_areas) | set(expected_areas), key=str):
        spread = expected_areas.get(area, {})
        shown = shown_areas.get(area, {"percent": 0.0, "damage": []})
        near(f"area {area}", sum(spread.values()), shown["percent"])
        shown_spread = {d["damage"]: d["percent"] for d in shown["damage"]}
        for dealt in sorted(set(shown_spread) | set(spread)):
            near(f"area {area} damage {dealt}", spread.get(dealt, 0), shown_spread.get(dealt, 0.0))
    shown_shots = {s["shots"]: s["percent"] for s in answer.get("shots", [])}
    for n in sorted(set(shown_shots) | set(ref.shots)):
        near(f"shots {n}", ref.shots.get(n, 0), shown_shots.get(n, 0.0))
    # Each projectile count names its own hand (p. 9, 11), and `hand` is the fewest's.
    shown_hands = {s["shots"]: s.get("hand") for s in answer.get("shots", [])}
    exact("hands", ref.hands, shown_hands)
    if ref.shots:
        exact("hand_shots", next(iter(ref.shots)), answer.get("hand_shots"))
    return problems


def query_of(ids: dict, plan: Plan) -> dict:
    q = plan.query
    return {
        "id": ids[plan.attacker["name"]],
        "target": ids[plan.target["name"]],
        "weapon": q.weapon,
        "aim": str(q.aim),
        "mode": q.mode,
        "shots": "" if q.shots is None else str(q.shots),
        "area": q.area or "",
    }


@pytest.fixture
def gm_client(client, gm):
    client.force_login(gm)
    client.cookies["django_language"] = "en"
    return client


@pytest.fixture
def seeded_dice(monkeypatch):
    def seed(value: int):
        monkeypatch.setattr(services, "rng", random.Random(value))

    return seed


def test_the_reference_reproduces_the_texts_figures():
    """The reference's pieces on the text's own figures (p. 4, 10, 12)."""
    # p. 10 at 37 m: light crossbow +3, cobblestone (improvised, thrown) +12, modern SMG
    # (rifled) +1, assault carbine (long, rifled) ±0.
    assert range_malus(37, ()) == 3
    assert range_malus(37, ("improvised", "thrown")) == 12
    assert range_malus(37, ("rifled",)) == 1
    assert range_malus(37, ("heavy_or_long", "rifled")) == 0
    # p. 4: 1F cancels 1T; at most 6 dice.
    assert hand_counts(1, 1, 1) == (1, 0, 0)
    assert hand_counts(2, 1, 6) == (2, 0, 4)
    # 1B1F counts the higher die: a 6 in 11 of 36; 2B2T counts the lower two.
    assert hand_sums(1, 1, 0)[6] == Fraction(11, 36)
    assert min(hand_sums(2, 0, 2)) == 2
    assert sum(hand_sums(2, 0, 2).values()) == 1
    # p. 12, Etka: TB 6, dice 4, ST 9, sling +5 -> active strength 10; armour 5 -> 5.
    sling = WEAPONS["sling"]
    assert (sling.real, sling.fys, sling.strength) == (True, False, 5)
    assert (6 + 4 - 9) + 4 + sling.strength == 10


def test_the_reference_catalogue_is_the_campaigns(gm_client, campaign):
    """The weapon figures the reference copied are the ones the catalogue page shows."""
    page = gm_client.get(reverse("combat:catalogue", args=[campaign.pk]))
    assert page.status_code == 200
    rows = re.findall(
        r"<tr><th>([^<]+)</th><td>.*?</td><td>(-?\d+)</td>"
        r"<td>([\d/]+)</td><td>(\d+)</td><td>.*?</td><td>(.*?)</td><td>(.*?)</td>",
        page.content.decode(),
    )
    # The page names its entries (issue 26): each row's name read back to its key.
    weapons = services.catalogue(campaign.pk, services.engine_of(Encounter(system="aoristos")))
    keys = {item.name: key for key, item in weapons["weapon"].items()}
    shown = {keys[name]: row for name, *row in rows}
    for key, weapon in WEAPONS.items():
        if key == "unarmed":
            continue
        strength, hands, windup, modes, magazine = shown[key]
        ms = f"{weapon.magazine}{'+1' if weapon.chambered else ''}" if weapon.magazine else ""
        assert (int(strength), hands, int(windup), modes, magazine) == (
            weapon.strength,
            "/".join(map(str, weapon.hands)),
            weapon.windup,
            weapon.modes,
            ms,
        ), key


@pytest.mark.parametrize("seed", SEEDS)
def test_preview_matches_the_reference(gm_client, campaign, seeded_dice, seed):
    plan = make_plan(seed)
    seeded_dice(seed)
    encounter = Encounter.objects.create(
        campaign=campaign,
        name=f"Referens {seed}",
        system="aoristos",
        house_rules={"movement_by_round_total": True, "melee_reach": plan.reach},
    )
    api = Api(gm_client, encounter)
    state, ids = set_up(api, plan)
    problems = state_problems(plan, state, ids)
    answer = api.preview(query_of(ids, plan))
    assert answer.status_code == 200, (answer.status_code, answer.content[:400])
    data = answer.json()
    if data.get("ok") is not True:
        problems.append(f"refused: {data}")
    everyone = []
    for person in (plan.attacker, plan.target, *plan.others):
        aimed = ids[plan.target["name"]] if person is plan.attacker and plan.range_aim else None
        everyone.append(body_of(by_name(state, person["name"]), person, range_aim_target=aimed))
    ref = reference(
        everyone[0],
        everyone[1],
        everyone,
        plan.query,
        round_=state["state"]["round"],
        reach=state["state"]["house"]["melee_reach"],
    )
    if data.get("ok") is True:
        problems += compare(data, ref)
    assert not problems, (
        f"seed {seed} ({plan.kind}, {plan.weapon}, {plan.query}, reach {plan.reach}, "
        f"round {plan.round}, attacker nervchock {plan.attacker_nerve}, "
        f"threshold parts shown {data.get('threshold_parts')}):\n  " + "\n  ".join(problems)
    )


REFUSED = (
    ("an unknown area", {"weapon": "pistol", "area": "elbow"}),
    ("aim that is not a number", {"weapon": "pistol", "aim": "x"}),
    ("a weapon not carried", {"weapon": "sword"}),
    ("a weapon not drawn", {"weapon": "knife"}),
    ("a mode the weapon lacks", {"weapon": "pistol", "mode": "auto+2N"}),
    ("aim at a target out of reach with a knife", {"weapon": "knife_far"}),
    ("an aimed shot in melee", {"weapon": "pistol", "aim": "1", "near": True}),
    ("a bow not wound up", {"weapon": "bow"}),
    ("an unknown target", {"weapon": "pistol", "target": "c99"}),
    ("too many shots", {"weapon": "smg", "mode": "auto+2N", "shots": "99"}),
    ("negative aim", {"weapon": "pistol", "aim": "-1"}),
)


@pytest.mark.parametrize(("what", "query"), REFUSED, ids=[w for w, _ in REFUSED])
def test_a_refused_preview_answers_400_with_an_error(gm_client, campaign, seeded_dice, what, query):
    seeded_dice(1)
    encounter = Encounter.objects.create(campaign=campaign, name="Nej", system="aoristos")
    api = Api(gm_client, encounter)
    knife_holder = query["weapon"] == "knife_far"
    weapons = ["pistol", "bow", "smg", "knife"]
    right = "knife" if knife_holder else "bow" if query["weapon"] == "bow" else "pistol"
    left = "bow" if query["weapon"] == "bow" else "smg" if query["weapon"] == "smg" else None
    if query["weapon"] == "knife":
        right, left = "pistol", None
    data = api.send(
        {
            "type": "add_combatant",
            "name": "A",
            "side": "a",
            "weapons": weapons,
            "right": right,
            "left": left,
            "alertness": 5,
        }
    )
    attacker = by_name(data, "A")["id"]
    data = api.send(
        {"type": "add_combatant", "name": "B", "side": "b", "x": 1.0 if query.get("near") else 12.0}
    )
    target = by_name(data, "B")["id"]
    api.send({"type": "start"})
    weapon = "knife" if knife_holder else query["weapon"]
    full = {
        "id": attacker,
        "target": query.get("target", target),
        "weapon": weapon,
        **{k: v for k, v in query.items() if k not in ("weapon", "target", "near")},
    }
    answer = api.preview(full)
    assert answer.status_code < 500
    assert (answer.status_code, "error" in answer.json()) == (400, True), (
        what,
        answer.status_code,
        answer.content[:300],
    )
