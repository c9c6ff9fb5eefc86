"""The one validation path for requirements: form, API and CLI all come through here.

Requirements are stored flat (model fields of :class:`designer.models.Requirements`);
files and the API use a nested layout (``compute_fabric:``, ``storage:``, ``checkpoint:``,
``management:``). :func:`flatten` and :func:`nest` convert, and errors come back under
the name the user typed (flat for the form, dotted for the API and CLI).
"""

from __future__ import annotations

from typing import Any

from django.core.validators import MaxValueValidator, MinValueValidator
from rest_framework import serializers

from designer.models import REQUIREMENT_FIELDS, DesignRevision
from topology.switches import SWITCH_MODELS

# (section, key in the file/API, model field); section "" = top level.
LAYOUT: tuple[tuple[str, str, str], ...] = (
    ("", "name", "name"),
    ("", "notes", "notes"),
    ("", "gpu_model", "gpu_model"),
    ("", "gpu_count", "gpu_count"),
    ("", "gpus_per_node", "gpus_per_node"),
    *(
        ("compute_fabric", k, k)
        for k in (
            "topology",
            "nic_gbps",
            "nics_per_node",
            "switch_model",
            "switch_radix",
            "switch_port_gbps",
            "oversubscription",
            "agg_oversubscription",
            "tiers",
            "scalable_unit_nodes",
            "leaves_per_group",
            "global_oversubscription",
            "torus_dims",
            "torus_link_gbps",
        )
    ),
    ("storage", "nics_per_node", "storage_nics_per_node"),
    ("storage", "nic_gbps", "storage_nic_gbps"),
    ("storage", "node_count", "storage_node_count"),
    ("storage", "drives_per_node", "storage_drives_per_node"),
    ("storage", "drive_tb", "storage_drive_tb"),
    ("storage", "raid_data_drives", "storage_raid_data_drives"),
    ("storage", "raid_parity_drives", "storage_raid_parity_drives"),
    ("storage", "node_nics", "storage_node_nics"),
    ("storage", "node_nic_gbps", "storage_node_nic_gbps"),
    ("storage", "switch_radix", "storage_switch_radix"),
    ("storage", "switch_port_gbps", "storage_switch_port_gbps"),
    ("storage", "oversubscription", "storage_oversubscription"),
    ("storage", "switch_count", "storage_switch_count"),
    ("storage", "required_usable_tb", "storage_required_usable_tb"),
    ("storage", "dataloader_read_gbyte_s_per_gpu", "dataloader_read_gbyte_s_per_gpu"),
    ("checkpoint", "params_billion", "checkpoint_params_billion"),
    ("checkpoint", "weights_bytes_per_param", "weights_bytes_per_param"),
    ("checkpoint", "bytes_per_param", "checkpoint_bytes_per_param"),
    ("checkpoint", "shard_mb", "checkpoint_shard_mb"),
    ("checkpoint", "window_s", "checkpoint_window_s"),
    ("management", "node_count", "mgmt_node_count"),
    ("management", "login_node_count", "login_node_count"),
    ("management", "nodes_per_tor", "mgmt_nodes_per_tor"),
    ("management", "ports_per_node", "mgmt_ports_per_node"),
    ("management", "tor_access_ports", "mgmt_tor_access_ports"),
    ("management", "tor_access_gbps", "mgmt_tor_access_gbps"),
    ("management", "tor_uplinks", "mgmt_tor_uplinks"),
    ("management", "tor_uplink_ports", "mgmt_tor_uplink_ports"),
    ("management", "uplink_gbps", "mgmt_uplink_gbps"),
    ("management", "spine_ports", "mgmt_spine_ports"),
    ("management", "min_spines", "mgmt_min_spines"),
    ("bom", "media", "bom_media"),
    ("bom", "nodes_per_rack", "nodes_per_rack"),
    ("bom", "racks_per_row", "racks_per_row"),
    ("bom", "spares_switch_pct", "spares_switch_pct"),
    ("bom", "spares_nic_pct", "spares_nic_pct"),
    ("bom", "spares_transceiver_pct", "spares_transceiver_pct"),
    ("bom", "spares_cable_pct", "spares_cable_pct"),
    ("bom", "growth_headroom_pct", "growth_headroom_pct"),
    *(
        ("power", k, k)
        for k in (
            "node_power_w",
            "gpu_tdp_w",
            "host_overhead_w",
            "node_u",
            "average_load_frac",
            "storage_node_power_w",
            "storage_node_u",
            "mgmt_node_power_w",
            "mgmt_node_u",
            "network_power_kw",
            "rack_budget_kw",
            "rack_u",
            "electricity_usd_per_kwh",
            "pue",
            "electrical_chain",
            "capping_budget_kw",
        )
    ),
    *(
        ("cooling", k.removeprefix("cooling_") if k == "cooling_type" else k, k)
        for k in (
            "cooling_type",
            "coolant_supply_c",
            "coolant_return_c",
            "coolant_fluid",
            "cdu_unit_kw",
            "heat_rejection_unit_kw",
        )
    ),
    *(
        ("tco", k.removeprefix("tco_"), k)
        for k in (
            "tco_years",
            "gpu_node_price_usd",
            "storage_node_price_usd",
            "network_capex_usd",
            "mgmt_capex_usd",
            "cooling_capex_usd_per_kw",
            "cooling_capex_usd",
            "facility_capex_usd_per_kw",
            "facility_capex_usd",
            "software_capex_usd",
            "software_usd_per_year",
            "ops_fte",
            "ops_usd_per_fte_year",
            "spares_maintenance_usd_per_year",
            "tco_utilisation_frac",
            "discount_rate_pct",
        )
    ),
    *(("carbon", k, k) for k in ("grid_kg_co2_per_kwh", "run_days", "run_utilisation_frac", "run_power_frac")),
)
SECTIONS = ("compute_fabric", "storage", "checkpoint", "management", "bom", "power", "cooling", "tco", "carbon")
_TO_FLAT = {(s, k): f for s, k, f in LAYOUT}
_TO_PATH = {f: (f"{s}.{k}" if s else k) for s, k, f in LAYOUT}
assert set(_TO_PATH) == set(REQUIREMENT_FIELDS), set(REQUIREMENT_FIELDS) ^ set(_TO_PATH)


class RequirementsError(ValueError):
    """Bad requirements: ``errors`` maps a flat model field name to messages."""

    def __init__(self, errors: dict[str, list[str]]):
        self.errors = errors
        super().__init__("; ".join(f"{k}: {' '.join(v)}" for k, v in errors.items()))

    def nested(self) -> dict[str, list[str]]:
        """The same errors under dotted paths as typed in a file or the API."""
        return {field_path(k): v for k, v in self.errors.items()}


def field_path(flat_name: str) -> str:
    return _TO_PATH.get(flat_name, flat_name)


def flatten(data: Any) -> dict[str, Any]:
    """Nested file/API layout → flat model fields. Unknown keys are errors, not ignored."""
    if not isinstance(data, dict):
        raise RequirementsError({"non_field_errors": ["requirements must be a mapping of fields"]})
    flat: dict[str, Any] = {}
    errors: dict[str, list[str]] = {}
    node_count = None
    for key, value in data.items():
        if key in SECTIONS:
            if value is None:
                continue
            if not isinstance(value, dict):
                errors[key] = [f"{key} must be a mapping of fields"]
                continue
            for sub, sub_value in value.items():
                name = _TO_FLAT.get((key, sub))
                if name is None:
                    allowed = ", ".join(k for s, k, _ in LAYOUT if s == key)
                    errors[f"{key}.{sub}"] = [f"unknown field; {key} takes {allowed}"]
                else:
                    flat[name] = sub_value
        elif key == "node_count":
            node_count = value
        elif ("", key) in _TO_FLAT:
            flat[key] = value
        else:
            errors[key] = [f"unknown field {key!r}"]
    if "gpu_count" not in flat and node_count is None:
        errors["gpu_count"] = ["give gpu_count or node_count"]
    if "torus_dims" in flat and flat["torus_dims"] is None:
        flat["torus_dims"] = ""
    if isinstance(flat.get("torus_dims"), list | tuple):
        flat["torus_dims"] = "x".join(str(v) for v in flat["torus_dims"])
    if node_count is not None:
        per = flat.get("gpus_per_node", 8)
        if not isinstance(node_count, int) or isinstance(node_count, bool) or node_count < 1:
            errors["node_count"] = [f"must be a whole number ≥ 1, got {node_count!r}"]
        elif not isinstance(per, int) or isinstance(per, bool):
            pass  # the serializer reports gpus_per_node
        elif "gpu_count" in flat and flat["gpu_count"] != node_count * per:
            errors["node_count"] = [
                f"{node_count:,} nodes × {per} GPUs = {node_count * per:,}, not gpu_count {flat['gpu_count']}"
            ]
        else:
            flat["gpu_count"] = node_count * per
    if errors:
        raise RequirementsError(errors)
    return flat


def nest(flat: dict[str, Any]) -> dict[str, Any]:
    """Flat model fields → the nested file/API layout."""
    out: dict[str, Any] = {}
    for section, key, name in LAYOUT:
        if name not in flat:
            continue
        value = flat[name]
        if name == "torus_dims":
            value = [int(x) for x in value.split("x")] if value else None
        if section:
            out.setdefault(section, {})[key] = value
        else:
            out[key] = value
    return out


class RequirementsSerializer(serializers.ModelSerializer):
    """Field checks come from the model's validators; cross-field checks live in validate()."""

    class Meta:
        model = DesignRevision
        fields = REQUIREMENT_FIELDS

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # the same "what is allowed" wording as the model validators (and so the form)
        for field in self.fields.values():
            lo, hi = getattr(field, "min_value", None), getattr(field, "max_value", None)
            if lo is not None and hi is not None:
                allowed = f"allowed: {lo:,g} to {hi:,g}"
                field.validators = [
                    v for v in field.validators if not isinstance(v, MinValueValidator | MaxValueValidator)
                ] + [
                    MinValueValidator(lo, message=f"%(show_value)s is too small; {allowed}"),
                    MaxValueValidator(hi, message=f"%(show_value)s is too large; {allowed}"),
                ]

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        given = set(getattr(self, "initial_data", {}) or {})
        errors: dict[str, str] = {}
        model = attrs.get("switch_model") or ""
        if model:
            m = SWITCH_MODELS[model]
            for name, value in (("switch_radix", m.radix), ("switch_port_gbps", float(m.port_gbps))):
                if name not in given:
                    attrs[name] = value
                elif attrs.get(name) != value:
                    errors[name] = (
                        f"{model} has {value:g} here; clear the switch model to type your own "
                        f"{'port count' if name == 'switch_radix' else 'port speed'}"
                    )
        per = attrs.get("gpus_per_node", 8)
        if "nics_per_node" not in given and "gpus_per_node" in given:
            attrs["nics_per_node"] = per
        gpus = attrs.get("gpu_count", 2000)
        if gpus % per:
            errors["gpu_count"] = (
                f"{gpus:,} GPUs do not fill whole nodes of {per}; use a multiple of {per} "
                f"(e.g. {gpus - gpus % per:,} or {gpus - gpus % per + per:,})"
            )
        data = attrs.get("storage_raid_data_drives", 8)
        parity = attrs.get("storage_raid_parity_drives", 2)
        drives = attrs.get("storage_drives_per_node", 24)
        if data + parity > drives:
            errors["storage_raid_data_drives"] = (
                f"a RAID group of {data}+{parity} needs {data + parity} drives; a server has {drives}"
            )
        if errors:
            raise serializers.ValidationError(errors)
        return attrs


def validate_flat(flat: dict[str, Any], *, partial_defaults: bool = True) -> dict[str, Any]:
    """Run the serializer over flat fields; return the complete validated requirements."""
    ser = RequirementsSerializer(data=flat)
    if not ser.is_valid():
        raise RequirementsError(
            {k: [str(m) for m in (v if isinstance(v, list) else [v])] for k, v in ser.errors.items()}
        )
    data = dict(ser.validated_data)
    # fill defaults for fields not given (ModelSerializer leaves them out)
    for f in DesignRevision._meta.get_fields():
        if f.name in REQUIREMENT_FIELDS and f.name not in data:
            data[f.name] = f.get_default()
    return data


def from_form_strings(data: dict[str, Any]) -> dict[str, Any]:
    """Flat form values as a browser sends them: '' means 'not given' for optional numbers."""
    nullable = {f.name for f in DesignRevision._meta.local_fields if f.null}
    out: dict[str, Any] = {}
    for name, value in data.items():
        if name not in REQUIREMENT_FIELDS:
            continue
        out[name] = None if value == "" and name in nullable else value
    return out
