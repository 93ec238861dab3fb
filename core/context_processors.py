"""What every full page's header needs."""

from django.urls import reverse


def table_link(request):
    """`my_table_url`: the table of the user's one campaign, for a header link (the table
    was three taps away). A callable, so the query runs only when a page's header asks
    for it, once per request; fragments (a roll's answer, the chance box) never do."""

    def url() -> str:
        if not hasattr(request, "_my_table_url"):
            request._my_table_url = ""
            user = getattr(request, "user", None)
            if user is not None and user.is_authenticated:
                from campaigns.models import Membership

                ids = Membership.objects.filter(user=user).values_list("campaign_id", flat=True)
                ids = list(ids[:2])
                if len(ids) == 1:
                    request._my_table_url = reverse("table:page", args=[ids[0]])
        return request._my_table_url

    return {"my_table_url": url}


def onward(request):
    """`onward`: where a logged-out visitor was going, for the header's log-in and sign-up
    links (issue 43: a player who took the header's "Sign up" from an invitation lost it).
    On the log-in and sign-up pages it is their own `next`; on another page, that page;
    on the home page nothing (signing up from there lands on the usual start)."""

    def target() -> str:
        user = getattr(request, "user", None)
        if user is not None and user.is_authenticated:
            return ""
        from core.views import safe_next

        if request.path in (reverse("login"), reverse("signup")):
            return safe_next(request)
        if request.path == reverse("home") or request.method != "GET":
            return ""
        return request.get_full_path()

    return {"onward": target}
