"""The game's own Swedish terms for each code name (shared/rules/glossary.md).

Pages show these in every language: they are what players read in the rule book and say
at the table. The English gloss is a translation shown beside them in English.
"""

from django.utils.translation import gettext

from rules.aoristos.system import ATTRIBUTE_TERMS, SECONDARY_TERMS, SKILL_TERMS

# The terms live with their rule system (rules.aoristos.system); the apps read them here.
TERMS = {term.key: term for term in ATTRIBUTE_TERMS + SECONDARY_TERMS + SKILL_TERMS}


def label(key: str) -> str:
    """'Fysik (FYS)' or 'Vildmark': the term as the rule book writes it."""
    term = TERMS[key]
    return f"{term.swedish} ({term.abbr})" if term.abbr else term.swedish


def short_label(key: str) -> str:
    """'SIN' or 'Vildmark': how a test is named at the table ("SIN + Vildmark")."""
    term = TERMS[key]
    return term.abbr or term.swedish


def test_label(keys, constant: int = 0) -> str:  # noqa: PT028
    """How a test of properties `keys` (plus `constant` in the TB) is named at the table.

    - Properties: "SIN + Vildmark" (p. 5).
    - A constant follows the properties with its sign: "VIL + 20" (the psychosis test,
      p. 15), "VIL − 2" with a real minus sign (U+2212), as the rule book writes it.
    - No property is a test of nothing, "tomt TB" ("empty TB"; the weekly healing test,
      TB 0, p. 14). A constant then follows that phrase, "tomt TB + 20": the phrase says
      that no property is tested (so GST 4), the constant what the TB holds. A bare "20"
      would not read as a test at all.

    Property terms are Swedish in every language; "tomt TB" goes through gettext, so the
    label is written in the language of the page that rolls (it is stored with the roll
    and shown as written to everyone at the table).
    """
    text = " + ".join(short_label(key) for key in keys) or gettext("empty TB")
    if constant:
        text += f" + {constant}" if constant > 0 else f" \N{MINUS SIGN} {-constant}"
    return text


test_label.__test__ = False  # not a pytest test, despite the name
