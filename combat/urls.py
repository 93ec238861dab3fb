from django.urls import path

from combat import api, catalogue, prompt_views, simulation_views, views
from combat import screen as screen_views

app_name = "combat"
urlpatterns = [
    # The fight on a table screen (issue 47): by the screen's token, no account.
    path("screen/<slug:token>/fight/", screen_views.screen_fight, name="screen_fight"),
    path("screen/<slug:token>/map/", screen_views.screen_map, name="screen_map"),
    path("screen/<slug:token>/map-picture/<id:picture>/", screen_views.screen_picture,
         name="screen_picture"),
    path("campaigns/<id:pk>/encounters/", views.encounter_list, name="list"),
    path("campaigns/<id:pk>/catalogue/", catalogue.catalogue_page, name="catalogue"),
    path("campaigns/<id:pk>/chronicle/", views.chronicle_page, name="chronicle"),
    path("campaigns/<id:pk>/table/prompts/", prompt_views.prompts, name="prompts"),
    path(
        "campaigns/<id:pk>/catalogue/<id:item_pk>/delete/",
        catalogue.catalogue_delete,
        name="catalogue_delete",
    ),
    path("encounters/<id:pk>/", views.encounter_page, name="page"),
    path("encounters/<id:pk>/state/", views.encounter_state, name="state"),
    path("encounters/<id:pk>/command/", views.encounter_command, name="command"),
    path("encounters/<id:pk>/add/", views.add_combatant, name="add"),
    path("encounters/<id:pk>/place/", views.place_forms, name="place"),
    path("encounters/<id:pk>/add-forms/", views.add_forms, name="add_forms"),
    path("encounters/<id:pk>/preview/", views.attack_preview, name="preview"),
    path("encounters/<id:pk>/simulate/", simulation_views.simulate, name="simulate"),
    path("encounters/<id:pk>/simulate/cancel/", simulation_views.cancel, name="simulate_cancel"),
    path("encounters/<id:pk>/simulate/share/", simulation_views.share, name="simulate_share"),
    path("encounters/<id:pk>/move-preview/", views.move_preview, name="move_preview"),
    path("encounters/<id:pk>/map-picture/", views.map_picture_upload, name="map_picture_upload"),
    path("encounters/<id:pk>/map-picture/<id:picture>/", views.map_picture, name="map_picture"),
    path("api/v1/encounters/<id:pk>", api.encounter, name="api_encounter"),
    path("api/v1/encounters/<id:pk>/commands", api.command, name="api_command"),
    path("api/v1/encounters/<id:pk>/preview", api.preview, name="api_preview"),
    path("api/v1/encounters/<id:pk>/simulation", api.simulation, name="api_simulation"),
    path("api/v1/encounters/<id:pk>/simulation/cancel", api.simulation_cancel,
         name="api_simulation_cancel"),
    path("api/v1/encounters/<id:pk>/story", api.story, name="api_story"),
]
