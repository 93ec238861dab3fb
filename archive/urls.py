from django.urls import path

from archive import views

app_name = "archive"
urlpatterns = [
    path("campaigns/<id:pk>/archive/", views.campaign_download, name="download"),
    path("campaigns/import/", views.campaign_import, name="import"),
    path("campaigns/import/<id:job>/", views.import_job, name="import_job"),
    path("campaigns/<id:pk>/placeholders/<id:placeholder>/", views.placeholder_handover,
         name="handover"),
    path("characters/<id:pk>/export/", views.character_download, name="character_download"),
    path("characters/import/", views.character_import, name="character_import"),
]
