import sys
from urllib.parse import urlsplit

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth import views as auth_views
from django.http import HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.template.loader import render_to_string
from django.templatetags.static import static
from django.urls import Resolver404, resolve
from django.utils import translation
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import get_language, gettext, gettext_lazy
from django.views.decorators.http import require_GET

from core import outage, throttle
from core.forms import LoginForm, SignupForm
from core.params import ParamError


def home(request):
    """Where a logged-in player starts (and lands after logging in): the table of their one
    campaign, their campaigns if they have several, else their characters."""
    if request.user.is_authenticated:
        from campaigns.models import Membership

        memberships = Membership.objects.filter(user=request.user)
        campaigns = list(memberships.values_list("campaign_id", flat=True)[:2])
        if len(campaigns) == 1:
            return redirect("table:page", pk=campaigns[0])
        return redirect("campaigns:list" if campaigns else "characters:list")
    return render(request, "core/home.html")


@require_GET
def healthz(request):
    return HttpResponse("ok", content_type="text/plain")


@require_GET
def manifest(request):
    """The web app manifest: "Add to home screen" opens the site full screen, with its
    icon, like an app. Built here, not a static file, so the icons' URLs are the hashed
    static ones and the name follows the language."""
    icons = [
        {"src": static("icons/icon-192.png"), "sizes": "192x192", "type": "image/png"},
        {"src": static("icons/icon-512.png"), "sizes": "512x512", "type": "image/png"},
        {
            "src": static("icons/maskable-512.png"),
            "sizes": "512x512",
            "type": "image/png",
            "purpose": "maskable",
        },
        {"src": static("favicon.svg"), "sizes": "any", "type": "image/svg+xml"},
    ]
    data = {
        "name": "Aoristos Table",
        "short_name": "Aoristos",
        "description": gettext("Aoristos around a real table: characters, campaigns, live rolls."),
        "lang": get_language(),
        "start_url": "/",
        "scope": "/",
        "display": "standalone",
        "background_color": "#fbf8f2",
        "theme_color": "#1f1b16",
        "icons": icons,
    }
    return JsonResponse(data, content_type="application/manifest+json")


SERVICE_WORKER = """\
// Aoristos Table's service worker (issue 47; core/views.py), its scope the characters'
// pages alone (site.js registers it there): the table's and the fights' pages, whose
// live streams must not wait for it, are not its. It keeps the reader's own character
// sheets (the pages the server marks X-Own-Sheet) and the static files they need, and
// answers them from its cache when the network is gone: the sheet stays readable
// offline, and says so
// (site.js). Everything else goes to the network as if it were not here. Logging out
// empties the cache (site.js).
const CACHE = "aoristos-sheets-v1";
const SHEET = /^\\/characters\\/[0-9]+\\/$/;
self.addEventListener("install", () => self.skipWaiting());
self.addEventListener("activate", (event) => event.waitUntil(self.clients.claim()));
self.addEventListener("fetch", (event) => {
  const request = event.request;
  const url = new URL(request.url);
  if (request.method !== "GET" || url.origin !== self.location.origin) return;
  const sheet = request.mode === "navigate" && SHEET.test(url.pathname) && !url.search;
  if (!sheet && !url.pathname.startsWith("/static/")) return;
  event.respondWith((async () => {
    const cache = await caches.open(CACHE);
    try {
      const response = await fetch(request);
      if (response.ok && (!sheet || response.headers.get("X-Own-Sheet") === "1")) {
        await cache.put(request, response.clone());
      }
      return response;
    } catch (error) {
      const kept = await cache.match(request);
      if (kept) return kept;
      throw error;
    }
  })());
});
"""


@require_GET
def service_worker(request):
    """The service worker (issue 47), at /sw.js, for the characters' pages: only a secure
    context (HTTPS, localhost) registers it, so on plain HTTP it is never asked for."""
    response = HttpResponse(SERVICE_WORKER, content_type="text/javascript; charset=utf-8")
    response["Cache-Control"] = "no-cache"
    response["Service-Worker-Allowed"] = "/"
    return response


@require_GET
def favicon(request):
    """Browsers and tools that ask for /favicon.ico without reading the page get the icon."""
    return redirect(static("favicon.svg"), permanent=True)


class LoginView(auth_views.LoginView):
    """Django's login page with the login throttle: 429 while it refuses attempts."""

    form_class = LoginForm

    def form_valid(self, form):
        throttle.clear(throttle.LOGIN_PER_USERNAME, throttle.username_key(form.get_user().username))
        return super().form_valid(form)

    def form_invalid(self, form):
        response = super().form_invalid(form)
        if form.retry_after:
            response.status_code = 429
            response["Retry-After"] = str(form.retry_after)
        return response


def safe_next(request) -> str:
    """Where to go after signing up: ?next= (e.g. an invitation link) if it is our own."""
    target = request.POST.get("next") or request.GET.get("next") or ""
    # A path on this site; "1" or "home" would be taken for a URL name by redirect().
    allowed = target.startswith("/") and url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    )
    return target if allowed else ""


def invited_to(next_url: str):
    """The campaign whose invitation link `next_url` is (a path of this site), else None."""
    if not next_url:
        return None
    try:
        match = resolve(urlsplit(next_url).path)
    except Resolver404:
        return None
    if match.view_name != "campaigns:join":
        return None
    from campaigns.models import Campaign

    return Campaign.objects.filter(invite_token=match.kwargs["token"]).first()


def signup(request):
    next_url = safe_next(request)
    if request.user.is_authenticated:
        return redirect(next_url or "characters:list")
    form = SignupForm(request.POST or None)
    invited = invited_to(next_url)
    if request.method == "POST" and form.is_valid():
        user = form.save()
        login(request, user)
        if invited is not None:
            # Signing up from an invitation is the answer to it (issue 43): the player
            # lands in the campaign, not on its "join?" page a second time.
            from campaigns.services import campaign_join

            campaign_join(campaign=invited, user=user)
            messages.success(request, gettext("Welcome to %(name)s!") % {"name": invited.name})
            return redirect(invited)
        return redirect(next_url or "characters:list")
    status = 400 if form.is_bound else 200
    context = {"form": form, "next": next_url, "invited": invited}
    return render(request, "registration/signup.html", context, status=status)


def bad_request(request, exception=None):
    """400: malformed input. Our own ParamError says which parameter; other causes (a
    broken form body, a disallowed host) keep their details out of the page."""
    detail = str(exception) if isinstance(exception, ParamError) else ""
    if request.path.startswith("/api/"):
        return JsonResponse({"error": detail or "bad request"}, status=400)
    return render(request, "400.html", {"detail": detail}, status=400)


def forbidden(request, exception=None):
    if request.path.startswith("/api/"):
        return HttpResponse('{"error": "forbidden"}', status=403, content_type="application/json")
    return render(request, "403.html", status=403)


def not_found(request, exception=None):
    if request.path.startswith("/api/"):
        return HttpResponse('{"error": "not found"}', status=404, content_type="application/json")
    return render(request, "404.html", status=404)


def server_error(request):
    """500, or 503 when the error shows the database or Redis away. Errors raised in a
    view reach `core.middleware.OutageMiddleware` first; this catches those raised in
    another middleware (a session saved on the way out), which Django turns into a 500
    before any outer middleware sees them."""
    error = sys.exc_info()[1]
    away = outage.note(error)
    if away is not None:
        return unavailable(request, away)
    if request.path.startswith("/api/"):
        return HttpResponse(
            '{"error": "internal error"}', status=500, content_type="application/json"
        )
    return render(request, "500.html", status=500)


UNAVAILABLE_MESSAGES = {
    outage.database.name: gettext_lazy(
        "The server cannot reach its database right now. Try again in a few seconds."
    ),
    outage.redis.name: gettext_lazy(
        "The server cannot reach its cache right now. Try again in a few seconds."
    ),
}


def wants_json(request) -> bool:
    """The JSON API, or a client that prefers JSON to HTML."""
    if request.path.startswith("/api/"):
        return True
    preferred = request.get_preferred_type(["text/html", "application/json"])
    return preferred == "application/json"


def unavailable(request, away: outage.Outage) -> HttpResponse:
    """503 while the database or Redis is away: Retry-After and a short message. JSON for
    the API (in English, like its other errors), a page for a browser, the message alone
    for htmx (it swaps error answers into its target). Rendered without the request's
    context processors, which may need the database."""
    # core.logging drops Django's own "Service Unavailable: /path" line for this answer:
    # the outage is logged once by core.outage, not once per request.
    request.outage_answer = away.name
    seconds = outage.RETRY_AFTER_SECONDS
    if wants_json(request):
        text = f"{away.name} unavailable; try again in {seconds} s"
        response = JsonResponse({"error": text}, status=503)
    else:
        language = getattr(request, "LANGUAGE_CODE", "") or settings.LANGUAGE_CODE
        context = {
            "message": UNAVAILABLE_MESSAGES[away.name],
            "retry_after": seconds,
            # A page asked for with GET reloads itself; a form's POST is not sent again.
            "refresh": request.method == "GET",
        }
        htmx = request.headers.get("HX-Request") == "true"
        with translation.override(language):
            html = render_to_string("503.html#message" if htmx else "503.html", context)
        response = HttpResponse(html, status=503)
        response["Content-Language"] = language
    response["Retry-After"] = str(seconds)
    response["Cache-Control"] = "no-store"
    return response
