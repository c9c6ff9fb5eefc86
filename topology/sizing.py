"""Aggregate sizing formulas and the per-switch port split.

Source: the seed chapter §14.1 ("网络规模估算公式", B_min = N × B_GPU / O_ratio, and
the 20 % port headroom it recommends), and the classic folded-Clos port split where
a switch of radix k gives d ports down and u ports up with d·B_down ≤ r·u·B_up.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from topology.spec import FabricRequestError

DEFAULT_PORT_HEADROOM_FRAC = 0.20
"""Seed §14.1: reserve 20 % of ports for growth and failure replacement."""


def aggregate_bandwidth_gbps(endpoint_count: int, endpoint_gbps: float) -> float:
    """Total one-way injection bandwidth of all endpoints [Gbit/s] (seed F3/F5)."""
    return endpoint_count * endpoint_gbps


def min_uplink_bandwidth_gbps(endpoint_count: int, endpoint_gbps: float, oversubscription: float) -> float:
    """B_min = N × B / O: the uplink bandwidth a target oversubscription needs [Gbit/s].

    Seed §14.1, worked for 2,048 × 400G at 1.5:1 → 546,133 Gbit/s (F6).
    """
    if oversubscription < 1:
        raise FabricRequestError.single("oversubscription", f"must be ≥ 1, got {oversubscription}")
    return endpoint_count * endpoint_gbps / oversubscription


@dataclass(frozen=True)
class PortBudget:
    """How many switch ports a bandwidth needs, with the derivation and headroom."""

    bandwidth_gbps: float
    port_gbps: float
    port_count: int
    headroom_frac: float
    port_count_with_headroom: int
    derivation: str


def ports_for_bandwidth(
    bandwidth_gbps: float, port_gbps: float, headroom_frac: float = DEFAULT_PORT_HEADROOM_FRAC
) -> PortBudget:
    """Ports of ``port_gbps`` needed to carry ``bandwidth_gbps``: ⌈bandwidth / port⌉.

    Rounding is always up: rounding down (the seed rounds 1,365.3 to 1,365 in F6)
    leaves less uplink than the target ratio asks for.
    """
    if port_gbps <= 0:
        raise FabricRequestError.single("switch_port_gbps", f"must be positive, got {port_gbps}")
    if headroom_frac < 0:
        raise FabricRequestError.single("headroom_frac", f"must be ≥ 0, got {headroom_frac}")
    exact = bandwidth_gbps / port_gbps
    ports = math.ceil(exact - 1e-9)
    with_headroom = math.ceil(ports * (1 + headroom_frac) - 1e-9)
    derivation = f"⌈{bandwidth_gbps:,.0f} Gbit/s ÷ {port_gbps:g} Gbit/s⌉ = ⌈{exact:,.2f}⌉ = {ports:,} ports"
    if not math.isclose(exact, round(exact)) and math.floor(exact) != ports:
        derivation += (
            f" (rounding down to {math.floor(exact):,} would fall short of the bandwidth "
            f"by {bandwidth_gbps - math.floor(exact) * port_gbps:,.0f} Gbit/s)"
        )
    derivation += f"; with {headroom_frac:.0%} headroom ⌈{ports:,} × {1 + headroom_frac:g}⌉ = {with_headroom:,} ports"
    return PortBudget(bandwidth_gbps, port_gbps, ports, headroom_frac, with_headroom, derivation)


def switches_for_bandwidth(bandwidth_gbps: float, radix: int, port_gbps: float) -> int:
    """⌈bandwidth / (radix × port speed)⌉ switches (seed F3: 102.4 Tbit/s → 4 × 64 × 400G)."""
    return math.ceil(bandwidth_gbps / (radix * port_gbps) - 1e-9)


@dataclass(frozen=True)
class PortSplit:
    down: int
    up: int
    oversubscription: float


def port_split(
    radix: int,
    down_gbps: float,
    up_gbps: float,
    oversubscription: float,
    field_name: str = "oversubscription",
) -> PortSplit:
    """Largest down-port count d with ⌈d·B_down / (r·B_up)⌉ uplinks fitting in the radix.

    For equal speeds at 1:1 this is the classic k/2 down, k/2 up; at 3:1 on 64 ports,
    48 down and 16 up. The achieved ratio d·B_down / (u·B_up) is never above the target.
    """
    for down in range(radix - 1, 0, -1):
        up = math.ceil(down * down_gbps / (oversubscription * up_gbps) - 1e-9)
        if up >= 1 and down + up <= radix:
            return PortSplit(down, up, down * down_gbps / (up * up_gbps))
    raise FabricRequestError.single(
        field_name,
        f"a {radix}-port switch cannot give even one {down_gbps:g}G down port "
        f"at {oversubscription:g}:1 with {up_gbps:g}G uplinks",
    )


def largest_divisor_at_most(n: int, limit: int) -> int:
    """Largest divisor of n that is ≤ limit (≥ 1)."""
    best = 1
    for d in range(1, math.isqrt(n) + 1):
        if n % d == 0:
            for c in (d, n // d):
                if best < c <= limit:
                    best = c
    return best
