"""`cluster-designer serve` (`python manage.py serve`) — the web server and a Celery worker; Ctrl-C stops both.

Used by `make run`. The worker consumes from whatever CELERY_BROKER_URL says (by default
the embedded filesystem broker under var/broker, which needs no server) and runs an
embedded beat for the periodic sweep reaper.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand


class Command(BaseCommand):
    help = "Run the development web server and a Celery worker; Ctrl-C stops both."

    def add_arguments(self, parser):
        parser.add_argument("--addr", default="127.0.0.1:8000")
        parser.add_argument("--concurrency", type=int, default=2)

    def handle(self, *args, addr: str, concurrency: int, **options):
        worker_cmd = [
            sys.executable,
            "-m",
            "celery",
            "-A",
            "designer",
            "worker",
            "--loglevel",
            "INFO",
            "--concurrency",
            str(concurrency),
            "--hostname",
            "designer@%h",
            # embedded beat: re-enqueues sweep chunks whose worker died (designer.reap_stale_chunks)
            "--beat",
            "--schedule",
            str(Path(settings.VAR_DIR) / "celerybeat-schedule"),
        ]
        self.stdout.write(f"starting worker: {' '.join(worker_cmd[2:])}")
        worker = subprocess.Popen(worker_cmd, env=os.environ.copy(), start_new_session=True)

        def stop(signum, frame):  # Ctrl-C, or a TERM from a process manager
            raise KeyboardInterrupt

        signal.signal(signal.SIGINT, stop)
        signal.signal(signal.SIGTERM, stop)
        try:
            self.stdout.write(f"web server on http://{addr}/ (Ctrl-C stops web server and worker)")
            call_command("runserver", addr, use_reloader=False)
        except (KeyboardInterrupt, SystemExit):
            pass
        finally:
            if worker.poll() is None:
                os.killpg(worker.pid, signal.SIGTERM)
                try:
                    worker.wait(timeout=15)
                except subprocess.TimeoutExpired:
                    os.killpg(worker.pid, signal.SIGKILL)
            self.stdout.write("stopped web server and worker")
