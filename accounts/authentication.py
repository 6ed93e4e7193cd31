"""DRF authentication with `Authorization: Token <token>` headers."""

from django.contrib.auth.models import AbstractBaseUser
from drf_spectacular.extensions import OpenApiAuthenticationExtension
from rest_framework import authentication, exceptions
from rest_framework.request import Request

from accounts.tokens import user_for_token


class ApiTokenAuthentication(authentication.BaseAuthentication):
    keyword = "Token"

    def authenticate(self, request: Request) -> tuple[AbstractBaseUser, None] | None:
        header = authentication.get_authorization_header(request).split()
        if not header or header[0].lower() != self.keyword.lower().encode():
            return None
        if len(header) != 2:
            raise exceptions.AuthenticationFailed("Send 'Authorization: Token <your token>'.")
        try:
            raw = header[1].decode()
        except UnicodeDecodeError:
            raise exceptions.AuthenticationFailed("That token is not valid.") from None
        user = user_for_token(raw)
        if user is None:
            raise exceptions.AuthenticationFailed("That token is not valid or was revoked.")
        return user, None

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
            "description": "`Token <token>`; make one on your account page.",
        }
