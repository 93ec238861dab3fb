"""Removing a player renews the join code and link unless the GM unticks the box."""

import pytest
from django.test import Client
from django.urls import reverse

from campaigns import services
from campaigns.models import Campaign, Membership


def seat_of(campaign, user) -> Membership:
    return Membership.objects.get(campaign=campaign, user=user)


def invitation(campaign) -> tuple[str, str]:
    campaign.refresh_from_db()
    return campaign.join_code, campaign.invite_token


@pytest.fixture
def gm_client(gm):
    client = Client()
    client.force_login(gm)
    return client


@pytest.mark.django_db
def test_the_remove_form_has_the_renew_box_ticked(gm_client, campaign, alice):
    page = gm_client.get(campaign.get_absolute_url()).content.decode()
    action = reverse("campaigns:member_remove", args=[campaign.pk, seat_of(campaign, alice).pk])
    form = page[page.index(f'action="{action}"') :]
    form = form[: form.index("</form>")]
    assert 'type="checkbox" name="renew_invitation" value="1" checked' in form


@pytest.mark.django_db
def test_removing_a_player_renews_the_join_code_and_link(gm_client, campaign, alice):
    old_code, old_token = invitation(campaign)
    url = reverse("campaigns:member_remove", args=[campaign.pk, seat_of(campaign, alice).pk])
    response = gm_client.post(url, {"renew_invitation": "1"})
    assert response.status_code == 302
    assert not Membership.objects.filter(campaign=campaign, user=alice).exists()
    new_code, new_token = invitation(campaign)
    assert new_code != old_code
    assert new_token != old_token

    # The removed player cannot come back with what they had.
    player = Client()
    player.force_login(alice)
    assert player.get(reverse("campaigns:join", args=[old_token])).status_code == 404
    response = player.post(reverse("campaigns:join_code"), {"code": old_code})
    assert response.status_code == 400
    assert not Membership.objects.filter(campaign=campaign, user=alice).exists()


@pytest.mark.django_db
def test_unticked_box_keeps_the_join_code_and_link(gm_client, campaign, alice):
    before = invitation(campaign)
    url = reverse("campaigns:member_remove", args=[campaign.pk, seat_of(campaign, alice).pk])
    assert gm_client.post(url, {}).status_code == 302
    assert not Membership.objects.filter(campaign=campaign, user=alice).exists()
    assert invitation(campaign) == before


@pytest.mark.django_db
def test_removing_the_gm_is_refused_and_renews_nothing(gm_client, campaign, gm):
    before = invitation(campaign)
    url = reverse("campaigns:member_remove", args=[campaign.pk, seat_of(campaign, gm).pk])
    assert gm_client.post(url, {"renew_invitation": "1"}).status_code == 302
    assert Membership.objects.filter(campaign=campaign, user=gm).exists()
    assert invitation(campaign) == before


@pytest.mark.django_db
def test_a_player_cannot_remove_anyone_nor_renew(campaign, alice, bob):
    before = invitation(campaign)
    client = Client()
    client.force_login(alice)
    url = reverse("campaigns:member_remove", args=[campaign.pk, seat_of(campaign, bob).pk])
    assert client.post(url, {"renew_invitation": "1"}).status_code == 403
    assert invitation(campaign) == before


@pytest.mark.django_db
def test_service_renews_by_default_and_not_when_told(campaign, alice, bob):
    old = invitation(campaign)
    services.member_remove(campaign=campaign, membership=seat_of(campaign, alice))
    renewed = invitation(campaign)
    assert renewed[0] != old[0]
    assert renewed[1] != old[1]
    services.member_remove(
        campaign=campaign, membership=seat_of(campaign, bob), renew_invitation=False
    )
    assert invitation(campaign) == renewed


@pytest.mark.django_db(transaction=True)
def test_renewal_is_in_the_removals_transaction(campaign, alice, monkeypatch):
    """If renewing fails, the player is not removed either (one transaction)."""
    old = invitation(campaign)

    def broken(*, campaign):
        raise RuntimeError("renewal failed")

    monkeypatch.setattr(services, "invitation_renew", broken)
    with pytest.raises(RuntimeError):
        services.member_remove(campaign=campaign, membership=seat_of(campaign, alice))
    assert Membership.objects.filter(campaign=campaign, user=alice).exists()
    assert Campaign.objects.get(pk=campaign.pk).join_code == old[0]
