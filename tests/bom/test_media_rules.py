"""bom/media.py's choices on a small catalog made here, each expectation by hand (make-mutation survivors:
the media order by rack distance, the module-width fallback, a cost tie, the BMC module, the link label)."""

from __future__ import annotations

from decimal import Decimal

from bom.links import Link
from bom.media import EndSpec, LinkParts, PartChooser
from bom.parts import CableMedia, PartKind, PartSpec


def cable(sku, media, gbps, length_m, price):
    return PartSpec(sku, PartKind.CABLE, "v", sku, Decimal(price), "test", media=media, port_gbps=gbps,
                    length_m=length_m, reach_m=length_m)  # fmt: skip


def module(sku, media, gbps, reach_m, price, ppm=1, form="OSFP"):
    return PartSpec(sku, PartKind.TRANSCEIVER, "v", sku, Decimal(price), "test", media=media, port_gbps=gbps,
                    reach_m=reach_m, ports_per_module=ppm, form_factor=form)  # fmt: skip


CATALOG = [
    cable("DAC-3", CableMedia.DAC, 400, 3, 100),
    cable("ACC-5", CableMedia.ACC, 400, 5, 300),
    cable("AOC-10", CableMedia.AOC, 400, 10, 900),
    cable("MPO-30", CableMedia.FIBRE_MPO, 0, 30, 50),
    cable("MPO-SM-30", CableMedia.FIBRE_MPO_SM, 0, 30, 50),
    cable("CAT6-5", CableMedia.COPPER_RJ45, 0, 5, 5),
    module("SR4", CableMedia.FIBRE_MPO, 400, 50, 500),
    module("DR4", CableMedia.FIBRE_MPO_SM, 400, 500, 500),  # the same price as SR4: a tie
]
ENDS = {("compute", "nic"): EndSpec(1, "OSFP"), ("compute", "compute_switch"): EndSpec(1, "")}


def link(rack_distance: int, length_m: int = 3, a_role: str = "nic", z_role: str = "compute_switch", gbps=400.0):
    return Link("compute", "node-leaf", "n1", "p1", a_role, "s1", "p1", z_role, gbps, length_m, rack_distance)


def test_copper_in_the_rack_active_copper_next_door_optics_beyond():
    """Distance 0: DAC first (a 3 m DAC exists) → DAC-3. Distance 1: ACC, then AOC → ACC-5 (the DAC is not
    offered next door). Distance 2: optics only → SR4 + MPO + SR4 (the multimode pair, 500 + 500 + 50)."""
    chooser = PartChooser(CATALOG, media_policy="auto", ends=ENDS)
    assert chooser.parts(link(0)).cable.sku == "DAC-3"
    assert chooser.parts(link(1, length_m=5)).cable.sku == "ACC-5"
    far = chooser.parts(link(2, length_m=20))
    assert (far.cable.sku, far.a_module.sku, far.z_module.sku) == ("MPO-30", "SR4", "SR4")
    assert far.label == "MPO-30 + SR4 + SR4" and chooser.parts(link(0)).label == "DAC-3"
    assert PartChooser(CATALOG, media_policy="all_optics", ends=ENDS).parts(link(0)).optical


def test_a_cost_tie_keeps_multimode_the_first_family_tried():
    """SR4 and DR4 cost the same and both reach 20 m on a 50 $ trunk: 1,050 $ either way; the first found
    (multimode) stays — a tie does not move a design to single-mode."""
    chooser = PartChooser(CATALOG, media_policy="all_optics", ends=ENDS)
    assert chooser.parts(link(2, length_m=20)).a_module.sku == "SR4"


def test_a_twin_port_end_takes_a_twin_port_module_or_falls_back_to_single():
    """A switch end of module width 2 (QM9700 cages) takes the twin-port OSFP where the catalog has one, at half
    its price per port; without one it falls back to single-port modules rather than to nothing."""
    twin_ends = {**ENDS, ("compute", "compute_switch"): EndSpec(2, "")}
    twin = module("SR8-TWIN", CableMedia.FIBRE_MPO, 400, 50, 900, ppm=2)
    with_twin = PartChooser([*CATALOG, twin], media_policy="all_optics", ends=twin_ends)
    assert with_twin.parts(link(2, length_m=20)).z_module.sku == "SR8-TWIN"
    without = PartChooser(CATALOG, media_policy="all_optics", ends=twin_ends)
    assert without.parts(link(2, length_m=20)).z_module.sku == "SR4"


def test_a_bmc_link_gets_cat6_and_a_1000base_t_module_not_a_cheaper_faster_one():
    """Cat6 and, at the ToR's SFP28 port, the 1G RJ45 module — a 10G RJ45 module at 30 $ or a 1G fibre SFP at
    20 $ are cheaper but not 1000BASE-T."""
    parts = [
        *CATALOG,
        module("SFP-1G-T", CableMedia.COPPER_RJ45, 1, 100, 40, form="SFP"),
        module("SFP-10G-T", CableMedia.COPPER_RJ45, 10, 30, 30, form="SFP"),
        module("SFP-1G-SX", CableMedia.FIBRE_LC, 1, 550, 20, form="SFP"),
    ]
    got = PartChooser(parts, media_policy="auto", ends=ENDS).parts(link(0, a_role="bmc", z_role="mgmt_tor", gbps=1))
    assert isinstance(got, LinkParts)
    assert (got.cable.sku, got.a_module, got.z_module.sku) == ("CAT6-5", None, "SFP-1G-T")


def test_the_nic_cage_sets_the_module_width_at_the_nic():
    """osfp_twin: one twin-port module serves two NIC ports (DGX H100); osfp_single and qsfp112: one module a
    port. A role with no end spec takes single-port modules of any form."""
    from bom.media import NIC_CAGES

    twin = module("SR8-TWIN", CableMedia.FIBRE_MPO, 400, 50, 900, ppm=2)
    qsfp = module("SR4-Q", CableMedia.FIBRE_MPO, 400, 50, 480, form="QSFP112")
    for cage, expected in (("osfp_twin", "SR8-TWIN"), ("osfp_single", "SR4"), ("qsfp112", "SR4-Q")):
        form, ppm = NIC_CAGES[cage]
        ends = {**ENDS, ("compute", "nic"): EndSpec(ppm, form)}
        got = PartChooser([*CATALOG, twin, qsfp], media_policy="all_optics", ends=ends).parts(link(2, length_m=20))
        assert got.a_module.sku == expected, cage
    bare = PartChooser([*CATALOG, twin], media_policy="all_optics", ends={})
    assert bare.parts(link(2, length_m=20)).z_module.ports_per_module == 1


def test_optics_cost_counts_both_ends_per_port_and_the_fibre():
    """A twin-port switch end: multimode SR4 (500 $) + twin SR8 at 900 $ ÷ 2 ports = 450 $ + 50 $ trunk = 1,000 $
    against single-mode DR4 at 2 × 480 + 50 = 1,010 $ → multimode (a price × ports instead of ÷ would make the
    SR8 end 1,800 $). And the fibre counts: SR4 pairs at 2 × 500 + a 400 $ trunk = 1,400 $ lose to DR4 pairs at
    2 × 520 + 50 $ = 1,090 $."""
    twin_ends = {**ENDS, ("compute", "compute_switch"): EndSpec(2, "")}
    parts = [
        cable("MPO-30", CableMedia.FIBRE_MPO, 0, 30, 50),
        cable("MPO-SM-30", CableMedia.FIBRE_MPO_SM, 0, 30, 50),
        module("SR4", CableMedia.FIBRE_MPO, 400, 50, 500),
        module("SR8-TWIN", CableMedia.FIBRE_MPO, 400, 50, 900, ppm=2),
        module("DR4", CableMedia.FIBRE_MPO_SM, 400, 500, 480),
    ]
    got = PartChooser(parts, media_policy="all_optics", ends=twin_ends).parts(link(2, length_m=20))
    assert got.z_module.sku == "SR8-TWIN"
    dear_fibre = [
        cable("MPO-30", CableMedia.FIBRE_MPO, 0, 30, 400),
        cable("MPO-SM-30", CableMedia.FIBRE_MPO_SM, 0, 30, 50),
        module("SR4", CableMedia.FIBRE_MPO, 400, 50, 500),
        module("DR4", CableMedia.FIBRE_MPO_SM, 400, 500, 520),
    ]
    got = PartChooser(dear_fibre, media_policy="all_optics", ends=ENDS).parts(link(2, length_m=20))
    assert (got.cable.sku, got.a_module.sku) == ("MPO-SM-30", "DR4")


def test_a_module_reaching_exactly_the_length_will_do_and_a_mismatched_fibre_is_skipped_not_the_end():
    """SR4 reaches 50 m: a 30 m … 50 m link takes it (a 50 m trunk here). The switch end also lists an LC module
    first; the NIC's MPO module skips it and pairs with the switch's MPO module (not giving up on multimode)."""
    parts = [
        cable("MPO-50", CableMedia.FIBRE_MPO, 0, 50, 60),
        cable("LC-50", CableMedia.FIBRE_LC, 0, 50, 10),
        cable("MPO-SM-50", CableMedia.FIBRE_MPO_SM, 0, 50, 60),
        module("SR-LC", CableMedia.FIBRE_LC, 400, 50, 100, form="QSFP112"),
        module("SR4", CableMedia.FIBRE_MPO, 400, 50, 500),
        module("DR4", CableMedia.FIBRE_MPO_SM, 400, 500, 600),
    ]
    got = PartChooser(parts, media_policy="all_optics", ends=ENDS).parts(link(2, length_m=50))
    assert (got.cable.sku, got.a_module.sku, got.z_module.sku) == ("MPO-50", "SR4", "SR4")


def test_nothing_that_reaches_says_why():
    """An 800G link with only 400G optics: the catalog has no 800G transceiver. A 400G link of 80 m when the
    longest trunk is 30 m: nothing reaches. A BMC link longer than every Cat6 cord: no cord that long."""
    import pytest

    from bom.media import NoPartReaches

    chooser = PartChooser(CATALOG, media_policy="auto", ends=ENDS)
    with pytest.raises(NoPartReaches, match="the catalog has no 800G transceiver"):
        chooser.parts(link(2, length_m=20, gbps=800.0))
    with pytest.raises(NoPartReaches, match="no transceiver and fibre in the catalog reach that far"):
        chooser.parts(link(2, length_m=80))
    with pytest.raises(NoPartReaches, match="links of 9 m at 1G: no Cat6 cord that long in the catalog"):
        chooser.parts(link(0, length_m=9, a_role="bmc", z_role="mgmt_tor", gbps=1))
