"""The session journal: members write Markdown entries, rendered safely, newest first; the
GM pins one as the recap; authors and the GM edit and delete."""

import re

import pytest
from django.template import Context, Template
from django.urls import reverse
from django.utils import timezone

from campaigns import journal as journal_views
from campaigns.markdown import render_markdown
from campaigns.models import JournalEntry
from campaigns.services import campaign_create

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}
TAG_WITH_HANDLER = re.compile(r"<[^>]*\son\w+\s*=", re.IGNORECASE)
LIVE_BAD_HREF = re.compile(
    r"""<[^>]*\s(href|src)\s*=\s*["']?\s*(javascript|vbscript|data|file):""", re.IGNORECASE
)


def url(campaign, name="journal", entry=None):
    args = [campaign.pk] if entry is None else [campaign.pk, entry.pk]
    return reverse(f"campaigns:{name}", args=args)


def write(campaign, author, title="Session 1", body=""):
    return JournalEntry.objects.create(campaign=campaign, author=author, title=title, body=body)


def main_of(html: str) -> str:
    """The page's own content: <main>, without the site's scripts and language form."""
    start, end = html.index('<main id="main">'), html.index("</main>")
    return html[start:end]


def page_of(client, campaign, query="") -> str:
    response = client.get(url(campaign) + query)
    assert response.status_code == 200
    return main_of(response.content.decode())


def assert_no_live_html(html: str) -> None:
    assert "<script" not in html.lower()
    assert not TAG_WITH_HANDLER.search(html), TAG_WITH_HANDLER.search(html)
    assert not LIVE_BAD_HREF.search(html), LIVE_BAD_HREF.search(html)
    assert "<img" not in html.lower()


# --- Access ---------------------------------------------------------------------------


def test_anonymous_user_is_sent_to_log_in(client, campaign, alice):
    entry = write(campaign, alice)
    for name, target in [
        ("journal", None),
        ("journal_edit", entry),
        ("journal_delete", entry),
        ("journal_pin", entry),
    ]:
        for method in (client.get, client.post):
            response = method(url(campaign, name, target), {"title": "Hack"})
            assert response.status_code == 302, name
            assert response.url.startswith(reverse("login")), name
    assert JournalEntry.objects.get() == entry
    entry.refresh_from_db()
    assert (entry.title, entry.pinned) == ("Session 1", False)


def test_outsider_gets_404_everywhere(client, campaign, alice, outsider):
    entry = write(campaign, alice)
    client.force_login(outsider)
    for name, target in [
        ("journal", None),
        ("journal_edit", entry),
        ("journal_delete", entry),
        ("journal_pin", entry),
    ]:
        assert client.get(url(campaign, name, target)).status_code in {404, 405}, name
        response = client.post(url(campaign, name, target), {"title": "Hack", "body": ""})
        assert response.status_code == 404, name
    assert JournalEntry.objects.count() == 1
    entry.refresh_from_db()
    assert (entry.title, entry.pinned) == ("Session 1", False)


def test_outsider_gets_404_on_the_journal_page(client, campaign, outsider):
    client.force_login(outsider)
    assert client.get(url(campaign)).status_code == 404


def test_an_entry_of_another_campaign_is_not_found_through_this_one(client, campaign, gm, alice):
    other = campaign_create(gm=alice, name="Annan")
    foreign = write(other, alice, title="Hemligt")
    client.force_login(gm)  # GM here, not a member there
    for name in ("journal_edit", "journal_delete", "journal_pin"):
        assert client.post(url(campaign, name, foreign), {"title": "X"}).status_code == 404
    foreign.refresh_from_db()
    assert (foreign.title, foreign.pinned) == ("Hemligt", False)


# --- Writing --------------------------------------------------------------------------


@pytest.mark.parametrize("who", ["gm", "alice"])
def test_members_write_entries(client, campaign, who, request):
    user = request.getfixturevalue(who)
    client.force_login(user)
    response = client.post(url(campaign), {"title": "Tåget till Kiruna", "body": "Det snöade."})
    entry = JournalEntry.objects.get()
    assert response.status_code == 302
    assert response.url == f"{url(campaign)}#entry-{entry.pk}"
    assert (entry.campaign, entry.author, entry.title, entry.body) == (
        campaign,
        user,
        "Tåget till Kiruna",
        "Det snöade.",
    )
    assert entry.pinned is False
    html = page_of(client, campaign)
    assert "Tåget till Kiruna" in html
    assert "<p>Det snöade.</p>" in html
    assert user.username in html


def test_entries_are_listed_newest_first(client, campaign, gm, alice, bob):
    client.force_login(alice)
    client.post(url(campaign), {"title": "Första kvällen", "body": ""})
    client.force_login(bob)
    client.post(url(campaign), {"title": "Andra kvällen", "body": ""})
    client.force_login(gm)
    client.post(url(campaign), {"title": "Tredje kvällen", "body": ""})
    html = page_of(client, campaign)
    positions = [html.index(t) for t in ("Tredje kvällen", "Andra kvällen", "Första kvällen")]
    assert positions == sorted(positions)
    authors = list(JournalEntry.objects.values_list("author__username", flat=True))
    assert authors == ["gunnar", "bob", "alice"]


def test_the_page_links_back_to_the_campaign_and_shows_the_date(client, campaign, alice):
    entry = write(campaign, alice)
    client.force_login(alice)
    html = page_of(client, campaign)
    assert f'href="{reverse("campaigns:detail", args=[campaign.pk])}"' in html
    local = timezone.localtime(entry.created_at)  # Europe/Stockholm, not UTC
    assert f'<time datetime="{local.isoformat()}">' in html
    assert f"{local.year} {local:%H:%M}</time>" in html


@pytest.mark.parametrize("title", ["", "   "])
def test_an_empty_title_is_an_error_and_keeps_the_text(client, campaign, alice, title):
    client.force_login(alice)
    response = client.post(url(campaign), {"title": title, "body": "Vi **flydde** över isen."})
    assert response.status_code == 400
    assert "title" in response.context["form"].errors
    assert "Vi **flydde** över isen." in response.content.decode()
    assert not JournalEntry.objects.exists()


def test_an_empty_post_is_a_400_not_a_crash(client, campaign, alice):
    client.force_login(alice)
    assert client.post(url(campaign), {}).status_code == 400
    assert not JournalEntry.objects.exists()


def test_a_too_long_title_is_an_error(client, campaign, alice):
    client.force_login(alice)
    response = client.post(url(campaign), {"title": "x" * 201, "body": ""})
    assert response.status_code == 400
    assert not JournalEntry.objects.exists()


# --- Markdown ---------------------------------------------------------------------------


def test_markdown_renders_in_the_journal(client, campaign, alice):
    body = "Vi fann **Albert** och *hunden*.\n\n- kartan\n- lyktan\n\n[Kartan](https://example.se/karta)"
    write(campaign, alice, body=body)
    client.force_login(alice)
    html = page_of(client, campaign)
    assert "<strong>Albert</strong>" in html
    assert "<em>hunden</em>" in html
    assert "<ul>\n<li>kartan</li>\n<li>lyktan</li>\n</ul>" in html
    assert '<a href="https://example.se/karta" rel="nofollow noopener">Kartan</a>' in html


@pytest.mark.parametrize(
    "body",
    [
        "<script>alert(1)</script>",
        "<img src=x onerror=alert(1)>",
        "[x](javascript:alert(1))",
        "[x](JAVASCRIPT:alert(1))",
        "[x](  javascript:alert(1))",
        "[x](jav&#x09;ascript:alert(1))",
        "[x](&#106;avascript:alert(1))",
        "[x](vbscript:msgbox(1))",
        "[x](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
        "![x](data:image/png;base64,iVBORw0KGgo=)",
        "![x](javascript:alert(1))",
        "<javascript:alert(1)>",
        "[x][r]\n\n[r]: javascript:alert(1)",
        '[x](https://example.se "t" onmouseover="alert(1)")',
        '![a" onerror="alert(1)](https://example.se/a.png)',
        "<a href='javascript:alert(1)'>x</a>",
        '<div onclick="alert(1)">x</div>',
    ],
)
def test_markdown_is_safe_in_the_page(client, campaign, alice, body):
    write(campaign, alice, title="Farligt", body=body)
    client.force_login(alice)
    html = page_of(client, campaign)
    assert "Farligt" in html
    assert_no_live_html(html)
    assert_no_live_html(str(render_markdown(body)))


def test_raw_html_is_shown_as_text(client, campaign, alice):
    write(campaign, alice, body="<script>alert(1)</script> <img src=x onerror=alert(1)>")
    client.force_login(alice)
    html = page_of(client, campaign)
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "&lt;img src=x onerror=alert(1)&gt;" in html


@pytest.mark.parametrize(
    ("source", "href"),
    [
        ("[a](https://example.se/)", "https://example.se/"),
        ("[a](http://192.168.1.10:8000/)", "http://192.168.1.10:8000/"),
        ("[a](mailto:gm@example.se)", "mailto:gm@example.se"),
        ("<gm@example.se>", "mailto:gm@example.se"),
        ("[a](/characters/3/)", "/characters/3/"),
        ("[a](../3/)", "../3/"),
        ("[a](#entry-4)", "#entry-4"),
        ("[a](./kapitel:1)", "./kapitel:1"),
    ],
)
def test_allowed_links(source, href):
    assert f'<a href="{href}" rel="nofollow noopener">' in render_markdown(source)


@pytest.mark.parametrize(
    "source",
    [
        "[a](javascript:alert(1))",
        "[a](file:///etc/passwd)",
        "[a](data:text/plain,hej)",
        "[a](ftp://example.se/)",
        "[a](tel:+46701234567)",
        "<vbscript:msgbox(1)>",
    ],
)
def test_other_schemes_stay_plain_text(source):
    html = render_markdown(source)
    assert "<a" not in html
    assert html.startswith("<p>")


def test_images_become_links_and_are_never_loaded():
    html = render_markdown("![Kartan](/media/karta.png) ![](https://example.se/a.png)")
    assert "<img" not in html
    assert (
        '<a href="/media/karta.png" rel="nofollow noopener" class="image-link">Kartan</a>' in html
    )
    assert ">https://example.se/a.png</a>" in html


def test_tables_strikethrough_and_headings():
    html = render_markdown("# Kapitel\n\n~~död~~\n\n| a | b |\n|---|---|\n| 1 | 2 |")
    assert "<h3>Kapitel</h3>" in html  # below the page's h1 and the entry titles' h2
    assert "<s>död</s>" in html
    assert "<td>1</td>" in html


def test_render_markdown_is_safe_string_and_handles_none():
    assert render_markdown(None) == ""
    assert render_markdown("") == ""
    assert hasattr(render_markdown("a"), "__html__")


def test_markdown_template_filter():
    template = Template("{% load journal %}{{ text|markdown }}")
    html = template.render(Context({"text": "**fet** <b>"}))
    assert html == "<p><strong>fet</strong> &lt;b&gt;</p>\n"


# --- Preview ----------------------------------------------------------------------------


def test_htmx_preview_renders_without_saving(client, campaign, alice):
    client.force_login(alice)
    response = client.post(
        url(campaign), {"title": "", "body": "**Snart** <script>x</script>", "preview": "1"}, **HTMX
    )
    assert response.status_code == 200
    html = response.content.decode()
    assert html.lstrip().startswith('<div id="preview"')
    assert "<strong>Snart</strong>" in html
    assert_no_live_html(html)
    assert "<html" not in html
    assert not JournalEntry.objects.exists()


def test_preview_without_js_shows_the_page_with_the_text_kept(client, campaign, alice):
    client.force_login(alice)
    response = client.post(url(campaign), {"title": "Utkast", "body": "**Snart**", "preview": "1"})
    assert response.status_code == 200
    html = response.content.decode()
    assert "<strong>Snart</strong>" in html
    assert 'value="Utkast"' in html
    assert "**Snart**</textarea>" in html
    assert not response.context["form"].errors
    assert not JournalEntry.objects.exists()


def test_preview_while_editing(client, campaign, alice):
    entry = write(campaign, alice, body="gammalt")
    client.force_login(alice)
    response = client.post(
        url(campaign, "journal_edit", entry),
        {"title": "T", "body": "_nytt_", "preview": "1"},
        **HTMX,
    )
    assert "<em>nytt</em>" in response.content.decode()
    response = client.post(
        url(campaign, "journal_edit", entry), {"title": "T", "body": "_nytt_", "preview": "1"}
    )
    assert response.status_code == 200
    assert "<em>nytt</em>" in response.content.decode()
    entry.refresh_from_db()
    assert (entry.title, entry.body) == ("Session 1", "gammalt")


# --- Pinning the recap ------------------------------------------------------------------


def pinned_titles(campaign):
    return list(campaign.journal.filter(pinned=True).values_list("title", flat=True))


def test_gm_pins_moves_and_unpins_the_recap(client, campaign, gm, alice):
    first = write(campaign, alice, title="Första")
    second = write(campaign, gm, title="Andra")
    client.force_login(gm)

    response = client.post(url(campaign, "journal_pin", first))
    assert response.status_code == 302
    assert response.url == f"{url(campaign)}#entry-{first.pk}"
    assert pinned_titles(campaign) == ["Första"]

    client.post(url(campaign, "journal_pin", second))
    assert pinned_titles(campaign) == ["Andra"]  # one recap: a second pin moves it

    client.post(url(campaign, "journal_pin", second))
    assert pinned_titles(campaign) == []  # pinning the recap again unpins it


def test_the_recap_is_on_top_once(client, campaign, gm, alice):
    old = write(campaign, alice, title="Gammal sammanfattning")
    write(campaign, alice, title="Nyare anteckning")
    client.force_login(gm)
    client.post(url(campaign, "journal_pin", old))
    page_of(client, campaign)  # shows (and uses up) the "is now the recap" message
    html = page_of(client, campaign)
    assert html.count("Gammal sammanfattning") == 1
    assert html.index('data-testid="recap"') < html.index("Gammal sammanfattning")
    assert html.index("Gammal sammanfattning") < html.index("Nyare anteckning")
    assert html.count('data-testid="recap"') == 1


def test_pinning_is_not_an_edit(client, campaign, gm, alice):
    entry = write(campaign, alice)
    before = entry.updated_at
    client.force_login(gm)
    client.post(url(campaign, "journal_pin", entry))
    entry.refresh_from_db()
    assert entry.pinned is True
    assert entry.updated_at == before


def test_a_player_may_not_pin(client, campaign, gm, alice):
    mine = write(campaign, alice, title="Min")
    recap = write(campaign, gm, title="Sammanfattning")
    JournalEntry.objects.filter(pk=recap.pk).update(pinned=True)
    client.force_login(alice)
    assert client.post(url(campaign, "journal_pin", mine)).status_code == 403
    assert client.post(url(campaign, "journal_pin", recap)).status_code == 403
    assert pinned_titles(campaign) == ["Sammanfattning"]
    assert url(campaign, "journal_pin", mine) not in page_of(client, campaign)


def test_pin_needs_post(client, campaign, gm, alice):
    entry = write(campaign, alice)
    client.force_login(gm)
    assert client.get(url(campaign, "journal_pin", entry)).status_code == 405
    assert pinned_titles(campaign) == []


# --- Editing and deleting ---------------------------------------------------------------


@pytest.mark.parametrize("editor", ["alice", "gm"])
def test_author_and_gm_edit_an_entry(client, campaign, alice, editor, request):
    entry = write(campaign, alice, body="gammalt")
    client.force_login(request.getfixturevalue(editor))
    response = client.get(url(campaign, "journal_edit", entry))
    assert response.status_code == 200
    assert "gammalt</textarea>" in response.content.decode()
    response = client.post(url(campaign, "journal_edit", entry), {"title": "Ny", "body": "nytt"})
    assert response.status_code == 302
    assert response.url == f"{url(campaign)}#entry-{entry.pk}"
    entry.refresh_from_db()
    assert (entry.title, entry.body, entry.author) == ("Ny", "nytt", alice)


def test_another_player_may_not_edit_or_delete(client, campaign, alice, bob):
    entry = write(campaign, alice, body="aliceskrev")
    client.force_login(bob)
    for name in ("journal_edit", "journal_delete"):
        assert client.get(url(campaign, name, entry)).status_code == 403
        response = client.post(url(campaign, name, entry), {"title": "Bob", "body": "bob"})
        assert response.status_code == 403
    entry.refresh_from_db()
    assert (entry.title, entry.body) == ("Session 1", "aliceskrev")
    html = page_of(client, campaign)
    assert url(campaign, "journal_edit", entry) not in html
    assert url(campaign, "journal_delete", entry) not in html


def test_the_author_sees_edit_links_for_their_own_entries_only(client, campaign, alice, bob):
    mine = write(campaign, alice, title="Min")
    theirs = write(campaign, bob, title="Bobs")
    client.force_login(alice)
    html = page_of(client, campaign)
    assert url(campaign, "journal_edit", mine) in html
    assert url(campaign, "journal_edit", theirs) not in html


def test_editing_with_an_empty_title_keeps_the_text(client, campaign, alice):
    entry = write(campaign, alice)
    client.force_login(alice)
    response = client.post(
        url(campaign, "journal_edit", entry), {"title": "", "body": "nytt ~~x~~"}
    )
    assert response.status_code == 400
    assert "nytt ~~x~~</textarea>" in response.content.decode()
    entry.refresh_from_db()
    assert entry.title == "Session 1"


@pytest.mark.parametrize("deleter", ["alice", "gm"])
def test_author_and_gm_delete_after_confirming(client, campaign, alice, deleter, request):
    entry = write(campaign, alice, title="Att radera")
    client.force_login(request.getfixturevalue(deleter))
    response = client.get(url(campaign, "journal_delete", entry))
    assert response.status_code == 200
    assert "Att radera" in response.content.decode()
    assert JournalEntry.objects.filter(pk=entry.pk).exists()  # GET only asks
    response = client.post(url(campaign, "journal_delete", entry))
    assert response.status_code == 302
    assert response.url == url(campaign)
    assert not JournalEntry.objects.filter(pk=entry.pk).exists()


def test_entries_of_a_deleted_user_stay_and_only_the_gm_changes_them(
    client, campaign, gm, alice, bob
):
    entry = write(campaign, bob, title="Bobs sista")
    bob.delete()
    client.force_login(alice)
    assert "Bobs sista" in page_of(client, campaign)
    assert client.get(url(campaign, "journal_edit", entry)).status_code == 403
    client.force_login(gm)
    assert client.get(url(campaign, "journal_edit", entry)).status_code == 200


# --- Pages ------------------------------------------------------------------------------


def test_pagination_twenty_per_page(client, campaign, alice):
    for number in range(1, 26):
        write(campaign, alice, title=f"Anteckning {number:02}")
    client.force_login(alice)
    first = page_of(client, campaign)
    second = page_of(client, campaign, "?page=2")
    assert journal_views.PAGE_SIZE == 20
    for number in range(6, 26):
        assert f"Anteckning {number:02}" in first
        assert f"Anteckning {number:02}" not in second
    for number in range(1, 6):
        assert f"Anteckning {number:02}" in second
        assert f"Anteckning {number:02}" not in first
    assert 'href="?page=2"' in first
    assert 'href="?page=1"' in second


@pytest.mark.parametrize("query", ["?page=abc", "?page=999", "?page=0", "?page=-1", "?page="])
def test_bad_page_numbers_do_not_crash(client, campaign, alice, query):
    for number in range(1, 26):
        write(campaign, alice, title=f"Anteckning {number:02}")
    client.force_login(alice)
    html = page_of(client, campaign, query)
    assert "Anteckning" in html


def test_an_empty_journal(client, campaign, alice):
    client.force_login(alice)
    html = page_of(client, campaign, "?page=3")
    assert 'name="title"' in html
    assert "?page=" not in html


def test_the_entrys_date_is_written_in_the_pages_language(client, campaign, alice):
    """Issue 26: dates like "5 Jan 2026" on a Swedish page. Django's own formats of the
    language: "5 januari 2026 08:00" in Swedish, "Jan. 5, 2026, 8 a.m." in English."""
    entry = write(campaign, alice)
    moment = timezone.make_aware(timezone.datetime(2026, 1, 5, 8, 0))
    JournalEntry.objects.filter(pk=entry.pk).update(created_at=moment, updated_at=moment)
    client.force_login(alice)
    assert "5 januari 2026 08:00</time>" in page_of(client, campaign)
    client.cookies["django_language"] = "en"
    assert "Jan. 5, 2026, 8 a.m.</time>" in page_of(client, campaign)
