from django.urls import include, path

from campaigns import views
from characters import advancement

app_name = "campaigns"
urlpatterns = [
    path("", views.campaign_list, name="list"),
    path("new/", views.campaign_create, name="create"),
    path("join/", views.join_by_code, name="join_code"),
    path("join/<slug:token>/", views.join, name="join"),
    path("<id:pk>/", views.campaign_detail, name="detail"),
    path("<id:pk>/edit/", views.campaign_edit, name="edit"),
    path("<id:pk>/invite.svg", views.invite_qr, name="invite_qr"),
    path("<id:pk>/invite/renew/", views.invite_renew, name="invite_renew"),
    path("<id:pk>/notes/", views.gm_notes, name="gm_notes"),
    path("<id:pk>/characters/", views.character_bring, name="character_bring"),
    path("<id:pk>/requests/", views.bring_request_create, name="bring_request"),
    path(
        "<id:pk>/requests/<id:request_pk>/answer/",
        views.bring_request_answer,
        name="bring_request_answer",
    ),
    path(
        "<id:pk>/requests/<id:request_pk>/withdraw/",
        views.bring_request_withdraw,
        name="bring_request_withdraw",
    ),
    path("<id:pk>/members/<id:member_pk>/remove/", views.member_remove, name="member_remove"),
    path("<id:pk>/members/<id:member_pk>/seat/", views.seat_move, name="seat_move"),
    path("<id:pk>/awards/", advancement.campaign_awards, name="awards"),
    path("<id:pk>/journal/", include("campaigns.journal_urls")),
]
