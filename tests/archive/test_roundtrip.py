"""Issue 30: a campaign exported from one server and imported into a fresh one reads
exactly as it did: the state API of every encounter (as the GM and as each player), the
table's history (both views), every sheet and UP ledger, the journal; ids aside.

"A fresh server": after the export the campaign and its players' accounts are deleted,
and the GM's account is made anew. Its members come back as placeholders (they would on
any server: an import attaches no account, issue 42), read here by their archive names:
a placeholder's username is that name with a random suffix."""

import io
import random
import re
import zipfile

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from archive import format as fmt
from archive.export import campaign_archive
from archive.importer import Importer
from archive.models import Placeholder
from campaign_log.reading import events_after
from campaigns.models import Campaign, JournalEntry, Membership
from characters.models import Character, DpEntry
from combat import services
from combat.api import state_data
from combat.models import Encounter, MapPicture, NpcTemplate
from rules import simulation as sim
from table.models import RollEvent
from tests.combat import kinds

pytestmark = pytest.mark.django_db

def png() -> bytes:
    from PIL import Image

    out = io.BytesIO()
    Image.new("RGB", (4, 3), (120, 90, 40)).save(out, "PNG")
    return out.getvalue()


PNG = png()


def command_data(system: str, command) -> dict:
    """A policy's command as the JSON the API and the pages send."""
    import importlib

    from rules.engine import encode

    commands = importlib.import_module(f"rules.{system}.combat.commands").COMMANDS
    name = next(key for key, cls in commands.items() if cls is type(command))
    data = encode(command)
    data.pop("_")
    return {"type": name, **data}


def play_to_the_end(encounter, gm, *, most: int = 120) -> None:
    """Every combatant acts by the simulation's default policy (issue 29), as the GM
    would click it, until one side stands; then the GM ends the fight."""
    membership = encounter.campaign.memberships.get(user=gm)
    engine = services.engine_of(encounter)
    policy, plan, fight = engine.policy, sim.Plan(), sim.Fight()
    table_dice = random.Random(encounter.pk)  # the faces the table "rolls" (issue 48)
    for _ in range(most):
        encounter.refresh_from_db()
        membership.campaign.refresh_from_db()  # its dice source, as a request reads it
        state = services.folded(encounter, engine).state
        if state.asked is not None:  # the GM types the dice the fight waits for
            faces = [table_dice.randint(1, state.asked.sides) for _ in range(state.asked.needed)]
            services.command_run(encounter=encounter, membership=membership, data={
                "type": "enter_dice", "id": state.asked.who, "faces": " ".join(map(str, faces))},
                version=encounter.version)
            continue
        command = policy.start_command(state) if state.round == 0 else None
        if command is None:
            sides = {c.side for c in state.combatants}
            if len(sim.standing(state, policy, fight) & sides) < 2:
                break
            command = policy.next_command(state, plan, fight)
            if command is None:
                break
        services.command_run(encounter=encounter, membership=membership,
                             data=command_data(encounter.system, command),
                             version=encounter.version)
    encounter.refresh_from_db()
    services.command_run(encounter=encounter, membership=membership, data={"type": "end"},
                         version=encounter.version)


@pytest.fixture
def played(client, gm, alice, bob, django_capture_on_commit_callbacks):
    """Three campaigns, one per rule system, each with a fight played to its end; the
    Aoristos one also with a map picture, its chronicle, awards, spends and an undone
    one, journal posts and a pinned recap, open and secret rolls, an NPC template and a
    request to bring a character."""
    made = {}
    with django_capture_on_commit_callbacks(execute=True):
        for system in ("aoristos", "phobia", "t10"):
            one = kinds.make(system, client, gm, alice)
            campaign = one.encounter.campaign
            Membership.objects.create(campaign=campaign, user=bob, seat=2)
            if system == "aoristos":
                upload = io.BytesIO(PNG)
                upload.name = "karta.png"
                answer = client.post(reverse("combat:map_picture_upload", args=[one.encounter.pk]),
                                     {"picture": upload, "width": "20", "x": "0", "y": "0",
                                      "shown": ""})
                assert answer.status_code in (200, 302), answer.content[:300]
            if system == "t10":  # every die of its fight typed in at the table (issue 48)
                Campaign.objects.filter(pk=campaign.pk).update(dice_source="all")
            play_to_the_end(one.encounter, gm)
            if system == "t10":
                assert one.encounter.records.filter(command="enter_dice").exists()
            client.force_login(gm)
            roll = reverse("table:roll", args=[campaign.pk])
            assert client.post(roll, {"mode": "hand", "hand": "2T6" if system == "phobia"
                                      else "1T10" if system == "t10" else "3B",
                                      "purpose": "test"}).status_code in (200, 302)
            assert client.post(roll, {"mode": "hand", "hand": "2T6" if system == "phobia"
                                      else "1T10" if system == "t10" else "2B",
                                      "purpose": "test", "secret": "on"}
                               ).status_code in (200, 302)
            if system == "aoristos":
                albert = one.character
                awards = reverse("campaigns:awards", args=[campaign.pk])
                answer = client.post(awards, {"method": "free", "amount": 12, "reason":
                                              "Bakgården", "target": "all"})
                assert answer.status_code == 302, answer.content[:500]
                journal = reverse("campaigns:journal", args=[campaign.pk])
                client.post(journal, {"title": "Första kvällen", "body": "Vi **flydde**."})
                client.post(journal, {"title": "Andra kvällen", "body": ""})
                entry = JournalEntry.objects.get(campaign=campaign, title="Första kvällen")
                client.post(reverse("campaigns:journal_pin", args=[campaign.pk, entry.pk]))
                NpcTemplate.objects.create(campaign=campaign, name="Vakt", block={"x": 1})
                Campaign.objects.filter(pk=campaign.pk).update(
                    gm_notes="Mördaren är kyrkoherden.", dice_source="players")
                # Alice's own dice, typed in (issue 48).
                client.force_login(alice)
                assert client.post(roll, {"mode": "hand", "hand": "2B", "purpose": "test",
                                          "faces": "3 5"}).status_code == 302
                assert RollEvent.objects.filter(campaign=campaign, typed_in=True).exists()
                client.force_login(gm)
                albert.gm_notes = "Albert är en förrädare."
                albert.save()
                client.force_login(alice)
                spend = reverse("characters:spend", args=[albert.pk])
                assert client.post(spend, {"key": "evasion"}).status_code == 302
                assert client.post(spend, {"key": "firearms"}).status_code == 302
                assert client.post(reverse("characters:undo", args=[albert.pk])
                                   ).status_code == 302
                client.post(roll, {"mode": "hand", "hand": "1B", "purpose": "test",
                                   "character": albert.pk})
                # Bob brings a character the GM has not answered yet.
                extra = Character.objects.create(owner=bob, name="Bertil",
                                                 attributes=kinds.ALBERT_ATTRIBUTES)
                client.force_login(bob)
                client.post(reverse("campaigns:bring_request", args=[campaign.pk]),
                            {"character": extra.pk})
                # Bob's Cecilia rolls here, then leaves: the history names her, the
                # archive holds her name only (issue 42).
                cecilia = Character.objects.create(owner=bob, campaign=campaign,
                                                   name="Cecilia",
                                                   attributes=kinds.ALBERT_ATTRIBUTES)
                campaign.refresh_from_db()
                RollEvent.objects.create(
                    campaign=campaign, seq=campaign.event_seq + 1, actor=bob,
                    character=cecilia, kind="hand", hand="2B", dice=[3, 5],
                    counted=[3, 5], result=8)
                Character.objects.filter(pk=cecilia.pk).update(
                    campaign=None, notes="Cecilias egen anteckning")
                # Handouts (issue 47): one to every player, one to Alice with a picture,
                # one to Bob alone, one on the table screen.
                client.force_login(gm)
                handouts = reverse("table:handouts", args=[campaign.pk])
                seats = {m.user_id: m.pk for m in campaign.memberships.all()}
                for fields in (
                    {"title": "Ryktet", "text": "Någon har sett vargen.", "to": "all"},
                    {"title": "Kartan", "to": f"m{seats[alice.pk]}",
                     "picture": io.BytesIO(PNG)},
                    {"title": "Bobs brev", "text": "Bara för Bob.", "to": f"m{seats[bob.pk]}"},
                    {"title": "Porträttet", "text": "En gammal man.", "to": "screen"},
                ):
                    if "picture" in fields:
                        fields["picture"].name = "karta.png"
                    assert client.post(handouts, {"text": "", **fields}).status_code == 302
                chronicle = services.chronicle_for(campaign)
                gm_seat = campaign.memberships.get(user=gm)
                chronicle = services.chronicle_sync(chronicle, gm_seat)
                services.command_run(
                    encounter=chronicle, membership=gm_seat, version=chronicle.version,
                    data={"type": "add_wound", "id": f"ch{albert.pk}", "area": "left_arm",
                          "damage": 3, "source": "Gränden",
                          "origin": f"e{one.encounter.pk}v3.0"})
            made[system] = campaign
    return made


def normalised(value, names: dict):
    """`value` with the server's own ids replaced by what they stand for: characters
    and encounters by name, a map picture by "picture", users by username."""
    if isinstance(value, list):
        return [normalised(item, names) for item in value]
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            if key in ("pk", "campaign_id", "id") and isinstance(item, int):
                continue
            if key == "character_id" and isinstance(item, int):
                out[key] = names["character"].get(item, item)
            elif key in ("encounter", "ref") and isinstance(item, int):
                out[key] = names["encounter"].get(item, item)
            elif key == "membership_id":
                continue
            elif key == "key" and value.get("_") == "Picture" and item.isdigit():
                out[key] = "picture" if int(item) in names["picture"] else item
            else:
                out[key] = normalised(item, names)
        return out
    if isinstance(value, str):
        if value in names.get("user", {}):
            return names["user"][value]
        value = re.sub(r"\bch(\d+)\b", lambda m: "ch:" + names["character"].get(
            int(m[1]), m[1]), value)
        value = re.sub(r"\be(\d+)(v\d+\.\d+)", lambda m: "e:" + names["encounter"].get(
            int(m[1]), m[1]) + m[2], value)
        value = re.sub(r"/(characters|campaigns|encounters)/\d+", r"/\1/N", value)
        value = re.sub(r"#entry-\d+", "#entry-N", value)
        return value
    return value


def names_of(campaign: Campaign) -> dict:
    characters = {c.pk: c.name for c in Character.objects.filter(
        pk__in=character_pks(campaign))}
    return {
        "character": characters,
        "encounter": {e.pk: e.name + "/" + e.kind for e in campaign.encounters.all()},
        "picture": set(MapPicture.objects.filter(encounter__campaign=campaign)
                       .values_list("pk", flat=True)),
        "user": placeholder_names(campaign),
    }


def placeholder_names(campaign: Campaign) -> dict[str, str]:
    """A placeholder's username ("alice.3f9a0c1b2d4e") by the name the archive gave it."""
    return {p.user.username: p.name
            for p in Placeholder.objects.filter(campaign=campaign).select_related("user")}


def character_pks(campaign: Campaign) -> set[int]:
    pks = set(campaign.characters.values_list("pk", flat=True))
    pks |= set(RollEvent.objects.filter(campaign=campaign, character__isnull=False)
               .values_list("character_id", flat=True))
    pks |= set(campaign.bring_requests.values_list("character_id", flat=True))
    return pks


def everything(campaign: Campaign) -> dict:
    """What the campaign's pages and API show, as comparable data."""
    campaign.refresh_from_db()
    names = names_of(campaign)

    def who(user) -> str | None:  # a user by username, a placeholder by its archive name
        return None if user is None else names["user"].get(user.username, user.username)

    seen = {"campaign": {
        "name": campaign.name, "rule_system": campaign.rule_system,
        "house_rules": campaign.house_rules, "gm_notes": campaign.gm_notes,
        "dice_source": campaign.dice_source,
        "event_seq": campaign.event_seq, "starting_dp": campaign.starting_dp,
        "members": [(who(m.user), m.role, m.seat)
                    for m in campaign.memberships.select_related("user").order_by("seat")],
    }}
    seen["history_gm"] = normalised(events_after(campaign.pk, 0, is_gm=True, limit=10_000),
                                    names)
    seen["history_player"] = normalised(
        events_after(campaign.pk, 0, is_gm=False, limit=10_000), names)
    fights = {}
    for encounter in campaign.encounters.order_by("kind", "name"):
        views = {}
        for membership in campaign.memberships.select_related("user"):
            views[who(membership.user)] = normalised(state_data(encounter, membership),
                                                         names)
        records = [normalised({"version": r.version, "seq": r.seq, "command": r.command,
                               "actor": who(r.actor),
                               "actor_name": r.actor_name, "events": r.events,
                               "lines": r.lines, "public": r.public_lines,
                               "created_at": r.created_at.isoformat()}, names)
                   for r in encounter.records.select_related("actor").order_by("version")]
        fights[encounter.name + "/" + encounter.kind] = {
            "views": views, "records": records, "ended": encounter.ended,
            "controllers": {cid: who(get_user_model().objects.get(pk=uid))
                            for cid, uid in encounter.controllers.items()},
            "pictures": [bytes(p.content) for p in encounter.pictures.order_by("pk")],
        }
    seen["fights"] = fights
    sheets = {}
    for character in Character.objects.filter(pk__in=character_pks(campaign)):
        if character.campaign_id != campaign.pk:  # only its name is the campaign's
            sheets[character.name] = {"in_campaign": False}
            continue
        sheets[character.name] = {
            "owner": who(character.owner), "in_campaign": character.campaign_id
            == campaign.pk, "levels": character.levels(), "saved": character.saved_dp(),
            "notes": character.notes, "gm_notes": character.gm_notes,
            "created_at": character.created_at.isoformat(),
            "items": [(i.name, str(i.bulk), i.quantity, i.catalogue)
                      for i in character.items.order_by("pk")],
            "ledger": [(e.kind, e.amount, e.key, e.reason, e.dp_before, e.dp_after,
                        e.undoes.kind if e.undoes else None,
                        who(e.created_by),
                        e.created_at.isoformat())
                       for e in character.ledger.select_related("undoes", "created_by")
                       .order_by("pk")],
        }
    seen["sheets"] = sheets
    seen["journal"] = [(e.title, e.body, e.pinned, who(e.author), e.created_at.isoformat())
                       for e in campaign.journal.select_related("author").order_by("pk")]
    seen["catalogue"] = sorted((i.kind, i.key, str(i.data))
                               for i in campaign.catalogue_items.all())
    seen["npc_templates"] = [(t.name, t.block) for t in campaign.npc_templates.all()]
    seen["bring_requests"] = [(r.character.name, r.status)
                              for r in campaign.bring_requests.select_related("character")]
    seen["handouts"] = [
        (h.title, h.text, who(h.recipient.user) if h.recipient else None, h.on_screen,
         bytes(h.picture) if h.picture is not None else None, h.content_type, h.width_px,
         h.created_at.isoformat())
        for h in campaign.handouts.select_related("recipient__user").order_by("pk")]
    return seen


def first_difference(a, b, path="") -> str:
    """Where two nested values first differ, for an assertion's message."""
    if isinstance(a, dict) and isinstance(b, dict):
        for key in sorted(set(a) | set(b), key=str):
            if a.get(key) != b.get(key):
                return first_difference(a.get(key), b.get(key), f"{path}.{key}")
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for n, (x, y) in enumerate(zip(a, b, strict=True)):
            if x != y:
                return first_difference(x, y, f"{path}[{n}]")
    return f"{path}: {str(a)[:300]} != {str(b)[:300]}"


def archive_of(campaign: Campaign, user) -> bytes:
    membership = campaign.memberships.select_related("user").get(user=user)
    return b"".join(campaign_archive(campaign, membership))


def test_a_campaign_comes_back_exactly_on_a_fresh_server(played, gm, alice, bob, tmp_path,
                                                         django_capture_on_commit_callbacks):
    before, files = {}, {}
    for system, campaign in played.items():
        before[system] = everything(campaign)
        files[system] = tmp_path / f"{system}.zip"
        files[system].write_bytes(archive_of(campaign, gm))
    # The fights were played: each log holds attacks and its end, and the Aoristos fight's
    # wounds went on in its chronicle.
    for system in played:
        fight = next(f for name, f in before[system]["fights"].items() if "/combat" in name)
        assert fight["ended"], system
        assert len(fight["records"]) > 4, system
    assert any("/chronicle" in name and len(f["records"]) > 1
               for name, f in before["aoristos"]["fights"].items())
    assert before["aoristos"]["fights"]["Gränden/combat"]["pictures"] == [PNG]
    assert any(e.get("secret") for e in before["aoristos"]["history_gm"])
    assert any(e.get("typed_in") for e in before["aoristos"]["history_gm"])  # issue 48
    assert any(e.get("character") == "Cecilia" for e in before["aoristos"]["history_gm"])
    assert before["aoristos"]["sheets"]["Cecilia"] == {"in_campaign": False}
    assert [h[0] for h in before["aoristos"]["handouts"]] == [
        "Ryktet", "Kartan", "Bobs brev", "Porträttet"]
    assert before["aoristos"]["handouts"][1][4] == PNG

    # The fresh server: nobody it knew, and the GM's account made anew.
    for campaign in played.values():
        campaign.delete()
    DpEntry.objects.filter(undoes__isnull=False).delete()  # an undo protects its spend
    Character.objects.all().delete()
    get_user_model().objects.all().delete()
    importer = get_user_model().objects.create_user(username="gunnar", password="x")
    for system, path in files.items():
        with fmt.Archive(path) as archive, django_capture_on_commit_callbacks(execute=True):
            made = Importer(archive, importer).run()
        services.forget()
        after = everything(Campaign.objects.get(pk=made.pk))
        for part in before[system]:
            assert after[part] == before[system][part], (system, part, first_difference(
                after[part], before[system][part]))
        # Alice and Bob are placeholders with their own names: nobody can log in as them.
        holders = {p.name: p.user for p in Placeholder.objects.filter(campaign=made)}
        assert set(holders) == {"alice", "bob"}
        assert not any(u.is_active or u.has_usable_password() for u in holders.values())
        # The next archive goes to a fresh server too.
        DpEntry.objects.filter(undoes__isnull=False).delete()
        made.delete()
        get_user_model().objects.exclude(pk=importer.pk).delete()


def test_the_gm_archive_marks_what_is_secret_and_a_players_holds_none_of_it(played, gm, alice):
    campaign = played["aoristos"]
    with zipfile.ZipFile(io.BytesIO(archive_of(campaign, gm))) as z:
        manifest = fmt.loads(z.read("manifest.json"), "manifest")
        assert manifest["audience"] == "gm"
        assert manifest["schema"] == fmt.SCHEMA
        assert "campaign.json: gm_notes" in manifest["gm_only"]
        whole = b"".join(z.read(name) for name in z.namelist()).decode(errors="replace")
    assert "Mördaren är kyrkoherden." in whole
    assert "Albert är en förrädare." in whole
    secret = RollEvent.objects.get(campaign=campaign, secret=True)
    with zipfile.ZipFile(io.BytesIO(archive_of(campaign, alice))) as z:
        manifest = fmt.loads(z.read("manifest.json"), "manifest")
        assert manifest["audience"] == "player"
        names = set(z.namelist())
        mine = {name: z.read(name).decode(errors="replace") for name in names}
    assert not any(name.startswith("pictures/") for name in names)  # the GM hid it
    # Her handouts, with the picture given to her; not Bob's.
    given = [fmt.loads(line, "handouts") for line in mine["handouts.jsonl"].splitlines()]
    assert [h["title"] for h in given] == ["Ryktet", "Kartan", "Porträttet"]
    assert [name for name in names if name.startswith("handouts/")] == [given[1]["picture"]]
    assert "Bara för Bob." not in "".join(mine.values())
    text = "".join(mine.values())
    for secret_text in ("Mördaren är kyrkoherden.", "Albert är en förrädare.", "gm_notes",
                        "npc_templates", '"Vakt"'):
        assert secret_text not in text, secret_text
    history = [fmt.loads(line, "history") for line in mine["history.jsonl"].splitlines()]
    hidden = next(e for e in history if e["seq"] == secret.seq)
    assert set(hidden) <= {"seq", "kind", "actor", "secret", "created_at", "time", "type"}
    assert hidden["secret"] is True
    # What the player's own pages show is there: the fight as the API gives it to her.
    fights = [fmt.loads(line, "fights") for line in mine["fights.jsonl"].splitlines()]
    fight = next(f for f in fights if f["kind"] == "combat")
    encounter = Encounter.objects.get(pk=fight["id"])
    expected = state_data(encounter, campaign.memberships.get(user=alice))
    assert fmt.loads(fmt.json.dumps(expected, default=str), "x") == fight["view"]
