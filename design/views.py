"""The lab designer's page: a form, the candidates side by side, and each
candidate's lab document to download. Reads only; importing stays on the
lab admins' import page."""
from __future__ import annotations

import io
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
from .generate import PLACEHOLDER_NOTE, netplans, switch_choices

TARGET_SLOTS = 2
LAB_FIELDS = ("sparks_128", "sparks_64", "switch", "sparks_owned", "budget", "currency")
MODEL_FIELDS = tuple(f"{name}_{i}" for i in range(1, TARGET_SLOTS + 1) for name in ("model", "context", "concurrency"))


def _finding_summary(findings: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One line per finding code (a switch's four slow ports are one line), with how often and the first message."""
    by_code: dict[str, dict[str, Any]] = {}
    for f in findings:
        row = by_code.setdefault(f["code"], {**f, "count": 0})
        row["count"] += 1
    return list(by_code.values())


class DesignForm(forms.Form):
    sparks_128 = forms.IntegerField(label="128 GB Sparks", required=False, min_value=0, initial=4)
    sparks_64 = forms.IntegerField(label="64 GB Sparks", required=False, min_value=0, initial=0)
    sparks_owned = forms.BooleanField(label="Sparks already owned", required=False)
    budget = forms.DecimalField(label="Budget", required=False, min_value=0)
    currency = forms.CharField(label="Currency", required=False, max_length=3)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["switch"] = forms.ChoiceField(label="Switch", required=False, choices=[
            ("", "any switch, or none"), ("none", "no switch"),
            *((slug, f"already own a {name}") for slug, name in switch_choices())])
        self.order_fields(["sparks_128", "sparks_64", "switch"])
        models = [("", "—")] + [(m.slug, m.name) for m in models_list()]
        for i in range(1, TARGET_SLOTS + 1):
            self.fields[f"model_{i}"] = forms.ChoiceField(label=f"Model {i}", required=False, choices=models)
            self.fields[f"context_{i}"] = forms.IntegerField(label="context tokens", required=False, initial=8192)
            self.fields[f"concurrency_{i}"] = forms.IntegerField(label="streams", required=False, initial=1)


def request_data(query: Any) -> dict[str, Any]:
    """The page's query string as the API's request body."""
    switch = query.get("switch", "")
    models = []
    for i in range(1, TARGET_SLOTS + 1):
        if query.get(f"model_{i}"):
            models.append({"model": query.get(f"model_{i}"), "context_tokens": query.get(f"context_{i}") or 8192,
                           "concurrency": query.get(f"concurrency_{i}") or 1})
    return {"sparks_128": query.get("sparks_128", ""), "sparks_64": query.get("sparks_64", ""),
            "no_switch": switch == "none", "owned_switch": switch if switch not in ("", "none") else None,
            "sparks_owned": query.get("sparks_owned") in ("on", "true", "1"),
            "budget": query.get("budget") or None, "currency": query.get("currency") or None, "models": models}


@require_GET
def design_page(request: HttpRequest) -> HttpResponse:
    asked = "sparks_128" in request.GET or "sparks_64" in request.GET
    form = DesignForm(request.GET if asked else None, initial={"sparks_128": 4})
    context: dict[str, Any] = {"form": form, "lab_fields": [form[n] for n in LAB_FIELDS],
                               "model_fields": [form[n] for n in MODEL_FIELDS],
                               "asked": asked, "can_admin": can_edit_inventory(request.user),
                               "placeholder_note": PLACEHOLDER_NOTE, "query": request.GET.urlencode()}
    if asked:
        try:
            answer = services.design_request(request_data(request.GET))
        except BadInput as exc:
            context["errors"] = exc.errors
        else:
            out = services.answer_out(answer)
            for shown, design in zip(out["designs"], answer.designs, strict=True):
                shown["finding_summary"] = _finding_summary(shown["topology"]["findings"])
                shown["svg"] = mark_safe(diagram.render(design["_design"].group, href=None))  # noqa: S308 - our own SVG
            context["answer"] = out
    return render(request, "design/index.html", context)


def _candidate(request: HttpRequest) -> dict[str, Any] | HttpResponse:
    """The candidate named by ``?design=`` of the design the query asks for, or the plain-text refusal."""
    try:
        answer = services.design_request(request_data(request.GET))
    except BadInput as exc:
        return HttpResponse("\n".join(f"{p}: {m}" for p, m in exc.errors), status=400, content_type="text/plain")
    key = request.GET.get("design", "")
    found = next((d for d in answer.designs if d["key"] == key), None)
    if found is None:
        keys = ", ".join(d["key"] for d in answer.designs)
        return HttpResponse(f"design: no candidate {key!r}; one of {keys}", status=404, content_type="text/plain")
    return found


@require_GET
def design_document(request: HttpRequest) -> HttpResponse:
    """One candidate's lab document as YAML, to fill in and import."""
    found = _candidate(request)
    if isinstance(found, HttpResponse):
        return found
    key = found["key"]
    text = "# " + PLACEHOLDER_NOTE + "\n# " + found["title"] + ", from Spark Fleet's lab designer.\n"
    text += yaml.safe_dump(found["document"], sort_keys=False, default_flow_style=None, width=120)
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
