from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from tests.conftest import EXAMPLES


def run(*args) -> str:
    out = StringIO()
    call_command("design", *args, stdout=out)
    return out.getvalue()


def test_save_list_show_revise_compare(alice, tmp_path):
    out = run("save", str(EXAMPLES / "seed-2000-gpu.yaml"), "--user", "alice")
    pk = int(out.split()[2])
    assert "Seed 2,000-GPU" in run("list", "--user", "alice")
    changed = tmp_path / "r2.yaml"
    changed.write_text(
        (EXAMPLES / "seed-2000-gpu.yaml").read_text().replace("  oversubscription: 1\n", "  oversubscription: 2\n")
    )
    assert "revision 2" in run("save", str(changed), "--id", str(pk), "--user", "alice", "--message", "2:1")
    assert "2:1" in run("history", str(pk), "--user", "alice")
    diff = run("compare", f"{pk}:1", f"{pk}:2", "--user", "alice")
    assert "compute_fabric.oversubscription: 1.0  |  2.0 (+100.0 %)" in diff
    assert "bisection" in run("show", str(pk), "--user", "alice", "--revision", "1")
    run("delete", str(pk), "--user", "alice")
    assert "Seed" not in run("list", "--user", "alice")
    run("restore", str(pk), "--user", "alice")
    assert "Seed" in run("list", "--user", "alice")  # back from the trash


def test_other_user_cannot_see_or_change(alice, bob):
    out = run("save", str(EXAMPLES / "seed-2000-gpu.yaml"), "--user", "alice")
    pk = out.split()[2]
    for action in ("show", "history", "delete", "clone"):
        with pytest.raises(CommandError, match="not found"):
            run(action, pk, "--user", "bob")
    with pytest.raises(CommandError, match="not found"):
        run("save", str(EXAMPLES / "seed-2000-gpu.yaml"), "--id", pk, "--user", "bob")
    assert run("list", "--user", "bob") == ""


def test_bad_file_reports_fields(alice, tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("gpu_count: 7\n")
    with pytest.raises(CommandError, match="gpu_count: 7 GPUs do not fill whole nodes of 8"):
        run("save", str(bad), "--user", "alice")
    with pytest.raises(CommandError, match="--user: no user"):
        run("list", "--user", "nobody")
