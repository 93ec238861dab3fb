"""The tray's answer to a roll (htmx) is written out in table/views.py (TRAY_ROLLED), not
rendered: it must stay what the "tray-errors" partial of table/table.html renders."""

import re

import pytest
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import translation

from table.models import RollEvent
from table.views import TRAY_ROLLED

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("language", ["sv", "en"])
def test_the_written_answer_is_the_partial_rendered(language):
    class Rolled:
        seq = 1234567

    key = "AbC-_0123456789abcdefXYZ"
    context = {"form": None, "rolled": Rolled(), "idempotency_key": key}
    with translation.override(language):
        rendered = render_to_string("table/table.html#tray-errors", context)
    assert TRAY_ROLLED.format(seq=Rolled.seq, key=key) == rendered


def test_a_hand_rolled_through_htmx_is_answered_with_its_seq_and_a_fresh_key(
    alice_client, campaign, dice
):
    dice.queue = [5]
    key = "k" * 24
    response = alice_client.post(
        reverse("table:roll", args=[campaign.pk]),
        {"mode": "hand", "hand": "1B", "purpose": "test", "idempotency_key": key},
        HTTP_HX_REQUEST="true",
    )
    assert response.status_code == 200
    event = RollEvent.objects.get()
    fresh = re.search(r'name="idempotency_key" value="([^"]+)"', response.content.decode())[1]
    assert fresh != key
    assert response.content.decode() == TRAY_ROLLED.format(seq=event.seq, key=fresh)
    assert response["Content-Type"] == "text/html; charset=utf-8"
