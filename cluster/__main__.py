"""`python -m cluster evaluate FILE.yaml [--format json|table] [--verify] [--xlsx F] [--reconcile seed-d7]
[--scheduler DIR]`."""

import sys

from cluster.cli import main

if __name__ == "__main__":
    args = sys.argv[1:]
    if args[:1] == ["evaluate"]:
        args = args[1:]
    sys.exit(main(args))
