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

SKIP_KEYS = {"derivations", "derivation", "checks"}


def flatten_results(data: Any, prefix: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {}
    if isinstance(data, dict):
        for k, v in data.items():
            if k in SKIP_KEYS:
                continue
            out.update(flatten_results(v, f"{prefix}.{k}" if prefix else k))
    elif isinstance(data, list):
        if all(isinstance(x, dict) and "name" in x for x in data):
            for x in data:
                out.update(flatten_results({k: v for k, v in x.items() if k != "name"}, f"{prefix}.{x['name']}"))
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
