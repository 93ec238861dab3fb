from django.urls import path

from characters import api

app_name = "api"
urlpatterns = [
    path("aoristos/odds", api.odds, name="odds"),
    path("aoristos/evaluate", api.evaluate, name="evaluate"),
    path("aoristos/roll", api.roll, name="roll"),
]
