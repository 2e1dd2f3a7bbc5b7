"""The compact outcome file: several models' outcome matrices in one small JSON file.

Format ``bayeseval-outcomes/1``::

    {
      "format": "bayeseval-outcomes/1",
      "dataset": "...", "source": "...", "license": "...", "notes": "...",
      "published": {"<model>": {"<metric>": value, ...}, ...},      (optional)
      "models": {
        "<model>": {
          "questions": ["id0", "id1", ...],          (one id per row)
          "outcomes": ["0100...", "1", ...]          (one string per row, one digit
                                                      per trial: category 0..9,
                                                      "." for a missing trial)
        }, ...
      }
    }

Rows may have different lengths (ragged).  Digits keep the file small and
diff-able: 100 x 100 binary outcomes take 10 kB.

>>> import io, json
>>> f = OutcomeFile(models={"m": (["q1", "q2"], ["101", "1."])})
>>> f.counts("m").n.tolist()
[3, 1]
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..counts import Counts, to_counts

__all__ = ["OutcomeFile", "read_outcomes", "write_outcomes", "encode_rows"]

FORMAT = "bayeseval-outcomes/1"


@dataclass
class OutcomeFile:
    """Outcome rows per model plus the provenance needed to cite them."""

    models: dict  # name -> (question ids, list of digit strings)
    dataset: str = ""
    source: str = ""
    license: str = ""
    notes: str = ""
    published: dict = field(default_factory=dict)

    def names(self) -> list[str]:
        return list(self.models)

    def matrix(self, model: str) -> np.ndarray:
        """Float matrix with NaN for missing trials (rows padded to the longest)."""
        _, rows = self._get(model)
        width = max(len(r) for r in rows)
        out = np.full((len(rows), width), np.nan)
        for i, r in enumerate(rows):
            for j, ch in enumerate(r):
                if ch != ".":
                    out[i, j] = int(ch)
        return out

    def counts(self, model: str) -> Counts:
        """The model's outcomes as :class:`~bayeseval.Counts` with question ids."""
        ids, _ = self._get(model)
        return to_counts(self.matrix(model), missing=np.nan, ids=ids)

    def _get(self, model: str):
        if model not in self.models:
            raise KeyError(f"no model {model!r} in this outcome file; it has {self.names()}")
        return self.models[model]


def _parse(data: Any, where: str) -> OutcomeFile:
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ValueError(f"{where}: not a {FORMAT} file (missing or different 'format' field)")
    models = data.get("models")
    if not isinstance(models, dict) or not models:
        raise ValueError(f"{where}: field 'models' must be a non-empty object")
    parsed = {}
    for name, entry in models.items():
        ids, rows = entry.get("questions"), entry.get("outcomes")
        if not isinstance(ids, list) or not isinstance(rows, list) or len(ids) != len(rows) or not rows:
            raise ValueError(f"{where}: model {name!r}: 'questions' and 'outcomes' must be lists of equal length")
        for i, row in enumerate(rows):
            if not isinstance(row, str) or not row or any(ch not in "0123456789." for ch in row):
                raise ValueError(f"{where}: model {name!r}, row {i}: outcomes must be a string of digits or '.'")
        parsed[name] = (ids, rows)
    return OutcomeFile(
        models=parsed,
        dataset=data.get("dataset", ""),
        source=data.get("source", ""),
        license=data.get("license", ""),
        notes=data.get("notes", ""),
        published=data.get("published", {}),
    )


def read_outcomes(path: str | Path) -> OutcomeFile:
    """Read a compact outcome file; malformed files raise ValueError naming the file and field."""
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path}: not valid JSON ({exc})") from None
    return _parse(data, str(path))


def encode_rows(rows) -> list[str]:
    """Rows of 0..9 outcomes (NaN or None = missing) -> digit strings."""
    out = []
    for row in rows:
        out.append("".join("." if v is None or (isinstance(v, float) and np.isnan(v)) else str(int(v)) for v in row))
    return out


def write_outcomes(path: str | Path, outcome_file: OutcomeFile) -> None:
    """Write a compact outcome file (one model entry per line for readable diffs)."""
    doc = {
        "format": FORMAT,
        "dataset": outcome_file.dataset,
        "source": outcome_file.source,
        "license": outcome_file.license,
        "notes": outcome_file.notes,
        "published": outcome_file.published,
        "models": {
            name: {"questions": list(ids), "outcomes": list(rows)}
            for name, (ids, rows) in outcome_file.models.items()
        },
    }
    Path(path).write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")
