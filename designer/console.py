"""`cluster-designer COMMAND …`: the installed command line (pyproject.toml [project.scripts]).

The pure tools of cluster/console.py (evaluate, simulate, capacity, calibrate, calculate: no Django, no
database, no SECRET_KEY) and the web app's commands, which configure Django only when one of them runs:
``manage`` is any Django management command (an installed wheel has no manage.py: `cluster-designer manage
collectstatic`, `cluster-designer manage createsuperuser`, …) and ``migrate``, ``load-demo``, ``serve`` and
``design`` are short for the management commands of the same name (designer/management/commands/).
DJANGO_SETTINGS_MODULE defaults to designer.settings, configured by the environment (SECRET_KEY, VAR_DIR, …).
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from cluster.console import PURE_COMMANDS, Command, dispatch

PROG = "cluster-designer"


def _django(argv: list[str]) -> int:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "designer.settings")
    from django.core.management import execute_from_command_line

    execute_from_command_line([f"{PROG} manage", *argv])  # Django's help then says `cluster-designer manage …`
    return 0


def manage(argv: list[str]) -> int:
    return _django(argv)


def migrate(argv: list[str]) -> int:
    return _django(["migrate", *argv])


def load_demo(argv: list[str]) -> int:
    return _django(["load_demo", *argv])


def serve(argv: list[str]) -> int:
    return _django(["serve", *argv])


def design(argv: list[str]) -> int:
    return _django(["design", *argv])


WEB_COMMANDS: tuple[Command, ...] = (
    Command("manage", "run any Django management command (manage help lists them)", "designer.console:manage"),
    Command("migrate", "create or update the database tables (manage migrate)", "designer.console:migrate"),
    Command("load-demo", "load the demo user and example designs (manage load_demo)", "designer.console:load_demo"),
    Command("serve", "web server and Celery worker together (manage serve)", "designer.console:serve"),
    Command("design", "saved designs: list, show, save, compare, … (manage design)", "designer.console:design"),
)
COMMANDS: tuple[Command, ...] = PURE_COMMANDS + WEB_COMMANDS


def main(argv: Sequence[str] | None = None) -> int:
    return dispatch(
        argv,
        COMMANDS,
        prog=PROG,
        epilog="The web app's commands (manage … design) configure Django from the environment:\n"
        "DJANGO_SETTINGS_MODULE (default designer.settings), SECRET_KEY, VAR_DIR, DATABASE_URL, …",
    )
