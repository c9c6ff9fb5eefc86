from __future__ import annotations

from django import template

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
def signed(value):
    if isinstance(value, float) and not value.is_integer():
        return f"{value:+,.4g}"
    return f"{int(value):+,}"


@register.filter
def signed_pct(value):
    return f"{value:+.1f} %"
