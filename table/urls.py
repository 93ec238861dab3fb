from django.urls import path

from table import sheet, stream, views

app_name = "table"
urlpatterns = [
    path("campaigns/<id:pk>/table/", views.table_page, name="page"),
    path("campaigns/<id:pk>/table/roll/", views.roll, name="roll"),
    path("campaigns/<id:pk>/table/odds/", views.odds, name="odds"),
    path("campaigns/<id:pk>/table/situation/", views.situation_end, name="situation_end"),
    path("campaigns/<id:pk>/table/history/", views.history, name="history"),
    path("campaigns/<id:pk>/table/prompts/", views.prompts, name="prompts"),
    # Rolling from a character's sheet at its campaign's table, and its favourite tests.
    path("characters/<id:pk>/roll/", sheet.sheet_roll, name="sheet_roll"),
    path("characters/<id:pk>/favourites/", sheet.favourite_save, name="favourite_save"),
    path(
        "characters/<id:pk>/favourites/<id:favourite_pk>/delete/",
        sheet.favourite_delete,
        name="favourite_delete",
    ),
    # Under /live/: the ASGI router keeps these on the event loop (aoristos_site/asgi.py).
    path("live/campaigns/<id:pk>/events", stream.events, name="events"),
]
