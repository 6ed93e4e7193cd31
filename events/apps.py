from django.apps import AppConfig


class EventsConfig(AppConfig):
    name = "events"

    def ready(self) -> None:
        # The apps below announce their changes with Django signals (`roster.signals`,
        # `campaign.signals`, `play.signals`); this app listens, so none of them imports it.
        from events import receivers

        receivers.connect()
