"""The package as a deployment gets it: `pip install` of the wheel, nothing from the checkout.

The wheel is built from a copy of the checkout (offline: no build isolation, the test environment's
setuptools) and installed into a fresh virtual environment outside the checkout; the dependencies come from
the test environment through a .pth line, which adds that site-packages without running its .pth files (so
not the editable install's finder, which would map the packages back to the checkout) — and the test checks
that every project module is the installed copy. From a folder outside the checkout it then runs the
installed `cluster-designer`: `evaluate` on the example the wheel carries, and the production steps the
README gives — migrate, load-demo, `manage collectstatic` with DEBUG off, gunicorn — and fetches pages and
the static files they reference. Takes ≈ 30–60 s.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import sysconfig
import time
import urllib.error
import urllib.request
import zipfile
from pathlib import Path

import pytest
import yaml

from tests.conftest import ROOT

PACKAGES = ("bom", "cluster", "designer", "power", "scheduling", "topology")
DATA = {folder: f"designer/_data/{folder}" for folder in ("templates", "static", "examples")}  # pyproject.toml
# what the copy of the checkout leaves out: caches, virtual environments, build output, runtime data
SKIP = shutil.ignore_patterns(".*", "var", "build", "dist", "*.egg-info", "__pycache__", "*.pyc", "test-artifacts")
PRODUCTION = {
    "DEBUG": "0",
    "SECRET_KEY": "wheel-test-secret-key-0123456789-abcdefghijklmnopqrstuvwxyz-0123456789",
    "ALLOWED_HOSTS": "127.0.0.1,localhost",
}
# nothing of the test run's own configuration reaches the installed app: not its settings, services or paths
DROPPED = ("PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP", "VIRTUAL_ENV", "DJANGO_SETTINGS_MODULE", "DATABASE_URL",
           "CELERY_BROKER_URL", "CELERY_RESULT_BACKEND", "DEBUG", "SECRET_KEY", "VAR_DIR", "ALLOWED_HOSTS")  # fmt: skip


def _run(cmd: list[str], **kw) -> subprocess.CompletedProcess:
    return subprocess.run([str(c) for c in cmd], capture_output=True, text=True, timeout=300, **kw)


def _ok(out: subprocess.CompletedProcess, what: str) -> str:
    assert out.returncode == 0, f"{what} failed (exit {out.returncode}):\n{out.stdout[-3000:]}\n{out.stderr[-3000:]}"
    return out.stdout


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> dict:
    """Build the wheel from a copy of the checkout, install it into a fresh venv; the venv's paths."""
    base = tmp_path_factory.mktemp("wheel")
    assert not base.resolve().is_relative_to(ROOT.resolve()), f"{base} must be outside the checkout"
    src = base / "src"
    shutil.copytree(ROOT, src, ignore=SKIP)
    dist = base / "dist"
    _ok(
        _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-cache-dir",
              "--disable-pip-version-check", "-w", dist, src]),
        "building the wheel (pip wheel --no-build-isolation needs setuptools>=70.1, the `test` extra)",
    )  # fmt: skip
    (wheel,) = dist.glob("gpu_cluster_designer-*.whl")

    venv = base / "venv"
    _ok(_run([sys.executable, "-m", "venv", "--without-pip", venv]), "creating a virtual environment")
    python = venv / "bin" / "python"
    _ok(
        _run([sys.executable, "-m", "pip", "--python", python, "install", "--no-deps", "--no-index",
              "--disable-pip-version-check", wheel]),
        "installing the wheel into the fresh venv",
    )  # fmt: skip
    site = Path(_ok(_run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"]), "site").strip())
    # the dependencies (Django, numpy, gunicorn, …) from the test environment, without the network
    deps = Path(sysconfig.get_paths()["purelib"])
    (site / "zz_test_dependencies.pth").write_text(f"{deps}\n")

    cwd = base / "cwd"  # a folder outside the checkout: no manage.py, no templates/ next to it
    cwd.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in DROPPED}
    env["PATH"] = f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    return {"src": src, "wheel": wheel, "venv": venv, "python": python, "site": site, "cwd": cwd, "env": env,
            "cli": venv / "bin" / "cluster-designer", "base": base, "deps": deps}  # fmt: skip


def test_the_wheel_has_every_module_template_static_file_and_example(built):
    names = set(zipfile.ZipFile(built["wheel"]).namelist())
    src: Path = built["src"]
    modules = {p.relative_to(src).as_posix() for pkg in PACKAGES for p in (src / pkg).rglob("*.py")}
    assert modules - names == set(), "modules missing from the wheel (add their package to pyproject.toml)"
    assert {m for m in modules if "/migrations/" in m} <= names and "designer/console.py" in names
    for folder, packaged in DATA.items():
        files = {f"{packaged}/{p.relative_to(src / folder).as_posix()}" for p in (src / folder).rglob("*")
                 if p.is_file()}  # fmt: skip
        assert files and files - names == set(), f"{folder}/ files missing from the wheel"
    tops = {n.split("/")[0] for n in names}
    dist_info = {t for t in tops if t.endswith(".dist-info")}
    assert len(dist_info) == 1 and tops == {*PACKAGES, *dist_info}, f"top-level entries: {sorted(tops)}"
    entry_points = next(n for n in names if n.endswith(".dist-info/entry_points.txt"))
    assert "cluster-designer = designer.console:main" in zipfile.ZipFile(built["wheel"]).read(entry_points).decode()


def test_the_installed_modules_are_the_wheels_not_the_checkouts(built, tmp_path):
    """Every project module is the fresh venv's copy (not the checkout's, which the test environment's editable
    install maps them to); Django comes from the test environment; the settings find the packaged templates and
    static files, and with DEBUG on put var/ in the working folder, not in site-packages."""
    mods = [*PACKAGES, "designer.console", "cluster.console", "designer.migrations", "bom.migrations", "django"]
    code = (
        "import importlib, json, sys\n"
        f"files = {{m: importlib.import_module(m).__file__ for m in {mods!r}}}\n"
        "from django.conf import settings\n"
        "dirs = [str(settings.TEMPLATES[0]['DIRS'][0]), str(settings.STATICFILES_DIRS[0]), str(settings.EXAMPLES_DIR),"
        " str(settings.VAR_DIR)]\n"
        "print(json.dumps({'files': files, 'path': sys.path, 'dirs': dirs}))"
    )
    env = {**built["env"], "DEBUG": "1", "DJANGO_SETTINGS_MODULE": "designer.settings"}
    out = json.loads(_ok(_run([built["python"], "-c", code], cwd=tmp_path, env=env), "importing the project"))
    site = built["site"].resolve()
    for module, file in out["files"].items():
        where = Path(file).resolve()
        if module == "django":
            assert where.is_relative_to(built["deps"].resolve()), file
        else:
            assert where.is_relative_to(site), f"{module} is not the installed copy: {file}"
    assert not [p for p in out["path"] if p and Path(p).resolve() == ROOT.resolve()]
    templates, static, examples, var = map(Path, out["dirs"])
    assert templates == site / "designer/_data/templates" and (templates / "base.html").is_file()
    assert static == site / "designer/_data/static" and (static / "designer" / "app.css").is_file()
    assert examples == site / "designer/_data/examples" and var == tmp_path / "var"


def test_the_installed_command_line_evaluates_the_packaged_example(built):
    cli, cwd, env = built["cli"], built["cwd"], built["env"]
    assert cli.is_file(), f"the wheel installed no console script: {cli}"
    helptext = _ok(_run([cli, "--help"], cwd=cwd, env=env), "cluster-designer --help")
    for name in ("evaluate", "simulate", "capacity", "calibrate", "calculate", "manage", "migrate", "load-demo",
                 "serve", "design"):  # fmt: skip
        assert f"\n  {name} " in helptext, name
    example = built["site"] / "designer" / "_data" / "examples" / "seed-2000-gpu.yaml"
    assert example.is_file()
    data = json.loads(_ok(_run([cli, "evaluate", example, "--format", "json"], cwd=cwd, env=env), "evaluate"))
    assert data["cluster"]["node_count"] == 250 and data["cluster"]["gpu_count"] == 2000
    assert [t["switch_count"] for t in data["compute_fabric"]["tiers"]] == [64, 32]
    table = _ok(_run([cli, "evaluate", ROOT / "examples" / "seed-2000-gpu.yaml"], cwd=cwd, env=env), "evaluate")
    assert "How each figure was derived" in table


def test_migrate_collectstatic_and_gunicorn_with_debug_off(built):
    cli, cwd, python = built["cli"], built["cwd"], built["python"]
    var = built["base"] / "var"
    env = {**built["env"], **PRODUCTION}
    refused = _run([cli, "migrate"], cwd=cwd, env=env)  # installed, there is no checkout var/ to fall back on
    assert refused.returncode != 0 and "VAR_DIR must be set when DEBUG is off" in refused.stderr
    env["VAR_DIR"] = str(var)
    _ok(_run([cli, "migrate", "--noinput", "-v0"], cwd=cwd, env=env), "cluster-designer migrate")
    examples = sorted((built["site"] / "designer" / "_data" / "examples").glob("*.yaml"))
    loaded = _ok(_run([cli, "load-demo"], cwd=cwd, env=env), "cluster-designer load-demo")
    assert f"{len(examples)} design(s) loaded" in loaded
    _ok(_run([cli, "manage", "collectstatic", "--noinput", "-v0"], cwd=cwd, env=env), "manage collectstatic")
    manifest = json.loads((var / "staticfiles" / "staticfiles.json").read_text())["paths"]
    assert {"designer/app.css", "designer/charts.js", "vendor/plotly/plotly.min.js"} <= manifest.keys()
    assert list(cwd.iterdir()) == []  # everything went to VAR_DIR

    missing = _run([python, "-c", "import gunicorn"], cwd=cwd, env=env)
    assert missing.returncode == 0, f"gunicorn is not importable (a dependency of the project): {missing.stderr}"
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    log = built["base"] / "gunicorn.log"
    with log.open("w") as fh:
        proc = subprocess.Popen(
            [str(python), "-m", "gunicorn", "designer.wsgi", "-b", f"127.0.0.1:{port}", "-w", "1", "--timeout", "60"],
            cwd=cwd, env=env, stdout=fh, stderr=subprocess.STDOUT, start_new_session=True,
        )  # fmt: skip
    try:

        def get(path: str) -> tuple[int, dict, bytes]:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=30) as r:
                    return r.status, dict(r.headers), r.read()
            except urllib.error.HTTPError as exc:
                return exc.code, dict(exc.headers), exc.read()

        deadline = time.monotonic() + 60
        while True:
            assert proc.poll() is None, f"gunicorn exited ({proc.returncode}):\n{log.read_text()[-3000:]}"
            try:
                if get("/health/")[0] == 200:
                    break
            except OSError:
                pass
            assert time.monotonic() < deadline, f"gunicorn did not answer in 60 s:\n{log.read_text()[-3000:]}"
            time.sleep(0.2)

        status, _, body = get("/accounts/login/")
        page = body.decode()
        assert status == 200 and "csrfmiddlewaretoken" in page and "<form" in page
        (css,) = re.findall(r'href="(/static/designer/app\.[0-9a-f]{12}\.css)"', page)
        status, headers, body = get(css)
        collected = (var / "staticfiles" / css.removeprefix("/static/")).read_bytes()
        assert status == 200 and headers["Content-Type"].startswith("text/css") and body == collected
        assert len(body) > 1000 and b"{" in body

        status, _, body = get("/")  # the landing page lists the demo designs load-demo made
        landing = body.decode()
        seed_name = yaml.safe_load((examples[0].parent / "seed-2000-gpu.yaml").read_text())["name"]
        assert status == 200 and seed_name in landing and "No demo designs loaded" not in landing
        shared = re.findall(r'href="(/s/[^"/]+/)"', landing)
        assert len(shared) == len(examples)
        status, _, body = get(shared[0])  # a design page: its charts' scripts, plotly served from the plotly package
        scripts = re.findall(r'<script src="(/static/[^"]+\.js)"', body.decode())
        assert status == 200 and any("/vendor/plotly/plotly.min." in s for s in scripts), scripts
        for script in scripts:
            status, headers, js = get(script)
            assert status == 200 and "javascript" in headers["Content-Type"] and len(js) > 100, script
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
