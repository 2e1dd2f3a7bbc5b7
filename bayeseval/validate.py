"""Every scalar and vector input check, and its message.

Each check names the argument it inspects and says what was expected, so a
user sees ``k must be an integer >= 1, got 2.5 (float)`` instead of a
traceback from inside numpy.  Wrong *types* raise :class:`InputTypeError`,
which is both a :class:`TypeError` and a :class:`ValueError`: code written
for scorio (which raises ``ValueError`` everywhere) keeps working, and code
that distinguishes the two gets the honest answer.

Matrix inputs (outcome matrices, prior outcomes, count tables) are checked in
:mod:`bayeseval.counts`, which reuses the helpers here.
"""

from __future__ import annotations

import math
import numbers
from typing import Any

import numpy as np

__all__ = [
    "InputTypeError",
    "ArgumentError",
    "LIMITS",
    "set_limits",
    "integer",
    "real",
    "confidence",
    "tau",
    "beta_prior",
    "bounds",
    "vector",
    "unmasked",
    "weights",
    "bounded",
    "describe",
]


class InputTypeError(TypeError, ValueError):
    """An argument has the wrong type (also a ``ValueError`` for scorio compatibility)."""


class ArgumentError(ValueError):
    """A ``ValueError`` whose message names arguments through slots, so each front end names them as its users type
    them: ``str(exc)`` reads the library's names (``until``); the command line passes its own spelling of each
    (``--until``) to :meth:`spelled`.

    ``template`` is a constant :meth:`str.format` string: ``{until}`` for each argument named in ``names``, and
    ``{name}`` / ``{name!r}`` for each of ``values`` (what the user gave: a label, the words of ``until``), which
    ``format`` inserts as they are, so braces in them are never read as slots.  ``prefix`` (a file, a model) is
    put before the message as it is.

    >>> exc = ArgumentError("{until} 'decided' needs {null} (the value to decide against); got {words!r}",
    ...                     "until", "null", words="{until}")
    >>> str(exc)
    "until 'decided' needs null (the value to decide against); got '{until}'"
    >>> exc.spelled(lambda name: "--" + name)
    "--until 'decided' needs --null (the value to decide against); got '{until}'"
    """

    def __init__(self, template: str, *names: str, prefix: str = "", **values: Any):
        self.template, self.names, self.prefix, self.values = str(template), tuple(names), str(prefix), values
        super().__init__(self.spelled(lambda name: name))

    def spelled(self, spell) -> str:
        """The message with each argument slot filled by ``spell(name)``."""
        return self.prefix + self.template.format(**self.values, **{name: spell(name) for name in self.names})

    def prefixed(self, prefix: str) -> "ArgumentError":
        """The same error with ``prefix`` (where it happened: a file, a model) before its message."""
        return ArgumentError(self.template, *self.names, prefix=prefix + self.prefix, **self.values)

    def __reduce__(self):  # pickled whole (template, slots and values), not as its message: processes pass it on
        return _argument_error, (self.template, self.names, self.prefix, self.values)


def _argument_error(template: str, names: tuple, prefix: str, values: dict) -> ArgumentError:
    """:class:`ArgumentError` rebuilt from its parts (unpickling)."""
    return ArgumentError(template, *names, prefix=prefix, **values)


def slotted(exc: ValueError, name: str) -> ValueError:
    """``exc``, a message that begins with the argument ``name`` (``"rope must lie in ..."``), as an
    :class:`ArgumentError` with that name in a slot, so the command line says ``--rope``; other errors (type errors
    among them, which stay TypeErrors) unchanged.

    >>> str(slotted(ValueError("rope must be a finite number, got nan"), "rope").spelled(lambda n: "--" + n))
    '--rope must be a finite number, got nan'
    """
    text = str(exc)
    if isinstance(exc, (ArgumentError, TypeError)) or not text.startswith(name + " "):
        return exc
    return ArgumentError("{" + name + "}{rest}", name, rest=text[len(name):])


# Caps on the sizes a call may ask for, so that time and memory stay bounded by what an answer needs.
# Checked wherever an argument of that name is validated; raise one with set_limits(k=50_000).
LIMITS = {
    "k": 20_000,  # samples per question in a metric (the posterior is O(k^2): about 1 s at the cap)
    "draws": 1_000_000,  # posterior draws behind an exact / hdi interval
    "n": 1_000_000,  # posterior draws asked of Estimate.draws / to_inference_data
    "resamples": 1_000_000,  # bootstrap / permutation resamples
    "replays": 10_000,  # random orders replayed by sequential.replay (each a whole sequential run: ~0.15 s)
    "grid": 1_000_000,  # candidate means of a confidence sequence (10^7: 8 s and 1.4 GB per update)
    "magnitude": 1e15,  # |payoff entries| (category weights are rescaled, so any finite ones work)
    "digits": 15,  # decimals shown in a table (a double carries about 16 significant digits)
}


def set_limits(**caps: Any) -> dict:
    """Change the library's size caps (``k``, ``draws``, ``n``, ``resamples``, ``replays``, ``magnitude``,
    ``digits``); returns the previous values, so ``set_limits(**old)`` restores them.

    >>> old = set_limits(k=30_000)
    >>> LIMITS["k"], set_limits(**old)["k"], LIMITS["k"]
    (30000, 30000, 20000)
    """
    unknown = set(caps) - set(LIMITS)
    if unknown:
        raise ValueError(f"unknown limit(s) {sorted(unknown)}; the caps are {sorted(LIMITS)}")
    old = {k: LIMITS[k] for k in caps}
    for key, value in caps.items():
        LIMITS[key] = real(value, key, lo=1.0) if key == "magnitude" else integer(value, key, minimum=1, capped=False)
    return old


def describe(value: Any) -> str:
    """Short ``repr`` of a user value with its type, for error messages."""
    text = repr(value)
    if len(text) > 60:
        text = text[:57] + "..."
    return f"{text} ({type(value).__name__})"


def _is_bool(value: Any) -> bool:
    return isinstance(value, (bool, np.bool_))


def flag(value: Any, name: str) -> bool:
    """``value`` as a Python bool; anything but True or False (numpy's included) is refused, naming ``name``.

    >>> flag(np.True_, "shrink"), flag(False, "shrink")
    (True, False)
    """
    if not _is_bool(value):
        raise InputTypeError(f"{name} must be True or False, got {describe(value)}")
    return bool(value)


def integer(value: Any, name: str, *, minimum: int | None = None, capped: bool = True, limit: str | None = None) -> int:
    """Return ``value`` as a Python int; bools, floats and strings are refused.  Arguments named in
    :data:`LIMITS` (``k``, ``draws``, ``resamples``, ...) must also be at most their cap; ``limit`` names the cap
    of an argument called otherwise (``null_replays`` is capped as ``replays``).

    >>> integer(3, "k")
    3
    """
    if _is_bool(value) or not isinstance(value, numbers.Integral):
        what = "an integer" if minimum is None else f"an integer >= {minimum}"
        raise InputTypeError(f"{name} must be {what}, got {describe(value)}")
    result = int(value)
    if minimum is not None and result < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {result}")
    cap = LIMITS.get(limit or name) if capped else None
    if cap is not None and result > cap:
        raise ValueError(f"{name} = {result:,} is above the cap of {int(cap):,} "
                         f"(raise it with bayeseval.set_limits({limit or name}=...))")
    return result


def real(
    value: Any,
    name: str,
    *,
    lo: float | None = None,
    hi: float | None = None,
    lo_open: bool = False,
    hi_open: bool = False,
    allow_infinite: bool = False,
) -> float:
    """Return ``value`` as a finite float inside the given range."""
    if _is_bool(value) or not isinstance(value, numbers.Real):
        raise InputTypeError(f"{name} must be a real number, got {describe(value)}")
    result = float(value)
    if math.isnan(result) or (not allow_infinite and math.isinf(result)):
        raise ValueError(f"{name} must be a finite number, got {result!r}")
    if lo is not None or hi is not None:
        left = "(" if lo_open else "["
        right = ")" if hi_open or hi is None else "]"
        lo_txt = "-inf" if lo is None else f"{lo:g}"
        hi_txt = "inf" if hi is None else f"{hi:g}"
        span = f"{left}{lo_txt}, {hi_txt}{right}"
        if lo is not None and (result < lo or (lo_open and result == lo)):
            raise ValueError(f"{name} must lie in {span}, got {result!r}")
        if hi is not None and (result > hi or (hi_open and result == hi)):
            raise ValueError(f"{name} must lie in {span}, got {result!r}")
    return result


def probability(value: Any, name: str) -> float:
    """A probability strictly between 0 and 1 (an error level or a power; levels of intervals: :func:`confidence`)."""
    return real(value, name, lo=0.0, hi=1.0, lo_open=True, hi_open=True)


def confidence(value: Any, name: str = "confidence") -> float:
    """A credibility level strictly between 0 and 1, and far enough below 1 that ``0.5 + level / 2`` does not round
    to 1 in double precision (the interval's normal quantile would be infinite).

    >>> confidence(0.9999999999999998)
    0.9999999999999998
    >>> try:
    ...     confidence(0.9999999999999999)
    ... except ValueError as exc:
    ...     print(str(exc)[:44])
    confidence = 0.9999999999999999 is too close
    """
    v = real(value, name, lo=0.0, hi=1.0, lo_open=True, hi_open=True)
    if 0.5 + v / 2 >= 1.0:
        raise ValueError(f"{name} = {v!r} is too close to 1: 0.5 + {name} / 2 rounds to 1 in double precision, so its "
                         "interval would be infinite; give at most 0.9999999999999998")
    return v


def tau(value: Any, name: str = "tau") -> float:
    """A G-Pass threshold in [0, 1]."""
    return real(value, name, lo=0.0, hi=1.0)


def beta_prior(alpha0: Any, beta0: Any) -> tuple[float, float]:
    """Beta prior parameters: finite and strictly positive."""
    return (
        real(alpha0, "alpha0", lo=0.0, lo_open=True),
        real(beta0, "beta0", lo=0.0, lo_open=True),
    )


def bounds(value: Any, default: tuple[float, float] | None, name: str = "bounds"):
    """Clipping bounds ``(lo, hi)`` with ``lo <= hi``; ``None`` selects ``default``.

    Infinite ends are allowed (``(-inf, inf)`` switches clipping off); NaN and
    reversed bounds are refused (equal bounds are accepted, as in scorio).
    """
    if value is None:
        return default
    if isinstance(value, (str, bytes)) or not hasattr(value, "__len__") or len(value) != 2:
        raise InputTypeError(f"{name} must be a pair (lo, hi) or None, got {describe(value)}")
    lo = real(value[0], f"{name}[0]", allow_infinite=True)
    hi = real(value[1], f"{name}[1]", allow_infinite=True)
    if lo > hi:
        raise ValueError(f"{name} must satisfy lo <= hi, got reversed bounds ({lo!r}, {hi!r})")
    return (lo, hi)


def unmasked(value: Any, name: str) -> Any:
    """``value``, or the data of a numpy masked array with nothing masked; a masked entry is an error naming
    ``name`` (an argument that takes no missing values: reading the data under the mask would be a wrong answer).

    >>> unmasked(np.ma.masked_array([1.0, 2.0], [0, 0]), "y").tolist()
    [1.0, 2.0]
    >>> unmasked(np.ma.masked_array([1.0, 2.0], [0, 1]), "y")
    Traceback (most recent call last):
    ValueError: y: 1 of its 2 entries are masked, and it takes no missing values: leave those entries out (and the \
matching entries of the other arguments)
    """
    if not np.ma.isMaskedArray(value):
        return value
    mask = np.ma.getmaskarray(value)
    if mask.any():
        raise ValueError(f"{name}: {int(mask.sum())} of its {mask.size} entries are masked, and it takes no missing "
                         "values: leave those entries out (and the matching entries of the other arguments)")
    return np.ma.getdata(value)


def vector(value: Any, name: str, *, min_length: int = 1) -> np.ndarray:
    """A finite, real, one-dimensional array; always a fresh read-only float64 copy."""
    value = unmasked(value, name)
    if isinstance(value, (str, bytes)):
        raise InputTypeError(f"{name} must be a 1-D array of numbers, got {describe(value)}")
    try:
        array = np.array(value, copy=True)
    except (TypeError, ValueError) as exc:
        raise InputTypeError(f"{name} must be a 1-D array of numbers ({exc})") from None
    if array.dtype == object or not (
        np.issubdtype(array.dtype, np.number) or array.dtype == np.bool_
    ) or np.issubdtype(array.dtype, np.complexfloating):
        raise InputTypeError(
            f"{name} must be a 1-D array of real numbers, got dtype {array.dtype}"
        )
    if array.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional, got shape {array.shape}")
    if array.size < min_length:
        raise ValueError(f"{name} must have at least {min_length} entries, got {array.size}")
    array = array.astype(np.float64)
    bad = np.flatnonzero(~np.isfinite(array))
    if bad.size:
        raise ValueError(f"{name} must be finite; entry {int(bad[0])} is {float(array[bad[0]])!r}")
    array.setflags(write=False)
    return array


def bounded(array: np.ndarray, name: str) -> np.ndarray:
    """``array`` (finite) if every entry has magnitude at most ``LIMITS["magnitude"]``: larger payoffs or
    weights overflow a variance (their squares pass 1e308) instead of giving a number."""
    big = np.flatnonzero(np.abs(array) > LIMITS["magnitude"])
    if big.size:
        raise ValueError(f"{name} entries must have magnitude <= {LIMITS['magnitude']:g} (rescale them; "
                         f"bayeseval.set_limits(magnitude=...) raises the cap); entry {int(big[0])} is "
                         f"{float(array[big[0]])!r}")
    return array


def weights(w: Any, name: str = "w") -> np.ndarray:
    """A category weight vector ``(w_0, ..., w_C)``: finite, non-empty."""
    if (type(w) is np.ndarray and w.dtype == np.float64 and not w.flags.writeable
            and w.ndim == 1 and w.size and np.isfinite(w).all()):  # not a subclass: a masked array is checked
        return w  # a read-only finite vector cannot change under us: no copy needed
    return vector(w, name, min_length=1)
