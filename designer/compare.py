"""Side-by-side comparison rows for 2–4 revisions: every input and every result.

Results are flattened to scalar leaves (``compute_fabric.tiers.leaf.switch_count``);
derivation strings are left out of the table (each design page shows them). Deltas are
against the first column, absolute and in per cent.
"""

from __future__ import annotations

from dataclasses import dataclass
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
        if isinstance(v, int | float) and isinstance(base, int | float) and not isinstance(v, bool):
            delta = v - base
            pct = (delta / base * 100) if base else None
            cells.append(Cell(v, delta, pct))
        else:
            cells.append(Cell(v))
    return tuple(cells)


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
