"""`cluster-designer calibrate REQUIREMENTS.yaml LOG.txt --collective all_reduce`: fit from the shell.

Pure (no database). Prints the fitted parameters, the error before and after, and each size's
measured / model / calibrated busbw; ``--format json`` prints the whole result. Exit status 0
on success, 1 when the requirements, the log or the fit are refused (one line per field), 2 on
bad usage.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TextIO

from cluster.calibrate import COLUMNS, CalibrationInputError, calibrate
from cluster.validate import RequirementsError, load_requirements_file, validate
from topology.collectives import Collective
from topology.nccl_logs import MAX_LOG_CHARS


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="cluster-designer calibrate", description="Fit a design's collective model to an nccl-tests log."
    )
    p.add_argument("requirements", type=Path, help="requirements file (YAML or JSON)")
    p.add_argument("log", type=Path, help="stdout of all_reduce_perf (or a sibling)")
    p.add_argument("--collective", choices=[c.value for c in Collective], default="all_reduce")
    p.add_argument("--column", choices=COLUMNS, default="out_of_place")
    p.add_argument("--gpus", type=int, help="GPUs in the run (default: the log's '#  Rank' lines)")
    p.add_argument("--format", choices=["json", "table"], default="table")
    return p


def _table(out: dict) -> str:
    p = out["parameters"]
    lines = [
        f"{out['collective']} on {out['provenance']['ranks']} GPUs; {out['derivation']}",
        f"  bw_efficiency {p['bw_efficiency']:.4f}, latency_offset_us {p['latency_offset_us']:.2f}, "
        f"simple_latency_offset_us {p['simple_latency_offset_us']:.2f}",
        f"  GM error: bare model {out['error_before']:.1%} → calibrated {out['error_after']:.1%}",
        f"  {'':>14} {'time [µs]':^32} {'busbw [GB/s]':^26}",
        f"  {'size [B]':>14} {'measured':>10} {'model':>10} {'calibrated':>10} {'measured':>8} {'model':>8} "
        f"{'calib.':>8}  calibrated pick",
    ]
    for r in out["rows"]:
        times = f"{r['measured_time_us']:>10.1f} {r['model_time_us']:>10.1f} {r['calibrated_time_us']:>10.1f}"
        bws = " ".join(f"{r[k + '_busbw_gbyte_s']:>8.2f}" for k in ("measured", "model", "calibrated"))
        lines.append(f"  {r['size_bytes']:>14,} {times} {bws}  {r['calibrated_choice']}")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None, stdout: TextIO | None = None, stderr: TextIO | None = None) -> int:
    stdout, stderr = stdout or sys.stdout, stderr or sys.stderr
    args = parser().parse_args(argv)
    try:
        r = validate(load_requirements_file(args.requirements))
    except RequirementsError as exc:
        stderr.write(f"{args.requirements}: invalid requirements\n")
        stderr.writelines(f"  {k}: {' '.join(v)}\n" for k, v in exc.errors.items())
        return 1
    try:
        if args.log.stat().st_size > MAX_LOG_CHARS * 4:
            raise CalibrationInputError({"log": [f"{args.log.stat().st_size:,} bytes is too big for a log"]})
        text = args.log.read_text(encoding="utf-8")
        out = calibrate(r, text, args.collective, column=args.column, gpus=args.gpus)
    except OSError as exc:
        stderr.write(f"{args.log}: cannot read the log ({exc.strerror})\n")
        return 1
    except UnicodeDecodeError:
        stderr.write(f"{args.log}: the log is not UTF-8 text\n")
        return 1
    except CalibrationInputError as exc:
        stderr.write(f"{args.log}: the calibration is refused\n")
        names = {"gpus": "--gpus", "collective": "--collective", "column": "--column"}
        stderr.writelines(f"  {names.get(k, k)}: {' '.join(v)}\n" for k, v in exc.errors.items())
        return 1
    stdout.write(json.dumps(out, indent=2) + "\n" if args.format == "json" else _table(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
