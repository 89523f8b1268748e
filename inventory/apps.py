from django.apps import AppConfig


class InventoryConfig(AppConfig):
    name = "inventory"
    verbose_name = "Inventory"

    def ready(self) -> None:
        # Auto groups follow the cabling: refresh them inside every inventory
        # write's transaction (services.AFTER_CHANGE), once per import.
        from django.db.models.signals import post_migrate

        from . import services
        from .groups import groups_sync_hook
        from .seed import seed_after_migrate

        post_migrate.connect(seed_after_migrate, sender=self, dispatch_uid="inventory-seed-catalogue")

        if groups_sync_hook not in services.AFTER_CHANGE:
            services.AFTER_CHANGE.append(groups_sync_hook)
