"""The Swedish catalogue is complete, compiled, and what Django actually serves.

Refreshing after new strings: `make messages` (or makemessages -l sv -l en --no-obsolete),
fill in every empty msgstr in locale/sv/LC_MESSAGES/django.po, then compilemessages and
commit both the .po and the .mo files.
"""

import ast
import gettext
import re
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from django.utils import translation

LOCALE = Path(__file__).resolve().parents[2] / "locale"
SV_PO = LOCALE / "sv" / "LC_MESSAGES" / "django.po"
SV_MO = LOCALE / "sv" / "LC_MESSAGES" / "django.mo"
EN_PO = LOCALE / "en" / "LC_MESSAGES" / "django.po"
EN_MO = LOCALE / "en" / "LC_MESSAGES" / "django.mo"


@dataclass
class Entry:
    msgid: str = ""
    msgid_plural: str | None = None
    msgctxt: str | None = None
    msgstr: str = ""
    msgstr_plural: dict[int, str] = field(default_factory=dict)
    flags: set[str] = field(default_factory=set)
    line: int = 0

    @property
    def is_header(self) -> bool:
        return self.msgid == "" and self.msgctxt is None

    @property
    def translations(self) -> list[str]:
        if self.msgid_plural is None:
            return [self.msgstr]
        # Swedish has two forms; a missing msgstr[1] counts as untranslated.
        count = max(2, len(self.msgstr_plural))
        return [self.msgstr_plural.get(i, "") for i in range(count)]


KEYWORD = re.compile(r'^(msgctxt|msgid_plural|msgid|msgstr(?:\[(\d+)\])?)\s+(".*")\s*$')


def parse_po(path: Path) -> list[Entry]:
    """A small .po reader: flags, msgctxt, msgid(_plural), msgstr(/[n]), continuation lines.

    Obsolete entries (#~) and other comments are skipped.
    """
    entries: list[Entry] = []
    current: Entry | None = None
    target: tuple[str, int | None] | None = None  # the field continuation lines extend
    pending_flags: set[str] = set()

    def finish():
        nonlocal current
        if current is not None:
            entries.append(current)
        current = None

    for number, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        line = raw.strip()
        if not line:
            finish()
            target = None
            continue
        if line.startswith("#"):
            if line.startswith("#,"):
                pending_flags |= {f.strip() for f in line[2:].split(",") if f.strip()}
            continue
        if line.startswith('"'):
            if current is None or target is None:
                raise ValueError(f"{path}:{number}: continuation line outside an entry")
            _append(current, target, ast.literal_eval(line))
            continue
        match = KEYWORD.match(line)
        if not match:
            raise ValueError(f"{path}:{number}: cannot read {raw!r}")
        keyword, index, value = match.group(1), match.group(2), ast.literal_eval(match.group(3))
        # msgctxt starts an entry, and so does msgid unless it follows the entry's msgctxt.
        if keyword == "msgctxt" or (keyword == "msgid" and target != ("msgctxt", None)):
            finish()
            current = Entry(flags=pending_flags, line=number)
            pending_flags = set()
        if current is None:
            raise ValueError(f"{path}:{number}: {keyword} before msgid")
        base = "msgstr" if index is not None else keyword
        target = (base, int(index) if index is not None else None)
        _append(current, target, value)
    finish()
    return entries


def _append(entry: Entry, target: tuple[str, int | None], text: str) -> None:
    name, index = target
    if name == "msgstr" and index is not None:
        entry.msgstr_plural[index] = entry.msgstr_plural.get(index, "") + text
    elif name == "msgid_plural":
        entry.msgid_plural = (entry.msgid_plural or "") + text
    elif name == "msgctxt":
        entry.msgctxt = (entry.msgctxt or "") + text
    else:
        setattr(entry, name, getattr(entry, name) + text)


def header_fields(entries: list[Entry]) -> dict[str, str]:
    header = next(e for e in entries if e.is_header)
    pairs = (line.split(":", 1) for line in header.msgstr.splitlines() if ":" in line)
    return {key.strip(): value.strip() for key, value in pairs}


@pytest.fixture(scope="module")
def sv_entries() -> list[Entry]:
    return parse_po(SV_PO)


def messages(entries: list[Entry]) -> list[Entry]:
    return [e for e in entries if not e.is_header]


def test_parser_reads_plurals_and_wrapped_strings(tmp_path):
    po = tmp_path / "django.po"
    po.write_text(
        'msgid ""\nmsgstr ""\n"Language: sv\\n"\n\n'
        '#: a.py:1\n#, python-format\nmsgid ""\n"Long %(n)s "\n"text"\nmsgstr "Lång %(n)s text"\n\n'
        'msgid "one"\nmsgid_plural "many"\nmsgstr[0] "en"\nmsgstr[1] ""\n"många"\n\n'
        'msgctxt "verb"\nmsgid "Print"\nmsgstr "Skriv ut"\n\n'
        '#, fuzzy\nmsgid "Draft"\nmsgstr "Utkast"\n\n'
        '#~ msgid "Gone"\n#~ msgstr "Borta"\n',
        encoding="utf-8",
    )
    header, wrapped, plural, context, fuzzy = parse_po(po)
    assert header.is_header
    assert header_fields([header]) == {"Language": "sv"}
    assert (wrapped.msgid, wrapped.msgstr, wrapped.flags) == (
        "Long %(n)s text",
        "Lång %(n)s text",
        {"python-format"},
    )
    assert (plural.msgid_plural, plural.translations) == ("many", ["en", "många"])
    assert (context.msgctxt, context.msgid, context.msgstr) == ("verb", "Print", "Skriv ut")
    assert "fuzzy" in fuzzy.flags


@pytest.mark.parametrize(("path", "language"), [(SV_PO, "sv"), (EN_PO, "en")])
def test_po_headers(path, language):
    entries = parse_po(path)
    header = next(e for e in entries if e.is_header)
    fields = header_fields(entries)
    assert "fuzzy" not in header.flags, f"{path}: the header is still marked fuzzy"
    assert fields.get("Language") == language
    assert fields.get("Content-Type") == "text/plain; charset=UTF-8"
    assert fields.get("Plural-Forms") == "nplurals=2; plural=(n != 1);"


def test_every_swedish_string_is_translated(sv_entries):
    entries = messages(sv_entries)
    assert len(entries) > 20, "the Swedish catalogue looks empty; run makemessages"
    untranslated = [e.msgid for e in entries if not all(e.translations)]
    fuzzy = [e.msgid for e in entries if "fuzzy" in e.flags]
    assert not untranslated, "untranslated in locale/sv: " + "; ".join(map(repr, untranslated))
    assert not fuzzy, "fuzzy in locale/sv: " + "; ".join(map(repr, fuzzy))


# Calques a Swedish player would stumble on, with the words the game's Swedish uses.
NOT_SWEDISH = {"spendering": "höjning (a spend raises a level)"}


def test_no_calques_in_the_swedish_catalogue(sv_entries):
    found = [
        (e.msgid, word)
        for e in messages(sv_entries)
        for word in NOT_SWEDISH
        if any(word in text.lower() for text in e.translations)
    ]
    assert not found, "; ".join(f"{m!r}: {w} → {NOT_SWEDISH[w]}" for m, w in found)


PLACEHOLDER = re.compile(r"%\((\w+)\)[sdif]|%[sdif]|\{\w*\}")


def test_placeholders_survive_translation(sv_entries):
    wrong = []
    for e in messages(sv_entries):
        expected = sorted(PLACEHOLDER.findall(e.msgid))
        for index, text in enumerate(e.translations):
            if not text:
                continue
            found = sorted(PLACEHOLDER.findall(text))
            if e.msgid_plural is None:
                ok = found == expected
            else:  # a plural form may leave out the count; it adds none of its own
                source = e.msgid if index == 0 else e.msgid_plural
                ok = set(found) <= set(PLACEHOLDER.findall(source))
            if not ok:
                wrong.append(f"{e.msgid!r} -> {text!r}")
    assert not wrong, "placeholders differ: " + "; ".join(wrong)


def test_compiled_catalogue_matches_the_po(sv_entries):
    """Catches a forgotten compilemessages: the .mo must give every msgstr of the .po."""
    assert SV_MO.exists(), "locale/sv/LC_MESSAGES/django.mo is missing: run compilemessages"
    with SV_MO.open("rb") as handle:
        compiled = gettext.GNUTranslations(handle)
    stale = []
    for e in messages(sv_entries):
        if not all(e.translations):
            continue  # untranslated: reported by test_every_swedish_string_is_translated
        if e.msgid_plural is None:
            got = (
                compiled.pgettext(e.msgctxt, e.msgid)
                if e.msgctxt is not None
                else compiled.gettext(e.msgid)
            )
            if got != e.msgstr:
                stale.append(f"{e.msgid!r}: .mo has {got!r}, .po has {e.msgstr!r}")
        else:
            for n, want in ((1, e.translations[0]), (2, e.translations[-1])):
                got = (
                    compiled.npgettext(e.msgctxt, e.msgid, e.msgid_plural, n)
                    if e.msgctxt is not None
                    else compiled.ngettext(e.msgid, e.msgid_plural, n)
                )
                if got != want:
                    stale.append(f"{e.msgid!r} (n={n}): .mo has {got!r}, .po has {want!r}")
    assert not stale, "django.mo is older than django.po; run compilemessages:\n" + "\n".join(stale)


def test_english_catalogue_compiles_and_loads():
    assert EN_MO.exists(), "locale/en/LC_MESSAGES/django.mo is missing: run compilemessages"
    with EN_MO.open("rb") as handle:
        compiled = gettext.GNUTranslations(handle)
    assert compiled.info().get("language") == "en"
    assert compiled.info().get("plural-forms") == "nplurals=2; plural=(n != 1);"


def test_django_serves_the_catalogues():
    # Only msgids that the app itself uses appear as literals here, so a makemessages run
    # that forgets --ignore=tests adds no new entries to the catalogues.
    with translation.override("sv"):
        assert translation.gettext("Log in") == "Logga in"
        assert translation.gettext("My characters") == "Mina rollpersoner"
        one = "The level cap %(cap)s now applies to %(count)s character."
        many = "The level cap %(cap)s now applies to %(count)s characters."
        assert translation.ngettext(one, many, 3) % {"cap": 6, "count": 3} == (
            "Nivåtaket 6 gäller nu för 3 rollpersoner."
        )
    with translation.override("en"):
        assert translation.gettext("Log in") == "Log in"
        assert translation.gettext("My characters") == "My characters"
