"""Requirements files are read with bounds (issue #32 item 6): a YAML bomb and a list nested 100,000 deep are
field errors on ``file`` — quickly, in little memory, and from the CLI as one line, never a traceback."""

from __future__ import annotations

import subprocess
import time
import tracemalloc
from pathlib import Path

import pytest
import yaml

from cluster.validate import RequirementsError, load_requirements_file
from cluster.yaml_input import MAX_DEPTH, MAX_VALUES, YamlInputError, load_yaml
from tests.cluster.test_console import cluster_designer
from tests.cluster.test_pipeline import _bare_env
from tests.conftest import EXAMPLES, ROOT


def yaml_bomb(levels: int = 9, width: int = 9) -> str:
    """Billion laughs: each level a list of ``width`` aliases of the one before; ``name`` gets the last (9⁹)."""
    lines = ['a0: &a0 "lol"']
    for i in range(1, levels + 1):
        lines.append(f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * width)}]")
    lines.append(f"name: *a{levels}")
    return "\n".join(lines) + "\n"


DEEP_LIST = "name: " + "[" * 100_000 + "]" * 100_000 + "\n"


def write(tmp_path: Path, text: str) -> Path:
    p = tmp_path / "req.yaml"
    p.write_text(text)
    return p


def test_a_yaml_bomb_is_a_field_error_in_under_a_second_and_little_memory(tmp_path: Path):
    path = write(tmp_path, yaml_bomb())
    tracemalloc.start()
    t0 = time.perf_counter()
    try:
        with pytest.raises(RequirementsError) as exc:
            load_requirements_file(path)
        elapsed = time.perf_counter() - t0
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert list(exc.value.errors) == ["file"]
    assert f"aliases expand to more than {MAX_VALUES:,} values" in exc.value.errors["file"][0]
    assert elapsed < 1.0
    assert peak < 50 * 2**20


def test_a_list_nested_100000_deep_is_a_quick_field_error(tmp_path: Path):
    t0 = time.perf_counter()
    with pytest.raises(RequirementsError) as exc:
        load_requirements_file(write(tmp_path, DEEP_LIST))
    assert time.perf_counter() - t0 < 0.5  # the scanner stops at bracket 65 (it took 1.1 s to reach it unbounded)
    assert exc.value.errors["file"] == [f"{tmp_path / 'req.yaml'}: nested deeper than {MAX_DEPTH} levels"]


def test_a_deep_block_mapping_is_refused_too():
    text = "".join(f"{'  ' * i}k{i}:\n" for i in range(MAX_DEPTH + 1)) + "  " * (MAX_DEPTH + 1) + "v\n"
    with pytest.raises(YamlInputError, match="nested deeper"):
        load_yaml(text)


def test_an_alias_that_contains_itself_is_refused():
    with pytest.raises(YamlInputError, match="contains it"):
        load_yaml("name: &a [1, *a]\n")


def test_within_the_bounds_aliases_and_merge_keys_still_work():
    data = load_yaml("base: &b {nic_gbps: 400, rails: 8}\ncompute_fabric:\n  <<: *b\n  rails: 4\nx: [*b, *b]\n")
    assert data["compute_fabric"] == {"nic_gbps": 400, "rails": 4}
    assert data["x"] == [{"nic_gbps": 400, "rails": 8}] * 2
    nested = "v: " + "[" * (MAX_DEPTH - 1) + "1" + "]" * (MAX_DEPTH - 1)  # the document's mapping is level 1
    assert load_yaml(nested)["v"] is not None
    with pytest.raises(YamlInputError):
        load_yaml("v: [" + nested.removeprefix("v: ") + "]")


def test_a_bomb_just_inside_the_budget_loads():
    text = yaml_bomb(levels=5, width=7)  # a5 and name each 7⁵ + … + 1 = 19,608 values: ≈ 42,000 in all
    assert len(load_yaml(text)["name"]) == 7


@pytest.mark.parametrize("path", sorted(EXAMPLES.glob("*.yaml")), ids=lambda p: p.stem)
def test_every_example_reads_as_safe_load_reads_it(path: Path):
    assert load_yaml(path.read_text()) == yaml.safe_load(path.read_text())


def test_a_file_that_is_not_utf8_is_a_field_error(tmp_path: Path):
    path = tmp_path / "req.yaml"
    path.write_bytes(b"name: \xff\xfe\n")
    with pytest.raises(RequirementsError) as exc:
        load_requirements_file(path)
    assert "is not UTF-8 text" in exc.value.errors["file"][0]


@pytest.mark.parametrize(("text", "message"), [(yaml_bomb(), "aliases expand"), (DEEP_LIST, "nested deeper")])
def test_the_cli_prints_one_line_naming_the_field_and_exits_1(tmp_path: Path, text: str, message: str):
    path = write(tmp_path, text)
    out = subprocess.run(
        [cluster_designer(), "evaluate", str(path)],
        capture_output=True,
        text=True,
        env=_bare_env(),
        cwd=ROOT,
        timeout=60,
    )
    assert out.returncode == 1, out.stderr[-2000:]
    assert f"  file: {path}: {message}" in out.stderr
    assert "Traceback" not in out.stderr
