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
