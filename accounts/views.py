"""Sign-up, the account page and API tokens. Log in, log out and password change are
Django's own views, wired up in `accounts.urls`."""

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse_lazy
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods, require_safe

from accounts import services
from accounts.forms import ApiTokenForm, PasswordChangeForm, SignupForm
from accounts.models import ApiToken
from accounts.tokens import MAX_TOKENS_PER_USER, TooManyTokens, create_api_token, revoke_api_token
from dbd_site.compression import shows_secret

# django-axes adds a second backend, so login() must be told which one vouches for the user.
MODEL_BACKEND = "django.contrib.auth.backends.ModelBackend"


def _safe_next(request: HttpRequest) -> str:
    """The `next` URL of a GET or POST, if it points back at this site; otherwise ""."""
    url = request.POST.get("next") or request.GET.get("next") or ""
    allowed = url_has_allowed_host_and_scheme(
        url, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    )
    return url if allowed else ""


@require_http_methods(["GET", "POST"])
def signup(request: HttpRequest) -> HttpResponse:
    if request.user.is_authenticated:
        return redirect(settings.LOGIN_REDIRECT_URL)
    form = SignupForm(request.POST) if request.method == "POST" else SignupForm()
    if form.is_valid():
        user = services.create_account(
            username=form.cleaned_data["username"], password=form.cleaned_data["password1"]
        )
        login(request, user, backend=MODEL_BACKEND)
        return redirect(_safe_next(request) or settings.LOGIN_REDIRECT_URL)
    return render(request, "accounts/signup.html", {"form": form, "next": _safe_next(request)})


class PasswordChangeView(auth_views.PasswordChangeView):
    """Django's view with the site's form: old password checks count towards the
    lock-out, and a new password revokes every API token (they were handed out under
    the old one, so whoever had the password may have made one)."""

    form_class = PasswordChangeForm
    template_name = "accounts/password_change.html"
    success_url = reverse_lazy("accounts:password_change_done")

    def get_form_kwargs(self) -> dict:
        return {**super().get_form_kwargs(), "request": self.request}

    def form_valid(self, form: PasswordChangeForm) -> HttpResponse:
        response = super().form_valid(form)
        if form.revoked_tokens:
            messages.info(
                self.request,
                f"Your {form.revoked_tokens} API token(s) no longer work: make new ones "
                "for your tools.",
            )
        return response


def _account_page(request: HttpRequest, form: ApiTokenForm) -> HttpResponse:
    tokens = list(ApiToken.objects.filter(user=request.user))
    context = {
        "form": form,
        "tokens": tokens,
        "max_tokens": MAX_TOKENS_PER_USER,
        "can_add_token": len(tokens) < MAX_TOKENS_PER_USER,
    }
    return render(request, "accounts/account.html", context)


@login_required
@require_safe
def account(request: HttpRequest) -> HttpResponse:
    return _account_page(request, ApiTokenForm())


@login_required
@require_http_methods(["GET", "POST"])
@never_cache  # the page shows a raw token: no browser or proxy may keep a copy
def token_create(request: HttpRequest) -> HttpResponse:
    if request.method == "GET":
        return redirect("accounts:account")
    form = ApiTokenForm(request.POST)
    if form.is_valid():
        try:
            token, raw = create_api_token(user=request.user, name=form.cleaned_data["name"])
        except TooManyTokens as exc:
            form.add_error(None, str(exc))
        else:
            shows_secret(request)
            return render(
                request, "accounts/token_created.html", {"token": token, "raw_token": raw}
            )
    return _account_page(request, form)


@login_required
@require_http_methods(["GET", "POST"])
def token_revoke(request: HttpRequest, token_id: int) -> HttpResponse:
    # Only the owner's own tokens: anyone else's id is simply not found.
    token = get_object_or_404(ApiToken, pk=token_id, user=request.user)
    if request.method == "POST":
        revoke_api_token(user=request.user, token_id=token.pk)
        messages.success(request, f"Token “{token.name}” is revoked. It no longer works.")
        return redirect("accounts:account")
    return render(request, "accounts/token_revoke.html", {"token": token})
