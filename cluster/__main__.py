"""`python -m cluster evaluate FILE.yaml [--format json|table] [--verify] [--xlsx F] [--reconcile seed-d7]
[--scheduler DIR]`; `python -m cluster calibrate FILE.yaml LOG.txt --collective all_reduce [--column C]
[--gpus N] [--format json|table]`."""

import sys

from cluster.cli import main

if __name__ == "__main__":
    args = sys.argv[1:]
    if args[:1] == ["calibrate"]:
        from cluster.calibrate_cli import main as calibrate_main

        sys.exit(calibrate_main(args[1:]))
    if args[:1] == ["evaluate"]:
        args = args[1:]
    sys.exit(main(args))
