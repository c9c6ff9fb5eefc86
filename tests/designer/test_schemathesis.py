"""Schemathesis over the live OpenAPI schema, against the production server (issue #14).

gunicorn with DEBUG off on loopback, on a database of its own (PostgreSQL `designer_fuzz` under
`make test-services`, else SQLite under tmp_path; never the suite's test database),
demo data loaded and a user with a design, a sweep and a price book of its own; every operation
of the schema, authenticated with an API token, every check (`--checks all`), positive and negative
data (`--mode all`, the default), 40 examples per operation, and the stateful phase (operations chained
on the ids earlier responses return). The run must end with 0 failures. Part of the production-mode
suite (`make test-services`); schemathesis is a
test dependency, so a missing one fails rather than skips.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tests.designer.test_deploy import ISOLATED

pytestmark = pytest.mark.services

EXAMPLES = int(os.environ.get("SCHEMATHESIS_EXAMPLES", "40"))  # issue #32: ≥ 40 per operation

SETUP = """
import django, json; django.setup()
from datetime import timedelta
from django.core.management import call_command
from django.utils import timezone
from django.contrib.auth import get_user_model
from designer.models import ApiToken
from designer.services import create_design, evaluate_flat
from designer.sweeps import create_sweep
from bom.models import Price
call_command("load_demo", verbosity=0)
u = get_user_model().objects.create_user("fuzz", password="fuzz-pass-phrase-42", is_staff=True)
ev = evaluate_flat({"gpu_count": 256})
d = create_design(u, ev.requirements, ev)
spec = {"collectives": ["all_reduce"], "algorithms": ["ring"], "min_bytes": 8, "max_bytes": 2**20, "factor": 4}
s = create_sweep(u, d.head, spec)
from designer.searches import create_search
search = create_search(u, d.head, {"vary": {"topology": ["rail_optimized", "fat_tree"]}})
p = Price.objects.order_by("pk").first()
_, key = ApiToken.issue(u, "fuzz", timezone.now() + timedelta(days=1))
print(json.dumps({"design": d.pk, "sweep": s.pk, "search": search.pk, "price": p.pk, "book": p.price_book_id,
                  "key": key}))
"""

# Which answers a schema-valid request may get. Schemathesis' default list plus 422: a request whose
# every value is well-formed can still be refused by a rule between fields or by the planner (GPUs that
# do not fill whole nodes, a fabric that does not fit its switch, a price naming a book that does not
# exist). The schema cannot state those rules; the API answers them 422 (documented per operation).
CONFIG = """
[checks.positive_data_acceptance]
expected-statuses = ["2xx", "3xx", "401", "403", "404", "409", "422", "429"]

# real objects, so the read operations reach their logic instead of answering 404 (deletes keep random ids)
[[operations]]
include-path-regex = "^/api/v1/designs/[{{]id[}}]/"
include-method-regex = "^(GET|POST|PUT|PATCH)$"
parameters = {{ "path.id" = {design} }}

[[operations]]
include-path-regex = "^/api/v1/sweeps/[{{]id[}}]/"
parameters = {{ "path.id" = {sweep} }}

[[operations]]
include-path-regex = "^/api/v1/searches/[{{]id[}}]/"
parameters = {{ "path.id" = {search} }}

[[operations]]
include-path-regex = "^/api/v1/price-books/[{{]id[}}]/"
include-method-regex = "^(GET|POST|PUT|PATCH)$"
parameters = {{ "path.id" = {book} }}

[[operations]]
include-path-regex = "^/api/v1/prices/[{{]id[}}]/"
include-method-regex = "^(GET|PUT|PATCH)$"
parameters = {{ "path.id" = {price} }}
"""


def _fuzz_database() -> str | None:
    """Under `make test-services` (PostgreSQL), a database of the server's own: designer_fuzz, made afresh.

    PostgreSQL refuses what SQLite stores (a NUL in text, an id past 64 bits), so the fuzzed server
    runs on it where the suite does. Elsewhere the server gets its own SQLite under VAR_DIR."""
    url = os.environ.get("DATABASE_URL", "")
    if not url.startswith("postgres"):
        return None
    import psycopg

    base, _, _name = url.rpartition("/")
    with psycopg.connect(f"{base}/postgres", autocommit=True) as conn:
        conn.execute("DROP DATABASE IF EXISTS designer_fuzz WITH (FORCE)")
        conn.execute("CREATE DATABASE designer_fuzz")
    return f"{base}/designer_fuzz"


def _env(var_dir: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ISOLATED}
    env.update(
        SECRET_KEY="schemathesis-secret-key-0123456789-abcdefghijklmnopqrstuvwxyz",
        VAR_DIR=str(var_dir),
        ALLOWED_HOSTS="127.0.0.1",
        LOGIN_MAX_FAILURES="100000",
    )
    database = _fuzz_database()
    if database:
        env["DATABASE_URL"] = database
    return env


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    var_dir = tmp_path_factory.mktemp("schemathesis")
    env = _env(var_dir)
    for cmd in (["migrate", "--noinput", "-v0"], ["collectstatic", "--noinput", "-v0"]):
        subprocess.run([sys.executable, "manage.py", *cmd], cwd=ROOT, env=env, check=True)
    out = subprocess.run(
        [sys.executable, "-c", SETUP],
        cwd=ROOT,
        env={**env, "DJANGO_SETTINGS_MODULE": "designer.settings"},
        capture_output=True,
        text=True,
        check=True,
    )
    ids = json.loads(out.stdout.strip().splitlines()[-1])
    key = ids.pop("key")
    (var_dir / "schemathesis.toml").write_text(CONFIG.format(**ids))
    port = _free_port()
    gunicorn = str(Path(sys.executable).parent / "gunicorn")
    log = open(var_dir / "gunicorn.log", "w")  # noqa: SIM115 - closed below
    proc = subprocess.Popen(
        [gunicorn, "designer.wsgi:application", "-b", f"127.0.0.1:{port}", "-w", "2", "--timeout", "60"],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(150):
            try:
                urllib.request.urlopen(base + "/health/", timeout=2)
                break
            except OSError:
                time.sleep(0.2)
        yield base, key, var_dir
    finally:
        proc.terminate()
        proc.wait(timeout=20)
        log.close()


def test_every_operation_passes_every_check(server):
    base, key, var_dir = server
    st = str(Path(sys.executable).parent / "schemathesis")
    cmd = [
        st,
        "--config-file",
        str(var_dir / "schemathesis.toml"),
        "run",
        f"{base}/api/v1/schema/",
        "--checks",
        "all",
        "-H",
        f"Authorization: Token {key}",
        "--mode",
        "all",
        "--max-examples",
        str(EXAMPLES),
        "--seed",
        os.environ.get("SCHEMATHESIS_SEED", "14"),
        "--workers",
        "1",  # Python 3.11's ast.parse is not thread-safe under hypothesis' deep strategy reprs (SystemError)
        "--request-timeout",
        "30",
        "--phases",
        "examples,coverage,fuzzing,stateful",  # stateful: links inferred from the schema and Location headers
        "--suppress-health-check",
        "all",
        "--no-color",
        "--generation-database",
        "none",
        # SCHEMATHESIS_PATHS=^/api/v1/searches fuzzes those operations only (a quicker run while fixing them)
        *(["--include-path-regex", os.environ["SCHEMATHESIS_PATHS"]] if os.environ.get("SCHEMATHESIS_PATHS") else []),
    ]
    out = subprocess.run(cmd, cwd=var_dir, capture_output=True, text=True, timeout=1500)
    report = out.stdout + out.stderr
    (var_dir / "schemathesis.txt").write_text(report)
    print(report[-6000:])
    assert out.returncode == 0, report[-20000:]
    assert "No issues found" in report or " 0 failures" in report or "passed" in report
