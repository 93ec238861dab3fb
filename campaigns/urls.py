from django.urls import include, path

from campaigns import views
from characters import advancement

app_name = "campaigns"
urlpatterns = [
    path("", views.campaign_list, name="list"),
    path("new/", views.campaign_create, name="create"),
    path("join/", views.join_by_code, name="join_code"),
    path("join/<str:token>/", views.join, name="join"),
    path("<int:pk>/", views.campaign_detail, name="detail"),
    path("<int:pk>/edit/", views.campaign_edit, name="edit"),
    path("<int:pk>/invite.svg", views.invite_qr, name="invite_qr"),
    path("<int:pk>/invite/renew/", views.invite_renew, name="invite_renew"),
    path("<int:pk>/notes/", views.gm_notes, name="gm_notes"),
    path("<int:pk>/characters/", views.character_bring, name="character_bring"),
    path("<int:pk>/members/<int:member_pk>/remove/", views.member_remove, name="member_remove"),
    path("<int:pk>/members/<int:member_pk>/seat/", views.seat_move, name="seat_move"),
    path("<int:pk>/awards/", advancement.campaign_awards, name="awards"),
    path("<int:pk>/journal/", include("campaigns.journal_urls")),
]
