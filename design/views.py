"""The lab designer's page: a form, the candidates side by side, and each
candidate's lab document to download. Reads only; importing stays on the
lab admins' import page."""

from __future__ import annotations

import io
import re
import zipfile
from typing import Any

import yaml
from django import forms
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.safestring import mark_safe
from django.views.decorators.http import require_GET

from core.errors import BadInput
from core.roles import can_edit_inventory
from placement.selectors import models_list
from topology import diagram

from . import services
from .generate import PLACEHOLDER_NOTE, netplans, spark_choices, switch_choices

TARGET_SLOTS = 2
LINE_SLOTS = 3  # Spark lines on the page (the API takes up to 16)
LAB_FIELDS = ("switch", "budget", "currency", "from_inventory")
LINE_FIELDS = tuple(tuple(f"{name}_{i}" for name in ("hardware", "owned", "planned")) for i in range(1, LINE_SLOTS + 1))
ASKING = ("sparks_128", "sparks_64", "hardware_1", "from_inventory")
MODEL_FIELDS = tuple(f"{name}_{i}" for i in range(1, TARGET_SLOTS + 1) for name in ("model", "context", "concurrency"))


def _finding_summary(findings: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One line per finding code (a switch's four slow ports are one line), with how often and the first message."""
    by_code: dict[str, dict[str, Any]] = {}
    for f in findings:
        row = by_code.setdefault(f["code"], {**f, "count": 0})
        row["count"] += 1
    return list(by_code.values())


class DesignForm(forms.Form):
    budget = forms.DecimalField(label="Budget", required=False, min_value=0)
    currency = forms.CharField(label="Currency", required=False, max_length=3)
    from_inventory = forms.BooleanField(label="Start from this lab’s Sparks", required=False)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["switch"] = forms.ChoiceField(
            label="Switch",
            required=False,
            choices=[
                ("", "any switch, or none"),
                ("none", "no switch"),
                *((slug, f"already own a {name}") for slug, name in switch_choices()),
            ],
        )
        self.order_fields(["switch"])
        hardware = [("", "—"), *spark_choices()]
        for i in range(1, LINE_SLOTS + 1):
            self.fields[f"hardware_{i}"] = forms.ChoiceField(label="Spark", required=False, choices=hardware)
            self.fields[f"owned_{i}"] = forms.IntegerField(label="owned", required=False, min_value=0)
            self.fields[f"planned_{i}"] = forms.IntegerField(label="to buy", required=False, min_value=0)
        models = [("", "—")] + [(m.slug, m.name) for m in models_list()]
        for i in range(1, TARGET_SLOTS + 1):
            self.fields[f"model_{i}"] = forms.ChoiceField(label=f"Model {i}", required=False, choices=models)
            self.fields[f"context_{i}"] = forms.IntegerField(label="context tokens", required=False, initial=8192)
            self.fields[f"concurrency_{i}"] = forms.IntegerField(label="streams", required=False, initial=1)


def request_data(query: Any) -> dict[str, Any]:
    """The page's query string as the API's request body: Spark lines
    (``hardware_N``, ``owned_N``, ``planned_N``), or the API's shorthand
    (``sparks_128``, ``sparks_64``, ``sparks_owned``) when the query has no line."""
    switch = query.get("switch", "")
    lines = []
    for i in range(1, LINE_SLOTS + 1):
        if query.get(f"hardware_{i}") and (query.get(f"owned_{i}") or query.get(f"planned_{i}")):
            lines.append(
                {
                    "hardware": query.get(f"hardware_{i}"),
                    "owned": query.get(f"owned_{i}") or 0,
                    "planned": query.get(f"planned_{i}") or 0,
                }
            )
    models = []
    for i in range(1, TARGET_SLOTS + 1):
        if query.get(f"model_{i}"):
            models.append(
                {
                    "model": query.get(f"model_{i}"),
                    "context_tokens": query.get(f"context_{i}") or 8192,
                    "concurrency": query.get(f"concurrency_{i}") or 1,
                }
            )
    return {
        "sparks_128": query.get("sparks_128", ""),
        "sparks_64": query.get("sparks_64", ""),
        "no_switch": switch == "none",
        "owned_switch": switch if switch not in ("", "none") else None,
        "sparks_owned": query.get("sparks_owned") in ("on", "true", "1"),
        "sparks": lines,
        "from_inventory": query.get("from_inventory") in ("on", "true", "1"),
        "budget": query.get("budget") or None,
        "currency": query.get("currency") or None,
        "models": models,
    }


_LINE_WORDS = {"hardware": "Spark", "owned": "owned", "planned": "to buy"}
_MODEL_WORDS = {"model": "model", "context_tokens": "context tokens", "concurrency": "streams"}
_FIELD_WORDS = {
    "owned_switch": "switch",
    "no_switch": "switch",
    "budget": "budget",
    "currency": "currency",
    "from_inventory": "start from the inventory",
}


def page_label(path: str, query: Any) -> str:
    """Where the form shows what the API's path names: ``sparks[0].planned`` is
    "line 2, to buy" when the first filled line is the form's second."""
    lines = [
        i
        for i in range(1, LINE_SLOTS + 1)
        if query.get(f"hardware_{i}") and (query.get(f"owned_{i}") or query.get(f"planned_{i}"))
    ]
    models = [i for i in range(1, TARGET_SLOTS + 1) if query.get(f"model_{i}")]
    found = re.fullmatch(r"(sparks|models)\[(\d+)\](?:\.(\w+))?", path)
    if found:
        kind, index, field = found.group(1), int(found.group(2)), found.group(3) or ""
        slots, words, noun = (lines, _LINE_WORDS, "line") if kind == "sparks" else (models, _MODEL_WORDS, "model")
        slot = slots[index] if index < len(slots) else index + 1
        return f"{noun} {slot}" + (f", {words.get(field, field)}" if field else "")
    if path in ("sparks_128", "sparks_64"):
        owned = query.get("sparks_owned") in ("on", "true", "1")
        return f"line {1 if path == 'sparks_128' else 2}, {'owned' if owned else 'to buy'}"
    return _FIELD_WORDS.get(path, path)


@require_GET
def design_page(request: HttpRequest) -> HttpResponse:
    asked = any(name in request.GET for name in ASKING)
    shown: Any = request.GET
    if asked and "hardware_1" not in request.GET:  # the shorthand, shown as lines
        shown = request.GET.copy()
        owned = request.GET.get("sparks_owned") in ("on", "true", "1")
        for i, (slug, name) in enumerate((("dgx-spark-128", "sparks_128"), ("dgx-spark-64", "sparks_64")), 1):
            shown[f"hardware_{i}"] = slug
            shown[f"{'owned' if owned else 'planned'}_{i}"] = request.GET.get(name, "")
    form = DesignForm(shown if asked else None, initial={"hardware_1": "dgx-spark-128", "planned_1": 4})
    context: dict[str, Any] = {
        "form": form,
        "lab_fields": [form[n] for n in LAB_FIELDS],
        "line_fields": [[form[n] for n in names] for names in LINE_FIELDS],
        "model_fields": [form[n] for n in MODEL_FIELDS],
        "asked": asked,
        "can_admin": can_edit_inventory(request.user),
        "placeholder_note": PLACEHOLDER_NOTE,
        "query": request.GET.urlencode(),
    }
    if asked:
        try:
            answer = services.design_request(**request_data(request.GET))
        except BadInput as exc:
            context["errors"] = [(page_label(path, request.GET), message) for path, message in exc.errors]
        else:
            out = services.answer_out(answer)
            for shown, design in zip(out["designs"], answer.designs, strict=True):
                shown["finding_summary"] = _finding_summary(shown["topology"]["findings"])
                shown["svg"] = mark_safe(diagram.render(design["_design"].group, href=None))  # noqa: S308 - our own SVG
            context["answer"] = out
    return render(request, "design/index.html", context)


def _candidate(request: HttpRequest) -> dict[str, Any] | HttpResponse:
    """The candidate named by ``?design=`` of the design the query asks for, or the plain-text refusal.
    Its files do not depend on the target models, so no plan is made for them."""
    try:
        answer = services.design_request(**{**request_data(request.GET), "models": []})
    except BadInput as exc:
        return HttpResponse("\n".join(f"{p}: {m}" for p, m in exc.errors), status=400, content_type="text/plain")
    key = request.GET.get("design", "")
    # a design over the budget is not offered, but its document stays at hand
    found = next((d for d in [*answer.designs, *answer.over_budget] if d["key"] == key), None)
    if found is None:
        keys = ", ".join(d["key"] for d in [*answer.designs, *answer.over_budget])
        return HttpResponse(f"design: no candidate {key!r}; one of {keys}", status=404, content_type="text/plain")
    return found


@require_GET
def design_document(request: HttpRequest) -> HttpResponse:
    """One candidate's lab document as YAML, to fill in and import."""
    found = _candidate(request)
    if isinstance(found, HttpResponse):
        return found
    design = found["_design"]
    key = design.key
    text = "# " + PLACEHOLDER_NOTE + "\n# " + design.title + ", from Spark Fleet's lab designer.\n"
    if design.unplug:
        text += (
            "# Growth of the registered lab: import with prune, which removes only the cables this design "
            "unplugs:\n#   " + "\n#   ".join(design.unplug) + "\n"
        )
    text += yaml.safe_dump(design.document, sort_keys=False, default_flow_style=None, width=120)
    response = HttpResponse(text, content_type="application/yaml; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="lab-{key}.yaml"'
    return response


@require_GET
def design_netplan(request: HttpRequest) -> HttpResponse:
    """One candidate's netplan files, one folder per Spark, as a zip."""
    found = _candidate(request)
    if isinstance(found, HttpResponse):
        return found
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, text in netplans(found["_design"]).items():
            archive.writestr(f"{name}/40-cx7.yaml", text)
    response = HttpResponse(buffer.getvalue(), content_type="application/zip")
    response["Content-Disposition"] = f'attachment; filename="lab-{found["key"]}-netplan.zip"'
    return response
