from django.http import HttpRequest, HttpResponse, HttpResponsePermanentRedirect
from django.shortcuts import render
from django.templatetags.static import static
from django.views.decorators.http import require_safe


@require_safe
def home(request: HttpRequest) -> HttpResponse:
    """The home page: for a visitor, what the site does, with the demo force as an example
    (the roster app's `demo_example` tag)."""
    return render(request, "home.html")


@require_safe
def favicon(request: HttpRequest) -> HttpResponse:
    """Browsers ask for /favicon.ico whatever the page links; the file is a static one
    (served, hashed and cached by whitenoise)."""
    return HttpResponsePermanentRedirect(static("favicon.ico"))
