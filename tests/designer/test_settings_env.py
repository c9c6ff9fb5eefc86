from __future__ import annotations

import pytest
from django.core.exceptions import ImproperlyConfigured

from designer.env import env_bool, env_int, env_list


def test_bool_parsing_is_strict(monkeypatch):
    monkeypatch.setenv("X_FLAG", "yes")
    assert env_bool("X_FLAG", False) is True
    monkeypatch.setenv("X_FLAG", "0")
    assert env_bool("X_FLAG", True) is False
    monkeypatch.setenv("X_FLAG", "maybe")
    with pytest.raises(ImproperlyConfigured, match="X_FLAG='maybe' is not a boolean"):
        env_bool("X_FLAG", False)


def test_int_parsing_is_strict(monkeypatch):
    monkeypatch.setenv("X_N", "12x")
    with pytest.raises(ImproperlyConfigured, match="not a whole number"):
        env_int("X_N", 1)
    monkeypatch.setenv("X_N", "0")
    with pytest.raises(ImproperlyConfigured, match="≥ 1"):
        env_int("X_N", 1, minimum=1)


def test_list(monkeypatch):
    monkeypatch.setenv("X_L", "a, b,,c")
    assert env_list("X_L", []) == ["a", "b", "c"]
