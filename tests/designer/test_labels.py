"""Human labels (#38): no raw key or snake_case enum on a page; money, shares and units written out."""

from __future__ import annotations

import html
import re

import pytest
from django.core.management import call_command
from django.test import Client

from cluster.requirements import FIELD_BY_FLAT
from designer.labels import key_label, shown, value_label
from designer.models import Design

SNAKE = re.compile(r"\b[a-z0-9]+(?:_[a-z0-9]+)+\b")
# names an auditor looks up, quoted as names in derivations: the requirement fields and the collective model's
# calibrated parameters (topology/calibration.py, topology/collective_inputs.py)
NAMES = {*FIELD_BY_FLAT, *(f.path.rsplit(".", 1)[-1] for f in FIELD_BY_FLAT.values())} | {
    "bw_efficiency",
    "latency_offset_us",
    "simple_latency_offset_us",
    "host_overhead_us",
}


def test_keys_values_and_figures_by_hand():
    assert key_label("min_uplink_bandwidth_gbps") == "uplink bandwidth the ratio needs [Gbit/s]"
    assert key_label("storage_read_gbyte_s") == "storage read [GB/s]"  # the longest unit suffix wins over _s
    assert key_label("offered_load_frac") == "offered load (share)"
    assert key_label("spare_count") == "spare (count)"
    assert value_label("fat_tree") == "Fat-tree / folded Clos"  # the form's own wording
    assert value_label("direct_to_chip") == "Direct-to-chip liquid"
    assert value_label("reduce_scatter") == "reduce-scatter"
    assert value_label(3) == 3 and value_label("QM9700") == "QM9700"
    assert shown("total_usd", "153600.00") == "$153,600.00"
    assert shown("efficiency_frac", 0.484375) == "48.4 %"
    assert shown("xoff_bytes", 1489244) == "1,489,244"


@pytest.mark.django_db
def test_design_pages_and_calculators_show_no_raw_keys(django_user_model):
    """Every demo design page's visible text (scripts and attribute values aside) has no snake_case word, save
    file names, code references and the field and parameter names derivations quote for the auditor."""
    call_command("load_demo")
    user = django_user_model.objects.create_user("reader", password="x-long-pass-1")
    c = Client()
    c.force_login(user)
    pages = [f"/designs/{d.pk}/" for d in Design.objects.all()] + ["/tools/?calc=cost", "/tools/?calc=roce"]
    raw: dict[str, set[str]] = {}
    for url in pages:
        text = c.get(url).content.decode()
        text = re.sub(r"<(script|code|pre|textarea|select)\b.*?</\1>", " ", text, flags=re.S)
        text = html.unescape(re.sub(r"<[^>]+>", " ", text))
        text = re.sub(r"\S+\.(?:conf|yaml|sh|csv|xlsx|zip|json)\b", " ", text)  # file names
        text = re.sub(r"\b\w+(?:\.\w+)+\b", " ", text)  # code references (module.NAME, section.field)
        for word in set(SNAKE.findall(text)) - NAMES:
            raw.setdefault(word, set()).add(url)
    assert not raw, " ".join(sorted(raw))
