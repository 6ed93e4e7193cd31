"""`manage.py api_errors_doc`: write docs/api-errors.md from the declared codes."""

from typing import Any

from django.core.management.base import BaseCommand

from dbd_site.error_docs import PAGE, api_errors_page


class Command(BaseCommand):
    help = "Write docs/api-errors.md from the error codes the code declares."

    def handle(self, *args: Any, **options: Any) -> None:
        PAGE.write_text(api_errors_page())
        self.stdout.write(f"Wrote {PAGE.name}.")
