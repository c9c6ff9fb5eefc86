"""Issue #16: scheduler refusals as field errors in the form, the API and the CLI; the Slurm downloads on
the design page, by share link and by API token; who may download them."""

from __future__ import annotations

import io
import zipfile
from io import StringIO

import pytest
import yaml
from django.core.management import CommandError, call_command

from tests.conftest import EXAMPLES
from tests.designer.conftest import form_data, make_design
from tests.designer.test_api import token_client

pytestmark = pytest.mark.django_db


def _seed(**scheduler) -> dict:
    data = yaml.safe_load((EXAMPLES / "seed-2000-gpu.yaml").read_text())
    data["scheduler"].update(scheduler)
    return data


def test_api_refuses_a_partition_over_more_nodes_than_exist(alice):
    c, _ = token_client(alice)
    r = c.post("/api/v1/evaluate/", {"requirements": _seed(kubernetes_node_count=0, interactive_node_count=251)},
               content_type="application/json")  # fmt: skip
    assert r.status_code == 422, r.content
    assert r.json()["errors"] == {
        "scheduler.interactive_node_count": [
            "the interactive partition can take at most 250 of the 250 Slurm nodes; got 251"
        ]
    }
    r = c.post(
        "/api/v1/evaluate/", {"requirements": _seed(dev_max_gpus_per_user=1601)}, content_type="application/json"
    )
    assert r.status_code == 422
    assert "more than Slurm's 1,600 GPUs" in r.json()["errors"]["scheduler.dev_max_gpus_per_user"][0]
    r = c.post("/api/v1/evaluate/", {"requirements": _seed(tenants="nlp:60,cv:60")}, content_type="application/json")
    assert r.status_code == 422 and "add up to 120 %" in r.json()["errors"]["scheduler.tenants"][0]
    r = c.post("/api/v1/evaluate/", {"requirements": _seed(tenants="NLP=60")}, content_type="application/json")
    assert r.status_code == 400 and "scheduler.tenants" in r.json()["errors"]  # malformed: the pattern


def test_form_shows_the_error_on_the_field(client, alice):
    client.force_login(alice)
    r = client.post("/designs/new/", form_data(name="Split", sched_kubernetes_node_count="5000"))
    assert r.status_code == 200
    form = r.context["form"]
    assert "leave none of the" in " ".join(form.errors["sched_kubernetes_node_count"])


def test_cli_names_the_field(tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump(_seed(interactive_node_count=200, interactive_overlaps_batch=False)))
    with pytest.raises(CommandError) as exc:
        call_command("evaluate", str(path), stdout=StringIO())
    assert "scheduler.interactive_node_count: the interactive partition can take at most 199" in str(exc.value)
    out = tmp_path / "slurm"
    call_command("evaluate", str(EXAMPLES / "seed-2000-gpu.yaml"), "--scheduler", str(out), stdout=StringIO())
    assert sorted(p.name for p in out.iterdir()) == sorted(
        [
            "slurm.conf",
            "topology.conf",
            "topology-block.conf",
            "gres.conf",
            "cgroup.conf",
            "sacctmgr.sh",
            "kubernetes.yaml",
            "label-nodes.sh",
        ]
    )
    assert "PartitionName=gpu-interactive Nodes=gpu[151-200]" in (out / "slurm.conf").read_text()


def test_downloads_on_the_page_share_link_and_api(client, alice, bob):
    d = make_design(alice, sched_kubernetes_node_count=2)
    client.force_login(alice)
    page = client.get(f"/designs/{d.pk}/").content.decode()
    assert 'id="scheduler"' in page and 'id="download-slurm"' in page and 'id="partitions"' in page
    z = client.get(f"/designs/{d.pk}/export/slurm.zip")
    assert z.status_code == 200 and z["Content-Type"] == "application/zip"
    names = zipfile.ZipFile(io.BytesIO(z.content)).namelist()
    assert len(names) == 7 and all(n.endswith(("conf", ".sh")) for n in names[:6])
    assert names[6].endswith("/README.txt")  # what the files are, and the design's one list of checks
    conf = client.get(f"/designs/{d.pk}/export/slurm.conf?revision=1")
    assert conf["Content-Type"].startswith("text/plain") and b"NodeName=gpu" in conf.content
    api, _ = token_client(alice, read_only=True)
    topo = api.get(f"/api/v1/designs/{d.pk}/topology.conf")
    assert topo.status_code == 200 and b"SwitchName=" in topo.content
    bob_api, _ = token_client(bob)
    assert bob_api.get(f"/api/v1/designs/{d.pk}/slurm.zip").status_code == 404  # not his to read
    client.force_login(bob)
    assert client.get(f"/designs/{d.pk}/export/slurm.conf").status_code == 404
    client.logout()
    token = d.enable_link_sharing()
    shared = client.get(f"/s/{token}/export/sacctmgr.sh")
    assert shared.status_code == 200 and b"sacctmgr -i add qos production" in shared.content


def test_roce_section_and_download(client, alice):
    from designer.services import create_design, evaluate

    data = yaml.safe_load((EXAMPLES / "roce-24k-pods-1to7.yaml").read_text())
    ev = evaluate(data)
    d = create_design(alice, ev.requirements, ev)
    client.force_login(alice)
    page = client.get(f"/designs/{d.pk}/").content.decode()
    assert 'id="roce-table"' in page and "108,256 B" in page
    y = client.get(f"/designs/{d.pk}/export/roce.yaml")
    assert y.status_code == 200 and yaml.safe_load(y.content)["roce"]["pfc"]["headroom_bytes"] == 108_256
    ib = make_design(alice)
    assert b"not a RoCE design" in client.get(f"/designs/{ib.pk}/export/roce.yaml").content
    assert 'id="roce-table"' not in client.get(f"/designs/{ib.pk}/").content.decode()
