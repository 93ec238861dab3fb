from django.urls import path

from table import handouts, screens, sheet, views

app_name = "table"
urlpatterns = [
    path("campaigns/<id:pk>/table/", views.table_page, name="page"),
    path("campaigns/<id:pk>/table/roll/", views.roll, name="roll"),
    path("campaigns/<id:pk>/table/odds/", views.odds, name="odds"),
    path("campaigns/<id:pk>/table/situation/", views.situation_end, name="situation_end"),
    path("campaigns/<id:pk>/table/history/", views.history, name="history"),
    path("campaigns/<id:pk>/table/luck/", views.luck_box, name="luck"),
    path("campaigns/<id:pk>/table/again/<id:seq>/", views.ask_again, name="again"),
    # The table screen (issue 47): the GM's, then the screen's own pages (no account).
    path("campaigns/<id:pk>/screens/", screens.screen_create, name="screen_create"),
    path("campaigns/<id:pk>/screens/<id:screen_pk>/mode/", screens.screen_mode,
         name="screen_mode"),
    path("campaigns/<id:pk>/screens/<id:screen_pk>/end/", screens.screen_end,
         name="screen_end"),
    # Handouts (issue 47): the GM gives, each member reads their own.
    path("campaigns/<id:pk>/handouts/", handouts.handouts_page, name="handouts"),
    path("campaigns/<id:pk>/handouts/list/", handouts.handouts_list, name="handouts_list"),
    path("campaigns/<id:pk>/handouts/<id:handout_pk>/picture/", handouts.handout_picture,
         name="handout_picture"),
    path("campaigns/<id:pk>/handouts/<id:handout_pk>/delete/", handouts.handout_delete,
         name="handout_delete"),
    path("screen/<slug:token>/handout/<id:handout_pk>/", handouts.screen_handout_picture,
         name="screen_handout_picture"),
    path("screen/", screens.screen_enter, name="screen_enter"),
    path("screen/<slug:token>/", screens.screen_show, name="screen"),
    # Rolling from a character's sheet at its campaign's table, and its favourite tests.
    path("characters/<id:pk>/roll/", sheet.sheet_roll, name="sheet_roll"),
    path("characters/<id:pk>/favourites/", sheet.favourite_save, name="favourite_save"),
    path(
        "characters/<id:pk>/favourites/<id:favourite_pk>/delete/",
        sheet.favourite_delete,
        name="favourite_delete",
    ),
]
