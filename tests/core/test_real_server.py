"""The stack `make serve` runs (granian + the ASGI router), checked over real HTTP."""

import json
import urllib.request

import pytest

pytestmark = pytest.mark.django_db(transaction=True)


def test_real_server_serves_pages_and_json_posts(site_server):
    with urllib.request.urlopen(f"{site_server.url}/", timeout=10) as response:
        assert response.status == 200
        assert 'lang="sv"' in response.read().decode()
    body = json.dumps(
        {
            "attributes": {
                "physique": 3,
                "composure": 3,
                "agility": 2,
                "alertness": 5,
                "willpower": 3,
            }
        }
    ).encode()
    request = urllib.request.Request(
        f"{site_server.url}/api/v1/aoristos/evaluate",
        data=body,
        method="POST",
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        result = json.loads(response.read())
    assert result["dp_spent"] == 33
    assert result["secondary"]["drive"] == 9


def test_real_server_serves_static_files(site_server):
    with urllib.request.urlopen(f"{site_server.url}/static/css/site.css", timeout=10) as response:
        assert response.status == 200
        assert b".stepper" in response.read()
