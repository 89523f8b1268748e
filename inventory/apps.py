from django.apps import AppConfig


class InventoryConfig(AppConfig):
    name = "inventory"
    verbose_name = "Inventory"

    def ready(self) -> None:
        # Layers above (topology) add to services.AFTER_CHANGE (a core.hooks.Hook) to follow
        # every inventory write; inventory imports nothing above it.
        from django.db.models.signals import post_migrate

        from .seed import seed_after_migrate

        post_migrate.connect(seed_after_migrate, sender=self, dispatch_uid="inventory-seed-catalogue")
