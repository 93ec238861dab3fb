"""A campaign archive made into a new campaign on this server (issue 30, docs/archive.md).

- **All or nothing.** The whole import is one transaction: a refused archive, an error,
  or a server killed half-way leaves no trace but the job's row.
- **New ids, the same campaign.** Every row gets a new id; what names another row by its
  old id (a roll's character, a record's `character_id`, a chronicle's body "ch7", a
  wound's origin "e3v12.1", a map picture's key, a journal post's link, a membership
  event) is rewritten to the new one. A name the archive does not hold refuses the
  archive: nothing may point at a row of another campaign.
- **The importer is the GM.** Members are matched by username to accounts here (when
  the importer asks for it), else left as placeholders (`archive.models.Placeholder`:
  an inactive user that cannot log in) that the GM hands to an account later.
- **Every row is checked** by its model's own field validation before it is written,
  and every fight is folded by its rule system's engine afterwards: a log the engine
  cannot replay refuses the archive.
- **As stored.** Rows are written as they were (their times included, with Django's
  raw insert that loaddata uses), so the table's history, every sheet and every fight
  read exactly as on the server that exported them.
"""

import re
import time
from collections.abc import Callable

from django.contrib.auth import get_user_model
from django.contrib.auth.validators import UnicodeUsernameValidator
from django.core.exceptions import ValidationError
from django.db import DatabaseError, IntegrityError, transaction
from django.db.models import DateTimeField
from django.urls import reverse
from django.utils import timezone

from archive import format as fmt
from archive.models import Placeholder
from campaigns.models import AVAILABLE_SYSTEMS, BringRequest, Campaign, JournalEntry, Membership
from characters.models import Character, DpEntry, Item
from combat.models import CatalogueItem, CombatRecord, Encounter, MapPicture, NpcTemplate
from rules import RulesError
from table.models import FavouriteTest, MembershipEvent, NoticeEvent, RollEvent

ArchiveError = fmt.ArchiveError
BODY_ID = re.compile(r"ch([1-9][0-9]{0,17})")
ORIGIN = re.compile(r"e([1-9][0-9]{0,17})(v[0-9]+\.[0-9]+)")
JOURNAL_LINK = re.compile(r".*#entry-([1-9][0-9]{0,17})")
PROGRESS_EVERY = 200  # rows between progress reports
SYSTEMS = [system.value for system in AVAILABLE_SYSTEMS]


def stamped(field) -> bool:
    """A time Django sets itself on save (`auto_now`, `auto_now_add`): an archive may
    leave it out, and then it is now."""
    return isinstance(field, DateTimeField) and (field.auto_now or field.auto_now_add)


def insert(objs: list) -> None:
    """Write model instances as they are, in one statement per batch, and give them
    their new ids. Django's raw insert (what loaddata's save_base(raw=True) does) keeps
    `auto_now_add` times as the archive gives them."""
    if not objs:
        return
    model = type(objs[0])
    meta = model._meta
    fields = [f for f in meta.concrete_fields if not f.primary_key]
    for field in fields:  # a time the archive left out is now
        if stamped(field):
            for obj in objs:
                if getattr(obj, field.attname) is None:
                    setattr(obj, field.attname, timezone.now())
    for start in range(0, len(objs), 500):
        batch = objs[start:start + 500]
        returned = model._base_manager._insert(
            batch, fields=fields, returning_fields=meta.db_returning_fields, raw=True
        )
        for obj, row in zip(batch, returned, strict=True):
            obj.pk = row[0]
            obj._state.adding = False


def checked(model, where: str, data: dict, allowed: tuple[str, ...], **fixed):
    """An instance of `model` from an archive row: only `allowed` fields (anything else
    refuses the row), each cleaned by the model field's own validation."""
    extra = set(data) - set(allowed)
    if extra:
        raise ArchiveError(f"{where}: unknown field {sorted(extra)[0][:40]!r}")
    names = {f.name for f in model._meta.fields if not f.is_relation and not f.primary_key}
    # Keys that are no plain field (a row's old id, what it names) are the caller's.
    obj = model(**{key: data[key] for key in allowed
                   if key in data and key in names and key not in fixed}, **fixed)
    # Each field's own validation, as Model.clean_fields runs it; but an empty value the
    # database holds ({} of house rules, "" of a note) is no error here.
    for field in model._meta.fields:
        if field.is_relation or field.primary_key or field.name in fixed:
            continue
        raw = getattr(obj, field.attname)
        if raw is None:
            if not field.null and not stamped(field):
                raise ArchiveError(f"{where}: {field.name} is missing")
            continue
        try:
            empty = raw in field.empty_values
            value = field.to_python(raw) if empty else field.clean(raw, obj)
        except ValidationError as error:
            raise ArchiveError(f"{where}: {field.name}: "
                               f"{' '.join(map(str, error.messages))[:200]}") from None
        except (TypeError, ValueError, OverflowError):
            raise ArchiveError(f"{where}: {field.name} is not a value it can hold") from None
        setattr(obj, field.attname, value)
    return obj


def one_of(value, choices, where: str, what: str):
    if value not in choices:
        raise ArchiveError(f"{where}: {what} {str(value)[:40]!r} is none of "
                           f"{', '.join(map(str, choices))}")
    return value


def plain_int(value, where: str, what: str, low: int = 0, high: int = 2**62) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise ArchiveError(f"{where}: {what} is not a whole number from {low} to {high}")
    return value


class Importer:
    def __init__(self, archive: fmt.Archive, user, *, match_usernames: bool = True,
                 progress: Callable[[int, int], None] | None = None):
        self.archive = archive
        self.user = user
        self.match = match_usernames
        self.report = progress or (lambda done, total: None)
        self.done = 0
        self.reported = time.monotonic()
        counts = archive.manifest.get("counts")
        self.total = (sum(v for v in counts.values() if isinstance(v, int) and v > 0)
                      if isinstance(counts, dict) else 0)
        self.users: dict[str, object] = {}
        self.placeholders: list[Placeholder] = []
        self.memberships: dict[int, int] = {}
        self.characters: dict[int, int] = {}
        self.encounters: dict[int, Encounter] = {}
        self.pictures: dict[int, int] = {}
        self.journal: dict[int, int] = {}
        self.seqs: set[int] = set()

    def step(self, rows: int = 1) -> None:
        before = self.done // PROGRESS_EVERY
        self.done += rows
        if self.done // PROGRESS_EVERY != before or time.monotonic() - self.reported > 1:
            self.beat()

    def beat(self) -> None:
        """Report how far the import is (at least every second while it works: the job's
        page takes a silence of `archive.jobs.STALLED` seconds for a dead process)."""
        self.reported = time.monotonic()
        self.report(self.done, max(self.total, self.done))

    def run(self) -> Campaign:
        """Import the archive; ArchiveError (and nothing stored) when it is refused."""
        manifest, campaign = fmt.upgrade(self.archive.manifest, self.archive.json(fmt.CAMPAIGN))
        if manifest.get("audience") != "gm":
            raise ArchiveError(
                "this is a player's archive: it holds what one player sees, not the "
                "campaign's whole log, so it cannot be made into a campaign. Ask the GM "
                "for the campaign's archive.")
        if not isinstance(campaign, dict):
            raise ArchiveError("campaign.json: the campaign is a JSON object")
        try:
            with transaction.atomic():
                made = self.campaign(campaign)
                self.rows(made)
                self.replay(made)
        except (IntegrityError, DatabaseError) as error:
            raise ArchiveError(f"the archive's rows do not fit together: {str(error)[:200]}"
                               ) from None
        self.report(self.done, max(self.total, self.done))
        return made

    # Users and the campaign -----------------------------------------------------------------

    def user_for(self, name, where: str, *, gm_name: str):
        """The account a username of the archive stands for: the importer for the
        archive's GM, else one here with that name (when matching), else a placeholder."""
        if name is None:
            return None
        if isinstance(name, str) and name in self.users:  # checked when first seen
            return self.users[name]
        if not isinstance(name, str) or not name or len(name) > 150:
            raise ArchiveError(f"{where}: a username is text of 1 to 150 characters")
        try:
            UnicodeUsernameValidator()(name)
        except ValidationError:
            raise ArchiveError(f"{where}: {name[:40]!r} is not a username") from None
        if name == gm_name:
            self.users[name] = self.user
            return self.user
        User = get_user_model()
        found = None
        if self.match and name != self.user.username:
            found = User.objects.filter(username=name, is_active=True).first()
        if found is None:
            found = self.placeholder_user(name)
        self.users[name] = found
        return found

    def placeholder_user(self, name: str):
        User = get_user_model()
        username, n = name, 1
        while User.objects.filter(username=username).exists():
            n += 1
            suffix = f"-{n}"
            username = name[: 150 - len(suffix)] + suffix
        user = User(username=username, is_active=False)
        user.set_unusable_password()
        user.save()
        self.placeholders.append(Placeholder(campaign=None, user=user, name=name))
        return user

    def campaign(self, row: dict) -> Campaign:
        where = "campaign.json"
        members = row.get("members")
        gm_name = row.get("gm")
        if not isinstance(gm_name, str):
            raise ArchiveError(f"{where}: the GM's username is missing")
        if not isinstance(members, list):
            raise ArchiveError(f"{where}: members is a list")
        self.gm_name = gm_name
        one_of(row.get("rule_system"), SYSTEMS, where, "the rule system")
        campaign = checked(Campaign, where, row, (
            "name", "rule_system", "starting_dp", "level_cap", "house_rules", "gm_notes",
            "event_seq", "created_at", "gm", "members"), gm=self.user)
        try:
            campaign.house()  # the rule system reads every house rule
        except (RulesError, ValueError, TypeError, AttributeError) as error:
            raise ArchiveError(f"{where}: house rules: {str(error)[:200]}") from None
        self.event_seq = campaign.event_seq
        insert([campaign])
        seen_users = set()
        made = []
        for index, member in enumerate(members):
            at = f"{where} member {index + 1}"
            if not isinstance(member, dict):
                raise ArchiveError(f"{at}: a member is a JSON object")
            user = self.user_for(member.get("user"), at, gm_name=gm_name)
            if user is None or user.pk in seen_users:
                raise ArchiveError(f"{at}: a member's username is missing or given twice")
            seen_users.add(user.pk)
            role = Membership.Role.GM if user == self.user else Membership.Role.PLAYER
            membership = checked(Membership, at, member, ("id", "user", "role", "seat",
                                                          "joined_at"),
                                 campaign=campaign, user=user, role=role)
            made.append((member.get("id"), membership))
        if self.user.pk not in seen_users:  # an archive without its GM's membership
            made.append((None, Membership(campaign=campaign, user=self.user,
                                          role=Membership.Role.GM, seat=0)))
        insert([m for _old, m in made])
        for old, membership in made:
            if isinstance(old, int):
                self.memberships[old] = membership.pk
        return campaign

    def user_of(self, row: dict, key: str, where: str):
        return self.user_for(row.get(key), where, gm_name=self.gm_name)

    # Rows ------------------------------------------------------------------------------------

    def rows(self, campaign: Campaign) -> None:
        self.characters_of(campaign)
        for where, row in self.archive.lines("catalogue"):
            insert([checked(CatalogueItem, where, row, ("kind", "key", "data"),
                            campaign=campaign)])
            self.step()
        for where, row in self.archive.lines("npc_templates"):
            insert([checked(NpcTemplate, where, row, ("name", "block", "created_at"),
                            campaign=campaign)])
            self.step()
        for where, row in self.archive.lines("journal"):
            old = plain_int(row.get("id"), where, "id", 1)
            author = self.user_of(row, "author", where)
            entry = checked(JournalEntry, where, row, (
                "id", "author", "title", "body", "pinned", "created_at", "updated_at"),
                campaign=campaign, author=author)
            insert([entry])
            self.journal[old] = entry.pk
            self.step()
        for where, row in self.archive.lines("bring_requests"):
            character = self.character(row.get("character"), where)
            request = checked(BringRequest, where, row, (
                "character", "status", "note", "decided_by", "created_at", "decided_at"),
                campaign=campaign, character_id=character,
                decided_by=self.user_of(row, "decided_by", where))
            insert([request])
            self.step()
        self.encounters_of(campaign)
        self.records_of(campaign)
        self.events_of(campaign)
        for placeholder in self.placeholders:
            placeholder.campaign = campaign
        insert(self.placeholders)
        Campaign.objects.filter(pk=campaign.pk).update(
            event_seq=max([self.event_seq, *self.seqs]))

    def character(self, old, where: str) -> int:
        if old is None:
            raise ArchiveError(f"{where}: a character is missing")
        if not isinstance(old, int) or old not in self.characters:
            raise ArchiveError(f"{where}: names a character the archive does not hold "
                               f"({str(old)[:20]})")
        return self.characters[old]

    def characters_of(self, campaign: Campaign) -> None:
        fields = ("id", "owner", "in_campaign", "name", "concept", "notes", "gm_notes",
                  "rule_system", "dp_budget", "level_cap", "attributes", "skills", "rolled",
                  "created_at", "updated_at", "items", "ledger", "favourites")
        for where, row in self.archive.lines("characters"):
            old = plain_int(row.get("id"), where, "id", 1)
            if old in self.characters:
                raise ArchiveError(f"{where}: character {old} is in the archive twice")
            owner = self.user_of(row, "owner", where)
            if owner is None:
                raise ArchiveError(f"{where}: a character has an owner")
            in_campaign = row.get("in_campaign") is True
            character = checked(Character, where, row, fields, owner=owner,
                                campaign=campaign if in_campaign else None)
            one_of(character.rule_system, SYSTEMS, where, "the rule system")
            if in_campaign and character.rule_system != campaign.rule_system:
                raise ArchiveError(f"{where}: a {character.rule_system} character cannot "
                                   f"play in a {campaign.rule_system} campaign")
            insert([character])
            self.characters[old] = character.pk
            character_parts(character, row, where, self.user_of)
            self.step()

    def encounters_of(self, campaign: Campaign) -> None:
        for where, row in self.archive.lines("encounters"):
            old = plain_int(row.get("id"), where, "id", 1)
            if old in self.encounters:
                raise ArchiveError(f"{where}: encounter {old} is in the archive twice")
            if row.get("system") != campaign.rule_system:
                raise ArchiveError(f"{where}: a fight of another rule system than the "
                                   f"campaign's")
            one_of(row.get("kind"), Encounter.Kind.values, where, "the kind")
            controllers = row.get("controllers") or {}
            if not isinstance(controllers, dict):
                raise ArchiveError(f"{where}: controllers is an object")
            encounter = checked(Encounter, where, row, (
                "id", "name", "system", "kind", "house_rules", "version", "ended",
                "controllers", "created_at", "pictures"), campaign=campaign, controllers={
                                    str(cid)[:30]: self.user_for(name, where,
                                                                 gm_name=self.gm_name).pk
                                    for cid, name in controllers.items()})
            # Written at its final version, as the campaign at its final event number: the
            # records' trigger then leaves both rows alone (combat migration 0006).
            encounter.logged = 0  # the highest version of its records, counted below
            insert([encounter])
            self.encounters[old] = encounter
            self.pictures_of(encounter, row.get("pictures") or [], where)
            self.step()

    def pictures_of(self, encounter: Encounter, pictures, where: str) -> None:
        from combat.forms import picture_facts

        if not isinstance(pictures, list):
            raise ArchiveError(f"{where}: pictures is a list")
        for n, picture in enumerate(pictures):
            at = f"{where} picture {n + 1}"
            picture = _object(picture, at)
            old = plain_int(picture.get("id"), at, "id", 1)
            name = picture.get("file")
            if not isinstance(name, str) or not fmt.PICTURE_NAME.fullmatch(name) \
                    or not self.archive.has(name):
                raise ArchiveError(f"{at}: names a picture the archive does not hold")
            try:
                facts = picture_facts(self.archive.picture(name))
            except ValidationError as error:
                raise ArchiveError(f"{name}: {' '.join(error.messages)}") from None
            made = MapPicture(encounter=encounter, created_at=moment(
                picture.get("created_at"), at), **facts)
            insert([made])
            self.pictures[old] = made.pk
            self.step()

    def records_of(self, campaign: Campaign) -> None:
        fields = ("id", "encounter", "seq", "version", "actor", "actor_name", "command",
                  "events", "undo_to", "redo", "lines", "public_lines", "created_at")
        batch: list[CombatRecord] = []
        for where, row in self.archive.lines("records"):
            old = row.get("encounter")
            if not isinstance(old, int) or old not in self.encounters:
                raise ArchiveError(f"{where}: names a fight the archive does not hold")
            encounter = self.encounters[old]
            chronicle = encounter.kind == Encounter.Kind.CHRONICLE
            record = checked(CombatRecord, where, row, fields, campaign=campaign,
                             encounter=encounter, actor=self.user_of(row, "actor", where))
            record.events = self.remap(record.events, where, chronicle=chronicle)
            record.lines = self.remap(record.lines, where, chronicle=chronicle)
            record.public_lines = self.remap(record.public_lines, where, chronicle=chronicle)
            self.numbered(record.seq, where)
            encounter.logged = max(encounter.logged, record.version)
            batch.append(record)
            if len(batch) >= 200:
                insert(batch)
                batch = []
            self.step()
        insert(batch)

    def numbered(self, seq: int, where: str) -> None:
        if seq in self.seqs:
            raise ArchiveError(f"{where}: event number {seq} is used twice")
        self.seqs.add(seq)

    def remap(self, value, where: str, *, chronicle: bool):
        """`value` (a record's events or lines) with every id of the old server replaced
        by the new one; ArchiveError for an id the archive does not hold."""
        if isinstance(value, list):
            return [self.remap(item, where, chronicle=chronicle) for item in value]
        if isinstance(value, dict):
            out = {}
            for key, item in value.items():
                if key == "character_id" and item is not None:
                    out[key] = self.character(item, where)
                elif key == "key" and value.get("_") == "Picture" \
                        and isinstance(item, str) and item:
                    if not item.isascii() or not item.isdigit() \
                            or int(item) not in self.pictures:
                        raise ArchiveError(f"{where}: names a picture the archive does not "
                                           f"hold")
                    out[key] = str(self.pictures[int(item)])
                elif key == "origin" and isinstance(item, str) and item:
                    out[key] = self.origin(item, where)
                else:
                    out[key] = self.remap(item, where, chronicle=chronicle)
            return out
        if chronicle and isinstance(value, str) and (body := BODY_ID.fullmatch(value)):
            old = int(body[1])
            if old in self.characters:
                return f"ch{self.characters[old]}"
        return value

    def origin(self, text: str, where: str) -> str:
        found = ORIGIN.fullmatch(text)
        if found is None:
            return text
        old = int(found[1])
        if old not in self.encounters:
            raise ArchiveError(f"{where}: a wound comes from a fight the archive does not "
                               f"hold")
        return f"e{self.encounters[old].pk}{found[2]}"

    def events_of(self, campaign: Campaign) -> None:
        batch: list = []

        def flush():
            insert(batch)
            batch.clear()

        for where, row in self.archive.lines("rolls"):
            ref = row.get("character")
            roll = checked(RollEvent, where, row, (
                "seq", "actor", "character", "kind", "label", "hand", "dice", "counted",
                "result", "test_base", "threshold", "secret", "detail", "created_at"),
                campaign=campaign, actor=self.user_of(row, "actor", where),
                character_id=None if ref is None else self.character(ref, where))
            one_of(roll.kind, RollEvent.Kind.values, where, "the kind")
            roll.detail = self.remap(roll.detail, where, chronicle=False)
            self.numbered(roll.seq, where)
            batch.append(roll)
            if len(batch) >= 500:
                flush()
            self.step()
        flush()
        for where, row in self.archive.lines("membership_events"):
            old = row.get("membership")
            event = checked(MembershipEvent, where, row, (
                "seq", "kind", "membership", "username", "created_at"), campaign=campaign,
                # A removed member's old membership is no row of the archive: 0 is none.
                membership_id=self.memberships.get(old, 0) if isinstance(old, int) else 0)
            one_of(event.kind, MembershipEvent.Kind.values, where, "the kind")
            self.numbered(event.seq, where)
            batch.append(event)
            self.step()
        flush()
        for where, row in self.archive.lines("notices"):
            event = checked(NoticeEvent, where, row, ("seq", "kind", "actor", "data",
                                                      "created_at"), campaign=campaign)
            one_of(event.kind, NoticeEvent.Kind.values, where, "the kind")
            event.data = self.notice_data(campaign, event.data, where)
            self.numbered(event.seq, where)
            batch.append(event)
            if len(batch) >= 500:
                flush()
            self.step()
        flush()

    def notice_data(self, campaign: Campaign, data, where: str) -> dict:
        if not isinstance(data, dict):
            raise ArchiveError(f"{where}: data is an object")
        data = self.remap(data, where, chronicle=False)
        url = data.get("url")
        if isinstance(url, str):
            found = JOURNAL_LINK.fullmatch(url)
            base = reverse("campaigns:journal", args=[campaign.pk])
            entry = int(found[1]) if found else None
            if entry is not None and entry not in self.journal:
                raise ArchiveError(f"{where}: links a journal post the archive does not hold")
            data["url"] = f"{base}#entry-{self.journal[entry]}" if entry else base
        return data

    def replay(self, campaign: Campaign) -> None:
        """Every fight folds under its engine and its version is its log's."""
        from combat import services

        for old, encounter in self.encounters.items():
            self.beat()
            if encounter.version != encounter.logged:
                raise ArchiveError(
                    f"encounters.jsonl: the fight {encounter.name[:60]!r} (id {old}) is at "
                    f"version {encounter.version}, its log holds {encounter.logged}")
            try:
                services.folded(encounter)
            except (RulesError, KeyError, TypeError, ValueError, AttributeError,
                    IndexError) as error:
                for made in self.encounters.values():  # the fold remembers what rolls back
                    services.forget(made.pk)
                raise ArchiveError(f"the fight {encounter.name[:60]!r} cannot be replayed: "
                                   f"{str(error)[:200]}") from None


def character_parts(character: Character, row: dict, where: str, user_of) -> None:
    """A character's items, UP ledger and favourite tests (its own archive's too);
    `user_of(row, key, where)` is the account a username of the row stands for."""
    parts = {key: row.get(key) or [] for key in ("items", "ledger", "favourites")}
    for key, value in parts.items():
        if not isinstance(value, list):
            raise ArchiveError(f"{where}: {key} is a list")
    insert([checked(Item, f"{where} item {n + 1}", _object(item, where),
                    ("name", "bulk", "quantity", "catalogue"), character=character)
            for n, item in enumerate(parts["items"])])
    entries: dict[int, int] = {}
    for n, entry in enumerate(parts["ledger"]):
        at = f"{where} ledger entry {n + 1}"
        entry = _object(entry, at)
        old = plain_int(entry.get("id"), at, "id", 1)
        undoes = entry.get("undoes")
        if undoes is not None and undoes not in entries:
            raise ArchiveError(f"{at}: undoes an entry this character's ledger does "
                               f"not hold before it")
        made = checked(DpEntry, at, entry, (
            "id", "kind", "amount", "key", "level_before", "level_after", "reason",
            "dp_before", "dp_after", "undoes", "created_by", "created_at"),
            character=character, undoes_id=entries.get(undoes),
            created_by=user_of(entry, "created_by", at))
        insert([made])
        entries[old] = made.pk
    insert([checked(FavouriteTest, f"{where} favourite {n + 1}", _object(f, where), (
        "name", "properties", "free", "forced", "threshold", "created_at"),
        character=character) for n, f in enumerate(parts["favourites"])])


def _object(value, where: str) -> dict:
    if not isinstance(value, dict):
        raise ArchiveError(f"{where}: a row is a JSON object")
    return value


def moment(value, where: str):
    """A time of the archive (ISO 8601), or None."""
    if value is None:
        return None
    try:
        found = DateTimeField().to_python(value)
    except (ValidationError, TypeError, ValueError):
        found = None
    if found is None:
        raise ArchiveError(f"{where}: {str(value)[:40]!r} is not a time")
    return found
