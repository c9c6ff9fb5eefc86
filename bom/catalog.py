"""The default catalog and price book, with the provenance of every price.

"seed Table 14-25/14-26" prices come from the source chapter; everything marked as an
assumption is a round planning figure, not a quote — edit the price book before buying.
Port counts and power are from vendor datasheets where stated; where the chapter and a
datasheet disagree the note says so.
"""

from __future__ import annotations

from dataclasses import replace
from decimal import Decimal as D

from bom.parts import CableMedia, Connector, PartKind, PartSpec

SEED = "seed chapter Table 14-25 (network BOM)"
SEED_TCO = "seed chapter Table 14-26 (TCO)"
ASSUMED = "planning assumption (no public list price); replace with a quote"

DEFAULT_PRICE_BOOK = {
    "name": "Default planning prices",
    "version": 1,
    "currency": "USD",
    "effective_date": "2026-11-01",
    "note": "Seed-chapter prices where the chapter gives them; round planning assumptions elsewhere.",
}


def _sw(sku, vendor, desc, ports, gbps, price, src, assumption, power_w, ru, breakout="", ppm=1, extra=""):
    """A switch: its main ports (``ports`` × ``gbps``) and ``extra`` port groups ("8x100G" uplinks) as its data
    sheet lists them — a role is given a switch by these (bom/build.py find_switch), never by its name."""
    return PartSpec(
        sku=sku,
        kind=PartKind.SWITCH,
        vendor=vendor,
        description=desc,
        unit_price_usd=D(price),
        price_source=src,
        price_is_assumption=assumption,
        port_count=ports,
        port_gbps=gbps,
        power_w=power_w,
        rack_units=ru,
        breakout=breakout,
        ports_per_module=ppm,
        extra_port_groups=extra,
    )


def _nic(sku, vendor, desc, ports, gbps, price, power_w, form):
    return PartSpec(
        sku=sku,
        kind=PartKind.NIC,
        vendor=vendor,
        description=desc,
        unit_price_usd=D(price),
        price_source=ASSUMED,
        port_count=ports,
        port_gbps=gbps,
        power_w=power_w,
        form_factor=form,
    )


def _xcvr(sku, vendor, desc, gbps, ppm, reach, price, src, assumption, power_w, form, media, breakout=""):
    return PartSpec(
        sku=sku,
        kind=PartKind.TRANSCEIVER,
        vendor=vendor,
        description=desc,
        unit_price_usd=D(price),
        price_source=src,
        price_is_assumption=assumption,
        port_gbps=gbps,
        ports_per_module=ppm,
        reach_m=reach,
        power_w=power_w,
        form_factor=form,
        media=media,
        breakout=breakout,  # a module: the slower speeds its ports also run at, e.g. "2x100G"
    )


def _cable(sku, vendor, desc, media, gbps, length, price, src=ASSUMED, assumption=True, power_w=0.0, form=""):
    """A cable; a copper or AOC one's end form factor by its speed, as its description says (CABLE_ENDS)."""
    form = form or (CABLE_ENDS.get(gbps, "") if media in (CableMedia.DAC, CableMedia.ACC, CableMedia.AOC) else "")
    return PartSpec(
        sku=sku,
        kind=PartKind.CABLE,
        vendor=vendor,
        description=desc,
        unit_price_usd=D(price),
        price_source=src,
        price_is_assumption=assumption,
        media=media,
        port_gbps=gbps,
        length_m=length,
        reach_m=length,
        power_w=power_w,
        form_factor=form,
    )


# the end of the catalog's copper and AOC cables by speed (their descriptions): the 400G and 800G ones are OSFP
# (twin-port splitters in a twin-port OSFP cage, as the seed's BOM counts them), the others straight QSFP/SFP
CABLE_ENDS = {800: "OSFP", 400: "OSFP", 200: "QSFP56", 100: "QSFP28", 25: "SFP28"}

SWITCHES = [
    _sw(
        "QM9700",
        "NVIDIA",
        "Quantum-2 NDR InfiniBand switch, 32 OSFP cages = 64 × 400G",
        64,
        400,
        "65000",
        SEED,
        False,
        747,
        1,
        "2x200G",
        ppm=2,
    ),
    _sw("QM8700", "NVIDIA", "Quantum HDR InfiniBand switch, 40 × 200G QSFP56", 40, 200, "22000", ASSUMED, True, 253, 1),
    _sw(
        "Q3400",
        "NVIDIA",
        "Quantum-X800 XDR InfiniBand switch, 144 × 800G (72 OSFP twin-port)",
        144,
        800,
        "180000",
        ASSUMED,
        True,
        5000,
        4,
        ppm=2,
    ),
    _sw(
        "SN5600",
        "NVIDIA",
        "Spectrum-4 800GbE switch (Spectrum-X), 64 × 800G OSFP",
        64,
        800,
        "55000",
        ASSUMED,
        True,
        1000,
        2,
        "2x400G",
    ),
    _sw(
        "7816R3",
        "Arista",
        "7800R3 16-slot modular chassis, 16 × 36-port 400G line cards (576 × 400G QSFP-DD)",
        576,
        400,
        "1400000",
        ASSUMED,
        True,
        16000,
        28,
    ),
    _sw(
        "SN5600-400G",
        "NVIDIA",
        "Spectrum-4 with each 800G port split 2 × 400G",
        128,
        400,
        "55000",
        ASSUMED,
        True,
        1000,
        2,
        ppm=2,
    ),
    _sw(
        "SN4700-200G",
        "NVIDIA",
        "Spectrum-3 SN4700, 32 × 400GbE QSFP-DD split 2 × 200G = 64 × 200G (storage leaf/spine): two ports a cage",
        64,
        200,
        "30000",
        ASSUMED,
        True,
        450,
        1,
        "2x200G",
        ppm=2,
    ),
    _sw("7050CX3-32S", "Arista", "storage ToR, 32 × 100GbE QSFP28", 32, 100, "18000", SEED, False, 250, 1, "4x25G"),
    _sw(
        "7050SX3-48YC8",
        "Arista",
        "management ToR, 48 × 25GbE SFP28 + 8 × 100GbE QSFP28 (Arista 7050X3 data sheet)",
        48,
        25,
        "12000",
        SEED,
        False,
        200,
        1,
        extra="8x100G",
    ),
    _sw(
        "7280SR3-48YC8",
        "Arista",
        "7280R3 ToR, 48 × 25GbE SFP28 + 8 × 100GbE QSFP (Arista 7280R3 data sheet). The seed chapter lists it "
        "as a 48 × 100GbE management spine, which it is not: a 48 × 100G spine gets a 100G switch",
        48,
        25,
        "45000",
        SEED,
        False,
        300,
        1,
        extra="8x100G",
    ),
    _sw(
        "SN4600C",
        "NVIDIA",
        "Spectrum-3 SN4600C Ethernet switch, 64 × 100GbE QSFP28, 2U (NVIDIA SN4000 series brochure; mlxsw "
        'release notes: "Spectrum-3 based 100GbE 2U Open Ethernet switch, 64 QSFP28 ports"): a 48 × 100G '
        "management spine",
        64,
        100,
        "25000",
        ASSUMED,
        True,
        500,  # planning figure (the data sheet gives power by configuration): replace from the quote
        2,
    ),
    _sw(
        "7060DX5-64S",
        "Arista",
        "400GbE switch, 64 × 400G OSFP (storage spine / 200G breakout)",
        64,
        400,
        "60000",
        ASSUMED,
        True,
        800,
        2,
        "2x200G",
    ),
]

NICS = [
    _nic("CX7-NDR-OSFP", "NVIDIA", "ConnectX-7 single-port 400G NDR/400GbE, OSFP", 1, 400, "2500", 25, "OSFP"),
    _nic("CX7-200G", "NVIDIA", "ConnectX-7 single-port 200G, QSFP112", 1, 200, "1800", 20, "QSFP112"),
    _nic("CX7-400G-QSFP112", "NVIDIA", "ConnectX-7 single-port 400G, QSFP112", 1, 400, "2300", 25, "QSFP112"),
    _nic("CX8-800G", "NVIDIA", "ConnectX-8 SuperNIC 800G, OSFP", 1, 800, "3500", 30, "OSFP"),
    _nic("CX6DX-100G", "NVIDIA", "ConnectX-6 Dx 100GbE (storage), QSFP28", 1, 100, "900", 15, "QSFP28"),
    _nic("CX6LX-25G", "NVIDIA", "ConnectX-6 Lx 25GbE (management), SFP28", 1, 25, "400", 10, "SFP28"),
]

TRANSCEIVERS = [
    _xcvr(
        "MMA4Z00-NS400",
        "NVIDIA",
        "NDR OSFP 400G SR4 single-port (NIC side), 50 m MMF",
        400,
        1,
        50,
        "800",
        SEED,
        False,
        8,
        "OSFP",
        CableMedia.FIBRE_MPO,
    ),
    _xcvr(
        "MMA4Z00-NS",
        "NVIDIA",
        "NDR OSFP 800G twin-port 2 × 400G SR8 (switch side), 50 m MMF",
        400,
        2,
        50,
        "1400",
        ASSUMED,
        True,
        15,
        "OSFP",
        CableMedia.FIBRE_MPO,
    ),
    _xcvr(
        "OSFP-800G-2xDR4",
        "NVIDIA",
        "NDR OSFP 800G twin-port 2 × 400G DR4 (MMS4X00-NM class), 500 m SMF",
        400,
        2,
        500,
        "1800",
        ASSUMED,
        True,
        17,
        "OSFP",
        CableMedia.FIBRE_MPO_SM,
    ),
    _xcvr(
        "OSFP-800G-2xFR4",
        "NVIDIA",
        "NDR OSFP 800G twin-port 2 × 400G FR4 (MMS4X50-NM class), 2 km SMF, LC duplex",
        400,
        2,
        2000,
        "2600",
        ASSUMED,
        True,
        17,
        "OSFP",
        CableMedia.FIBRE_LC_SM,
    ),
    _xcvr(
        "OSFP-400G-FR4",
        "generic",
        "400G OSFP FR4 single-port (NIC side), 2 km SMF, LC duplex",
        400,
        1,
        2000,
        "1500",
        ASSUMED,
        True,
        9,
        "OSFP",
        CableMedia.FIBRE_LC_SM,
    ),
    _xcvr(
        "MMS4X00-NS400",
        "NVIDIA",
        "NDR OSFP 400G DR4 single-port (NIC side), 500 m SMF",
        400,
        1,
        500,
        "1100",
        ASSUMED,
        True,
        8,
        "OSFP",
        CableMedia.FIBRE_MPO_SM,
    ),
    _xcvr(
        "OSFP-800G-SR8",
        "generic",
        "800G OSFP SR8 single-port (XDR / 800GbE), 50 m MMF",
        800,
        1,
        50,
        "1500",
        ASSUMED,
        True,
        15,
        "OSFP",
        CableMedia.FIBRE_MPO,
    ),
    _xcvr(
        "OSFP-800G-DR8",
        "generic",
        "800G OSFP DR8 single-port (XDR / 800GbE), 500 m SMF",
        800,
        1,
        500,
        "1900",
        ASSUMED,
        True,
        16,
        "OSFP",
        CableMedia.FIBRE_MPO_SM,
    ),
    _xcvr(
        "OSFP-1.6T-2xDR4",
        "generic",
        "1.6T OSFP twin-port 2 × 800G DR4 (switch side, XDR / 800GbE), 500 m SMF",
        800,
        2,
        500,
        "3400",
        ASSUMED,
        True,
        25,
        "OSFP",
        CableMedia.FIBRE_MPO_SM,
    ),
    _xcvr(
        "QSFP112-400G-DR4",
        "generic",
        "400G QSFP112 DR4, 500 m SMF",
        400,
        1,
        500,
        "900",
        ASSUMED,
        True,
        9,
        "QSFP112",
        CableMedia.FIBRE_MPO_SM,
    ),
    _xcvr(
        "QSFP56-200G-FR4",
        "generic",
        "200G QSFP56 FR4, 2 km SMF (LC duplex)",
        200,
        1,
        2000,
        "700",
        ASSUMED,
        True,
        6.5,
        "QSFP56",
        CableMedia.FIBRE_LC_SM,
    ),
    _xcvr(
        "QSFP28-100G-DR",
        "generic",
        "100GbE QSFP28 DR, 500 m SMF (LC duplex)",
        100,
        1,
        500,
        "300",
        ASSUMED,
        True,
        3.5,
        "QSFP28",
        CableMedia.FIBRE_LC_SM,
    ),
    _xcvr(
        "QSFP28-100G-LR4",
        "generic",
        "100GbE QSFP28 LR4, 10 km SMF (LC duplex)",
        100,
        1,
        10000,
        "550",
        ASSUMED,
        True,
        3.5,
        "QSFP28",
        CableMedia.FIBRE_LC_SM,
    ),
    _xcvr(
        "SFP28-25G-LR",
        "generic",
        "25GbE SFP28 LR, 10 km SMF (LC duplex)",
        25,
        1,
        10000,
        "260",
        ASSUMED,
        True,
        1.2,
        "SFP28",
        CableMedia.FIBRE_LC_SM,
    ),
    _xcvr(
        "QSFP112-400G-SR4",
        "generic",
        "400G QSFP112 SR4, 50 m MMF",
        400,
        1,
        50,
        "700",
        ASSUMED,
        True,
        9,
        "QSFP112",
        CableMedia.FIBRE_MPO,
    ),
    _xcvr(
        "QSFP56-200G-SR4",
        "generic",
        "200G QSFP56 SR4, 100 m MMF",
        200,
        1,
        100,
        "400",
        ASSUMED,
        True,
        6,
        "QSFP56",
        CableMedia.FIBRE_MPO,
    ),
    _xcvr(
        "QSFP28-100G-SR4",
        "generic",
        "100GbE QSFP28 SR4, 100 m MMF (the chapter's 25/100GbE module)",
        100,
        1,
        100,
        "200",
        SEED,
        False,
        3.5,
        "QSFP28",
        CableMedia.FIBRE_MPO,
    ),
    _xcvr(
        "SFP-1G-T",
        "generic",
        "1000BASE-T SFP (RJ45) for a BMC's copper port in an SFP/SFP28 ToR port, 100 m Cat6",
        1,
        1,
        100,
        "40",
        ASSUMED,
        True,
        1.0,
        "SFP",
        CableMedia.COPPER_RJ45,
    ),
    _xcvr(
        "OSFP-800G-DR4",
        "generic",
        "800G OSFP DR4 single-port (XDR / ConnectX-8 side, 4 × 200G PAM4), 500 m SMF, one MPO-12 APC",
        800,
        1,
        500,
        "1800",
        ASSUMED,
        True,
        16,
        "OSFP",
        CableMedia.FIBRE_MPO_SM,
    ),
    _xcvr(
        "QDD-400G-SR8-2x200G",
        "generic",
        "400G QSFP-DD SR8 (802.3cm, 8 × 50G) as 2 × 200G SR4 with MPO-16 → 2 × MPO-12 harness: one kit a cage, "
        "two ports; a port also runs 100G SR4 to QSFP28 (per-half CMIS data path: confirm with vendor); 100 m OM4",
        200,
        2,
        100,
        "1050",
        ASSUMED,
        True,
        10,
        "QSFP-DD",
        CableMedia.FIBRE_MPO,
        breakout="2x100G",
    ),
    _xcvr(
        "QDD-400G-DR4",
        "generic",
        "400G QSFP-DD DR4 (8 × 50G PAM4 host, 4 × 100G optical, IEEE 802.3bs 400GBASE-DR4), 500 m SMF, MPO-12 APC: "
        "for 50G-lane QSFP-DD cages (7800R3)",
        400,
        1,
        500,
        "1000",
        ASSUMED,
        True,
        10,
        "QSFP-DD",
        CableMedia.FIBRE_MPO_SM,
    ),
    _xcvr(
        "SFP28-25G-SR",
        "generic",
        "25GbE SFP28 SR, 100 m MMF (the chapter's 25/100GbE module)",
        25,
        1,
        100,
        "200",
        SEED,
        False,
        1.2,
        "SFP28",
        CableMedia.FIBRE_LC,
    ),
]

# planning prices of the trunks the catalog gained with the optics' connectors (assumptions, like the MPO-12 ones)
_MM_TRUNK_PRICES = ((3, "55"), (5, "65"), (10, "90"), (15, "115"), (20, "140"), (30, "170"), (50, "230"), (100, "360"))
_MM16_TRUNK_PRICES = ((3, "80"), (5, "90"), (10, "120"), (15, "150"), (20, "185"), (30, "225"), (50, "300"))
_SM16_TRUNK_PRICES = ((3, "100"), (5, "115"), (10, "140"), (20, "185"), (30, "215"), (50, "270"), (100, "390"),
                      (200, "560"), (500, "1000"))  # fmt: skip

CABLES = [
    *(
        _cable(f"DAC-400G-{m}M", "NVIDIA", f"400G OSFP passive copper DAC, {m} m", CableMedia.DAC, 400, m, p)
        for m, p in ((1, "120"), (2, "150"), (3, "190"))
    ),
    *(
        _cable(
            f"ACC-400G-{m}M", "NVIDIA", f"400G OSFP active copper (ACC), {m} m", CableMedia.ACC, 400, m, p, power_w=1.5
        )
        for m, p in ((3, "380"), (5, "450"))
    ),
    *(
        _cable(f"AOC-400G-{m}M", "NVIDIA", f"400G active optical cable, {m} m", CableMedia.AOC, 400, m, p, power_w=8)
        for m, p in ((5, "900"), (10, "950"), (20, "1050"), (30, "1150"))
    ),
    *(
        _cable(f"DAC-800G-{m}M", "NVIDIA", f"800G OSFP passive copper DAC, {m} m", CableMedia.DAC, 800, m, p)
        for m, p in ((1, "220"), (2, "260"))
    ),
    *(
        _cable(f"AOC-800G-{m}M", "NVIDIA", f"800G active optical cable, {m} m", CableMedia.AOC, 800, m, p, power_w=14)
        for m, p in ((5, "1500"), (10, "1600"), (20, "1750"), (30, "1900"))
    ),
    *(
        _cable(
            f"MPO12-{m}M",
            "generic",
            f"MPO-12 APC OM4 multimode trunk, {m} m",
            CableMedia.FIBRE_MPO,
            0,
            m,
            p,
            src=SEED if m == 20 else ASSUMED,
            assumption=m != 20,
        )
        for m, p in (
            (3, "60"),
            (5, "70"),
            (10, "95"),
            (15, "120"),
            (20, "150"),
            (30, "180"),
            (50, "240"),
            (70, "300"),
            (100, "380"),
            (150, "480"),
            (200, "560"),
            (300, "700"),
        )
    ),
    *(
        _cable(f"MPO12-UPC-{m}M", "generic", f"MPO-12 UPC OM4 multimode trunk, {m} m", CableMedia.FIBRE_MPO, 0, m, p)
        for m, p in _MM_TRUNK_PRICES
    ),
    *(
        _cable(f"MPO16-{m}M", "generic", f"MPO-16 APC OM4 multimode trunk (SR8), {m} m", CableMedia.FIBRE_MPO, 0, m, p)
        for m, p in _MM16_TRUNK_PRICES
    ),
    *(
        _cable(f"MPO16-OS2-{m}M", "generic", f"MPO-16 APC OS2 trunk (DR8), {m} m", CableMedia.FIBRE_MPO_SM, 0, m, p)
        for m, p in _SM16_TRUNK_PRICES
    ),
    *(
        _cable(f"LC-OM4-{m}M", "generic", f"LC duplex OM4 patch cord, {m} m", CableMedia.FIBRE_LC, 0, m, p)
        for m, p in (
            (3, "15"),
            (5, "18"),
            (10, "24"),
            (15, "30"),
            (20, "35"),
            (30, "45"),
            (50, "60"),
            (70, "70"),
            (100, "85"),
            (150, "110"),
            (200, "130"),
        )
    ),
    *(
        _cable(
            f"MPO12-OS2-{m}M", "generic", f"MPO-12 APC OS2 single-mode trunk, {m} m", CableMedia.FIBRE_MPO_SM, 0, m, p
        )
        for m, p in (
            (3, "80"),
            (5, "90"),
            (10, "110"),
            (15, "130"),
            (20, "150"),
            (30, "175"),
            (50, "220"),
            (70, "260"),
            (100, "320"),
            (150, "400"),
            (200, "470"),
            (300, "600"),
            (500, "850"),
        )
    ),
    *(
        _cable(
            f"LC-OS2-{m}M", "generic", f"LC duplex OS2 single-mode patch cord, {m} m", CableMedia.FIBRE_LC_SM, 0, m, p
        )
        for m, p in (
            (3, "12"),
            (5, "14"),
            (10, "18"),
            (20, "25"),
            (30, "30"),
            (50, "40"),
            (100, "60"),
            (150, "80"),
            (200, "95"),
            (300, "120"),
            (500, "170"),
            (1000, "300"),
            (2000, "520"),
        )
    ),
    *(
        _cable(f"DAC-100G-{m}M", "generic", f"100G QSFP28 passive copper DAC, {m} m", CableMedia.DAC, 100, m, p)
        for m, p in ((1, "60"), (2, "70"), (3, "85"))
    ),
    *(
        _cable(f"AOC-100G-{m}M", "generic", f"100G QSFP28 active optical cable, {m} m", CableMedia.AOC, 100, m, p)
        for m, p in ((5, "180"), (10, "200"), (20, "230"), (30, "260"))
    ),
    *(
        _cable(f"DAC-200G-{m}M", "generic", f"200G QSFP56 passive copper DAC, {m} m", CableMedia.DAC, 200, m, p)
        for m, p in ((1, "90"), (2, "105"), (3, "120"))
    ),
    *(
        _cable(f"AOC-200G-{m}M", "generic", f"200G QSFP56 active optical cable, {m} m", CableMedia.AOC, 200, m, p)
        for m, p in ((5, "400"), (10, "430"), (20, "480"), (30, "520"))
    ),
    *(
        _cable(f"DAC-25G-{m}M", "generic", f"25G SFP28 passive copper DAC, {m} m", CableMedia.DAC, 25, m, p)
        for m, p in ((1, "25"), (2, "30"), (3, "35"))
    ),
    *(
        _cable(f"AOC-25G-{m}M", "generic", f"25G SFP28 active optical cable, {m} m", CableMedia.AOC, 25, m, p)
        for m, p in ((5, "70"), (10, "80"), (20, "95"), (30, "110"))
    ),
    *(
        _cable(f"CAT6-{m}M", "generic", f"Cat6 patch cord (1GbE BMC), {m} m", CableMedia.COPPER_RJ45, 1, m, p)
        for m, p in ((1, "4"), (2, "5"), (3, "6"), (5, "7"), (10, "9"), (20, "14"), (30, "18"))
    ),
]

NODES = [
    PartSpec(
        sku="DGX-H100",
        kind=PartKind.NODE,
        vendor="NVIDIA",
        description="DGX H100: 8 × H100 SXM5, 8 × ConnectX-7; 10.2 kW max (the chapter budgets 10 kW, 6U)",
        unit_price_usd=D("250000"),
        price_source=SEED_TCO,
        price_is_assumption=False,
        power_w=10200,
        rack_units=8,
    ),
    PartSpec(
        sku="STORAGE-NVME-24",
        kind=PartKind.STORAGE_NODE,
        vendor="generic",
        description="storage server, 24 × 15.36 TB NVMe, 2 × 200GbE",
        unit_price_usd=D("350000"),
        price_source=f"{SEED_TCO}: $2,800,000 ÷ 8 nodes",
        price_is_assumption=False,
        power_w=2500,
        rack_units=2,
    ),
]

APPLIANCES = [
    PartSpec(
        sku="UFM-APPLIANCE-3.1",
        kind=PartKind.APPLIANCE,
        vendor="NVIDIA",
        description="Unified Fabric Manager Enterprise Appliance 3.1 (InfiniBand subnet manager), 1U",
        unit_price_usd=D("45000"),
        price_source=ASSUMED,
        price_is_assumption=True,
        port_count=1,
        port_gbps=400,
        power_w=550,
        rack_units=1,
    ),
]


def _acc(sku, desc, price, rack_units=0, power_w=0.0, ports=0):
    return PartSpec(
        sku=sku,
        kind=PartKind.ACCESSORY,
        vendor="generic",
        description=desc,
        unit_price_usd=D(price),
        price_source=ASSUMED,
        price_is_assumption=True,
        rack_units=rack_units,
        power_w=power_w,
        port_count=ports,
    )


ACCESSORIES = [
    _acc("RACK-42U-600x1200", "42U rack enclosure, 600 × 1200 mm, with doors and side panels", "2500", rack_units=42),
    _acc("RACK-48U-600x1200", "48U rack enclosure, 600 × 1200 mm, with doors and side panels", "3000", rack_units=48),
    _acc("PDU-3P-17.3KW", "rack PDU, 3-phase 208 V 60 A (17.3 kW at 80 % derating), switched, metered", "2200"),
    _acc(
        "PDU-3P-415V-60A",
        "rack PDU / power-shelf feed, 3-phase 415 V 60 A (√3 × 415 V × 60 A × 80 % = 34.5 kW), one per 33 kW "
        "NVL72 power shelf",
        "3200",
    ),
    _acc("PANEL-MPO-24-1U", "1U fibre patch panel, 24 MPO-12 adapters (structured cabling)", "650", 1, ports=24),
    _acc("CM-1U-H", "1U horizontal cable manager", "90", 1),
]

INCLUDED_IN_RACK = "included in the rack-scale system (priced with its compute trays)"

SCALE_UP = [
    PartSpec(
        sku="NVL5-SWITCH-TRAY",
        kind=PartKind.SCALE_UP,
        vendor="NVIDIA",
        description="NVLink 5 switch tray, 2 NVLink switch chips, 1U (NVL72 rack: 9 per rack)",
        unit_price_usd=D("0"),
        price_source=INCLUDED_IN_RACK,
        power_w=400,
        rack_units=1,
    ),
    PartSpec(
        sku="NVL72-NVLINK-SPINE",
        kind=PartKind.SCALE_UP,
        vendor="NVIDIA",
        description="NVLink spine of one NVL72 rack: copper cable cartridges, 72 GPUs × 18 links to 18 switch chips",
        unit_price_usd=D("0"),
        price_source=INCLUDED_IN_RACK,
    ),
]

# The rack a rack-scale system comes in, and its power shelves (power/rack_systems.py): delivered with the
# system, so $0 here — listed so that the racks, their height and their power path are in the BOM.
SYSTEM_RACK_PARTS = [
    PartSpec(
        sku="NVL72-RACK-48U",
        kind=PartKind.ACCESSORY,
        vendor="NVIDIA",
        description="48U NVIDIA MGX rack of a GB200/GB300 NVL72, with bus bar, liquid-cooling manifolds and the "
        "NVLink cable cartridges' frame (comes with the system)",
        unit_price_usd=D("0"),
        price_source=INCLUDED_IN_RACK,
        rack_units=48,
    ),
    PartSpec(
        sku="NVL72-POWER-SHELF-33KW",
        kind=PartKind.ACCESSORY,
        vendor="NVIDIA",
        description="NVL72 power shelf, 1U, 6 PSUs × 5.5 kW = 33 kW onto the rack's bus bar (NVIDIA Base Command "
        "Manager manual, Power Shelf Integration: 8 per GB200 rack)",
        unit_price_usd=D("0"),
        price_source=INCLUDED_IN_RACK,
        rack_units=1,
    ),
]

# Each switch's cages: (form factor, electrical lane rate [Gbit/s]); its ports per cage are the row's
# ports_per_module. From the data sheets: QM9700 32 OSFP cages = 64 × NDR 400G (4 × 100G lanes a port); Q3400
# (Quantum-X800) 144 × XDR 800G in 72 OSFP twin-port cages, 200G SerDes (115.2 Tb/s); SN5600 64 × 800GbE OSFP,
# 51.2 Tb/s = 64 cages × 8 lanes × 100G — one 800G port a cage, or 2 × 400G (SN5600-400G); SN4700 32 × 400GbE
# QSFP-DD (8 × 50G), 2 × 200G a cage split; 7800R3 36 × 400G QSFP-DD line cards; QSFP28 ports 4 × 25G; SFP28 25G.
SWITCH_CAGES: dict[str, tuple[str, float]] = {
    "QM9700": ("OSFP", 100.0),
    "QM8700": ("QSFP56", 50.0),
    "Q3400": ("OSFP", 200.0),
    "SN5600": ("OSFP", 100.0),
    "7816R3": ("QSFP-DD", 50.0),
    "SN5600-400G": ("OSFP", 100.0),
    "SN4700-200G": ("QSFP-DD", 50.0),
    "7050CX3-32S": ("QSFP28", 25.0),
    "7050SX3-48YC8": ("SFP28", 25.0),
    "7280SR3-48YC8": ("SFP28", 25.0),
    "SN4600C": ("QSFP28", 25.0),
    "7060DX5-64S": ("OSFP", 50.0),
}
# NICs' lane rate (their form factor is on the row): ConnectX-8 800G XDR 4 × 200G; ConnectX-7 NDR 4 × 100G
NIC_LANES_GBPS: dict[str, float] = {
    "CX7-NDR-OSFP": 100.0,
    "CX7-400G-QSFP112": 100.0,
    "CX8-800G": 200.0,
    "CX6DX-100G": 25.0,
    "CX6LX-25G": 25.0,
}
_APC12, _UPC12, _APC16, _LC = Connector.MPO12_APC, Connector.MPO12_UPC, Connector.MPO16_APC, Connector.LC_DUPLEX
# Each optic's port: (fibres its link lights, connector, host lane rate [Gbit/s]). NVIDIA's NDR twin-port and
# single-port SR4/DR4 OSFPs and QSFP112s: "two, 4-channel MPO-12/APC optical connectors" (MMA4Z00-NS, MMS4X00-NS
# product specifications, docs.nvidia.com/networking) — 8 of 12 fibres a port; 400G/800G SR8 and DR8: 8 lanes × 2
# fibres = 16 on one MPO-16 (IEEE 802.3cm 400GBASE-SR8 MDI); DR4 at 200G a lane (XDR): 8 fibres, MPO-12 APC; FR4,
# LR4, DR (one lambda) and 25G SR/LR: an LC duplex pair; generic QSFP28/QSFP56 SR4: MPO-12 UPC (8 of 12 lit).
OPTICS: dict[str, tuple[int, str, float]] = {
    "MMA4Z00-NS400": (8, _APC12, 100.0),
    "MMA4Z00-NS": (8, _APC12, 100.0),
    "OSFP-800G-2xDR4": (8, _APC12, 100.0),
    "OSFP-800G-2xFR4": (2, _LC, 100.0),
    "OSFP-400G-FR4": (2, _LC, 100.0),
    "MMS4X00-NS400": (8, _APC12, 100.0),
    "OSFP-800G-SR8": (16, _APC16, 100.0),
    "OSFP-800G-DR8": (16, _APC16, 100.0),
    "OSFP-1.6T-2xDR4": (8, _APC12, 200.0),
    "OSFP-800G-DR4": (8, _APC12, 200.0),
    "QDD-400G-SR8-2x200G": (8, _UPC12, 50.0),  # each harness leg: an MPO-12 of the far end's SR4
    "QSFP112-400G-DR4": (8, _APC12, 100.0),
    "QDD-400G-DR4": (8, _APC12, 50.0),  # 8 × 50G host lanes, the same 4 × 100G optics as any DR4
    "QSFP56-200G-FR4": (2, _LC, 50.0),
    "QSFP28-100G-DR": (2, _LC, 25.0),
    "QSFP28-100G-LR4": (2, _LC, 25.0),
    "SFP28-25G-LR": (2, _LC, 25.0),
    "QSFP112-400G-SR4": (8, _APC12, 100.0),  # as NVIDIA's MMA1Z00-NS400 QSFP112: the OSFP's optics and connector
    "QSFP56-200G-SR4": (8, _UPC12, 50.0),
    "QSFP28-100G-SR4": (8, _UPC12, 25.0),
    "SFP-1G-T": (0, Connector.RJ45, 1.0),
    "SFP28-25G-SR": (2, _LC, 25.0),
}


def _trunk_connector(sku: str) -> tuple[int, str]:
    """A fibre's (fibres, connector) by its family: MPO-12 trunks carry 12, MPO-16 16, a duplex cord 2."""
    for prefix, found in (
        ("MPO12-UPC-", (12, _UPC12)),
        ("MPO12-", (12, _APC12)),  # the OM4 (NVIDIA NDR, MFP7E10 class) and the OS2 MPO-12 trunks are APC
        ("MPO16-", (16, _APC16)),
        ("LC-", (2, _LC)),
        ("CAT6-", (0, Connector.RJ45)),
    ):
        if sku.startswith(prefix):
            return found
    return 0, ""


def declared(part: PartSpec) -> PartSpec:
    """A default part with its cages (switch, NIC), its ports' fibres and connector (optic) or its ends (fibre)."""
    if part.kind == PartKind.SWITCH and part.sku in SWITCH_CAGES:
        form, lane = SWITCH_CAGES[part.sku]
        return replace(part, form_factor=form, lane_gbps=lane)
    if part.kind == PartKind.NIC:
        return replace(part, lane_gbps=NIC_LANES_GBPS.get(part.sku, 0.0))
    if part.kind == PartKind.TRANSCEIVER and part.sku in OPTICS:
        fibres, connector, lane = OPTICS[part.sku]
        return replace(part, fibre_count=fibres, connector=str(connector), lane_gbps=lane)
    if part.kind == PartKind.CABLE:
        fibres, connector = _trunk_connector(part.sku)
        return replace(part, fibre_count=fibres, connector=str(connector))
    return part


DEFAULT_PARTS: tuple[PartSpec, ...] = tuple(
    declared(p)
    for p in (
        *SCALE_UP,
        *SWITCHES,
        *NICS,
        *TRANSCEIVERS,
        *CABLES,
        *NODES,
        *APPLIANCES,
        *ACCESSORIES,
        *SYSTEM_RACK_PARTS,
    )
)
