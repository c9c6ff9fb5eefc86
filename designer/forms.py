"""The requirements form: a ModelForm over the requirement fields whose clean() runs the
same serializer and engines as the API and the CLI, so errors are identical everywhere."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib.auth.forms import UserCreationForm

from designer.models import REQUIREMENT_FIELDS, DesignRevision
from designer.requirements import LAYOUT, RequirementsError, validate_flat
from designer.services import Evaluation, evaluate_flat

SECTION_TITLES = {
    "": "Cluster",
    "compute_fabric": "Compute fabric (training back-end)",
    "storage": "Storage plane",
    "checkpoint": "Checkpoints",
    "management": "Management plane",
    "bom": "Bill of materials",
    "power": "Power and racks",
    "cooling": "Facility and cooling",
    "tco": "Total cost of ownership",
    "carbon": "Carbon",
}


class RequirementsForm(forms.ModelForm):
    class Meta:
        model = DesignRevision
        fields = REQUIREMENT_FIELDS
        widgets = {"notes": forms.Textarea(attrs={"rows": 2})}

    evaluation: Evaluation | None = None

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        for name, field in self.fields.items():
            field.widget.attrs.setdefault("data-field", name)
            if isinstance(field, forms.FloatField):
                field.widget.attrs.setdefault("step", "any")

    def sections(self) -> list[tuple[str, list[forms.BoundField], bool]]:
        """(title, fields, open?) — the first two sections and any with an error start open."""
        out: dict[str, list[forms.BoundField]] = {}
        for section, _key, name in LAYOUT:
            out.setdefault(SECTION_TITLES[section], []).append(self[name])
        return [
            (title, fields, i < 2 or any(f.errors for f in fields)) for i, (title, fields) in enumerate(out.items())
        ]

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean()
        if self.errors:
            return cleaned
        flat = {k: v for k, v in cleaned.items() if k in REQUIREMENT_FIELDS}
        try:
            validated = validate_flat(flat)
            self.evaluation = evaluate_flat(validated)
        except RequirementsError as exc:
            for field, messages in exc.errors.items():
                target = field if field in self.fields else None
                for m in messages:
                    self.add_error(target, m)
            return cleaned
        cleaned.update(validated)
        return cleaned


class SignupForm(UserCreationForm):
    pass


class ShareForm(forms.Form):
    username = forms.CharField(max_length=150, help_text="Give this user read-only access")


class TokenForm(forms.Form):
    name = forms.CharField(max_length=100, help_text="What the token is for")
    expires_in_days = forms.IntegerField(min_value=1, max_value=365, initial=90, help_text="1–365 days")
    read_only = forms.BooleanField(required=False, help_text="Only GET requests")
