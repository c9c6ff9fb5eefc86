"""The bridge: requirements (dict / YAML) → validated spec → pure engines → result JSON.

Only this module (and the rest of designer/) touches Django; topology/ stays pure.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from topology import FabricPlan, FabricRequest, FabricRequestError, Topology, plan_fabric
from topology.sizing import aggregate_bandwidth_gbps, min_uplink_bandwidth_gbps, ports_for_bandwidth

RESULT_SCHEMA_VERSION = 1

# Engine field → where the user typed it (for field-level errors).
_ENGINE_FIELD_PATH = {
    "node_count": "node_count",
    "nics_per_node": "compute_fabric.nics_per_node",
    "chips_per_node": "gpus_per_node",
}


class RequirementsError(ValueError):
    """Bad requirements: ``errors`` maps a dotted field path to a list of messages."""

    def __init__(self, errors: dict[str, list[str]]):
        self.errors = errors
        super().__init__("; ".join(f"{k}: {' '.join(v)}" for k, v in errors.items()))


def _flatten(detail: Any, prefix: str = "") -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    if isinstance(detail, dict):
        for key, value in detail.items():
            path = f"{prefix}.{key}" if prefix and key != "non_field_errors" else (prefix or key)
            for k, v in _flatten(value, path).items():
                out.setdefault(k, []).extend(v)
    elif isinstance(detail, list):
        if all(not isinstance(x, dict | list) for x in detail):
            out[prefix or "non_field_errors"] = [str(x) for x in detail]
        else:
            for i, item in enumerate(detail):
                for k, v in _flatten(item, f"{prefix}[{i}]").items():
                    out.setdefault(k, []).extend(v)
    else:
        out[prefix or "non_field_errors"] = [str(detail)]
    return out


def validate_requirements(data: Any) -> dict[str, Any]:
    """Validate raw requirements with the one serializer; raise RequirementsError."""
    from designer.api.serializers import RequirementsSerializer

    if not isinstance(data, dict):
        raise RequirementsError({"non_field_errors": ["requirements must be a mapping of fields"]})
    ser = RequirementsSerializer(data=data)
    if not ser.is_valid():
        raise RequirementsError(_flatten(ser.errors))
    return ser.validated_data


def fabric_request(req: dict[str, Any]) -> FabricRequest:
    f = req["compute_fabric"]
    topology = Topology(f["topology"])
    dims = f.get("torus_dims")
    return FabricRequest(
        topology=topology,
        node_count=req["node_count"],
        nics_per_node=f["nics_per_node"],
        nic_gbps=f["nic_gbps"],
        switch_radix=f["switch_radix"],
        switch_port_gbps=f["switch_port_gbps"],
        oversubscription=f["oversubscription"],
        agg_oversubscription=f["agg_oversubscription"],
        tiers=f.get("tiers"),
        scalable_unit_nodes=f.get("scalable_unit_nodes"),
        leaves_per_group=f.get("leaves_per_group"),
        global_oversubscription=f["global_oversubscription"],
        chips_per_node=req["gpus_per_node"],
        torus_dims=tuple(dims) if dims else None,
        torus_link_gbps=f["torus_link_gbps"],
    )


def _engine_error(exc: FabricRequestError) -> RequirementsError:
    errors: dict[str, list[str]] = {}
    for field, message in exc.errors.items():
        path = _ENGINE_FIELD_PATH.get(field, f"compute_fabric.{field}")
        errors.setdefault(path, []).append(message)
    return RequirementsError(errors)


@dataclass(frozen=True)
class Evaluation:
    requirements: dict[str, Any]
    fabric: FabricPlan
    result: dict[str, Any]


def fabric_sizing(plan: FabricPlan, req: FabricRequest) -> dict[str, Any]:
    """The chapter's aggregate check (B_min = N × B / O) next to what the plan bought."""
    if plan.topology == Topology.TORUS_3D:
        return {}
    agg = aggregate_bandwidth_gbps(plan.endpoint_count, plan.endpoint_gbps)
    need = min_uplink_bandwidth_gbps(plan.endpoint_count, plan.endpoint_gbps, req.oversubscription)
    budget = ports_for_bandwidth(need, req.switch_port_gbps)
    leaf = plan.tiers[0]
    return {
        "aggregate_bandwidth_gbps": agg,
        "aggregate_bandwidth_tbyte_s": agg / 8000,
        "min_uplink_bandwidth_gbps": round(need, 3),
        "min_uplink_port_count": budget.port_count,
        "min_uplink_port_count_with_headroom": budget.port_count_with_headroom,
        "leaf_uplink_port_count": leaf.uplink_count,
        "derivations": {
            "aggregate_bandwidth_gbps": (
                f"{plan.endpoint_count:,} endpoints × {plan.endpoint_gbps:g} Gbit/s = {agg:,.0f} Gbit/s "
                f"= {agg / 8000:,.2f} TB/s one way"
            ),
            "min_uplink_bandwidth_gbps": (
                f"B_min = N × B ÷ O = {plan.endpoint_count:,} × {plan.endpoint_gbps:g} ÷ "
                f"{req.oversubscription:g} = {need:,.0f} Gbit/s (seed §14.1)"
            ),
            "min_uplink_port_count": budget.derivation,
            "leaf_uplink_port_count": (
                f"{leaf.switch_count:,} leaves × {leaf.up_ports_per_switch} uplinks = "
                f"{leaf.uplink_count:,}: whole leaves round the aggregate figure up"
            ),
        },
    }


def evaluate(data: Any) -> Evaluation:
    """Validate and compute a whole design; the result JSON is the shared result schema."""
    req = validate_requirements(data)
    try:
        freq = fabric_request(req)
        plan = plan_fabric(freq)
    except FabricRequestError as exc:
        raise _engine_error(exc) from None
    compute = plan.to_dict()
    compute["sizing"] = fabric_sizing(plan, freq)
    result = {
        "schema_version": RESULT_SCHEMA_VERSION,
        "cluster": {
            "name": req["name"],
            "gpu_model": req["gpu_model"],
            "gpu_count": req["gpu_count"],
            "node_count": req["node_count"],
            "gpus_per_node": req["gpus_per_node"],
        },
        "compute_fabric": compute,
    }
    return Evaluation(requirements=req, fabric=plan, result=result)


def load_requirements_file(path: Path) -> Any:
    """Read a YAML (or JSON) requirements file; syntax errors become field-less errors."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise RequirementsError({"file": [f"cannot read {path}: {exc.strerror}"]}) from None
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise RequirementsError({"file": [f"{path} is not valid YAML: {exc}"]}) from None


def evaluate_examples(folder: Path) -> list[tuple[str, Evaluation | RequirementsError]]:
    """Evaluate every example file in a folder (the home page shows them)."""
    out: list[tuple[str, Evaluation | RequirementsError]] = []
    for path in sorted(folder.glob("*.yaml")):
        try:
            out.append((path.name, evaluate(load_requirements_file(path))))
        except RequirementsError as exc:
            out.append((path.name, exc))
    return out
