"""Compute platforms: the published maximum power of a whole node, and so its non-GPU (host) share.

A node's draw is its GPUs at TDP plus everything else in the chassis (CPUs, memory, NICs, NVSwitches, fans,
power-supply losses). Vendors publish the whole system's maximum, not the host's share, so each row here
holds the published maximum and the host share follows from it: host = max − GPUs × TDP (power/gpus.py).
One row per accelerator model; every row cites where its maximum comes from, and says so where it is an
assumption.

A node with another GPU count than its platform's (a 4-GPU H100 server) gets the platform's host share per
GPU × its GPUs (:meth:`Platform.host_w_for`): the NICs (one per GPU), NVSwitches, fans and supply losses
scale with the GPUs. The CPUs do not, so a smaller node's host is somewhat understated; at the platform's
own GPU count the figure is the data sheet's. A model without a row (TPU-v4: Google publishes no host
figure) keeps the generic rule, the DGX H100 host share of :data:`GENERIC_HOST_W` per node.
"""

from __future__ import annotations

from dataclasses import dataclass

from power.gpus import GPU_TDP_W
from power.rack_systems import rack_scale_system


@dataclass(frozen=True)
class Platform:
    name: str
    gpu_model: str
    gpus: int
    max_system_w: float
    document: str  # short: what the derivation names
    source: str  # the document, section and what it says
    assumption: bool = False  # the maximum is not a published figure of this system

    @property
    def gpu_tdp_w(self) -> float:
        return GPU_TDP_W[self.gpu_model]

    @property
    def host_w(self) -> float:
        """The non-GPU share: max system power − GPUs × TDP."""
        return self.max_system_w - self.gpus * self.gpu_tdp_w

    def host_w_for(self, gpus: int) -> float:
        """The host share of a node of ``gpus`` GPUs: the platform's share per GPU × GPUs."""
        return self.host_w / self.gpus * gpus


GENERIC_HOST_W = 4600.0
"""The host of a model without a platform row: DGX H100's 10,200 W − 8 × 700 W (the rule before platforms)."""


def _nvl72_tray(gpu_model: str, document: str, source: str) -> Platform:
    """A rack-scale NVLink system's node is its compute tray; the tray figures live in power/rack_systems.py."""
    system = rack_scale_system(gpu_model)
    assert system is not None
    tray_w = system.tray_w(GPU_TDP_W[gpu_model])
    name = f"{system.name} compute tray"
    return Platform(name, gpu_model, system.gpus_per_tray, tray_w, document, source, assumption=True)


def platforms() -> dict[str, Platform]:
    """Keyed by GPU model (built when asked)."""
    dgx_h_doc = "NVIDIA DGX H100/H200 User Guide"
    dgx_h = "NVIDIA DGX H100/H200 User Guide, Introduction, Power Specifications: 10.2 kW max, six 3.3 kW supplies"
    return {
        "A100-SXM4-80GB": Platform(
            "DGX A100",
            "A100-SXM4-80GB",
            8,
            6500.0,
            "NVIDIA DGX A100 User Guide",
            "NVIDIA DGX A100 User Guide (DU-09821-001), §1.1.3 Power Specifications: 6.5 kW max, "
            "six 3 kW supplies (3+3)",
        ),
        "H100-SXM5": Platform("DGX H100", "H100-SXM5", 8, 10200.0, dgx_h_doc, dgx_h),
        "H200-SXM": Platform("DGX H200", "H200-SXM", 8, 10200.0, dgx_h_doc, dgx_h),
        "B200": Platform(
            "DGX B200",
            "B200",
            8,
            14300.0,
            "NVIDIA DGX B200 User Guide",
            "NVIDIA DGX B200 User Guide, Introduction to DGX B200, Power Specifications: 14.3 kW max, "
            "six 3.3 kW supplies (5+1) — docs.nvidia.com/dgx/dgxb200-user-guide/introduction-to-dgxb200.html",
        ),
        "B300": Platform(
            "DGX/HGX B300",
            "B300",
            8,
            13400.0,
            "assumption, no data sheet found",
            "assumption: no NVIDIA maximum found for DGX B300; 8 × 1,100 W + the DGX H100 host 4,600 W = "
            "13.4 kW, below the DGX SuperPOD B300 RA's ≈14 kW per system",
            assumption=True,
        ),
        "GB200": _nvl72_tray(
            "GB200",
            "assumption: the ≈120 kW rack split, power/rack_systems.py",
            "GB200 NVL72 rack ≈120 kW (seed §14.7; DGX SuperPOD GB200 RA): (120 kW − 9 switch trays × 400 W) ÷ 18 "
            "trays; NVIDIA's own tray ceiling is 6,667 W (Datacenter Power Service, Device Specifications, "
            "DGX_GB200 maxLoadWatts) — power/rack_systems.py",
        ),
        "GB300": _nvl72_tray(
            "GB300",
            "assumption: power/rack_systems.py",
            "the GB200 tray host with 4 × 1,400 W Blackwell Ultra GPUs; inside the NVL72 AI Factory Enterprise RA's "
            "'up to 142 kW' per rack — power/rack_systems.py",
        ),
        "MI300X": Platform(
            "AMD Instinct MI300X platform (Dell PowerEdge XE9680)",
            "MI300X",
            8,
            9600.0,
            "assumption: the XE9680's 3+3 supplies",
            "assumption: no OEM maximum found; the XE9680's six 3,200 W supplies run 3+3 fault-tolerant "
            "(StorageReview, Dell PowerEdge XE9680 review), so the system draws at most 3 × 3,200 W = 9,600 W",
            assumption=True,
        ),
    }


def platform_for(gpu_model: str) -> Platform | None:
    return platforms().get(gpu_model)
