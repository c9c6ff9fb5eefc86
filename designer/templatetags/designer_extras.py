from __future__ import annotations

from django import template

from designer.labels import key_label, value_label

register = template.Library()


@register.filter
def compact(value):
    if value is None:
        return "—"
    if isinstance(value, float):
        return f"{value:,.6g}" if abs(value) < 1e6 else f"{value:,.0f}"
    if isinstance(value, int) and not isinstance(value, bool):
        return f"{value:,}"
    return value


@register.filter
def bytes_size(value):
    """A message size in binary units where it is a whole number of them: 1 MiB (1,048,576 B), 4 GiB
    (4,294,967,296 B) — not Django's filesizeformat, which divides by 1,024 and writes "MB"."""
    from designer.charts import bytes_label

    return bytes_label(int(value))


@register.filter
def signed(value):
    if isinstance(value, float) and not value.is_integer():
        return f"{value:+,.4g}"
    return f"{int(value):+,}"


@register.filter
def signed_pct(value):
    return f"{value:+.1f} %"


@register.filter
def amount(value, unit: str = ""):
    """A summary figure as on the design page: $1,234,567 or 2,779 or 0.8741."""
    if value is None:
        return "—"
    x = float(value)
    if unit == "$":
        return f"${x:,.2f}" if abs(x) < 100 else f"${x:,.0f}"
    if x.is_integer():
        return f"{int(x):,}"
    return f"{x:,.2f}" if abs(x) >= 10 else f"{x:,.4g}"


@register.filter
def signed_amount(value, unit: str = ""):
    x = float(value)
    if unit == "$":
        return f"{'+' if x >= 0 else '−'}${abs(x):,.2f}" if abs(x) < 100 else f"{'+' if x >= 0 else '−'}${abs(x):,.0f}"
    if x.is_integer():
        return f"{int(x):+,}"
    return f"{x:+,.2f}" if abs(x) >= 10 else f"{x:+,.4g}"


@register.filter
def dictget(mapping, key):
    """``mapping|dictget:key`` — a mapping's value by a variable key ("" when absent)."""
    return mapping.get(key, "") if hasattr(mapping, "get") else ""


@register.filter
def pct(value, places: int = 1):
    """A share 0–1 as a percentage (one decimal unless told; — when missing)."""
    if value is None or value == "":
        return "—"
    return f"{float(value) * 100:.{int(places)}f} %"


@register.filter
def cell(value):
    """A comparison cell: a share as %, a float to 4 significant digits, yes/no, — when missing."""
    if value is None:
        return "—"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:,.4g}"
    return compact(value)


@register.filter
def label(key):
    """A result key as a reader names it, with its unit (designer/labels.py)."""
    return key_label(key)


@register.filter
def human(value):
    """An enum value by its name ("fat_tree" → "Fat-tree / folded Clos"); other values unchanged."""
    return value_label(value)
