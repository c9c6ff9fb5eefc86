"""The requirements form: a ModelForm for its widgets whose validation is cluster.validate and
the pipeline — the same path as the API and the CLI, so errors are identical everywhere."""

from __future__ import annotations

from django import forms
from django.contrib.auth.forms import UserCreationForm
from django.forms.utils import ErrorDict

from designer.models import REQUIREMENT_FIELDS, DesignRevision
from designer.requirements import LAYOUT, RequirementsError, from_form_strings
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
    "scheduler": "Scheduler (Slurm, Kubernetes, tenants)",
    "workload": "Workload (what the cluster is for: simulated scheduling)",
}


class RequirementsForm(forms.ModelForm):
    class Meta:
        model = DesignRevision
        fields = REQUIREMENT_FIELDS
        widgets = {
            "notes": forms.Textarea(attrs={"rows": 2}),
            "wl_classes": forms.Textarea(attrs={"rows": 5, "spellcheck": "false", "class": "mono"}),
        }

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

    def full_clean(self) -> None:
        """One validation path for form, API and CLI: cluster.validate and the pipeline.

        Django's own field cleaning is skipped so a bad value gets the same message here as in
        the API and the CLI; nothing is saved through the form (a revision is saved by services).
        """
        self._errors = ErrorDict()
        if not self.is_bound:
            return
        self.cleaned_data = {}
        raw = {name: self[name].data for name in REQUIREMENT_FIELDS if name in self.fields}
        raw = {name: value for name, value in raw.items() if value is not None}
        try:
            self.evaluation = evaluate_flat(from_form_strings(raw))
        except RequirementsError as exc:
            for field, messages in exc.errors.items():
                for m in messages:
                    self.add_error(field if field in self.fields else None, m)
            return
        self.cleaned_data = self.evaluation.requirements


class SignupForm(UserCreationForm):
    pass


class ShareForm(forms.Form):
    username = forms.CharField(max_length=150, help_text="Give this user read-only access")


class TokenForm(forms.Form):
    name = forms.CharField(max_length=100, help_text="What the token is for")
    expires_in_days = forms.IntegerField(min_value=1, max_value=365, initial=90, help_text="1–365 days")
    read_only = forms.BooleanField(required=False, help_text="Only GET requests")
