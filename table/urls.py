from django.urls import path

from table import stream, views

app_name = "table"
urlpatterns = [
    path("campaigns/<id:pk>/table/", views.table_page, name="page"),
    path("campaigns/<id:pk>/table/roll/", views.roll, name="roll"),
    path("campaigns/<id:pk>/table/odds/", views.odds, name="odds"),
    path("campaigns/<id:pk>/table/history/", views.history, name="history"),
    # Under /live/: the ASGI router keeps these on the event loop (aoristos_site/asgi.py).
    path("live/campaigns/<id:pk>/events", stream.events, name="events"),
]
