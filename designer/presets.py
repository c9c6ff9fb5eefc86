"""Starting points for the requirements form (flat field values; the rest take defaults)."""

from __future__ import annotations

from typing import Any

# The seed's Table 14-24 (§14.8.1; scheduling/workload.py SEED_TABLE_14_24) as the form's text, with the largest
# pretraining job at most the batch partition: its 1,024-GPU job cannot run on a smaller cluster, so a preset
# below 1,024 GPUs gives its own classes (what a simulation of the preset runs; edit them freely).
_SEED_SMALL_CLASSES = (
    "fine-tuning, 30, 64, 256, 8, 24, 336, queued\n"
    "small-model, 20, 8, 64, 8, 24, 168, queued\n"
    "hyper-parameter search, 10, 32, 128, 8, 24, 72, queued"
)


def seed_classes(pretraining_gpus: tuple[int, int]) -> str:
    """Table 14-24 with pretraining at (min, max) GPUs, granularity 64, 7–90 days, critical."""
    lo, hi = pretraining_gpus
    return f"pretraining, 40, {lo}, {hi}, 64, 168, 2160, critical\n{_SEED_SMALL_CLASSES}"


PRESETS: dict[str, dict[str, Any]] = {
    "h100-8x400g": {
        "label": "H100 8-GPU nodes, 8 × 400G rails (seed 2,000-GPU design)",
        "values": {
            "name": "H100 2,000 GPUs, 8 × 400G rails",
            "gpu_model": "H100-SXM5",
            "gpu_count": 2000,
            "gpus_per_node": 8,
            "topology": "rail_optimized",
            "nic_gbps": 400,
            "nics_per_node": 8,
            "switch_model": "QM9700",
            "switch_radix": 64,
            "switch_port_gbps": 400,
            "oversubscription": 1,
            "tiers": None,
            "scalable_unit_nodes": None,
            "storage_node_count": 8,
            "checkpoint_params_billion": 70,
            "checkpoint_shard_mb": 274,
        },
    },
    "superpod-4su": {
        "label": "SuperPOD-like H100, 4 scalable units of 32 nodes",
        "values": {
            "name": "SuperPOD-like 4-SU H100",
            "gpu_model": "H100-SXM5",
            "gpu_count": 1016,
            "gpus_per_node": 8,
            "topology": "rail_optimized",
            "nic_gbps": 400,
            "nics_per_node": 8,
            "switch_model": "QM9700",
            "switch_radix": 64,
            "switch_port_gbps": 400,
            "oversubscription": 1,
            "tiers": None,
            "scalable_unit_nodes": 32,
            "storage_node_count": 8,
            "checkpoint_shard_mb": None,
            # 1,016 GPUs (127 nodes: one slot of the 128 holds the UFM): the largest pretraining job is 960
            # GPUs (15 × 64), not Table 14-24's 1,024
            "wl_classes": seed_classes((512, 960)),
        },
    },
    "fat-tree-16k": {
        "label": "16,384 GPUs, 3-tier non-blocking fat-tree",
        "values": {
            "name": "16k-GPU 3-tier fat-tree",
            "gpu_model": "H100-SXM5",
            "gpu_count": 16384,
            "gpus_per_node": 8,
            "topology": "fat_tree",
            "nic_gbps": 400,
            "nics_per_node": 8,
            "switch_model": "QM9700",
            "switch_radix": 64,
            "switch_port_gbps": 400,
            "oversubscription": 1,
            "tiers": 3,
            "scalable_unit_nodes": None,
            "storage_node_count": 48,
            "storage_switch_radix": 64,
            "storage_switch_port_gbps": 200,
            "checkpoint_params_billion": 405,
            "checkpoint_shard_mb": None,
        },
    },
    "gb200-nvl72": {
        "label": "GB200 NVL72 racks (18 trays × 4 GPUs), 800G per GPU",
        "values": {
            "name": "GB200 NVL72, 8 racks",
            "gpu_model": "GB200",
            "gpu_count": 576,
            "gpus_per_node": 4,
            "topology": "rail_optimized",
            "nic_gbps": 800,
            "nics_per_node": 4,
            "switch_model": "Q3400",
            "switch_radix": 144,
            "switch_port_gbps": 800,
            "oversubscription": 1,
            "tiers": None,
            "scalable_unit_nodes": 18,
            "storage_node_count": 8,
            "checkpoint_shard_mb": None,
            # an NVL72 rack: 18 one-U compute trays of 4 GPUs + 9 NVLink switch trays, ≈120 kW, liquid
            # cooled (seed P1, P7); tray power, rack units and the rack itself come from power/rack_systems.py
            "rack_budget_kw": 140,
            "cooling_type": "direct_to_chip",
            "pue": 1.08,
            # 576 GPUs: pretraining from 256 GPUs up to the whole machine (Table 14-24's 512–1,024 does not fit)
            "wl_classes": seed_classes((256, 576)),
        },
    },
}


def preset_values() -> dict[str, dict[str, Any]]:
    """Each preset applied over the defaults: every field, so a preset resets what it does not set.

    ``_set`` lists the fields the preset itself sets (the form marks them)."""
    from cluster.requirements import Requirements

    defaults = Requirements().flat()
    return {key: {**defaults, **p["values"], "_set": sorted(p["values"])} for key, p in PRESETS.items()}
