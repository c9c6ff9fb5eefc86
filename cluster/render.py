"""Plain-text rendering of a result (the CLI's table format)."""

from __future__ import annotations

from typing import Any

from cluster.pipeline import checks_of


def _table(headers: list[str], rows: list[list[str]]) -> list[str]:
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(headers)]
    fmt = "  ".join(f"{{:{'<' if i == 0 else '>'}{w}}}" for i, w in enumerate(widths))
    return [fmt.format(*headers), fmt.format(*("-" * w for w in widths))] + [fmt.format(*r) for r in rows]


def result_table(result: dict[str, Any]) -> str:
    """The CLI's table: the compute fabric, then each plane's derivations, power and the BOM."""
    out = _fabric_lines(result)
    out += _plane_lines(result)
    out += _power_lines(result.get("power"))
    out += _bom_lines(result.get("bom"))
    out += _scheduler_lines(result.get("scheduler"))
    out += _check_lines(result)
    return "\n".join(out) + "\n"


def _check_lines(result: dict[str, Any]) -> list[str]:
    """The design's one list of checks (cluster.pipeline), every section's: the same list as its page and exports."""
    checks = checks_of(result)
    bad = sum(not c["ok"] for c in checks)
    out = ["", f"Checks: {bad} check(s) fail of {len(checks)}"]
    for c in checks:
        mark = "FAIL" if not c["ok"] else "info" if c.get("info") else "ok"
        out.append(f"  [{mark}] {c['section']} · {c['name']} ({c['field']}): {c['message']}")
    return out


def _scheduler_lines(sc: dict[str, Any] | None) -> list[str]:
    if not sc:
        return []
    out = ["", "scheduler", f"  slurm: {sc['derivations']['slurm_node_count']}"]
    out.append(f"  kubernetes: {sc['derivations']['kubernetes_node_count']}")
    rows = [
        [p["name"], p["nodes"], f"{p['gpu_count']:,}", f"{p['max_time_h']:,} h", p["derivation"]]
        for p in sc["partitions"]
    ]
    out += ["  " + line for line in _table(["partition", "nodes", "GPUs", "limit", "how"], rows)]
    out.append("  tenants: " + ", ".join(f"{t['name']} {t['share_pct']} %" for t in sc["tenants"]))
    return out


def _fabric_lines(result: dict[str, Any]) -> list[str]:
    c = result["cluster"]
    f = result["compute_fabric"]
    out = [
        f"{c['name']}: {c['gpu_count']:,} × {c['gpu_model']} in {c['node_count']:,} nodes of {c['gpus_per_node']}",
        "",
        f"Compute fabric — {f['topology']}, {f['tier_count']} switching tier(s)",
    ]
    if f["tiers"]:
        rows = [
            [
                t["name"],
                f"{t['switch_count']:,}",
                f"{t['radix_ports']}×{t['port_gbps']:g}G",
                f"{t['down_ports_per_switch']}/{t['up_ports_per_switch']}",
                f"{t['ports_used_count']:,}",
                f"{t['ports_free_count']:,}",
                f"{t['uplink_count']:,}",
                f"{t['oversubscription_ratio']:.3g}:1",
            ]
            for t in f["tiers"]
        ]
        out += _table(["tier", "switches", "ports", "down/up", "used", "free", "uplinks", "ratio"], rows)
    out += [
        "",
        f"endpoints            {f['endpoint_count']:>12,} × {f['endpoint_gbps']:g} Gbit/s",
        f"switches             {f['switch_count']:>12,}",
        f"links                {f['link_count']:>12,}  ({f['endpoint_link_count']:,} endpoint + "
        f"{f['switch_link_count']:,} switch; {f['link_end_count']:,} link ends)",
        f"bisection            {f['bisection_gbps']:>12,.0f} Gbit/s = {f['bisection_tbyte_s']:,.3f} TB/s",
        f"max endpoints        {f['max_endpoint_count']:>12,}",
    ]
    for key, value in f.get("extras", {}).items():
        out.append(f"{key:<34} {value!s}")
    if "verification" in f:
        v = f["verification"]
        status = "OK" if v["ok"] else "FAILED: " + "; ".join(v["problems"])
        out.append(f"graph verification   {status} (max-flow {v['bisection_max_flow_gbps']:,.0f} Gbit/s)")
    out += ["", "How each figure was derived:"]
    out += [f"  {key}: {text}" for key, text in f["derivations"].items()]
    out += [f"  {t['name']} tier: {t['derivation']}" for t in f["tiers"]]
    sizing = f.get("sizing") or {}
    out += [f"  {key}: {text}" for key, text in sizing.get("derivations", {}).items()]
    return out


def _plane_lines(result: dict[str, Any]) -> list[str]:
    out: list[str] = []
    for plane, title in (("storage", "Storage plane"), ("management", "Management plane")):
        p = result.get(plane)
        if not p:
            continue
        out += ["", f"{title}:"]
        out += [f"  {key}: {text}" for key, text in p["derivations"].items()]
    return out


def _power_lines(power: dict[str, Any] | None) -> list[str]:
    if not power:
        return []
    out = ["", "Power, racks, cooling and cost:"]
    for section in ("facility", "racks", "cooling", "tco"):
        out += [f"  {key}: {text}" for key, text in power[section]["derivations"].items()]
    out += [f"  capping {key}: {text}" for key, text in power["capping"]["derivations"].items()]
    out += [f"  training run {key}: {text}" for key, text in power["carbon"]["training_run"]["derivations"].items()]
    out.append(f"  {power['carbon']['derivations']['annual_co2_t']}")
    return out


def _bom_lines(bom: dict[str, Any] | None) -> list[str]:
    if not bom:
        return []
    out = ["", f"Network bill of materials ({bom['price_book']['name']} v{bom['price_book']['version']}):"]
    rows = [
        [
            ln["plane"],
            ln["category"] + (" spare" if ln["spare"] else ""),
            ln["sku"],
            f"{ln['quantity']:,}",
            f"{float(ln['unit_price_usd']):,.2f}",
            f"{float(ln['extended_price_usd']):,.2f}",
        ]
        for ln in bom["lines"]
    ]
    out += _table(["plane", "category", "part", "qty", "unit $", "extended $"], rows)
    out += [f"  {plane} subtotal: ${float(total):,.2f}" for plane, total in bom["totals_usd"].items()]
    out.append(f"  network total: ${float(bom['total_usd']):,.2f}")
    rec = bom.get("reconciliation")
    if rec:
        out += ["", f"Against {rec['reference']} (total ${float(rec['reference_total_usd']):,.0f}):"]
        for r in rec["rows"]:
            out.append(
                f"  {r['item']}: chapter {r['reference_quantity']:,} (${float(r['reference_subtotal_usd']):,.0f})"
                f", here {r['our_quantity']:,} (${float(r['our_subtotal_usd']):,.0f}) — {r['note']}"
            )
    return out
