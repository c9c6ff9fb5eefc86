"""Issue #32, finding 1: a design's name reaches every generated file and must never add a line to one.

The name is refused at the field (``cluster/validate.py``: one line of printable text), and every writer
quotes it for its own format (``scheduling/quoting.py``) — the second wall is tested here by handing the
writers the hostile names directly, as a design stored before the field check would. Each file is read back
by its real parser or run by its real executor: ``sh -n`` and the script run with stub ``sacctmgr``/``kubectl``
(whatever else it runs, e.g. ``touch pwned``, runs for real in a scratch folder), slurmctld's own parser
(tests/scheduling/test_slurmctld.py starts it), ``yaml.safe_load_all`` and the csv module. The exact repro
of the issue goes through the API.
"""

from __future__ import annotations

import csv
import dataclasses
import io
import os
import re
import stat
import subprocess

import pytest
import yaml
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from bom.netbox import netbox_files
from bom.plan import Catalog, floor_sheets
from cluster.pipeline import plan_cluster
from cluster.requests import bom_request
from cluster.scheduler_files import kubernetes_files, slurm_files
from cluster.validate import RequirementsError, validate
from scheduling.quoting import comment_text, csv_writer, shell_word
from scheduling.slurm_conf import cluster_name
from scheduling.trace import acme_to_rows
from tests.conftest import EXAMPLES

REPRO = "Prod A\ntouch pwned #"
HOSTILE = [
    REPRO,
    "Prod A\rtouch pwned #",
    "x\r\ntouch pwned\r\n",
    "$(touch pwned)",
    "`touch pwned`",
    "'; touch pwned; echo '",
    '"; touch pwned; echo "',
    "a # b \\",
    "trailing backslash \\",
    "evil\nPartitionName=evil Nodes=ALL Default=YES",
    "evil\nSwitchName=evil Nodes=ALL",
    "evil\nNodeName=evil CPUs=1",
    "x\n---\napiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\nmetadata: {name: pwn}\n"
    "roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: cluster-admin}\n"
    "subjects: [{kind: Group, name: 'system:authenticated', apiGroup: rbac.authorization.k8s.io}]\n...",
    "a\u2028touch pwned\u2029b",
    "a\x85touch pwned",
    "a\x0btouch pwned\x0c",
    "a\x1c\x1d\x1etouch pwned",
    "bidi \u202etouch pwned\u202c",
    "tab\there",
    "\x00nul",
    "ünïcödé 東京 — ✓ & <b>",
    'a,b;"c"',
    "=cmd|' /C calc'!A0",
    "",
]
PAYLOAD = re.compile(r"^\s*(touch|PartitionName=evil|SwitchName=evil|NodeName=evil|kind: ClusterRoleBinding)", re.M)


@pytest.fixture(scope="module")
def seed():
    data = yaml.safe_load((EXAMPLES / "seed-2000-gpu.yaml").read_text())
    r = validate(data)
    plan = plan_cluster(r)
    return r, plan


def _named(r, name: str):
    return dataclasses.replace(r, cluster=dataclasses.replace(r.cluster, name=name))


def _files(seed, name: str) -> dict[str, str]:
    r, plan = seed
    r = _named(r, name)
    return {**slurm_files(r, plan.fabric, plan.scheduler), **kubernetes_files(r, plan.fabric, plan.scheduler)}


def _live(text: str, name: str) -> list[str]:
    """The lines a reader acts on (comments dropped), with the ClusterName slug put back to the baseline's."""
    slug = cluster_name(name)
    out = []
    for line in text.split("\n"):
        if line.lstrip().startswith("#"):
            continue
        line = re.sub(rf"(ClusterName=|add cluster |Cluster=){re.escape(slug)}\b", r"\1SLUG", line)
        out.append(re.sub(r"\s+#.*$", "", line) if not line.startswith("sacctmgr") else line.split("  #")[0])
    return out


def _check_text_files(files: dict[str, str], base: dict[str, str], name: str) -> None:
    __tracebackhide__ = True
    for fname, text in files.items():
        # one line of the name stays one line for every reader: Python's splitlines knows every separator
        assert text.splitlines() == text.split("\n")[:-1] or text.splitlines() == text.split("\n"), fname
        assert len(text.split("\n")) == len(base[fname].split("\n")), fname
        assert _live(text, name) == _live(base[fname], "Baseline"), fname
        assert not PAYLOAD.search(text), fname
        assert cluster_name(name) == "cluster" or re.fullmatch(r"[a-z0-9_]{1,40}", cluster_name(name))
    assert list(yaml.safe_load_all(files["kubernetes.yaml"])) == list(yaml.safe_load_all(base["kubernetes.yaml"]))


@pytest.fixture(scope="module")
def baseline(seed):
    return _files(seed, "Baseline")


@pytest.mark.parametrize("name", HOSTILE, ids=lambda n: repr(n)[:40])
def test_hostile_names_add_no_line_to_any_scheduler_file(seed, baseline, name):
    files = _files(seed, name)
    _check_text_files(files, baseline, name)
    printable = comment_text(name)
    if printable:
        assert f"# slurm.conf — {printable}" in files["slurm.conf"]  # still says whose file it is


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.text(alphabet=st.characters(codec="utf-8") | st.sampled_from("\n\r\x0b\x0c\x85\u2028\u2029#$`'\"\\;|&-"),
               max_size=60))  # fmt: skip
def test_any_name_adds_no_line_to_any_scheduler_file(seed, baseline, name):
    _check_text_files(_files(seed, name), baseline, name)


def _stub_bin(tmp_path):
    stubs = tmp_path / "bin"
    stubs.mkdir()
    for tool in ("sacctmgr", "kubectl"):
        path = stubs / tool
        path.write_text(f'#!/bin/sh\nprintf "%s\\n" "{tool} $*" >> "$STUB_LOG"\n')
        path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return stubs


def _slugged(line: str, slug: str) -> str:
    return re.sub(rf"(add cluster |Cluster=){re.escape(slug)}\b", r"\1SLUG", line)


def _run_script(tmp_path, script: str, tag: str) -> tuple[list[str], set[str]]:
    """``sh -n``, then run it with stub sacctmgr/kubectl in a scratch folder: the commands it ran and the
    files it left behind (anything else a payload runs, like ``touch``, is the real tool)."""
    work = tmp_path / f"run-{tag}"
    work.mkdir()
    (work / "script.sh").write_text(script)
    assert subprocess.run(["sh", "-n", "script.sh"], cwd=work, capture_output=True).returncode == 0
    log = tmp_path / f"{tag}.log"
    log.write_text("")
    env = {"PATH": f"{_stub_bin(tmp_path) if not (tmp_path / 'bin').exists() else tmp_path / 'bin'}:/usr/bin:/bin",
           "STUB_LOG": str(log)}  # fmt: skip
    done = subprocess.run(["sh", "script.sh"], cwd=work, env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return log.read_text().splitlines(), {p.name for p in work.iterdir()} - {"script.sh"}


@pytest.mark.parametrize(
    "name", [n for n in HOSTILE if "touch" in n or "'" in n or '"' in n], ids=lambda n: repr(n)[:40]
)
def test_the_scripts_run_only_their_own_commands(seed, baseline, tmp_path, name):
    files = _files(seed, name)
    slug = cluster_name(name)
    assert re.fullmatch(r"[a-z0-9_]{1,40}", slug)
    for script in ("sacctmgr.sh", "label-nodes.sh"):
        ran, left = _run_script(tmp_path, files[script], f"{script}-hostile")
        expected, _ = _run_script(tmp_path, baseline[script], f"{script}-base")
        assert left == set(), f"{script} made {left}"
        assert [_slugged(line, slug) for line in ran] == [_slugged(line, "baseline") for line in expected]
        assert ran, f"{script} ran no sacctmgr/kubectl command"


def test_slurmctld_reads_only_the_planned_partitions_and_switches(seed, tmp_path):
    """slurmctld's own parser on the files of the issue's name with live Slurm lines behind line breaks:
    `scontrol show partition` and `sinfo` list the planned partitions only, the topology the planned switches."""
    from tests.scheduling import test_slurmctld as real

    real._need_slurm()
    name = "Prod A\nPartitionName=evil Nodes=ALL Default=YES\rSwitchName=evil Nodes=ALL\u2028NodeName=evil CPUs=1 \\"
    files = _files(seed, name)
    proc, env = real._run_slurmctld(files, tmp_path)
    try:
        switches = real._topology(env)
        real._check_against_plan(seed[1], switches, env, (tmp_path / "slurmctld.log").read_text())
        assert not [s for s in switches if s["SwitchName"] == "evil"] and len(switches) == 39
    finally:
        proc.terminate()
        proc.wait(timeout=30)


@pytest.fixture(scope="module")
def floor():
    r = validate({"gpu_count": 64})
    catalog = Catalog.built_in()
    plan = plan_cluster(r, catalog)
    rows, elev = floor_sheets(bom_request(r), plan.fabric, plan.storage, plan.management, catalog)
    return rows, elev, {p.sku: p.vendor for p in catalog.parts}


@pytest.mark.parametrize("name", HOSTILE, ids=lambda n: repr(n)[:40])
def test_the_netbox_csv_keeps_one_row_per_record(floor, name):
    rows, elev, vendors = floor
    files = netbox_files(elev, rows, site=name, vendors=vendors)
    base = netbox_files(elev, rows, site="Baseline", vendors=vendors)
    for fname, text in files.items():
        read = list(csv.reader(io.StringIO(text, newline="")))
        assert len(read) == len(list(csv.reader(io.StringIO(base[fname], newline="")))), fname
        assert {len(row) for row in read} == {len(read[0])}, fname
    site = list(csv.DictReader(io.StringIO(files["1-sites.csv"], newline="")))
    assert len(site) == 1 and site[0]["name"] in (name, "'" + name)  # the csv module round-trips it


@pytest.mark.parametrize("value", ["team\rb", "a\nb", "x,y", 'q"q'])
def test_a_converted_trace_keeps_user_text_in_its_field(value):
    """AcmeTrace's ``type``/``user`` columns are user text: a line break inside stays inside the field."""
    buf = io.StringIO()
    w = csv_writer(buf)
    w.writerow(["job_id", "user", "node_num", "gpu_num", "cpu_num", "type", "state", "submit_time", "start_time",
                "end_time", "duration", "queue"])  # fmt: skip
    t0, t1 = "2023-07-01 00:00:00+08:00", "2023-07-01 01:00:00+08:00"
    w.writerow(["1", value, "1", "8", "8", "Pretrain", "COMPLETED", t0, t0, t1, "3600", "0"])
    out = acme_to_rows(buf.getvalue())
    rows = list(csv.DictReader(io.StringIO(out, newline="")))
    assert len(rows) == 1 and rows[0]["tenant"] == value.strip()


def test_shell_word_reads_back_as_one_word():
    for name in HOSTILE:
        done = subprocess.run(["sh", "-c", f"printf %s {shell_word(name)}"], capture_output=True, text=True)
        assert done.stdout == comment_text(name)


@pytest.mark.parametrize(
    "name, message",
    [
        (REPRO, "U+000A (a line break) at character 7"),
        ("a\rb", "U+000D (a line break)"),
        ("a\u2028b", "U+2028 (a line break)"),
        ("a\u202eb", "U+202E (a control or format character)"),
        ("a\ud800", "U+D800 (a lone surrogate"),
        ("a\x1bb", "U+001B"),
    ],
)
def test_the_name_field_refuses_what_is_not_one_printable_line(name, message):
    with pytest.raises(RequirementsError) as err:
        validate({"name": name, "gpu_count": 64})
    assert any(message in m for m in err.value.errors["name"]), err.value.errors


def test_notes_keep_line_breaks_but_no_other_control_character():
    assert validate({"name": "ok", "notes": "line 1\r\nline 2\tend", "gpu_count": 64}).cluster.notes
    with pytest.raises(RequirementsError) as err:
        validate({"name": "ok", "notes": "bell\x07", "gpu_count": 64})
    assert "U+0007" in err.value.errors["notes"][0]


@pytest.mark.django_db
def test_the_issues_exact_repro_is_a_field_error_and_a_stored_name_is_quoted(tmp_path):
    """``POST /api/v1/designs/`` with the issue's body: 400 naming requirements.name. A design stored before
    the check (its name written straight into the database) downloads a script that runs only sacctmgr."""
    from django.contrib.auth import get_user_model
    from django.test import Client

    from tests.designer.conftest import make_design

    user = get_user_model().objects.create_user("mallory", password="pw-mallory-1")
    c = Client()
    c.force_login(user)
    body = {"requirements": {"name": REPRO, "gpu_count": 2000, "scheduler": {"kubernetes_node_count": 50}}}
    r = c.post("/api/v1/designs/", body, content_type="application/json")
    assert r.status_code == 400, r.content
    assert "U+000A (a line break)" in r.json()["errors"]["name"][0]

    design = make_design(user, gpu_count=2000, sched_kubernetes_node_count=50)
    type(design.head).objects.filter(pk=design.head.pk).update(name=REPRO)
    for fname in ("sacctmgr.sh", "label-nodes.sh", "slurm.conf", "topology.conf", "kubernetes.yaml"):
        r = c.get(f"/api/v1/designs/{design.pk}/{fname}")
        assert r.status_code == 200, (fname, r.status_code)
        text = r.content.decode()
        assert not PAYLOAD.search(text), fname
        assert "Prod A touch pwned #" in text.split("\n")[0] + text.split("\n")[1], fname
    ran, left = _run_script(tmp_path, c.get(f"/api/v1/designs/{design.pk}/sacctmgr.sh").content.decode(), "api")
    assert left == set() and ran and all(line.startswith("sacctmgr ") for line in ran)
    os.environ.pop("STUB_LOG", None)


@settings(max_examples=300, deadline=None)
@example("0\n")  # Python's `$` matches before a final newline; the schema's (ECMA) does not
@example(" \u00a0 ")
@given(st.text(alphabet=st.characters(codec="utf-8") | st.sampled_from("\n\r\t\x0b\x85\u2028\u200b\u202e\ufeff"),
               max_size=20))  # fmt: skip
def test_the_api_schema_allows_exactly_the_names_the_field_takes(name):
    """The schema's pattern for ``name`` (and ``notes``) is built from the same character class the field
    refuses, so schemathesis' positive data is accepted and its negative data refused (ST202 found
    ``"\\b"`` in a schema-valid name refused)."""
    from cluster.requirements import FIELD_BY_FLAT
    from designer.api.requirements_schema import field_schema

    for field, text in (("name", name), ("notes", name)):
        schema = field_schema(FIELD_BY_FLAT[field].spec)
        ecma = schema["pattern"].removesuffix("$") + r"\Z"  # JSON Schema's `$` is the end of input; Python's
        allowed = re.search(ecma, text) is not None and len(text) <= schema.get("maxLength", len(text))  # not "\n"
        errors: dict = {}
        try:
            validate({field: text, "gpu_count": 64})
        except RequirementsError as err:
            errors = err.errors
            assert set(errors) == {field}, errors
        assert allowed == (not errors), (field, text, errors)


def test_the_text_patterns_are_usable_by_the_schema_fuzzer():
    """schemathesis validates with jsonschema-rs (Rust regex: no surrogate code points); a pattern it cannot
    compile is dropped, and then it sends an empty name as "schema-valid" (the first stateful run's ST202)."""
    from schemathesis.core.jsonschema.patterns import enforced_pattern

    from designer.api.requirements_schema import ANY_TEXT, FREE_TEXT, NOT_BLANK

    assert all(enforced_pattern(p) == p for p in (ANY_TEXT, FREE_TEXT, NOT_BLANK))
