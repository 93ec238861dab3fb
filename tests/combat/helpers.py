"""What the encounter tests of every system do through the app: a user reading English,
a panel form posted as htmx posts it, the stored encounter folded, the panel read."""

from django.urls import reverse

from combat import services


def english(client, user):
    client.force_login(user)
    client.cookies["django_language"] = "en"
    return client


def post(client, encounter, data, url_name="combat:command"):
    """A panel form posted against the encounter's current version."""
    encounter.refresh_from_db()
    return client.post(reverse(url_name, args=[encounter.pk]),
                       {"version": encounter.version, **data}, headers={"HX-Request": "true"})


def state_of(encounter):
    encounter.refresh_from_db()
    return services.folded(encounter).state


def panel(client, encounter):
    return client.get(reverse("combat:state", args=[encounter.pk])).content.decode()
