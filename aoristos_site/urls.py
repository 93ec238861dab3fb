from django.conf import settings
from django.contrib.auth import views as auth_views
from django.urls import include, path

from core import views as core_views

urlpatterns = [
    path("", core_views.home, name="home"),
    path("healthz", core_views.healthz, name="healthz"),
    path("favicon.ico", core_views.favicon, name="favicon"),
    path("manifest.webmanifest", core_views.manifest, name="manifest"),
    path("sw.js", core_views.service_worker, name="service_worker"),
    path("accounts/signup/", core_views.signup, name="signup"),
    path("accounts/login/", core_views.LoginView.as_view(), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("i18n/", include("django.conf.urls.i18n")),
    path("", include("archive.urls")),
    path("characters/", include("characters.urls")),
    path("campaigns/", include("campaigns.urls")),
    path("", include("campaign_log.urls")),
    path("", include("table.urls")),
    path("", include("combat.urls")),
    path("api/v1/", include("characters.api_urls")),
]
if settings.ADMIN_ENABLED:  # off unless ADMIN_ENABLED=1
    from django.contrib import admin

    urlpatterns.append(path("admin/", admin.site.urls))

handler400 = "core.views.bad_request"
handler403 = "core.views.forbidden"
handler404 = "core.views.not_found"
handler500 = "core.views.server_error"
