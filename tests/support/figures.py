"""A figure as the pages write it, for tests that read a rendered page."""

from django.template.defaultfilters import floatformat


def one_place(value: float) -> str:
    """Django's floatformat rounds the decimal text half up (127.05 is 127.1,
    24.95 is 25.0), where Python's format rounds the binary value (127.0,
    24.9): a page's figure is compared with this, never with ``f"{x:.1f}"``."""
    return str(floatformat(value, 1))
