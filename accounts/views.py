"""Sign-up, log-in, the account page and API tokens. Log in and password change are
Django's own views with the site's forms; log out is Django's, wired up in `accounts.urls`."""

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
from accounts.forms import ApiTokenForm, LoginForm, PasswordChangeForm, SignupForm
from accounts.models import ApiToken
from accounts.throttles import mark_refusal
from accounts.tokens import MAX_TOKENS_PER_USER, TooManyTokens, create_api_token, revoke_api_token
from dbd_site.compression import shows_secret
from dbd_site.rendering import add_refusal_to_form

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
    data = request.POST if request.method == "POST" else None
    form = SignupForm(data, request=request)
    if form.is_valid():
        user = services.create_account(
            username=form.cleaned_data["username"], password=form.cleaned_data["password1"]
        )
        login(request, user, backend=MODEL_BACKEND)
        return redirect(_safe_next(request) or settings.LOGIN_REDIRECT_URL)
    page = render(request, "accounts/signup.html", {"form": form, "next": _safe_next(request)})
    return mark_refusal(page, form)


class LoginView(auth_views.LoginView):
    """Django's log-in view with the site's form (`accounts.forms.LoginForm`); a post over
    the address's limit answers 429."""

    template_name = "accounts/login.html"
    authentication_form = LoginForm
    redirect_authenticated_user = True

    def form_invalid(self, form: LoginForm) -> HttpResponse:
        return mark_refusal(super().form_invalid(form), form)


class PasswordChangeView(auth_views.PasswordChangeView):
    """Django's view with the site's form: old password checks count towards the
    lock-out, and a new password revokes every API token (they were handed out under
    the old one, so whoever had the password may have made one)."""

    form_class = PasswordChangeForm
    template_name = "accounts/password_change.html"
    success_url = reverse_lazy("accounts:password_change_done")

    def get_form_kwargs(self) -> dict:
        return {**super().get_form_kwargs(), "request": self.request}

    def form_invalid(self, form: PasswordChangeForm) -> HttpResponse:
        return mark_refusal(super().form_invalid(form), form)

    def form_valid(self, form: PasswordChangeForm) -> HttpResponse:
        response = super().form_valid(form)
        if form.revoked_tokens:
            messages.info(
                self.request,
                f"Your {form.revoked_tokens} API token(s) no longer work: make new ones "
                "for your tools.",
            )
        return response


def _account_page(request: HttpRequest, form: ApiTokenForm, *, status: int = 200) -> HttpResponse:
    tokens = list(ApiToken.objects.filter(user=request.user))
    context = {
        "form": form,
        "tokens": tokens,
        "max_tokens": MAX_TOKENS_PER_USER,
        "can_add_token": len(tokens) < MAX_TOKENS_PER_USER,
    }
    return render(request, "accounts/account.html", context, status=status)


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
    status = 200
    if form.is_valid():
        try:
            token, raw = create_api_token(
                user=request.user,
                name=form.cleaned_data["name"],
                read_only=form.cleaned_data["read_only"],
            )
        except TooManyTokens as error:
            add_refusal_to_form(form, error, {"/name": "name"})
            status = error.status  # the one status table (dbd_site.errors)
        else:
            shows_secret(request)
            return render(
                request, "accounts/token_created.html", {"token": token, "raw_token": raw}
            )
    return _account_page(request, form, status=status)


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
