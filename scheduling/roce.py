"""RoCE lossless-fabric tuning sheet (seed §14.2.7 and S8), pure: every figure with its formula.

- **PFC headroom** per port and lossless priority — what still arrives after a switch sends XOFF
  (IEEE 802.1Qbb-2011 Annex N "buffer requirements": the largest frame being sent when the pause is
  decided, the pause frame itself, the frame the peer is already sending when it arrives, the cable
  in both directions, and the two ends' response time): ``2 × MTU + 64 B + 2 × length × 5 ns/m ×
  rate + response time × rate``.
- **PFC XOFF / XON**: the per-port, per-lossless-priority share of the switch buffer less its headroom
  is where XOFF goes; XON a little below it (2 MTU of hysteresis), so pauses do not flap.
- **ECN (DCQCN) marking**: Kmin = one bandwidth-delay product (rate × base RTT), Kmax = 2 × Kmin —
  marking starts once a queue holds a round trip of data, well before PFC would pause (Zhu et al.,
  "Congestion Control for Large-Scale RDMA Deployments", SIGCOMM 2015, §5: ECN must act before PFC).
  At 400 Gbit/s and a 4 µs fabric RTT: 200 KB and 400 KB, the seed's S8 figures.
- **Classes**: RoCE data in DSCP 26 → traffic class 3, lossless (PFC on priority 3); CNPs in DSCP 48
  → traffic class 6, strict priority (seed S8: CNP DSCP 48). NCCL's ``NCCL_IB_TC`` is the IP ToS
  byte: DSCP 26 × 4 + ECT(0) 2 = 106, the seed's §14.3 ``NCCL_IB_TC=106``.
- **MTU**: RoCE MTU 4096 B end to end (seed S8); the Ethernet MTU must carry it with its headers —
  Ethernet 14 + 802.1Q 4 + IPv4 20 + UDP 8 + BTH 12 + ICRC 4 + FCS 4 = 66 B — so ≥ 4,162 B on every hop.
- **Checks**: ECN Kmax must sit below PFC XOFF (else PFC pauses before ECN slows senders), the
  headroom must fit the port's share, and the pause-frame rate target is < 0.01 % (seed S8).
"""

from __future__ import annotations

from dataclasses import dataclass

from scheduling import SchedulerInputError

PROPAGATION_NS_PER_M = 5.0  # light in fibre or copper, ≈ 2/3 c
PFC_FRAME_BYTES = 64
ROCE_HEADER_BYTES = 14 + 4 + 20 + 8 + 12 + 4 + 4  # Eth, 802.1Q, IPv4, UDP, BTH, ICRC, FCS
ROCE_MTUS = (256, 512, 1024, 2048, 4096)


@dataclass(frozen=True)
class RoceTuning:
    link_gbps: float
    headroom_bytes: int
    xoff_bytes: int | None  # None: the switch buffer was not given
    xon_bytes: int | None
    ecn_kmin_bytes: int
    ecn_kmax_bytes: int
    ethernet_mtu_min_bytes: int
    nccl_ib_tc: int
    checks: tuple[tuple[bool, str], ...]
    derivations: dict[str, str]

    def snippet(self) -> str:
        """The settings as YAML a switch/NIC automation can read (values in bytes)."""
        lines = [
            f"# RoCE lossless tuning for {self.link_gbps:g} Gbit/s links",
            "roce:",
            "  mtu_bytes: 4096",
            f"  ethernet_mtu_min_bytes: {self.ethernet_mtu_min_bytes}",
            "  dscp: {data: 26, cnp: 48}",
            "  traffic_class: {data: 3, cnp: 6}",
            f"  pfc: {{priority: 3, headroom_bytes: {self.headroom_bytes}, xoff_bytes: {_yaml(self.xoff_bytes)}, "
            f"xon_bytes: {_yaml(self.xon_bytes)}}}",
            f"  ecn: {{kmin_bytes: {self.ecn_kmin_bytes}, kmax_bytes: {self.ecn_kmax_bytes}, pmax_pct: 1}}",
            f"  nccl_ib_tc: {self.nccl_ib_tc}",
            "  pause_frame_rate_max_pct: 0.01",
        ]
        return "\n".join(lines) + "\n"


def _yaml(x: int | None) -> str:
    return "null" if x is None else str(x)


def to_dict(t: RoceTuning) -> dict:
    return {
        "link_gbps": t.link_gbps,
        "headroom_bytes": t.headroom_bytes,
        "xoff_bytes": t.xoff_bytes,
        "xon_bytes": t.xon_bytes,
        "ecn_kmin_bytes": t.ecn_kmin_bytes,
        "ecn_kmax_bytes": t.ecn_kmax_bytes,
        "ethernet_mtu_min_bytes": t.ethernet_mtu_min_bytes,
        "nccl_ib_tc": t.nccl_ib_tc,
        "checks": [{"ok": ok, "message": m} for ok, m in t.checks],
        "derivations": dict(t.derivations),
        "snippet": t.snippet(),
    }


def _check_inputs(
    link_gbps, cable_m, switch_buffer_mb, switch_ports, lossless_priorities, mtu_bytes, base_rtt_us, response_ns
) -> None:
    errors = {}
    for name, v in (("link_gbps", link_gbps), ("switch_buffer_mb", switch_buffer_mb), ("base_rtt_us", base_rtt_us)):
        if v is not None and not v > 0:
            errors[name] = "must be above 0"
    if not 0 <= cable_m <= 10_000:
        errors["cable_m"] = "0 to 10,000 m"
    if not 1 <= switch_ports <= 4096:
        errors["switch_ports"] = "1 to 4,096"
    if lossless_priorities not in (1, 2):
        errors["lossless_priorities"] = "1 or 2 lossless priorities"
    if mtu_bytes not in ROCE_MTUS:
        errors["mtu_bytes"] = f"a RoCE MTU: one of {', '.join(map(str, ROCE_MTUS))}"
    if not 0 <= response_ns <= 100_000:
        errors["response_ns"] = "0 to 100,000 ns"
    if errors:
        raise SchedulerInputError(errors)


def roce_tuning(
    *,
    link_gbps: float,
    cable_m: float,
    switch_buffer_mb: float | None,
    switch_ports: int,
    lossless_priorities: int = 1,
    mtu_bytes: int = 4096,
    base_rtt_us: float = 4.0,
    response_ns: float = 1000.0,
) -> RoceTuning:
    _check_inputs(
        link_gbps, cable_m, switch_buffer_mb, switch_ports, lossless_priorities, mtu_bytes, base_rtt_us, response_ns
    )
    bytes_per_ns = link_gbps / 8  # Gbit/s = bits per ns
    wire = 2 * cable_m * PROPAGATION_NS_PER_M * bytes_per_ns
    response = response_ns * bytes_per_ns
    headroom = int(2 * mtu_bytes + PFC_FRAME_BYTES + wire + response + 0.999999)
    bdp = bytes_per_ns * base_rtt_us * 1000  # B/ns × ns
    kmin, kmax = round(bdp), round(2 * bdp)
    eth_mtu = mtu_bytes + ROCE_HEADER_BYTES
    if switch_buffer_mb is None:
        share = xoff = xon = None
        checks: tuple[tuple[bool, str], ...] = (
            (False, "switch buffer not given: PFC XOFF/XON cannot be placed, nor checked against ECN Kmax "
                    f"({kmax:,} B); give the switch's packet buffer (datasheet)"),
        )  # fmt: skip
    else:
        share = switch_buffer_mb * 1_000_000 / switch_ports / lossless_priorities
        xoff = int(share - headroom)
        xon = xoff - 2 * mtu_bytes
        checks = (
            (kmax < xoff, f"ECN Kmax {kmax:,} B below PFC XOFF {xoff:,} B: ECN slows senders before PFC pauses them"
             if kmax < xoff else f"ECN Kmax {kmax:,} B is not below PFC XOFF {xoff:,} B: PFC would pause before ECN "
             "acts; lower Kmax or give the lossless class more buffer"),
            (xoff > 0, f"the port's buffer share {share:,.0f} B holds the {headroom:,} B headroom"
             if xoff > 0 else f"the port's buffer share {share:,.0f} B cannot hold the {headroom:,} B headroom"),
        )  # fmt: skip
    rate = f"{link_gbps:g} Gbit/s = {bytes_per_ns:g} B/ns"
    return RoceTuning(
        link_gbps,
        headroom,
        xoff,
        xon,
        kmin,
        kmax,
        eth_mtu,
        26 * 4 + 2,
        checks,
        {
            "headroom_bytes": f"2 × {mtu_bytes} B MTU + {PFC_FRAME_BYTES} B pause frame + 2 × {cable_m:g} m × "
            f"{PROPAGATION_NS_PER_M:g} ns/m × {bytes_per_ns:g} B/ns ({wire:,.0f} B on the wire) + {response_ns:g} ns "
            f"response × {bytes_per_ns:g} B/ns ({response:,.0f} B) = {headroom:,} B",
            "xoff_bytes": "switch buffer not given"
            if share is None
            else f"{switch_buffer_mb:g} MB ÷ {switch_ports} ports ÷ {lossless_priorities} lossless "
            f"priorit{'y' if lossless_priorities == 1 else 'ies'} = {share:,.0f} B − {headroom:,} B headroom "
            f"= {xoff:,} B",
            "xon_bytes": "switch buffer not given"
            if xon is None
            else f"XOFF {xoff:,} B − 2 × {mtu_bytes} B = {xon:,} B",
            "ecn_kmin_bytes": f"one BDP: {rate} × {base_rtt_us:g} µs base RTT = {kmin:,} B",
            "ecn_kmax_bytes": f"2 × BDP = {kmax:,} B",
            "ethernet_mtu_min_bytes": f"{mtu_bytes} B RoCE payload + {ROCE_HEADER_BYTES} B of Ethernet, 802.1Q, IPv4, "
            f"UDP, BTH, ICRC and FCS = {eth_mtu:,} B on every hop",
            "nccl_ib_tc": "DSCP 26 × 4 + ECT(0) 2 = 106 (the IP ToS byte NCCL sets)",
        },
    )
