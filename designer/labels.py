"""Human labels for the keys and enum values the engines return (what a page shows instead of ``fat_tree`` or
``total_usd``).

Keys: an explicit label where the words alone would mislead, else the key's words with its unit suffix written
as a unit (``min_uplink_bandwidth_gbps`` → "min uplink bandwidth [Gbit/s]"). Values: the enum values of the
requirements (topology, cooling, media, network class, algorithms …) by name; any other snake_case word gets
spaces. Nothing here changes a figure; the API and the exports keep the keys.
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation

from cluster.requirements import FIELDS

# unit suffix → how it is written; longest suffixes first so "_gbyte_s" wins over "_s"
UNITS: tuple[tuple[str, str], ...] = (
    ("_gbyte_s_per_gpu", "GB/s per GPU"),
    ("_gbyte_s", "GB/s"),
    ("_gbyte", "GB"),
    ("_gbps", "Gbit/s"),
    ("_tbps", "Tbit/s"),
    ("_bytes", "bytes"),
    ("_usd", "USD"),
    ("_pct", "%"),
    ("_frac", "share"),
    ("_ratio", "ratio"),
    ("_kw", "kW"),
    ("_mw", "MW"),
    ("_kwh", "kWh"),
    ("_w", "W"),
    ("_tb", "TB"),
    ("_mb", "MB"),
    ("_us", "µs"),
    ("_ms", "ms"),
    ("_min", "min"),
    ("_h", "h"),
    ("_s", "s"),
    ("_m", "m"),
)

KEY_LABELS: dict[str, str] = {
    "endpoint_count": "endpoints (NIC ports)",
    "endpoint_link_count": "endpoint links (NIC–leaf)",
    "switch_link_count": "switch–switch links",
    "switch_count": "switches",
    "link_end_count": "link ends",
    "max_endpoint_count": "largest endpoint count at this shape",
    "leaf_uplink_port_count": "leaf uplink ports",
    "min_uplink_port_count": "uplink ports the ratio needs",
    "min_uplink_bandwidth_gbps": "uplink bandwidth the ratio needs [Gbit/s]",
    "oversubscription_end_to_end_ratio": "oversubscription, end to end",
    "global_oversubscription_ratio": "global-link oversubscription",
    "tier_count": "switching tiers",
    "rail_count": "rails",
    "rail_groups": "rail groups",
    "rails_per_group": "rails per group",
    "nic_planes": "NIC planes",
    "scalable_unit_nodes": "nodes per scalable unit",
    "leaves_per_rail": "leaves per rail",
    "pod_count": "pods",
    "group_count": "groups",
    "max_group_count": "largest group count",
    "leaves_per_group": "leaves per group",
    "spines_per_group": "spines per group",
    "global_link_count": "global links",
    "global_links_per_group_pair": "global links per group pair",
    "links_per_chip": "links per chip",
    "torus_dims": "torus dimensions",
    "node_price_includes_nics": "node price includes the NICs",
    "storage_node_count": "storage servers",
    "storage_nodes_for_bandwidth": "storage servers the bandwidth needs",
    "storage_nodes_for_capacity": "storage servers the capacity needs",
    "raw_tb": "raw capacity [TB]",
    "usable_tb": "usable capacity [TB]",
    "read_need_gbyte_s": "read bandwidth needed [GB/s]",
    "weights_gbyte": "model weights [GB]",
    "host_overhead_us": "host overhead per call [µs]",
    "latency_offset_us": "latency offset [µs]",
    "simple_latency_offset_us": "latency offset, Simple protocol [µs]",
    # calculators (scheduling/calculators.py)
    "total_usd": "total [USD]",
    "budget_min": "error budget [min]",
    "burn_rate": "burn rate",
    "page_threshold": "page at burn rate",
    "page": "page the on-call?",
    "repack": "worth repacking?",
    "efficiency_frac": "packing efficiency",
    "tasks": "tasks per user",
    "dominant_share": "dominant share",
    "dominant_resource": "dominant resource",
    "left": "left unallocated",
    "instance_count": "MIG instances",
    "satisfied": "requests satisfied",
    "nccl_ib_tc": "NCCL_IB_TC (traffic class)",
    "traffic_class": "traffic class",
    "ethernet_mtu_min_bytes": "Ethernet MTU at least [bytes]",
    "mtu_bytes": "MTU [bytes]",
    "headroom_bytes": "PFC headroom [bytes]",
    "xoff_bytes": "PFC XOFF threshold [bytes]",
    "xon_bytes": "PFC XON threshold [bytes]",
    "ecn_kmin_bytes": "ECN Kmin [bytes]",
    "ecn_kmax_bytes": "ECN Kmax [bytes]",
    "kmin_bytes": "ECN Kmin [bytes]",
    "kmax_bytes": "ECN Kmax [bytes]",
    "pmax_pct": "ECN marking probability at Kmax [%]",
    "pause_frame_rate_max_pct": "pause frames at most [% of time]",
    "link_gbps": "link speed [Gbit/s]",
}

def _choice_labels() -> dict[str, str]:
    """Every snake_case choice of the requirements with the label its form field shows (one wording)."""
    out: dict[str, str] = {}
    for f in FIELDS:
        for value, label in getattr(f.spec, "choices", None) or ():
            if isinstance(value, str) and "_" in value:
                out.setdefault(value, label)
    return out


VALUE_LABELS: dict[str, str] = {
    **_choice_labels(),
    # values the engines return that are not requirement choices: collectives and NCCL algorithms
    "all_reduce": "all-reduce",
    "all_gather": "all-gather",
    "reduce_scatter": "reduce-scatter",
    "all_to_all": "all-to-all",
    "nvls_tree": "NVLS tree",
    "collnet_direct": "CollNet direct",
    "collnet_chain": "CollNet chain",
}

_SNAKE = re.compile(r"^[a-z0-9]+(?:_[a-z0-9]+)+$")


def key_label(key: object) -> str:
    """A result key as a reader would name it, with its unit."""
    text = str(key)
    if text in KEY_LABELS:
        return KEY_LABELS[text]
    if not _SNAKE.match(text):
        return text
    for suffix, unit in UNITS:
        if text.endswith(suffix) and len(text) > len(suffix):
            words = text[: -len(suffix)].replace("_", " ")
            return f"{words} [{unit}]" if unit not in ("share", "ratio") else f"{words} ({unit})"
    words = text.replace("_", " ")
    return words[: -len(" count")] + " (count)" if words.endswith(" count") else words


def value_label(value: object) -> object:
    """An enum value by name; other snake_case words with spaces; anything else unchanged."""
    if not isinstance(value, str):
        return value
    if value in VALUE_LABELS:
        return VALUE_LABELS[value]
    return value.replace("_", " ") if _SNAKE.match(value) else value


def shown(key: str, value: object) -> str:
    """A calculator figure as text in its unit: money as $1,234.00, shares as %, counts with separators."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if key.endswith("_usd"):
        try:
            return f"${Decimal(str(value)):,.2f}"
        except InvalidOperation:
            return str(value)
    if key.endswith("_frac") and isinstance(value, int | float):
        return f"{value * 100:.1f} %"
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        return f"{value:,.4g}"
    return str(value_label(value))
