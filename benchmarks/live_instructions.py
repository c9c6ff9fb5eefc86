"""Instructions a cold 100k-GPU live evaluate executes, counted by valgrind's callgrind (`make bench-instructions`).

`benchmarks/live.py` times the call, and on a shared 2-core machine its speed drifts by ± 30 % from one minute to
the next, so a change of a few per cent cannot be read from it. The instructions a call executes do not drift:
this runs the same request as live.py's cold 100k calls (`POST /api/v1/evaluate/?layout=flat`, the GPU count one
8-GPU node lower each time) under callgrind, lets two calls fill the memos and the heap, then counts the next
``CALLS`` calls only (callgrind_control zeroes the counts before them and dumps after) and prints the count a call.
Memory stalls are not counted — a call that moves fewer bytes runs faster than its count shows — so this compares
two versions of the code, it does not time one. ``--root DIR`` counts the checkout in DIR (a `git worktree` of
another commit, say) with this checkout's interpreter. Needs valgrind; ≈ 4 minutes (≈ 50× slower than native).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
CALLS = 3  # counted calls (after two that fill the memos and the heap)


def _inner(root: Path) -> None:
    sys.path.insert(0, str(root))
    os.chdir(root)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "designer.settings")
    os.environ.setdefault("SECRET_KEY", "bench")
    os.environ.setdefault("DEBUG", "1")
    os.environ.setdefault("VAR_DIR", tempfile.mkdtemp(prefix="designer-bench-"))
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.test import Client

    from benchmarks.bom import SCALES

    call_command("migrate", verbosity=0)
    user, _ = get_user_model().objects.get_or_create(username="bench")
    client = Client(HTTP_HOST="localhost")
    client.force_login(user)

    def post(body: dict) -> None:
        r = client.post("/api/v1/evaluate/?layout=flat", json.dumps(body), content_type="application/json")
        assert r.status_code == 200, r.content[:300]
        r.__dict__.pop("json", None)  # the test client's cycle, as in benchmarks/live.py

    post({"gpu_count": 64})  # the process's first request (imports, the catalog, the heap frozen)
    body = SCALES[102_400]
    for k in range(2):
        post({**body, "gpu_count": 102_400 - 8 * (k + 1)})
    pid = str(os.getpid())
    subprocess.run(["callgrind_control", "--zero", pid], check=True, capture_output=True)
    for k in range(2, 2 + CALLS):
        post({**body, "gpu_count": 102_400 - 8 * (k + 1)})
    subprocess.run(["callgrind_control", "--dump", pid], check=True, capture_output=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=HERE, help="the checkout to count (default: this one)")
    parser.add_argument("--inner", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.inner:
        _inner(args.root.resolve())
        return
    if shutil.which("valgrind") is None or shutil.which("callgrind_control") is None:
        sys.exit("live_instructions: needs valgrind (callgrind, callgrind_control) on PATH")
    with tempfile.TemporaryDirectory(prefix="callgrind-") as out:
        cmd = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}/cg.%p", sys.executable,
               __file__, "--inner", "--root", str(args.root.resolve())]  # fmt: skip
        subprocess.run(cmd, check=True, capture_output=True)
        dumps = sorted(Path(out).glob("cg.*.1"))  # the dump after the counted calls (the zeroed part)
        if not dumps:
            sys.exit("live_instructions: callgrind wrote no dump of the counted calls")
        found = re.search(r"^summary:\s*(\d+)", dumps[0].read_text(), re.MULTILINE)
        if found is None:
            sys.exit(f"live_instructions: no summary line in {dumps[0].name}")
        per_call = int(found.group(1)) / CALLS
    print(f"{args.root.resolve()}: {per_call / 1e6:,.1f} M instructions a cold 100k-GPU live evaluate ({CALLS} calls)")


if __name__ == "__main__":
    main()
