"""Switch models the engine knows by name (radix × port speed).

Port counts are the logical ports at the listed speed (datasheets): NVIDIA QM9700 has
32 OSFP cages = 64 × NDR 400G; Q3400 (Quantum-X800) 144 × XDR 800G; Spectrum-4
SN5600 64 × 800GbE; QM8700 40 × HDR 200G; Arista 7816R3 (7800R3 series, 16 slots × 36 × 400G
line cards) 576 × 400G, the class of modular chassis used as cluster/aggregation switches in
RoCE training fabrics. The priced catalog (bom/) extends this
list; the engine only needs the shape of the switch.
"""

from __future__ import annotations

from dataclasses import dataclass

from topology.spec import FabricRequestError


@dataclass(frozen=True)
class SwitchModel:
    name: str
    vendor: str
    radix: int
    port_gbps: float
    note: str = ""
    ethernet: bool = False  # an Ethernet switch: a RoCE fabric needs its lossless tuning (scheduling/roce.py)


SWITCH_MODELS: dict[str, SwitchModel] = {
    m.name: m
    for m in (
        SwitchModel("QM9700", "NVIDIA", 64, 400.0, "Quantum-2 NDR InfiniBand, 32 × OSFP twin-port"),
        SwitchModel("QM8700", "NVIDIA", 40, 200.0, "Quantum HDR InfiniBand"),
        SwitchModel("Q3400", "NVIDIA", 144, 800.0, "Quantum-X800 XDR InfiniBand"),
        SwitchModel("SN5600", "NVIDIA", 64, 800.0, "Spectrum-4 (Spectrum-X) 800GbE", ethernet=True),
        SwitchModel("SN5600-400G", "NVIDIA", 128, 400.0, "SN5600 with 800G ports split 2 × 400G", ethernet=True),
        SwitchModel(
            "7816R3", "Arista", 576, 400.0, "7800R3 modular chassis, 576 × 400G (pod spine / core)", ethernet=True
        ),
        SwitchModel("7050CX3-32S", "Arista", 32, 100.0, "storage ToR, 32 × 100GbE", ethernet=True),
        SwitchModel("7280SR3-48YC8", "Arista", 48, 100.0, "management spine (seed: 48 × 100GbE)", ethernet=True),
        SwitchModel("7050SX3-48YC8", "Arista", 48, 25.0, "management ToR, 48 × 25GbE + 8 × 100GbE up", ethernet=True),
    )
}


def switch_model(name: str) -> SwitchModel:
    try:
        return SWITCH_MODELS[name]
    except KeyError:
        known = ", ".join(sorted(SWITCH_MODELS))
        raise FabricRequestError.single(
            "switch_model", f"unknown switch model {name!r}; known models: {known}"
        ) from None
