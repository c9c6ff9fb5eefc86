#!/usr/bin/env python
import os
import sys

if __name__ == "__main__":
    if sys.argv[1:2] == ["evaluate"]:
        # the pure pipeline: no Django settings, no database, no SECRET_KEY (cluster/cli.py)
        from cluster.cli import main

        sys.exit(main(sys.argv[2:]))
    if sys.argv[1:2] == ["simulate"]:  # the queue simulator on a design file (cluster/simulate_cli.py)
        from cluster.simulate_cli import main as simulate

        sys.exit(simulate(sys.argv[2:]))
    if sys.argv[1:2] == ["capacity"]:  # the smallest size meeting a queueing target (cluster/capacity_cli.py)
        from cluster.capacity_cli import main as capacity

        sys.exit(capacity(sys.argv[2:]))
    if sys.argv[1:2] == ["calculate"]:  # the calculators, as pure (scheduling/cli.py)
        from scheduling.cli import main as calculate

        sys.exit(calculate(sys.argv[2:]))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "designer.settings")
    from django.core.management import execute_from_command_line

    execute_from_command_line(sys.argv)
