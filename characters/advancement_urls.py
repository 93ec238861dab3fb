"""Advancement URLs; included into the "characters" namespace (characters/urls.py).

The campaign's awards page (``characters.advancement.campaign_awards``) is routed by
campaigns/urls.py as ``campaigns:awards`` at /campaigns/<pk>/awards/.
"""

from django.urls import path

from characters.advancement import advancement_page, award, spend, undo

urlpatterns = [
    path("<id:pk>/advancement/", advancement_page, name="advancement"),
    path("<id:pk>/advancement/spend/", spend, name="spend"),
    path("<id:pk>/advancement/undo/", undo, name="undo"),
    path("<id:pk>/advancement/award/", award, name="award"),
]
