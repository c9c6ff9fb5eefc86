#!/usr/bin/env python
"""Django's command line for this checkout (`python manage.py help`). Installed, the same commands are
`cluster-designer manage …` (designer/console.py), next to the pure tools: `cluster-designer evaluate …`."""

import os
import sys

if __name__ == "__main__":
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "designer.settings")
    from django.core.management import execute_from_command_line

    execute_from_command_line(sys.argv)
