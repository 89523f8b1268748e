"""The hardware catalogue, as every database of the product holds it."""

from __future__ import annotations


def seed_catalogue() -> None:
    """Put the hardware catalogue back where a transactional test's flush left
    it empty (``inventory.seed`` seeds it after every migrate and flush; a
    test that empties the tables itself needs this)."""
    from inventory.models import CatalogueEntry
    from inventory.seed import seed_catalogue as seed

    if not CatalogueEntry.objects.exists():
        seed(CatalogueEntry)
