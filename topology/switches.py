"""Switch models the engine knows by name (radix × port speed).

Port counts are the logical ports at the listed speed (datasheets): NVIDIA QM9700 has
32 OSFP cages = 64 × NDR 400G; Q3400 (Quantum-X800) 144 × XDR 800G; Spectrum-4
SN5600 64 × 800GbE; QM8700 40 × HDR 200G; Arista 7816R3 (7800R3 series, 16 slots × 36 × 400G
line cards) 576 × 400G, the class of modular chassis used as cluster/aggregation switches in
RoCE training fabrics. The priced catalog (bom/) extends this
list; the engine only needs the shape of the switch.

Each model declares its cages as its data sheet builds them — form factor, ports per cage and the
electrical lane rate — so the ports of a cage are one module's (bom/ buys modules per cage): Q3400
72 OSFP cages × 2 XDR ports at 4 × 200G lanes (115.2 Tb/s); QM9700 32 OSFP × 2 NDR 400G at 4 × 100G;
SN5600 64 OSFP × one 800GbE port at 8 × 100G (51.2 Tb/s: a cage holds 800G, so never 2 × 800G),
or 2 × 400G; QM8700 40 QSFP56 × 200G (4 × 50G); 7800R3 QSFP-DD 400G (8 × 50G); QSFP28 100G ports
4 × 25G; SFP28 25G. The management spine is the SN4600C (64 × 100GbE QSFP28, NVIDIA SN4000 series):
the seed chapter's 7280SR3-48YC8 is 48 × 25G + 8 × 100G, not a 48 × 100G spine.
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
    cage_form: str = ""  # the cages' form factor: OSFP, QSFP-DD, QSFP28, SFP28
    ports_per_cage: int = 1  # logical ports at port_gbps one cage (and so one module) carries
    lane_gbps: float = 0.0  # electrical lane rate of a cage [Gbit/s]

    @property
    def cage_count(self) -> int:
        """⌈radix ÷ ports per cage⌉: 72 for the Q3400's 144 ports."""
        return -(-self.radix // self.ports_per_cage)


SWITCH_MODELS: dict[str, SwitchModel] = {
    m.name: m
    for m in (
        SwitchModel(
            "QM9700", "NVIDIA", 64, 400.0, "Quantum-2 NDR InfiniBand, 32 × OSFP twin-port", False, "OSFP", 2, 100.0
        ),
        SwitchModel("QM8700", "NVIDIA", 40, 200.0, "Quantum HDR InfiniBand", False, "QSFP56", 1, 50.0),
        SwitchModel(
            "Q3400", "NVIDIA", 144, 800.0, "Quantum-X800 XDR InfiniBand, 72 × OSFP twin-port", False, "OSFP", 2, 200.0
        ),
        SwitchModel("SN5600", "NVIDIA", 64, 800.0, "Spectrum-4 (Spectrum-X) 800GbE", True, "OSFP", 1, 100.0),
        SwitchModel(
            "SN5600-400G", "NVIDIA", 128, 400.0, "SN5600 with 800G ports split 2 × 400G", True, "OSFP", 2, 100.0
        ),
        SwitchModel(
            "7816R3",
            "Arista",
            576,
            400.0,
            "7800R3 modular chassis, 576 × 400G (pod spine / core)",
            True,
            "QSFP-DD",
            1,
            50.0,
        ),
        SwitchModel("7050CX3-32S", "Arista", 32, 100.0, "storage ToR, 32 × 100GbE", True, "QSFP28", 1, 25.0),
        SwitchModel("SN4600C", "NVIDIA", 64, 100.0, "management spine, 64 × 100GbE QSFP28", True, "QSFP28", 1, 25.0),
        SwitchModel(
            "7050SX3-48YC8", "Arista", 48, 25.0, "management ToR, 48 × 25GbE + 8 × 100GbE up", True, "SFP28", 1, 25.0
        ),
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
