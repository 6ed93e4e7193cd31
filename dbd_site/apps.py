from django.apps import AppConfig


class DbdSiteConfig(AppConfig):
    name = "dbd_site"
    verbose_name = "DBD Force Builder site"

    def ready(self) -> None:
        from corsheaders.signals import check_request_enabled

        from dbd_site.cors import read_only_api

        check_request_enabled.connect(read_only_api, dispatch_uid="dbd-read-only-api")
