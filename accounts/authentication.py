"""DRF authentication with `Authorization: Token <token>` headers."""

from django.contrib.auth.models import AbstractBaseUser
from drf_spectacular.extensions import OpenApiAuthenticationExtension
from rest_framework import authentication, exceptions
from rest_framework.request import Request

from accounts.models import ApiToken
from accounts.tokens import READ_ONLY_CODES, token_for

READS = frozenset({"GET", "HEAD", "OPTIONS"})


class ReadOnlyToken(exceptions.PermissionDenied):
    default_code = "read-only-token"


class ApiTokenAuthentication(authentication.BaseAuthentication):
    """`Authorization: Token <token>`; `request.auth` is the token. A read-only token
    sent with any method but a read is refused here, before any view: 403
    `read-only-token`, whatever the view would have allowed."""

    keyword = "Token"
    # What a write may meet here (the schema lists it on every write, dbd_site.schema).
    write_error_codes = (READ_ONLY_CODES,)

    def authenticate(self, request: Request) -> tuple[AbstractBaseUser, ApiToken] | None:
        header = authentication.get_authorization_header(request).split()
        if not header or header[0].lower() != self.keyword.lower().encode():
            return None
        if len(header) != 2:
            raise exceptions.AuthenticationFailed("Send 'Authorization: Token <your token>'.")
        try:
            raw = header[1].decode()
        except UnicodeDecodeError:
            raise exceptions.AuthenticationFailed("That token is not valid.") from None
        token = token_for(raw)
        if token is None:
            raise exceptions.AuthenticationFailed("That token is not valid or was revoked.")
        if token.read_only and request.method not in READS:
            raise ReadOnlyToken("This token is read-only: it reads and changes nothing.")
        return token.user, token

    def authenticate_header(self, request: Request) -> str:
        return self.keyword


class ApiTokenScheme(OpenApiAuthenticationExtension):
    target_class = "accounts.authentication.ApiTokenAuthentication"
    name = "tokenAuth"

    def get_security_definition(self, auto_schema):
        return {
            "type": "apiKey",
            "in": "header",
            "name": "Authorization",
            "description": "`Token <token>`; make one on your account page. A read-only "
            "token is refused (403 `read-only-token`) on any method but GET, HEAD and "
            "OPTIONS.",
        }
