"""Encounter pages: the list, the encounter itself (state, prompts, actions, GM controls),
commands from forms, and the attack preview. Every view checks the member's right on the
server; the engine decides what is legal. What these views share with the simulation's
and the API's (the member's encounter, a form read as a command, the simulation section)
is combat.pages.
"""

import contextlib
import math
from functools import cache

from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, JsonResponse
from django.middleware.csrf import get_token
from django.shortcuts import redirect, render
from django.template import TemplateDoesNotExist
from django.template.loader import get_template
from django.urls import reverse
from django.utils import timezone
from django.utils.html import format_html, format_html_join
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from campaign_log.reading import events_page
from campaigns import scoped
from campaigns.access import get_campaign
from combat import battle_map, fight_story, fog, running, services
from combat.forms import EncounterForm, MapPictureForm
from combat.models import Encounter, MapPicture, NpcTemplate
from combat.pages import (
    LIST_FIELDS,
    SKIP,
    command_from_post,
    encounter_for,
    member_view,
    previews_for,
    section_context,
)
from combat.templatetags.aoristos_combat import refusal, translated
from core.params import strict_int
from rules import scene
from rules.engine import engine_for
from rules.errors import RulesError

UNDO_CHOICES = 12


def form_attributes(url: str) -> str:
    """A panel form's attributes: it posts to `url` and htmx swaps the panel with the answer."""
    return format_html(
        'method="post" action="{}" hx-post="{}" hx-target="#encounter-state" hx-swap="outerHTML"',
        url,
        url,
    )


@cache
def has_template(engine, name: str) -> bool:
    """Whether the engine's system has its own template `name`."""
    try:
        get_template(f"{engine.template}/{name}")
    except TemplateDoesNotExist:
        return False
    return True


def engine_template(engine, name: str) -> str:
    """The engine's own template `name` ("_place.html", "_preview.html"); 404 when its
    system has none, for the page it renders does not exist there (T10 and Phobia place
    nobody on a map; the chronicle has no attacks to preview)."""
    if not has_template(engine, name):
        raise Http404
    return f"{engine.template}/{name}"


def typed_values(post, form: str) -> dict:
    """What a refused panel form held, under the form's name, for the panel to show it
    again: {"add_block": {"name": "Hund", "weapons": ["knife"], ...}} for an NPC's stat
    block (the add forms are "add_" and their source), {"advance": {"amount": "999999",
    ...}} for a command's form (its type)."""
    values = {key: post.getlist(key) if key in LIST_FIELDS else post.get(key)
              for key in post if key not in SKIP}
    return {form: values}


def page_context(request, encounter, membership, result=None, **extra) -> dict:
    """The encounter as `membership` sees it; `result` is the state just made by a command
    (else the stored version's, from this process's cache or the log)."""
    engine = services.engine_of(encounter)
    if result is None:
        result = services.folded(encounter, engine)
    viewer = services.viewer_for(encounter, membership)
    state = engine.view(result.state, viewer, services.stat_names(engine, encounter.campaign))
    for prompt in state.get("prompts", ()):  # the page calls only the one it is for
        prompt["calls"] = running.calls(prompt, viewer, encounter)
    for action in state.get("actions", ()):
        # An action button's command as hidden fields, built once here: the grid has a
        # dozen buttons and the panel is answered after every command.
        action["fields"] = format_html_join(
            "", '<input type="hidden" name="{}" value="{}">', action["command"].items()
        )
    command_url = reverse("combat:command", args=[encounter.pk])
    # Who cannot attack, in a system that attacks only with weapons (issue 43): the page
    # says so and shows the GM where it is fixed.
    # A player hears only of their own (an NPC's gear is the GM's to know).
    mine = None if membership.is_gm else encounter.controls(membership.user_id)
    weaponless = [c.name for c in getattr(result.state, "combatants", ())
                  if engine.unarmed and not c.weapons and (mine is None or c.id in mine)]
    context = {
        "weaponless": weaponless,
        "encounter": encounter,
        "campaign": encounter.campaign,
        "membership": membership,
        "is_gm": membership.is_gm,
        "state": state,
        "state_template": f"{engine.template}/_state.html",
        "can_undo": result.can_undo,
        "can_redo": result.can_redo,
        # The GM's undo menu names the latest moves (the API goes back to any version).
        **(services.undo_menu(encounter, engine, result, UNDO_CHOICES)
           if membership.is_gm else {}),
        # The panel's dozens of forms post without JavaScript too: each opens with the same
        # attributes and hidden fields, built once per page here, not once per form.
        "command_form": form_attributes(command_url),
        "add_form": form_attributes(reverse("combat:add", args=[encounter.pk])),
        "form_head": format_html(
            '<input type="hidden" name="csrfmiddlewaretoken" value="{}">'
            '<input type="hidden" name="version" value="{}">',
            get_token(request),
            encounter.version,
        ),
        "preview_url": reverse("combat:preview", args=[encounter.pk]),
        "prompt_left": prompt_left(encounter) if state.get("prompts") else None,
        "map": battle_map.map_data(
            engine, state, result.state, viewer,
            lambda key: reverse("combat:map_picture", args=[encounter.pk, key])),
        "map_preview_url": reverse("combat:move_preview", args=[encounter.pk]),
        **extra,
    }
    # The forms that add combatants: while a fight is set up, or (T10) at any time; in a
    # started Aoristos fight on demand (`add_forms`), unless a refused add is shown again.
    newcomers = membership.is_gm and state.get("takes_newcomers", not state.get("started", True))
    typed = context.get("typed") or {}
    on_demand = (
        state.get("started")
        and not extra.get("add_forms")
        and not any(key.startswith("add_") for key in typed)
        and has_template(engine, "_add_forms.html")
    )
    if newcomers and not on_demand:
        items = services.catalogue(encounter.campaign_id, engine)
        context["weapons"] = sorted(items.get("weapon", {}).values(), key=lambda w: w.name)
        context["armour"] = sorted(items.get("armour", {}).values(), key=lambda a: a.name)
        context["characters"] = list(encounter.campaign.characters.order_by("name"))
        context["templates"] = list(NpcTemplate.objects.filter(campaign=encounter.campaign))
    if encounter.kind == Encounter.Kind.COMBAT:  # how dangerous is it (issue 29)
        context |= section_context(encounter, membership)
        if encounter.ended:  # the story in numbers, for everyone (issue 29)
            context["story"] = fight_story.told_to(fight_story.story_of(encounter), membership)
    if membership.is_gm and encounter.kind == Encounter.Kind.CHRONICLE:
        # First aid names its helpers, with their Livräddning from the sheet (issue 26).
        context["aid_helpers"] = [
            {"pk": c.pk, "name": c.name, "level": c.levels().get("first_aid", 0)}
            for c in encounter.campaign.characters.with_levels().order_by("name", "pk")
        ]
    return context


def prompt_left(encounter) -> int:
    """Seconds until a prompt's offered default may be taken: PROMPT_TIMEOUT from the
    record that opened it, as the server checks it (services.check_actor), so the page's
    countdown goes on where it was after a reload or a new panel (issue 26)."""
    opened = running.stored_at(encounter)
    if opened is None:
        return int(services.PROMPT_TIMEOUT.total_seconds())
    waited = (timezone.now() - opened).total_seconds()
    return max(0, math.ceil(services.PROMPT_TIMEOUT.total_seconds() - waited))


@login_required
def encounter_list(request, pk: int):
    campaign, membership = get_campaign(request, pk)
    try:
        engine = engine_for(campaign.rule_system)
    except RulesError:
        raise Http404 from None
    form = EncounterForm(request.POST or None, house_rules=engine.house_rules(),
                        campaign=campaign)
    if request.method == "POST":
        if not membership.is_gm:
            raise PermissionDenied
        if form.is_valid():
            try:
                encounter = services.encounter_create(
                    campaign=campaign,
                    name=form.cleaned_data["name"],
                    house_rules=form.house_rules(),
                )
            except RulesError as error:
                form.add_error(None, str(error))
            else:
                return redirect(encounter)
    encounters = list(campaign.encounters.filter(kind=Encounter.Kind.COMBAT))
    for encounter in encounters:  # not started, on or over (issue 26.9)
        encounter.progress = running.progress(encounter, membership)
    status = 400 if form.is_bound else 200
    return render(
        request,
        "combat/list.html",
        {"campaign": campaign, "membership": membership, "encounters": encounters, "form": form},
        status=status,
    )


def whole_page(request, encounter, membership, *, status: int = 200, result=None, **extra):
    """The encounter's whole page: its log, its panel and the stream that follows both.

    The log is read first (one snapshot), then the encounter's row again; the stream opens
    after the log's newest event. So every record the log shows is in the panel, and every
    record stored after the log's snapshot comes through the stream: the page misses none,
    however the reads interleave with a command. (Issue 41: the row read before the
    campaign's last number let a record stored between the two be in neither: a player who
    opened the fight as the GM started it saw it unstarted until the next record.)"""
    events, older = events_page(encounter.campaign_id, before=None, is_gm=membership.is_gm)
    newest = services.encounter_row(encounter.pk)
    if newest is not None and newest.version != encounter.version:
        newest.campaign, encounter, result = encounter.campaign, newest, None
    context = page_context(request, encounter, membership, result, rolls=events, older=older,
                           last_seq=events[0]["seq"] if events else 0,
                           map_words=battle_map.words(),
                           picture_form=MapPictureForm(auto_id=False), **extra)
    return render(request, "combat/encounter.html", context, status=status)


@member_view
def encounter_page(request, pk: int):
    encounter, membership = encounter_for(request, pk)
    return whole_page(request, encounter, membership)


@login_required
def chronicle_page(request, pk: int):
    """The campaign's chronicle: its clock and every character's body after the fights
    (an encounter of kind "chronicle", made on first use). Opened by the GM, it gives
    each character of the campaign a body first."""
    campaign, membership = get_campaign(request, pk)
    try:
        chronicle = services.chronicle_for(campaign)
    except RulesError:
        raise Http404 from None
    if membership.is_gm:
        with contextlib.suppress(services.Stale):  # another tab of the GM's did it
            services.chronicle_sync(chronicle, membership)
    return encounter_page(request, chronicle.pk)


@member_view
@require_GET
def encounter_state(request, pk: int):
    encounter, membership = encounter_for(request, pk)
    context = page_context(request, encounter, membership)
    return render(request, "combat/encounter.html#state", context)


def answer(request, encounter, membership, *, error: str = "", status: int = 200, result=None,
           typed: dict | None = None):
    """The panel after a command: htmx swaps it in; without JavaScript a done command goes
    back to the page, a refused one gets the page with the reason. A refused form keeps
    what was typed in it (`typed`, see `typed_values`)."""
    if request.htmx:
        context = page_context(request, encounter, membership, result, error=error,
                               typed=typed or {})
        return render(request, "combat/encounter.html#state", context, status=status)
    if error:
        return whole_page(request, encounter, membership, status=status, result=result,
                          error=error, typed=typed or {})
    return redirect(encounter)


@member_view
@require_POST
def encounter_command(request, pk: int):
    encounter, membership = encounter_for(request, pk)
    version = strict_int(request.POST.get("version"), name="version")
    if version is None:
        stale_page = _("This page is out of date: reload it.")
        return answer(request, encounter, membership, error=stale_page, status=400)
    try:
        data = first_aid_helpers(encounter, command_from_post(request.POST))
        encounter, _record, after = services.command_run(
            encounter=encounter, membership=membership, data=data, version=version
        )
    except services.Stale:
        encounter.refresh_from_db()
        return answer(request, encounter, membership, status=409,
                      error=_("The situation changed: here is how it stands now."),
                      typed=typed_values(request.POST, str(request.POST.get("type", ""))))
    except services.NotYours:
        raise PermissionDenied from None
    except RulesError as error:
        return answer(request, encounter, membership, error=translated(error), status=400,
                      typed=typed_values(request.POST, str(request.POST.get("type", ""))))
    return answer(request, encounter, membership, result=after)


def first_aid_helpers(encounter, data: dict) -> dict:
    """First aid's helpers as the chronicle's form names them (issue 26): each one a
    character of the campaign, whose Livräddning is read from its sheet, or "other" with
    the level typed (an NPC). The command still takes the levels; a form or client that
    sends ``levels`` itself is left as it is."""
    if data.get("type") != "first_aid" or "helper_1" not in data:
        return data
    levels, chosen = [], []
    for n in (1, 2):
        helper, level = data.pop(f"helper_{n}", None), data.pop(f"level_{n}", None)
        if helper is None:
            continue
        if helper == "other":
            if level is None:
                raise RulesError(_("Give the Livräddning of the helper without a sheet."))
            levels.append(level)  # the command checks it is a whole number from 0 to 30
            continue
        character = None
        if isinstance(helper, int) and not isinstance(helper, bool):
            character = encounter.campaign.characters.with_levels().filter(pk=helper).first()
        if character is None or character.pk in chosen:
            raise RulesError(_("Choose each helper among the campaign's characters once."))
        chosen.append(character.pk)
        levels.append(character.levels()["first_aid"])
    data["levels"] = levels
    return data


@member_view
@require_GET
def place_forms(request, pk: int):
    """The GM's forms that place each combatant (opened on demand)."""
    encounter, membership = encounter_for(request, pk, gm=True)
    template = engine_template(services.engine_of(encounter), "_place.html")
    context = page_context(request, encounter, membership)
    return render(request, template, context)


@member_view
@require_GET
def add_forms(request, pk: int):
    """The GM's forms that add a combatant to a started fight (opened on demand: they
    are not rendered with every answer of the panel)."""
    encounter, membership = encounter_for(request, pk, gm=True)
    template = engine_template(services.engine_of(encounter), "_add_forms.html")
    context = page_context(request, encounter, membership, add_forms=True)
    if "weapons" not in context:  # the fight has ended, or takes nobody
        raise Http404
    return render(request, template, context)


@member_view
@require_POST
def add_combatant(request, pk: int):
    """The GM adds a campaign character, a saved NPC template or a quick stat block."""
    encounter, membership = encounter_for(request, pk, gm=True)
    if encounter.kind != Encounter.Kind.COMBAT:
        # Its bodies are the campaign's characters (services.chronicle_sync): no NPCs,
        # no stat blocks, no templates.
        return answer(request, encounter, membership, status=400,
                      error=_("The chronicle takes no combatants: its bodies are the "
                              "campaign's characters."))
    version = strict_int(request.POST.get("version"), name="version")
    engine = services.engine_of(encounter)
    controller = None
    try:
        extra = command_from_post(request.POST)
        source = extra.pop("source", "")
        for key in ("character", "template", "save_template"):
            extra.pop(key, None)
        if source == "character":
            character_id = strict_int(request.POST.get("character"), name="character")
            character = scoped.character(encounter.campaign_id, character_id,
                                         system=encounter.system)
            levels, derived = character.combat_stats(encounter.campaign.house_rules)
            block = engine.character_block(name=character.name, levels=levels, derived=derived)
            block["character_id"] = character.pk
            # Its wounds from the last fight go on here (an engine that keeps them).
            body = services.last_body(encounter, engine, character.pk)
            if body:
                block["carried"] = body
            # What the character carries from the catalogue comes along (its sheet).
            items = services.catalogue(encounter.campaign_id, engine)
            weapons, armour = services.character_gear(character, items)
            put_on = extra.get("armour", [])  # armour the GM chose on top of the sheet's
            extra["weapons"] = list(dict.fromkeys([*weapons, *extra.get("weapons", [])]))
            extra["armour"] = list(dict.fromkeys([*armour, *put_on]))
            unpacked = [key for key in weapons if key not in extra.get("packed", [])]
            if "right" not in extra and unpacked:
                extra["right"] = unpacked[0]  # the first not packed away (p. 7)
            controller = character.owner_id
        elif source == "template":
            template_id = strict_int(request.POST.get("template"), name="template")
            template = scoped.one(NpcTemplate.objects.filter(campaign_id=encounter.campaign_id),
                                  template_id, "template")
            block = dict(template.block)
        else:
            block = {"type": "add_combatant", "npc": True}
        skills = {k.removeprefix("skill_"): extra.pop(k) for k in list(extra)
                  if k.startswith("skill_")}
        if skills:
            block["skills"] = {**block.get("skills", {}), **skills}
        block.update({k: v for k, v in extra.items() if k != "type"})
        block["type"] = "add_combatant"
        armed = block.get("weapons") or any(
            value for key, value in block.items() if key.startswith("weapon_"))  # inline
        if engine.unarmed and not armed:
            # Nothing chosen to attack with: its fists, where the system attacks only with
            # weapons (issue 43: a new campaign's characters could not attack at all).
            catalogue = items if source == "character" else services.catalogue(
                encounter.campaign_id, engine)  # the character's gear read it already
            offered = catalogue.get("weapon", {})
            if engine.unarmed in offered:
                block["weapons"] = [engine.unarmed]
        if source == "block" and request.POST.get("save_template"):
            saved = {k: v for k, v in block.items() if k not in ("x", "y")}
            engine.parse_command(saved, **catalogue_kwargs(encounter, engine))
            NpcTemplate.objects.create(campaign=encounter.campaign, name=block.get("name", ""),
                                       block=saved)
        services.command_run(encounter=encounter, membership=membership, data=block,
                             version=version if version is not None else -1,
                             controller=controller)
        if source == "character" and put_on:
            # Armour put on for the fight is the character's: it goes on the sheet too.
            services.character_armour_keep(
                character=character, keys=put_on, items=items)
    except services.Stale:
        encounter.refresh_from_db()
        return answer(request, encounter, membership, status=409,
                      error=_("The situation changed: here is how it stands now."),
                      typed=typed_values(request.POST, f"add_{request.POST.get('source', '')}"))
    except RulesError as error:
        encounter.refresh_from_db()
        return answer(request, encounter, membership, error=translated(error), status=400,
                      typed=typed_values(request.POST, f"add_{request.POST.get('source', '')}"))
    encounter.refresh_from_db()
    return answer(request, encounter, membership)


def catalogue_kwargs(encounter, engine) -> dict:
    items = services.catalogue(encounter.campaign_id, engine)
    return {"weapons": items.get("weapon"), "armour": items.get("armour")}


@member_view
@require_GET
def attack_preview(request, pk: int):
    """Before an attack: its cost, exact chance to hit and damage distribution."""
    encounter, membership = encounter_for(request, pk)
    engine = services.engine_of(encounter)
    template = engine_template(engine, "_preview.html")
    viewer = services.viewer_for(encounter, membership)
    # A member previews only the attacks of what they command, refused before the engine
    # is asked: its answer would tell what an NPC carries, draws and how far it stands.
    if not previews_for(viewer, request.GET.get("id")):
        raise PermissionDenied
    state = services.folded(encounter, engine).state
    try:
        # The attack form's own fields, read as a posted command is (each system's attack
        # has its own: Aoristos aim and shots, T10 distance and modifier).
        data = {**command_from_post(request.GET), "type": "attack"}
        command = engine.parse_command(data)
        scene.check_seen(state, command, viewer)  # a combatant in the fog is not there
        preview = engine.preview(state, command, viewer,
                                 services.stat_names(engine, encounter.campaign))
    except RulesError as error:
        preview = {"ok": False, "why": translated(error)}
    return render(request, template, {"preview": preview})


@member_view
@require_GET
def move_preview(request, pk: int):
    """A move's exact cost before it is made (the battle map's tap): JSON of the engine's
    preview, or 400 {"error": ...} for a point the query does not name well."""
    encounter, membership = encounter_for(request, pk)
    engine = services.engine_of(encounter)
    viewer = services.viewer_for(encounter, membership)
    combatant_id = request.GET.get("id")
    if not previews_for(viewer, combatant_id):
        raise PermissionDenied
    try:
        x, y = (float(request.GET.get(name, "")) for name in ("x", "y"))
    except ValueError:
        return JsonResponse({"error": _("x and y must be numbers of metres")}, status=400)
    if not all(math.isfinite(v) and abs(v) <= MAP_LIMIT for v in (x, y)):
        return JsonResponse({"error": _("x and y must be numbers of metres")}, status=400)
    state = services.folded(encounter, engine).state
    try:
        prone = request.GET.get("prone") in ("1", "true", "on")
        preview = battle_map.move_preview(
            engine, state, combatant_id, round(x, 2), round(y, 2), prone
        )
    except RulesError as error:
        return JsonResponse({"error": translated(error)}, status=400)
    refused = preview.get("refused")
    return JsonResponse({
        **preview,
        "refused": refusal(refused["message"], refused.get("params") or {},
                           filled(refused["message"], refused.get("params") or {}))
        if refused else None,
    })


MAP_LIMIT = 10_000  # metres from the origin a map point may name


@member_view
def map_picture_upload(request, pk: int):
    """The GM puts a picture under the battle map (issue 27): checked as an image
    (combat.forms.MapPictureForm), stored with the encounter, and set in the scene by the
    engine's set_picture command, so every open map gets it with that record. A refused
    upload answers the form again with what is wrong and the numbers typed."""
    encounter, membership = encounter_for(request, pk, gm=True)
    if encounter.system not in battle_map.MAP_SYSTEMS or encounter.kind != Encounter.Kind.COMBAT:
        raise Http404
    form = MapPictureForm(request.POST or None, request.FILES or None, auto_id=False)
    saved = False
    if request.method == "POST" and form.is_valid():
        image = form.cleaned_data["picture"]
        data = form.cleaned_data
        picture = MapPicture.objects.create(encounter=encounter, **image)
        command = {
            "type": "set_picture", "key": str(picture.pk), "width": data["width"],
            "aspect": round(image["height_px"] / image["width_px"], 4),
            "x": data["x"] or 0.0, "y": data["y"] or 0.0, "shown": bool(data["shown"]),
        }
        try:
            run_on_newest(encounter, membership, command)
        except RulesError as error:
            picture.delete()
            form.add_error(None, translated(error))
        else:
            if not request.htmx:
                return redirect(encounter)
            # The map itself follows the record, as on every other open page.
            form, saved = MapPictureForm(initial={"width": data["width"]}, auto_id=False), True
    status = 400 if request.method == "POST" and form.errors else 200
    template = "combat/_map_picture_form.html" if request.htmx else "combat/map_picture.html"
    return render(request, template, {"encounter": encounter, "campaign": encounter.campaign,
                                      "picture_form": form, "saved": saved}, status=status)


def run_on_newest(encounter, membership, command: dict):
    """Run a GM command that does not depend on the situation (the map's picture) on the
    newest version: a record that came between is no reason to refuse it."""
    for _attempt in range(3):
        try:
            return services.command_run(encounter=encounter, membership=membership,
                                        data=command, version=encounter.version)
        except services.Stale:
            encounter.refresh_from_db()
    raise RulesError(_("The situation changed: here is how it stands now."))


@member_view
@require_GET
def map_picture(request, pk: int, picture: int):
    """A picture under the map, to the members the scene shows it to (the GM always).
    Never changed once stored, so cached for good; under fog a player gets it with the
    hidden areas painted over (combat.fog), at the fog's own address."""
    encounter, membership = encounter_for(request, pk)
    return fog.picture_response(encounter, picture, membership.is_gm)


def filled(template_: str, params: dict) -> str:
    try:
        return template_.format(**params)
    except (KeyError, IndexError, ValueError):
        return template_
