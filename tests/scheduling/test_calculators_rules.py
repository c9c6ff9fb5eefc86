"""scheduling/calculators.py's parsing and limits by hand (pure): what the defaults state, where a notation is
refused and at which count a limit starts. run() fills every input from its default, so the calculators read
only what it hands them."""

from __future__ import annotations

import pytest

from scheduling import SchedulerInputError
from scheduling.calculators import MAX_ITEMS, MAX_TEXT, run


def _refused(name: str, inputs: dict) -> dict[str, str]:
    with pytest.raises(SchedulerInputError) as exc:
        run(name, inputs)
    return exc.value.errors


def test_packing_default_is_the_seeds_31_of_64():
    """S3: 31 allocated of 64 slots = 0.484375, below 50 % → repack."""
    out = run("packing", {})
    assert (out["efficiency_frac"], out["repack"]) == (31 / 64, True)


def test_roce_defaults_are_the_seeds_mtu_and_one_lossless_priority():
    """S8: MTU 4096 end to end, one lossless priority; the defaults of the sheet are those (and 4 µs base RTT,
    1,000 ns PFC response): given outright they give the same sheet."""
    stated = {"lossless_priorities": 1, "mtu_bytes": 4096, "base_rtt_us": 4, "response_ns": 1000}
    assert run("roce", {}) == run("roce", stated)
    assert run("roce", {}) != run("roce", {**stated, "mtu_bytes": 2048})


def test_fair_tree_derivations_name_every_account_but_the_root():
    out = run("fair-tree", {"accounts": "a 1\nb 3"})
    assert out["shares"] == {"a": 0.25, "b": 0.75}
    assert set(out["derivations"]) == {"a", "b"}


def test_fair_tree_takes_up_to_the_account_limit():
    """MAX_ITEMS accounts are taken, one more is refused."""
    accounts = "\n".join(f"t{i} 1" for i in range(MAX_ITEMS))
    assert len(run("fair-tree", {"accounts": accounts})["shares"]) == MAX_ITEMS
    assert "accounts" in _refused("fair-tree", {"accounts": accounts + "\nextra 1"})


def test_a_text_input_over_the_limit_is_refused_by_name():
    errors = _refused("fair-tree", {"accounts": "a 1\n" + "x" * MAX_TEXT})
    assert errors == {"accounts": f"at most {MAX_TEXT:,} characters"}


def test_an_amount_without_a_name_or_an_equals_sign_is_refused():
    """'gpu9' has no '=': refused as a notation error on the field, not read as a name with an empty amount; 'g pu=9'
    is not a name."""
    errors = _refused("drf", {"capacity": "gpu9, cpu=18"})
    assert errors == {"capacity": "write name=amount pairs separated by commas; 'gpu9' is not one"}
    assert "capacity" in _refused("drf", {"capacity": "g pu=9"})


def test_an_empty_or_missing_number_is_required():
    assert _refused("packing", {"allocated_gpu_slots": ""}) == {"allocated_gpu_slots": "required"}
    assert _refused("packing", {"allocated_gpu_slots": None}) == {"allocated_gpu_slots": "required"}
