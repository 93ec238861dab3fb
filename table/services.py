"""Rolling at the live table: every die on the server, every roll numbered and broadcast;
and the table's other events of the campaign's log, membership changes and notices.

How the log reads and shows them is `campaign_log`'s; what it needs of these kinds is in
`table.log_kinds`."""

import secrets
from fractions import Fraction

from django.utils import timezone

from campaign_log.broadcast import publish_on_commit
from campaign_log.numbering import insert_numbered, next_seq, public_payload
from campaigns.models import Campaign
from rules.aoristos import dice, success
from rules.entered import entered
from rules.errors import RulesError
from table.models import MembershipEvent, NoticeEvent, RollEvent

rng = secrets.SystemRandom()  # tests replace it with scripted dice


def roll_record(
    *,
    campaign: Campaign,
    actor,
    hand: dice.Hand,
    purpose: dice.Purpose = dice.Purpose.TEST,
    character=None,
    label: str = "",
    test_base: int | None = None,
    threshold: int | None = None,
    secret: bool = False,
    idempotency_key: str | None = None,
    faces: tuple[int, ...] | None = None,
) -> RollEvent:
    """Roll `hand`, store it as the campaign's next event and broadcast it after commit.
    With a test base and threshold it is a success test (p. 5). `faces`: the table's own
    dice, typed in (issue 48), in place of the server's (`rolled_with`).

    With an `idempotency_key` the actor already rolled with, nothing is rolled or sent
    again: that first roll is returned.
    """
    rolled = rolled_with(lambda source: dice.roll(hand, source, purpose), faces)
    event = RollEvent(
        campaign=campaign,
        actor=actor,
        character=character,
        kind=RollEvent.Kind.TEST if threshold is not None else RollEvent.Kind.HAND,
        label=label,
        hand=str(rolled.hand),
        dice=list(rolled.dice),
        counted=list(rolled.counted),
        result=rolled.result,
        test_base=test_base,
        threshold=threshold,
        secret=secret,
        created_at=timezone.now(),
        idempotency_key=idempotency_key,
        typed_in=True if faces is not None else None,
    )
    return store_and_publish(event)


def rolled_with(roll, faces: tuple[int, ...] | None):
    """`roll(source)` with the server's dice, or with `faces` the table rolled and typed
    in (issue 48: `rules.entered`, the same code either way; a RulesError says what is
    wrong with the faces, and nothing is stored)."""
    if faces is None:
        return roll(rng)
    return entered(roll, faces)


def store_and_publish(event: RollEvent) -> RollEvent:
    """Store a new roll as the campaign's next event and broadcast it after commit; when its
    actor already rolled with its idempotency key, that first roll instead (nothing sent)."""
    if not insert(event):
        return RollEvent.objects.select_related("campaign", "actor", "character").get(
            actor=event.actor, idempotency_key=event.idempotency_key
        )
    publish_on_commit(event.campaign_id, payload(event))
    return event


INSERTED = (
    "campaign",
    "actor",
    "character",
    "kind",
    "label",
    "hand",
    "dice",
    "counted",
    "result",
    "test_base",
    "threshold",
    "secret",
    "detail",
    "created_at",
    "idempotency_key",
    "typed_in",
)


def insert(event: RollEvent) -> bool:
    """Store the roll `event` with the campaign's next number (`insert_numbered`). False
    when the actor already has a roll with its idempotency key (nothing stored)."""
    return insert_numbered(
        event,
        INSERTED,
        '("actor_id", "idempotency_key") WHERE "idempotency_key" IS NOT NULL',
    )


def opposed_test_record(
    *, campaign: Campaign, actor, opposition: dict, secret: bool = False,
    idempotency_key: str | None = None,
) -> RollEvent:
    """Roll an Aoristos opposed test (p. 5; ``table.forms.RollForm.opposition``): both
    sides' representatives' hands, once each (a draw is not rolled again), store it as the
    campaign's next event and broadcast it after commit, as ``roll_record`` does.

    The columns hold the side that rolled (its representative, label, TB and roll; no
    ST); ``detail["sides"]`` who was on each side with the TB each brought, the other
    side's TB and roll. Who won is read from them again (``opposed_fields``)."""
    a, b = opposition["a"], opposition["b"]
    outcome = success.opposed_test(a["side"], b["side"], rng)
    event = RollEvent(
        campaign=campaign,
        actor=actor,
        character=a["character"],
        kind=RollEvent.Kind.TEST,
        label=a["label"],
        hand=str(outcome.a.hand),
        dice=list(outcome.a.dice),
        counted=list(outcome.a.counted),
        result=outcome.a.result,
        test_base=a["side"].test_base,
        threshold=None,
        secret=secret,
        detail={"sides": {
            "a": {"participants": a["participants"], "constant": a["constant"]},
            "b": {
                "participants": b["participants"], "constant": b["constant"],
                "label": b["label"], "test_base": b["side"].test_base,
                "hand": str(outcome.b.hand), "dice": list(outcome.b.dice),
                "counted": list(outcome.b.counted), "result": outcome.b.result,
            },
        }},
        created_at=timezone.now(),
        idempotency_key=idempotency_key,
    )
    return store_and_publish(event)


def opposed_fields(event: RollEvent) -> dict:
    """What the log line of an Aoristos opposed test shows (``opposed_test_record``): each
    side's people with their TBs, what it tested, its TB, hand, dice and total (``sides``:
    the side that rolled, then the other), and the winner, decided again from the stored
    dice by the rules core (`success.resolve_opposed`, as the roll was). Names as they
    were, no ids (a player's archive holds these lines)."""
    stored = event.detail["sides"]
    theirs = stored["b"]
    roll_a = dice.Roll(dice.parse_hand(event.hand), tuple(event.dice), tuple(event.counted),
                       event.result)
    roll_b = dice.Roll(dice.parse_hand(theirs["hand"]), tuple(theirs["dice"]),
                       tuple(theirs["counted"]), theirs["result"])
    outcome = success.resolve_opposed(
        success.OpposedSide(event.test_base, roll_a.hand),
        success.OpposedSide(theirs["test_base"], roll_b.hand), roll_a, roll_b,
    )
    sides = []
    for side, rolled, total, label, test_base in (
        (stored["a"], roll_a, outcome.total_a, event.label, event.test_base),
        (theirs, roll_b, outcome.total_b, theirs["label"], theirs["test_base"]),
    ):
        people = [{"name": p["name"], "test_base": p["test_base"]} for p in side["participants"]]
        sides.append(side_people(people) | {
            "constant": side.get("constant", 0),
            "label": label, "test_base": test_base, "hand": str(rolled.hand),
            "result": rolled.result, "total": total,
            "faces": faces(list(rolled.dice), list(rolled.counted)),
        })
    return {
        "template": "systems/aoristos/_opposed.html",
        "sides": sides,
        "winner": outcome.winner,
        "total": outcome.total_a,
        # The line is marked by whether the side that rolled won; a draw is neither.
        "success": {1: True, -1: False}.get(outcome.winner),
        "margin": outcome.total_a - outcome.total_b,
    }


def side_people(participants: list[dict]) -> dict:
    """Who is on an opposed side, as the tray's odds and the log line name them: each one
    with the TB they bring, their names in a row, and the representative (the first)."""
    return {
        "participants": participants,
        "names": ", ".join(p["name"] for p in participants),
        "representative": participants[0]["name"] if participants else "",
    }


def system_test_record(
    *,
    campaign: Campaign,
    actor,
    character,
    system,
    plan,
    label: str,
    secret: bool = False,
    idempotency_key: str | None = None,
    pair: dict | None = None,
    faces: tuple[int, ...] | None = None,
) -> RollEvent:
    """Roll the test `plan` of `system` (rules.system: not Aoristos, whose tests are
    ``roll_record``'s), store it as the campaign's next event and broadcast it after
    commit; a retried key returns its first roll, as ``roll_record`` does. ``pair``: whom
    a social roll was with (``{"key", "name"}``), kept so the next roll with them carries
    from it (T10)."""
    result = rolled_with(lambda source: system.roll_test(plan, source), faces)
    event = RollEvent(
        campaign=campaign,
        actor=actor,
        character=character,
        kind=RollEvent.Kind.TEST,
        label=label,
        hand=plan.notation,
        dice=list(result.dice),
        counted=list(result.marks.get("counted", result.dice)),
        result=result.total,
        test_base=plan.target,
        threshold=None,
        secret=secret,
        detail={"system": system.name, **system.stored(result)}
        # The exact chance it had, as the tray showed it (`chance_of`).
        | ({"p_success": str(plan.p_success)} if plan.p_success is not None else {})
        | ({"situation": situation} if (situation := system.situation_of(result)) else {})
        | ({"toward": pair["key"], "toward_name": pair["name"]} if pair else {}),
        created_at=timezone.now(),
        idempotency_key=idempotency_key,
        typed_in=True if faces is not None else None,
    )
    return store_and_publish(event)


def system_opposed_record(
    *, campaign: Campaign, actor, character, system, opposition: dict, secret: bool = False,
    idempotency_key: str | None = None,
) -> RollEvent:
    """Roll an opposed test of `system` (``EnteredTestForm.opposition``), store it as the
    campaign's next event and broadcast it after commit, as ``roll_record`` does.

    Against an opponent both sides roll until one wins (a tie rolls again); against an
    earlier roll only the tested side rolls, and its result is compared with the one
    remembered. The columns hold the tested side's (last) roll; ``detail`` also holds the
    opponent's or the earlier roll's, and who won."""
    plan = opposition["a"]
    if "earlier" in opposition:
        result = system.roll_test(plan, rng)
        earlier = opposition["earlier"]
        against = {
            "seq": earlier.seq, "name": opposition["name"], "label": earlier.label,
            "stored": system.stored(opposition["result"]),
            "overcomes": system.overcomes(result, opposition["result"]),
        }
        detail = {"against": against}
    else:
        rolled = system.roll_opposed(plan, opposition["b"], rng)
        opponent = opposition["character"]
        if "sequence" in rolled.marks:
            # A duel (T10): the sides' rolls in rolled order; the columns hold the roll that
            # decided it, whoever made it.
            rolls = [r for pair in rolled.rounds for r in pair if r is not None]
            result = last_b = rolls[-1]
            duel = dict(rolled.marks) | {"rolls": [system.stored(r) for r in rolls]}
            ties = []
        else:
            result, last_b = rolled.rounds[-1]
            duel = None
            ties = [[system.stored(a), system.stored(b)] for a, b in rolled.rounds[:-1]]
        detail = {"opposed": {
            "name": opposition["name"], "label": opposition["b"].label,
            "character_id": opponent.pk if opponent else None,
            "stored": system.stored(last_b),
            "ties": ties,
            "winner": rolled.winner, "relative_effect": rolled.relative_effect,
        } | ({"duel": duel} if duel else {})}
    event = RollEvent(
        campaign=campaign,
        actor=actor,
        character=character,
        kind=RollEvent.Kind.TEST,
        label=plan.label,
        hand=plan.notation,
        dice=list(result.dice),
        counted=list(result.marks.get("counted", result.dice)),
        result=result.total,
        test_base=plan.target,
        secret=secret,
        detail={"system": system.name, **system.stored(result), **detail},
        created_at=timezone.now(),
        idempotency_key=idempotency_key,
    )
    return store_and_publish(event)


def system_hand_record(
    *, campaign: Campaign, actor, system, plan, secret: bool = False,
    idempotency_key: str | None = None, faces: tuple[int, ...] | None = None,
) -> RollEvent:
    """Roll the bare hand `plan` of `system` (rules.system: "1T10", "Ob3T6"), store it as
    the campaign's next event and broadcast it after commit, as ``roll_record`` does."""
    result = rolled_with(lambda source: system.roll_hand(plan, source), faces)
    event = RollEvent(
        campaign=campaign,
        actor=actor,
        kind=RollEvent.Kind.HAND,
        hand=plan.notation,
        dice=list(result.dice),
        counted=list(result.marks.get("counted", result.dice)),
        result=result.total,
        secret=secret,
        detail={"system": system.name, **system.stored_hand(result)},
        created_at=timezone.now(),
        idempotency_key=idempotency_key,
        typed_in=True if faces is not None else None,
    )
    return store_and_publish(event)


def system_fields(event: RollEvent) -> dict:
    """What the log line of another system's test shows: its success, its marks (Phobia:
    effect, perfect, fumble) and its own template (``<system template>/_roll.html``)."""
    from rules import get_system

    system = get_system(event.detail["system"])
    template = f"{system.template}/_roll.html"
    if event.detail.get("hand"):
        hand = system.hand_of(event.detail)
        return {
            "system": system.name, "template": template, "total": hand.total,
            "success": None, "margin": None, "first": list(hand.first),
            "marks": dict(hand.marks), "open_ended": hand.plan.high is None,
        }
    result = system.result_of(event.detail)
    other = opposition_fields(system, event.detail)
    return {
        **other,
        "system": system.name,
        "template": template,
        "total": result.total,
        # An opposed test's line is marked by whether the tested side won.
        "success": (
            other["opposed"]["winner"] == 1 if "opposed" in other
            else other["against"]["overcomes"] if "against" in other
            else result.success
        ),
        "margin": None,
        "first": list(result.first),
        "marks": dict(result.marks),
        "situation": event.detail.get("situation"),  # one this roll opened
        "in_situation": result.plan.params.get("situation"),  # one it was rolled in
        "burden": result.plan.params.get("burden"),  # Ob dice an overload added
        "params": dict(result.plan.params),  # what the test was planned with
        "toward": event.detail.get("toward_name"),  # whom a social roll was with
    }


def opposition_fields(system, detail: dict) -> dict:
    """The other side of an opposed test for its log line: the opponent's roll and who won
    (``opposed``), or the earlier roll it was against and whether it was overcome
    (``against``); nothing for a plain test."""
    if "opposed" in detail:
        opposed = detail["opposed"]
        other = system.result_of(opposed["stored"])
        return {"opposed": {
            "name": opposed["name"], "label": opposed["label"], "chance": other.plan.target,
            "notation": other.plan.notation, "total": other.total, "marks": dict(other.marks),
            "faces": faces(list(other.dice), other.marks.get("counted", list(other.dice))),
            "first": list(other.first), "winner": opposed["winner"],
            "relative_effect": opposed["relative_effect"], "ties": len(opposed["ties"]),
        } | ({"duel": duel_fields(system, opposed["duel"])} if "duel" in opposed else {})}
    if "against" in detail:
        against = detail["against"]
        earlier = system.result_of(against["stored"])
        return {"against": {
            "seq": against["seq"], "name": against["name"], "label": against["label"],
            "chance": earlier.plan.target, "effect": earlier.marks["effect"],
            "perfect": earlier.marks["perfect"], "overcomes": against["overcomes"],
        }}
    return {}


def duel_fields(system, duel: dict) -> dict:
    """A duel's rolls for its log line (T10): who started, each roll in order with its
    side, dice, carry and outcome, and the successes each side reached."""
    sides = duel["sequence"]
    rolls = []
    for side, stored in zip(sides, duel["rolls"], strict=True):
        result = system.result_of(stored)
        rolls.append({
            "side": side, "total": result.total, "dice": list(result.dice),
            "success": result.success, "marks": dict(result.marks),
            "carry": result.plan.params.get("carry", 0), "bonus": result.plan.params["bonus"],
        })
    return {"a_first": duel["a_first"], "initiative": duel["initiative"], "rolls": rolls,
            "successes": duel["successes"], "goal": duel["goal"]}


def payload(event: RollEvent, names: tuple[str, str] | None = None) -> dict:
    """Everything about a roll, as plain JSON-able data (what the broadcaster carries).
    `names`: its actor's username and its character's name, when they were read with the
    row (``log_rows``) rather than loaded as relations."""
    if event.detail is None:  # an Aoristos hand or test: its columns
        return base_payload(event, event.outcome(), names)
    if "system" in event.detail:  # another system's, which it reads back itself
        return base_payload(event, None, names) | system_fields(event)
    return base_payload(event, None, names) | opposed_fields(event)  # Aoristos's opposed


def base_payload(event: RollEvent, outcome, names: tuple[str, str] | None = None) -> dict:
    if names is None:
        names = (
            event.actor.username if event.actor else "",
            event.character.name if event.character else "",
        )
    return {
        "seq": event.seq,
        "faces": faces(event.dice, event.counted),
        "kind": event.kind,
        "actor": names[0],
        "character": names[1],
        "label": event.label,
        "hand": event.hand,
        "dice": event.dice,
        "counted": event.counted,
        "result": event.result,
        "test_base": event.test_base,
        "threshold": event.threshold,
        "total": outcome.total if outcome else None,
        "success": outcome.success if outcome else None,
        "margin": outcome.margin if outcome else None,
        "secret": event.secret,
        "created_at": event.created_at.isoformat(),
        "time": timezone.localtime(event.created_at).strftime("%H:%M"),
        "chance": chance_of(event),
        "luck": luck_of(event),
        "typed_in": bool(event.typed_in),  # the table's own dice, typed in (issue 48)
    }


def luck_of(event: RollEvent) -> float | None:
    """How lucky a test's dice were (issue 48), 0-100, 50 average, higher luckier: its
    mid-percentile under the exact distribution of its dice, by the functions the fight's
    story counts luck with (Aoristos' `roll_luck`, each system's `luck_of`); None for a
    bare hand or an opposed test, whose luck is two sides'."""
    if event.kind != RollEvent.Kind.TEST:
        return None
    detail = event.detail
    try:
        if detail is None:
            from rules.aoristos.combat.story import roll_luck

            luck = roll_luck(dice.parse_hand(event.hand), event.dice, dice.Purpose.TEST)
        elif "system" in detail and not ({"opposed", "against"} & set(detail)):
            from rules import get_system

            luck = get_system(detail["system"]).luck_of(detail)
        else:
            return None
    except (RulesError, ValueError, TypeError, KeyError):
        return None
    return None if luck is None else round(float(luck), 1)


def chance_of(event: RollEvent) -> float | None:
    """The exact chance a test had, in percent (issue 47: the table screen and the log
    show it beside the outcome): an Aoristos test's from its hand, TB and ST by the
    tray's own function (`success.p_success`); another system's as its plan gave it when
    it was rolled (kept in `detail`; a roll from before that has none)."""
    if event.kind != RollEvent.Kind.TEST:
        return None
    if event.detail is None:
        if event.test_base is None or event.threshold is None:
            return None
        try:
            hand = dice.parse_hand(event.hand)
        except (ValueError, RulesError):
            return None
        return round(float(success.p_success(hand, event.test_base, event.threshold)) * 100, 1)
    stored = event.detail.get("p_success")
    if not isinstance(stored, str):
        return None
    try:
        return round(float(Fraction(stored)) * 100, 1)
    except (ValueError, ZeroDivisionError):
        return None


def faces(rolled: list[int], counted: list[int]) -> list[dict]:
    """Each die with whether it counts (counted is a subsequence of the dice, in order)."""
    marked, remaining = [], list(counted)
    for value in rolled:
        counts = bool(remaining) and remaining[0] == value
        if counts:
            remaining.pop(0)
        marked.append({"value": value, "counted": counts})
    return marked


def membership_event_record(*, campaign_id: int, kind: str, membership_id: int, username: str):
    """Number a membership change in the campaign's sequence and tell the open streams after
    commit. Call it inside the transaction that makes the change."""
    event = MembershipEvent.objects.create(
        campaign_id=campaign_id,
        seq=next_seq(campaign_id),
        kind=kind,
        membership_id=membership_id,
        username=username,
    )
    publish_on_commit(campaign_id, member_payload(event))
    return event


def member_payload(event: MembershipEvent) -> dict:
    return public_payload(
        event, "member-" + event.kind, event.username, membership_id=event.membership_id
    )


def notice_record(*, campaign_id: int, kind: str, actor: str = "", **data) -> NoticeEvent:
    """Tell the table of an award, a journal post or a pinned recap: numbered in the
    campaign's sequence, sent to the open streams after commit. Call it inside the
    transaction that makes the change, so the notice exists exactly when the change does."""
    event = NoticeEvent.objects.create(
        campaign_id=campaign_id, seq=next_seq(campaign_id), kind=kind, actor=actor, data=data
    )
    publish_on_commit(campaign_id, notice_payload(event))
    return event


def open_situation(campaign_id: int, character_id: int, *, secret: bool = True) -> str | None:
    """The situation a character's newest situation roll opened (Phobia's Lugn, lines
    210-229) while nobody has ended it since; None when there is none. With ``secret``
    False (a test that is not the GM's secret one, and its odds) the GM's secret Lugn
    rolls are left out: what they made of the situation stays the GM's (docs/rules/t10.md,
    "Secret rolls"). Two indexed queries: the newest such roll, and an end told after it."""
    rolls = RollEvent.objects.filter(
        campaign_id=campaign_id, character_id=character_id, detail__has_key="situation"
    )
    if not secret:
        rolls = rolls.filter(secret=False)
    last = rolls.order_by("-seq").values_list("seq", "detail").first()
    if last is None:
        return None
    seq, detail = last
    ended = NoticeEvent.objects.filter(
        campaign_id=campaign_id, kind=NoticeEvent.Kind.SITUATION, seq__gt=seq,
        data__character_id=character_id,
    ).exists()
    return None if ended else detail["situation"]


def impressions(character, *, is_gm: bool) -> list[dict]:
    """The social carries a character is part of (T10, "Att använda DoS och DoF"): for each
    pair, the newest social roll's carry, whoever made it: the character's own with
    someone (``mine``), or another character's with it. A player does not see the GM's
    secret rolls. One query over the social rolls that name the character."""
    from django.db.models import Q

    rolls = RollEvent.objects.filter(
        Q(character_id=character.pk) | Q(detail__toward=f"character:{character.pk}"),
        campaign_id=character.campaign_id, detail__has_key="toward",
    ).select_related("character").order_by("-seq")
    if not is_gm:
        rolls = rolls.filter(secret=False)
    system = character.system
    seen, rows = set(), []
    for event in rolls[:200]:
        mine = event.character_id == character.pk
        pair = (event.detail["toward"] if mine else event.character_id, mine)
        if pair in seen:
            continue
        seen.add(pair)
        try:
            result = system.result_of(event.detail)
        except RulesError:
            continue
        rows.append({
            "mine": mine, "seq": event.seq, "label": event.label,
            "name": event.detail.get("toward_name") if mine else (
                event.character.name if event.character else "?"),
            "carry": result.marks.get("carry", 0),
        })
    return rows


def notice_payload(event: NoticeEvent) -> dict:
    return public_payload(event, "notice-" + event.kind, event.actor, **event.data)
