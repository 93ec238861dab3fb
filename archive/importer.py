"""A campaign archive made into a new campaign on this server (issue 30, docs/archive.md).

- **All or nothing, without stalling the other tables.** Rows are written in batches,
  each its own short transaction (`Writer`: at most `BATCH_ROWS` rows, about
  `BATCH_SECONDS`), so SQLite's write lock goes to the other campaigns' rolls between
  them (issue 42: one transaction held it for the whole import, and rolls at every other
  table waited behind it). Until the last transaction (`show`) the
  campaign is hidden: nobody who can log in is a member (the GM's membership is written
  last; the others are inactive placeholders) and its join code and invitation link are
  unusable ones, so no page, list, stream or code reaches it. A refused archive or an
  error deletes what was written, in batches too (`discard`); a campaign a dead process
  left hidden is deleted by `archive.jobs.sweep`.
- **Within bounds.** At most `IMPORT_MAX_ROWS` rows (the manifest's counts are checked
  before anything is written, then the rows as they are read) and `IMPORT_MAX_BYTES`
  unpacked (`archive.format.Archive`).
- **New ids, the same campaign.** Every row gets a new id; what names another row by its
  old id (a roll's character, a record's `character_id`, a chronicle's body "ch7", a
  wound's origin "e3v12.1", a map picture's key, a journal post's link, a T10 social
  roll's "character:7", a membership event; docs/archive.md lists every stored field) is
  rewritten to the new one. A name the archive does not hold refuses the
  archive: nothing may point at a row of another campaign.
- **The importer is the GM, and nobody else is attached.** Every other username of the
  archive becomes a placeholder (`archive.models.Placeholder`: an inactive user that
  cannot log in), whether or not an account of that name exists here: an archive is
  anybody's upload, and a name in it is no consent of the account that has it (issue 42).
  The GM hands a placeholder to a member who has joined with their own account.
- **Every row is checked** by its model's own field validation before it is written,
  and every fight is folded by its rule system's engine afterwards: a log the engine
  cannot replay refuses the archive.
- **As stored.** Rows are written as they were (their times included, with Django's
  raw insert that loaddata uses), so the table's history, every sheet and every fight
  read exactly as on the server that exported them.
"""

import logging
import re
import secrets
import time
from collections.abc import Callable

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.validators import UnicodeUsernameValidator
from django.core.exceptions import ValidationError
from django.db import DatabaseError, IntegrityError, transaction
from django.db.models import DateTimeField
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext

from archive import format as fmt
from archive.models import ImportJob, Placeholder
from campaigns.models import (
    AVAILABLE_SYSTEMS,
    BringRequest,
    Campaign,
    JournalEntry,
    Membership,
    new_invite_token,
    new_join_code,
)
from characters.models import Character, DpEntry, Item
from combat.models import CatalogueItem, CombatRecord, Encounter, MapPicture, NpcTemplate
from rules import RulesError
from table.models import FavouriteTest, MembershipEvent, NoticeEvent, RollEvent

log = logging.getLogger(__name__)
ArchiveError = fmt.ArchiveError
BODY_ID = re.compile(r"ch([1-9][0-9]{0,17})")
ORIGIN = re.compile(r"e([1-9][0-9]{0,17})(v[0-9]+\.[0-9]+)")
JOURNAL_LINK = re.compile(r".*#entry-([1-9][0-9]{0,17})")
PROGRESS_SECONDS = 0.5  # between progress reports (the job's page polls every 500 ms)
# One write transaction of an import: at most this many rows, and it ends once it has run
# this long (a statement of STATEMENT_ROWS rows at a time). A roll at another table waits
# for at most about one (core.db.sqlite3 queues the writers in turn).
BATCH_ROWS = 500
BATCH_SECONDS = 0.05
STATEMENT_ROWS = 100
PENDING_BYTES = 32 * 1024 * 1024  # read but not yet written: a batch of big rows is less
DEFAULT_MAX_ROWS = 500_000  # settings.IMPORT_MAX_ROWS (docs/archive.md says why)
PLACEHOLDER_NAME = 150 - 13  # of a placeholder's username: the rest is "." and 12 hex digits
SYSTEMS = [system.value for system in AVAILABLE_SYSTEMS]


def stamped(field) -> bool:
    """A time Django sets itself on save (`auto_now`, `auto_now_add`): an archive may
    leave it out, and then it is now."""
    return isinstance(field, DateTimeField) and (field.auto_now or field.auto_now_add)


def insert(objs: list, size: int = 500) -> None:
    """Write model instances as they are, `size` rows a statement, and give them their
    new ids. Django's raw insert (what loaddata's save_base(raw=True) does) keeps
    `auto_now_add` times as the archive gives them. A row may name another of `objs`
    (an undo its spend) or one written before: its id is taken from that instance when
    its statement is made, so a row waits for the statement after the one it names."""
    if not objs:
        return
    model = type(objs[0])
    meta = model._meta
    fields = [f for f in meta.concrete_fields if not f.primary_key]
    relations = [f for f in fields if f.is_relation]
    for field in fields:  # a time the archive left out is now
        if stamped(field):
            for obj in objs:
                if getattr(obj, field.attname) is None:
                    setattr(obj, field.attname, timezone.now())
    start = 0
    while start < len(objs):
        end = start
        while end < len(objs) and end - start < size and (
                end == start or not names_unsaved(objs[end], relations)):
            end += 1
        batch = objs[start:end]
        for obj in batch:
            obj._prepare_related_fields_for_save(operation_name="import")
        returned = model._base_manager._insert(
            batch, fields=fields, returning_fields=meta.db_returning_fields, raw=True
        )
        for obj, row in zip(batch, returned, strict=True):
            obj.pk = row[0]
            obj._state.adding = False
        start = end


def names_unsaved(obj, relations) -> bool:
    """Whether `obj` names an instance that has no id yet (one of its own batch)."""
    for field in relations:
        if field.is_cached(obj):
            related = field.get_cached_value(obj)
            if related is not None and related.pk is None:
                return True
    return False


class Writer:
    """The rows of an import, written a batch at a time, each batch in transactions of
    at most `BATCH_ROWS` rows and about `BATCH_SECONDS` (issue 42): between them, other
    campaigns write. A row added may name one added before it (a character's ledger its
    character); its id is known once `flush` has written it, and `done(objs)` is called
    then."""

    def __init__(self):
        self.pending: list[tuple[list, Callable | None]] = []
        self.rows = 0
        self.transactions = 0

    def add(self, objs: list, done: Callable[[list], None] | None = None) -> None:
        if objs:
            self.pending.append((objs, done))
            self.rows += len(objs)
        if self.rows >= BATCH_ROWS:
            self.flush()

    def flush(self) -> None:
        pending, self.pending, self.rows = self.pending, [], 0
        runs: list[list] = []  # consecutive rows of one model: one statement for many
        for objs, _done in pending:
            if runs and type(runs[-1][0]) is type(objs[0]):
                runs[-1].extend(objs)
            else:
                runs.append(list(objs))
        parts = [run[at:at + STATEMENT_ROWS] for run in runs
                 for at in range(0, len(run), STATEMENT_ROWS)]
        at = 0
        while at < len(parts):
            with transaction.atomic():
                began = time.monotonic()
                while at < len(parts):
                    insert(parts[at], STATEMENT_ROWS)
                    at += 1
                    if time.monotonic() - began >= BATCH_SECONDS:
                        break
            self.transactions += 1
        for objs, done in pending:
            if done is not None:
                done(objs)


def in_batches(queryset, size: int = BATCH_ROWS, *, change=None) -> None:
    """Delete (or `change(queryset of pks)`) the rows of `queryset`, `size` at a time,
    each batch its own transaction."""
    model = queryset.model
    while True:
        pks = list(queryset.order_by().values_list("pk", flat=True)[:size])
        if not pks:
            return
        with transaction.atomic():
            batch = model._base_manager.filter(pk__in=pks)
            if change is None:
                batch.delete()
            else:
                change(batch)


def discard(campaign_id: int) -> None:
    """Delete what an import wrote of campaign `campaign_id` (it is still hidden: no
    membership of its GM), a batch per short transaction as it was written, the rows
    that name others first: its events and fights, its journal and requests, its
    characters with their ledgers (an undo protects its spend: undone first), its
    placeholders' users, then the campaign."""
    from combat.models import Simulation

    characters = Character.objects.filter(campaign_id=campaign_id)
    in_batches(DpEntry.objects.filter(character__campaign_id=campaign_id,
                                      undoes__isnull=False),
               change=lambda batch: batch.update(undoes=None))
    for queryset, size in (
            (RollEvent.objects.filter(campaign_id=campaign_id), BATCH_ROWS),
            (MembershipEvent.objects.filter(campaign_id=campaign_id), BATCH_ROWS),
            (NoticeEvent.objects.filter(campaign_id=campaign_id), BATCH_ROWS),
            (CombatRecord.objects.filter(campaign_id=campaign_id), BATCH_ROWS),
            (Simulation.objects.filter(encounter__campaign_id=campaign_id), BATCH_ROWS),
            (MapPicture.objects.filter(encounter__campaign_id=campaign_id), 10),  # 5 MB
            (Encounter.objects.filter(campaign_id=campaign_id), 50),
            (JournalEntry.objects.filter(campaign_id=campaign_id), BATCH_ROWS),
            (BringRequest.objects.filter(campaign_id=campaign_id), BATCH_ROWS),
            (CatalogueItem.objects.filter(campaign_id=campaign_id), BATCH_ROWS),
            (NpcTemplate.objects.filter(campaign_id=campaign_id), BATCH_ROWS),
            (DpEntry.objects.filter(character__campaign_id=campaign_id), BATCH_ROWS),
            (Item.objects.filter(character__campaign_id=campaign_id), BATCH_ROWS),
            (FavouriteTest.objects.filter(character__campaign_id=campaign_id), BATCH_ROWS),
            (characters, 50)):
        in_batches(queryset, size)
    users = Placeholder.objects.filter(campaign_id=campaign_id).values_list("user_id",
                                                                            flat=True)
    in_batches(get_user_model().objects.filter(pk__in=list(users)), 50)
    with transaction.atomic():
        Campaign.objects.filter(pk=campaign_id).delete()


def imported_name(name: str, gm) -> str:
    """The imported campaign's name: its own, and where the GM runs a campaign of that
    name already (the one it was exported from, most often), the day it came in, so the
    two are told apart (issue 43): "Skuggorna (importerad 2026-12-02)"."""
    if not Campaign.objects.filter(gm=gm, name=name).exists():
        return name
    suffix = " (" + gettext("imported %(day)s") % {"day": timezone.localdate().isoformat()} + ")"
    limit = Campaign._meta.get_field("name").max_length - len(suffix)
    return name[:limit] + suffix


def hidden_join_code() -> str:
    """A join code nobody can type while the campaign is imported: the join page reads a
    code in capitals (campaigns.forms.JoinCodeForm), and this one has a small letter."""
    while True:
        code = "x" + secrets.token_hex(3)[:5]
        if not Campaign.objects.filter(join_code=code).exists():
            return code


def max_rows() -> int:
    return getattr(settings, "IMPORT_MAX_ROWS", DEFAULT_MAX_ROWS)


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
    """One archive made into a campaign. `job`: the ImportJob whose row shows the
    progress, names the hidden campaign while it is written (so `archive.jobs.sweep`
    finds it if this process dies) and says how it ended; `progress(done, total)` is told
    too (the command line's counter)."""

    def __init__(self, archive: fmt.Archive, user, *, job: int | None = None,
                 progress: Callable[[int, int], None] | None = None):
        self.archive = archive
        self.user = user
        self.job = job
        self.report = progress or (lambda done, total: None)
        self.done = 0
        self.reported = time.monotonic()
        self.most = max_rows()
        counts = archive.manifest.get("counts")
        self.total = (sum(v for v in counts.values() if isinstance(v, int) and v > 0)
                      if isinstance(counts, dict) else 0)
        self.writer = Writer()
        self.flushed_at = 0  # archive.read_bytes when the writer last wrote
        self.made: Campaign | None = None  # the campaign row, once written
        self.discarded = False  # what was written of a refused archive is deleted
        self.users: dict[str, object] = {}
        self.placeholders: list[Placeholder] = []
        self.memberships: dict[int, int] = {}
        self.gm_seat: Membership | None = None  # written last: then the campaign shows
        self.gm_events: list[MembershipEvent] = []  # events about the GM's membership
        self.characters: dict = {}  # old id: the new row (its id once written)
        self.outside: list[Character] = []  # not the campaign's once it shows
        self.encounters: dict[int, Encounter] = {}
        self.pictures: dict[int, int] = {}
        self.journal: dict[int, int] = {}
        self.seqs: set[int] = set()

    def step(self, rows: int = 1) -> None:
        self.done += rows
        if self.done > self.most:
            raise ArchiveError(
                f"the archive holds more than {self.most:,} rows: this server imports at "
                f"most {self.most:,} (IMPORT_MAX_ROWS)")
        if self.archive.read_bytes - self.flushed_at > PENDING_BYTES:
            self.writer.flush()  # 500 records of 16 MB each are not to be held at once
            self.flushed_at = self.archive.read_bytes
        if time.monotonic() - self.reported >= PROGRESS_SECONDS:
            self.beat()

    def beat(self) -> None:
        """Report how far the import is (at least every second while it works: the job's
        page takes a silence of `archive.jobs.STALLED` seconds for a dead process)."""
        self.reported = time.monotonic()
        total = max(self.total, self.done)
        if self.job is not None:
            ImportJob.objects.filter(pk=self.job).update(done=self.done, total=total,
                                                         beat_at=timezone.now())
        self.report(self.done, total)

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
        if self.total > self.most:  # before anything is written
            raise ArchiveError(
                f"the archive holds {self.total:,} rows (its manifest's counts): this "
                f"server imports at most {self.most:,} (IMPORT_MAX_ROWS)")
        try:
            try:
                made = self.campaign(campaign)
                self.rows(made)
                self.replay(made)
                self.show(made)
            except (IntegrityError, DatabaseError) as error:
                raise ArchiveError(f"the archive's rows do not fit together: "
                                   f"{str(error)[:200]}") from None
        except BaseException:
            self.abandon()
            raise
        self.report(self.done, max(self.total, self.done))
        return made

    def abandon(self) -> None:
        """Delete what was written (`discard`): a refused archive leaves nothing."""
        from combat import services

        for made in self.encounters.values():  # the fold remembers what rolls back
            if made.pk is not None:
                services.forget(made.pk)
        if self.made is None:
            return
        try:
            discard(self.made.pk)
        except Exception:  # noqa: BLE001 - the refusal is what the importer is told
            log.exception("the partial import of campaign %s was not deleted; "
                          "archive.jobs.sweep tries again", self.made.pk)
        else:
            self.discarded = True

    def show(self, campaign: Campaign) -> None:
        """The last transaction: the GM's membership, the campaign's own join code and
        link, its last event number, the characters only its history names out of it,
        and the job done. Before it, nobody who can log in reaches the campaign."""
        self.writer.flush()
        with transaction.atomic():
            Character.objects.filter(pk__in=[c.pk for c in self.outside]).update(
                campaign=None)
            seat = self.gm_seat or Membership(campaign=campaign, user=self.user,
                                              role=Membership.Role.GM, seat=0)
            insert([seat])
            if self.gm_events:
                MembershipEvent.objects.filter(pk__in=[e.pk for e in self.gm_events]).update(
                    membership_id=seat.pk)
            code = new_join_code()
            while Campaign.objects.filter(join_code=code).exists():
                code = new_join_code()
            Campaign.objects.filter(pk=campaign.pk).update(
                event_seq=max([self.event_seq, *self.seqs]), join_code=code,
                invite_token=new_invite_token())
            if self.job is not None:
                ImportJob.objects.filter(pk=self.job).update(
                    status=ImportJob.Status.DONE, campaign=campaign,
                    finished_at=timezone.now(), done=self.done,
                    total=max(self.total, self.done), beat_at=timezone.now(),
                    summary=self.summary())
        campaign.refresh_from_db()

    def summary(self) -> dict:
        """What the job's page says it imported: by the archive's names only, whether a
        name has an account here is not the importer's to learn (issue 42)."""
        return {"rows": self.done, "placeholders": len(self.placeholders),
                "waiting": sorted(p.name for p in self.placeholders)}

    # Users and the campaign -----------------------------------------------------------------

    def user_for(self, name, where: str, *, gm_name: str):
        """The account a username of the archive stands for: the importer for the
        archive's GM, a placeholder of its own for every other name. No account here is
        looked up by a name of the archive: an import attaches nobody, and what it shows
        is the same whether the name has an account here or not."""
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
        found = self.placeholder_user(name)
        self.users[name] = found
        return found

    def placeholder_user(self, name: str):
        """An inactive user with no usable password for the archive's `name`. Its username
        is the name with a random suffix ("alice.3f9a0c1b2d4e"), so the table's log still
        reads "alice", and it is never the name itself nor a number after it: those were
        found by asking whether the name has an account here, which the generated name
        then told the importer (issue 42). Only a random candidate is looked up."""
        User = get_user_model()
        while True:
            username = f"{name[:PLACEHOLDER_NAME]}.{secrets.token_hex(6)}"
            if not User.objects.filter(username=username).exists():
                break
        user = User(username=username, is_active=False)
        user.set_unusable_password()
        with transaction.atomic():  # with its row, so `discard` finds the user
            user.save()
            holder = Placeholder(campaign=self.made, user=user, name=name)
            insert([holder])
        self.placeholders.append(holder)
        return user

    def campaign(self, row: dict) -> Campaign:
        """The campaign row, hidden, and its players' memberships (placeholders all)."""
        where = "campaign.json"
        self.gm_old = None
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
            "dice_source", "event_seq", "created_at", "gm", "members"), gm=self.user)
        one_of(campaign.dice_source, Campaign.DiceSource.values, where, "who rolls the dice")
        try:
            campaign.house()  # the rule system reads every house rule
        except (RulesError, ValueError, TypeError, AttributeError) as error:
            raise ArchiveError(f"{where}: house rules: {str(error)[:200]}") from None
        self.event_seq = campaign.event_seq
        campaign.name = imported_name(campaign.name, self.user)
        # Hidden until `show`: a code no one can type, a link no URL matches.
        campaign.join_code = hidden_join_code()
        campaign.invite_token = f"importing.{secrets.token_hex(16)}"
        with transaction.atomic():
            insert([campaign])
            self.made = campaign
            if self.job is not None:  # from now on `archive.jobs.sweep` can find it
                ImportJob.objects.filter(pk=self.job).update(campaign=campaign,
                                                             beat_at=timezone.now())
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
            if user == self.user:  # written last (`show`): then the campaign shows
                self.gm_seat = membership
                self.gm_old = member.get("id")
            else:
                made.append((member.get("id"), membership))
        self.writer.add([m for _old, m in made])
        self.writer.flush()
        for old, membership in made:
            if isinstance(old, int):
                self.memberships[old] = membership.pk
        return campaign

    def user_of(self, row: dict, key: str, where: str):
        return self.user_for(row.get(key), where, gm_name=self.gm_name)

    # Rows ------------------------------------------------------------------------------------

    def rows(self, campaign: Campaign) -> None:
        """Every line file, a batch of rows at a time (`Writer`); what a later file names
        by its new id (a character, a journal post, a fight, a picture) is written
        before that file is read."""
        w = self.writer
        self.characters_of(campaign)
        w.flush()
        self.characters = {old: c.pk for old, c in self.characters.items()}
        for where, row in self.archive.lines("catalogue"):
            w.add([checked(CatalogueItem, where, row, ("kind", "key", "data"),
                           campaign=campaign)])
            self.step()
        for where, row in self.archive.lines("npc_templates"):
            template = checked(NpcTemplate, where, row, ("name", "block", "created_at"),
                               campaign=campaign)
            # An add_combatant command's fields: a character in it is the archive's.
            template.block = self.remap(template.block, where, chronicle=False)
            w.add([template])
            self.step()
        for where, row in self.archive.lines("journal"):
            old = plain_int(row.get("id"), where, "id", 1)
            author = self.user_of(row, "author", where)
            entry = checked(JournalEntry, where, row, (
                "id", "author", "title", "body", "pinned", "created_at", "updated_at"),
                campaign=campaign, author=author)
            w.add([entry], lambda objs, old=old: self.journal.__setitem__(old, objs[0].pk))
            self.step()
        for where, row in self.archive.lines("bring_requests"):
            character = self.character(row.get("character"), where)
            w.add([checked(BringRequest, where, row, (
                "character", "status", "note", "decided_by", "created_at", "decided_at"),
                campaign=campaign, character_id=character,
                decided_by=self.user_of(row, "decided_by", where))])
            self.step()
        w.flush()
        self.handouts_of(campaign)
        self.encounters_of(campaign)
        w.flush()
        self.records_of(campaign)
        self.events_of(campaign)
        w.flush()

    def character(self, old, where: str) -> int:
        if old is None:
            raise ArchiveError(f"{where}: a character is missing")
        if not isinstance(old, int) or old not in self.characters:
            raise ArchiveError(f"{where}: names a character the archive does not hold "
                               f"({str(old)[:20]})")
        return self.characters[old]

    def characters_of(self, campaign: Campaign) -> None:
        """Every character is written in the campaign while it is hidden, so `discard`
        finds it; one that is not the campaign's leaves it in `show`."""
        fields = ("id", "owner", "in_campaign", "name", "concept", "notes", "gm_notes",
                  "rule_system", "dp_budget", "level_cap", "attributes", "skills", "rolled",
                  "created_at", "updated_at", "items", "ledger", "favourites")
        for where, row in self.archive.lines("characters"):
            old = plain_int(row.get("id"), where, "id", 1)
            if old in self.characters:
                raise ArchiveError(f"{where}: character {old} is in the archive twice")
            if "history_only" in row:
                self.characters[old] = self.stand_in(campaign, row, where)
                self.step()
                continue
            owner = self.user_of(row, "owner", where)
            if owner is None:
                raise ArchiveError(f"{where}: a character has an owner")
            in_campaign = row.get("in_campaign") is True
            character = checked(Character, where, row, fields, owner=owner,
                                campaign=campaign)
            one_of(character.rule_system, SYSTEMS, where, "the rule system")
            if in_campaign and character.rule_system != campaign.rule_system:
                raise ArchiveError(f"{where}: a {character.rule_system} character cannot "
                                   f"play in a {campaign.rule_system} campaign")
            if not in_campaign:
                self.outside.append(character)
            self.writer.add([character])
            self.characters[old] = character
            parts = character_parts(character, row, where, self.user_of, self.writer.add)
            self.step(1 + parts)

    def stand_in(self, campaign: Campaign, row: dict, where: str) -> Character:
        """A character the archive's history names but that was not the campaign's
        (`archive.export.history_only_row`): its name and rule system, so its rolls and
        fights read as they did. It is the importer's, in no campaign once the import
        shows, with the system's default values: the archive holds nothing more of it."""
        if row.get("history_only") is not True or row.get("in_campaign") is not False:
            raise ArchiveError(f"{where}: a character only the history names is "
                               f"history_only true and in_campaign false")
        character = checked(Character, where, row, (
            "id", "name", "rule_system", "in_campaign", "history_only"),
            owner=self.user, campaign=campaign, attributes={}, skills={}, rolled={})
        one_of(character.rule_system, SYSTEMS, where, "the rule system")
        self.outside.append(character)
        self.writer.add([character])
        return character

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
            self.writer.add([encounter])
            self.encounters[old] = encounter
            self.pictures_of(encounter, row.get("pictures") or [], where)
            self.step()

    def handouts_of(self, campaign: Campaign) -> None:
        """The GM's handouts (schema 3): each to a player of the campaign by username, or
        to every player; a picture checked as a map picture is."""
        from table.models import Handout

        players = {m.user_id: m for m in Membership.objects.filter(campaign=campaign)}
        for where, row in self.archive.lines("handouts"):
            recipient = None
            if row.get("to") is not None:
                user = self.user_of(row, "to", where)
                recipient = players.get(getattr(user, "pk", None))
                if recipient is None:
                    raise ArchiveError(f"{where}: gives a handout to someone who is not a "
                                       f"player of the campaign")
            # "picture" names a file of the archive: not the model's bytes field.
            fields = {k: v for k, v in row.items() if k != "picture"}
            handout = checked(Handout, where, fields, (
                "id", "title", "text", "on_screen", "to", "created_at"), campaign=campaign,
                recipient=recipient)
            if not handout.title.strip():
                raise ArchiveError(f"{where}: a handout has a title")
            name = row.get("picture")
            if name is not None:
                facts = self.picture_file(name, fmt.HANDOUT_NAME, where)
                handout.picture = facts.pop("content")
                for key, value in facts.items():
                    setattr(handout, key, value)
            elif not handout.text.strip():
                raise ArchiveError(f"{where}: a handout is a text, a picture or both")
            self.writer.add([handout])
            self.writer.flush()  # a picture of up to 5 MB: one at a time
            self.step()

    def picture_file(self, name, pattern, where: str) -> dict:
        """The picture the archive holds as `name` (a name `pattern` takes), checked as an
        uploaded map picture is: its row fields (`core.pictures.picture_facts`)."""
        from core.pictures import picture_facts

        if not isinstance(name, str) or not pattern.fullmatch(name) \
                or not self.archive.has(name):
            raise ArchiveError(f"{where}: names a picture the archive does not hold")
        try:
            return picture_facts(self.archive.picture(name))
        except ValidationError as error:
            raise ArchiveError(f"{name}: {' '.join(error.messages)}") from None

    def pictures_of(self, encounter: Encounter, pictures, where: str) -> None:
        if not isinstance(pictures, list):
            raise ArchiveError(f"{where}: pictures is a list")
        for n, picture in enumerate(pictures):
            at = f"{where} picture {n + 1}"
            picture = _object(picture, at)
            old = plain_int(picture.get("id"), at, "id", 1)
            facts = self.picture_file(picture.get("file"), fmt.PICTURE_NAME, at)
            made = MapPicture(encounter=encounter, created_at=moment(
                picture.get("created_at"), at), **facts)
            self.writer.add([made])
            self.writer.flush()  # up to 5 MB: one at a time
            self.pictures[old] = made.pk
            self.step()

    def records_of(self, campaign: Campaign) -> None:
        fields = ("id", "encounter", "seq", "version", "actor", "actor_name", "command",
                  "events", "undo_to", "redo", "lines", "public_lines", "created_at")
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
            self.writer.add([record])
            self.step()

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
                elif key == "toward" and isinstance(item, str) \
                        and item.startswith("character:"):
                    out[key] = self.toward(item, where)
                else:
                    out[key] = self.remap(item, where, chronicle=chronicle)
            return out
        if chronicle and isinstance(value, str) and (body := BODY_ID.fullmatch(value)):
            old = int(body[1])
            if old in self.characters:
                return f"ch{self.characters[old]}"
        return value

    def toward(self, text: str, where: str) -> str:
        """Whom a T10 social roll was with, "character:<pk>" (table/entered.py): the new
        character's id; one the archive does not hold refuses it, or the pair's carry
        would name a character of another campaign."""
        number = text.removeprefix("character:")
        if not number.isascii() or not number.isdigit() or len(number) > 18:
            raise ArchiveError(f"{where}: names a character the archive does not hold "
                               f"({text[:30]})")
        return f"character:{self.character(int(number), where)}"

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
        w = self.writer
        for where, row in self.archive.lines("rolls"):
            ref = row.get("character")
            roll = checked(RollEvent, where, row, (
                "seq", "actor", "character", "kind", "label", "hand", "dice", "counted",
                "result", "test_base", "threshold", "secret", "detail", "typed_in",
                "created_at"),
                campaign=campaign, actor=self.user_of(row, "actor", where),
                character_id=None if ref is None else self.character(ref, where))
            one_of(roll.kind, RollEvent.Kind.values, where, "the kind")
            roll.detail = self.remap(roll.detail, where, chronicle=False)
            self.numbered(roll.seq, where)
            w.add([roll])
            self.step()
        for where, row in self.archive.lines("membership_events"):
            old = row.get("membership")
            event = checked(MembershipEvent, where, row, (
                "seq", "kind", "membership", "username", "created_at"), campaign=campaign,
                # A removed member's old membership is no row of the archive: 0 is none.
                membership_id=self.memberships.get(old, 0) if isinstance(old, int) else 0)
            one_of(event.kind, MembershipEvent.Kind.values, where, "the kind")
            self.numbered(event.seq, where)
            if isinstance(old, int) and old == self.gm_old:  # its id is known in `show`
                self.gm_events.append(event)
            w.add([event])
            self.step()
        for where, row in self.archive.lines("notices"):
            event = checked(NoticeEvent, where, row, ("seq", "kind", "actor", "data",
                                                      "created_at"), campaign=campaign)
            one_of(event.kind, NoticeEvent.Kind.values, where, "the kind")
            event.data = self.notice_data(campaign, event.data, where)
            self.numbered(event.seq, where)
            w.add([event])
            self.step()

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


def character_parts(character: Character, row: dict, where: str, user_of,
                    write: Callable[[list], None] = insert) -> int:
    """A character's items, UP ledger and favourite tests (its own archive's too), given
    to `write` (at once, or an import's `Writer`); how many rows they are.
    `user_of(row, key, where)` is the account a username of the row stands for."""
    parts = {key: row.get(key) or [] for key in ("items", "ledger", "favourites")}
    for key, value in parts.items():
        if not isinstance(value, list):
            raise ArchiveError(f"{where}: {key} is a list")
    write([checked(Item, f"{where} item {n + 1}", _object(item, where),
                   ("name", "bulk", "quantity", "catalogue"), character=character)
           for n, item in enumerate(parts["items"])])
    entries: dict[int, DpEntry] = {}
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
            character=character, undoes=entries.get(undoes),
            created_by=user_of(entry, "created_by", at))
        write([made])
        entries[old] = made
    write([checked(FavouriteTest, f"{where} favourite {n + 1}", _object(f, where), (
        "name", "properties", "free", "forced", "threshold", "created_at"),
        character=character) for n, f in enumerate(parts["favourites"])])
    return sum(len(value) for value in parts.values())


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
