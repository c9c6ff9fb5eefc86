"""Side-by-side comparison rows for 2–4 revisions: every input and every result.

Results are flattened to scalar leaves (``compute_fabric.tiers.leaf.switch_count``);
derivation strings are left out of the table (each design page shows them). Deltas are
against the first column — the oldest revision — absolute and in per cent. The page opens
on :func:`summary_rows` (cost, switches, optics, power, racks, TCO, bandwidth), then the
inputs that differ, then the whole tree.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from designer.models import REQUIREMENT_FIELDS, DesignRevision
from designer.requirements import field_path

SKIP_KEYS = {"derivations", "derivation", "checks", "assumptions"}


def _row_key(item: dict[str, Any]) -> str | None:
    """A stable key for one entry of a list of result rows, or None when it has none."""
    if "name" in item:
        return str(item["name"])
    if "sku" in item:
        where = f"{item.get('plane', '')}.{item.get('category', '')}".strip(".")
        return f"{where}.{item['sku']}" + (".spares" if item.get("spare") else "")
    if "collective" in item and "size_bytes" in item:
        return f"{item['collective']}.{item['size_bytes']}"
    return None


def flatten_results(data: Any, prefix: str = "") -> dict[str, Any]:
    """Scalar leaves of a result tree. Lists of rows are keyed by their name, SKU or
    (collective, size); lists with no key (curve points) are left to the charts."""
    out: dict[str, Any] = {}
    if isinstance(data, dict):
        for k, v in data.items():
            if k in SKIP_KEYS:
                continue
            out.update(flatten_results(v, f"{prefix}.{k}" if prefix else k))
    elif isinstance(data, list):
        if data and all(isinstance(x, dict) for x in data):
            keys = [_row_key(x) for x in data]
            if all(keys) and len(set(keys)) == len(keys):
                for key, x in zip(keys, data, strict=True):
                    rest = {
                        k: v for k, v in x.items() if k not in ("name", "derivation", "description", "price_source")
                    }
                    out.update(flatten_results(rest, f"{prefix}.{key}"))
            else:
                out[f"{prefix}.count"] = len(data)
        else:
            out[prefix] = ", ".join(str(x) for x in data)
    else:
        out[prefix] = data
    return out


@dataclass(frozen=True)
class Cell:
    value: Any
    delta: float | None = None
    delta_pct: float | None = None


@dataclass(frozen=True)
class Row:
    section: str
    key: str
    cells: tuple[Cell, ...]

    @property
    def differs(self) -> bool:
        return len({repr(c.value) for c in self.cells}) > 1


def _cells(values: list[Any]) -> tuple[Cell, ...]:
    base = values[0]
    cells = [Cell(base)]
    for v in values[1:]:
        numeric = isinstance(v, int | float | Decimal) and isinstance(base, int | float | Decimal)
        if numeric and not isinstance(v, bool) and not isinstance(base, bool):
            delta = float(v) - float(base)
            pct = (delta / float(base) * 100) if base else None
            cells.append(Cell(v, int(delta) if isinstance(v, int) and isinstance(base, int) else delta, pct))
        else:
            cells.append(Cell(v))
    return tuple(cells)


def oldest_first(revisions: list[DesignRevision]) -> list[DesignRevision]:
    """Deltas read forwards in time: the first column is the oldest revision."""
    return sorted(revisions, key=lambda r: (r.created_at, r.pk))


def _qty(results: dict[str, Any], kind: str) -> int | None:
    bom = results.get("bom")
    if not bom:
        return None
    return sum(ln["quantity"] for ln in bom["lines"] if ln["kind"] == kind and not ln["spare"])


def _busbw(results: dict[str, Any], collective: str, size_bytes: int) -> float | None:
    for row in (results.get("collectives") or {}).get("rows", []):
        if row["collective"] == collective and row["size_bytes"] == size_bytes:
            return row["busbw_gbyte_s"]
    return None


def _money(value: Any) -> float | None:
    return None if value is None else float(value)


def _get(results: dict[str, Any], *path: str) -> Any:
    for key in path:
        if not isinstance(results, dict) or key not in results:
            return None
        results = results[key]
    return results


def _tier_labels(revisions: list[DesignRevision]) -> list[str]:
    names: list[str] = []
    for r in revisions:
        for t in r.results["compute_fabric"]["tiers"]:
            if t["name"] not in names:
                names.append(t["name"])
    return names


def _tier_count(results: dict[str, Any], name: str) -> int:
    return sum(t["switch_count"] for t in results["compute_fabric"]["tiers"] if t["name"] == name)


SUMMARY: tuple[tuple[str, str, Any], ...] = (
    ("Network BOM", "$", lambda r: _money(_get(r, "bom", "total_usd"))),
    ("Storage switches", "", lambda r: _get(r, "storage", "switch_count")),
    ("Management switches", "", lambda r: _get(r, "summary", "management_switch_count")),
    ("Transceivers", "", lambda r: _qty(r, "transceiver")),
    ("Cables", "", lambda r: _qty(r, "cable")),
    ("IT power", "kW", lambda r: _get(r, "power", "facility", "it_kw")),
    ("Facility power", "kW", lambda r: _get(r, "power", "facility", "facility_kw")),
    ("Racks", "", lambda r: _get(r, "power", "racks", "rack_count")),
    ("CapEx", "$", lambda r: _money(_get(r, "power", "tco", "capex_usd"))),
    ("TCO", "$", lambda r: _money(_get(r, "power", "tco", "total_usd"))),
    ("Cost per GPU-hour", "$", lambda r: _money(_get(r, "power", "tco", "cost_per_gpu_hour_usd"))),
    ("Bisection", "TB/s", lambda r: _get(r, "compute_fabric", "bisection_tbyte_s")),
    ("All-reduce busbw, 256 MiB", "GB/s", lambda r: _busbw(r, "all_reduce", 2**28)),
    ("All-reduce busbw, 4 GiB", "GB/s", lambda r: _busbw(r, "all_reduce", 2**32)),
    ("All-to-all busbw, 256 MiB", "GB/s", lambda r: _busbw(r, "all_to_all", 2**28)),
)


@dataclass(frozen=True)
class SummaryRow:
    label: str
    unit: str
    cells: tuple[Cell, ...]

    @property
    def differs(self) -> bool:
        return len({repr(c.value) for c in self.cells}) > 1


def summary_rows(revisions: list[DesignRevision]) -> list[SummaryRow]:
    """What an architect compares first: cost, switches per tier, optics, power, racks, TCO, bandwidth."""
    results = [r.results for r in revisions]
    rows = [SummaryRow("GPUs", "", _cells([r.gpu_count for r in revisions]))]
    for i, (label, unit, get) in enumerate(SUMMARY):
        if i == 1:  # compute switches by tier, after the cost
            for name in _tier_labels(revisions):
                rows.append(SummaryRow(f"Compute {name} switches", "", _cells([_tier_count(x, name) for x in results])))
        rows.append(SummaryRow(label, unit, _cells([get(x) for x in results])))
    return rows


def differing_inputs(revisions: list[DesignRevision]) -> list[Row]:
    return [row for row in comparison_rows(revisions) if row.section == "input" and row.differs]


def comparison_rows(revisions: list[DesignRevision]) -> list[Row]:
    rows: list[Row] = []
    for name in REQUIREMENT_FIELDS:
        rows.append(Row("input", field_path(name), _cells([getattr(r, name) for r in revisions])))
    flats = [flatten_results(r.results) for r in revisions]
    keys: list[str] = []
    seen: set[str] = set()
    for flat in flats:
        for k in flat:
            if k not in seen:
                seen.add(k)
                keys.append(k)
    for k in keys:
        rows.append(Row("result", k, _cells([flat.get(k) for flat in flats])))
    return rows


def bom_diff_rows(revisions: list[DesignRevision]):
    """The BOM diff by part number of these revisions (bom.diff), oldest first; column labels beside it."""
    from bom.diff import bom_diff
    from designer.services import stored_bom

    labels = [f"#{i + 1} r{r.number}" for i, r in enumerate(revisions)]
    return bom_diff([stored_bom(r) for r in revisions]), labels
