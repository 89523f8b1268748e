from django.apps import AppConfig


class PlacementConfig(AppConfig):
    name = "placement"
    verbose_name = "Placement plans and the model catalogue"

    def ready(self) -> None:
        # A flushed database (transactional tests, `manage.py flush`) gets the
        # model catalogue back, as it gets the hardware catalogue.
        from django.db.models.signals import post_migrate

        from .seed import seed_after_migrate

        post_migrate.connect(seed_after_migrate, sender=self, dispatch_uid="placement-seed")
