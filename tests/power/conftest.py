from tests.designer.conftest import alice, alice_design, bob  # noqa: F401


def rack_request(**kw):
    """A RackRequest with the tests' small hall filled in for what a case does not set (power.racks takes
    no policy defaults: the product passes every figure from the requirements): 40 kW and 42U racks, 10 a
    row, no spine/core switches (16 a network rack), no storage (2.5 kW, 2U) and no management (1.5 kW, 1U)."""
    from power.racks import RackRequest

    hall = dict(
        rack_budget_kw=40.0,
        rack_u=42,
        racks_per_row=10,
        upper_switch_count=0,
        switches_per_network_rack=16,
        storage_node_count=0,
        storage_node_kw=2.5,
        storage_node_u=2,
        mgmt_node_count=0,
        mgmt_node_kw=1.5,
        mgmt_node_u=1,
    )
    return RackRequest(**{**hall, **kw})


def cooling_request(**kw):
    """A CoolingRequest with the tests' plant filled in for what a case does not set (power.cooling takes no
    policy defaults): water at 32 °C supply and 45 °C return (ΔT 13 K, seed D13), 3,000 kW CDUs, 1,000 kW dry
    coolers, the type chosen by density."""
    from power.cooling import CoolingRequest

    plant = dict(
        cooling_type="", supply_c=32.0, return_c=45.0, fluid="water", cdu_unit_kw=3000.0, heat_rejection_unit_kw=1000.0
    )
    return CoolingRequest(**{**plant, **kw})
