"""Tidal sharing (§14.5.6): inference takes GPUs back from best-effort training at its daily peak (pure).

An hourly inference demand curve (24 values, GPUs, repeating daily; hour 0 = the simulation's start)
says how many GPUs serving needs each hour. At every hour boundary the simulator reserves
⌈demand ÷ GPUs per node⌉ nodes for inference: free nodes first, then by preempting running
best-effort jobs (the most recently started first; they checkpoint on the signal and queue again),
never queued or critical ones; what it cannot find is booked as unserved inference node-hours.
When demand falls, the nodes return to the batch pool. The report splits node-hours into training
busy + inference + idle + down = capacity. (The simulator's hour boundaries are exact: multiples of 3,600 whole
seconds.)
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from scheduling import SchedulerInputError


@dataclass(frozen=True)
class TidalPolicy:
    demand_gpus: tuple[float, ...]  # 24 hourly values

    def __post_init__(self) -> None:
        v = self.demand_gpus
        if len(v) != 24 or any(not isinstance(x, int | float) or not math.isfinite(x) or x < 0 for x in v):
            raise SchedulerInputError({"tidal.demand_gpus": f"24 hourly GPU counts ≥ 0, got {len(v)} values"})

    def nodes_at(self, t_h: float, gpus_per_node: int) -> int:
        return math.ceil(self.demand_gpus[math.floor(t_h) % 24] / gpus_per_node)
