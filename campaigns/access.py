"""Who may see and change what. Every view asks here; nothing else decides access.

- Non-members of a campaign see nothing of it: 404, as if it did not exist.
- A member who lacks the right (a player at a GM-only page) gets 403.
- A character is edited by its owner and by the GM of its campaign, and seen (its
  public sheet) by the other members of that campaign.
- A member brings only their own characters (anybody else's: 404).
- A request to bring a character is answered by the campaign's GM and withdrawn by the
  character's owner; other members get 403.
"""

import functools
from enum import IntEnum

from django.conf import settings
from django.contrib.auth import (
    BACKEND_SESSION_KEY,
    HASH_SESSION_KEY,
    SESSION_KEY,
    get_user_model,
    load_backend,
)
from django.contrib.auth.backends import ModelBackend
from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import connection
from django.http import Http404
from django.shortcuts import get_object_or_404
from django.utils.crypto import constant_time_compare

from campaigns.models import BringRequest, Campaign, Membership
from characters.models import Character


class Access(IntEnum):
    NONE = 0
    VIEW = 1  # the public sheet
    EDIT = 2  # owner: the build, equipment, advancement
    GM = 3  # the campaign's GM: everything, GM notes included


def membership_of(user, campaign: Campaign) -> Membership | None:
    if not user.is_authenticated:
        return None
    return Membership.objects.filter(campaign=campaign, user=user).first()


def get_campaign(request, pk: int, *, gm: bool = False) -> tuple[Campaign, Membership]:
    """The campaign and the user's membership; 404 for non-members, 403 if `gm` is needed."""
    campaign = get_object_or_404(Campaign, pk=pk)
    membership = membership_of(request.user, campaign)
    if membership is None:
        raise Http404
    if gm and not membership.is_gm:
        raise PermissionDenied
    return campaign, membership


def get_membership(request, pk: int, *, gm: bool = False) -> Membership | None:
    """The user's membership of campaign `pk`, its campaign and user loaded, for the live
    table, whose rolls must stay a few queries: the same rules as ``login_required`` with
    ``get_campaign``, but user, campaign and membership come in one query.

    None when nobody is logged in (the view sends them to log in); 404 for non-members;
    403 if `gm` is needed. The one query is used only when the session's user is verified
    exactly as ``django.contrib.auth.get_user`` would (the ModelBackend, an active user,
    the session's auth hash under the current SECRET_KEY); it sets ``request.user``. Any
    other case (no membership, a hash from a fallback key, another backend) goes the
    ordinary way, which also flushes a session that no longer verifies.
    """
    membership = _membership_from_session(request, pk)
    if membership is None:
        if not request.user.is_authenticated:
            return None
        campaign, membership = get_campaign(request, pk)
        membership.campaign, membership.user = campaign, request.user
    if gm and not membership.is_gm:
        raise PermissionDenied
    return membership


def member_view(view):
    """``login_required`` and ``get_campaign`` in one: the view gets the user's membership
    with its campaign and user, read in one query (``campaigns.access.get_membership``).
    The anonymous are sent to log in, non-members get 404."""

    @functools.wraps(view)
    def wrapper(request, pk: int, *args, **kwargs):
        membership = get_membership(request, pk)
        if membership is None:
            return redirect_to_login(request.get_full_path())
        return view(request, membership, *args, **kwargs)

    return wrapper


def _membership_from_session(request, pk: int) -> Membership | None:
    try:
        user_id = get_user_model()._meta.pk.to_python(request.session[SESSION_KEY])
        backend_path = request.session[BACKEND_SESSION_KEY]
        session_hash = request.session[HASH_SESSION_KEY]
    except (KeyError, ValidationError):
        return None
    if backend_path not in settings.AUTHENTICATION_BACKENDS:
        return None
    backend = load_backend(backend_path)
    if not isinstance(backend, ModelBackend) or type(backend).get_user is not ModelBackend.get_user:
        return None
    membership = membership_with_campaign_and_user(pk, user_id)
    if membership is None:
        return None
    user = membership.user
    if not backend.user_can_authenticate(user) or not (
        session_hash and constant_time_compare(session_hash, user.get_session_auth_hash())
    ):
        return None
    request.user = request._cached_user = user  # as AuthenticationMiddleware's get_user
    return membership


@functools.cache
def _membership_sql(vendor: str) -> tuple[str, list]:
    """The SQL of `membership_with_campaign_and_user`, built once from the models."""
    qn = connection.ops.quote_name
    parts, columns = [], []
    for alias, model in (("m", Membership), ("c", Campaign), ("u", get_user_model())):
        fields = model._meta.concrete_fields
        columns += [f"{alias}.{qn(field.column)}" for field in fields]
        # What the ORM would do to each value read (a JSON column's text parsed, SQLite's
        # dates and booleans), per field: (position, converters, column).
        converters = []
        for index, field in enumerate(fields):
            col = field.get_col(model._meta.db_table)
            found = connection.ops.get_db_converters(col) + col.get_db_converters(connection)
            if found:
                converters.append((index, found, col))
        parts.append((model, [field.attname for field in fields], converters))
    sql = (
        f"SELECT {', '.join(columns)} FROM {qn(Membership._meta.db_table)} m "
        f"JOIN {qn(Campaign._meta.db_table)} c ON c.id = m.campaign_id "
        f"JOIN {qn(get_user_model()._meta.db_table)} u ON u.id = m.user_id "
        "WHERE m.campaign_id = %s AND m.user_id = %s"
    )
    return sql, parts


def membership_with_campaign_and_user(campaign_id: int, user_id: int) -> Membership | None:
    """The membership with its campaign and user in one query: the ORM's select_related
    spent about a millisecond building this SQL on every roll; it is built once here."""
    sql, parts = _membership_sql(connection.vendor)
    with connection.cursor() as cursor:
        cursor.execute(sql, [campaign_id, user_id])
        row = cursor.fetchone()
    if row is None:
        return None
    instances, start = [], 0
    for model, names, converters in parts:
        values = list(row[start : start + len(names)])
        start += len(names)
        for index, found, col in converters:
            for convert in found:
                values[index] = convert(values[index], col, connection)
        instances.append(model.from_db(connection.alias, names, values))
    membership, campaign, user = instances
    membership.campaign, membership.user = campaign, user
    return membership


def character_access(user, character: Character) -> Access:
    if not user.is_authenticated:
        return Access.NONE
    campaign = character.campaign
    if campaign is not None and campaign.gm_id == user.pk:
        return Access.GM
    if character.owner_id == user.pk:
        return Access.EDIT
    if campaign is not None and Membership.objects.filter(campaign=campaign, user=user).exists():
        return Access.VIEW
    return Access.NONE


def get_character(request, pk: int, need: Access) -> tuple[Character, Access]:
    """The character if the user has at least `need`: 404 when they may not even see it,
    403 when they may see it but not do this."""
    character = get_object_or_404(Character.objects.select_related("campaign"), pk=pk)
    access = character_access(request.user, character)
    if access == Access.NONE:
        raise Http404
    if access < need:
        raise PermissionDenied
    return character, access


def get_own_character(request, pk: int) -> Character:
    """One of the user's own characters (to bring into a campaign); 404 for anybody else's."""
    return get_object_or_404(request.user.characters, pk=pk)


def get_bring_request(
    request, pk: int, request_pk: int, *, answer: bool
) -> tuple[Campaign, Membership, BringRequest]:
    """A request to bring a character into campaign `pk`: 404 for non-members (and a
    request of another campaign); with `answer` only the GM may go on, without it only
    the character's owner (to withdraw it); others get 403."""
    campaign, membership = get_campaign(request, pk, gm=answer)
    bring_request = get_object_or_404(
        BringRequest.objects.select_related("character"), pk=request_pk, campaign=campaign
    )
    if not answer and bring_request.character.owner_id != request.user.pk:
        raise PermissionDenied
    return campaign, membership, bring_request
