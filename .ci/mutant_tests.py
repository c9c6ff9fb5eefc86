"""The test command of one mutant (`make mutation`): run only the tests that execute the changed line.

cosmic-ray has written one mutant into MODULE (in the scratch copy this runs in). The pristine
source is in ROOT; the lines that differ are looked up in the coverage map (line → the tests
whose run executed it, recorded by .ci/mutation.py on the pristine code) and only those tests
run. A change on a line no test executed during a test (module constants, default arguments —
run at import) falls back to the module's whole test selection, so a mutant is never passed
without a test having run.

    python .ci/mutant_tests.py MODULE MAP.json ROOT FALLBACK_TEST...
"""

from __future__ import annotations

import difflib
import json
import subprocess
import sys
from pathlib import Path


def changed_lines(pristine: list[str], mutated: list[str]) -> set[int]:
    lines: set[int] = set()
    for tag, i1, i2, _j1, _j2 in difflib.SequenceMatcher(a=pristine, b=mutated, autojunk=False).get_opcodes():
        if tag != "equal":
            lines.update(range(i1 + 1, max(i2, i1 + 1) + 1))
    return lines


def main(argv: list[str]) -> int:
    module, map_file, root, *fallback = argv
    pristine = (Path(root) / module).read_text().splitlines()
    mutated = Path(module).read_text().splitlines()
    recorded = json.loads(Path(map_file).read_text())
    by_line: dict[str, list[str]] = recorded["lines"]
    seconds: dict[str, float] = recorded["seconds"]
    tests = {t for line in changed_lines(pristine, mutated) for t in by_line.get(str(line), [])}
    tests = sorted(tests, key=lambda t: (seconds.get(t, 60.0), t))  # quickest first: -x stops at the first kill
    selection = tests or fallback
    cmd = [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:randomly", "-p", "no:cacheprovider"]
    cmd += ["-m", "not services and not browser", *selection]
    return subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
