from django.urls import path

from campaign_log import stream

app_name = "log"
urlpatterns = [
    # Under /live/: the ASGI router keeps these on the event loop (aoristos_site/asgi.py).
    path("live/campaigns/<id:pk>/events", stream.events, name="events"),
    path("live/screens/<slug:token>/events", stream.events, name="screen_events"),
]
