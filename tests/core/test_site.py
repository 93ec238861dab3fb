"""Site pages, accounts, the language switch, error pages, and the settings helpers."""

import json
import re
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse

from aoristos_site import settings as site_settings


def html_lang(response) -> str:
    match = re.search(r'<html[^>]*\blang="([^"]+)"', response.content.decode())
    assert match, response.content[:300]
    return match.group(1)


def csrf_token(response) -> str:
    match = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', response.content.decode())
    assert match, "form without a CSRF token"
    return match.group(1)


# --- home and language ---------------------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize("accept_language", [None, "en", "en-GB,en;q=0.9", "de, fr"])
def test_home_is_swedish_for_anonymous_whatever_the_browser_asks(client, accept_language):
    headers = {"accept-language": accept_language} if accept_language else {}
    response = client.get("/", headers=headers)
    assert response.status_code == 200
    assert html_lang(response) == "sv"
    assert response["Content-Language"] == "sv"
    page = response.content.decode()
    assert "Logga in" in page
    assert "Registrera dig" in page
    assert ">Log in<" not in page


@pytest.mark.django_db
def test_logged_in_home_redirects_to_my_characters(alice_client):
    response = alice_client.get("/")
    assert response.status_code == 302
    assert response.url == reverse("characters:list") == "/characters/"


@pytest.mark.django_db
def test_home_is_the_table_of_ones_one_campaign_and_the_campaigns_of_several(
    client, gm, alice, campaign
):
    from campaigns.services import campaign_create

    client.force_login(gm)
    assert client.get("/").url == reverse("table:page", args=[campaign.pk])
    campaign_create(gm=gm, name="Andra kampanjen")
    assert client.get("/").url == reverse("campaigns:list")


@pytest.mark.django_db
def test_logging_in_lands_on_the_table(client, alice, campaign, password):
    response = client.post("/accounts/login/", {"username": "alice", "password": password})
    assert response.status_code == 302
    assert client.get(response.url).url == reverse("table:page", args=[campaign.pk])


@pytest.mark.django_db
def test_language_switch_to_english_and_back(client):
    response = client.post("/i18n/setlang/", {"language": "en", "next": "/"})
    assert response.status_code == 302
    page = client.get("/", headers={"accept-language": "sv"})
    assert html_lang(page) == "en"
    assert page["Content-Language"] == "en"
    assert "Log in" in page.content.decode()
    assert "Logga in" not in page.content.decode()
    # Other pages follow the choice too.
    login = client.get(reverse("login"))
    assert html_lang(login) == "en"
    assert "Log in" in login.content.decode()

    client.post("/i18n/setlang/", {"language": "sv", "next": "/"})
    page = client.get("/", headers={"accept-language": "en"})
    assert html_lang(page) == "sv"
    assert "Logga in" in page.content.decode()


@pytest.mark.django_db
def test_language_switch_works_with_csrf_enforced():
    client = Client(enforce_csrf_checks=True)
    token = csrf_token(client.get("/"))
    response = client.post("/i18n/setlang/", {"language": "en", "next": "/"})
    assert response.status_code == 403  # the switch is a form and needs its token
    response = client.post(
        "/i18n/setlang/", {"language": "en", "next": "/", "csrfmiddlewaretoken": token}
    )
    assert response.status_code == 302
    assert html_lang(client.get("/")) == "en"


@pytest.mark.django_db
@pytest.mark.parametrize("cookie", ["xx", "", "en-us", "EN", "sv;en", "../../etc"])
def test_an_unknown_language_cookie_falls_back_to_swedish(client, cookie, settings):
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = cookie
    response = client.get("/")
    assert response.status_code == 200
    assert html_lang(response) == "sv"


@pytest.mark.django_db
def test_setlang_with_an_unknown_language_keeps_swedish(client):
    client.post("/i18n/setlang/", {"language": "xx", "next": "/"})
    assert html_lang(client.get("/")) == "sv"


# --- accounts ------------------------------------------------------------------------------


@pytest.mark.django_db
def test_signup_creates_the_user_and_logs_them_in(password):
    client = Client(enforce_csrf_checks=True)
    form = client.get(reverse("signup"))
    assert form.status_code == 200
    assert html_lang(form) == "sv"
    response = client.post(
        reverse("signup"),
        {
            "username": "nyspelare",
            "password1": password,
            "password2": password,
            "csrfmiddlewaretoken": csrf_token(form),
        },
    )
    assert response.status_code == 302
    assert response.url == reverse("characters:list")
    user = get_user_model().objects.get(username="nyspelare")
    assert user.check_password(password)
    assert client.get(reverse("characters:list")).status_code == 200
    # A logged-in user has no business on the signup page.
    assert client.get(reverse("signup")).status_code == 302


@pytest.mark.django_db
def test_signup_with_mismatched_passwords_shows_an_error_and_keeps_the_username(client, password):
    response = client.post(
        reverse("signup"),
        {"username": "nyspelare", "password1": password, "password2": password + "x"},
    )
    assert response.status_code == 400  # refused, like every invalid form here
    assert "password2" in response.context["form"].errors
    page = response.content.decode()
    assert 'value="nyspelare"' in page
    assert password not in page  # passwords are never echoed back
    assert not get_user_model().objects.filter(username="nyspelare").exists()
    assert client.get(reverse("characters:list")).status_code == 302


@pytest.mark.django_db
def test_signup_with_a_taken_username_is_refused(client, alice, password):
    response = client.post(
        reverse("signup"), {"username": "alice", "password1": password, "password2": password}
    )
    assert response.status_code == 400
    assert "username" in response.context["form"].errors
    assert get_user_model().objects.filter(username="alice").count() == 1


@pytest.mark.django_db
def test_login_page_logs_in_with_the_right_password(alice, password):
    client = Client(enforce_csrf_checks=True)
    page = client.get(reverse("login"))
    assert page.status_code == 200
    assert "Logga in" in page.content.decode()
    response = client.post(
        reverse("login"),
        {"username": "alice", "password": password, "csrfmiddlewaretoken": csrf_token(page)},
    )
    assert response.status_code == 302
    assert response.url == reverse("home")  # which sends Alice, in no campaign, on to:
    assert client.get(response.url).url == reverse("characters:list")
    assert client.get(reverse("characters:list")).status_code == 200


@pytest.mark.django_db
def test_login_with_a_wrong_password_shows_an_error(client, alice, password):
    response = client.post(reverse("login"), {"username": "alice", "password": password + "!"})
    assert response.status_code == 200
    form = response.context["form"]
    assert form.non_field_errors()
    page = response.content.decode()
    assert any(str(error) in page for error in form.non_field_errors())
    assert client.get(reverse("characters:list")).status_code == 302


@pytest.mark.django_db
def test_logout_is_a_post_and_ends_the_session(alice_client):
    assert alice_client.post(reverse("logout")).status_code == 302
    assert alice_client.get(reverse("characters:list")).status_code == 302


# --- health, errors ------------------------------------------------------------------------


def test_healthz_says_ok(client):
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.content == b"ok"
    assert response["Content-Type"].startswith("text/plain")


def test_healthz_is_get_only(client):
    assert client.post("/healthz").status_code == 405


@pytest.mark.django_db
@pytest.mark.parametrize("url", ["/no-such-page/", "/characters/x/y/z/", "/static/nope.css"])
def test_unknown_urls_answer_a_404_html_page(client, url):
    response = client.get(url)
    assert response.status_code == 404
    assert response["Content-Type"].startswith("text/html")
    assert html_lang(response) == "sv"
    assert "Hittades inte" in response.content.decode()


@pytest.mark.parametrize("url", ["/api/", "/api/v1/nope", "/api/v1/aoristos/", "/api/x?y=z"])
def test_unknown_api_urls_answer_404_json(client, url):
    response = client.get(url)
    assert response.status_code == 404
    assert response["Content-Type"].startswith("application/json")
    assert isinstance(json.loads(response.content)["error"], str)


@pytest.mark.django_db
@pytest.mark.parametrize(
    "url",
    [
        "/characters/999999/",
        "/characters/999999/edit/",
        "/characters/999999/delete/",
        "/characters/abc/",
        "/characters/-1/",
        "/characters/0/",
        "/characters/99999999999999999999999999/",
        "/characters/1.5/",
        "/characters/%00/",
    ],
)
def test_odd_character_urls_answer_404_not_500(alice, url):
    client = Client(raise_request_exception=False)
    client.force_login(alice)
    response = client.get(url)
    assert response.status_code == 404, response.content[:300]
    assert "Hittades inte" in response.content.decode()


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("method", "url", "data"),
    [
        ("get", "/", {"next": "%00"}),
        ("get", "/accounts/login/", {"next": "//evil.example/"}),
        ("post", "/accounts/login/", {"username": "\x00", "password": "x"}),
        ("post", "/accounts/signup/", {"username": "a" * 5000, "password1": "x"}),
        ("post", "/i18n/setlang/", {"language": "\x00", "next": "//evil.example/"}),
        ("post", "/characters/preview/", {"physique": "abc"}),
        ("post", "/characters/new/", {"physique": "9" * 5000, "name": "x"}),
    ],
)
def test_odd_inputs_never_answer_500(alice, method, url, data):
    client = Client(raise_request_exception=False)
    client.force_login(alice)
    response = getattr(client, method)(url, data)
    assert response.status_code < 500, response.content[:300]


@pytest.mark.django_db
def test_login_does_not_redirect_to_another_site(alice, password):
    client = Client()
    response = client.post(
        reverse("login") + "?next=//evil.example/",
        {"username": "alice", "password": password, "next": "https://evil.example/"},
    )
    assert response.status_code == 302
    assert "evil.example" not in response.url


# --- settings helpers ----------------------------------------------------------------------


def test_database_from_url_parses_a_postgresql_url():
    db = site_settings.database_from_url("postgresql://user:p%40ss@db.example:5433/aoristos")
    assert db["ENGINE"] == "django.db.backends.postgresql"
    assert db["NAME"] == "aoristos"
    assert db["USER"] == "user"
    assert db["PASSWORD"] == "p@ss"
    assert db["HOST"] == "db.example"
    assert str(db["PORT"]) == "5433"


def test_database_from_url_accepts_postgres_scheme_and_defaults():
    db = site_settings.database_from_url("postgres://localhost/table")
    assert db["ENGINE"] == "django.db.backends.postgresql"
    assert db["NAME"] == "table"
    assert db["HOST"] == "localhost"
    assert db["USER"] == ""
    assert db["PASSWORD"] == ""
    assert db["PORT"] in ("", None)


def test_database_from_url_decodes_every_part():
    db = site_settings.database_from_url("postgresql://sl%20user:a%2Fb%3Ac@[::1]:5432/my%20db")
    assert db["USER"] == "sl user"
    assert db["PASSWORD"] == "a/b:c"
    assert db["HOST"] == "::1"
    assert db["NAME"] == "my db"


@pytest.mark.parametrize(
    "url",
    [
        "mysql://user:pass@db.example:3306/aoristos",
        "sqlite:///var/db.sqlite3",
        "db.example/aoristos",
        "",
    ],
)
def test_database_from_url_rejects_other_databases(url):
    with pytest.raises(ValueError):
        site_settings.database_from_url(url)


@pytest.mark.parametrize("value", ["1", "true", "True", "TRUE", "yes", "on", " on ", "Yes"])
@pytest.mark.parametrize("default", [True, False])
def test_envbool_true_values(monkeypatch, value, default):
    monkeypatch.setenv("AORISTOS_TEST_FLAG", value)
    assert site_settings.envbool("AORISTOS_TEST_FLAG", default) is True


@pytest.mark.parametrize("value", ["0", "false", "False", "no", "off", "nope", "2"])
@pytest.mark.parametrize("default", [True, False])
def test_envbool_false_values(monkeypatch, value, default):
    monkeypatch.setenv("AORISTOS_TEST_FLAG", value)
    assert site_settings.envbool("AORISTOS_TEST_FLAG", default) is False


@pytest.mark.parametrize("default", [True, False])
def test_envbool_unset_or_empty_gives_the_default(monkeypatch, default):
    monkeypatch.delenv("AORISTOS_TEST_FLAG", raising=False)
    assert site_settings.envbool("AORISTOS_TEST_FLAG", default) is default
    monkeypatch.setenv("AORISTOS_TEST_FLAG", "")
    assert site_settings.envbool("AORISTOS_TEST_FLAG", default) is default


@pytest.mark.django_db
def test_signup_from_an_invitation_returns_to_it(client, password):
    target = "/campaigns/join/abc123/"
    page = client.get(reverse("signup"), {"next": target}).content.decode()
    assert 'name="next" value="/campaigns/join/abc123/"' in page
    response = client.post(
        reverse("signup"),
        {"username": "ny", "password1": password, "password2": password, "next": target},
    )
    assert response.status_code == 302
    assert response.url == target


@pytest.mark.django_db
def test_every_way_in_keeps_the_invitation_and_signing_up_joins(client, gm, password):
    """Issue 43: the players took the header's "Sign up" from the invitation and lost it.
    Both header links keep where the visitor was going; signing up from an invitation is
    the answer to it: the new player lands in the campaign, seated."""
    from campaigns.models import Membership
    from campaigns.services import campaign_create

    campaign = campaign_create(gm=gm, name="Kvällen")
    invitation = reverse("campaigns:join", args=[campaign.invite_token])
    login = client.get(invitation, follow=True)
    kept = f"?next={invitation}"
    page = login.content.decode()
    header = page.split('<header class="site">')[1].split("</header>")[0]
    assert f'href="{reverse("login")}{kept}"' in header
    assert f'href="{reverse("signup")}{kept}"' in header
    signup = client.get(reverse("signup") + kept).content.decode()
    assert "Kvällen" in signup.split("<h1>")[1]  # says which campaign the account joins
    header = signup.split('<header class="site">')[1].split("</header>")[0]
    assert f'href="{reverse("login")}{kept}"' in header
    made = client.post(reverse("signup"), {"username": "ny", "password1": password,
                                           "password2": password, "next": invitation})
    assert made.status_code == 302
    assert made.url == campaign.get_absolute_url()
    assert Membership.objects.filter(campaign=campaign, user__username="ny", seat=1).exists()


@pytest.mark.django_db
def test_a_page_behind_a_login_is_kept_by_the_header_links(client):
    page = client.get(reverse("campaigns:join_code"), follow=True).content.decode()
    header = page.split('<header class="site">')[1].split("</header>")[0]
    assert f'{reverse("signup")}?next=/campaigns/join/"' in header
    home = client.get(reverse("home")).content.decode()
    assert f'href="{reverse("signup")}"' in home  # the home page is no destination


@pytest.mark.django_db
def test_a_new_account_in_no_campaign_is_shown_how_to_start_one(client, password):
    client.post(reverse("signup"), {"username": "ledaren", "password1": password,
                                    "password2": password})
    page = client.get(reverse("characters:list")).content.decode()
    assert 'data-testid="no-campaign"' in page
    assert f'href="{reverse("campaigns:create")}"' in page


@pytest.mark.django_db
@pytest.mark.parametrize("target", ["https://evil.example/", "//evil.example/x", "javascript:x"])
def test_signup_never_redirects_off_site(client, password, target):
    response = client.post(
        reverse("signup"),
        {"username": "ny", "password1": password, "password2": password, "next": target},
    )
    assert response.status_code == 302
    assert response.url == reverse("characters:list")


@pytest.mark.django_db
def test_forbidden_is_the_sites_own_page(client, alice, bob, albert):
    from campaigns.services import campaign_create, campaign_join

    campaign = campaign_create(gm=bob, name="K")
    albert.campaign = campaign
    albert.save()
    other = get_user_model().objects.create_user("tredje", password="x")
    campaign_join(campaign=campaign, user=other)
    client.force_login(other)
    response = client.get(reverse("characters:edit", args=[albert.pk]))
    assert response.status_code == 403
    html = response.content.decode()
    assert 'lang="sv"' in html
    assert 'name="viewport"' in html


def test_favicon_ico_leads_to_the_icon_every_page_links(client):
    response = client.get("/favicon.ico")
    assert response.status_code == 301
    assert response["Location"].endswith("favicon.svg")
    page = client.get("/accounts/login/").content.decode()
    assert 'rel="icon"' in page
    assert "favicon.svg" in page
    assert (site_settings.BASE_DIR / "static" / "favicon.svg").read_text().startswith("<svg")


def test_the_site_can_be_added_to_a_home_screen(client):
    """A manifest with a name, standalone display and icons that exist (issue 7); every page
    links it, with the icon iOS uses."""
    from django.contrib.staticfiles import finders

    page = client.get("/accounts/login/").content.decode()
    assert '<link rel="manifest" href="/manifest.webmanifest">' in page
    assert 'rel="apple-touch-icon"' in page
    response = client.get("/manifest.webmanifest")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/manifest+json"
    manifest = response.json()
    assert manifest["display"] == "standalone"
    assert manifest["start_url"] == "/"
    sizes = {icon["sizes"] for icon in manifest["icons"]}
    assert {"192x192", "512x512"} <= sizes
    assert any(icon.get("purpose") == "maskable" for icon in manifest["icons"])
    for icon in manifest["icons"]:
        name = icon["src"].removeprefix("/static/")
        assert finders.find(name), icon["src"]
        if name.endswith(".png"):
            data = Path(finders.find(name)).read_bytes()
            assert data.startswith(b"\x89PNG")
            width = int.from_bytes(data[16:20], "big")
            assert icon["sizes"] == f"{width}x{width}"
