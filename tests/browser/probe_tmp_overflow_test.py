import re
import pytest
from playwright.sync_api import expect
from tests.browser.test_campaign_flows import *  # noqa

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

JS = """() => { const w = document.documentElement.clientWidth; const out = [];
for (const el of document.querySelectorAll('body *')) { const r = el.getBoundingClientRect();
 if (r.right > w + 0.5) out.push(el.tagName + '.' + el.className + '#' + el.id + ' right=' + Math.round(r.right) + ' w=' + Math.round(r.width)); }
return out.slice(0, 25); }"""

def test_probe(browser, live_server, campaign):
    stina = Character.objects.create(owner=user("spelaren"), campaign=campaign, name="Stina",
        attributes=STINA_ATTRIBUTES, skills=STINA_SKILLS, dp_budget=25, level_cap=4)
    ctx, p = device(browser, PHONE)
    log_in(p, live_server, "spelaren", f"/characters/{stina.pk}/advancement/")
    for path in (f"/characters/{stina.pk}/advancement/", f"/characters/{stina.pk}/", f"/campaigns/{campaign.pk}/", f"/campaigns/{campaign.pk}/journal/", "/characters/", "/campaigns/", "/campaigns/join/", f"/characters/new/?campaign={campaign.pk}", f"/campaigns/{campaign.pk}/table/"):
        p.goto(live_server.url + path)
        print(path, overflow(p), p.evaluate(JS))
    ctx2, g = device(browser, PHONE)
    log_in(g, live_server, "spelledaren", f"/campaigns/{campaign.pk}/")
    for path in (f"/campaigns/{campaign.pk}/", f"/campaigns/{campaign.pk}/awards/", f"/characters/{stina.pk}/advancement/", "/campaigns/new/"):
        g.goto(live_server.url + path)
        print("GM phone", path, overflow(g), g.evaluate(JS))
