"""`python -m cluster COMMAND …`: the pure command-line tools (cluster/console.py), as the installed
`cluster-designer` runs them: evaluate, simulate, capacity, calibrate, calculate (`python -m cluster --help`)."""

import sys

from cluster.console import main

if __name__ == "__main__":
    sys.exit(main())
