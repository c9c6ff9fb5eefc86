"""One validation path for the requirements, shared by the CLI, the API and (later) the form.

Field errors come back keyed by field (nested under ``compute_fabric``), with a message
that says what is wrong and what is allowed; nothing is silently clamped.
"""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from designer.choices import GPU_MODELS, TOPOLOGY_CHOICES
from topology.switches import SWITCH_MODELS


class ComputeFabricSerializer(serializers.Serializer):
    topology = serializers.ChoiceField(choices=TOPOLOGY_CHOICES, default="rail_optimized")
    nic_gbps = serializers.FloatField(
        min_value=1, max_value=3200, default=400, help_text="Gbit/s per NIC port"
    )
    nics_per_node = serializers.IntegerField(
        min_value=1, max_value=64, required=False, help_text="default: one NIC per GPU"
    )
    switch_model = serializers.ChoiceField(
        choices=sorted(SWITCH_MODELS), required=False, help_text="sets radix and port speed"
    )
    switch_radix = serializers.IntegerField(min_value=2, max_value=1024, required=False)
    switch_port_gbps = serializers.FloatField(min_value=1, max_value=3200, required=False)
    oversubscription = serializers.FloatField(min_value=1, max_value=64, default=1.0)
    agg_oversubscription = serializers.FloatField(min_value=1, max_value=64, default=1.0)
    tiers = serializers.IntegerField(min_value=1, max_value=3, required=False, allow_null=True)
    scalable_unit_nodes = serializers.IntegerField(min_value=1, max_value=100_000, required=False)
    leaves_per_group = serializers.IntegerField(min_value=1, max_value=1024, required=False)
    global_oversubscription = serializers.FloatField(min_value=1, max_value=64, default=1.0)
    torus_dims = serializers.ListField(
        child=serializers.IntegerField(min_value=1, max_value=1024),
        min_length=3,
        max_length=3,
        required=False,
    )
    torus_link_gbps = serializers.FloatField(min_value=1, max_value=3200, default=400)

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        model = attrs.get("switch_model")
        if model:
            m = SWITCH_MODELS[model]
            for name, value in (("switch_radix", m.radix), ("switch_port_gbps", m.port_gbps)):
                if name in attrs and attrs[name] != value:
                    raise serializers.ValidationError(
                        {name: f"{model} has {name} = {value:g}; leave it out or pick another model"}
                    )
            attrs["switch_radix"], attrs["switch_port_gbps"] = m.radix, m.port_gbps
        attrs.setdefault("switch_radix", 64)
        attrs.setdefault("switch_port_gbps", 400.0)
        return attrs


class RequirementsSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=200, default="Untitled cluster")
    gpu_model = serializers.ChoiceField(choices=GPU_MODELS, default="H100-SXM5")
    gpu_count = serializers.IntegerField(min_value=1, max_value=10_000_000, required=False)
    node_count = serializers.IntegerField(min_value=1, max_value=10_000_000, required=False)
    gpus_per_node = serializers.IntegerField(min_value=1, max_value=128, default=8)
    compute_fabric = ComputeFabricSerializer(required=False)

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        gpus, nodes, per = attrs.get("gpu_count"), attrs.get("node_count"), attrs["gpus_per_node"]
        if gpus is None and nodes is None:
            raise serializers.ValidationError({"gpu_count": "give gpu_count or node_count"})
        if gpus is not None:
            if gpus % per:
                raise serializers.ValidationError(
                    {"gpu_count": f"{gpus:,} GPUs do not fill whole nodes of {per}; use a multiple of {per}"}
                )
            if nodes is not None and nodes * per != gpus:
                raise serializers.ValidationError(
                    {"node_count": f"{nodes:,} nodes × {per} GPUs = {nodes * per:,}, not gpu_count {gpus:,}"}
                )
            attrs["node_count"] = gpus // per
        attrs["gpu_count"] = attrs["node_count"] * per
        fabric = attrs.get("compute_fabric")
        if fabric is None:
            child = ComputeFabricSerializer(data={})
            child.is_valid(raise_exception=True)
            fabric = dict(child.validated_data)
        fabric.setdefault("nics_per_node", per)
        attrs["compute_fabric"] = fabric
        return attrs
