"""The performance model's tables: ``manage.py perfmodel --markdown`` prints the
error tables of PERFORMANCE_MODEL.md from the stored constants; without it,
every reading refitted with its errors (the same as ``python -m placement.perfmodel``)."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from placement.perfmodel.report import markdown_tables, refit_text


class Command(BaseCommand):
    help = "Print the performance model's refit and its errors on published runs (--markdown: the docs' tables)."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--markdown", action="store_true", help="the error tables of PERFORMANCE_MODEL.md")

    def handle(self, *args: Any, **options: Any) -> None:
        self.stdout.write(markdown_tables() if options["markdown"] else refit_text())
