from django.urls import include, path

from characters import views

app_name = "characters"
urlpatterns = [
    path("", views.character_list, name="list"),
    path("new/", views.character_create, name="create"),
    path("preview/", views.character_preview, name="preview"),
    path("<id:pk>/", views.character_sheet, name="sheet"),
    path("<id:pk>/edit/", views.character_edit, name="edit"),
    path("<id:pk>/preview/", views.character_preview, name="edit_preview"),
    path("<id:pk>/delete/", views.character_delete, name="delete"),
    path("<id:pk>/gm-notes/", views.character_gm_notes, name="gm_notes"),
    path("<id:pk>/items/", views.item_add, name="item_add"),
    path("<id:pk>/items/<id:item_pk>/delete/", views.item_delete, name="item_delete"),
    path("", include("characters.advancement_urls")),
]
