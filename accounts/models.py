"""Per-user API tokens for third-party tools.

Only a SHA-256 digest of each token is stored: the token itself is shown once, when
it is made, and a leaked database does not leak working tokens.
"""

from django.conf import settings
from django.db import models


class ApiToken(models.Model):
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens"
    )
    name = models.CharField(max_length=60, help_text="What the token is for, e.g. 'my app'.")
    # The first characters of the token, so the owner can tell tokens apart.
    prefix = models.CharField(max_length=8)
    digest = models.CharField(max_length=64, unique=True)
    # A read-only token reads (GET, HEAD, OPTIONS) and nothing more: any other method
    # sent with it is refused (403 `read-only-token`).
    read_only = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"{self.name} ({self.prefix}…)"
