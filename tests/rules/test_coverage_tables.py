"""The coverage tables (docs/rules/coverage-*.md, issue 45) are kept true.

Each table has one row per rule of a rule text: its place in the text, the rule, a status,
the module and the test. This test reads the tables and fails, naming the row,

(a) when a row names a test that does not exist (the file is missing, or no ``def`` of that
    name is in it), or a module that does not exist;
(b) when a ``done`` row names no test, or its place in the text is cited by no test under
    ``tests/`` (the citation formats are below);
(c) when a row's status is not one of the allowed words, or the counts in
    docs/rules/coverage.md are not the tables' own.

Citations are read from the tests' source as the tests already write them:

* Aoristos, by page: ``p. 7``, ``p. 6-7`` (a range of at most three pages, so a chapter's
  "p. 6-13" is no citation of p. 9), ``p. 3, 17`` and ``p. 3 and 17``; and a test's name
  ending in ``_p7`` or ``_p4_p9``. A page of the T10 excerpt (``t10-ap-utdrag.txt p. 2``,
  ``p. 1, "Färdighetsslag"``) is not Aoristos's.
* Phobia, by line: ``line 231``, ``lines 12-17`` (at most 60 lines: "lines 806-1130" is a
  chapter), ``lines 823-827, 844-847``, ``lines 40-41 and 363-364`` and ``lines 911-916
  (Kvävning!) and 937-941`` (an aside in brackets between the spans); and a test's name
  with ``_lines_631_636`` or ``_line_796``; only in test files that name Phobia. A row's
  lines are cited when a citation overlaps them.
* T10, by section: the section's heading, as the tests quote it (``"Vapen"``, ``”Vapen”``),
  lead a docstring or comment with it (``Spara action points:``, ``# Ställningar ---``,
  ``Vapen, Räckvidd``) or bracket it (``(Förmågor och färdigheter)``); only in test files
  that name T10.
"""

import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs" / "rules"
TESTS = ROOT / "tests"

STATUSES = ("done", "partial", "missing", "house rule", "not applicable")
TABLES = {
    "aoristos": DOCS / "coverage-aoristos.md",
    "phobia": DOCS / "coverage-phobia.md",
    "t10": DOCS / "coverage-t10.md",
}
HEADER = ("#", "Place", "Rule", "Status", "Module", "Test", "Notes")

# The T10 excerpt's section headings (t10-ap-utdrag.txt), in its order.
T10_SECTIONS = (
    "Förmågor och färdigheter",
    "Färdighetsslag",
    "Påföljande slag",
    "Att använda DoS och DoF",
    "Initiativ",
    "Action points",
    "Handlingar som går över flera rundor",
    "Spara action points",
    "Utmattning och skada",
    "Kroppsskydd",
    "Ställningar",
    "Vapen",
)

MAX_PAGE_SPAN = 2  # p. N-M with M - N at most 2
MAX_LINE_SPAN = 60


@dataclass(frozen=True)
class Row:
    table: str
    id: str
    place: str
    rule: str
    status: str
    modules: tuple[str, ...]
    tests: tuple[str, ...]

    def __str__(self) -> str:
        rule = self.rule if len(self.rule) <= 60 else self.rule[:57] + "..."
        return f"{self.table} row {self.id} ({self.place}, {rule!r})"


def _cells(line: str) -> list[str]:
    return [cell.strip() for cell in line.strip().strip("|").split("|")]


def _paths(cell: str) -> tuple[str, ...]:
    """The backticked items of a cell ("—" or empty: none)."""
    return tuple(re.findall(r"`([^`]+)`", cell))


def read_table(name: str) -> list[Row]:
    """The rows of one coverage table: the markdown table whose header is HEADER."""
    rows = []
    in_table = False
    for number, line in enumerate(TABLES[name].read_text().splitlines(), 1):
        if not line.startswith("|"):
            in_table = False
            continue
        cells = _cells(line)
        if tuple(cells) == HEADER:
            in_table = True
            continue
        if not in_table or set("".join(cells)) <= set("-: "):
            continue
        assert len(cells) == len(HEADER), (
            f"{TABLES[name].name} line {number}: {len(cells)} cells, not {len(HEADER)}: {line}"
        )
        rows.append(
            Row(name, cells[0], cells[1], cells[2], cells[3], _paths(cells[4]), _paths(cells[5]))
        )
    return rows


# Citations in the tests' source -------------------------------------------------------------


def _numbers(text: str) -> list[tuple[int, int]]:
    """The spans of "7", "6-7", "3, 17", "823-827, 844-847", "40-41 and 363-364"."""
    spans = []
    for part in re.split(r"\s*(?:,|\band\b)\s*", text):
        m = re.fullmatch(r"(\d+)(?:\s*[-–]\s*(\d+))?", part.strip())
        if m:
            first = int(m.group(1))
            last = int(m.group(2)) if m.group(2) else first
            if last >= first:
                spans.append((first, last))
    return spans


NUMBERS = r"\d+(?:\s*[-–]\s*\d+)?(?:\s*(?:,|\band\b)\s*\d+(?:\s*[-–]\s*\d+)?)*"
PAGE = re.compile(rf"(?<![\w.])p\.\s?({NUMBERS})")
LINES = re.compile(rf"\b[Ll]ines?\s({NUMBERS})")
NAME_PAGES = re.compile(r"def (test\w*)")
T10_PAGE_BEFORE = re.compile(r"utdrag\.txt,?\s*$")
T10_PAGE_AFTER = re.compile(r'^,\s*["”“](' + "|".join(map(re.escape, T10_SECTIONS)) + r")")


@cache
def _sources() -> dict[Path, str]:
    return {
        path: path.read_text()
        for path in sorted(TESTS.rglob("*.py"))
        if path.name != Path(__file__).name
    }


@cache
def cited_pages() -> frozenset[int]:
    """Every Aoristos page a test cites."""
    pages: set[int] = set()
    for source in _sources().values():
        for m in PAGE.finditer(source):
            before = source[max(0, m.start() - 30) : m.start()]
            after = source[m.end() : m.end() + 40]
            if T10_PAGE_BEFORE.search(before) or T10_PAGE_AFTER.match(after):
                continue  # a page of the T10 excerpt
            for first, last in _numbers(m.group(1)):
                if last - first <= MAX_PAGE_SPAN:
                    pages.update(range(first, last + 1))
        for name in NAME_PAGES.findall(source):
            pages.update(int(n) for n in re.findall(r"_p(\d+)(?=_|$)", name))
    return frozenset(pages)


@cache
def cited_lines() -> tuple[tuple[int, int], ...]:
    """Every span of Phobia lines a test cites (in test files that name Phobia)."""
    spans: set[tuple[int, int]] = set()
    for source in _sources().values():
        if "phobia" not in source.lower():
            continue
        for m in LINES.finditer(source):
            before = source[max(0, m.start() - 30) : m.start()]
            if "grundregler" in before:
                continue  # lines of the Aoristos text
            found = _numbers(m.group(1)) + _numbers(_continued(source, m.end()))
            spans.update(s for s in found if s[1] - s[0] <= MAX_LINE_SPAN)
        for name in NAME_PAGES.findall(source):
            for word, digits in re.findall(r"_(lines?)((?:_\d+)+)", name):
                numbers = [int(n) for n in digits.strip("_").split("_")]
                if word == "line":
                    spans.update((n, n) for n in numbers)
                    continue
                pairs = list(zip(numbers[::2], numbers[1::2], strict=False))
                spans.update((a, b) for a, b in pairs if 0 <= b - a <= MAX_LINE_SPAN)
                if len(numbers) % 2:
                    spans.add((numbers[-1], numbers[-1]))
    return tuple(sorted(spans))


MORE = re.compile(rf"\s*\([^()]{{0,200}}\)\s*(?:,|\band\b)\s*({NUMBERS})")


def _continued(source: str, end: int) -> str:
    """The spans that go on after an aside in brackets: "lines 911-916 (Kvävning!: 1 T
    + 1 S each round) and 937-941 (Inre Skada!)" gives "937-941"."""
    parts = []
    while m := MORE.match(source, end):
        parts.append(m.group(1))
        end = m.end()
    return ", ".join(parts)


def _section_pattern(section: str) -> re.Pattern:
    s = re.escape(section)
    return re.compile(
        rf"[\"”“]{s}[\"”“]"  # quoted
        rf"|(?:\"\"\"|#\s*){s}\s*[:,-]"  # leading a docstring or a comment
        rf"|\({s}\)"  # bracketed
    )


@cache
def cited_sections() -> frozenset[str]:
    """Every T10 section a test cites (in test files that name T10)."""
    found = set()
    for source in _sources().values():
        if "t10" not in source.lower():
            continue
        found.update(s for s in T10_SECTIONS if _section_pattern(s).search(source))
    return frozenset(found)


def _row_pages(row: Row) -> list[int]:
    m = re.fullmatch(rf"p\.\s?({NUMBERS})", row.place)
    assert m, f"{row}: the place must be a page, 'p. N'"
    return [page for first, last in _numbers(m.group(1)) for page in range(first, last + 1)]


def _row_lines(row: Row) -> list[tuple[int, int]]:
    m = re.fullmatch(rf"lines?\s({NUMBERS})", row.place)
    assert m, f"{row}: the place must be lines, 'lines A-B' or 'line N'"
    return _numbers(m.group(1))


def uncited(row: Row) -> list[str]:
    """The places of `row` no test cites."""
    if row.table == "aoristos":
        return [f"p. {page}" for page in _row_pages(row) if page not in cited_pages()]
    if row.table == "phobia":
        spans = cited_lines()
        return [
            f"lines {a}-{b}"
            for a, b in _row_lines(row)
            if not any(c <= b and a <= d for c, d in spans)
        ]
    assert row.place in T10_SECTIONS, f"{row}: the place must be a section of the excerpt"
    return [] if row.place in cited_sections() else [repr(row.place)]


# The checks ---------------------------------------------------------------------------------


ROWS = [row for name in TABLES for row in read_table(name)]


def test_every_table_has_its_rows():
    for name in TABLES:
        rows = [row for row in ROWS if row.table == name]
        assert len(rows) >= 30, f"{TABLES[name].name}: {len(rows)} rows; is its header there?"
        ids = [row.id for row in rows]
        assert len(set(ids)) == len(ids), f"{TABLES[name].name}: a row number twice"


# One test per check over every row, its message naming each row that fails (a test per
# row was 810 of them, 50 s of a loaded machine's pytest for what takes a second).


def status_problems(row) -> list[str]:
    return [] if row.status in STATUSES else [
        f"{row}: status {row.status!r} is not one of {STATUSES}"
    ]


def reference_problems(row) -> list[str]:
    problems = []
    for test in row.tests:
        path, sep, function = test.partition("::")
        file = ROOT / path
        if not sep or not function:
            problems.append(f"{row}: {test!r} is not 'tests/file.py::test_name'")
        elif not path.startswith("tests/"):
            problems.append(f"{row}: {path} is not under tests/")
        elif not file.is_file():
            problems.append(f"{row}: no test file {path}")
        elif not re.search(rf"^\s*(?:async\s+)?def {re.escape(function)}\(", _source(file), re.M):
            problems.append(f"{row}: no test {function} in {path}")
    problems += [f"{row}: no module {module}" for module in row.modules
                 if not (ROOT / module).exists()]
    return problems


def citation_problems(row) -> list[str]:
    if row.status != "done":
        return []
    if not row.tests:
        return [f"{row}: done, but names no test"]
    missing = uncited(row)
    return [f"{row}: done, but no test under tests/ cites {', '.join(missing)}"] if missing else []


@cache
def _source(file: Path) -> str:
    return file.read_text()


def test_every_rows_status_is_an_allowed_word():
    problems = [problem for row in ROWS for problem in status_problems(row)]
    assert problems == [], "\n".join(problems)


def test_every_rows_tests_and_modules_exist():
    problems = [problem for row in ROWS for problem in reference_problems(row)]
    assert problems == [], "\n".join(problems)


def test_every_done_rows_place_is_cited_by_a_test():
    problems = [problem for row in ROWS for problem in citation_problems(row)]
    assert problems == [], "\n".join(problems)


def test_the_counts_in_the_index_are_the_tables():
    """docs/rules/coverage.md's "How many": rows, then per status, per text."""
    counts = {}
    for line in (DOCS / "coverage.md").read_text().splitlines():
        cells = _cells(line) if line.startswith("|") else []
        if cells and cells[0].lower() in TABLES:
            counts[cells[0].lower()] = [int(c) for c in cells[1:]]
    assert set(counts) == set(TABLES), f"coverage.md counts {sorted(counts)}, not {list(TABLES)}"
    for name, written in counts.items():
        rows = [row for row in ROWS if row.table == name]
        actual = [len(rows)] + [sum(row.status == s for row in rows) for s in STATUSES]
        assert written == actual, (
            f"coverage.md: {name} is counted {written}, the table has {actual} "
            f"(rows, {', '.join(STATUSES)})"
        )


def test_the_citation_reader_reads_the_tests_formats():
    """The formats above, on the tests' own spellings."""
    assert _numbers("3, 17") == [(3, 3), (17, 17)]
    assert _numbers("40-41 and 363-364") == [(40, 41), (363, 364)]
    assert _numbers("823-827, 844-847") == [(823, 827), (844, 847)]
    pages = cited_pages()
    assert {9, 17} <= pages  # "p. 9", and "p. 3, 17"
    assert 16 not in pages  # the abbreviations: no test cites them
    assert (631, 636) in cited_lines()  # test_..._lines_631_636
    assert (937, 941) in cited_lines()  # "lines 911-916 (Kvävning!: ...) and 937-941"
    assert "Spara action points" in cited_sections()
    assert _section_pattern("Vapen").search('"""Vapen, Räckvidd: within close +2')
    assert not _section_pattern("Initiativ").search("Initiativ 2 gives 3-12")
