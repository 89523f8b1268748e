"""The edge for page forms: the same checks as the API's types
(``core.validation``), for every field of a form that mixes this in.

Text refuses NUL and other control characters (a ``Textarea`` may hold line
breaks), whole numbers stay within a 32-bit column unless the field says
less, and date-times fall between 2000 and 2100 with an offset within
+/-14:00. Django's own checks (length, NUL in ``CharField``) still run first.
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Any

from django import forms

from .validation import INT32, datetime_problem, text_problem

NUMBER_FIELDS = (forms.IntegerField, forms.FloatField, forms.DecimalField)


class EdgeChecked:
    """Mix into a ``forms.Form`` (first in the bases)."""

    fields: dict[str, forms.Field]
    cleaned_data: dict[str, Any]

    def _clean_fields(self) -> None:
        super()._clean_fields()  # type: ignore[misc]
        for name, field in self.fields.items():
            # Django's number fields read any Unicode digit ("٣٣" is 33); the API and the
            # query strings take ASCII digits only (core.validation.whole_number)
            raw = self.data.get(self.add_prefix(name)) if isinstance(field, NUMBER_FIELDS) else None  # type: ignore[attr-defined]
            if isinstance(raw, str) and not raw.isascii() and name in self.cleaned_data:
                self.add_error(name, "type the number in the digits 0 to 9")  # type: ignore[attr-defined]
                self.cleaned_data.pop(name, None)
        for name, value in list(self.cleaned_data.items()):
            problem = edge_problem(self.fields.get(name), value)
            if problem:
                self.add_error(name, problem)  # type: ignore[attr-defined]
                self.cleaned_data.pop(name, None)


def edge_problem(field: forms.Field | None, value: Any) -> str | None:
    if isinstance(value, str):
        multiline = field is not None and isinstance(field.widget, forms.Textarea)
        return text_problem(value, multiline=multiline)
    if isinstance(value, bool):
        return None
    if isinstance(value, int) and not -INT32 - 1 <= value <= INT32:
        return f"must be between {-INT32 - 1:,} and {INT32:,}"
    if isinstance(value, datetime):
        return datetime_problem(value)
    if isinstance(value, date) and not 2000 <= value.year <= 2100:
        return "must be between 2000-01-01 and 2100-01-01"
    if isinstance(value, list | tuple):
        for item in value:
            problem = edge_problem(None, item)
            if problem:
                return problem
    return None


def cleaned(form: forms.Form) -> dict[str, Any]:
    """The form's values without the empty ones (the services apply defaults)."""
    return {k: v for k, v in form.cleaned_data.items() if v not in (None, "")}


def upload_text(form: forms.Form, name: str, limit: int = 4 * 1024 * 1024) -> str | None:
    """An uploaded file as text, or None (with a field error) when it is not one."""
    upload = form.cleaned_data.get(name)
    if upload is None:
        return None
    if upload.size > limit:
        form.add_error(name, f"larger than {limit // 1024 // 1024} MB")
        return None
    raw = upload.read()
    try:
        return str(raw.decode("utf-8"))
    except UnicodeDecodeError:
        form.add_error(name, "not a text file (UTF-8)")
        return None
