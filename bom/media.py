"""One part table: which cable, fibre and transceivers each link gets (pure: no Django).

For a link — its plane, the roles of its two ends, its speed, its length and how many racks
apart its ends stand — :class:`PartChooser` picks, from the catalog:

- the cable: passive copper (DAC) inside a rack, active copper (ACC) or an active optical
  cable (AOC) to a nearby rack, otherwise optics (``media="all_optics"``: optics everywhere);
  at a twin-port cage a cable only where its end is of the cage's form (OSFP twin-port
  splitters); a straight QSFP56/QSFP28 cable there would leave the cage's other port dead;
- for optics, one transceiver per end and a fibre between them: the cheapest combination
  (per port: a twin-port module counts half per port) whose modules *and* fibre reach the
  link's length — multimode SR optics where they reach, single-mode DR/FR/LR beyond —
  with the ends' modules on the same fibre (MPO or LC, OM4 or OS2);
- a NIC end takes the module its cage holds (``nic_cage``: a twin-port OSFP cage takes one
  module for two NIC ports); a switch end takes a module as wide as its cages (QM9700: 2 × 400G,
  Q3400: 2 × 800G) from either fibre family, a single-port one only where no module of the
  cage's width reaches — and then the BOM's cage check (bom/build.py) says whether the switch has
  the cages for it; a module's host lanes are no faster than its cage's (an XDR 200G-lane optic
  never goes in a 100G-lane cage);
- the two ends' modules take the same fibre: same medium, same connector and fibre count per
  port (an SR8's 16 fibres on MPO-16, a DR4's 8 on MPO-12 APC), and the trunk between them is
  one with that connector and at least those fibres (bom/catalog.py OPTICS);
- a BMC link is Cat6, with a 1000BASE-T SFP at the management ToR's SFP28 port.

The BOM counts these parts per link class (bom/build.py) and the cut sheet lists them per
cable (bom/export.py), both from this one chooser, so they cannot disagree. Where nothing in
the catalog reaches, :class:`NoPartReaches` names the link class, its length and what to change.
"""

from __future__ import annotations

from dataclasses import dataclass

from bom.links import Link
from bom.parts import FIBRE_MEDIA, CableMedia, PartKind, PartSpec

# a node's compute NIC cages: (form factor, NIC ports per module)
NIC_CAGES: dict[str, tuple[str, int]] = {
    "osfp_single": ("OSFP", 1),  # one single-port OSFP module per NIC port (PCIe ConnectX-7 OSFP)
    "osfp_twin": ("OSFP", 2),  # DGX H100/H200: 8 ConnectX-7 ports in 4 twin-port OSFP cages
    "qsfp112": ("QSFP112", 1),
}
MULTIMODE = (CableMedia.FIBRE_MPO, CableMedia.FIBRE_LC)
SINGLE_MODE = (CableMedia.FIBRE_MPO_SM, CableMedia.FIBRE_LC_SM)


class NoPartReaches(ValueError):
    """No catalog part carries a link class: the design cannot be bought as planned."""

    def __init__(self, plane: str, segment: str, length_m: int, gbps: float, why: str):
        self.plane, self.segment, self.length_m, self.gbps = plane, segment, length_m, gbps
        super().__init__(
            f"{plane} {segment} links of {length_m} m at {gbps:g}G: {why}; shorten the runs "
            "(fewer racks per row or nodes closer to their switches) or add a part that reaches to the catalog"
        )


@dataclass(frozen=True)
class LinkParts:
    """What one link is built from. ``cable`` is the copper/AOC cable or, for optics, the fibre."""

    cable: PartSpec
    a_module: PartSpec | None = None
    z_module: PartSpec | None = None

    @property
    def optical(self) -> bool:
        return self.cable.media in FIBRE_MEDIA

    @property
    def label(self) -> str:
        ends = [m.sku for m in (self.a_module, self.z_module) if m is not None]
        return " + ".join([self.cable.sku, *ends])


@dataclass(frozen=True)
class EndSpec:
    """What a link end accepts: module width (ports per cage), form factor ("" = any) and the cage's lane rate
    (0 = not declared: any)."""

    ppm: int = 1
    form: str = ""
    lane_gbps: float = 0.0
    cage_form: str = ""  # a switch's cages (OSFP, QSFP-DD): which cable ends fit a twin-port cage ("" = any)

    def fits(self, module: PartSpec) -> bool:
        """A module's host lanes no faster than the cage's (when both are declared)."""
        return not (self.lane_gbps and module.lane_gbps and module.lane_gbps > self.lane_gbps + 1e-9)


def mates(a: PartSpec, z: PartSpec) -> bool:
    """Two modules on one fibre: same medium, connector and fibres per port (each where both declare it)."""
    if a.media != z.media:
        return False
    if a.connector and z.connector and a.connector != z.connector:
        return False
    return not (a.fibre_count and z.fibre_count and a.fibre_count != z.fibre_count)


def takes(fibre: PartSpec, module: PartSpec) -> bool:
    """Whether a fibre fits a module's port: the same connector, and at least the fibres the port lights (each
    where both declare it: an SR8's 16 fibres need an MPO-16 trunk, never an MPO-12)."""
    if fibre.connector and module.connector and fibre.connector != module.connector:
        return False
    return not (fibre.fibre_count and module.fibre_count and fibre.fibre_count < module.fibre_count)


def _per_port(p: PartSpec) -> float:
    return float(p.unit_price_usd) / max(p.ports_per_module, 1)


class PartChooser:
    """Chooses and caches the parts of each link class (see the module docstring)."""

    def __init__(self, parts, *, media_policy: str, ends: dict[tuple[str, str], EndSpec]):
        self.media_policy = media_policy
        self.ends = ends  # (plane, role) → EndSpec
        parts = list(parts)
        self.modules = [p for p in parts if p.kind == PartKind.TRANSCEIVER]
        self.cables = [p for p in parts if p.kind == PartKind.CABLE]
        self._cache: dict[tuple, LinkParts] = {}
        self._with: dict[tuple, LinkParts | None] = {}

    def parts(self, link: Link) -> LinkParts:
        key = (link.plane, link.a_role, link.z_role, link.speed_gbps, link.length_m, link.rack_distance)
        found = self._cache.get(key)
        if found is None:
            found = self._cache[key] = self._choose(link)
        return found

    def _media_order(self, link: Link) -> tuple[str, ...]:
        if self.media_policy == "all_optics":
            return ("optics",)
        return {
            0: (CableMedia.DAC, CableMedia.ACC, CableMedia.AOC, "optics"),
            1: (CableMedia.ACC, CableMedia.AOC, "optics"),
        }.get(link.rack_distance, ("optics",))

    def _cable_fits(self, link: Link, cable: PartSpec) -> bool:
        """A copper or AOC cable at a twin-port cage only where its end is of the cage's form (the catalog's 400G
        and 800G OSFP cables: NVIDIA's twin-port DAC/ACC/AOC splitters); a QSFP56 or QSFP28 cable is straight and
        single-port, and in a twin-port QSFP-DD cage it would leave the cage's other port dead — such links take
        twin-port optics, one module a cage."""
        for role in (link.a_role, link.z_role):
            end = self.ends.get((link.plane, role), EndSpec())
            if end.ppm > 1 and end.cage_form and cable.form_factor and cable.form_factor != end.cage_form:
                return False
        return True

    def _choose(self, link: Link) -> LinkParts:
        if link.a_role == "bmc":
            return self._bmc(link)
        for media in self._media_order(link):
            if media == "optics":
                return self._optics(link)
            cable = self.cable(media, link.speed_gbps, link.length_m)
            if cable is not None and self._cable_fits(link, cable):
                return LinkParts(cable)
        raise AssertionError("the media order always ends in optics")

    def cable(self, media: str, gbps: float, length_m: int, module: PartSpec | None = None) -> PartSpec | None:
        """The shortest (then cheapest) cable of a medium and speed at least ``length_m`` long; for a ``module``'s
        fibre, one with its connector and at least the fibres its port lights (where both declare them)."""
        any_speed = media in FIBRE_MEDIA or media == CableMedia.COPPER_RJ45
        cands = [
            p
            for p in self.cables
            if p.media == media
            and (any_speed or p.port_gbps == gbps)
            and p.length_m >= length_m
            and (module is None or takes(p, module))
        ]
        return min(cands, key=lambda p: (p.length_m, p.unit_price_usd)) if cands else None

    def _bmc(self, link: Link) -> LinkParts:
        cable = self.cable(CableMedia.COPPER_RJ45, 1, link.length_m)
        if cable is None:
            raise NoPartReaches(link.plane, link.segment, link.length_m, 1, "no Cat6 cord that long in the catalog")
        sfp = [p for p in self.modules if p.media == CableMedia.COPPER_RJ45 and p.port_gbps == 1]
        return LinkParts(cable, None, min(sfp, key=lambda p: p.unit_price_usd) if sfp else None)

    def _end_modules(self, link: Link, end: str, single: bool = False) -> list[PartSpec]:
        """The modules an end can take, of both fibre families: as wide as its cage where any such reaches (in
        either family), else (or with ``single``) single-port; of its cage's form factor where any is."""
        role = link.a_role if end == "a" else link.z_role
        spec = self.ends.get((link.plane, role), EndSpec())
        cands = [
            p
            for p in self.modules
            if p.runs_at(link.speed_gbps)
            and p.media in MULTIMODE + SINGLE_MODE
            and p.reach_m >= link.length_m
            and spec.fits(p)
        ]
        exact = [] if single else [p for p in cands if p.ports_per_module == spec.ppm]
        exact = exact or [p for p in cands if p.ports_per_module == 1]
        if spec.form and any(p.form_factor == spec.form for p in exact):
            exact = [p for p in exact if p.form_factor == spec.form]
        return exact

    def _optics(self, link: Link) -> LinkParts:
        best = self._cheapest(link, single=False) or self._cheapest(link, single=True)
        if best is None:
            speed_known = any(p.port_gbps == link.speed_gbps for p in self.modules)
            why = (
                "no transceiver and fibre in the catalog reach that far"
                if speed_known
                else f"the catalog has no {link.speed_gbps:g}G transceiver"
            )
            raise NoPartReaches(link.plane, link.segment, link.length_m, link.speed_gbps, why)
        return best

    def parts_with(self, link: Link, end: str, module: PartSpec) -> LinkParts | None:
        """The link's parts with ``end`` ("a" or "z") holding ``module``: the other end's cheapest module that
        mates with it (as wide as its cage where one reaches, as in :meth:`_end_modules`) and a fibre that takes
        both — None where the module cannot serve the link (speed, reach, lanes) or nothing mates. The BOM uses it
        to pair a twin-port cage's odd port onto the cage's longer-reach module (bom/build.py pair_odd_ports)."""
        key = (link.plane, link.a_role, link.z_role, link.speed_gbps, link.length_m, link.rack_distance, end)
        key += (module.sku,)
        if key not in self._with:
            self._with[key] = self._choose_with(link, end, module)
        return self._with[key]

    def _choose_with(self, link: Link, end: str, module: PartSpec) -> LinkParts | None:
        role = link.a_role if end == "a" else link.z_role
        spec = self.ends.get((link.plane, role), EndSpec())
        if not (module.runs_at(link.speed_gbps) and module.reach_m >= link.length_m and spec.fits(module)):
            return None
        other = "z" if end == "a" else "a"
        best: tuple[float, LinkParts] | None = None
        for single in (False, True):
            for m in (m for m in self._end_modules(link, other, single) if mates(module, m)):
                fibre = self.cable(module.media, 0, link.length_m, module)
                if fibre is None or not takes(fibre, m):
                    continue
                cost = _per_port(m) + float(fibre.unit_price_usd)
                if best is None or cost < best[0]:
                    best = (cost, LinkParts(fibre, module, m) if end == "a" else LinkParts(fibre, m, module))
            if best is not None:
                break
        return None if best is None else best[1]

    def _cheapest(self, link: Link, *, single: bool) -> LinkParts | None:
        """The cheapest per port of the ends' modules that mate and a fibre between them that reaches."""
        best: tuple[float, LinkParts] | None = None
        ends_z = self._end_modules(link, "z", single)
        for a in self._end_modules(link, "a", single):
            for z in [m for m in ends_z if mates(a, m)]:
                fibre = self.cable(a.media, 0, link.length_m, a)
                if fibre is None:
                    continue
                cost = _per_port(a) + _per_port(z) + float(fibre.unit_price_usd)
                if best is None or cost < best[0]:
                    best = (cost, LinkParts(fibre, a, z))
        return None if best is None else best[1]
