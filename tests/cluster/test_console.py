"""One command line: `cluster-designer COMMAND` (designer/console.py, installed by pyproject.toml) and
`python -m cluster COMMAND` (cluster/console.py, the pure commands only); manage.py is plain Django."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from cluster.console import PURE_COMMANDS
from cluster.console import main as pure_main
from designer.console import COMMANDS, WEB_COMMANDS
from designer.console import main as installed_main
from tests.conftest import EXAMPLES, ROOT

SEED = EXAMPLES / "seed-2000-gpu.yaml"


def cluster_designer() -> str:
    """The `cluster-designer` installed next to the interpreter running the tests (`pip install -e .`, as
    `make` does, writes it); tests that run the command line run this one."""
    path = Path(sys.executable).parent / "cluster-designer"
    assert path.is_file(), (
        f"{path} is missing: install the project into this environment (`pip install -e '.[test]'`, as `make` "
        "does) so that its console script exists"
    )
    return str(path)


def _env(tmp_path: Path, **extra: str) -> dict[str, str]:
    """Django's settings from a private VAR_DIR, never the suite's servers or settings module."""
    drop = ("DJANGO_SETTINGS_MODULE", "DATABASE_URL", "CELERY_BROKER_URL", "CELERY_RESULT_BACKEND", "SECRET_KEY")
    env = {k: v for k, v in os.environ.items() if k not in drop}
    env.update(DEBUG="1", VAR_DIR=str(tmp_path / "var"), **extra)
    return env


def test_help_lists_every_command_with_its_summary(tmp_path):
    out = subprocess.run([cluster_designer(), "--help"], capture_output=True, text=True, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("usage: cluster-designer [-h] COMMAND")
    for c in COMMANDS:
        assert f"  {c.name} " in out.stdout and c.summary in out.stdout, c.name
    pure = ["evaluate", "simulate", "capacity", "calibrate", "calculate", "failures", "phases", "search"]
    web = ["manage", "migrate", "load-demo"]
    assert [c.name for c in COMMANDS] == [*pure, *web, "serve", "design"]
    assert all(len(c.summary) <= 66 for c in COMMANDS)  # one line each on an 80-column terminal

    module = subprocess.run([sys.executable, "-m", "cluster", "--help"], capture_output=True, text=True, cwd=tmp_path)
    assert module.returncode == 0 and module.stdout.startswith("usage: python -m cluster")
    assert all(f"  {c.name} " in module.stdout for c in PURE_COMMANDS)
    assert not any(f"  {c.name} " in module.stdout for c in WEB_COMMANDS)  # no Django there


@pytest.mark.parametrize("argv", [["frobnicate"], ["seed.yaml"]])
def test_an_unknown_command_exits_2_naming_the_commands(argv, tmp_path):
    out = subprocess.run([cluster_designer(), *argv], capture_output=True, text=True, cwd=tmp_path)
    assert out.returncode == 2 and out.stdout == ""
    assert f"cluster-designer: error: unknown command {argv[0]!r}; the commands: evaluate, simulate" in out.stderr
    assert "load-demo, serve, design" in out.stderr
    if argv == ["seed.yaml"]:
        assert "(to evaluate a requirements file: cluster-designer evaluate seed.yaml)" in out.stderr
    pure = subprocess.run([sys.executable, "-m", "cluster", *argv], capture_output=True, text=True, cwd=tmp_path)
    assert pure.returncode == 2 and f"unknown command {argv[0]!r}" in pure.stderr


def test_no_command_or_an_unknown_option_exits_2(capsys):
    assert installed_main([]) == 2
    assert "the following arguments are required: COMMAND" in capsys.readouterr().err
    assert pure_main(["--frobnicate"]) == 2


@pytest.mark.parametrize("name", [c.name for c in COMMANDS])
def test_each_command_reaches_its_implementation(name, capsys):
    """`COMMAND --help` is the implementation's own help (its parser, or Django's for the web commands)."""
    assert installed_main([name, "--help"]) == 0
    out = capsys.readouterr().out
    if name == "manage":
        assert "Type 'cluster-designer manage help <subcommand>'" in out and "[designer]" in out
    elif name in {c.name for c in WEB_COMMANDS}:
        assert out.startswith(f"usage: cluster-designer manage {name.replace('-', '_')} ")
    else:
        assert out.startswith(f"usage: cluster-designer {name} ")
        assert pure_main([name, "--help"]) == 0 and capsys.readouterr().out == out


def test_exit_statuses_are_the_commands_own(tmp_path, capsys):
    bad = tmp_path / "bad.yaml"
    bad.write_text("gpu_count: 2001\n")
    assert installed_main(["evaluate", str(bad)]) == 1  # refused
    assert "  gpu_count: " in capsys.readouterr().err
    assert installed_main(["evaluate"]) == 2  # bad usage
    assert installed_main(["calculate", "cost", "nonsense"]) == 2
    assert installed_main(["calculate", "cost"]) == 0
    assert json.loads(capsys.readouterr().out)["total_usd"] == "153600.00"


def test_python_m_cluster_is_the_same_tool_and_stays_pure(tmp_path):
    """`python -m cluster evaluate` and the installed `cluster-designer evaluate` print the same; the pure
    dispatcher imports neither Django nor designer/ (no settings, no SECRET_KEY)."""
    env = {k: v for k, v in os.environ.items() if k not in ("DEBUG", "SECRET_KEY", "DJANGO_SETTINGS_MODULE")}
    env["PYTHONPATH"] = str(ROOT)
    args = ["evaluate", str(SEED), "--format", "json"]
    installed = subprocess.run([cluster_designer(), *args], capture_output=True, text=True, env=env, cwd=tmp_path)
    module = subprocess.run([sys.executable, "-m", "cluster", *args], capture_output=True, text=True, env=env,
                            cwd=tmp_path)  # fmt: skip
    assert installed.returncode == 0 and module.returncode == 0, installed.stderr + module.stderr
    assert installed.stdout == module.stdout
    assert json.loads(installed.stdout)["cluster"]["node_count"] == 250
    code = (
        "import sys\nfrom cluster.console import main\n"
        f"rc = main({args!r})\n"
        "loaded = sorted(m for m in sys.modules if m.split('.')[0] in ('django', 'designer', 'celery'))\n"
        "print(rc, loaded, file=sys.stderr)"
    )
    pure = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=tmp_path)
    assert pure.stderr.strip() == "0 []" and pure.stdout == installed.stdout


def test_manage_py_is_plain_django(tmp_path):
    """manage.py intercepts nothing: `help` lists the project's management commands, `help evaluate` is the
    Django command's help, and the pure tools are `cluster-designer` commands only."""
    env = _env(tmp_path)
    out = subprocess.run([sys.executable, "manage.py", "help"], capture_output=True, text=True, cwd=ROOT, env=env)
    assert out.returncode == 0, out.stderr
    section = out.stdout.split("[designer]")[1].split("\n\n")[0].split()
    assert {"design", "evaluate", "load_demo", "serve"} <= set(section)
    evaluate = subprocess.run([sys.executable, "manage.py", "help", "evaluate"], capture_output=True, text=True,
                              cwd=ROOT, env=env)  # fmt: skip
    assert evaluate.returncode == 0 and evaluate.stdout.startswith("usage: manage.py evaluate ")
    simulate = subprocess.run([sys.executable, "manage.py", "simulate", str(SEED)], capture_output=True, text=True,
                              cwd=ROOT, env=env)  # fmt: skip
    assert simulate.returncode == 1 and "Unknown command: 'simulate'" in simulate.stderr
    installed = subprocess.run([cluster_designer(), "manage", "help"], capture_output=True, text=True,
                               cwd=tmp_path, env=env)  # fmt: skip
    assert installed.returncode == 0 and installed.stdout.split("[designer]")[1].split("\n\n")[0].split() == section
