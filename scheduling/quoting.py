"""User text in generated files: one rule per format (pure).

Every writer of a text format takes user text (a design's name, a trace's class or user) through the
function for *that* format here, and the requirements field refuses control characters as a second
wall (``cluster/validate.py``), so a name stored before that wall, or one reaching a writer another way,
still cannot add a line:

- a comment line (``#`` in sh, slurm.conf, topology.conf, gres.conf and YAML): :func:`comment_text` —
  every character that any of those readers, or Python's ``str.splitlines``, takes as the end of a line
  (``\\n``, ``\\r``, ``\\v``, ``\\f``, ``\\x1c``–``\\x1e``, ``\\x85``, U+2028, U+2029) and every other control or
  format character (Unicode categories Cc, Cf, Cs, Co, Cn, Zl, Zp: a bidi override would show a reviewer
  text other than what runs, "Trojan Source", CVE-2021-42574) becomes a space. Inside a comment nothing
  else is special to sh, Slurm's parser or YAML, so ``$( )``, backticks, quotes and ``---`` stay as typed;
- a shell word: :func:`shell_word` (``shlex.quote``, after :func:`comment_text`, so the script stays one
  command a line);
- a Slurm name: Slurm's own charset is enforced at the field (``SLURM_NAME`` in cluster/requirements.py;
  ClusterName is a slug of ``[a-z0-9_]``, ``scheduling.slurm_conf.cluster_name``);
- YAML values: the YAML emitter (``yaml.safe_dump``), never string formatting;
- CSV: the csv module with its default ``\\r\\n`` line terminator, which quotes any field holding ``\\r`` or
  ``\\n`` (with ``lineterminator="\\n"`` CPython 3.11 leaves a lone ``\\r`` unquoted, and a reader then
  splits the row there): :func:`csv_writer`.
"""

from __future__ import annotations

import csv
import shlex
import unicodedata
from typing import Any

# Unicode general categories that never belong on one printed line of a generated file.
_NOT_ONE_LINE = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})


def comment_text(text: str) -> str:
    """``text`` as one line of printable characters: line breaks and other control/format characters
    become spaces (runs of them one space), so it can follow ``#`` without starting a new line."""
    out: list[str] = []
    for ch in str(text):
        if unicodedata.category(ch) in _NOT_ONE_LINE:
            if out and out[-1] != " ":
                out.append(" ")
        else:
            out.append(ch)
    return "".join(out).strip()


def shell_word(text: str) -> str:
    """One shell word that sh reads back as ``comment_text(text)``."""
    return shlex.quote(comment_text(text))


def csv_writer(stream: Any) -> Any:
    """A csv writer whose rows never split on a line break inside a field (RFC 4180 line ends)."""
    return csv.writer(stream, lineterminator="\r\n")
