"""One part table: which cable, fibre and transceivers each link gets (pure: no Django).

For a link — its plane, the roles of its two ends, its speed, its length and how many racks
apart its ends stand — :class:`PartChooser` picks, from the catalog:

- the cable: passive copper (DAC) inside a rack, active copper (ACC) or an active optical
  cable (AOC) to a nearby rack, otherwise optics (``media="all_optics"``: optics everywhere);
- for optics, one transceiver per end and a fibre between them: the cheapest combination
  (per port: a twin-port module counts half per port) whose modules *and* fibre reach the
  link's length — multimode SR optics where they reach, single-mode DR/FR/LR beyond —
  with the ends' modules on the same fibre (MPO or LC, OM4 or OS2);
- a NIC end takes the module its cage holds (``nic_cage``: a twin-port OSFP cage takes one
  module for two NIC ports); a switch end takes the switch's module width (QM9700: twin-port);
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
    """What a link end accepts: module width (ports per module) and form factor ("" = any)."""

    ppm: int = 1
    form: str = ""


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

    def _choose(self, link: Link) -> LinkParts:
        if link.a_role == "bmc":
            return self._bmc(link)
        for media in self._media_order(link):
            if media == "optics":
                return self._optics(link)
            cable = self.cable(media, link.speed_gbps, link.length_m)
            if cable is not None:
                return LinkParts(cable)
        raise AssertionError("the media order always ends in optics")

    def cable(self, media: str, gbps: float, length_m: int) -> PartSpec | None:
        """The shortest (then cheapest) cable of a medium and speed at least ``length_m`` long."""
        any_speed = media in FIBRE_MEDIA or media == CableMedia.COPPER_RJ45
        cands = [
            p for p in self.cables if p.media == media and (any_speed or p.port_gbps == gbps) and p.length_m >= length_m
        ]
        return min(cands, key=lambda p: (p.length_m, p.unit_price_usd)) if cands else None

    def _bmc(self, link: Link) -> LinkParts:
        cable = self.cable(CableMedia.COPPER_RJ45, 1, link.length_m)
        if cable is None:
            raise NoPartReaches(link.plane, link.segment, link.length_m, 1, "no Cat6 cord that long in the catalog")
        sfp = [p for p in self.modules if p.media == CableMedia.COPPER_RJ45 and p.port_gbps == 1]
        return LinkParts(cable, None, min(sfp, key=lambda p: p.unit_price_usd) if sfp else None)

    def _end_modules(self, link: Link, end: str, family: tuple[str, ...]) -> list[PartSpec]:
        role = link.a_role if end == "a" else link.z_role
        spec = self.ends.get((link.plane, role), EndSpec())
        cands = [
            p
            for p in self.modules
            if p.port_gbps == link.speed_gbps and p.media in family and p.reach_m >= link.length_m
        ]
        exact = [p for p in cands if p.ports_per_module == spec.ppm] or [p for p in cands if p.ports_per_module == 1]
        if spec.form and any(p.form_factor == spec.form for p in exact):
            exact = [p for p in exact if p.form_factor == spec.form]
        return exact

    def _optics(self, link: Link) -> LinkParts:
        best: tuple[float, LinkParts] | None = None
        for family in (MULTIMODE, SINGLE_MODE):
            for a in self._end_modules(link, "a", family):
                for z in [m for m in self._end_modules(link, "z", family) if m.media == a.media]:
                    fibre = self.cable(a.media, 0, link.length_m)
                    if fibre is None:
                        continue
                    cost = _per_port(a) + _per_port(z) + float(fibre.unit_price_usd)
                    if best is None or cost < best[0]:
                        best = (cost, LinkParts(fibre, a, z))
        if best is None:
            speed_known = any(p.port_gbps == link.speed_gbps for p in self.modules)
            why = (
                "no transceiver and fibre in the catalog reach that far"
                if speed_known
                else f"the catalog has no {link.speed_gbps:g}G transceiver"
            )
            raise NoPartReaches(link.plane, link.segment, link.length_m, link.speed_gbps, why)
        return best[1]
