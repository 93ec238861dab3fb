from django.urls import path

from table import sheet, views

app_name = "table"
urlpatterns = [
    path("campaigns/<id:pk>/table/", views.table_page, name="page"),
    path("campaigns/<id:pk>/table/roll/", views.roll, name="roll"),
    path("campaigns/<id:pk>/table/odds/", views.odds, name="odds"),
    path("campaigns/<id:pk>/table/situation/", views.situation_end, name="situation_end"),
    path("campaigns/<id:pk>/table/history/", views.history, name="history"),
    # Rolling from a character's sheet at its campaign's table, and its favourite tests.
    path("characters/<id:pk>/roll/", sheet.sheet_roll, name="sheet_roll"),
    path("characters/<id:pk>/favourites/", sheet.favourite_save, name="favourite_save"),
    path(
        "characters/<id:pk>/favourites/<id:favourite_pk>/delete/",
        sheet.favourite_delete,
        name="favourite_delete",
    ),
]
