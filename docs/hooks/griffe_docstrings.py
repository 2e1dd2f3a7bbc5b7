"""A griffe extension for the API reference (docs only; the package's docstrings are not changed).

bayeseval's docstrings are numpy-style sections around Sphinx/reST text and doctests written inline
(not only under an ``Examples`` heading).  Before griffe parses a docstring this extension

* fences every doctest run (``>>>`` lines and their output, up to a blank line) that is not under an
  ``Examples`` heading as a ``pycon`` code block, so that ``[0.95, 0.45]`` is code, not Markdown;
* spells out ``bayeseval.__all__``, which appends ``bayeseval.scorio``'s names through a variable
  (``*_scorio_all``) that static analysis cannot follow, so the scorio-compatible functions are listed;
* turns the reST roles (``:func:`estimate```, ``:class:`~bayeseval.io.OutcomeSet```, ``:math:`x```)
  into code spans.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Any

import griffe

ROLE = re.compile(r":(?:py:)?(?:func|class|meth|mod|attr|data|obj|exc|math|ref|term):`(~?)([^`]+)`")


def _role(m: re.Match) -> str:
    target = m.group(2)
    if m.group(1):  # ~a.b.C shows as C
        target = target.rsplit(".", 1)[-1]
    return f"`{target}`"


def _is_dash(line: str) -> bool:
    s = line.strip()
    return bool(s) and set(s) == {"-"}


def fence_doctests(text: str) -> str:
    lines = text.split("\n")
    out: list[str] = []
    section = ""
    in_fence = False
    i = 0
    while i < len(lines):
        line = lines[i]
        stripped = line.lstrip()
        if stripped.startswith("```"):
            in_fence = not in_fence
        if not in_fence and i + 1 < len(lines) and stripped and not _is_dash(line) and _is_dash(lines[i + 1]):
            section = stripped.lower()
        if not in_fence and section != "examples" and stripped.startswith(">>>"):
            indent = line[: len(line) - len(stripped)]
            j = i
            while j < len(lines) and lines[j].strip():
                j += 1
            out += [f"{indent}```pycon", *lines[i:j], f"{indent}```"]
            i = j
            continue
        out.append(line)
        i += 1
    return "\n".join(out)


def _reference_names() -> list[str]:
    """The names of ``bayeseval.metrics.reference.__all__`` (what ``bayeseval.scorio`` re-exports), read statically."""
    path = Path(__file__).resolve().parents[2] / "bayeseval" / "metrics" / "reference.py"
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "__all__" for t in node.targets):
            return [e.value for e in node.value.elts]
    raise RuntimeError(f"no __all__ in {path}")


class DocstringsForMkDocs(griffe.Extension):
    def on_module_node(self, *, node: Any, agent: Any, **kwargs: Any) -> None:
        if getattr(agent, "module_name", None) != "bayeseval" or not isinstance(node, ast.Module):
            return
        for stmt in node.body:
            if isinstance(stmt, ast.Assign) and any(getattr(t, "id", None) == "__all__" for t in stmt.targets):
                elts = []
                for e in stmt.value.elts:
                    if isinstance(e, ast.Starred) and getattr(e.value, "id", None) == "_scorio_all":
                        elts += [ast.Constant(name) for name in _reference_names()]
                    else:
                        elts.append(e)
                stmt.value.elts = elts

    def on_instance(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        doc = obj.docstring
        if doc is None or not doc.value:
            return
        doc.value = fence_doctests(ROLE.sub(_role, doc.value))
