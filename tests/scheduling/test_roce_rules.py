"""The RoCE tuning sheet's rules by hand: inclusive input limits, whole-byte rounding, the texts an engineer reads."""

from __future__ import annotations

import pytest

from scheduling import SchedulerInputError
from scheduling.roce import roce_tuning

S8 = dict(link_gbps=400, cable_m=30, switch_buffer_mb=100, switch_ports=64)


@pytest.mark.parametrize(
    ("kw", "field", "message"),
    [
        ({"cable_m": -0.1}, "cable_m", "0 to 10,000 m"),
        ({"cable_m": 10_000.1}, "cable_m", "0 to 10,000 m"),
        ({"switch_ports": 0}, "switch_ports", "1 to 4,096"),
        ({"switch_ports": 4097}, "switch_ports", "1 to 4,096"),
        ({"lossless_priorities": 3}, "lossless_priorities", "1 or 2 lossless priorities"),
        ({"lossless_priorities": 0}, "lossless_priorities", "1 or 2 lossless priorities"),
        ({"response_ns": -1}, "response_ns", "0 to 100,000 ns"),
        ({"response_ns": 100_001}, "response_ns", "0 to 100,000 ns"),
        ({"link_gbps": 0}, "link_gbps", "must be above 0"),
        ({"switch_buffer_mb": 0}, "switch_buffer_mb", "must be above 0"),
        ({"base_rtt_us": 0}, "base_rtt_us", "must be above 0"),
        ({"mtu_bytes": 1500}, "mtu_bytes", "a RoCE MTU: one of 256, 512, 1024, 2048, 4096"),
    ],
)
def test_refusals_name_the_field(kw, field, message):
    with pytest.raises(SchedulerInputError) as e:
        roce_tuning(**{**S8, **kw})
    assert e.value.errors == {field: message}


@pytest.mark.parametrize(
    "kw",
    [{"cable_m": 0}, {"cable_m": 10_000}, {"switch_ports": 1}, {"switch_ports": 4096}, {"response_ns": 0},
     {"response_ns": 100_000}, {"lossless_priorities": 2}, {"mtu_bytes": 256}, {"switch_buffer_mb": None}],
)  # fmt: skip
def test_the_limits_themselves_are_allowed(kw):
    roce_tuning(**{**S8, **kw})


def test_headroom_is_rounded_up_to_whole_bytes_only_when_it_has_a_fraction():
    """100 Gbit/s = 12.5 B/ns, 1 m, MTU 1024: 2 × 1,024 + 64 + 2 × 1 × 5 × 12.5 (125) = 2,237 B; a 1 ns response
    adds 12.5 B → 2,249.5 → 2,250 B; with 0 ns it stays 2,237 (not 2,238)."""
    base = dict(link_gbps=100, cable_m=1, switch_buffer_mb=None, switch_ports=32, mtu_bytes=1024)
    assert roce_tuning(**base, response_ns=1).headroom_bytes == 2250
    assert roce_tuning(**base, response_ns=0).headroom_bytes == 2237


def test_ecn_thresholds_round_to_whole_bytes():
    """100 Gbit/s × 0.3331 µs = 12.5 B/ns × 333.1 ns = 4,163.75 B → Kmin 4,164; Kmax 2 × 4,163.75 = 8,327.5 → 8,328
    (round half to even)."""
    t = roce_tuning(link_gbps=100, cable_m=1, switch_buffer_mb=None, switch_ports=32, base_rtt_us=0.3331)
    assert (t.ecn_kmin_bytes, t.ecn_kmax_bytes) == (4164, 8328)
    assert t.derivations["ecn_kmin_bytes"] == "one BDP: 100 Gbit/s = 12.5 B/ns × 0.3331 µs base RTT = 4,164 B"
    assert t.derivations["ecn_kmax_bytes"] == "2 × BDP = 8,328 B"


def test_the_seed_sheet_texts():
    """S8 as in test_s8_roce_thresholds: headroom 73,256 B, share 1,562,500 B, XOFF 1,489,244 B, XON 1,481,052 B."""
    d = roce_tuning(**S8).derivations
    assert d["headroom_bytes"] == (
        "2 × 4096 B MTU + 64 B pause frame + 2 × 30 m × 5 ns/m × 50 B/ns (15,000 B on the wire) + 1000 ns "
        "response × 50 B/ns (50,000 B) = 73,256 B"
    )
    assert d["xoff_bytes"] == (
        "100 MB ÷ 64 ports ÷ 1 lossless priority = 1,562,500 B − 73,256 B headroom = 1,489,244 B"
    )
    assert d["xon_bytes"] == "XOFF 1,489,244 B − 2 × 4096 B = 1,481,052 B"
    assert d["ethernet_mtu_min_bytes"] == (
        "4096 B RoCE payload + 66 B of Ethernet, 802.1Q, IPv4, UDP, BTH, ICRC and FCS = 4,162 B on every hop"
    )


def test_two_lossless_priorities_halve_the_share():
    """100 MB ÷ 64 ÷ 2 = 781,250 B − 73,256 B headroom = 707,994 B XOFF; XON 707,994 − 8,192 = 699,802 B."""
    t = roce_tuning(**S8, lossless_priorities=2)
    assert (t.xoff_bytes, t.xon_bytes) == (707_994, 699_802)
    assert "÷ 2 lossless priorities = 781,250 B" in t.derivations["xoff_bytes"]


def test_a_buffer_share_below_the_headroom_fails_its_check():
    """1 MB over 64 ports = 15,625 B a port < 73,256 B headroom: XOFF 15,625 − 73,256 = −57,631 B; both checks fail
    (Kmax 400,000 B is not below a negative XOFF)."""
    t = roce_tuning(**{**S8, "switch_buffer_mb": 1})
    assert t.xoff_bytes == -57_631
    (ecn_ok, _), (fits_ok, fits) = t.checks
    assert not ecn_ok and not fits_ok
    assert fits == "the port's buffer share 15,625 B cannot hold the 73,256 B headroom"
    assert roce_tuning(**S8).checks[1] == (True, "the port's buffer share 1,562,500 B holds the 73,256 B headroom")


def test_a_share_exactly_the_headroom_leaves_no_room_for_xoff():
    """73,256 B × 64 ports = 4,688,384 B = 4.688384 MB: XOFF 0 — the pause would go out with an empty queue, so
    the share does not hold the headroom (the check needs XOFF > 0)."""
    t = roce_tuning(**{**S8, "switch_buffer_mb": 4.688384})
    assert t.xoff_bytes == 0
    assert t.checks[1] == (False, "the port's buffer share 73,256 B cannot hold the 73,256 B headroom")


@pytest.mark.parametrize("mtu", [256, 512, 1024, 2048, 4096])
def test_every_roce_mtu_is_accepted(mtu):
    """The InfiniBand/RoCE path MTUs (IBTA: 256 … 4096 B); the Ethernet MTU must carry it + 66 B of headers."""
    assert roce_tuning(**S8, mtu_bytes=mtu).ethernet_mtu_min_bytes == mtu + 66


def test_without_a_buffer_the_sheet_says_what_is_missing():
    t = roce_tuning(**{**S8, "switch_buffer_mb": None})
    assert (t.xoff_bytes, t.xon_bytes) == (None, None)
    assert t.checks == (
        (False, "switch buffer not given: PFC XOFF/XON cannot be placed, nor checked against ECN Kmax (400,000 B); "
                "give the switch's packet buffer (datasheet)"),
    )  # fmt: skip
    assert t.derivations["xoff_bytes"] == t.derivations["xon_bytes"] == "switch buffer not given"


def test_ecn_kmax_equal_to_xoff_is_not_below_it():
    """XOFF = Kmax = 400,000 B when a port's share is 400,000 + 73,256 = 473,256 B: × 64 = 30.288384 MB. Marking
    and pausing would start together — the check wants ECN strictly first."""
    t = roce_tuning(**{**S8, "switch_buffer_mb": 30.288384})
    assert (t.xoff_bytes, t.ecn_kmax_bytes) == (400_000, 400_000)
    assert t.checks[0] == (False, "ECN Kmax 400,000 B is not below PFC XOFF 400,000 B: PFC would pause before ECN "
                                  "acts; lower Kmax or give the lossless class more buffer")  # fmt: skip


def test_one_byte_above_the_headroom_holds_it():
    """(73,256 + 1) B × 64 = 4.688448 MB: XOFF 1 B — the share holds the headroom, barely."""
    t = roce_tuning(**{**S8, "switch_buffer_mb": 4.688448})
    assert t.xoff_bytes == 1
    assert t.checks[1] == (True, "the port's buffer share 73,257 B holds the 73,256 B headroom")
