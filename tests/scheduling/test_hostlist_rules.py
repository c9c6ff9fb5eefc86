"""Slurm hostlist expressions by hand (slurm.conf(5) NodeName, topology.conf(5) "Nodes=tux[0-3,12,18-20]")."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scheduling.hostlist import compress, expand, name_width, node_names, range_hostlist


@pytest.mark.parametrize(("total", "width"), [(1, 3), (5, 3), (999, 3), (1000, 4), (12_345, 5)])
def test_name_width_is_at_least_three_digits(total, width):
    """gpu001 as the seed writes them; a 1,000-node cluster needs gpu0001 … gpu1000."""
    assert name_width(total) == width


def test_node_names_are_padded_and_counted_from_first():
    assert node_names("gpu", 9, 3, 3) == ["gpu009", "gpu010", "gpu011"]
    assert node_names("n", 1, 0, 3) == []


@pytest.mark.parametrize(
    ("names", "expr"),
    [
        (["gpu001", "gpu002", "gpu003", "gpu007"], "gpu[001-003,007]"),
        (["leaf1", "leaf2", "spine1"], "leaf[1-2],spine1"),  # one name alone: no brackets
        (["spine1"], "spine1"),
        (["gpu001", "gpu003"], "gpu[001,003]"),  # two single numbers of one prefix: brackets
        (["gpu001", "login", "gpu002"], "gpu001,login,gpu002"),  # order kept: runs only of neighbours
        (["gpu001", "leaf1", "gpu002", "gpu003"], "gpu001,leaf1,gpu[002-003]"),
        (["gpu9", "gpu10"], "gpu9,gpu10"),  # widths differ (1 and 2 digits): never one range
        (["a1", "a2", "b1", "b2", "a3"], "a[1-2],b[1-2],a3"),
        ([], ""),
    ],
)
def test_compress(names, expr):
    assert compress(names) == expr
    assert expand(expr) == names


def test_expand_reads_every_part():
    """A plain name before a bracketed list, a list after it, single numbers and ranges in one bracket."""
    assert expand("login1,gpu[1-2]") == ["login1", "gpu1", "gpu2"]
    assert expand("gpu[08-10,12],mgmt") == ["gpu08", "gpu09", "gpu10", "gpu12", "mgmt"]


@settings(max_examples=300, deadline=None)
@given(
    prefix=st.sampled_from(["gpu", "", "n-", "rack1", "a\n", "x_", "ｇ"]),
    first=st.integers(-3, 1200),
    count=st.integers(0, 1500),
    width=st.integers(1, 5),
)
def test_range_hostlist_is_compress_of_the_names(prefix, first, count, width):
    """The partition plan's fast hostlist (no names made) is exactly the compressed names."""
    assert range_hostlist(prefix, first, count, width) == compress(node_names(prefix, first, count, width))
