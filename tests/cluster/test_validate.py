"""The pure validator: one message per bad field, all at once, no Django involved."""

from __future__ import annotations

from decimal import Decimal

import pytest

from cluster.requirements import FIELDS, Requirements
from cluster.validate import RequirementsError, flatten, validate, validate_flat


def errors_of(flat: dict) -> dict[str, list[str]]:
    with pytest.raises(RequirementsError) as exc:
        validate_flat(flat)
    return exc.value.errors


def test_defaults_round_trip_through_flat_and_nested():
    r = Requirements()
    assert validate_flat(r.flat()) == r
    assert validate(r.nested()) == r
    assert Requirements.from_flat(r.flat()) == r


def test_every_field_is_declared_once_with_a_unit_or_a_count_name():
    units = ("_gbps", "_tb", "_mb", "_s", "_h", "_w", "_kw", "_u", "_usd", "_pct", "_frac", "_c", "_kwh", "_per_param")
    counts = (
        "count",
        "_nodes",
        "_spines",
        "per_group",
        "per_node",
        "per_tor",
        "per_rack",
        "per_row",
        "ports",
        "radix",
        "drives",
        "uplinks",
        "nics",
        "_groups",
        "_slots",
    )
    for f in FIELDS:
        if f.spec.kind in ("int", "real", "money") and not f.spec.choices:
            name = f.flat
            ok = name.endswith(units) or any(c in name for c in counts) or "per_" in name or "billion" in name
            ok = ok or name in ("oversubscription", "agg_oversubscription", "global_oversubscription", "pue")
            ok = ok or name.endswith(("_oversubscription", "_years", "_fte", "_days", "_kg_co2_per_kwh"))
            ok = ok or name == "wl_seed"  # a random seed: an identifier, not a quantity
            assert ok, f"{name} carries no unit"


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("gpu_count", "abc", "'abc' is not a whole number"),
        ("gpu_count", "²", "'²' is not a whole number"),  # unicode digits pass str.isdigit()
        ("gpu_count", 2.5, "2.5 is not a whole number"),
        ("gpu_count", True, "True is not a whole number"),
        ("gpu_count", -8, "-8 is too small; allowed: 1 to 10,000,000"),
        ("oversubscription", "nan", "'nan' is not a number"),
        ("oversubscription", float("inf"), "is not a finite number"),
        ("oversubscription", 0.5, "0.5 is too small; allowed: 1 to 64"),
        ("electricity_usd_per_kwh", "0.123456", "more than 4 decimal places"),
        ("gpu_node_price_usd", "-1", "-1 is too small; allowed: 0 to 1,000,000,000,000"),
        ("topology", "ring", "'ring' is not a valid choice; choose from rail_optimized"),
        ("tiers", 4, "4 is not a valid choice; choose from 1, 2, 3"),
        ("torus_dims", "4x4", "write the torus as XxYxZ"),
        ("name", "", "may not be empty"),
        ("name", "x" * 201, "at most 200 characters"),
        ("switch_radix", "", "required; the default is 64"),
    ],
)
def test_bad_values_get_a_message_that_says_what_is_allowed(field, value, message):
    errors = errors_of({field: value})
    assert message in " ".join(errors[field]), errors


def test_all_field_errors_of_a_request_come_at_once():
    errors = errors_of({"gpu_count": "abc", "nic_gbps": -1, "pue": 9, "bogus": 1})
    assert set(errors) == {"gpu_count", "nic_gbps", "pue", "bogus"}


def test_empty_optional_values_mean_not_given_and_strings_parse():
    r = validate_flat({"gpu_count": " 4096 ", "pue": "", "tiers": "", "electricity_usd_per_kwh": "0.1"})
    assert r.cluster.gpu_count == 4096 and r.power.pue is None and r.compute_fabric.tiers is None
    assert r.power.electricity_usd_per_kwh == Decimal("0.1")


def test_a_switch_model_fills_radix_and_speed_unless_typed_differently():
    r = validate_flat({"switch_model": "Q3400", "nic_gbps": 800})
    assert (r.compute_fabric.switch_radix, r.compute_fabric.switch_port_gbps) == (144, 800.0)
    errors = errors_of({"switch_model": "Q3400", "switch_radix": 64})
    assert "Q3400 has 144 here" in errors["switch_radix"][0]


def test_nics_follow_gpus_per_node_when_not_given():
    assert validate_flat({"gpu_count": 576, "gpus_per_node": 4}).compute_fabric.nics_per_node == 4
    assert validate_flat({"gpu_count": 576, "gpus_per_node": 4, "nics_per_node": 8}).compute_fabric.nics_per_node == 8


def test_nested_layout_errors_use_dotted_paths_and_node_count():
    with pytest.raises(RequirementsError) as exc:
        validate({"gpu_count": 64, "storage": {"nic_gbps": "fast", "bogus": 1}})
    assert set(exc.value.errors) == {"storage.nic_gbps", "storage.bogus"}
    assert flatten({"node_count": 16, "gpus_per_node": 4})["gpu_count"] == 64


def test_an_optional_choice_may_be_left_empty():
    r = validate_flat({"switch_model": "", "switch_radix": 48, "switch_port_gbps": 200, "nic_gbps": 200})
    assert r.compute_fabric.switch_model == "" and r.compute_fabric.switch_radix == 48
    assert validate_flat({"cooling_type": ""}).cooling.type == ""
