"""The table is the campaign's hub: UP awards, journal posts, a pinned recap and members
joining or leaving are lines of the table's log, in the same numbered sequence as the
rolls, live on every open page and on the page after a reload (issue 7)."""

import pytest
from django.urls import reverse

from campaign_log import reading
from campaigns.models import JournalEntry
from campaigns.services import campaign_join, member_remove
from characters import services as advancement
from characters.models import Character
from table import services
from table.models import MembershipEvent, NoticeEvent
from tests.table.log_check import assert_one_query_reads_the_log
from tests.table.test_stream import Stream, roll, run

pytestmark = pytest.mark.django_db(transaction=True)


def log_of(client, campaign) -> str:
    return client.get(reverse("table:page", args=[campaign.pk])).content.decode()


@pytest.fixture
def in_campaign(albert, campaign, alice):
    albert.campaign = campaign
    albert.save()
    bertil = Character.objects.create(owner=alice, name="Bertil", campaign=campaign)
    return albert, bertil


def test_an_award_reaches_the_open_table_as_one_line(campaign, gm, alice, in_campaign):
    albert, _bertil = in_campaign

    async def scenario():
        stream = await Stream(alice, campaign.pk, after=0).open()
        await stream.read_until(r"retry: ")
        await roll(campaign, gm)
        from asgiref.sync import sync_to_async

        await sync_to_async(advancement.dp_award)(
            character=albert, amount=5, reason="Resan över fjällen", by=gm
        )
        await stream.read_until(r"id: 2\n")
        assert stream.ids() == [1, 2]
        assert "5 UP" in stream.text
        assert "Albert" in stream.text
        assert "Resan över fjällen" in stream.text
        assert "notice-award" in stream.text
        await stream.close()

    run(scenario)


def test_a_group_award_is_one_line_naming_everyone_and_a_retry_adds_nothing(
    client, campaign, gm, in_campaign
):
    for _ in range(2):  # the phone resends after a lost answer
        advancement.dp_award_group(
            campaign=campaign, amount=3, reason="Strapatser", by=gm, idempotency_key="k" * 22
        )
    notices = list(NoticeEvent.objects.filter(campaign=campaign))
    assert len(notices) == 1
    assert notices[0].data == {
        "amount": 3,
        "reason": "Strapatser",
        "characters": ["Albert", "Bertil"],
    }
    client.force_login(gm)
    page = log_of(client, campaign)
    assert "Albert, Bertil" in page
    assert "Strapatser" in page


def test_an_award_outside_any_campaign_tells_no_table(albert, gm):
    advancement.dp_award(character=albert, amount=5, reason="Egen träning", by=gm)
    assert not NoticeEvent.objects.exists()


def test_a_refused_award_tells_no_table(campaign, gm, in_campaign):
    albert, _ = in_campaign
    with pytest.raises(advancement.AdvancementError):
        advancement.dp_award(character=albert, amount=0, reason="Inget", by=gm)
    assert not NoticeEvent.objects.exists()


def test_a_journal_post_and_a_pinned_recap_show_at_the_table(client, campaign, gm, alice):
    client.force_login(alice)
    journal = reverse("campaigns:journal", args=[campaign.pk])
    response = client.post(journal, {"title": "Session 3: Grottan", "body": "Vi gick in."})
    assert response.status_code == 302
    entry = JournalEntry.objects.get(title="Session 3: Grottan")
    page = log_of(client, campaign)
    assert "Session 3: Grottan" in page
    assert f'href="{journal}#entry-{entry.pk}"' in page

    client.force_login(gm)
    client.post(reverse("campaigns:journal_pin", args=[campaign.pk, entry.pk]))
    client.post(reverse("campaigns:journal_pin", args=[campaign.pk, entry.pk]))  # unpins
    kinds = list(NoticeEvent.objects.order_by("seq").values_list("kind", flat=True))
    assert kinds == ["journal", "recap"]  # unpinning is not news
    client.force_login(alice)
    page = log_of(client, campaign)
    assert page.count("notice-journal") == 1
    assert page.count("notice-recap") == 1


def test_an_invalid_journal_post_tells_no_table(client, campaign, alice):
    client.force_login(alice)
    response = client.post(reverse("campaigns:journal", args=[campaign.pk]), {"title": ""})
    assert response.status_code == 400
    assert not NoticeEvent.objects.exists()


def test_joining_and_leaving_are_lines_of_the_log(client, campaign, gm, outsider):
    membership = campaign_join(campaign=campaign, user=outsider)
    campaign_join(campaign=campaign, user=outsider)  # joining twice is a no-op
    assert list(MembershipEvent.objects.values_list("kind", flat=True)) == ["joined"]
    client.force_login(gm)
    page = log_of(client, campaign)
    assert f"{outsider.username} slog sig ned vid bordet." in page  # Swedish by default
    member_remove(campaign=campaign, membership=membership)
    kinds = list(MembershipEvent.objects.order_by("seq").values_list("kind", flat=True))
    assert kinds == ["joined", "removed"]
    assert_one_query_reads_the_log(campaign.pk, kinds={"member-joined", "member-removed"})


def test_the_log_and_history_merge_every_kind_in_order(client, campaign, gm, in_campaign):
    albert, _ = in_campaign
    from rules.aoristos import dice

    for n in range(35):
        services.roll_record(campaign=campaign, actor=gm, hand=dice.parse_hand("1B"))
        if n == 20:
            advancement.dp_award(character=albert, amount=2, reason="Mitt i", by=gm)
    messages, older = reading.events_page(campaign.pk, before=None, is_gm=True)
    seqs = [message["seq"] for message in messages]
    assert seqs == list(range(36, 6, -1))
    assert older == 7
    assert [m["kind"] for m in messages if m["seq"] == 22] == ["notice-award"]
    client.force_login(gm)
    history = client.get(reverse("table:history", args=[campaign.pk]) + "?before=7")
    assert history.status_code == 200
    assert 'id="roll-6"' in history.content.decode()
    assert 'id="roll-1"' in history.content.decode()
    assert_one_query_reads_the_log(campaign.pk, kinds={"hand", "notice-award"})
