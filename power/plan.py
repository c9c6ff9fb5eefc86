"""Power, racks, cooling, capping, TCO and carbon of one design, in order (pure: no Django).

The orchestration the pipeline calls: node power from the GPU TDP (or a node figure), the
IT load, racks from the rack budget, the cooling (chosen by density when not given) and so
the PUE, facility power and energy, the coolant loop, the power-capping planner, the N-year
TCO and the carbon of a run and of a year. Each model lives in its own module and cites its
source; this module only chains them and states what it took from where.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from cluster.requirements import Requirements
from power.capping import CappingPlan, plan_capping
from power.carbon import RunFootprint, TrainingRun, annual_co2_t, training_run_footprint
from power.cooling import CoolingPlan, CoolingRequest, cooling_for_density, plan_cooling
from power.facility import PUE_BY_COOLING, FacilityPower, ItLoad, plan_facility
from power.gpus import GPU_TDP_W
from power.rack_systems import rack_scale_system
from power.racks import RackPlan, RackRequest, plan_racks
from power.tco import CostLine, Tco, TcoInputs, line, total_cost_of_ownership


@dataclass(frozen=True)
class NetworkFigures:
    """What power and TCO need of the network: its draw and its price (from the BOM unless given)."""

    power_w: float
    power_derivation: str
    capex_usd: Decimal


@dataclass(frozen=True)
class PowerPlan:
    gpu_tdp_w: float
    node_power_w: float
    facility: FacilityPower
    racks: RackPlan
    cooling: CoolingPlan
    capping: CappingPlan
    tco: Tco
    run: RunFootprint
    annual_co2_t: float
    annual_co2_derivation: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "gpu_tdp_w": self.gpu_tdp_w,
            "node_power_w": self.node_power_w,
            "facility": self.facility.to_dict(),
            "racks": self.racks.to_dict(),
            "cooling": self.cooling.to_dict(),
            "capping": self.capping.to_dict(),
            "tco": self.tco.to_dict(),
            "carbon": {
                "training_run": self.run.to_dict(),
                "annual_co2_t": round(self.annual_co2_t, 3),
                "derivations": {"annual_co2_t": self.annual_co2_derivation},
            },
        }


def gpu_tdp_w(r: Requirements) -> float:
    return float(r.power.gpu_tdp_w or GPU_TDP_W[r.cluster.gpu_model])  # every model of the form has its TDP


def node_power_w(r: Requirements) -> tuple[float, str]:
    """A compute node's draw: as given, or GPUs × TDP + the host (CPUs, memory, NICs, fans); for a rack-scale
    NVLink system the node is a compute tray with the system's tray host (power/rack_systems.py)."""
    p, per = r.power, r.cluster.gpus_per_node
    if p.node_power_w:
        return float(p.node_power_w), f"{float(p.node_power_w):,.0f} W as given"
    tdp = gpu_tdp_w(r)
    system = rack_scale_system(r.cluster.gpu_model)
    if system is not None:
        watts = system.tray_w(tdp)
        return watts, (
            f"{system.gpus_per_tray} × {tdp:,.0f} W TDP + {system.tray_host_w:,.0f} W tray host (Grace CPUs, memory, "
            f"NICs, fans; {system.name}) = {watts:,.0f} W per compute tray"
        )
    watts = tdp * per + float(p.host_overhead_w)
    return watts, f"{per} × {tdp:g} W TDP + {float(p.host_overhead_w):,.0f} W host = {watts:,.0f} W"


def rack_plan(
    r: Requirements,
    node_w: float,
    upper_switch_count: int,
    *,
    leaf_rack_count: int | None,
    switches_per_network_rack: int,
) -> RackPlan:
    """The racks: ``leaf_rack_count`` and ``switches_per_network_rack`` come from the floor plan
    (bom.plan.network_racking), which fills network racks by rack units."""
    f = r.compute_fabric
    p, infra = r.power, r.management.node_count + r.management.login_node_count
    infra += f.ufm_server_count + f.attached_device_count  # they stand with the management servers
    system = rack_scale_system(r.cluster.gpu_model)
    scale = (
        {
            "trays_per_rack": system.compute_trays,
            "rack_fixed_w": system.switch_trays * system.switch_tray_w,
            "rack_fixed_u": system.rack_u - system.compute_trays * system.tray_u,
            "system_name": system.name,
        }
        if system is not None
        else {}
    )
    return plan_racks(
        RackRequest(
            **scale,
            node_count=r.node_count,
            node_kw=node_w / 1000,
            node_u=system.tray_u if system is not None else p.node_u,
            rack_budget_kw=float(p.rack_budget_kw),
            rack_u=p.rack_u,  # storage and management racks; a rack-scale system comes in its own rack
            racks_per_row=r.bom.racks_per_row,
            upper_switch_count=upper_switch_count,
            storage_node_count=r.storage.node_count,
            storage_node_kw=float(p.storage_node_power_w) / 1000,
            storage_node_u=p.storage_node_u,
            mgmt_node_count=infra,
            mgmt_node_kw=float(p.mgmt_node_power_w) / 1000,
            mgmt_node_u=p.mgmt_node_u,
            leaf_rack_count=leaf_rack_count,
            switches_per_network_rack=switches_per_network_rack,
        )
    )


def cooling_and_pue(r: Requirements, racks: RackPlan) -> tuple[str, float, str]:
    """The cooling first (by density when not given), then the PUE that follows from it."""
    kind = r.cooling.type or cooling_for_density(racks.compute_rack_kw)
    if r.power.pue is not None:
        return kind, float(r.power.pue), ""
    pue = PUE_BY_COOLING[kind]
    return kind, pue, f"typical for {kind.replace('_', ' ')} cooling (seed P4): {pue:g}"


def facility_plan(r: Requirements, node_w: float, node_why: str, net: NetworkFigures, racks: RackPlan):
    p, infra = r.power, r.management.node_count + r.management.login_node_count
    load = ItLoad(
        r.node_count,
        node_w,
        r.storage.node_count,
        float(p.storage_node_power_w),
        infra,
        float(p.mgmt_node_power_w),
        net.power_w,
        float(p.average_load_frac),
        scale_up_w=_switch_tray_w(r, racks),
    )
    kind, pue, pue_why = cooling_and_pue(r, racks)
    fac = plan_facility(
        load,
        pue=pue,
        electricity_usd_per_kwh=Decimal(str(p.electricity_usd_per_kwh)),
        chain=p.electrical_chain,
        network_source=net.power_derivation,
    )
    trays = ""
    system = rack_scale_system(r.cluster.gpu_model)
    if system is not None:
        trays = (
            f" + {racks.compute_rack_count:,} racks × {system.switch_trays} NVLink switch trays × "
            f"{system.switch_tray_w:,.0f} W"
        )
    fac.derivations["compute_kw"] = f"{r.node_count:,} nodes × ({node_why}){trays} = {fac.compute_kw:,.1f} kW"
    if pue_why:
        fac.derivations["pue"] = pue_why
    return fac, kind, pue


def _switch_tray_w(r: Requirements, racks: RackPlan) -> float:
    """NVLink switch trays of a rack-scale system draw power of their own, counted with the compute racks."""
    system = rack_scale_system(r.cluster.gpu_model)
    if system is None:
        return 0.0
    return racks.compute_rack_count * system.switch_trays * system.switch_tray_w


def cooling_plan(r: Requirements, fac: FacilityPower, racks: RackPlan) -> CoolingPlan:
    c = r.cooling
    return plan_cooling(
        CoolingRequest(
            rack_kw=racks.compute_rack_kw,
            it_kw=fac.it_kw,
            facility_kw=fac.facility_kw,
            cooling_type=c.type,
            supply_c=float(c.coolant_supply_c),
            return_c=float(c.coolant_return_c),
            fluid=c.coolant_fluid,
            cdu_unit_kw=float(c.cdu_unit_kw),
            heat_rejection_unit_kw=float(c.heat_rejection_unit_kw),
        )
    )


def _given_or(value: Decimal | None, otherwise: Decimal) -> Decimal:
    return Decimal(value) if value is not None else otherwise


def capex_lines(r: Requirements, fac: FacilityPower, net: NetworkFigures) -> tuple[CostLine, ...]:
    t, fac_kw = r.tco, Decimal(fac.facility_kw_billed)
    cooling = _given_or(t.cooling_capex_usd, Decimal(t.cooling_capex_usd_per_kw) * fac_kw)
    facility = _given_or(t.facility_capex_usd, Decimal(t.facility_capex_usd_per_kw) * fac_kw)
    return (
        line("GPU nodes", gpu_capex_usd(r), f"{r.node_count:,} × ${Decimal(t.gpu_node_price_usd):,}"),
        line("Storage", storage_capex_usd(r), f"{r.storage.node_count} × ${Decimal(t.storage_node_price_usd):,}"),
        line(
            "Network",
            net.capex_usd,
            "as given"
            if t.network_capex_usd is not None
            else "the BOM's compute, storage and management planes (racks and PDUs are facility works)",
        ),
        line("Management", Decimal(t.mgmt_capex_usd), "management and login servers, as given"),
        line(
            "Cooling plant",
            cooling,
            "as given"
            if t.cooling_capex_usd is not None
            else f"{fac_kw:,} kW × ${Decimal(t.cooling_capex_usd_per_kw):,}/kW",
        ),
        line(
            "Facility works",
            facility,
            "as given"
            if t.facility_capex_usd is not None
            else f"{fac_kw:,} kW × ${Decimal(t.facility_capex_usd_per_kw):,}/kW",
        ),
        line("Software licences", Decimal(t.software_capex_usd), "up front, as given"),
    )


def gpu_capex_usd(r: Requirements) -> Decimal:
    return Decimal(r.tco.gpu_node_price_usd) * r.node_count


def storage_capex_usd(r: Requirements) -> Decimal:
    return Decimal(r.tco.storage_node_price_usd) * r.storage.node_count


def opex_lines(r: Requirements, fac: FacilityPower, net: NetworkFigures) -> tuple[CostLine, ...]:
    t = r.tco
    hardware = gpu_capex_usd(r) + storage_capex_usd(r) + net.capex_usd
    spares = _given_or(t.spares_maintenance_usd_per_year, hardware / 100)
    ops = Decimal(str(t.ops_fte)) * Decimal(t.ops_usd_per_fte_year)
    return (
        line("Electricity", fac.annual_electricity_usd, fac.derivations["annual_electricity_usd"]),
        line("Operations staff", ops, f"{t.ops_fte:g} FTE × ${Decimal(t.ops_usd_per_fte_year):,}"),
        line(
            "Spares & maintenance",
            spares,
            "as given" if t.spares_maintenance_usd_per_year is not None else f"1 % of hardware ${hardware:,.0f}",
        ),
        line("Software", Decimal(t.software_usd_per_year), "subscriptions, as given"),
    )


def plan_power(r: Requirements, net: NetworkFigures, racks: RackPlan) -> PowerPlan:
    """Racks (planned once, before the BOM) → cooling and PUE → facility → coolant → capping → TCO → carbon."""
    tdp = gpu_tdp_w(r)
    node_w, node_why = node_power_w(r)
    fac, _kind, pue = facility_plan(r, node_w, node_why, net, racks)
    cooling = cooling_plan(r, fac, racks)
    budget_kw = float(r.power.capping_budget_kw) if r.power.capping_budget_kw else fac.facility_kw
    per = r.cluster.gpus_per_node
    capping = plan_capping(budget_kw, tdp, host_w_per_gpu=float(r.power.host_overhead_w) / per, pue=pue)
    t, c = r.tco, r.carbon
    tco = total_cost_of_ownership(
        TcoInputs(
            capex_lines(r, fac, net),
            opex_lines(r, fac, net),
            t.years,
            r.cluster.gpu_count,
            float(t.utilisation_frac),
            float(t.discount_rate_pct) / 100,
        )
    )
    run = training_run_footprint(
        TrainingRun(
            r.cluster.gpu_count,
            tdp,
            float(c.run_utilisation_frac),
            float(c.run_power_frac),
            pue,
            float(c.run_days),
            float(c.grid_kg_co2_per_kwh),
        )
    )
    year_t = annual_co2_t(fac.annual_kwh, float(c.grid_kg_co2_per_kwh))
    why = (
        f"{fac.annual_kwh:,.0f} kWh/year × {c.grid_kg_co2_per_kwh:g} kg/kWh = {year_t:,.1f} t CO₂ per year of operation"
    )
    return PowerPlan(tdp, node_w, fac, racks, cooling, capping, tco, run, year_t, why)
