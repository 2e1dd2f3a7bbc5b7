r"""Rubric scores on several dimensions, rated by several judges: :func:`rubric`, :func:`compare_rubric`,
:func:`krippendorff_alpha`.

A rubric table has one row per (item, system, judge) and one column per dimension (faithfulness, relevance,
...), each an ordinal rating on a known scale such as 1-5 (SummEval's layout).  Seed 004's advice is to
report each dimension with its uncertainty, not a weighted average, and to state pass rules as constraints
("passes only if faithfulness >= 4").  So, per system:

* **each dimension's mean rating** with a credible interval: the ratings of an item by its judges are the
  trials of a question, scores on the scale ``[lo, hi]`` (:mod:`bayeseval.posterior.scores`: population
  scope = the Dirichlet-process posterior over items; benchmark scope = these items, the judges' spread as
  the error).  The value is the mean over items of an item's mean rating,
  ``(1/M) sum_i (1/n_i) sum_j r_ij`` for ``M`` items with ``n_i`` ratings each (avg@N over questions);
* **constraint metrics**: the mean over items of the share of an item's ratings that meet every stated
  minimum (``{"consistency": 4, "fluency": 4}``), ``(1/M) sum_i (1/n_i) sum_j 1[r_ij meets every minimum]``:
  a 0/1 outcome per (item, judge) rating, estimated as ``avg`` of 0/1 outcomes with the judges as trials.
  Items weigh equally, whatever their number of ratings: the estimand is per item, as avg@N is per question
  (Miller 2024, "Adding Error Bars to Evals", arXiv:2411.00640: questions are the sampling units).  When items
  carry unequal numbers of ratings this differs from the pooled share of all ratings (an item rated by 10
  judges counts once, not 10 times); a note says so when the pooled value lies outside the interval;
* **how the dimensions move together**: Spearman's rho between dimensions over the per-(item, system)
  judge-mean ratings, with a percentile bootstrap interval that resamples items (all systems of an item
  together);
* **whether the judges agree**: Krippendorff's alpha per dimension (ordinal by default; Krippendorff 2011,
  "Computing Krippendorff's alpha-reliability"), units = (item, system), with a bootstrap interval over
  units.  The point value is the ``krippendorff`` package's; the bootstrap re-weights the units' coincidence
  matrices (:func:`krippendorff_alpha`), so 2,000 resamples cost one matrix product.

:func:`compare_rubric` compares two systems on the same items, dimension by dimension (the paired score
comparison of :func:`bayeseval.compare`), with Holm's adjustment over the dimensions.  Its ``A - B`` is the
observed paired difference over the shared items, ``(1/M) sum_i (rbar_Ai - rbar_Bi)`` (the difference of the
two systems' mean ratings on those items), beside the posterior mean; the interval is the posterior's, reaching
out to the observed value where it lies outside (as :func:`bayeseval.classification.compare_classifiers` does).

References: Krippendorff (2011), Departmental Papers (ASC) 43; Hayes & Krippendorff (2007), Commun. Methods
Meas. 1(1) (bootstrapping alpha); Fabbri et al. (2021), TACL 9 (SummEval); Miller (2024), arXiv:2411.00640.

>>> import pandas as pd
>>> t = pd.DataFrame({"item": [1, 1, 2, 2, 3, 3] * 2, "system": ["s"] * 6 + ["t"] * 6,
...                   "judge": ["j1", "j2"] * 6, "fluency": [5, 4, 4, 4, 2, 3, 5, 5, 4, 5, 3, 3]})
>>> r = rubric(t, dimensions=["fluency"], scale=(1, 5))
>>> round(r.estimates["s", "fluency"].value, 4), round(r.estimates["t", "fluency"].value, 4)
(3.6667, 4.1667)
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from . import validate as V
from ._protocol import Result, check_choice
from ._text import html_table, pct, text_table
from .comparison.paired import compare, reach_value
from .comparison.paired_tests import adjust
from .posterior import SCOPES
from .results import DEFAULT_SEED, WIDENING_METHODS, Estimate, estimate

__all__ = ["rubric", "compare_rubric", "krippendorff_alpha", "Rubric", "RubricComparison", "parse_constraints"]

LEVELS = ("nominal", "ordinal", "interval", "ratio")


# ----------------------------------------------------------------------------- Krippendorff's alpha
def _value_counts(ratings: np.ndarray, values: np.ndarray) -> np.ndarray:
    """``(units, V)``: how many coders gave each value to each unit (NaN = no rating)."""
    codes = np.searchsorted(values, ratings)
    ok = ~np.isnan(ratings)
    H = np.zeros((ratings.shape[0], values.size))
    rows = np.broadcast_to(np.arange(ratings.shape[0])[:, None], ratings.shape)
    np.add.at(H, (rows[ok], codes[ok]), 1.0)
    return H


def _alpha_from_coincidences(O: np.ndarray, values: np.ndarray, level: str) -> np.ndarray:
    """alpha = 1 - (n - 1) sum o_ck d2_ck / sum n_c n_k d2_ck for coincidence matrices ``O`` (``(..., V, V)``)."""
    nc = O.sum(axis=-1)
    n = nc.sum(axis=-1)
    if level == "nominal":
        d2 = 1.0 - np.eye(values.size)
        d2 = np.broadcast_to(d2, O.shape)
    elif level == "interval":
        d2 = np.broadcast_to((values[:, None] - values[None, :]) ** 2, O.shape)
    elif level == "ratio":
        s = values[:, None] + values[None, :]
        d2 = np.broadcast_to(np.divide((values[:, None] - values[None, :]) ** 2, s ** 2, out=np.zeros_like(s),
                                       where=s != 0), O.shape)
    else:  # ordinal: (sum_{g=c}^{k} n_g - (n_c + n_k) / 2)^2, from this sample's marginal frequencies
        cum = np.cumsum(nc, axis=-1)
        between = cum[..., None, :] - cum[..., :, None] + nc[..., :, None]  # sum_{g=c}^{k} n_g for c <= k
        d = between - (nc[..., :, None] + nc[..., None, :]) / 2.0
        d2 = np.triu(d) ** 2
        d2 = d2 + np.swapaxes(d2, -1, -2)
    obs = np.sum(O * d2, axis=(-1, -2))
    exp = np.einsum("...c,...k,...ck->...", nc, nc, d2)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(exp > 0, 1.0 - (n - 1.0) * obs / exp, np.nan)


@dataclass(frozen=True)
class Agreement:
    """Krippendorff's alpha with a bootstrap interval over units."""

    alpha: float
    lo: float
    hi: float
    level: float
    measurement: str
    units: int
    coders: int
    pairable: int

    def to_dict(self) -> dict:
        return {k: getattr(self, k) for k in ("alpha", "lo", "hi", "level", "measurement", "units", "coders",
                                              "pairable")}


def krippendorff_alpha(ratings: Any, *, measurement: str = "ordinal", values: Any = None, level: float = 0.95,
                       resamples: int = 2000, seed: int | None = None) -> Agreement:
    r"""Krippendorff's alpha of a units x coders matrix of ratings (NaN = not rated), with an interval.

    ``alpha = 1 - D_o / D_e`` from the coincidence matrix ``o_ck = sum_u (pairs of c and k values in unit u)
    / (m_u - 1)`` (units with ``m_u >= 2`` ratings); the point value is the ``krippendorff`` package's.  The
    interval resamples units with replacement (percentile, ``resamples`` times, widened to hold alpha where it
    does not): each resample's coincidence matrix is the weighted sum of the units' own, so the whole bootstrap is
    one matrix product.

    >>> import numpy as np
    >>> nan = np.nan  # Krippendorff (2011), the 4 coders x 12 units example: 0.743 / 0.815 / 0.849
    >>> d = np.array([[1, 2, 3, 3, 2, 1, 4, 1, 2, nan, nan, nan], [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, nan, 3],
    ...               [nan, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, nan], [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, nan]]).T
    >>> [round(krippendorff_alpha(d, measurement=m).alpha, 3) for m in ("nominal", "ordinal", "interval")]
    [0.743, 0.815, 0.849]
    """
    import krippendorff

    measurement = check_choice(measurement, "measurement", LEVELS)
    level = V.confidence(level, "level")
    resamples = V.integer(resamples, "resamples", minimum=100)
    try:
        R = np.array(ratings, dtype=np.float64)
    except (TypeError, ValueError):
        raise V.InputTypeError("ratings must be a numeric units x coders matrix (NaN = not rated)") from None
    if R.ndim != 2 or R.shape[1] < 2:
        raise ValueError(f"ratings must be a units x coders matrix with at least 2 coders, got shape {R.shape}")
    if np.isinf(R).any():
        raise ValueError("ratings must be finite (NaN marks a unit a coder did not rate)")
    vals = np.unique(R[~np.isnan(R)]) if values is None else np.unique(np.asarray(values, dtype=np.float64))
    seen = R[~np.isnan(R)]
    if values is not None and not np.isin(seen, vals).all():
        bad = seen[~np.isin(seen, vals)][0]
        raise ValueError(f"ratings hold {bad:g}, which is not among values={vals.tolist()}")
    m = (~np.isnan(R)).sum(axis=1)
    pairable = m >= 2
    if pairable.sum() < 2 or np.unique(R[pairable][~np.isnan(R[pairable])]).size < 2:  # else alpha is 0 / 0
        raise ValueError("Krippendorff's alpha needs at least 2 units rated by 2 or more coders, and at least 2 "
                         "distinct values among their ratings (with one value there is no disagreement to expect)")
    H = _value_counts(R[pairable], vals)
    a = 1.0 / (m[pairable] - 1.0)
    alpha = float(krippendorff.alpha(reliability_data=R.T, level_of_measurement=measurement, value_domain=vals))
    rng = np.random.default_rng(DEFAULT_SEED if seed is None else V.integer(seed, "seed", minimum=0))
    U = H.shape[0]
    step = max(1, 2_000_000 // U)  # resamples per block: memory bounded by about 16 MB of weights
    parts = []
    for start in range(0, resamples, step):
        W = rng.multinomial(U, np.full(U, 1.0 / U), size=min(step, resamples - start)).astype(np.float64) * a[None, :]
        O = np.einsum("bu,uv,uw->bvw", W, H, H, optimize=True)
        O[:, np.arange(vals.size), np.arange(vals.size)] -= W @ H
        parts.append(_alpha_from_coincidences(O, vals, measurement))
    boot = np.concatenate(parts)
    boot = boot[np.isfinite(boot)]
    lo, hi = np.quantile(boot, [(1 - level) / 2, (1 + level) / 2]) if boot.size else (math.nan, math.nan)
    if boot.size:  # the interval holds the value it is reported with (a percentile interval need not, and the
        # package's value and the coincidences' can differ in the last bit)
        lo, hi = min(float(lo), alpha), max(float(hi), alpha)
    return Agreement(alpha, float(lo), float(hi), level, measurement, int(R.shape[0]), int(R.shape[1]),
                     int(pairable.sum()))


# ----------------------------------------------------------------------------- the rubric table
_RULE = re.compile(r"^\s*([^<>=\s][^<>=]*?)\s*>=\s*(-?\d+(?:\.\d+)?)\s*$")


def parse_constraints(constraints: Any, dimensions: list[str], scale: Any = None) -> dict[str, float] | None:
    """``{"consistency": 4}``, or text ``"consistency>=4,fluency>=4"`` -> ``{dimension: minimum}``.  With the
    rating ``scale`` ``(lo, hi)``, a minimum outside it (which no rating, or every rating, meets) is an error."""
    if constraints is None:
        return None
    if isinstance(constraints, str):
        out = {}
        for part in constraints.split(","):
            hit = _RULE.match(part)
            if not hit:
                raise V.ArgumentError("{constraints}: expected 'dimension>=minimum' items separated by commas, got "
                                      "{part!r}", "constraints", part=part)
            if hit.group(1) in out:  # 'q>=3,q>=4' kept the last rule without a word
                raise V.ArgumentError("{constraints}: {dim!r} has two rules; give one minimum per dimension",
                                      "constraints", dim=hit.group(1))
            out[hit.group(1)] = float(hit.group(2))
        constraints = out
    if not isinstance(constraints, dict) or not constraints:
        raise V.InputTypeError(f"constraints must be a dict {{dimension: minimum}} or 'dim>=x,...', got "
                               f"{V.describe(constraints)}")
    for k, v in constraints.items():
        if k not in dimensions:
            raise V.ArgumentError("{constraints}: {dim!r} is not a dimension; dimensions: {dimensions}",
                                  "constraints", dim=k, dimensions=dimensions)
        V.real(v, f"constraints[{k!r}]")
    if scale is not None:
        lo, hi = _scale(scale)
        for k, v in constraints.items():
            if not lo <= float(v) <= hi:
                what = "no rating can meet it" if float(v) > hi else "every rating meets it"
                raise V.ArgumentError("{constraints}: the minimum {v:g} for {dim!r} is outside its rating scale "
                                      "[{lo:g}, {hi:g}] ({what}); give a minimum within [{lo:g}, {hi:g}]",
                                      "constraints", v=float(v), dim=k, lo=lo, hi=hi, what=what)
    return {k: float(v) for k, v in constraints.items()}


def _numbers(df, d: str, scale: tuple):
    """Column ``d`` as floats (empty = not rated); a cell that is no number or is off the scale is an error
    naming its row."""
    import pandas as pd

    raw = df[d].mask(df[d].astype(str).str.strip().isin(["", "nan", "NaN", "NA", "null"]))  # empty = not rated
    x = pd.to_numeric(raw, errors="coerce")
    bad = x.isna() & raw.notna()
    if bad.any():
        i = int(np.flatnonzero(bad.to_numpy())[0])
        raise ValueError(f"table: row {i}: column {d!r} must be a number, got {df[d].iloc[i]!r}")
    out = (x < scale[0]) | (x > scale[1])
    if out.any():
        i = int(np.flatnonzero(out.to_numpy())[0])
        raise ValueError(f"table: row {i}: column {d!r} = {x.iloc[i]:g} is outside scale [{scale[0]:g}, "
                         f"{scale[1]:g}]")
    return x.to_numpy(dtype=np.float64)


def _plain(row) -> list:
    """A table row's values as plain Python values (``1``, not ``np.int64(1)``), for messages."""
    return [v.item() if isinstance(v, np.generic) else v for v in row.tolist()]


#: the frame's id columns (and the pass flag's), named so that no dimension can take their place: a dimension
#: called "item", "system" or "judge" would otherwise overwrite the ids
ITEM, SYSTEM, JUDGE, PASSED = "\x00item", "\x00system", "\x00judge", "\x00passed"


def _frame(table: Any, item: str, system: str, judge: str, dimensions: Any, scale: tuple,
           dimension: str | None = None, rating: str = "rating"):
    """Validated frame (one row per item, system, judge; a column per dimension) and the dimension list; every
    error names the column and row.  ``dimension``: the table is long, one row per rating, with the
    dimension's name in column ``dimension`` and the rating in column ``rating``."""
    import pandas as pd

    df = table if isinstance(table, pd.DataFrame) else pd.DataFrame.from_records(list(table))
    for col, role in ((item, "item"), (system, "system"), (judge, "judge")) + (
            ((dimension, "dimension"), (rating, "rating")) if dimension is not None else ()):
        if col not in df.columns:
            raise ValueError(f"table: no {role} column {col!r}; columns are {list(map(str, df.columns))}")
        if role != "rating":  # an id left blank would be read as one more item, judge or system named 'nan'
            cells = df[col]
            blank = (cells.isna() | (cells.astype(str).str.strip() == "")).to_numpy()
            if blank.any():
                row = int(np.flatnonzero(blank)[0])
                raise ValueError(f"table: {role} column {col!r} is missing a value in row {row}; every rating "
                                 f"needs its {role}")
    if dimension is not None:  # long: validate the ratings where they are, then one column per dimension
        key = df[[item, system, judge, dimension]]
        dup = key.duplicated(keep=False).to_numpy()
        if dup.any():
            i, j = np.flatnonzero(dup)[:2]
            raise ValueError(f"table: rows {i} and {j} rate the same (item, system, judge, dimension) "
                             f"({_plain(key.iloc[i])})")
        long = pd.DataFrame({ITEM: df[item].to_numpy(), SYSTEM: df[system].to_numpy(), JUDGE: df[judge].to_numpy(),
                             "_dim": df[dimension].astype(str).to_numpy(), "_val": _numbers(df, rating, scale)})
        names = list(dict.fromkeys(long["_dim"]))
        df = long.pivot(index=[ITEM, SYSTEM, JUDGE], columns="_dim", values="_val").reset_index()
        df.columns.name = None
        item, system, judge = ITEM, SYSTEM, JUDGE  # a dimension may be called "item": the ids keep private names
        if dimensions is None:
            dimensions = names
    if dimensions is None:  # every other column whose values are all numbers (tables read as text included)
        dimensions = []
        for c in (c for c in df.columns if c not in (item, system, judge) and df[c].notna().any()):
            given = (df[c].notna() & (df[c].astype(str).str.strip() != "")).to_numpy()
            text = pd.to_numeric(df[c], errors="coerce").isna().to_numpy() & given
            if not text.any():
                dimensions.append(c)
            elif 2 * int(text.sum()) <= int(given.sum()):  # mostly numbers: a rating column with a bad cell
                r = int(np.flatnonzero(text)[0])
                raise V.ArgumentError("table: column {col!r} holds ratings and text (row {r}: {cell!r}); a rating must "
                                      "be a number: fix the cell, or name the rating columns with {dimensions}",
                                      "dimensions", col=str(c), r=r, cell=_plain(df[c].iloc[[r]])[0])
    elif isinstance(dimensions, str):
        dimensions = [d.strip() for d in dimensions.split(",") if d.strip()]
    dimensions = list(dimensions)
    twice = [d for i, d in enumerate(dimensions) if d in dimensions[:i]]
    if twice:
        raise V.ArgumentError("{dimensions} names {d!r} twice; name each rating column once", "dimensions",
                              d=twice[0])
    if not dimensions:
        raise V.ArgumentError("{dimensions}: no rating columns found; name the columns that hold ratings with "
                              "{dimensions}", "dimensions")
    values = {}
    for d in dimensions:
        if d not in df.columns:
            if dimension is not None:  # a long table: the dimensions are the values of its dimension column
                raise V.ArgumentError("{dimensions}: no dimension {d!r} in column {col!r}; it holds {names}",
                                      "dimensions", d=d, col=dimension, names=names)
            raise V.ArgumentError("{dimensions}: no column {d!r}; columns are {names}", "dimensions", d=d,
                                  names=list(map(str, df.columns)))
        values[d] = _numbers(df, d, scale)
    key = pd.DataFrame({k: df[k].astype(str).to_numpy() for k in (item, system, judge)})  # ids compared as text
    dup = key.duplicated(keep=False).to_numpy()
    if dup.any():
        i, j = np.flatnonzero(dup)[:2]
        raise ValueError(f"table: rows {i} and {j} rate the same (item, system, judge) "
                         f"({_plain(df[[item, system, judge]].iloc[i])} and "
                         f"{_plain(df[[item, system, judge]].iloc[j])}, as text); each judge rates an item once "
                         "per system")
    frame = pd.DataFrame({ITEM: df[item].astype(str).to_numpy(), SYSTEM: df[system].astype(str).to_numpy(),
                          JUDGE: df[judge].astype(str).to_numpy()})
    for d in dimensions:
        frame[d] = values[d]
    for s, g in frame.groupby(SYSTEM, sort=False):
        empty = [d for d in dimensions if g[d].isna().all()]
        if empty:
            raise ValueError(f"system {s!r} has no ratings on {empty}: every system must be rated on the same "
                             f"dimensions {dimensions}")
    return frame, dimensions


def _matrix(frame, system: str, dim: str, items=None):
    """items x judges ratings of one system on one dimension (NaN = not rated) and the item ids."""
    sub = frame[frame[SYSTEM] == system].pivot(index=ITEM, columns=JUDGE, values=dim)
    if items is not None:
        sub = sub.reindex(items)
    return sub.to_numpy(dtype=np.float64), list(sub.index)


def _rated(R: np.ndarray, items: list, what: str, notes: list) -> tuple[np.ndarray, list]:
    """Drop the items nobody rated on this dimension (each such item is named in ``notes``)."""
    keep = ~np.isnan(R).all(axis=1)
    if not keep.all():
        gone = [items[i] for i in np.flatnonzero(~keep)]
        notes.append(f"{what}: {len(gone)} item(s) have no rating and are left out: {gone[:5]}"
                     f"{' ...' if len(gone) > 5 else ''}")
    if not keep.any():
        raise ValueError(f"{what}: no item has a rating")
    return R[keep], [i for i, k in zip(items, keep) if k]


def _scale(scale: Any) -> tuple[float, float]:
    if not (isinstance(scale, (tuple, list)) and len(scale) == 2):
        raise V.InputTypeError(f"scale must be (lo, hi) with lo < hi, got {scale!r}")
    lo, hi = (V.real(x, "scale") for x in scale)
    if not lo < hi:
        raise ValueError(f"scale must be (lo, hi) with lo < hi, got {scale!r}")
    return float(lo), float(hi)


@dataclass(frozen=True)
class Rubric(Result):
    """Per system and dimension: the mean over items of an item's mean rating; per system the pass rate (the
    mean over items of the share of an item's ratings that pass); dimension correlations; judge agreement."""

    systems: list
    dimensions: list
    scale: tuple
    scope: str
    level: float
    estimates: dict
    constraints: dict | None = None
    passing: dict = field(default_factory=dict)
    correlation: list = field(default_factory=list)
    agreement: dict = field(default_factory=dict)
    notes: tuple = ()

    def to_dict(self) -> dict:
        return _no_nan({
            "systems": self.systems, "dimensions": self.dimensions, "scale": list(self.scale), "scope": self.scope,
            "level": self.level,
            "estimates": [{"system": s, "dimension": d, **self.estimates[s, d].to_dict()}
                          for s in self.systems for d in self.dimensions],
            "constraints": self.constraints,
            "passing": {s: e.to_dict() for s, e in self.passing.items()},
            "correlation": self.correlation,
            "agreement": {d: a.to_dict() for d, a in self.agreement.items()},
            "notes": list(self.notes),
        })

    def to_evaluation(self):
        """The estimates as an :class:`~bayeseval.Evaluation` (model = system, metric = dimension, plus
        ``passes`` when a rule was given), for :mod:`bayeseval.report` tables (Markdown, LaTeX) and plots."""
        import dataclasses

        from .results import Evaluation

        out = [dataclasses.replace(self.estimates[s, d], metric=d, model=s)
               for s in self.systems for d in self.dimensions]
        out += [dataclasses.replace(e, metric="passes", model=s) for s, e in self.passing.items()]
        return Evaluation(out)

    def to_frame(self):
        import pandas as pd

        return pd.DataFrame([{"system": s, "dimension": d, "value": self.estimates[s, d].value,
                              "lo": self.estimates[s, d].lo, "hi": self.estimates[s, d].hi}
                             for s in self.systems for d in self.dimensions])

    def _rows(self):
        head = ["system"] + self.dimensions + (["passes"] if self.passing else [])
        rows = []
        for s in self.systems:
            row = [s] + [f"{self.estimates[s, d].value:.3f} [{self.estimates[s, d].lo:.3f}, "
                         f"{self.estimates[s, d].hi:.3f}]" for d in self.dimensions]
            if self.passing:
                e = self.passing[s]
                row.append(f"{e.value:.3f} [{e.lo:.3f}, {e.hi:.3f}]")
            rows.append(row)
        return head, rows

    def summary(self) -> str:
        head, rows = self._rows()
        lines = [f"mean over items of an item's mean rating on [{self.scale[0]:g}, {self.scale[1]:g}], "
                 f"{self.scope} scope, {pct(self.level)} intervals"]
        if self.constraints:
            lines.append(f"passes: {_rule_text(self.constraints)}, as the {PASS_LABEL}")
        lines += ["", text_table(head, rows)]
        widened = [s for s, e in self.passing.items() if e.interval in WIDENING_METHODS]
        if widened:
            lines.append(f"passes of {', '.join(widened)}: few items (or none) carry the share away from 0 or 1, so "
                         "the interval is widened by a confidence interval over items (docs/honesty.md)")
        if self.agreement:
            lines += ["", "judge agreement (Krippendorff's alpha, bootstrap interval over rated units)"]
            lines.append(text_table(["dimension", "alpha", "interval", "measurement", "units", "judges"],
                                    [[d, f"{a.alpha:.3f}", f"[{a.lo:.3f}, {a.hi:.3f}]", a.measurement,
                                      str(a.pairable), str(a.coders)] for d, a in self.agreement.items()]))
        if self.correlation:
            lines += ["", "Spearman correlation of the dimensions (judge-mean ratings; bootstrap over items)"]
            lines.append(text_table(["dimensions", "rho", "interval"],
                                    [[f"{c['a']} ~ {c['b']}", f"{c['rho']:.3f}", f"[{c['lo']:.3f}, {c['hi']:.3f}]"]
                                     for c in self.correlation]))
        lines += [f"note: {n}" for n in self.notes]
        return "\n".join(lines)

    def __repr__(self) -> str:
        return self.summary()

    def _repr_html_(self) -> str:
        head, rows = self._rows()
        return html_table(head, rows)


def _no_nan(x: Any) -> Any:
    """NaN (a correlation of a constant dimension, say) as None, so that the JSON is valid."""
    if isinstance(x, dict):
        return {k: _no_nan(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_no_nan(v) for v in x]
    if isinstance(x, float) and math.isnan(x):
        return None
    return x


#: what the pass rate is, in every label and message
PASS_LABEL = "mean over items of the share of an item's ratings that pass"


def _pooled_note(R: np.ndarray, e: Estimate, what: str) -> str | None:
    """A note when the item-weighted ``e.value = (1/M) sum_i (1/n_i) sum_j R_ij`` and the pooled mean of all
    ratings ``sum_ij R_ij / sum_i n_i`` differ by more than the interval says: items carry unequal numbers of
    ratings ``n_i`` (with equal ones the two are the same number) and the pooled value lies outside
    ``[e.lo, e.hi]``.  ``R``: items x judges, NaN = not rated."""
    n = np.sum(~np.isnan(R), axis=1)
    pooled = float(np.nansum(R) / n.sum())
    if n.min() == n.max() or e.lo <= pooled <= e.hi:
        return None
    return (f"{what}: items carry {n.min()} to {n.max()} ratings; the reported {e.value:.3f} weighs every item "
            f"equally however many ratings it has, while the pooled value over all {n.sum()} ratings, {pooled:.3f}, "
            f"lies outside its interval [{e.lo:.3f}, {e.hi:.3f}] (docs/rubric.md)")


def _rule_text(constraints: dict) -> str:
    return " and ".join(f"{k} >= {v:g}" for k, v in constraints.items())


def rubric(table: Any, *, item: str = "item", system: str = "system", judge: str = "judge", dimensions: Any = None,
           scale: tuple = (1, 5), constraints: Any = None, scope: str = "population", level: float = 0.95,
           measurement: str = "ordinal", agreement: bool = True, correlation: bool = True,
           resamples: int = 2000, seed: int | None = None, dimension: str | None = None,
           rating: str = "rating") -> Rubric:
    """Every system's mean rating per dimension with intervals, constraint pass rates, the dimensions'
    correlation and the judges' agreement (see the module docstring).  Both the mean rating and the pass rate
    weigh items equally: ``(1/M) sum_i (1/n_i) sum_j x_ij`` over the ``n_i`` ratings ``x_ij`` of item ``i`` (the
    rating; for the pass rate 1 where it meets every minimum, else 0); a note says when the pooled mean of all
    ratings lies outside the interval (items with very unequal numbers of ratings).

    ``table``: a DataFrame (or records) with columns ``item``, ``system``, ``judge`` and one per dimension
    (``dimensions=None``: every other numeric column); ``scale``: the rating scale ``(lo, hi)``;
    ``constraints``: ``{dimension: minimum}`` or ``"dim>=x,..."``.  A long table (one row per rating) names its
    dimension column with ``dimension=`` and its rating column with ``rating=`` (default ``"rating"``).
    """
    from scipy.stats import spearmanr

    scope = check_choice(scope, "scope", SCOPES)
    measurement = check_choice(measurement, "measurement", LEVELS)  # not a note per dimension: asked, so checked
    agreement, correlation = V.flag(agreement, "agreement"), V.flag(correlation, "correlation")
    level = V.confidence(level, "level")
    resamples = V.integer(resamples, "resamples", minimum=100)
    seed = DEFAULT_SEED if seed is None else V.integer(seed, "seed", minimum=0)
    scale = _scale(scale)
    frame, dims = _frame(table, item, system, judge, dimensions, scale, dimension, rating)
    notes: list = []
    rules = parse_constraints(constraints, dims, scale)
    systems = list(dict.fromkeys(frame[SYSTEM]))
    est: dict[tuple[str, str], Estimate] = {}
    passing = {}
    import warnings

    for s in systems:
        for d in dims:
            R, _ = _rated(*_matrix(frame, s, d), f"{s} / {d}", notes)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                est[s, d] = estimate(R, "avg", score_range=scale, missing=np.nan, scope=scope, level=level,
                                     seed=seed, model=s)
            notes.append(_pooled_note(R, est[s, d], f"{s} / {d} (mean over items of an item's mean rating)"))
        if rules:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                P, _ = _rated(_pass_matrix(frame, s, rules), sorted(set(frame[ITEM][frame[SYSTEM] == s])),
                              f"{s} / passes", notes)
                passing[s] = estimate(P, "avg", missing=np.nan, scope=scope, level=level, seed=seed, model=s)
            notes.append(_pooled_note(P, passing[s], f"{s} / passes ({PASS_LABEL})"))
    notes = [n for n in notes if n is not None]
    corr = []
    rng = np.random.default_rng(seed)
    if correlation and len(dims) >= 2:
        means = frame.groupby([ITEM, SYSTEM], sort=False)[dims].mean()
        _, inv = np.unique(means.index.get_level_values(0).to_numpy(), return_inverse=True)
        pairs = {}  # (a, b) -> both dimensions' item means and where both are rated
        for i, a in enumerate(dims):
            for b in dims[i + 1:]:
                x, y = means[a].to_numpy(), means[b].to_numpy()
                pairs[a, b] = (x, y, ~(np.isnan(x) | np.isnan(y)))
        boots: dict = {pair: [] for pair in pairs}
        for boot_rows in _item_resamples(inv, min(resamples, 2000), rng):  # a block of resamples at a time
            ranked: dict = {}  # per dimension, its centred ranks on the block's resamples (balanced, complete)
            for (a, b), (x, y, keep) in pairs.items():
                boots[a, b].append(_spearman_rows(x, y, boot_rows, keep, ranked, (a, b)))
        for (a, b), (x, y, keep) in pairs.items():
            rho = float(spearmanr(x[keep], y[keep]).statistic)
            boot = np.concatenate(boots[a, b])
            lo, hi = np.nanquantile(boot, [(1 - level) / 2, (1 + level) / 2])
            # widened to hold rho, as every interval here holds its value (the percentile interval of a
            # skewed bootstrap law can miss it; rho = 1 - 1e-16 beside resamples of exactly 1)
            corr.append({"a": a, "b": b, "rho": rho, "lo": float(min(lo, rho)), "hi": float(max(hi, rho))})
    agree = {}
    if agreement and frame[JUDGE].nunique() >= 2:
        for d in dims:
            units = frame.pivot(index=[ITEM, SYSTEM], columns=JUDGE, values=d).to_numpy(dtype=np.float64)
            try:
                agree[d] = krippendorff_alpha(units, measurement=measurement, level=level, resamples=resamples,
                                              seed=seed)
            except ValueError as exc:  # undefined here (a constant dimension, one rater per unit): say so
                notes.append(f"{d}: no Krippendorff's alpha ({exc})")
    elif agreement:
        notes.append("one judge: no agreement to measure")
    return Rubric(systems, dims, scale, scope, level, est, rules, passing, corr, agree, tuple(notes))


#: row positions held at once by the item resamples of the rubric's correlations (a block of resamples at a time:
#: 2,000 resamples of 100,000 items x 3 systems held at once took more than 23 GB with their ranks)
RESAMPLE_BLOCK = 2_000_000


def _item_resamples(inv: np.ndarray, B: int, rng: np.random.Generator):
    """``B`` resamples of items with replacement, each as the row positions of its items (an item's systems
    travel together), in blocks of about ``RESAMPLE_BLOCK`` positions: each block a (b, n) matrix when every item
    has the same number of rows, else a list.  The blocks draw from ``rng`` in turn, as one (B, items) draw would."""
    counts = np.bincount(inv)
    order = np.argsort(inv, kind="stable")
    balanced = bool((counts == counts[0]).all())
    starts = np.concatenate([[0], np.cumsum(counts)])
    step = max(1, RESAMPLE_BLOCK // max(inv.size, 1))
    for first in range(0, B, step):
        choice = rng.integers(0, counts.size, size=(min(step, B - first), counts.size))
        if balanced:
            yield order.reshape(counts.size, counts[0])[choice].reshape(choice.shape[0], -1)
        else:
            yield [np.concatenate([order[starts[k]:starts[k + 1]] for k in row]) for row in choice]


def _spearman_rows(x: np.ndarray, y: np.ndarray, rows, keep: np.ndarray, ranked: dict, names: tuple) -> np.ndarray:
    """Spearman's rho of ``x``, ``y`` on each resample (rows of positions); average ranks for ties.  ``ranked``
    caches each dimension's centred ranks across calls (keyed by ``names``)."""
    from scipy.stats import rankdata, spearmanr

    if isinstance(rows, np.ndarray) and keep.all():
        def centred(name, v):
            if name not in ranked:
                r = rankdata(v[rows], axis=1)
                ranked[name] = r - r.mean(axis=1, keepdims=True)
            return ranked[name]

        rx, ry = centred(names[0], x), centred(names[1], y)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.sum(rx * ry, axis=1) / np.sqrt(np.sum(rx * rx, axis=1) * np.sum(ry * ry, axis=1))
    out = []
    for idx in rows:  # unbalanced items or missing ratings: one resample at a time
        idx = idx[keep[idx]]
        out.append(spearmanr(x[idx], y[idx]).statistic)
    return np.asarray(out, dtype=np.float64)


# ----------------------------------------------------------------------------- two systems
@dataclass(frozen=True)
class RubricComparison(Result):
    """Two systems on the same items, per dimension (and the constraint pass rate), Holm-adjusted.  Each row's
    ``delta`` is the observed paired difference over the shared items, ``mean`` the posterior mean, and
    ``[lo, hi]`` the credible interval (it contains ``delta``)."""

    names: tuple
    rows: list
    level: float
    scope: str
    notes: tuple = ()

    def to_dict(self) -> dict:
        return _no_nan({"models": list(self.names), "level": self.level, "scope": self.scope,
                        "dimensions": self.rows, "notes": list(self.notes)})

    def to_frame(self):
        import pandas as pd

        return pd.DataFrame(self.rows)

    def summary(self) -> str:
        a, b = self.names
        head = ["dimension", f"{a} - {b}", "interval", f"P({a} > {b})", "p (sign-flip)", "p Holm", "verdict"]
        rows = [[r["dimension"], f"{r['delta']:+.3f}", f"[{r['lo']:+.3f}, {r['hi']:+.3f}]", f"{r['p_a_better']:.3f}",
                 f"{r['p_value']:.4g}", f"{r['p_holm']:.4g}", r["verdict"]] for r in self.rows]
        return (f"{a} vs {b}, {self.scope} scope, {pct(self.level)} intervals; a dimension is decided when its "
                f"Holm-adjusted sign-flip p <= {1 - self.level:.2g}\n{a} - {b}: the mean over shared items of the "
                "difference of the item's mean ratings (passes: of the shares of its ratings that pass)\n\n"
                + text_table(head, rows)
                + "".join(f"\nnote: {n}" for n in self.notes))

    def __repr__(self) -> str:
        return self.summary()


def compare_rubric(table: Any, a: str, b: str, *, item: str = "item", system: str = "system", judge: str = "judge",
                   dimensions: Any = None, scale: tuple = (1, 5), constraints: Any = None,
                   scope: str = "population", level: float = 0.95, resamples: int = 10_000,
                   seed: int | None = None, dimension: str | None = None, rating: str = "rating") -> RubricComparison:
    """System ``a`` against ``b`` on the same items: per dimension, :func:`bayeseval.compare` of their mean
    ratings (paired by item; the judges' ratings are the trials), and of the constraint pass rate when
    ``constraints`` are given; the sign-flip p-values are Holm-adjusted over the rows (Holm 1979), and a row
    names a winner only when its adjusted p is at most ``1 - level``.

    A row's ``delta`` is the observed paired difference ``(1/M) sum_i (xbar_Ai - xbar_Bi)`` over the ``M``
    items rated for both (``xbar`` an item's mean rating, or its share of passing ratings), which equals the
    difference of the two systems' :func:`rubric` values on those items; ``mean`` is the posterior mean (the
    Dirichlet-process posterior's prior pseudo-item pulls it a little), and ``[lo, hi]`` the posterior interval,
    reaching out to ``delta`` where it lies outside (:func:`bayeseval.comparison.paired.reach_value`), as
    :func:`bayeseval.classification.compare_classifiers` reports its value with the interval around it."""
    import warnings

    scope = check_choice(scope, "scope", SCOPES)
    level = V.confidence(level, "level")
    scale = _scale(scale)
    frame, dims = _frame(table, item, system, judge, dimensions, scale, dimension, rating)
    notes: list = []
    have = list(dict.fromkeys(frame[SYSTEM]))
    a, b = str(a), str(b)  # system ids are compared as text, as the table's are
    if a == b:
        raise ValueError(f"a and b must be two different systems, got {a!r} twice")
    for name in (a, b):
        if name not in have:
            raise ValueError(f"no system {name!r}; systems: {have}")
    items = sorted(set(frame[frame[SYSTEM] == a][ITEM]) & set(frame[frame[SYSTEM] == b][ITEM]))
    if len(items) < 2:
        raise ValueError(f"{a!r} and {b!r} share {len(items)} rated item(s); a paired comparison needs at least 2")
    rules = parse_constraints(constraints, dims, scale)
    jobs = [(d, d) for d in dims] + ([("passes: " + _rule_text(rules), None)] if rules else [])
    out = []
    for label, d in jobs:
        if d is not None:
            A, _ = _matrix(frame, a, d, items)
            Bm, _ = _matrix(frame, b, d, items)
            kw = {"score_range": scale}
        else:
            A, Bm = (_pass_matrix(frame, s, rules, items) for s in (a, b))
            kw = {}
        both = ~(np.isnan(A).all(axis=1) | np.isnan(Bm).all(axis=1))  # items rated for both systems
        if not both.all():
            gone = [items[i] for i in np.flatnonzero(~both)]
            notes.append(f"{label}: {len(gone)} item(s) not rated for both systems are left out: {gone[:5]}")
        if both.sum() < 2:
            raise ValueError(f"{label}: {a!r} and {b!r} share {int(both.sum())} rated item(s); a paired comparison "
                             "needs at least 2")
        A, Bm = A[both], Bm[both]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            c = compare(A, Bm, names=(a, b), scope=scope, level=level, seed=seed, resamples=resamples,
                        missing=np.nan, **kw)
        p = c.permutation.p_value if c.permutation is not None else math.nan
        value = float(np.mean(np.nanmean(A, axis=1) - np.nanmean(Bm, axis=1)))  # observed, items weighed equally
        span = scale[1] - scale[0] if d is not None else 1.0  # the difference's range: [-span, span]
        lo, hi = reach_value(c.delta.lo, c.delta.hi, value, c.draws(), level, (-span, span))
        out.append({"dimension": label, "delta": value, "mean": c.delta.mean, "lo": lo, "hi": hi,
                    "p_a_better": c.p_a_better, "p_value": p, "mid_p": c.permutation["mid_p"] if c.permutation else p})
    holm = adjust([r["p_value"] for r in out], ("holm",))["holm"]
    for r, h in zip(out, holm):
        r["p_holm"] = float(h)
        r["verdict"] = (f"{a} is better" if r["delta"] > 0 else f"{b} is better") if h <= 1 - level else "undecided"
    return RubricComparison((a, b), out, level, scope, tuple(notes))


def _pass_matrix(frame, system: str, rules: dict, items=None) -> np.ndarray:
    """items x judges: 1 where the judge's ratings meet every minimum in ``rules``, 0 where not, NaN where a
    constrained dimension is not rated."""
    sub = frame[frame[SYSTEM] == system]
    ok = np.ones(len(sub), dtype=bool)
    rated = np.ones(len(sub), dtype=bool)
    for d, t in rules.items():
        x = sub[d].to_numpy()
        rated &= ~np.isnan(x)
        ok &= np.nan_to_num(x, nan=-np.inf) >= t
    P = sub.assign(**{PASSED: np.where(rated, ok.astype(float), np.nan)}).pivot(index=ITEM, columns=JUDGE,
                                                                                 values=PASSED)
    return (P if items is None else P.reindex(items)).to_numpy(dtype=np.float64)
