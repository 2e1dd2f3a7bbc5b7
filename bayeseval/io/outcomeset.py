"""The labelled outcome set: dataset x model x question id x trial.

Every loader in :mod:`bayeseval.io` returns an :class:`OutcomeSet`.  It keeps
what a bare matrix loses: which model and dataset a row belongs to, the
question ids (so two models are paired on the same questions, not on row
positions), ragged trials (a failed request is a missing trial, not a wrong
one), category weights (grades 1..10, partial credit) and the numbers the
evaluation tool itself reported, so a report can show them side by side.

Each (dataset, model) pair is one :class:`Run`: question ids plus a float
matrix with one row per question and NaN for a missing trial.

>>> import numpy as np
>>> s = OutcomeSet.from_arrays({"a": [[1, 0, 1], [0, 0, 1]], "b": [[1, 1], [0]]}, ids=["q1", "q2"], dataset="demo",
...                            ragged=True)
>>> s.models, s.datasets
(['a', 'b'], ['demo'])
>>> s.counts("b").n.tolist()
[2, 1]
>>> s.to_frame().head(3).to_dict("records")
[{'dataset': 'demo', 'model': 'a', 'question': 'q1', 'trial': 0, 'score': 1.0}, {'dataset': 'demo', 'model': 'a', 'question': 'q1', 'trial': 1, 'score': 0.0}, {'dataset': 'demo', 'model': 'a', 'question': 'q1', 'trial': 2, 'score': 1.0}]
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field, replace
from typing import Any, Iterable, Iterator

import numpy as np

from .. import validate as V
from .._protocol import UNNAMED_DATASET
from ..counts import Counts, to_counts
from ..scores import Scores, any_scores, binarise, category_values, score_range_arg, to_outcomes, to_scores

__all__ = ["Run", "CountRun", "OutcomeSet", "add_counts"]


def _readonly(a: np.ndarray) -> np.ndarray:
    a = np.array(a, dtype=float, copy=True)
    a.setflags(write=False)
    return a


def id_kinds(ids: Any) -> frozenset:
    """The Python types of question ids, from an array's dtype where it has one (no Python value per question:
    a run counted in an engine holds millions); an object array is typed by pandas, and only a mix is looked at
    id by id.

    >>> sorted(t.__name__ for t in id_kinds(np.array([3, 1, 2])) | id_kinds(np.array(["a", 7], dtype=object)))
    ['int', 'str']
    """
    import pandas as pd

    arr = np.asarray(ids) if not isinstance(ids, np.ndarray) else ids
    kind = {"i": int, "u": int, "f": float, "U": str, "S": bytes, "b": bool}.get(arr.dtype.kind)
    if kind is not None:
        return frozenset({kind}) if arr.size else frozenset()
    named = {"string": str, "integer": int, "floating": float, "boolean": bool, "empty": None}.get(
        pd.api.types.infer_dtype(arr, skipna=False))
    if named is not None or arr.size == 0:
        return frozenset({named} - {None})
    return frozenset(type(v.item() if isinstance(v, np.generic) else v) for v in arr.ravel())


@dataclass(frozen=True)
class Run:
    """One model's outcomes on one dataset.

    ``matrix[i, j]`` is trial ``j`` of question ``ids[i]``: a category
    ``0..C`` (``0/1`` for correct/incorrect) or NaN where the trial is missing.
    ``weights[c]`` is the value of category ``c`` (None for binary outcomes).
    ``scale = (lo, hi)`` marks a run of continuous scores (token F1, a judge's probability): the matrix
    then holds the scores themselves, every one in ``[lo, hi]``, and :meth:`counts` gives
    :class:`~bayeseval.scores.Scores`.
    ``reported`` holds the metrics the evaluation tool printed (name -> value,
    in the tool's units); ``meta`` holds provenance (files, version, mode,
    published values).
    """

    dataset: str
    model: str
    ids: tuple
    matrix: np.ndarray
    weights: np.ndarray | None = None
    reported: dict = field(default_factory=dict)
    meta: dict = field(default_factory=dict)
    scale: tuple | None = None
    _counted: dict = field(default_factory=dict, init=False, repr=False, compare=False)

    @property
    def id_types(self) -> frozenset:
        """The Python types of the question ids (a tuple of Python values here; a counted run reads its id array's
        dtype, :func:`id_kinds`)."""
        return frozenset(type(i) for i in self.ids)

    def __post_init__(self):
        at = f"run {self.dataset}/{self.model}"
        m = _readonly(self.matrix)
        ids = tuple(v.item() if isinstance(v, np.generic) else v for v in self.ids)
        if m.ndim != 2 or m.shape[0] != len(ids):
            raise ValueError(f"{at}: matrix must be 2-D with one row per question id ({len(ids)} ids), got shape {m.shape}")
        seen = m[~np.isnan(m)]
        if self.scale is not None:
            lo, hi = score_range_arg(self.scale)
            if self.weights is not None:
                raise ValueError(f"{at}: a run of scores (scale) has no category weights")
            if seen.size and (not np.isfinite(seen).all() or seen.min() < lo or seen.max() > hi):
                raise ValueError(f"{at}: scores must lie in [{lo:g}, {hi:g}] (NaN = missing trial)")
            object.__setattr__(self, "scale", (lo, hi))
        elif seen.size and (seen.min() < 0 or np.any(seen != np.round(seen)) or not np.isfinite(seen).all()):
            raise ValueError(f"{at}: outcomes must be categories 0, 1, 2, ... (NaN = missing trial)")
        try:
            if len(set(ids)) != len(ids):
                raise ValueError(f"{at}: question ids must be unique")
        except TypeError:
            raise ValueError(f"{at}: question ids must be strings or numbers") from None
        object.__setattr__(self, "matrix", m)
        object.__setattr__(self, "ids", ids)
        if self.weights is not None:
            w = _readonly(self.weights)
            if w.ndim != 1 or w.size < 2 or not np.isfinite(w).all():
                raise ValueError(f"{at}: weights must be a finite vector with one value per category")
            if seen.size and seen.max() >= w.size:
                raise ValueError(f"{at}: an outcome is category {int(seen.max())} but there are {w.size} weights")
            object.__setattr__(self, "weights", w)
        elif seen.size and seen.max() > 1 and self.scale is None:
            raise ValueError(f"{at}: categories above 1 need weights (the value of each category)")

    @property
    def M(self) -> int:
        return self.matrix.shape[0]

    @property
    def n(self) -> np.ndarray:
        """Observed trials per question."""
        return (~np.isnan(self.matrix)).sum(axis=1)

    def counts(self, str_ids: bool = False) -> Counts | Scores:
        """Per-question counts with the question ids attached (missing trials dropped); ``str_ids``
        turns the ids into strings, so runs from files that spell ids as 7 and "7" pair up.

        Counted once per run (and ``str_ids``): later calls return the same :class:`Counts`, so a
        population fit cached on it serves every metric.
        """
        key = bool(str_ids)
        if key in self._counted:
            counts, note = self._counted[key]
            if note:
                warnings.warn(note, stacklevel=2)
            return counts
        K = None if self.weights is None else len(self.weights)
        ids = [str(i) for i in self.ids] if str_ids else list(self.ids)
        matrix = self.matrix
        empty = self.n == 0
        note = None
        if empty.any():  # a question whose every trial failed carries no information: leave it out, loudly
            shown = [ids[i] for i in np.flatnonzero(empty)[:5]]
            note = (f"{self.dataset}/{self.model}: {int(empty.sum())} question(s) have no observed trial "
                    f"and are left out: {shown}{' ...' if empty.sum() > 5 else ''}")
            warnings.warn(note, stacklevel=2)
            keep = np.flatnonzero(~empty)
            if keep.size == 0:
                raise ValueError(f"{self.dataset}/{self.model}: no question has an observed trial")
            matrix, ids = matrix[keep], [ids[i] for i in keep]
        if self.scale is not None:
            counts = to_scores(matrix, score_range=self.scale, missing=np.nan, ids=ids, name=self.model)
        else:
            counts = to_counts(matrix, missing=np.nan, ids=ids, categories=K, name=self.model)
        self._counted[key] = (counts, note)
        return counts

    def values(self) -> np.ndarray:
        """Each trial's value (a category's weight, a score itself, 0/1), NaN where missing: a new array."""
        return self.matrix.copy() if self.weights is None else category_values(self.matrix, self.weights)

    def as_scores(self, score_range: Any = None) -> "Run":
        """This run as continuous scores in ``score_range`` (default ``(0, 1)``): a category becomes its weight
        (0/1 outcomes stay 0 and 1), so nothing is lost -- the mean score is the categorical ``avg``."""
        if self.scale is not None and score_range is None:
            return self
        rng = score_range_arg(score_range) or (0.0, 1.0)
        m = self.values()
        seen = m[~np.isnan(m)]
        if seen.size and (seen.min() < rng[0] or seen.max() > rng[1]):
            raise V.ArgumentError("{run}: scores from {a:g} to {b:g} are not all in [{lo:g}, {hi:g}]; give the range "
                                  "of the scores with {score_range}", "score_range", run=f"{self.dataset}/{self.model}",
                                  a=seen.min(), b=seen.max(), lo=rng[0], hi=rng[1])
        return replace(self, matrix=m, weights=None, scale=rng)

    def thresholded(self, threshold: Any) -> "Run":
        """This run's scores as 0/1 outcomes, 1 where a trial's score is above ``threshold`` (missing stays
        missing), for the 0/1 metrics (pass@k, maj@k, ...) on scores; the run must hold scores (:meth:`as_scores`).

        >>> r = Run("d", "m", ("q1", "q2"), np.array([[0.2, 0.9], [0.7, np.nan]]), scale=(0.0, 1.0))
        >>> r.thresholded(0.5).matrix
        array([[ 0.,  1.],
               [ 1., nan]])
        """
        if self.scale is None:
            raise V.ArgumentError("{threshold} counts a score above it as correct; {run} holds "
                                  + ("graded categories" if self.weights is not None else "0/1 outcomes")
                                  + ", not scores: read them as scores first ({score_range})", "threshold",
                                  "score_range", run=f"{self.dataset}/{self.model}")
        try:  # binarised as the library's threshold= binarises
            binary = binarise(self.matrix, threshold, score_range=self.scale, missing=np.nan, name=self.model)
        except ValueError as exc:
            raise V.slotted(exc, "threshold") from None
        return replace(self, matrix=binary, scale=None)

    def __repr__(self) -> str:
        n = self.n
        N = str(int(n[0])) if n.size and n.min() == n.max() else f"{int(n.min())}..{int(n.max())}"
        w = "" if self.weights is None else f", {len(self.weights)} categories"
        if self.scale is not None:
            w = f", scores in [{self.scale[0]:g}, {self.scale[1]:g}]"
        return f"<Run {self.dataset}/{self.model}: {self.M} questions x {N} trials{w}>"


class CountRun:
    """One model's counts on one dataset, as the engine returned them (no trial matrix).

    Behaves as :class:`~bayeseval.io.Run` for everything that works from counts (``counts()``, ``n``, ``M``,
    ``ids``, ``weights``, ``scale``); ``matrix`` raises, since the trials were never read into memory."""

    def __init__(self, dataset: str, model: str, counted: Counts | Scores, weights: Any = None,
                 reported: dict | None = None, meta: dict | None = None):
        self.dataset, self.model = str(dataset), str(model)
        self._counts = counted
        self.weights = None if weights is None else np.asarray(weights, dtype=np.float64)
        self.scale = (counted.lo, counted.hi) if isinstance(counted, Scores) else None
        self.reported = dict(reported or {})
        self.meta = dict(meta or {})

    @property
    def ids(self) -> tuple:
        """Question ids (as Python values), in the order of the counts."""
        return tuple(v.item() if isinstance(v, np.generic) else v for v in self._counts.ids)

    @property
    def id_types(self) -> frozenset:
        """The Python types of the question ids, from the counts' id array (:func:`id_kinds`)."""
        ids = self._counts.ids
        return frozenset({int}) if ids is None else id_kinds(ids)

    @property
    def M(self) -> int:
        return self._counts.M

    @property
    def n(self) -> np.ndarray:
        return self._counts.n

    @property
    def matrix(self):
        raise V.ArgumentError("run {run} was counted by a query engine: it holds per-question counts, not a trial "
                              "matrix; have every row read ({engine} pandas) for one", "engine",
                              run=f"{self.dataset}/{self.model}")

    def values(self):
        return self.matrix

    def thresholded(self, threshold: Any):
        raise V.ArgumentError("run {run} was counted by a query engine: its scores are summed per question, so "
                              "{threshold} cannot be applied to each trial; threshold the score column before "
                              "counting (a column score > T), or have every row read ({engine} pandas)",
                              "threshold", "engine", run=f"{self.dataset}/{self.model}")

    def counts(self, str_ids: bool = False) -> Counts | Scores:
        c = self._counts
        if not str_ids:
            return c
        ids = np.array([str(i) for i in c.ids], dtype=object)
        if isinstance(c, Scores):
            return Scores(c.n, c.total, c.sq, c.lo, c.hi, ids)
        return Counts(c.table, ids=ids)

    def as_scores(self, score_range: Any = None) -> "CountRun":
        """Categories as scores (each category's weight; exact: sums and sums of squares from the counts)."""
        if self.scale is not None and score_range is None:
            return self
        lo, hi = score_range_arg(score_range) or (0.0, 1.0)
        c = self._counts
        if isinstance(c, Scores) and (c.lo, c.hi) == (lo, hi):  # read as these scores already (load's score_range)
            return self
        if isinstance(c, Scores):
            raise ValueError(f"run {self.dataset}/{self.model} holds scores in [{c.lo:g}, {c.hi:g}], not {score_range}")
        w = self.weights if self.weights is not None else np.array([0.0, 1.0])
        used = w[: c.table.shape[1]]
        if c.table.shape[1] and (used[c.table.sum(axis=0) > 0].min() < lo or used[c.table.sum(axis=0) > 0].max() > hi):
            raise ValueError(f"{self.dataset}/{self.model}: category values are not all in [{lo:g}, {hi:g}]; give the "
                             "scale of the scores (score_range=(lo, hi), CLI --scores LO,HI)")
        t = c.table.astype(np.float64)
        n = t.sum(axis=1)
        total = t @ used
        mean = total / n
        sq = np.einsum("ik,ik->i", t, (used[None, :] - mean[:, None]) ** 2)
        return CountRun(self.dataset, self.model, Scores(n.astype(np.int64), total, sq, lo, hi, c.ids),
                        reported=self.reported, meta=self.meta)

    def __repr__(self) -> str:
        n = self.n
        N = str(int(n[0])) if n.min() == n.max() else f"{int(n.min())}..{int(n.max())}"
        w = f", scores in [{self.scale[0]:g}, {self.scale[1]:g}]" if self.scale else (
            "" if self.weights is None else f", {len(self.weights)} categories")
        return f"<CountRun {self.dataset}/{self.model}: {self.M} questions x {N} trials{w} (counted)>"


def _renamed(run, model: str, dataset: str):
    """``run`` under another model and dataset name (a Run is a frozen dataclass; a CountRun is copied)."""
    if isinstance(run, CountRun):
        return CountRun(dataset, model, run._counts, run.weights, run.reported, run.meta)
    return replace(run, model=model, dataset=dataset)


class OutcomeSet:
    """Outcomes of several models (and datasets), labelled by question id and trial.

    Build one with a loader (:func:`bayeseval.io.load`, :meth:`from_arrays`,
    :func:`~bayeseval.io.from_long`, :func:`~bayeseval.io.read_aisbench`, ...);
    pass it to :func:`bayeseval.evaluate` or index it by model name.
    """

    def __init__(self, runs: Iterable[Run] = (), *, source: str = "", license: str = "", notes: str = "",
                 warnings: Iterable[str] = ()):
        self._runs: dict[tuple[str, str], Run] = {}
        for run in runs:
            key = (run.dataset, run.model)
            if key in self._runs:
                raise ValueError(f"two runs for dataset {run.dataset!r}, model {run.model!r}")
            self._runs[key] = run
        self.source = source
        self.license = license
        self.notes = notes
        self.warnings = list(warnings)

    # construction ---------------------------------------------------------
    @classmethod
    def from_arrays(cls, models: dict, *, ids: Any = None, dataset: str = UNNAMED_DATASET, weights: Any = None,
                    missing: Any = None, ragged: bool = False, score_range: Any = None) -> "OutcomeSet":
        """``{model: outcome matrix or list of rows}`` -> OutcomeSet (rows = questions, in the same order
        for every model unless the matrix is a DataFrame, whose index supplies the ids).  Scores (a value
        that is not an integer in any model, or ``score_range``) make every run a run of scores."""
        if not isinstance(models, dict) or not models:
            raise TypeError("models must be a non-empty dict {model name: outcome matrix}")
        scored = weights is None and any_scores(list(models.values()), score_range)
        runs = []
        for name, R in models.items():
            c = to_outcomes(R, missing=missing, ragged=ragged, ids=ids, score_range=score_range, scores=scored,
                            name=f"models[{name!r}]")
            run_ids = list(c.ids) if c.ids is not None else (list(ids) if ids is not None else list(range(c.M)))
            runs.append(Run(dataset, str(name), run_ids, _matrix_of(R, missing, ragged), weights=weights,
                            scale=(c.lo, c.hi) if scored else None))
        return cls(runs)

    # access ---------------------------------------------------------------
    @property
    def models(self) -> list[str]:
        return list(dict.fromkeys(m for _, m in self._runs))

    @property
    def datasets(self) -> list[str]:
        return list(dict.fromkeys(d for d, _ in self._runs))

    def names(self) -> list[str]:
        """The model names (same as :attr:`models`)."""
        return self.models

    @property
    def dataset(self) -> str:
        """The dataset name when there is one; several are joined with ', '."""
        return ", ".join(self.datasets)

    @property
    def published(self) -> dict:
        """Published numbers carried by the runs: ``{model: {metric: value}}``, keyed
        ``"<dataset>/<model>"`` for a model run on several datasets (as in the outcome file)."""
        out: dict = {}
        for run in self:
            several = sum(r.model == run.model for r in self) > 1
            out[f"{run.dataset}/{run.model}" if several else run.model] = dict(run.meta.get("published", {}))
        return out

    def __iter__(self) -> Iterator[Run]:
        return iter(self._runs.values())

    def __len__(self) -> int:
        return len(self._runs)

    def __contains__(self, model) -> bool:
        return any(m == model for _, m in self._runs)

    def run(self, model: str, dataset: str | None = None) -> Run:
        """The run of ``model`` (on ``dataset``, which may be omitted when the model has one run)."""
        if dataset is not None:
            if (dataset, model) not in self._runs:
                raise KeyError(f"no run for model {model!r} on dataset {dataset!r}; runs: {self._keys()}")
            return self._runs[(dataset, model)]
        found = [r for (d, m), r in self._runs.items() if m == model]
        if not found:
            raise KeyError(f"no model {model!r}; models: {self.models}")
        if len(found) > 1:
            raise KeyError(f"model {model!r} has runs on several datasets {[r.dataset for r in found]}; pass dataset=")
        return found[0]

    def __getitem__(self, key) -> Counts:
        if isinstance(key, tuple):
            return self.run(key[1], key[0]).counts()
        return self.run(key).counts()

    def counts(self, model: str, dataset: str | None = None) -> Counts:
        return self.run(model, dataset).counts()

    def matrix(self, model: str, dataset: str | None = None) -> np.ndarray:
        """Float matrix (questions x trials), NaN for missing trials."""
        return self.run(model, dataset).matrix

    def weights(self, model: str, dataset: str | None = None) -> np.ndarray | None:
        return self.run(model, dataset).weights

    def as_scores(self, score_range: Any = None) -> "OutcomeSet":
        """Every run as continuous scores in ``score_range`` (default ``(0, 1)``; see :meth:`Run.as_scores`):
        graded and partial-credit runs can then be compared and ranked by their mean score."""
        out = OutcomeSet([r.as_scores(score_range) for r in self], source=self.source, license=self.license,
                         notes=self.notes, warnings=self.warnings)
        return out

    def thresholded(self, threshold: Any) -> "OutcomeSet":
        """Every run's scores as 0/1 outcomes above ``threshold`` (see :meth:`Run.thresholded`)."""
        return OutcomeSet([r.thresholded(threshold) for r in self], source=self.source, license=self.license,
                          notes=self.notes, warnings=self.warnings)

    def _keys(self) -> list[str]:
        return [f"{d}/{m}" for d, m in self._runs]

    # transformation -------------------------------------------------------
    def select(self, models: Iterable[str] | None = None, datasets: Iterable[str] | None = None) -> "OutcomeSet":
        """A subset by model and/or dataset name (unknown names raise KeyError)."""
        models = None if models is None else list(models)
        datasets = None if datasets is None else list(datasets)
        for name, have, what in ((models, self.models, "model"), (datasets, self.datasets, "dataset")):
            for x in name or ():
                if x not in have:
                    raise KeyError(f"no {what} {x!r}; {what}s: {have}")
        runs = [r for r in self if (models is None or r.model in models) and (datasets is None or r.dataset in datasets)]
        return OutcomeSet(runs, source=self.source, license=self.license, notes=self.notes, warnings=self.warnings)

    def rename(self, models: dict | None = None, datasets: dict | None = None) -> "OutcomeSet":
        models, datasets = models or {}, datasets or {}
        runs = [_renamed(r, models.get(r.model, r.model), datasets.get(r.dataset, r.dataset)) for r in self]
        return OutcomeSet(runs, source=self.source, license=self.license, notes=self.notes, warnings=self.warnings)

    def merge(self, *others: "OutcomeSet") -> "OutcomeSet":
        """All runs of this set and ``others`` (a (dataset, model) pair may occur once)."""
        runs = list(self)
        warnings = list(self.warnings)
        for o in others:
            runs += list(o)
            warnings += o.warnings
        return OutcomeSet(runs, source=self.source, license=self.license, notes=self.notes, warnings=warnings)

    __or__ = merge

    def add(self, other: "OutcomeSet") -> "OutcomeSet":
        """Counts add: more trials or new questions of the same (dataset, model) pooled, by question id
        (:func:`add_counts`); the runs become counted runs.  This does not look at trial numbers: to refuse a
        (question, trial) counted in both parts, add counted shards with :func:`bayeseval.io.scale.add_counts`
        or :func:`bayeseval.io.scale.count_shards` (``check_overlap=True`` for an exact audit)."""
        return add_counts(self, other)

    def to_frame(self):
        """Long pandas DataFrame: dataset, model, question, trial, score (missing trials left out; a
        category's score is its weight, so :func:`~bayeseval.io.from_long` reads the frame back)."""
        import pandas as pd

        parts = []
        for run in self:
            i, j = np.nonzero(~np.isnan(run.matrix))
            ids = np.empty(run.M, dtype=object)
            ids[:] = list(run.ids)
            code = run.matrix[i, j]
            score = code if run.weights is None else run.weights[code.astype(np.int64)]
            parts.append(pd.DataFrame({
                "dataset": run.dataset, "model": run.model, "question": ids[i], "trial": j, "score": score,
            }))
        if not parts:
            return pd.DataFrame(columns=["dataset", "model", "question", "trial", "score"])
        return pd.concat(parts, ignore_index=True)

    def __repr__(self) -> str:
        lines = [f"<OutcomeSet: {len(self)} runs, models {self.models}, datasets {self.datasets}>"]
        lines += [f"  {r!r}" for r in self]
        lines += [f"  warning: {w}" for w in self.warnings]
        return "\n".join(lines)


def _matrix_of(R: Any, missing: Any, ragged: bool) -> np.ndarray:
    """The outcome matrix as float with NaN for missing trials (R already validated by to_counts)."""
    if hasattr(R, "to_numpy") and not isinstance(R, np.ndarray):
        R = R.to_numpy()
    if ragged:
        rows = [np.asarray(r, dtype=float).ravel() for r in R]
        width = max((len(r) for r in rows), default=0)
        out = np.full((len(rows), width), np.nan)
        for i, r in enumerate(rows):
            out[i, : len(r)] = r
    else:
        if isinstance(R, np.ma.MaskedArray):
            return R.astype(float).filled(np.nan)
        out = np.array(R, dtype=float)
        if missing is not None and not (isinstance(missing, float) and np.isnan(missing)):
            out[out == float(missing)] = np.nan
    if ragged and missing is not None and not (isinstance(missing, float) and np.isnan(missing)):
        out[out == float(missing)] = np.nan
    return out


class ReadingMismatch(ValueError):
    """Two parts of one (dataset, model) read as different kinds of outcome (scores and categories, other score
    ranges or category weights): their counts do not add, though the rows of both read together may."""


def add_counts(a: OutcomeSet, b: OutcomeSet) -> OutcomeSet:
    """Counts add: runs of the same (dataset, model) pool their trials (questions matched by id, new questions
    appended); other runs are kept as they are.  Shards counted one at a time give the counts of all of them.
    0/1 outcomes add to graded ones as grades 0 and 1 (the reading of their rows together)."""
    import pandas as pd

    runs = {(r.dataset, r.model): r for r in a}
    for r in b:
        key = (r.dataset, r.model)
        if key not in runs:
            runs[key] = r
            continue
        x, y = runs[key].counts(), r.counts()
        if type(x) is not type(y):
            raise ReadingMismatch(f"{key[0]}/{key[1]}: cannot add scores to category counts")
        ids = pd.Index(list(x.ids)).append(pd.Index(list(y.ids))).unique()
        ix, iy = ids.get_indexer(list(x.ids)), ids.get_indexer(list(y.ids))
        if isinstance(x, Scores):
            if (x.lo, x.hi) != (y.lo, y.hi):
                raise ReadingMismatch(f"{key[0]}/{key[1]}: scores on different ranges cannot be added")
            n, tot, m2 = (np.zeros(len(ids)) for _ in range(3))
            for c, i in ((x, ix), (y, iy)):
                np.add.at(n, i, c.n)
                np.add.at(tot, i, c.total)
                np.add.at(m2, i, c.sq + c.total**2 / c.n)
            counted = Scores(n.astype(np.int64), tot, np.maximum(m2 - tot**2 / n, 0.0), x.lo, x.hi,
                             np.asarray(list(ids), dtype=object))
            runs[key] = CountRun(key[0], key[1], counted, meta=runs[key].meta)
            continue
        K = max(x.table.shape[1], y.table.shape[1])
        tab = np.zeros((len(ids), K), dtype=np.int64)
        np.add.at(tab, (ix[:, None], np.arange(x.table.shape[1])[None, :]), x.table)
        np.add.at(tab, (iy[:, None], np.arange(y.table.shape[1])[None, :]), y.table)
        wx, wy = runs[key].weights, r.weights
        if (wx is None) != (wy is None):  # 0/1 beside grades: categories 0 and 1 weighted 0 and 1
            wx, wy = (np.array([0.0, 1.0]) if w is None else w for w in (wx, wy))
        if wx is not None and not np.array_equal(wx[:min(len(wx), len(wy))], wy[:min(len(wx), len(wy))]):
            raise ReadingMismatch(f"{key[0]}/{key[1]}: the two parts weigh their categories differently; counts add "
                                  "only for the same categories")
        weights = None if wx is None else (wx if len(wx) >= len(wy) else wy)
        runs[key] = CountRun(key[0], key[1], Counts(tab, ids=np.asarray(list(ids), dtype=object),
                                                    fixed_categories=weights is not None),
                             weights=weights, meta=runs[key].meta)
    return OutcomeSet(list(runs.values()), source=a.source, warnings=a.warnings + b.warnings)
