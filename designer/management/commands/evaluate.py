"""`manage.py evaluate FILE.yaml` — the pure CLI of cluster/cli.py as a Django management command.

It runs the same code inside a configured Django (settings, so a SECRET_KEY or DEBUG=1), for
``call_command`` callers and `manage.py help`. Without Django — no database, no SECRET_KEY —
the same is `cluster-designer evaluate FILE.yaml` (cluster/console.py).
"""

from __future__ import annotations

import io

from django.core.management.base import BaseCommand, CommandError

from cluster.cli import main, parser


class Command(BaseCommand):
    help = "Evaluate a requirements file (YAML) and print the computed design."

    def add_arguments(self, p):
        for action in parser()._actions:
            if action.dest == "help":
                continue
            kwargs = {"help": action.help, "default": action.default}
            if action.option_strings:
                if action.const is True:
                    p.add_argument(*action.option_strings, action="store_true", help=action.help)
                    continue
                kwargs.update(type=action.type, choices=action.choices)
                p.add_argument(*action.option_strings, dest=action.dest, **kwargs)
            else:
                p.add_argument(action.dest, type=action.type, help=action.help)

    def handle(self, *args, file, format, verify, xlsx=None, reconcile=None, scheduler=None, **options):
        argv = [str(file), "--format", format]
        argv += ["--verify"] if verify else []
        argv += ["--xlsx", str(xlsx)] if xlsx else []
        argv += ["--reconcile", reconcile] if reconcile else []
        argv += ["--scheduler", str(scheduler)] if scheduler else []
        err = io.StringIO()
        rc = main(argv, stdout=self.stdout, stderr=err)
        if rc:
            raise CommandError(err.getvalue().rstrip())
        if err.getvalue():
            self.stderr.write(err.getvalue().rstrip())
