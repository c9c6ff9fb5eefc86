from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"


def with_sections(r: Any, **sections: dict[str, Any]) -> Any:
    """Typed requirements with some fields of some sections replaced: ``with_sections(r, power={"pue": 1.2})``."""
    return dataclasses.replace(r, **{k: dataclasses.replace(getattr(r, k), **v) for k, v in sections.items()})


@pytest.fixture
def examples_dir() -> Path:
    return EXAMPLES
