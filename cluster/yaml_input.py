"""YAML from users, read with bounds: a nesting depth and a budget of values counted as if every alias were
written out.

``yaml.safe_load`` builds a *billion laughs* file (nine aliases of nine aliases of … of ``lol``) as a small
graph of shared lists, but everything that walks it — validation, ``str()`` of a field, JSON output — walks
9⁹ values (a 6.5 GB CLI run, issue #32). A list nested 100,000 deep makes the composer recurse past
Python's limit. Both are refused while the document is composed, before anything is built.

Pure Python (PyYAML's own composer, not libyaml's): the bounds are checked per node.
"""

from __future__ import annotations

from typing import Any

import yaml

MAX_DEPTH = 64
"""Lists and mappings inside one another, the document's own mapping the first (a requirements file uses 4)."""
MAX_VALUES = 100_000
"""Scalars, lists and mappings in the document, each alias counted as the values it stands for."""


class YamlInputError(ValueError):
    """The document is over a bound (depth, expanded size) or refers to itself."""


class BoundedSafeLoader(yaml.SafeLoader):
    """``yaml.SafeLoader`` that refuses documents nested deeper than ``max_depth`` or expanding (aliases
    written out) to more than ``max_values`` values, and aliases that refer to a node containing them."""

    max_depth = MAX_DEPTH
    max_values = MAX_VALUES

    def __init__(self, stream):
        super().__init__(stream)
        self._depth = 0
        self._values = 0  # values composed so far, aliases expanded
        self._sizes: dict[int, int] = {}  # id(node) → its expanded size, once complete

    def _count(self, n: int) -> None:
        self._values += n
        if self._values > self.max_values:
            raise YamlInputError(
                f"aliases expand to more than {self.max_values:,} values; write the values out instead"
            )

    def fetch_flow_collection_start(self, token_class):
        """``[[[…`` is refused by the scanner at the bound: it keeps a possible key per open bracket and
        rescans them all per character (100,000 brackets: 1.1 s before the composer saw the 65th)."""
        if self.flow_level >= self.max_depth:
            raise YamlInputError(f"nested deeper than {self.max_depth} levels")
        super().fetch_flow_collection_start(token_class)

    def compose_node(self, parent, index):
        if self.check_event(yaml.AliasEvent):
            node = super().compose_node(parent, index)
            size = self._sizes.get(id(node))
            if size is None:  # anchored on an enclosing node that is still being composed
                raise YamlInputError("an alias refers to a value that contains it")
            self._count(size)
            return node
        level = 0 if self.check_event(yaml.ScalarEvent) else 1  # a list or a mapping: one level deeper
        self._depth += level
        if self._depth > self.max_depth:
            raise YamlInputError(f"nested deeper than {self.max_depth} levels")
        start = self._values
        try:
            node = super().compose_node(parent, index)
        finally:
            self._depth -= level
        self._count(1)
        self._sizes[id(node)] = self._values - start
        return node


def load_yaml(text: str) -> Any:
    """One YAML (or JSON) document, bounded; ``YamlInputError`` over a bound, ``yaml.YAMLError`` when malformed."""
    loader = BoundedSafeLoader(text)
    try:
        return loader.get_single_data()
    except RecursionError:  # a bound above the interpreter's stack (not with the defaults)
        raise YamlInputError(f"nested deeper than {BoundedSafeLoader.max_depth} levels") from None
    finally:
        loader.dispose()
