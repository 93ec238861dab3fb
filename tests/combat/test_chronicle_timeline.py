"""A chronicle driven from outside (issue 25, item 11): the GM's JSON API only, through
minutes, hours, a Monday night and months, with two wounds, first aid, an unstable body,
a fall into unconsciousness, psyktrauma gains and recovery. Every timed event the server
reports is checked against the rule text (p. 13-15), recomputed here from the dice the
server reports and the body's numbers as this test keeps them line by line.

The reference arithmetic is written here from the text and rulings.md, independently of
the rules core's figures (rules.aoristos.aftermath.figures is not imported). The dice are
scripted only to steer the story; the checks read the dice back from the log lines.
"""

import json
from datetime import datetime, timedelta

from django.urls import reverse

from combat.models import Encounter

# p. 14, Läkning 1-3: what each circumstance adds to the healing test's ST.
ENVIRONMENT = {"squalid": 2, "outdoors": 0, "clean": -1, "hospital": -2}  # not while unstable
REST = {"none": 5, "normal": 3, "moving": 1, "thorough": 0}
CARE = {"stone_age": 0, "basic": -1, "professional": -2}  # for a body that is cared for
# p. 5: GST is 4 plus 2 per tested property: the healing test tests nothing (p. 14: "Testet
# har inget innehåll i sin testbas, vilket gör att GST är 4"), the test against
# unconsciousness tests VIL.
HEALING_GST = 4
VIL_GST = 4 + 2
# p. 14, Effekter av organtrauma.
LASTING_AT, UNSTABLE_AT, AWAKE_AT = 3, 5, 7
HARM_UNDER = 4  # p. 14: an unstable test's result under 4 adds organtrauma
# p. 13: "5 minuter efter att ett sår uppstod ... Då, och var tionde minut därefter".
CONVERSION, TICK = timedelta(minutes=5), timedelta(minutes=10)
AWAKE_EVERY, HOURLY = timedelta(minutes=5), timedelta(hours=1)  # p. 14
REST_OUT = timedelta(hours=8)  # house rule (the chronicle's default): "vila ut"
MONTH = timedelta(days=30)  # rulings: the text names no calendar; a month is 30 days
# p. 14, Effekter av utrustning vid stoppande av blödning.
AID_EQUIPMENT = {"immediate": 1, "no_equipment": -1, "modern_bandage": 1, "coagulant": 1,
                 "tight": 1}


def lowest(dice, count=1) -> int:
    """A forced hand counts its B lowest dice (p. 4)."""
    return sum(sorted(dice)[:count])


def time(text: str) -> datetime:
    return datetime.fromisoformat(text)


def monday_night_after(moment: datetime) -> datetime:
    """p. 14: the weekly test is "natten till måndag": the first Monday 00:00 after."""
    day = datetime(moment.year, moment.month, moment.day)
    day += timedelta(days=1)
    while day.weekday() != 0:
        day += timedelta(days=1)
    return day


class Body:
    """Albert's body as the text makes it, kept from the lines the server reports."""

    def __init__(self, willpower: int, tolerance: int, clock: datetime):
        self.willpower, self.tolerance, self.clock = willpower, tolerance, clock
        self.activity, self.environment = "rest", "outdoors"
        self.rest, self.care = "thorough", "stone_age"
        self.conscious = True
        self.organ_trauma = 0
        self.wounds: list[dict] = []
        self.fresh_at: datetime | None = None  # the last fresh shock (p. 14: until rested)
        self.rested = True
        self.next_hourly: datetime | None = None
        self.next_weekly: datetime | None = None
        self.next_awake: datetime | None = None
        self.psych = 0
        self.recovery, self.recovery_from = "ordinary", clock
        self.seen: dict[str, int] = {}

    # What is in effect ---------------------------------------------------------------------

    def lasting_degrees(self) -> int:
        """p. 14: one degree per broken or destroyed limb whose wound is under a month
        old, one at organtrauma 3+."""
        limbs = {w["area"] for w in self.wounds if w["limb"] and not w["mended"]}
        return len(limbs) + (self.organ_trauma >= LASTING_AT)

    def nerve_shock(self) -> int:
        """The lasting degrees are in effect until the body has rested out (p. 14)."""
        return 0 if self.rested else self.lasting_degrees()

    def test_dice(self) -> int:
        """A success test: 1B1T and 1T per degree of nervchock, at most 6 dice (p. 4-5)."""
        return min(6, 2 + self.nerve_shock())

    def bleeding(self, wound: dict) -> int:
        return 0 if wound["converted"] else max(0, wound["bleed_rate"] - wound["aid"])

    def resting(self) -> bool:
        return self.activity != "active" or not self.conscious

    # Changes -------------------------------------------------------------------------------

    def trauma(self, after: int, at: datetime, survival) -> None:
        """Organtrauma set to `after`; a rise is checked against its survival roll (p. 14:
        2B2T, under the total is death) and a rise to 3+ is fresh shock."""
        if after > self.organ_trauma:
            assert survival is not None
            assert len(survival["dice"]) == 4
            assert survival["result"] == lowest(survival["dice"], 2)
            assert survival["organ_trauma"] == after
            assert survival["alive"] == (survival["result"] >= after)
            assert survival["alive"], "the story does not kill Albert"
            if after >= LASTING_AT:
                self.shaken(at)
        was_unstable = self.organ_trauma >= UNSTABLE_AT
        self.organ_trauma = after
        if after >= UNSTABLE_AT and not was_unstable:
            self.next_hourly, self.next_weekly = at + HOURLY, None
        elif after < UNSTABLE_AT and was_unstable:
            self.next_hourly, self.next_weekly = None, monday_night_after(at)
        elif after > 0 and self.next_weekly is None and self.next_hourly is None:
            self.next_weekly = monday_night_after(at)
        if after >= AWAKE_AT and self.conscious and self.next_awake is None:
            self.next_awake = at + AWAKE_EVERY

    def shaken(self, at: datetime) -> None:
        self.fresh_at, self.rested = at, False

    # The lines -------------------------------------------------------------------------------

    def check(self, line: dict) -> None:
        kind = line["kind"]
        assert kind != "More", "every timed event is on its own line here"
        self.seen[kind] = self.seen.get(kind, 0) + 1
        getattr(self, kind)(line)

    def ClockMoved(self, line):
        self.clock = time(line["to"])

    def CircumstancesSet(self, line):
        self.activity, self.environment = line["activity"], line["environment"]
        self.rest, self.care = line["rest"], line["care"]

    def WoundAdded(self, line):
        at, damage, area = time(line["at"]), line["damage"], line["area"]
        limb = area.endswith(("_arm", "_leg"))
        # p. 13: nervchock + damage, bleed rate + damage − 1, organtrauma + damage − 1 off
        # a limb; p. 14: a limb breaks at 3 damage, is destroyed at 5.
        assert line["bleed_rate"] == damage - 1
        assert line["organ_trauma"] == (0 if limb else damage - 1)
        expected_limb = (
            ("destroyed" if damage >= 5 else "broken" if damage >= 3 else None) if limb else None
        )
        assert line["limb_state"] == expected_limb
        # p. 13: at the hit, bleed rate + nervchock ≥ Chocktolerans knocks one out: what
        # still bleeds with the new wound, what is in effect with its damage.
        bleed = sum(self.bleeding(w) for w in self.wounds) + line["bleed_rate"]
        nerve = self.nerve_shock() + damage
        if self.conscious:
            assert line["shock"] == [bleed, nerve, self.tolerance]
            assert line["knocked_out"] == (bleed + nerve >= self.tolerance)
        else:
            assert line["knocked_out"] is False
        self.wounds.append(
            {"dealt": at, "area": area, "bleed_rate": line["bleed_rate"], "aid": 0,
             "first_aid": False, "converted": False, "blood_loss": 0, "last_tick": None,
             "limb": expected_limb is not None, "mended": False}
        )
        self.shaken(self.clock)  # p. 14: a fresh wound's lasting degree until rested out
        self.trauma(self.organ_trauma + line["organ_trauma"], at, line["survival"])
        if line["knocked_out"]:
            self.conscious, self.next_awake = False, None

    def FirstAidGiven(self, line):
        # p. 13-14: Livräddning, or twice the lower level of two, plus the equipment.
        levels = line["levels"]
        skill = levels[0] if len(levels) == 1 else 2 * min(levels)
        reduction = skill + sum(AID_EQUIPMENT[e] for e in line["equipment"]) + line["judged"]
        assert line["reduction"] == reduction
        at = time(line["at"])
        open_ = [w for w in self.wounds if self.bleeding(w) and not w["first_aid"]
                 and at < w["dealt"] + CONVERSION]
        left = max(0, reduction)
        for wound in open_:  # oldest first (the chronicle's reading)
            part = min(left, self.bleeding(wound))
            wound["aid"] += part
            wound["first_aid"] = True
            left -= part
        assert line["applied"] == max(0, reduction) - left

    def BleedTick(self, line):
        at = time(line["at"])
        due = [
            w for w in self.wounds
            if (not w["converted"] and self.bleeding(w) and w["dealt"] + CONVERSION == at)
            or (w["converted"] and w["blood_loss"] > 0 and w["last_tick"] + TICK == at)
        ]
        assert len(due) == 1, f"a bleeding tick at {at} that the text does not give"
        (wound,) = due
        assert line["converted"] == (not wound["converted"])
        blood_loss = self.bleeding(wound) if line["converted"] else wound["blood_loss"]
        # p. 13: blood loss −1 if resting, and +1 organtrauma regardless.
        assert line["fell"] == self.resting()
        assert line["blood_loss"] == blood_loss - (1 if self.resting() else 0)
        assert line["organ_trauma"] == self.organ_trauma + 1
        wound.update(converted=True, blood_loss=line["blood_loss"], last_tick=at)
        self.trauma(line["organ_trauma"], at, line["survival"])

    def AwakeTest(self, line):
        # p. 14, 7+: "Så länge personen är vaken testar hon Viljestyrka mot medvetslöshet
        # var femte minut": VIL + the lowest of 1B1T (+1T per degree) against GST 6.
        at = time(line["at"])
        assert self.conscious
        assert self.organ_trauma >= AWAKE_AT
        assert at == self.next_awake
        assert len(line["dice"]) == self.test_dice()
        assert line["total"] == self.willpower + lowest(line["dice"])
        assert line["threshold"] == VIL_GST
        assert line["ok"] == (line["total"] >= VIL_GST)
        if line["ok"]:
            self.next_awake = at + AWAKE_EVERY
        else:
            self.conscious, self.next_awake = False, None

    def HealingTest(self, line):
        at = time(line["at"])
        hourly = self.organ_trauma >= UNSTABLE_AT
        assert line["hourly"] == hourly
        if hourly:
            assert at == self.next_hourly
        else:
            assert at == self.next_weekly
            assert (at.weekday(), at.hour, at.minute) == (0, 0, 0)  # the night to Monday
        # An empty TB (GST 4), the rest and the care, the environment not while unstable;
        # 1B1T plus 1T per degree of nervchock in effect (rulings § Success tests).
        threshold = HEALING_GST + REST[self.rest]
        threshold += CARE[self.care] if self.activity == "cared" else 0
        threshold += 0 if hourly else ENVIRONMENT[self.environment]
        assert line["threshold"] == threshold
        assert len(line["dice"]) == self.test_dice()
        assert line["result"] == lowest(line["dice"])
        healed = line["result"] >= threshold
        harmed = hourly and line["result"] < HARM_UNDER
        assert (line["healed"], line["harmed"]) == (healed, harmed)
        after = self.organ_trauma - healed + harmed
        assert line["organ_trauma"] == after
        # p. 14: a survival roll for the harm, but "ett resultat som både ger och tar
        # trauma" provokes no test against death (checked by `trauma` when there is one).
        if not harmed or healed:
            assert line["survival"] is None
        if hourly:
            self.next_hourly = at + HOURLY
        else:
            self.next_weekly = at + timedelta(days=7)
        self.trauma(after, at, line["survival"])
        if after <= 0:
            self.next_hourly = self.next_weekly = None

    def Rested(self, line):
        assert self.resting()
        assert time(line["at"]) == self.fresh_at + REST_OUT
        self.rested = True

    def LimbMended(self, line):
        (wound,) = [w for w in self.wounds if w["limb"] and w["area"] == line["area"]]
        assert time(line["at"]) == wound["dealt"] + MONTH  # p. 14: a month old
        assert line["limb_state"] == "ok"  # a broken limb heals then
        wound["mended"] = True

    def PsychTraumaGained(self, line):
        if line["hand"] == "1B2F":  # a free hand: for a gain the lowest die counts
            assert len(line["dice"]) == 3
            assert line["amount"] == lowest(line["dice"])
        assert line["psych_trauma"] == self.psych + line["amount"]
        if self.psych == 0:
            self.recovery_from = time(line["at"])
        self.psych = line["psych_trauma"]

    def PsychRecovered(self, line):
        # p. 15: "I bästa fall tappar man sin Viljestyrka i poäng varje månad".
        assert self.recovery == "best"
        at = time(line["at"])
        assert at == self.recovery_from + MONTH
        assert line["removed"] == min(self.willpower, self.psych)
        assert line["psych_trauma"] == self.psych - line["removed"]
        self.psych, self.recovery_from = line["psych_trauma"], at

    def Woke(self, line):
        self.conscious = True
        if self.organ_trauma >= AWAKE_AT:
            self.next_awake = time(line["at"]) + AWAKE_EVERY


def test_a_chronicle_from_outside_every_timed_figure_against_the_text_p13_15(
    client, gm, campaign, albert_in_campaign, dice
):
    client.force_login(gm)
    client.get(reverse("combat:chronicle", args=[campaign.pk]))
    chronicle = Encounter.objects.get(campaign=campaign, kind=Encounter.Kind.CHRONICLE)
    state_url = reverse("combat:api_encounter", args=[chronicle.pk])
    command_url = reverse("combat:api_command", args=[chronicle.pk])
    albert = f"ch{albert_in_campaign.pk}"
    seen = client.get(state_url).json()
    version = seen["version"]
    (shown,) = seen["state"]["bodies"]
    # p. 2: Chocktolerans = VIL + 3 (Albert: VIL 3).
    willpower = albert_in_campaign.attributes["willpower"]
    assert (shown["willpower"], shown["shock_tolerance"]) == (willpower, willpower + 3)
    body = Body(willpower, willpower + 3, time(seen["state"]["clock"]))

    def send(command, *rolled, status=200):
        """The GM's command with these dice queued: every die used, every line checked."""
        nonlocal version
        dice.queue[:] = list(rolled)
        answer = client.post(
            command_url,
            json.dumps({"version": version, "command": command}),
            content_type="application/json",
        )
        assert answer.status_code == status, answer.content
        assert dice.queue == []
        if status != 200:
            return answer.json()
        data = answer.json()
        version = data["version"]
        for line in data["lines"]:
            body.check(line)
        # The GM's word on recovery starts a new period (its line shows the rest).
        recovery = command.get("recovery") if command["type"] == "set_circumstances" else None
        if recovery and recovery != body.recovery:
            body.recovery, body.recovery_from = recovery, body.clock
        return data

    def advance(*rolled, **how):
        return send({"type": "advance", **how}, *rolled)

    # Friday evening: cared for in a clean room, basic care, recovery at its best.
    advance(to="2026-01-09T22:00")
    send({"type": "set_circumstances", "ids": [albert], "activity": "cared",
          "environment": "clean", "care": "basic", "recovery": "best"})
    # p. 15: a shocking event (1B2F) and 12+ hours of training a day (p. 3, 5 points).
    send({"type": "gain_psych_trauma", "id": albert, "hand": "1B2F", "source": "event"},
         5, 2, 4)
    send({"type": "gain_psych_trauma", "id": albert, "amount": 5, "source": "training"})
    # 22:00 two wounds: the arm breaks (3), then the torso (6) knocks him out (p. 13).
    send({"type": "add_wound", "id": albert, "area": "left_arm", "damage": 3})
    send({"type": "add_wound", "id": albert, "area": "torso", "damage": 6}, 3, 3, 4, 4)
    assert body.conscious is False
    assert body.organ_trauma >= UNSTABLE_AT
    send({"type": "first_aid", "id": albert, "levels": [3],
          "equipment": ["immediate", "modern_bandage"]})
    refused = send({"type": "first_aid", "id": albert, "levels": [2, 2]}, status=400)
    assert refused["code"] == "treated"  # p. 13: once to a wound
    # Minutes: the conversion at 22:05 and the tick at 22:15.
    advance(3, 3, 4, 4, unit="minutes", amount=5)
    advance(4, 4, 5, 5, unit="minutes", amount=10)
    assert body.organ_trauma >= AWAKE_AT
    advance(unit="minutes", amount=5)
    send({"type": "wake", "id": albert})
    advance(4, 5, 6, 6, 3, 6, 6, 6, 2, 5, 5, 6, unit="minutes", amount=20)
    assert body.seen["AwakeTest"] == 3
    assert body.conscious is False
    # Hours, unstable: 1B1T + 2T (a broken arm, organtrauma 3+), none rested out yet.
    advance(5, 6, 6, 6, 2, 6, 6, 6, 4, 4, 5, 5, 3, 5, 6, 6, 4, 4, 4, 4, unit="hours", amount=4)
    advance(5, 5, 5, 5, 6, 6, 6, 6, unit="hours", amount=4)
    assert body.seen["HealingTest"] == 6
    assert body.organ_trauma < UNSTABLE_AT
    advance(unit="hours", amount=4)
    assert body.seen["Rested"] == 1
    # The night to Monday, and the weeks after it.
    advance(3, 4, to="2026-01-12T08:00")
    advance(1, 5, unit="weeks", amount=1)
    advance(2, 2, unit="weeks", amount=1)
    advance(6, 6, unit="weeks", amount=1)
    # A month: the arm heals, psyktrauma fades by VIL; then two more months.
    advance(4, 4, to="2026-02-09T08:00")
    assert body.seen["LimbMended"] == 1
    advance(unit="days", amount=30)
    advance(unit="days", amount=30)
    assert body.seen["PsychRecovered"] == 3
    assert body.seen["BleedTick"] == 2
    assert body.seen["HealingTest"] == 11

    # The state the API shows agrees with the text's numbers.
    (shown,) = client.get(state_url).json()["state"]["bodies"]
    assert shown["organ_trauma"] == body.organ_trauma == 0
    assert shown["psych_trauma"] == body.psych == 0
    assert shown["nerve_shock"] == body.nerve_shock() == 0
    assert shown["conscious"] is body.conscious is False
    assert {"area": "left_arm", "state": "ok"} in shown["limbs"]
    assert shown["blood_loss"] == sum(w["blood_loss"] for w in body.wounds) == 0
    assert shown["next_healing"] is None
    assert shown["next_recovery"] is None
