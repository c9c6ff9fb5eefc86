"""Accelerator power figures (seed-figures.md P1; vendor datasheets)."""

from __future__ import annotations

GPU_TDP_W: dict[str, float] = {
    "A100-SXM4-80GB": 400.0,
    "H100-SXM5": 700.0,
    "H200-SXM": 700.0,
    "B200": 1000.0,
    "B300": 1100.0,  # Blackwell Ultra HGX/DGX B300 (assumption; the node: power/platforms.py)
    "GB200": 1200.0,  # per GPU in an NVL72 rack (≈120 kW for 72 GPUs with CPUs, switches)
    "GB300": 1400.0,  # per Blackwell Ultra GPU in a GB300 NVL72 rack (assumption, third-party figure)
    "MI300X": 750.0,
    "TPU-v4": 192.0,
}
"""Thermal design power per accelerator [W]. Seed P1: V100 300, A100 400, H100 SXM5 700, B200 1,000."""
