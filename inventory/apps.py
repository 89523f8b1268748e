from django.apps import AppConfig


class InventoryConfig(AppConfig):
    name = "inventory"
    verbose_name = "Inventory"

    def ready(self) -> None:
        # Auto groups follow the cabling: refresh them inside every inventory
        # write's transaction (services.AFTER_CHANGE), once per import.
        from . import services
        from .groups import groups_sync_hook

        if groups_sync_hook not in services.AFTER_CHANGE:
            services.AFTER_CHANGE.append(groups_sync_hook)
