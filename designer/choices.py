"""Choices used across forms, the API and the CLI — one place, no scattered literals."""

from __future__ import annotations

from topology.spec import Topology

GPU_MODELS: tuple[str, ...] = (
    "A100-SXM4-80GB",
    "H100-SXM5",
    "H200-SXM",
    "B200",
    "GB200",
    "MI300X",
    "TPU-v4",
)

TOPOLOGY_CHOICES: tuple[tuple[str, str], ...] = tuple((t.value, t.label) for t in Topology)
