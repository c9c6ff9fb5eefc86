"""Power, racks, cooling, capping, TCO and carbon of one design, in order (pure: no Django).

The orchestration the pipeline calls: node power from the GPU TDP (or a node figure), the
IT load, racks from the rack budget, the cooling (chosen by density when not given) and so
the PUE, facility power and energy, the coolant loop, the power-capping planner, the N-year
TCO and the carbon of a run and of a year. Each model lives in its own module and cites its
source; this module only chains them and states what it took from where.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from power.capping import CappingPlan, plan_capping
from power.carbon import RunFootprint, TrainingRun, annual_co2_t, training_run_footprint
from power.cooling import CoolingPlan, CoolingRequest, cooling_for_density, plan_cooling
from power.facility import FacilityPower, ItLoad, default_pue, it_power_kw, plan_facility
from power.gpus import GPU_TDP_W
from power.platforms import GENERIC_HOST_W, platform_for
from power.rack_systems import RackScaleSystem, rack_scale_system
from power.racks import RackPlan, RackRequest, plan_racks
from power.tco import CostLine, Tco, TcoInputs, line, total_cost_of_ownership

# The requests below are built from the typed requirements in cluster/requests.py; this module never sees the
# requirements themselves.


@dataclass(frozen=True)
class NodePowerRequest:
    """What a compute node's draw follows from."""

    gpu_model: str
    gpus_per_node: int
    gpu_tdp_w: float | None  # None: the model's TDP (power/gpus.py)
    node_power_w: float | None  # None: GPUs × TDP + the host (or a rack-scale system's compute tray)
    host_overhead_w: float | None  # None: the platform's host share (power/platforms.py)


@dataclass(frozen=True)
class RackFigures:
    """The rack plan's figures that come from the requirements; :func:`rack_plan` adds the floor plan's network
    racks, and power/racks.py's RackRequest checks them all at once."""

    node_count: int
    node_kw: float
    node_u: int
    rack_budget_kw: float
    rack_u: int
    racks_per_row: int
    storage_node_count: int
    storage_node_kw: float
    storage_node_u: int
    mgmt_node_count: int  # management, login, fabric-management servers and attached devices
    mgmt_node_kw: float
    mgmt_node_u: int
    # a rack-scale NVLink system (:func:`rack_scale_fields`)
    trays_per_rack: int | None = None
    rack_fixed_w: float = 0.0
    rack_fixed_u: int = 0
    system_name: str = ""


@dataclass(frozen=True)
class TcoRequest:
    """The prices, staff and horizon of the TCO (``None``: computed, else as given)."""

    years: int
    node_count: int
    storage_node_count: int
    gpu_count: int
    gpu_node_price_usd: Decimal
    storage_node_price_usd: Decimal
    network_capex_usd: Decimal | None  # as given; None: the BOM's (NetworkFigures.capex_usd either way)
    mgmt_capex_usd: Decimal
    cooling_capex_usd: Decimal | None
    cooling_capex_usd_per_kw: Decimal
    facility_capex_usd: Decimal | None
    facility_capex_usd_per_kw: Decimal
    software_capex_usd: Decimal
    software_usd_per_year: Decimal
    ops_fte: float
    ops_usd_per_fte_year: Decimal
    spares_maintenance_usd_per_year: Decimal | None
    utilisation_frac: float
    discount_rate_pct: float


@dataclass(frozen=True)
class CarbonRequest:
    grid_kg_co2_per_kwh: float
    run_days: float
    run_utilisation_frac: float
    run_power_frac: float


@dataclass(frozen=True)
class PowerRequest:
    """Everything :func:`plan_power` reads besides the rack plan and the network's figures."""

    node: NodePowerRequest
    node_count: int
    gpu_count: int
    storage_node_count: int
    storage_node_w: float
    infra_node_count: int  # management and login servers
    mgmt_node_w: float
    average_load_frac: float
    cooling_type: str  # "": by rack density
    pue: float | None  # None: typical for the cooling
    electricity_usd_per_kwh: Decimal
    electrical_chain: str
    coolant_supply_c: float
    coolant_return_c: float
    coolant_fluid: str
    cdu_unit_kw: float
    heat_rejection_unit_kw: float
    capping_budget_kw: float | None  # None: the facility's
    tco: TcoRequest
    carbon: CarbonRequest


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


def gpu_tdp_w(node: NodePowerRequest) -> float:
    return float(node.gpu_tdp_w or GPU_TDP_W[node.gpu_model])  # every model of the form has its TDP


def node_host_w(node: NodePowerRequest) -> tuple[float, str]:
    """A node's draw besides its GPUs: as given, else the platform's host share (power/platforms.py) for this
    node's GPUs, else the generic host; the string names where it came from."""
    if node.host_overhead_w is not None:
        return float(node.host_overhead_w), "host as given"
    platform = platform_for(node.gpu_model)
    if platform is None:
        return GENERIC_HOST_W, f"host (no platform for {node.gpu_model}: the DGX H100 host share)"
    host = platform.host_w_for(node.gpus_per_node)
    if node.gpus_per_node == platform.gpus:
        return host, "host"
    return host, (
        f"host ({platform.name}'s {platform.host_w:,.0f} W ÷ {platform.gpus} GPUs × {node.gpus_per_node} GPUs)"
    )


def capping_host_w(node: NodePowerRequest) -> float:
    """The host share the capping planner keeps at full power: a rack-scale tray's host, else the node's."""
    system = rack_scale_system(node.gpu_model)
    if system is not None and node.host_overhead_w is None:
        return system.tray_host_w
    return node_host_w(node)[0]


def _platform_prefix(node: NodePowerRequest) -> str:
    platform = platform_for(node.gpu_model)
    if platform is None:
        return ""
    return f"{platform.name} platform ({platform.document}: {platform.max_system_w:,.0f} W max): "


def node_power_w(node: NodePowerRequest) -> tuple[float, str]:
    """A compute node's draw: as given, or GPUs × TDP + the host (CPUs, memory, NICs, fans) of its platform
    (power/platforms.py: the data sheet's maximum − GPUs × TDP); for a rack-scale NVLink system the node is a
    compute tray with the system's tray host (power/rack_systems.py)."""
    per = node.gpus_per_node
    if node.node_power_w:
        return float(node.node_power_w), f"{float(node.node_power_w):,.0f} W as given"
    tdp = gpu_tdp_w(node)
    system = rack_scale_system(node.gpu_model)
    if system is not None and node.host_overhead_w is None:
        watts = system.tray_w(tdp)
        return watts, (
            f"{_platform_prefix(node)}{system.gpus_per_tray} × {tdp:,.0f} W TDP + {system.tray_host_w:,.0f} W tray "
            f"host (Grace CPUs, memory, NICs, fans; {system.name}) = {watts:,.0f} W per compute tray"
        )
    host, host_why = node_host_w(node)
    watts = tdp * per + host
    prefix = "" if node.host_overhead_w is not None else _platform_prefix(node)
    return watts, f"{prefix}{per} × {tdp:g} W TDP + {host:,.0f} W {host_why} = {watts:,.0f} W"


def rack_scale_fields(system: RackScaleSystem | None) -> dict[str, Any]:
    """A rack-scale NVLink system's rack: a fixed number of compute trays, the switch trays' draw and the rack
    units besides the compute trays (none for a system of separate nodes)."""
    if system is None:
        return {}
    return {
        "trays_per_rack": system.compute_trays,
        "rack_fixed_w": system.switch_trays * system.switch_tray_w,
        "rack_fixed_u": system.rack_u - system.compute_trays * system.tray_u,
        "system_name": system.name,
    }


def rack_plan(
    figures: RackFigures,
    upper_switch_count: int,
    *,
    leaf_rack_count: int | None,
    switches_per_network_rack: int,
) -> RackPlan:
    """The racks: ``leaf_rack_count`` and ``switches_per_network_rack`` come from the floor plan
    (bom.plan.floor_plan), which fills network racks by rack units."""
    return plan_racks(
        RackRequest(
            **dataclasses.asdict(figures),
            upper_switch_count=upper_switch_count,
            leaf_rack_count=leaf_rack_count,
            switches_per_network_rack=switches_per_network_rack,
        )
    )


def cooling_and_pue(req: PowerRequest, racks: RackPlan, it_kw: float) -> tuple[str, float, str]:
    """The cooling first (by density when not given), then the PUE that follows from it and from the site's size
    (power/facility.py default_pue); a PUE given is taken as given."""
    kind = req.cooling_type or cooling_for_density(racks.compute_rack_kw)
    if req.pue is not None:
        return kind, float(req.pue), ""
    pue, why = default_pue(kind, it_kw)
    return kind, pue, why


def facility_plan(req: PowerRequest, node_w: float, node_why: str, net: NetworkFigures, racks: RackPlan):
    load = ItLoad(
        req.node_count,
        node_w,
        req.storage_node_count,
        float(req.storage_node_w),
        req.infra_node_count,
        float(req.mgmt_node_w),
        net.power_w,
        float(req.average_load_frac),
        scale_up_w=_switch_tray_w(req, racks),
    )
    kind, pue, pue_why = cooling_and_pue(req, racks, sum(it_power_kw(load).values()))
    fac = plan_facility(
        load,
        pue=pue,
        electricity_usd_per_kwh=Decimal(str(req.electricity_usd_per_kwh)),
        chain=req.electrical_chain,
        network_source=net.power_derivation,
    )
    trays = ""
    system = rack_scale_system(req.node.gpu_model)
    if system is not None:
        trays = (
            f" + {racks.compute_rack_count:,} racks × {system.switch_trays} NVLink switch trays × "
            f"{system.switch_tray_w:,.0f} W"
        )
    fac.derivations["compute_kw"] = f"{req.node_count:,} nodes × ({node_why}){trays} = {fac.compute_kw:,.1f} kW"
    if pue_why:
        fac.derivations["pue"] = pue_why
    return fac, kind, pue


def _switch_tray_w(req: PowerRequest, racks: RackPlan) -> float:
    """NVLink switch trays of a rack-scale system draw power of their own, counted with the compute racks."""
    system = rack_scale_system(req.node.gpu_model)
    if system is None:
        return 0.0
    return racks.compute_rack_count * system.switch_trays * system.switch_tray_w


def cooling_plan(req: PowerRequest, fac: FacilityPower, racks: RackPlan) -> CoolingPlan:
    return plan_cooling(
        CoolingRequest(
            rack_kw=racks.compute_rack_kw,
            it_kw=fac.it_kw,
            facility_kw=fac.facility_kw,
            cooling_type=req.cooling_type,
            supply_c=float(req.coolant_supply_c),
            return_c=float(req.coolant_return_c),
            fluid=req.coolant_fluid,
            cdu_unit_kw=float(req.cdu_unit_kw),
            heat_rejection_unit_kw=float(req.heat_rejection_unit_kw),
        )
    )


def _given_or(value: Decimal | None, otherwise: Decimal) -> Decimal:
    return Decimal(value) if value is not None else otherwise


def capex_lines(t: TcoRequest, fac: FacilityPower, net: NetworkFigures) -> tuple[CostLine, ...]:
    fac_kw = Decimal(fac.facility_kw_billed)
    cooling = _given_or(t.cooling_capex_usd, Decimal(t.cooling_capex_usd_per_kw) * fac_kw)
    facility = _given_or(t.facility_capex_usd, Decimal(t.facility_capex_usd_per_kw) * fac_kw)
    return (
        line("GPU nodes", gpu_capex_usd(t), f"{t.node_count:,} × ${Decimal(t.gpu_node_price_usd):,}"),
        line("Storage", storage_capex_usd(t), f"{t.storage_node_count} × ${Decimal(t.storage_node_price_usd):,}"),
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


def gpu_capex_usd(t: TcoRequest) -> Decimal:
    return Decimal(t.gpu_node_price_usd) * t.node_count


def storage_capex_usd(t: TcoRequest) -> Decimal:
    return Decimal(t.storage_node_price_usd) * t.storage_node_count


def opex_lines(t: TcoRequest, fac: FacilityPower, net: NetworkFigures) -> tuple[CostLine, ...]:
    hardware = gpu_capex_usd(t) + storage_capex_usd(t) + net.capex_usd
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


def plan_power(req: PowerRequest, net: NetworkFigures, racks: RackPlan) -> PowerPlan:
    """Racks (planned once, before the BOM) → cooling and PUE → facility → coolant → capping → TCO → carbon."""
    tdp = gpu_tdp_w(req.node)
    node_w, node_why = node_power_w(req.node)
    fac, _kind, pue = facility_plan(req, node_w, node_why, net, racks)
    cooling = cooling_plan(req, fac, racks)
    budget_kw = float(req.capping_budget_kw) if req.capping_budget_kw else fac.facility_kw
    per = req.node.gpus_per_node
    capping = plan_capping(budget_kw, tdp, host_w_per_gpu=capping_host_w(req.node) / per, pue=pue)
    t, c = req.tco, req.carbon
    tco = total_cost_of_ownership(
        TcoInputs(
            capex_lines(t, fac, net),
            opex_lines(t, fac, net),
            t.years,
            t.gpu_count,
            float(t.utilisation_frac),
            float(t.discount_rate_pct) / 100,
        )
    )
    run = training_run_footprint(
        TrainingRun(
            req.gpu_count,
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
