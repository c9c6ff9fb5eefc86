"""Load test (`make bench`): 20 users for 60 s against the production server on loopback.

Starts gunicorn (DEBUG off, whitenoise, SQLite in a temporary VAR_DIR, 4 workers), makes a user
with a 2,000-GPU design and an API token, then runs locust headless: the design page, the
evaluate API (2k GPUs, as the form's live panel calls it) and the BOM xlsx download. Prints
requests, failures and p50/p95 per endpoint. Goal (issue #14): 0 errors, p95 < 300 ms for the
design page and the evaluate API on this 2-core machine.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
USERS, SPAWN_RATE, SECONDS = 20, 5, int(os.environ.get("LOAD_SECONDS", "60"))


def _env(var_dir: str, port: int) -> dict[str, str]:
    skip = ("DEBUG", "DJANGO_SETTINGS_MODULE", "DATABASE_URL", "CELERY_BROKER_URL", "CELERY_RESULT_BACKEND")
    env = {k: v for k, v in os.environ.items() if k not in skip}  # its own SQLite under a temporary VAR_DIR
    env.update(
        SECRET_KEY="load-test-secret-key-0123456789-abcdefghijklmnopqrstuvwxyz",
        VAR_DIR=var_dir,
        ALLOWED_HOSTS="127.0.0.1",
        LOGIN_MAX_FAILURES="1000",
    )
    return env


def _setup(env: dict[str, str]) -> tuple[int, str]:
    code = (
        "import django, json; django.setup()\n"
        "from datetime import timedelta\nfrom django.utils import timezone\n"
        "from django.contrib.auth import get_user_model\n"
        "from designer.models import ApiToken\nfrom designer.services import create_design, evaluate_flat\n"
        "u = get_user_model().objects.create_user('load', password='load-pass-phrase-42')\n"
        "ev = evaluate_flat({'gpu_count': 2000})\nd = create_design(u, ev.requirements, ev)\n"
        "_, key = ApiToken.issue(u, 'load', timezone.now() + timedelta(days=1))\n"
        "print(json.dumps({'design': d.pk, 'key': key}))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env={**env, "DJANGO_SETTINGS_MODULE": "designer.settings"},
        capture_output=True,
        text=True,
        check=True,
    )
    data = json.loads(out.stdout.strip().splitlines()[-1])
    return data["design"], data["key"]


def main() -> None:
    var_dir = tempfile.mkdtemp(prefix="designer-load-")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = _env(var_dir, port)
    for cmd in (["migrate", "--noinput", "-v0"], ["collectstatic", "--noinput", "-v0"]):
        subprocess.run([sys.executable, "manage.py", *cmd], cwd=ROOT, env=env, check=True)
    design, key = _setup(env)
    gunicorn = str(Path(sys.executable).parent / "gunicorn")
    server = subprocess.Popen(
        [gunicorn, "designer.wsgi:application", "-b", f"127.0.0.1:{port}", "-w", "4", "--timeout", "60"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        for _ in range(100):
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/health/", timeout=2)
                break
            except OSError:
                time.sleep(0.2)
        run_locust(f"http://127.0.0.1:{port}", design, key)
    finally:
        server.terminate()
        server.wait(timeout=10)


def run_locust(host: str, design: int, key: str) -> None:
    import gevent
    from locust import HttpUser, between, task
    from locust.env import Environment

    auth = {"Authorization": f"Token {key}"}
    body = json.dumps({"requirements": {"gpu_count": 2000}})

    class Architect(HttpUser):
        wait_time = between(0.5, 1.5)

        def on_start(self):
            page = self.client.get("/accounts/login/")
            token = page.cookies.get("csrftoken", "")
            self.client.post(
                "/accounts/login/",
                {"username": "load", "password": "load-pass-phrase-42", "csrfmiddlewaretoken": token},
                headers={"Referer": host + "/"},
            )

        @task(4)
        def design_page(self):
            self.client.get(f"/designs/{design}/", name="design page")

        @task(4)
        def evaluate(self):
            self.client.post(
                "/api/v1/evaluate/",
                body,
                headers={**auth, "Content-Type": "application/json"},
                name="evaluate API (2k GPUs)",
            )

        @task(1)
        def xlsx(self):
            self.client.get(f"/api/v1/designs/{design}/bom.xlsx", headers=auth, name="BOM xlsx")

    env = Environment(user_classes=[Architect], host=host)
    runner = env.create_local_runner()
    runner.start(USERS, spawn_rate=SPAWN_RATE)
    gevent.spawn_later(SECONDS, runner.quit)
    runner.greenlet.join()
    print(f"{'endpoint':<24}{'requests':>10}{'errors':>8}{'p50 ms':>9}{'p95 ms':>9}  ({USERS} users, {SECONDS} s)")
    for name in ("design page", "evaluate API (2k GPUs)", "BOM xlsx"):
        for (entry_name, _method), st in env.stats.entries.items():
            if entry_name == name:
                p50, p95 = st.get_response_time_percentile(0.5), st.get_response_time_percentile(0.95)
                print(f"{name:<24}{st.num_requests:>10}{st.num_failures:>8}{p50:>9.0f}{p95:>9.0f}")


if __name__ == "__main__":
    main()
