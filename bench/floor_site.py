"""The site with one bench-only view: the floor of a roll POST (bench/roll_rate.py).

granian serves `floor_site:application` (bench/ on PYTHONPATH) exactly as it serves the
site: the same settings, middleware, ASGI router and page threads (`aoristos_site.asgi`),
with ROOT_URLCONF set to this module, which is the site's URLconf plus, first, the bench
view at /bench-floor/campaigns/<id>/roll/. That view does what every roll must, and
nothing else: a logged-in user (the session, as `login_required` reads it), a POST
that passed CSRF (the middleware, with the token as the tray's htmx POST sends it), the
campaign's membership (404 for non-members), and ONE INSERT of a RollEvent with the
campaign's next number (`campaign_log.numbering.insert_numbered`, the statement a roll makes,
idempotency key included) with fixed dice: no form, no rules, no payload, no broadcast,
no template; a 2-byte answer.

The membership is read as the roll reads it (`campaigns.access.get_membership`: user,
campaign and membership in one prepared query), so the floor is the cheapest way this
site knows to do the checks; `?plain=1` does them the ordinary Django way instead
(`request.user` through AuthenticationMiddleware, then the membership through the ORM),
for comparison.
"""

import os

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "aoristos_site.settings")

from django.conf import settings  # noqa: E402

settings.ROOT_URLCONF = __name__  # read per request: the site's URLs and the floor

from aoristos_site import asgi  # noqa: E402  (sets Django up)

application = asgi.application

from django.contrib.auth.views import redirect_to_login  # noqa: E402
from django.http import Http404, HttpResponse  # noqa: E402
from django.urls import path  # noqa: E402
from django.utils import timezone  # noqa: E402
from django.views.decorators.http import require_POST  # noqa: E402

from aoristos_site.urls import urlpatterns as site_patterns  # noqa: E402
from campaign_log.numbering import insert_numbered  # noqa: E402
from campaigns.access import get_membership  # noqa: E402
from campaigns.models import Membership  # noqa: E402
from core.db import idempotency  # noqa: E402
from table.models import RollEvent  # noqa: E402

# The columns a roll stores (table.services.INSERTED) and its idempotency index.
INSERTED = (
    *("campaign", "actor", "character", "kind", "label", "hand", "dice", "counted"),
    *("result", "test_base", "threshold", "secret", "detail", "created_at", "idempotency_key"),
)
CONFLICT = '("actor_id", "idempotency_key") WHERE "idempotency_key" IS NOT NULL'


@require_POST
def floor_roll(request, pk: int):
    if request.GET.get("plain"):
        if not request.user.is_authenticated:
            return redirect_to_login(request.get_full_path())
        if not Membership.objects.filter(campaign_id=pk, user_id=request.user.pk).exists():
            raise Http404
        campaign_id, actor_id = pk, request.user.pk
    else:
        membership = get_membership(request, pk)
        if membership is None:
            return redirect_to_login(request.get_full_path())
        campaign_id, actor_id = membership.campaign_id, membership.user_id
    event = RollEvent(
        campaign_id=campaign_id,
        actor_id=actor_id,
        kind=RollEvent.Kind.HAND,
        hand="1B",
        dice=[4],
        counted=[4],
        result=4,
        created_at=timezone.now(),
        idempotency_key=idempotency.key_from(request.POST),
    )
    insert_numbered(event, INSERTED, CONFLICT)
    return HttpResponse(b"ok", content_type="text/plain")


FLOOR_PATH = "bench-floor/campaigns/<int:pk>/roll/"
urlpatterns = [path(FLOOR_PATH, floor_roll, name="bench_floor_roll"), *site_patterns]

handler400 = "core.views.bad_request"
handler403 = "core.views.forbidden"
handler404 = "core.views.not_found"
handler500 = "core.views.server_error"
