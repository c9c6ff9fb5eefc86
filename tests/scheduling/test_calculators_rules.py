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
    1,000 ns PFC response, and test_roce_rules.py's worked case: 400 Gbit/s, 30 m, 100 MB, 64 ports): given
    outright they give the same sheet, and a sheet changed in any one of them differs."""
    stated = {"lossless_priorities": 1, "mtu_bytes": 4096, "base_rtt_us": 4, "response_ns": 1000, "link_gbps": 400,
              "cable_m": 30, "switch_buffer_mb": 100, "switch_ports": 64}  # fmt: skip
    for k in ("cable_m", "switch_buffer_mb"):
        assert run("roce", {}) != run("roce", {**stated, k: stated[k] + 1})
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


def test_a_text_of_exactly_twenty_thousand_characters_is_taken():
    """The limit is 20,000 characters a text input: 'a 1' padded with spaces to 20,000 is read, one more refused."""
    text = "a 1" + " " * (20_000 - 3)
    assert run("fair-tree", {"accounts": text})["shares"] == {"a": 1.0}
    assert _refused("fair-tree", {"accounts": text + " "}) == {"accounts": "at most 20,000 characters"}


def test_two_hundred_accounts_and_amounts_at_most():
    accounts = "\n".join(f"t{i} 1" for i in range(200))
    assert len(run("fair-tree", {"accounts": accounts})["shares"]) == 200
    assert _refused("fair-tree", {"accounts": accounts + "\nextra 1"}) == {"accounts": "1 to 200 accounts"}
    amounts = ", ".join(f"r{i}=1" for i in range(200))
    assert run("drf", {"capacity": amounts, "users": "A: r0=1"})["tasks"] == {"A": 1}
    assert _refused("drf", {"capacity": amounts + ", r200=1"}) == {"capacity": "at most 200 entries"}
    assert _refused("packing", {"total_gpu_slots": 64.0}) == {"total_gpu_slots": "a whole number, got 64.0"}


def test_fifty_users_at_most():
    """50 users of ⟨1 gpu⟩ on 50 GPUs: one task each; a 51st is refused."""
    users = "\n".join(f"u{i}: gpu=1" for i in range(50))
    out = run("drf", {"capacity": "gpu=50", "users": users})
    assert set(out["tasks"].values()) == {1} and len(out["tasks"]) == 50
    assert _refused("drf", {"capacity": "gpu=50", "users": users + "\nu50: gpu=1"}) == {"users": "at most 50 users"}


def test_a_sibling_named_like_its_parent_is_not_a_repeat():
    """'a/b' under an 'a' that has a child 'a': b is new; only a path given twice is refused."""
    out = run("fair-tree", {"accounts": "a 1\na/a 1\na/b 1"})
    assert out["shares"] == {"a": 1.0, "a/a": 0.5, "a/b": 0.5}
    assert _refused("fair-tree", {"accounts": "a 1\na/b 1\na/b 2"}) == {"accounts": "'a/b' is listed twice"}


def test_drf_users_as_lines_and_as_a_list():
    """S1 as a JSON list: a user without a weight weighs 1 — the derivation then says nothing of weights (it does
    when a weight is 2). A line without 'name:' or with an empty name, and a list entry without a name, are
    refused on the users field."""
    a = {"name": "A", "demand": {"gpu": 1, "cpu": 4}, "weight": 1}
    out = run("drf", {"users": [a, {"name": "B", "demand": {"gpu": 3, "cpu": 1}}]})
    assert out["tasks"] == {"A": 3, "B": 2} and "weight" not in out["derivation"]
    assert (
        "(weight 2)"
        in run("drf", {"users": [a, {"name": "B", "demand": {"gpu": 3, "cpu": 1}, "weight": 2}]})["derivation"]
    )
    for users in ("A gpu=1, cpu=4", ": gpu=1, cpu=4"):
        assert set(_refused("drf", {"users": users})) == {"users"}
    assert _refused("drf", {"users": [{"demand": {"gpu": 1}}]}) == {"users": "a list of {name, demand, weight}"}
    assert _refused("drf", {"users": ["A"]}) == {"users": "a list of {name, demand, weight}"}


def test_the_api_schema_of_each_input_kind():
    """An int is an integer, a decimal or real a number, a choice a string of its choices, a text input its JSON
    types (one type plainly, two as oneOf); unknown inputs are not allowed."""
    from scheduling.calculators import Input, request_schema

    packing = request_schema("packing")
    assert packing == {
        "type": "object",
        "properties": {
            "allocated_gpu_slots": {"type": "integer", "description": "Allocated GPU slots"},
            "total_gpu_slots": {"type": "integer", "description": "Total GPU slots"},
        },
        "additionalProperties": False,
    }
    mig = request_schema("mig")["properties"]
    assert mig["gpu_model"]["type"] == "string" and "H100-SXM5" in mig["gpu_model"]["enum"]
    assert mig["demand"]["oneOf"] == [{"type": "string"}, {"type": "object"}]
    assert request_schema("cost")["properties"]["gpu_hours"]["type"] == "number"
    assert Input("x", "X", "text", "", (), ("array",)).schema() == {"type": "array"}


def test_json_types_refused_by_name():
    """true is no number (bool is an int in Python); a float is no integer, 8.0 as a Decimal is; a choice is text;
    a text input takes its JSON types only."""
    from decimal import Decimal

    from scheduling.calculators import json_type_errors

    assert json_type_errors("packing", {"total_gpu_slots": True}) == {"total_gpu_slots": "must be integer"}
    assert json_type_errors("packing", {"total_gpu_slots": 8.5}) == {"total_gpu_slots": "must be integer"}
    assert json_type_errors("packing", {"total_gpu_slots": Decimal("8.0")}) == {}
    assert json_type_errors("cost", {"gpu_hours": "12"}) == {"gpu_hours": "must be number"}
    assert json_type_errors("mig", {"gpu_model": 7}) == {"gpu_model": "must be string"}
    assert json_type_errors("mig", {"demand": [1]}) == {"demand": "must be string or object"}
    assert json_type_errors("drf", {"users": [], "capacity": {"gpu": 1}}) == {}
    assert json_type_errors("drf", []) == {"body": "a JSON object of the calculator's inputs"}
    assert json_type_errors("packing", {"slots": 1}) == {
        "slots": "unknown input; packing takes allocated_gpu_slots, total_gpu_slots"
    }
