"""Pure scheduler planning (no Django): the partition plan, Slurm and Kubernetes files from the
fabric plan, and the seed's tenancy calculators. Errors raise SchedulerInputError."""

from __future__ import annotations

from collections.abc import Mapping


class SchedulerInputError(ValueError):
    """Inputs the scheduler planner refuses, keyed by requirement field (``scheduler.*`` key), each
    with what is allowed."""

    def __init__(self, errors: Mapping[str, str]):
        self.errors = dict(errors)
        super().__init__("; ".join(f"{k}: {v}" for k, v in self.errors.items()))
