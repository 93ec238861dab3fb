from django.contrib.auth import login
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET

from core.forms import SignupForm


def home(request):
    if request.user.is_authenticated:
        return redirect("characters:list")
    return render(request, "core/home.html")


@require_GET
def healthz(request):
    return HttpResponse("ok", content_type="text/plain")


def signup(request):
    if request.user.is_authenticated:
        return redirect("characters:list")
    form = SignupForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        user = form.save()
        login(request, user)
        return redirect("characters:list")
    return render(request, "registration/signup.html", {"form": form})


def not_found(request, exception=None):
    if request.path.startswith("/api/"):
        return HttpResponse('{"error": "not found"}', status=404, content_type="application/json")
    return render(request, "404.html", status=404)


def server_error(request):
    if request.path.startswith("/api/"):
        return HttpResponse(
            '{"error": "internal error"}', status=500, content_type="application/json"
        )
    return render(request, "500.html", status=500)
