"""The production setup as the README documents it: deploy checks, security headers, static files."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.conftest import ROOT

PRODUCTION_ENV = {
    "SECRET_KEY": "a-long-random-production-secret-key-0123456789-abcdefghijklmnopqrstuvwxyz",
    "ALLOWED_HOSTS": "cluster.example.com",
    "SECURE_SSL_REDIRECT": "1",
    "SECURE_HSTS_SECONDS": "31536000",
    "SECURE_HSTS_INCLUDE_SUBDOMAINS": "1",
    "SECURE_HSTS_PRELOAD": "1",
    "SECURE_COOKIES": "1",
    "SECURE_PROXY_SSL_HEADER": "1",
    "CSRF_TRUSTED_ORIGINS": "https://cluster.example.com",
}


# a subprocess of these tests gets its own SQLite and broker under tmp_path, never the suite's servers
ISOLATED = (
    "DEBUG",
    "DJANGO_SETTINGS_MODULE",
    "DJANGO_ALLOW_ASYNC_UNSAFE",
    "DATABASE_URL",
    "CELERY_BROKER_URL",
    "CELERY_RESULT_BACKEND",
)


def _run(args, tmp_path, **extra):
    env = {k: v for k, v in os.environ.items() if k not in ISOLATED}
    env.update(PRODUCTION_ENV, VAR_DIR=str(tmp_path), **extra)
    return subprocess.run([sys.executable, "manage.py", *args], cwd=ROOT, env=env, capture_output=True, text=True)


def test_check_deploy_passes_with_the_documented_production_environment(tmp_path):
    out = _run(["check", "--deploy", "--fail-level", "WARNING"], tmp_path)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "0 silenced" in out.stdout or "no issues" in out.stdout


def test_collectstatic_builds_the_manifest_whitenoise_serves(tmp_path):
    out = _run(["collectstatic", "--noinput", "-v0"], tmp_path)
    assert out.returncode == 0, out.stderr
    manifest = (tmp_path / "staticfiles" / "staticfiles.json").read_text()
    assert "designer/form.js" in manifest and "vendor/plotly/plotly.min.js" in manifest


@pytest.mark.django_db
def test_every_page_carries_the_security_headers(client):
    for path in ("/", "/accounts/login/", "/health/"):
        r = client.get(path)
        csp = r["Content-Security-Policy"]
        assert "script-src 'self';" in csp and "frame-ancestors 'none'" in csp and "object-src 'none'" in csp
        assert "camera=()" in r["Permissions-Policy"]
        assert r["X-Content-Type-Options"] == "nosniff" and r["X-Frame-Options"] == "DENY"


def test_gunicorn_serves_pages_and_static_files_with_debug_off(tmp_path):
    """The README's production server: gunicorn + whitenoise, DEBUG off, behind a TLS proxy."""
    import json
    import socket
    import time
    import urllib.request

    assert _run(["migrate", "--noinput", "-v0"], tmp_path).returncode == 0
    assert _run(["collectstatic", "--noinput", "-v0"], tmp_path).returncode == 0
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {k: v for k, v in os.environ.items() if k not in ISOLATED}
    env.update(PRODUCTION_ENV, VAR_DIR=str(tmp_path), ALLOWED_HOSTS="127.0.0.1")
    gunicorn = os.path.join(os.path.dirname(sys.executable), "gunicorn")
    proc = subprocess.Popen(
        [gunicorn, "designer.wsgi:application", "-b", f"127.0.0.1:{port}", "-w", "2", "--timeout", "60"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:

        def get(path: str):
            req = urllib.request.Request(f"http://127.0.0.1:{port}{path}", headers={"X-Forwarded-Proto": "https"})
            return urllib.request.urlopen(req, timeout=10)

        for _ in range(100):
            try:
                get("/health/")
                break
            except OSError:
                time.sleep(0.1)
        assert get("/accounts/login/").status == 200
        manifest = json.loads((tmp_path / "staticfiles" / "staticfiles.json").read_text())["paths"]
        js = get(f"/static/{manifest['designer/form.js']}")
        assert js.status == 200 and "max-age" in js.headers["Cache-Control"]
    finally:
        proc.terminate()
        proc.wait(timeout=10)
