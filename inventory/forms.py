"""Forms render and coerce the fields; the rules live in the services, whose
errors are put back onto the matching field."""

from __future__ import annotations

from typing import Any

from django import forms

from core.errors import FleetError
from core.forms import EdgeChecked

from .hardware_catalogue import CAGES
from .models import Cable, CatalogueEntry, Port, Spark


def hardware_choices(kind: str) -> list[tuple[str, str]]:
    return [(e.slug, f"{e.name} ({e.slug})") for e in CatalogueEntry.objects.filter(kind=kind)]


class ChoicesMixin:
    fields: dict[str, Any]

    def _choices(self, name: str, choices: list[tuple[str, str]]) -> None:
        field = self.fields[name]
        assert isinstance(field, forms.ChoiceField)
        field.choices = choices


class SparkForm(EdgeChecked, ChoicesMixin, forms.Form):
    name = forms.CharField(max_length=63, help_text="Lower-case letters, digits and '-', e.g. spark-01")
    hardware = forms.ChoiceField()
    ssh_host = forms.CharField(label="SSH host", max_length=253)
    ssh_port = forms.IntegerField(label="SSH port", initial=22)
    ssh_user = forms.CharField(label="SSH user", max_length=32, initial="fleet")
    serial = forms.CharField(max_length=64, required=False)
    vendor = forms.CharField(max_length=60, required=False, help_text="Defaults to the hardware's vendor")
    status = forms.ChoiceField(choices=Spark.Status.choices, initial=Spark.Status.ACTIVE)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._choices("hardware", hardware_choices("spark"))


class SwitchForm(EdgeChecked, ChoicesMixin, forms.Form):
    name = forms.CharField(max_length=63)
    hardware = forms.ChoiceField()
    serial = forms.CharField(max_length=64, required=False)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._choices("hardware", hardware_choices("switch"))


def port_choice_label(port: Port) -> str:
    if port.spark_id:
        return f"{port.label}  ({port.speed_gbps}G Spark port)"
    extra = ", breakout" if port.breakout else ""
    return f"{port.label}  ({port.speed_gbps}G switch port{extra})"


class CableForm(EdgeChecked, ChoicesMixin, forms.Form):
    type = forms.ChoiceField()
    end_0 = forms.ChoiceField(label="End A")
    end_1 = forms.ChoiceField(label="End B")
    end_2 = forms.ChoiceField(label="Leg 2", required=False)
    label = forms.CharField(max_length=64, required=False)
    length_m = forms.DecimalField(label="Length (m)", required=False, max_digits=5, decimal_places=2)
    coded_for = forms.ChoiceField(label="Vendor coding", choices=Cable.Coding.choices, initial="nvidia")

    def __init__(self, *args: Any, ports: list[Port], cable_type: CatalogueEntry | None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._choices("type", hardware_choices("cable"))
        self.cable_type = cable_type
        blank = [("", "— choose a free port —")]
        all_choices = blank + [(p.label, port_choice_label(p)) for p in ports]
        if cable_type is not None and cable_type.breakout:
            # Only a breakout-capable switch port takes the trunk.
            trunks = [p for p in ports if p.switch_id and p.breakout]
            self._choices("end_0", blank + [(p.label, port_choice_label(p)) for p in trunks])
            self.fields["end_0"].label = "Trunk (400G switch port)"
            self.fields["end_1"].label = "Leg 1"
            self._choices("end_1", all_choices)
            self._choices("end_2", all_choices)
            self.fields["end_2"].required = True
        else:
            self._choices("end_0", all_choices)
            self._choices("end_1", all_choices)
            del self.fields["end_2"]

    def ends(self) -> list[str]:
        keys = ["end_0", "end_1"] + (["end_2"] if "end_2" in self.fields else [])
        return [self.cleaned_data.get(k) or "" for k in keys]


class CatalogueForm(EdgeChecked, forms.Form):
    kind = forms.ChoiceField(choices=CatalogueEntry.Kind.choices)
    slug = forms.CharField(max_length=64)
    name = forms.CharField(max_length=120)
    vendor = forms.CharField(max_length=60, required=False)
    memory_gb = forms.IntegerField(label="Memory (GB)", required=False, help_text="Sparks")
    has_connectx = forms.BooleanField(label="Has ConnectX-7", required=False, initial=True, help_text="Sparks")
    port_count = forms.IntegerField(required=False, help_text="Switches")
    speed_gbps = forms.IntegerField(label="Speed (Gb/s)", required=False, help_text="Switch ports; cables")
    breakout = forms.BooleanField(required=False, help_text="Switch ports split 2 x 200G; breakout cable")
    cage = forms.ChoiceField(
        choices=[("", "unknown"), *((cage, cage) for cage in CAGES)],
        required=False,
        help_text="Switches: their ports' cage; cables: the plug of the first end (a breakout's trunk). "
        "A cable whose plug does not fit a cage is refused; unknown is not checked",
    )
    price = forms.DecimalField(
        required=False, min_value=0, max_digits=12, decimal_places=2, help_text="What one costs; the designer totals it"
    )
    currency = forms.CharField(max_length=3, required=False, help_text="ISO 4217, e.g. EUR (with a price)")


class ImportForm(EdgeChecked, forms.Form):
    text = forms.CharField(
        required=False,
        strip=False,
        label="Paste the document",
        widget=forms.Textarea(attrs={"rows": 12, "spellcheck": "false", "class": "code"}),
    )
    document = forms.FileField(required=False, label="or upload a file", help_text="A lab document in YAML or JSON")
    prune = forms.BooleanField(required=False, help_text="Remove what the document does not name")
    confirm_prune = forms.BooleanField(required=False, label="Yes, remove what the preview lists under Removed")
    # The number of Sparks and switches the confirmed preview removes: Apply is refused if it now differs.
    confirm_remove = forms.IntegerField(required=False, min_value=0, max_value=1_000_000, widget=forms.HiddenInput)

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if not data.get("document") and not (data.get("text") or "").strip():
            raise forms.ValidationError("Paste a lab document or choose a file.")
        return data


def apply_errors(form: forms.Form, exc: FleetError, rename: dict[str, str] | None = None) -> None:
    """Put service errors next to their fields (unknown paths become form errors)."""
    rename = rename or {}
    for path, message in exc.errors:
        field = rename.get(path, path)
        if field.startswith("ends["):
            field = "end_" + field[5:].split("]")[0]
        if field in form.fields:
            form.add_error(field, message)
        else:
            form.add_error(None, f"{path}: {message}" if path else message)
