"""Rack-scale NVLink systems: one NVLink domain per rack, built of compute trays and NVLink switch trays.

A GB200/GB300 NVL72 rack holds 18 one-U compute trays of 4 GPUs (2 Grace CPUs each) and 9 one-U NVLink
switch trays of 2 NVLink switch chips; every GPU has 18 NVLink 5 links, one to each of the 18 switch
chips, over the copper NVLink spine at the back of the rack (NVIDIA DGX SuperPOD GB200 RA, "Network
Fabrics", Multi-node NVLink Fabric: "Each DGX GB200 rack is built with 18 compute trays and 9 NVLink
switch trays …"). The rack draws ≈120 kW and must be liquid cooled (seed §14.7: "GB200 NVL72 机架达
120kW，必须采用液冷").

Power split (assumptions, marked): a switch tray ≈400 W (9 trays ≈3.6 kW, integrator figures), so a
GB200 compute tray is (120 kW − 3.6 kW) ÷ 18 = 6,467 W = 4 × 1,200 W GPUs + 1,667 W for the two Grace
CPUs, memory, NICs, DPU and fans. A GB300 tray keeps that host share with 4 × 1,400 W Blackwell Ultra
GPUs (a figure third parties report; NVIDIA publishes none per GPU): 7,267 W, a 134.4 kW rack — inside
NVIDIA's own ceiling for it, "Full rack requiring up to 142 kW" (NVL72 AI Factory Enterprise RA,
"System Hardware & Components": 9 NVSwitch trays, 8 power shelves of 33 kW, 4 ConnectX-8 per tray).

The rack itself (the system's own, not a generic enclosure):
- 48U NVIDIA MGX rack with the bus bar, the liquid-cooling manifolds and the NVLink cable cartridges — the
  height integrators list for it (assumption: NVIDIA's DGX GB200 User Guide, "Hardware", lists the contents —
  18 × 1RU compute trays, 9 × 1RU NVLink switch trays, 2 management ToRs, power shelves, bus bar — not the
  height). 18 + 9 trays take 27U; the other 21U hold the power shelves, the ToRs and cable management.
- 8 power shelves of 1U, 6 PSUs × 5.5 kW = 33 kW each (NVIDIA Base Command Manager manual, "Power Shelf
  Integration": "The reference design for an NVIDIA GB200 rack has 8 power shelves, and uses 6 PSUs in each
  power shelf. Each PSU is rated up to 5.5kW, so that each power shelf is rated up to 33kW"; "Each power shelf
  takes up one rack unit") — 8 × 33 = 264 kW of shelves for a rack of 120 kW (GB200) to 142 kW (GB300).
- its PDUs: one 3-phase 415 V 60 A feed per power shelf, √3 × 415 V × 60 A × 80 % = 34.5 kW (assumption: a
  33 kW shelf needs ≥ 33 kW of input; 415 V is the ORv3/MGX shelves' input class) — A + B feeds, each carrying
  the rack: ⌈120 kW ÷ 34.5 kW⌉ = 4 a feed, 8 a rack, one per shelf (bom/accessories.py).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class RackScaleSystem:
    name: str
    domain_gpus: int  # GPUs in one NVLink domain = one rack
    gpus_per_tray: int
    compute_trays: int
    switch_trays: int
    switch_chips_per_tray: int
    nvlink_links_per_gpu: int
    switch_tray_w: float
    tray_host_w: float  # a compute tray besides its GPUs
    tray_u: int
    switch_tray_u: int
    other_u: int  # power shelves, management ToRs and cable management
    source: str
    family: str = ""  # the rack's own parts in the catalog are named by it (bom/accessories.py SYSTEM_RACKS)
    power_shelves: int = 0  # per rack, on the bus bar
    power_shelf_kw: float = 0.0
    power_shelf_u: int = 1
    pdu_kw: float = 0.0  # the rating of the PDUs (feeds) that supply the power shelves
    rack_source: str = ""

    @property
    def rack_u(self) -> int:
        return self.compute_trays * self.tray_u + self.switch_trays * self.switch_tray_u + self.other_u

    @property
    def power_shelf_capacity_kw(self) -> float:
        return self.power_shelves * self.power_shelf_kw

    def __post_init__(self) -> None:
        if self.power_shelves * self.power_shelf_u > self.other_u:
            raise ValueError(
                f"{self.name}: {self.power_shelves} power shelves of {self.power_shelf_u}U do not fit the rack's "
                f"{self.other_u}U besides its trays"
            )

    @property
    def nvlink_link_count(self) -> int:
        """GPU–switch-chip links of one rack: every GPU has one link to every switch chip."""
        return self.domain_gpus * self.nvlink_links_per_gpu

    def tray_w(self, gpu_tdp_w: float) -> float:
        return self.gpus_per_tray * gpu_tdp_w + self.tray_host_w


def rack_scale_systems() -> dict[str, RackScaleSystem]:
    """Keyed by GPU model: the models that only come as rack-scale NVLink systems (built when asked)."""
    nvl72 = dict(
        domain_gpus=72,
        gpus_per_tray=4,
        compute_trays=18,
        switch_trays=9,
        switch_chips_per_tray=2,
        nvlink_links_per_gpu=18,
        switch_tray_w=400.0,
        tray_host_w=1667.0,
        tray_u=1,
        switch_tray_u=1,
        other_u=21,  # 48U MGX rack: power shelves, NIC/management and cable management in the rest
        family="NVL72",
        power_shelves=8,
        power_shelf_kw=33.0,
        power_shelf_u=1,
        pdu_kw=34.5,  # 3-phase 415 V 60 A at 80 %: √3 × 415 × 60 × 0.8 = 34.5 kW
        rack_source="48U MGX rack (integrators' figure, assumption); 8 × 1U power shelves of 6 × 5.5 kW = 33 kW "
        "(NVIDIA Base Command Manager manual, Power Shelf Integration); 415 V 60 A feeds of 34.5 kW (assumption)",
    )
    return {
        "GB200": RackScaleSystem("GB200 NVL72", **nvl72, source="DGX SuperPOD GB200 RA; seed §14.7 (≈120 kW)"),
        "GB300": RackScaleSystem("GB300 NVL72", **nvl72, source="as GB200 NVL72, 1,400 W GPUs (assumption)"),
    }


def rack_scale_system(gpu_model: str) -> RackScaleSystem | None:
    return rack_scale_systems().get(gpu_model)
