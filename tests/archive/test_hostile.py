"""Issue 42: anyone can sign up on a hosted server, so every account may be an attacker of
every other campaign. An archive takes away only what is the campaign's, and an import
reaches nobody else: it attaches no account, it holds no text the server should not
store, and every id it carries names a row of the new campaign."""

import io
import json
import zipfile

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from archive import format as fmt
from archive.export import campaign_archive
from archive.importer import Importer
from campaigns.models import Campaign, Membership
from campaigns.services import campaign_create
from characters.models import Character, DpEntry, Item
from combat import services
from combat.models import Encounter
from table.models import FavouriteTest, RollEvent
from tests.archive.test_roundtrip import play_to_the_end
from tests.combat import kinds

pytestmark = pytest.mark.django_db


def archive_of(campaign, user) -> bytes:
    membership = campaign.memberships.select_related("user").get(user=user)
    return b"".join(campaign_archive(campaign, membership))


def unpacked(data: bytes) -> dict[str, bytes]:
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        return {name: z.read(name) for name in z.namelist()}


def rows_of(members: dict[str, bytes], table: str) -> list[dict]:
    return [json.loads(line) for line in members[f"{table}.jsonl"].splitlines() if line.strip()]


def imported(data: bytes, user, tmp_path, name="a.zip") -> Campaign:
    path = tmp_path / name
    path.write_bytes(data)
    with fmt.Archive(path) as archive:
        return Importer(archive, user).run()


# 1. A character the history names but that is another campaign's -----------------------

SECRETS_OF_B = ("Alberts hemlighet i B", "B:s spelledaranteckning", "Belöning i Bergsstaden",
                "B:s förbannade ring", "B:s favorittest")


def test_a_character_that_moved_on_is_in_the_old_campaigns_archive_by_its_name_only(
        client, gm, alice, make_user, tmp_path, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        one = kinds.make("aoristos", client, gm, alice)
        play_to_the_end(one.encounter, gm)
    a = one.encounter.campaign
    albert = one.character
    RollEvent.objects.create(campaign=a, seq=a.event_seq + 1, actor=alice, character=albert,
                             kind="hand", hand="2B", dice=[3, 5], counted=[3, 5], result=8)
    # Albert leaves for campaign B, whose GM (someone A's GM never met) keeps notes on him.
    b_gm = make_user("bertil-spelledare")
    b = campaign_create(gm=b_gm, name="Bergsstaden")
    Membership.objects.create(campaign=b, user=alice, seat=1)
    Character.objects.filter(pk=albert.pk).update(
        campaign=b, notes=SECRETS_OF_B[0], gm_notes=SECRETS_OF_B[1])
    DpEntry.objects.create(character=albert, kind="award", amount=5, reason=SECRETS_OF_B[2],
                           dp_before=10, dp_after=15, created_by=b_gm)
    Item.objects.create(character=albert, name=SECRETS_OF_B[3])
    FavouriteTest.objects.create(character=albert, name=SECRETS_OF_B[4], properties=[])

    data = archive_of(a, gm)
    members = unpacked(data)
    whole = b"".join(members.values())
    for secret in (*SECRETS_OF_B, b_gm.username):
        assert secret.encode() not in whole, secret
    assert rows_of(members, "characters") == [
        {"id": albert.pk, "name": "Albert", "rule_system": "aoristos", "in_campaign": False,
         "history_only": True}]

    # The archive imports: its fight folds with Albert in it, and Albert's stand-in is the
    # importer's, in no campaign, holding nothing but his name.
    ulla = make_user("ulla")
    made = imported(data, ulla, tmp_path)
    stand_in = Character.objects.get(name="Albert", owner=ulla)
    assert stand_in.campaign is None
    assert (stand_in.notes, stand_in.gm_notes) == ("", "")
    assert not stand_in.ledger.exists()
    assert not stand_in.items.exists()
    fight = made.encounters.get(kind=Encounter.Kind.COMBAT)
    state = services.folded(fight).state
    assert [c.character_id for c in state.combatants if c.character_id] == [stand_in.pk]
    assert RollEvent.objects.get(campaign=made, character__isnull=False).character == stand_in
    client.force_login(ulla)
    assert client.get(reverse("characters:sheet", args=[stand_in.pk])).status_code == 200
    table = client.get(reverse("table:page", args=[made.pk]))
    assert table.status_code == 200


def test_a_stand_in_row_with_more_than_its_name_is_refused(client, gm, alice, make_user,
                                                            tmp_path):
    from tests.archive.test_views import rezipped

    campaign = campaign_create(gm=gm, name="A")
    elsewhere = Character.objects.create(owner=alice, name="Albert")
    RollEvent.objects.create(campaign=campaign, seq=1, actor=gm, character=elsewhere,
                             kind="hand", hand="2B", dice=[3, 5], counted=[3, 5], result=8)
    Campaign.objects.filter(pk=campaign.pk).update(event_seq=1)
    data = archive_of(campaign, gm)

    def with_character(change):
        def rewrite(name, content):
            if name != "characters.jsonl":
                return content
            row = json.loads(content)
            return json.dumps(change(row)).encode() + b"\n"
        return rewrite

    before = (Campaign.objects.count(), Character.objects.count(),
              get_user_model().objects.count())
    for change, reason in (
            (lambda r: {**r, "notes": "x"}, "unknown field"),
            (lambda r: {**r, "in_campaign": True}, "history_only true"),
            (lambda r: {**r, "history_only": "yes"}, "history_only true"),
            (lambda r: {**r, "rule_system": "dnd"}, "rule_system")):
        with pytest.raises(fmt.ArchiveError, match=reason):
            imported(rezipped(data, with_character(change)), gm, tmp_path)
    assert (Campaign.objects.count(), Character.objects.count(),
            get_user_model().objects.count()) == before


# 2. An import attaches nobody ------------------------------------------------------------

def every_user_of(campaign: Campaign) -> set[int]:
    """Every account a row of `campaign` names: members, owners, authors, actors, deciders,
    ledger entries' givers and the fights' controllers."""
    from campaigns.models import BringRequest, JournalEntry
    from combat.models import CombatRecord

    found = set(campaign.memberships.values_list("user_id", flat=True))
    found |= set(Character.objects.filter(campaign=campaign).values_list("owner_id", flat=True))
    found |= set(RollEvent.objects.filter(campaign=campaign).values_list("actor_id", flat=True))
    found |= set(CombatRecord.objects.filter(campaign=campaign).values_list("actor_id",
                                                                            flat=True))
    found |= set(DpEntry.objects.filter(character__campaign=campaign).values_list(
        "created_by_id", flat=True))
    found |= set(JournalEntry.objects.filter(campaign=campaign).values_list("author_id",
                                                                            flat=True))
    found |= set(BringRequest.objects.filter(campaign=campaign).values_list("decided_by_id",
                                                                            flat=True))
    for encounter in campaign.encounters.all():
        found |= set(encounter.controllers.values())
    return found - {None}


def planted(client, gm, alice, bob) -> bytes:
    """A GM's archive whose every row names Alice or Bob (both have accounts here) and a
    member Zed who has none: her character, ledger entries, journal post, rolls, a fight's
    combatant and log, and a request Bob decided."""
    from campaigns.models import BringRequest, JournalEntry

    with_fight = kinds.make("aoristos", client, gm, alice)
    campaign = with_fight.encounter.campaign
    Membership.objects.create(campaign=campaign, user=bob, seat=2)
    albert = with_fight.character
    DpEntry.objects.create(character=albert, kind="award", amount=5, reason="Tåget",
                           dp_before=10, dp_after=15, created_by=bob)
    JournalEntry.objects.create(campaign=campaign, author=alice, title="Alices inlägg")
    RollEvent.objects.create(campaign=campaign, seq=campaign.event_seq + 1, actor=alice,
                             character=albert, kind="hand", hand="2B", dice=[3, 5],
                             counted=[3, 5], result=8)
    other = Character.objects.create(owner=bob, name="Bertil")
    BringRequest.objects.create(campaign=campaign, character=other, status="declined",
                                decided_by=bob)
    data = archive_of(campaign, gm)

    def with_zed(name, content):
        if name != "campaign.json":
            return content
        row = json.loads(content)
        row["members"].append({"id": 999, "user": "zed", "role": "player", "seat": 3,
                               "joined_at": None})
        return json.dumps(row).encode()

    from tests.archive.test_views import rezipped
    return rezipped(data, with_zed)


@pytest.mark.django_db(transaction=True)
def test_an_import_attaches_no_account_and_tells_nobody_which_names_exist(
        client, gm, alice, bob, outsider, tmp_path):
    import re

    from archive import jobs
    from archive.models import ImportJob, Placeholder

    data = planted(client, gm, alice, bob)
    client.force_login(outsider)  # anyone who signed up: the attacker
    client.cookies["django_language"] = "en"
    file = io.BytesIO(data)
    file.name = "planted.zip"
    # An old client still asks to match members by username: ignored.
    answer = client.post(reverse("archive:import"), {"archive": file, "match_usernames": "on"})
    assert answer.status_code == 302
    jobs.wait()
    job = ImportJob.objects.latest("pk")
    assert job.status == "done", job.error
    made = job.campaign
    assert made.gm == outsider
    users = every_user_of(made)
    assert not users & {gm.pk, alice.pk, bob.pk}, "a real account was attached"
    holders = {p.name: p.user for p in Placeholder.objects.filter(campaign=made)}
    assert set(holders) == {"alice", "bob", "zed"}
    assert users == {outsider.pk} | {u.pk for u in holders.values()}
    # Nothing tells Alice (an account here) from Zed (none): the same kind of generated
    # username, the summary and the page by the archive's names only.
    for name, user in holders.items():
        assert re.fullmatch(rf"{name}\.[0-9a-f]{{12}}", user.username), user.username
        assert not user.is_active
        assert not user.has_usable_password()
    assert job.summary == {"rows": job.summary["rows"], "placeholders": 3,
                           "waiting": ["alice", "bob", "zed"]}
    page = client.get(reverse("archive:import_job", args=[job.pk])).content.decode()
    assert "3 members wait as placeholders (alice, bob, zed)" in page
    assert "matched" not in page
    campaign_page = client.get(made.get_absolute_url()).content.decode()
    assert campaign_page.count('data-testid="placeholder"') == 3
    for name in ("alice", "bob", "zed"):
        assert f"<strong>{name}</strong>" in campaign_page
    # The real accounts see nothing of it.
    for user in (alice, bob):
        client.force_login(user)
        assert client.get(made.get_absolute_url()).status_code == 404


@pytest.mark.django_db(transaction=True)
def test_the_import_command_offers_no_matching(client, gm, alice, bob, make_user, tmp_path):
    from django.core.management import CommandError, call_command

    from archive.models import Placeholder

    path = tmp_path / "planted.zip"
    path.write_bytes(planted(client, gm, alice, bob))
    make_user("ulla")
    with pytest.raises(CommandError, match="--no-match"):
        call_command("import_campaign", str(path), "--gm", "ulla", "--no-match")
    out = io.StringIO()
    call_command("import_campaign", str(path), "--gm", "ulla", stdout=out, stderr=io.StringIO())
    assert "3 member(s) wait as placeholders: alice, bob, zed." in out.getvalue()
    made = Campaign.objects.get(gm__username="ulla")
    assert not every_user_of(made) & {gm.pk, alice.pk, bob.pk}
    assert Placeholder.objects.filter(campaign=made).count() == 3


# 3. A placeholder goes only to a member who joined by their own action ------------------

def test_a_placeholder_goes_only_to_a_member_who_joined(client, gm, alice, bob, make_user,
                                                         tmp_path):
    from archive.models import Placeholder
    from campaigns.services import campaign_join

    data = planted(client, gm, alice, bob)
    ulla, carl = make_user("ulla"), make_user("carl")
    made = imported(data, ulla, tmp_path)
    holders = {p.name: p for p in Placeholder.objects.filter(campaign=made)}
    albert = made.characters.get()
    assert albert.owner == holders["alice"].user
    elsewhere = campaign_create(gm=carl, name="Någon annanstans")
    outside = campaign_join(campaign=elsewhere, user=alice)  # a member, of another campaign
    # Alice's own account was named by the archive, but she never joined: nothing to give.
    assert not made.memberships.filter(user=alice).exists()
    client.force_login(ulla)
    page = client.get(made.get_absolute_url()).content.decode()
    assert "No player with an account has joined yet." in page
    # A placeholder someone made active again is still no account that joined.
    woken = holders["zed"].user
    woken.is_active = True
    woken.save()

    def state():
        return (sorted(Placeholder.objects.filter(campaign=made).values_list("pk", flat=True)),
                sorted(made.memberships.values_list("pk", "user_id", "seat")),
                Character.objects.get(pk=albert.pk).owner_id,
                get_user_model().objects.count())

    handover = reverse("archive:handover", args=[made.pk, holders["alice"].pk])
    client.force_login(ulla)
    before = state()
    refusals = {
        "a member of another campaign": outside.pk,
        "the GM": made.memberships.get(user=ulla).pk,
        "another placeholder": made.memberships.get(user=holders["bob"].user).pk,
        "a placeholder made active": made.memberships.get(user=woken).pk,
        "no number": "x",
        "nobody": "",
    }
    for label, member in refusals.items():
        answer = client.post(handover, {"member": member})
        assert answer.status_code == 302, label
        assert state() == before, label
    # She joins by the invitation: now the GM may give her the placeholder.
    client.force_login(alice)
    assert client.post(reverse("campaigns:join", args=[made.invite_token])).status_code == 302
    joined = made.memberships.get(user=alice)
    client.force_login(ulla)
    assert client.post(handover, {"member": joined.pk}).status_code == 302
    albert.refresh_from_db()
    assert albert.owner == alice
    assert not Placeholder.objects.filter(pk=holders["alice"].pk).exists()


def test_only_joining_and_an_import_make_memberships():
    """The hand-over trusts that a membership of an active account other than the GM's was
    made by the account's own join (archive.handover). Every place the project's code makes
    a membership, read from the source: a new one must be looked at before it is added
    here."""
    import ast
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    found = set()
    for path in root.glob("*/**/*.py"):
        parts = path.relative_to(root).parts
        if parts[0] in (".venv", "tests", "bench", "staticfiles", "var") \
                or "migrations" in parts:
            continue
        tree = ast.parse(path.read_text(), str(path))
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            text = ast.unparse(node.func)
            if text == "Membership" or text.endswith((
                    "Membership.objects.create", "Membership.objects.bulk_create",
                    "Membership.objects.get_or_create", "Membership.objects.update_or_create",
                    "memberships.create", "memberships.get_or_create")):
                found.add((str(Path(*parts)), text))
    assert found == {
        ("campaigns/services.py", "Membership.objects.create"),  # campaign_create, _join
        ("archive/importer.py", "Membership"),  # the importer and placeholders
    }, found


# 4. No NUL in any imported text ----------------------------------------------------------

def test_a_nul_anywhere_in_an_archive_refuses_it_naming_where(client, gm, alice, make_user,
                                                               tmp_path):
    from combat.models import CatalogueItem, NpcTemplate
    from tests.archive.test_fuzz import change_line, first_only, with_events
    from tests.archive.test_views import rezipped

    with_fight = kinds.make("aoristos", client, gm, alice)
    campaign = with_fight.encounter.campaign
    client.post(reverse("campaigns:journal", args=[campaign.pk]),
                {"title": "Första kvällen", "body": "x"})
    NpcTemplate.objects.create(campaign=campaign, name="Vakt", block={"name": "Vakt"})
    CatalogueItem.objects.create(campaign=campaign, kind="weapon", key="kniv",
                                 data=kinds.KNIFE)
    data = archive_of(campaign, gm)

    def in_campaign(change):
        return lambda name, content: (json.dumps(change(json.loads(content))).encode()
                                      if name == "campaign.json" else content)

    def deep(events):
        events[0]["note"] = {"inner": ["ok", "hid\x00den"]}
        return events

    nul = "a\x00b"
    cases = {
        "a journal title": (change_line("journal", lambda r: {**r, "title": nul}),
                            "journal.jsonl line 1"),
        "a record's events, deep": (change_line("records", first_only(with_events(deep))),
                                    "records.jsonl line 1"),
        "a key of a notice's data": (change_line("notices", lambda r: {
            **r, "data": {**r["data"], nul: 1}}), "notices.jsonl line 1"),
        "a template's block": (change_line("npc_templates", lambda r: {
            **r, "block": {"name": nul}}), "npc_templates.jsonl line 1"),
        "a catalogue item's data": (change_line("catalogue", lambda r: {
            **r, "data": {**r["data"], "name": nul}}), "catalogue.jsonl line 1"),
        "a character's name": (change_line("characters", lambda r: {**r, "name": nul}),
                               "characters.jsonl line 1"),
        "the campaign's house rules": (in_campaign(lambda c: {
            **c, "house_rules": {"x": [nul]}}), "campaign.json"),
        "the GM's notes": (in_campaign(lambda c: {**c, "gm_notes": nul}), "campaign.json"),
    }
    importer = make_user("ulla")
    before = (Campaign.objects.count(), Character.objects.count(),
              get_user_model().objects.count())
    for label, (change, where) in cases.items():
        with pytest.raises(fmt.ArchiveError) as refused:
            imported(rezipped(data, change), importer, tmp_path)
        assert str(refused.value) == f"{where} holds a NUL character", label
    assert (Campaign.objects.count(), Character.objects.count(),
            get_user_model().objects.count()) == before
    # The six characters "\u0000" (a backslash, not a NUL) are a title like any other.
    made = imported(rezipped(data, change_line("journal", lambda r: {
        **r, "title": "\\u0000"})), importer, tmp_path)
    assert made.journal.get().title == "\\u0000"


def test_a_nul_in_a_character_file_refuses_it(client, alice):
    client.force_login(alice)
    file = io.BytesIO(json.dumps({
        "format": fmt.CHARACTER_FORMAT, "schema": 1,
        "character": {"name": "Albert", "notes": "a\x00b", "rule_system": "aoristos"}}).encode())
    file.name = "albert.json"
    client.cookies["django_language"] = "en"
    answer = client.post(reverse("archive:character_import"), {"file": file})
    assert answer.status_code == 400
    assert "the file holds a NUL character" in answer.content.decode()
    assert not Character.objects.filter(owner=alice).exists()


# 5. Every id stored inside JSON names the new row after an import ------------------------

# Every id a stored JSON field holds, with where it is written, and what it names. The
# importer rewrites each (archive.importer.Importer.remap); docs/archive.md lists them.
ID_FIELDS = {
    "RollEvent.detail.toward": (
        "table/services.py system_test_record, chosen in table/entered.py check_carry: "
        "whom a T10 social roll was with, 'character:<pk>'", "character"),
    "RollEvent.detail.opposed.character_id": (
        "table/services.py system_opposed_record: the opponent of an opposed test",
        "character"),
    "RollEvent.detail.sides.a/b.participants: character_id": (
        "table/services.py opposed_test_record, table/forms.py RollForm.opposition: who "
        "was on each side of an Aoristos opposed test", "character"),
    "NoticeEvent.data.character_id": (
        "table/views.py situation_end: the character whose situation is over", "character"),
    "NoticeEvent.data.url": (
        "campaigns/journal.py tell_the_table: /campaigns/<pk>/journal/#entry-<pk>",
        "journal entry"),
    "CombatRecord.events/lines/public_lines: character_id": (
        "combat/views.py add (a combatant from a sheet, rules/combat_kit.py newcomer); "
        "combat/services.py chronicle_sync (a chronicle's bodies)", "character"),
    "CombatRecord.events: a chronicle body's id 'ch<pk>'": (
        "combat/services.py chronicle_sync, rules/aoristos/aftermath", "character"),
    "CombatRecord.events: a map Picture's key": (
        "combat/views.py map_picture_upload (combat.models.MapPicture)", "picture"),
    "CombatRecord.events: a wound's origin 'e<encounter>v<version>.<event>'": (
        "rules/aoristos/aftermath add_wound: the fight a wound came from", "encounter"),
    "Encounter.controllers: user pk by combatant": (
        "combat/services.py command_run(controller=...): who commands a combatant",
        "user"),
    "NpcTemplate.block: character_id": (
        "not written by this code (a template is saved from a typed block), but an "
        "add_combatant command may hold one: an archive's is the archive's", "character"),
}
# Stored JSON that holds no row id (checked by reading the code that writes it): kept as
# they are. Event numbers are the campaign's own, and an import keeps them.
NO_ID_FIELDS = {
    "Campaign.house_rules": "campaigns/views.py campaign_edit: rule values by key",
    "Encounter.house_rules": "combat/views.py: rule values by key",
    "CatalogueItem.data": "combat/catalogue.py: a weapon's or armour's figures",
    "Character.attributes, skills, rolled": "characters/: values and dice by stat key",
    "RollEvent.detail.against.seq, detail.params.after": "an earlier roll's event number",
    "RollEvent.detail.params.fatigue_from, toward 'name:...', toward_name": "names, no ids",
    "RollEvent.dice, counted; FavouriteTest.properties": "dice and property keys",
    "CombatRecord ids 'c1', 'w1'": "a fight's own numbering of combatants and wounds",
}


def dicts(value):
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            yield item
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)


def strings(value):
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            yield item
        elif isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)


def stored_ids(campaign) -> dict[str, list[tuple[str, int]]]:
    """What each field of ID_FIELDS names in `campaign`'s rows: (kind, pk) each."""
    import re

    from combat.models import CombatRecord, NpcTemplate
    from table.models import NoticeEvent

    rolls = [r.detail for r in RollEvent.objects.filter(campaign=campaign) if r.detail]
    notices = [n.data for n in NoticeEvent.objects.filter(campaign=campaign)]
    records = list(CombatRecord.objects.filter(campaign=campaign).select_related("encounter"))
    logged = [(r.encounter.kind, [r.events, r.lines, r.public_lines]) for r in records]
    return {
        "RollEvent.detail.toward": [
            ("character", int(d["toward"].removeprefix("character:"))) for d in rolls
            if str(d.get("toward", "")).startswith("character:")],
        "RollEvent.detail.opposed.character_id": [
            ("character", d["opposed"]["character_id"]) for d in rolls
            if (d.get("opposed") or {}).get("character_id")],
        "RollEvent.detail.sides.a/b.participants: character_id": [
            ("character", person["character_id"]) for d in rolls
            for side in (d.get("sides") or {}).values() for person in side["participants"]
            if person.get("character_id")],
        "NoticeEvent.data.character_id": [
            ("character", d["character_id"]) for d in notices if "character_id" in d],
        "NoticeEvent.data.url": [
            ("journal entry", int(found[1])) for d in notices
            if (found := re.search(r"#entry-(\d+)$", d.get("url", "")))],
        "CombatRecord.events/lines/public_lines: character_id": [
            ("character", d["character_id"]) for _kind, value in logged for d in dicts(value)
            if isinstance(d.get("character_id"), int)],
        "CombatRecord.events: a chronicle body's id 'ch<pk>'": [
            ("character", int(text[2:])) for kind, value in logged if kind == "chronicle"
            for text in strings(value) if re.fullmatch(r"ch\d+", text)],
        "CombatRecord.events: a map Picture's key": [
            ("picture", int(d["key"])) for _kind, value in logged for d in dicts(value)
            if d.get("_") == "Picture" and d.get("key")],
        "CombatRecord.events: a wound's origin 'e<encounter>v<version>.<event>'": [
            ("encounter", int(found[1])) for _kind, value in logged for d in dicts(value)
            if (found := re.fullmatch(r"e(\d+)v\d+\.\d+", str(d.get("origin", ""))))],
        "Encounter.controllers: user pk by combatant": [
            ("user", uid) for e in campaign.encounters.all() for uid in e.controllers.values()],
        "NpcTemplate.block: character_id": [
            ("character", d["character_id"])
            for t in NpcTemplate.objects.filter(campaign=campaign) for d in dicts(t.block)
            if isinstance(d.get("character_id"), int)],
    }


def named(kind: str, pk: int, campaign) -> str:
    """What row `pk` of `kind` is, by name; AssertionError if it is no row of `campaign`
    (or of what its import made: a stand-in, a placeholder)."""
    from archive.models import Placeholder
    from campaigns.models import JournalEntry
    from combat.models import MapPicture

    if kind == "character":
        return Character.objects.get(pk=pk).name
    if kind == "journal entry":
        return JournalEntry.objects.get(pk=pk, campaign=campaign).title
    if kind == "picture":
        return MapPicture.objects.get(pk=pk, encounter__campaign=campaign).encounter.name
    if kind == "encounter":
        return Encounter.objects.get(pk=pk, campaign=campaign).name
    assert kind == "user"
    if pk == campaign.gm_id:
        return "the GM"
    assert campaign.memberships.filter(user_id=pk).exists()
    holder = Placeholder.objects.filter(user_id=pk, campaign=campaign).first()
    return holder.name if holder else get_user_model().objects.get(pk=pk).username


@pytest.fixture
def every_id(played, gm, alice, bob, client, django_capture_on_commit_callbacks):
    """`played`'s campaigns with every field of ID_FIELDS holding an id: a T10 social roll
    toward Henrik and one toward Karin (who left the campaign since), a duel against
    Henrik, Albert's opposed test against Dora, a situation that ended, and a template
    naming Albert."""
    from combat.models import NpcTemplate
    from table.services import notice_record

    t10, aoristos = played["t10"], played["aoristos"]
    johan = t10.characters.get(name="Johan")
    henrik = Character.objects.create(owner=bob, campaign=t10, name="Henrik",
                                      rule_system="t10", attributes={"social": -1})
    karin = Character.objects.create(owner=bob, campaign=t10, name="Karin", rule_system="t10")
    client.force_login(alice)
    roll = reverse("table:roll", args=[t10.pk])
    with django_capture_on_commit_callbacks(execute=True):
        for other in (henrik, karin):
            answer = client.post(roll, {"mode": "test", "character": johan.pk,
                                        "stat": "intimidate", "toward": f"character:{other.pk}"},
                                 headers={"HX-Request": "true"})
            assert answer.status_code == 200
        answer = client.post(roll, {
            "mode": "opposed", "character": johan.pk, "stat": "persuade", "goal": 1,
            "opponent": f"character:{henrik.pk}", "opponent_stat": "persuade",
            "opponent_modifier": 0}, headers={"HX-Request": "true"})
        assert answer.status_code == 200
        albert = aoristos.characters.get(name="Albert")
        # An Aoristos opposed test (p. 5): Albert against Dora, someone named beside her.
        dora = Character.objects.create(owner=bob, campaign=aoristos, name="Dora")
        answer = client.post(reverse("table:roll", args=[aoristos.pk]), {
            "mode": "opposed", "character": albert.pk, "properties": "agility",
            "opponent": f"character:{dora.pk}", "opponent_properties": "agility"},
            headers={"HX-Request": "true"})
        assert answer.status_code == 200
        assert b'class="error"' not in answer.content
        notice_record(campaign_id=aoristos.pk, kind="situation", actor="gunnar",
                      character_id=albert.pk, character=albert.name)
    Character.objects.filter(pk=karin.pk).update(campaign=None)  # Karin left
    NpcTemplate.objects.create(campaign=aoristos, name="Alberts dubbelgångare",
                               block={"type": "add_combatant", "name": "Albert",
                                      "character_id": albert.pk})
    return played


def test_every_id_inside_stored_json_names_the_new_row(every_id, gm, make_user, tmp_path):
    files = {system: archive_of(campaign, gm) for system, campaign in every_id.items()}
    before = {}
    for campaign in every_id.values():
        for field, found in stored_ids(campaign).items():
            before.setdefault(field, []).extend(
                (kind, named(kind, pk, campaign)) for kind, pk in found)
    assert set(before) == set(ID_FIELDS)
    for field, found in before.items():
        assert found, f"the fixture stores no {field}"
    old_characters = set(Character.objects.values_list("pk", flat=True))
    ulla = make_user("ulla")
    after = {}
    for system, data in files.items():
        made = imported(data, ulla, tmp_path, f"{system}.zip")
        for field, found in stored_ids(made).items():
            for kind, pk in found:
                if kind == "character":  # a new row: the import's, never the old one
                    assert pk not in old_characters, (field, pk)
                after.setdefault(field, []).append((kind, named(kind, pk, made)))
        from table.models import NoticeEvent
        for notice in NoticeEvent.objects.filter(campaign=made, data__has_key="url"):
            assert notice.data["url"].startswith(f"/campaigns/{made.pk}/"), notice.data
    for field in ID_FIELDS:
        assert sorted(after.get(field, [])) == sorted(before[field]), field
    # The pair's carry reads on the new Henrik's sheet: the social roll names him.
    henrik = Character.objects.exclude(pk__in=old_characters).get(name="Henrik")
    from table.services import impressions
    assert [row["name"] for row in impressions(henrik, is_gm=True)] == ["Johan"]


def test_a_social_roll_toward_a_character_the_archive_lacks_is_refused(every_id, gm, alice,
                                                                        tmp_path):
    from tests.archive.test_fuzz import change_line
    from tests.archive.test_views import rezipped

    someone = Character.objects.create(owner=alice, name="Någon annans", rule_system="t10")
    data = archive_of(every_id["t10"], gm)
    before = (Campaign.objects.count(), Character.objects.count())
    for toward in (f"character:{someone.pk}", "character:x", "character:"):
        planted_toward = rezipped(data, change_line("rolls", lambda r, t=toward: {
            **r, "detail": {**r["detail"], "toward": t}} if (r["detail"] or {}).get("toward")
            else r))
        with pytest.raises(fmt.ArchiveError, match="names a character the archive does not"):
            imported(planted_toward, gm, tmp_path)
    assert (Campaign.objects.count(), Character.objects.count()) == before


# 6. An import stalls no other table: short transactions, a hidden campaign, bounds ------

def counts_of_everything() -> tuple:
    from campaigns.models import JournalEntry
    from combat.models import CombatRecord
    from table.models import NoticeEvent

    return (Campaign.objects.count(), Membership.objects.count(), Character.objects.count(),
            DpEntry.objects.count(), Encounter.objects.count(), CombatRecord.objects.count(),
            RollEvent.objects.count(), NoticeEvent.objects.count(),
            JournalEntry.objects.count(), get_user_model().objects.count())


def test_an_importing_campaign_is_hidden_until_the_import_is_done(
        every_id, gm, alice, make_user, tmp_path):
    """Looked at from the middle of the import (its progress report), as the importer and
    as anyone else: no list shows it, no page, stream, fight or API reaches it, its join
    link and code do not work. Then it is done, and the importer reaches it."""
    from django.test import Client

    data = archive_of(every_id["aoristos"], gm)
    path = tmp_path / "a.zip"
    path.write_bytes(data)
    ulla = make_user("ulla")
    importer_client, other = Client(), Client()
    importer_client.force_login(ulla)
    other.force_login(alice)
    seen = []

    def look(done, total):
        made = Campaign.objects.exclude(pk__in=[c.pk for c in every_id.values()]).first()
        if made is None or seen:
            return
        fights = list(made.encounters.values_list("pk", flat=True))
        if not fights:  # looked at once its fights are written
            return
        for client in (importer_client, other):
            listed = client.get(reverse("campaigns:list")).content.decode()
            assert f"/campaigns/{made.pk}/" not in listed
            for url in (made.get_absolute_url(), reverse("table:page", args=[made.pk]),
                        reverse("log:events", args=[made.pk]),
                        reverse("combat:list", args=[made.pk]),
                        reverse("archive:download", args=[made.pk]),
                        *(reverse("combat:page", args=[pk]) for pk in fights),
                        *(reverse("combat:api_encounter", args=[pk]) for pk in fights)):
                assert client.get(url).status_code == 404, url
            roll = client.post(reverse("table:roll", args=[made.pk]),
                               {"mode": "hand", "hand": "1B", "purpose": "test"})
            assert roll.status_code == 404
            assert client.get(f"/campaigns/join/{made.invite_token}/").status_code == 404
            found = client.post(reverse("campaigns:join_code"), {"code": made.join_code})
            assert found.status_code == 400  # "No campaign has that join code."
        assert not made.memberships.filter(user__is_active=True).exists()
        seen.append(made.pk)

    with fmt.Archive(path) as archive:
        made = Importer(archive, ulla, progress=look).run()
    assert seen == [made.pk], "the import reported no progress while it wrote"
    # Done: the importer's campaign, with a join code and link of its own.
    assert importer_client.get(made.get_absolute_url()).status_code == 200
    assert f"/campaigns/{made.pk}/" in importer_client.get(
        reverse("campaigns:list")).content.decode()
    assert made.join_code == made.join_code.upper()
    assert "." not in made.invite_token
    assert other.get(made.get_absolute_url()).status_code == 404
    # The characters only its history names are out of it now.
    assert not made.characters.filter(name="Karin").exists()


@pytest.mark.django_db(transaction=True)
def test_an_import_writes_in_short_transactions_and_a_refusal_leaves_nothing(
        client, gm, alice, bob, make_user, tmp_path, settings):
    """A refusal at the end of a long archive (a notice after 3,000 rolls names a journal
    post it lacks): the rolls were written, many transactions before; all of it is gone,
    the placeholders' accounts too."""
    from archive import jobs
    from archive.importer import BATCH_ROWS, Writer
    from archive.models import ImportJob
    from tests.archive.test_views import rezipped

    data = planted(client, gm, alice, bob)

    def grown(name, content):
        if name == "rolls.jsonl":
            first = json.loads(content.splitlines()[0])
            content += b"".join(json.dumps({**first, "seq": 10_000 + n}).encode() + b"\n"
                                for n in range(3000))
        if name == "notices.jsonl":
            content += json.dumps({"seq": 20_000, "kind": "journal", "actor": "gunnar",
                                   "data": {"title": "x", "url": "/c/#entry-999999"},
                                   "created_at": None}).encode() + b"\n"
        return content

    bad = rezipped(data, grown)
    transactions = []
    flush = Writer.flush

    def counted(self):
        before = self.transactions
        flush(self)
        transactions.append(self.transactions - before)

    before = counts_of_everything()
    ulla = make_user("ulla")
    before = (*before[:-1], before[-1] + 1)  # ulla
    Writer.flush = counted
    try:
        with pytest.raises(fmt.ArchiveError, match="journal post the archive does not hold"):
            imported(bad, ulla, tmp_path)
    finally:
        Writer.flush = flush
    assert sum(transactions) >= 3000 // BATCH_ROWS, transactions
    assert counts_of_everything() == before
    # Through the page: the job says why, and names no campaign.
    client.force_login(ulla)
    file = io.BytesIO(bad)
    file.name = "bad.zip"
    assert client.post(reverse("archive:import"), {"archive": file}).status_code == 302
    jobs.wait()
    job = ImportJob.objects.latest("pk")
    assert (job.status, job.campaign) == ("failed", None)
    assert "journal post the archive does not hold" in job.error
    assert counts_of_everything() == before


def test_what_a_dead_import_left_is_swept(every_id, gm, make_user, tmp_path, monkeypatch):
    """A process that died half-way (here: its importer stops, and deletes nothing)
    leaves a hidden campaign its job names; once the job has been silent for STALLED
    seconds the sweep deletes it. A finished import's campaign is never swept."""
    import datetime

    from django.utils import timezone

    from archive import jobs
    from archive.importer import Importer as RealImporter
    from archive.models import ImportJob

    ulla = make_user("ulla")
    before = counts_of_everything()
    path = tmp_path / "a.zip"
    path.write_bytes(archive_of(every_id["aoristos"], gm))

    class Died(BaseException):
        pass

    def die(done, total):
        if done > 5:
            raise Died

    job = ImportJob.objects.create(user=ulla, filename="a.zip", size=1,
                                   beat_at=timezone.now())
    monkeypatch.setattr(RealImporter, "abandon", lambda self: None)  # as if killed
    with fmt.Archive(path) as archive, pytest.raises(Died):
        RealImporter(archive, ulla, job=job.pk, progress=die).run()
    job.refresh_from_db()
    assert job.campaign is not None
    left = job.campaign
    assert counts_of_everything() != before
    jobs.sweep()  # not yet silent long enough: it may still be running elsewhere
    assert Campaign.objects.filter(pk=left.pk).exists()
    ImportJob.objects.filter(pk=job.pk).update(
        beat_at=timezone.now() - datetime.timedelta(seconds=jobs.STALLED + 1))
    jobs.sweep()
    assert counts_of_everything() == before
    assert ImportJob.objects.get(pk=job.pk).campaign is None
    # A finished one stays, whatever its job row says.
    monkeypatch.undo()
    done = imported(path.read_bytes(), ulla, tmp_path)
    ImportJob.objects.filter(pk=job.pk).update(campaign=done)
    jobs.sweep()
    assert Campaign.objects.filter(pk=done.pk).exists()


def test_an_archive_over_the_sites_bounds_is_refused_before_it_is_written(
        every_id, gm, make_user, tmp_path, settings, monkeypatch):
    from archive import importer as importer_module
    from tests.archive.test_views import rezipped

    data = archive_of(every_id["aoristos"], gm)
    ulla = make_user("ulla")
    before = counts_of_everything()
    rows = sum(json.loads(unpacked(data)["manifest.json"])["counts"].values())

    def nothing_written(*args, **kwargs):
        raise AssertionError("a row was written")

    # The manifest says how many rows: over IMPORT_MAX_ROWS, nothing is written at all.
    settings.IMPORT_MAX_ROWS = rows - 1
    with monkeypatch.context() as patched:
        patched.setattr(importer_module, "insert", nothing_written)
        with pytest.raises(fmt.ArchiveError) as refused:
            imported(data, ulla, tmp_path)
    assert str(refused.value) == (
        f"the archive holds {rows:,} rows (its manifest's counts): this server imports "
        f"at most {rows - 1:,} (IMPORT_MAX_ROWS)")
    # A manifest that says fewer: the rows are counted as they are read.
    lying = rezipped(data, lambda name, content: json.dumps({
        **json.loads(content), "counts": {}}).encode() if name == "manifest.json" else content)
    settings.IMPORT_MAX_ROWS = 10
    with pytest.raises(fmt.ArchiveError, match="holds more than 10 rows: this server "
                                               "imports at most 10 .IMPORT_MAX_ROWS."):
        imported(lying, ulla, tmp_path)
    assert counts_of_everything() == before
    # Bytes: what the zip says its files unpack to, before anything is read.
    settings.IMPORT_MAX_ROWS = 500_000
    unpacked_size = sum(len(content) for content in unpacked(data).values())
    settings.IMPORT_MAX_BYTES = unpacked_size - 1
    with monkeypatch.context() as patched:
        patched.setattr(importer_module, "insert", nothing_written)
        with pytest.raises(fmt.ArchiveError) as refused:
            imported(data, ulla, tmp_path)
    assert str(refused.value) == (
        f"the archive unpacks to {unpacked_size:,} bytes: this server imports at most "
        f"{unpacked_size - 1:,} (IMPORT_MAX_BYTES)")
    assert counts_of_everything() == before
    settings.IMPORT_MAX_BYTES = unpacked_size
    assert imported(data, ulla, tmp_path).name == every_id["aoristos"].name


def test_a_handout_that_names_what_the_campaign_lacks_is_refused(client, gm, alice, make_user,
                                                                 tmp_path):
    """Issue 47: a handout of an archive goes to a player of the imported campaign or to
    every player; its picture is one the archive holds and a picture; else refused, and
    nothing is left."""
    from tests.archive.test_fuzz import change_line
    from tests.archive.test_roundtrip import PNG
    from tests.archive.test_views import rezipped

    one = kinds.make("aoristos", client, gm, alice)
    campaign = one.encounter.campaign
    client.force_login(gm)
    seat = campaign.memberships.get(user=alice).pk
    upload = io.BytesIO(PNG)
    upload.name = "karta.png"
    assert client.post(reverse("table:handouts", args=[campaign.pk]), {
        "title": "Kartan", "text": "", "to": f"m{seat}", "picture": upload}).status_code == 302
    data = archive_of(campaign, gm)
    picture = next(name for name in unpacked(data) if name.startswith("handouts/"))
    cases = {
        "to someone outside": (change_line("handouts", lambda r: {**r, "to": "mallory"}),
                               "not a player of the campaign"),
        "a picture it lacks": (lambda name, content: None if name == picture else content,
                               "names a picture the archive does not hold"),
        "a picture that is none": (lambda name, content: b"text" if name == picture
                                   else content, f"{picture}: "),  # the site's words
        "neither text nor picture": (change_line("handouts", lambda r: {
            **r, "picture": None}), "a text, a picture or both"),
        "an unknown field": (change_line("handouts", lambda r: {**r, "secret": 1}),
                             "unknown field 'secret'"),
        "no title": (change_line("handouts", lambda r: {**r, "title": ""}), "title"),
    }
    importer = make_user("ulla")
    before = (Campaign.objects.count(), Character.objects.count())
    for label, (change, says) in cases.items():
        with pytest.raises(fmt.ArchiveError) as refused:
            imported(rezipped(data, change), importer, tmp_path)
        assert says in str(refused.value), (label, str(refused.value))
    assert (Campaign.objects.count(), Character.objects.count()) == before
    made = imported(data, importer, tmp_path)
    handout = made.handouts.get()
    assert bytes(handout.picture) == PNG
    assert handout.recipient.user.username.startswith("alice.")  # her placeholder
