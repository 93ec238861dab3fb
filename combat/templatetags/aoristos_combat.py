"""Aoristos' own words on the combat pages: areas, postures, limb states and the parts of
an ST or a strength. A property's term is Swedish in every language (characters/terms.py);
the state of a fight (areas, postures, limbs, bleed rate) is the game's Swedish word on a
Swedish page and English on an English one (issue 26); the rest is translated."""

from datetime import datetime

from django import template
from django.utils.formats import date_format
from django.utils.translation import get_language, gettext
from django.utils.translation import gettext_lazy as _

from characters.terms import TERMS, short_label

register = template.Library()

GAME_TERMS = {
    # Hit areas (p. 9)
    "head": "Huvud",
    "torso": "Bål",
    "right_arm": "Höger arm",
    "left_arm": "Vänster arm",
    "right_leg": "Höger ben",
    "left_leg": "Vänster ben",
    # Postures (p. 7)
    "standing": "Stående",
    "sitting": "Sittande",
    "lying": "Liggande",
    # Limbs (p. 14)
    "ok": "OK",
    "broken": "Bruten",
    "destroyed": "Förstörd",
    # Wounds (p. 13)
    "bleed_rate": "Blödningstakt",
}
# The same words on an English page: the words the English log lines use.
ENGLISH_TERMS = {
    "head": "Head",
    "torso": "Torso",
    "right_arm": "Right arm",
    "left_arm": "Left arm",
    "right_leg": "Right leg",
    "left_leg": "Left leg",
    "standing": "Standing",
    "sitting": "Sitting",
    "lying": "Lying",
    "ok": "OK",
    "broken": "Broken",
    "destroyed": "Destroyed",
    "bleed_rate": "Bleed rate",
}


def game_term(key: str) -> str:
    """A game-state word (GAME_TERMS) in the page's language: Swedish on a Swedish page,
    English otherwise."""
    if (get_language() or "sv").startswith("sv"):
        return GAME_TERMS[key]
    return ENGLISH_TERMS.get(key, GAME_TERMS[key])

# Phobia's and T10's state and choice words (issue 26): the words their rules code writes
# in Swedish (rules/phobia/combat/view.py, rules/t10/combat/view.py), English on an English
# page. Terms that name a number on the sheet (Utmattning, Skada, Kroppsskydd, Blödningstakt,
# Trauma, Smärta, TO, AP) stay Swedish in every language, as Aoristos' KP and ST do; so do a
# Phobia injury's name and codes, which are the text's table. docs/rules/phobia.md and t10.md.
OTHER_SYSTEMS_ENGLISH = {
    # Phobia: areas (lines 944-1004), as AREA_NAMES capitalises them
    "Ansikte": "Face",
    "Skalle": "Skull",
    "Hals": "Neck",
    "Arm": "Arm",
    "Bröstkorg": "Chest",
    "Mage": "Belly",
    "Underliv": "Groin",
    "Ben": "Leg",
    # Phobia: responses (lines 703-725) and the turn's choices
    "Försvara sig": "Defend",
    "Söka skydd": "Take cover",
    "Fly": "Flee",
    "Skjuta tillbaka": "Shoot back",
    "Sikta och skjuta": "Aim and shoot",
    "Avvakta": "Wait",
    "Invänta mål": "Wait for a target",  # lines 745-750
    "Använda färdighet": "Use a skill",  # lines 761-765
    # Phobia: movement (lines 676-692) and the side an injury struck
    "Förflytta sig": "Move",
    "Fri förflyttning": "Free move",  # the battle map: Phobia's free metres (lines 261-262)
    "Springa": "Run",
    "Spurta": "Sprint",
    "vänster": "left",
    "höger": "right",
    # T10: stances ("Ställningar")
    "Normal": "Normal",
    "Färdigställning": "Ready",
    "Anläggning": "Aimed",
    # T10: actions ("Handlingar")
    "Anfall": "Attack",
    "Förflyttning": "Move",
    "Kasta sig i skydd": "Dive for cover",
    "Byta ställning": "Change stance",
    "Byta eldgivningssätt": "Change fire mode",
    "Ladda om": "Reload",
    "Sjukvård": "First aid",
    "Smärtstillande": "Painkillers",
    "Minska utmattning": "Lower Utmattning",
    "Färdighetsslag": "Skill roll",
    "Handling": "Action",
}


@register.filter
def word(swedish):
    """A Phobia or T10 state or choice word (OTHER_SYSTEMS_ENGLISH) in the page's language:
    as written on a Swedish page, English on an English one; anything else as it is."""
    if swedish is None:
        return ""
    text = str(swedish)
    if (get_language() or "sv").startswith("sv"):
        return text
    return OTHER_SYSTEMS_ENGLISH.get(text, text)


WORDS = {
    "alertness_bonus": _("SIN bonus (round 1)"),
    "cp_bonus": _("KP bonus"),
    "range": _("range malus"),
    "attacker_down": _("attacker sitting or lying"),
    "one_hand_two_handed": _("two-handed weapon in one hand"),
    "firing_in_melee": _("firing in melee"),
    "hard_to_locate": _("hard to locate"),
    "situation": _("situation"),
    "margin": _("margin"),
    "dice_again": _("dice again"),
    "weapon": _("weapon"),
    "physique": "FYS",
    "talk": _("talks"),
    "scan": _("scans"),
    "draw": _("draws"),
    "ready": _("readies"),
    "stow": _("stows"),
    "drop": _("drops"),
    "switch": _("switches hands"),
    "pick_up": _("picks up"),
    "move": _("move"),
    "attack": _("attack"),
    "posture": _("posture"),
    "windup": _("windup"),
    "reload": _("reload"),
    "range_aim": _("distance aim"),
    "abort_windup": _("abort windup"),
    "other_action": _("another action"),
    "overwatch": _("overwatch"),
    "extended": _("extended activity"),
    "miss": _("miss"),
    "hidden_area": _("the area is hidden: miss"),
    "hit": _("hit"),
    # The chronicle (p. 13-14): what a character does, and the healing tables.
    "rest": _("resting"),
    "active": _("active"),
    "cared": _("cared for"),
    "squalid": _("squalid (a prison cell, a bucket in the corner)"),
    "outdoors": _("open country"),
    "clean": _("clean (a bed of green leaves, a dry and clean place)"),
    "hospital": _("good (a hospital ward)"),
    "none": _("none (exhausting, little or no sleep)"),
    "normal": _("normal (the wounds ignored)"),
    "moving": _("lying on a moving animal or vehicle"),
    "thorough": _("thorough"),
    "stone_age": _("none, or stone-age care"),
    "basic": _("medieval court physicians, or a lone modern nurse without equipment"),
    "professional": _("professional and modern (a hospital)"),
    "immediate": _("immediate help"),
    "no_equipment": _("no equipment"),
    "modern_bandage": _("modern bandages"),
    "coagulant": _("coagulant"),
    "tight": _("dangerously tight bandage"),
    "lasting_shock": _("3+: a degree of nervchock lasts"),
    "unstable": _("5+: unstable"),
    "awake_tests": _("7+: VIL against unconsciousness every 5 minutes"),
    "organ_trauma": "Organtrauma",
    # Psyktrauma (p. 15): where a gain came from, the disorders, and how it fades.
    "event": _("a shocking event"),
    "training": _("12+ hours of training a day (p. 3)"),
    "other": _("other"),
    "temporary": _("temporary disorder (−1)"),
    "lasting": _("lasting disorder (−10)"),
    "diagnosable": _("diagnosable disorder (−20)"),
    "no_recovery": _("not at all (strain)"),
    "ordinary": _("ordinary life: 1 a half year"),
    "best": _("at best: VIL a month (talk, change of scene, rest)"),
}


@register.filter
def term(key):
    """The word for a code name: a game term, a property's abbreviation, or a translation."""
    if key is None:
        return _("no area")
    key = str(key)
    if key in GAME_TERMS:
        return game_term(key)
    if key in TERMS:
        return short_label(key)
    return WORDS.get(key, key)


@register.filter
def time_text(iso):
    """A chronicle's time ("2026-01-09T22:05") as the page's language writes it: the
    weekday, the language's own DATE_FORMAT and the clock on 24 hours ("fre 9 januari
    2026 22:05", "Fri Jan. 9, 2026 22:05"; issue 26: not "fre 9 Jan 2026")."""
    try:
        moment = datetime.fromisoformat(str(iso))
    except ValueError:
        return iso
    return " ".join(date_format(moment, part) for part in ("D", "DATE_FORMAT", "H:i"))


@register.filter
def pips(count):
    """KP as pips: ●●●○ is not known here, so just filled ones."""
    try:
        return "●" * max(0, min(int(count), 40))
    except (TypeError, ValueError):
        return ""


@register.filter
def field_value(values, name):
    """What a refused form held in its field `name` (combat.views.typed_values: a dict, or
    nothing when no form was refused), for fields whose names are made in the template."""
    if not isinstance(values, dict):
        return ""
    value = values.get(str(name))
    return "" if value is None else value


@register.filter
def weapon_name(key, names):
    return names.get(key, key) if isinstance(names, dict) else key


def localized(params: dict) -> dict:
    """A refusal's params with game keys (areas, postures, limb states) in the game's
    words."""
    out = {}
    for key, value in params.items():
        if isinstance(value, str) and value in GAME_TERMS:
            value = game_term(value)
        elif isinstance(value, list | tuple) and all(isinstance(v, str) for v in value):
            value = ", ".join(str(term(v)) for v in value)
        out[key] = value
    return out


def refusal(template_: str, params: dict, english: str) -> str:
    """A refusal in the page's language: the engine's template translated, then filled;
    the English text when there is no template or the translation does not fit."""
    if not template_:
        return english
    try:
        return gettext(template_).format(**localized(params))
    except (KeyError, IndexError, ValueError, AttributeError):
        return english


def translated(error) -> str:
    """A RulesError from the engine, for the page."""
    return refusal(getattr(error, "template", ""), getattr(error, "params", {}), str(error))


@register.filter
def reason(data):
    """Why an action or a preview is refused (a dict with why, why_template, why_params)."""
    if not isinstance(data, dict):
        return ""
    return refusal(data.get("why_template", ""), data.get("why_params", {}), data.get("why", ""))


ACTION_LABELS = {
    "scan": _("Scan"),
    "talk": _("Talk (3 syllables)"),
    "draw": _("Draw"),
    "ready": _("Ready"),
    "stow": _("Stow"),
    "windup": _("Wind up"),
    "reload": _("Reload"),
    "reload_for": _("Feed the belt"),
    "continue": _("Continue"),
}


@register.filter
def action_label(key):
    """An action button's label (the log says what happened with other words)."""
    return ACTION_LABELS.get(key, term(key))


@register.filter
def split(text):
    """"a b c" -> ["a", "b", "c"]: short fixed lists in templates."""
    return str(text).split()


@register.filter
def action_text(action: dict) -> str:
    """An action button's label, in the page's language."""
    key = action["key"]
    if key == "posture":
        return term(action["posture"])
    if key == "end_activation":
        return gettext("End activation")
    if action.get("weapon"):
        return f"{action_label(key)}: {action['weapon']}"
    if key == "continue":
        return f"{action_label(key)}: {term(action.get('label'))}"
    return action_label(key)
