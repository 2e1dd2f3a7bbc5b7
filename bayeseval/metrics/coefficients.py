r"""Bernstein coefficient vectors ``c[0..k]`` of the named metrics (DESIGN.md §2).

=====================  =====================================================
metric                 ``c[j]``, ``j = 0..k``
=====================  =====================================================
pass@k                 0 for ``j = 0``, else 1
pass^k / G-Pass@k      1 only at ``j = k``
G-Pass@k_tau           1 where ``j >= max(1, ceil(tau k))``
maj@k, cons@k          1 where ``j >= floor(k/2) + 1``
mG-Pass@k              ``(2/k)(j - m)`` for ``j > m = ceil(k/2)``, else 0
avg (pass@1 lifted)    ``j / k``
spectrum S_w,k         ``A_j = w_1 + ... + w_j``
AUC@k                  trapezoid mix of pass@i, each lifted to degree k:
                       ``1 - C(k-j, i) / C(k, i)``
=====================  =====================================================

References: Chen et al. 2021 (pass@k), Yao et al. 2024 (pass^k), Liu et al.
2024 arXiv:2412.13147 (G-Pass, mG-Pass), Hu et al. 2026 arXiv:2601.08763
(AUC@k), Hariri et al. arXiv:2510.04265 (GeoSpectrum, threshold spectra).

>>> pass_at_k(3).tolist(), maj_at_k(4).tolist()
([0.0, 1.0, 1.0, 1.0], [0.0, 0.0, 0.0, 1.0, 1.0])
>>> tau_threshold(0.3, 10), tau_threshold(0.0, 10)
(3, 1)
"""

from __future__ import annotations

import functools
import math

import numpy as np

from .. import validate as V
from .engine import Bernstein, log_factorial

__all__ = [
    "tau_threshold",
    "pass_at_k",
    "pass_hat_k",
    "threshold",
    "g_pass_tau",
    "maj_at_k",
    "mg_pass_at_k",
    "avg_at_k",
    "spectrum",
    "mg_spectrum_weights",
    "auc_at_k",
    "named",
]


def _ro(c: np.ndarray) -> np.ndarray:
    c.setflags(write=False)
    return c


def tau_threshold(tau: float, k: int) -> int:
    """``max(1, ceil(tau * k))`` computed on the representable grid ``j / k``.

    ``tau * k`` rounds (0.3 * 10 = 3.0000000000000004); comparing ``tau`` with
    the float ``j / k`` instead makes ``tau = j/k`` require exactly ``j``.
    """
    j = math.floor(tau * k)
    if tau > j / k:
        j += 1
    return max(1, min(k, j))


@functools.lru_cache(maxsize=512)
def threshold(k: int, j0: int) -> np.ndarray:
    """1 where at least ``j0`` of ``k`` are correct (cached, read-only)."""
    c = np.zeros(k + 1)
    c[j0:] = 1.0
    return _ro(c)


def pass_at_k(k: int) -> np.ndarray:
    return threshold(k, 1)


def pass_hat_k(k: int) -> np.ndarray:
    return threshold(k, k)


def g_pass_tau(k: int, tau: float) -> np.ndarray:
    return threshold(k, tau_threshold(tau, k))


def maj_at_k(k: int) -> np.ndarray:
    """Strict majority: more than ``k/2`` correct (AISBench cons@k when n = k)."""
    return threshold(k, k // 2 + 1)


@functools.lru_cache(maxsize=128)
def mg_pass_at_k(k: int) -> np.ndarray:
    m = (k + 1) // 2
    return _ro((2.0 / k) * np.maximum(np.arange(k + 1) - m, 0.0))


@functools.lru_cache(maxsize=128)
def avg_at_k(k: int) -> np.ndarray:
    """``j / k``: the Bernstein form of ``g(p) = p`` at degree ``k``."""
    return _ro(np.arange(k + 1) / k)


@functools.lru_cache(maxsize=128)
def mg_spectrum_weights(k: int) -> np.ndarray:
    """Upper-half weights ``w_r = (2/k) 1{r >= ceil(k/2) + 1}`` of GeoSpectrum*@k."""
    w = np.zeros(k)
    w[(k + 1) // 2 :] = 2.0 / k
    return _ro(w)


def spectrum(weights, k: int, name: str = "weights") -> np.ndarray:
    """Event-score coefficients ``A_j = sum_{r <= j} w_r`` of a threshold spectrum."""
    if weights is None:
        return _uniform_spectrum(k)
    if isinstance(weights, np.ndarray) and weights is mg_spectrum_weights(k):
        return _mg_spectrum(k)
    w = V.bounded(V.vector(weights, name), name)
    if w.size != k:
        raise ValueError(f"{name} must have exactly k={k} entries (w_1..w_k), got {w.size}")
    if (w < 0).any():
        raise ValueError(f"{name} must be non-negative; entry {int(np.flatnonzero(w < 0)[0])} is negative")
    total = math.fsum(w.tolist())
    if total > 1.0 + 1e-12:
        raise ValueError(f"{name} must sum to at most 1, got {total!r}")
    return _ro(np.concatenate([[0.0], np.cumsum(w)]))


@functools.lru_cache(maxsize=128)
def _uniform_spectrum(k: int) -> np.ndarray:
    """Spectrum payoffs of the uniform weights ``w_r = 1/k``: ``A_j = j/k``."""
    return spectrum(np.full(k, 1.0 / k), k)


@functools.lru_cache(maxsize=128)
def _mg_spectrum(k: int) -> np.ndarray:
    w = np.zeros(k)
    w[(k + 1) // 2 :] = 2.0 / k
    return spectrum(w, k)


@functools.lru_cache(maxsize=64)
def _auc(k: int) -> np.ndarray:
    if k == 1:
        return _ro(np.array([0.0, 1.0]))
    trap = np.full(k, 1.0 / (k - 1))
    trap[[0, -1]] = 0.5 / (k - 1)
    G = log_factorial(k)
    j = np.arange(k + 1)
    c = np.zeros(k + 1)
    step = max(1, 2_000_000 // (k + 1))
    for start in range(1, k + 1, step):
        i = np.arange(start, min(k + 1, start + step))[:, None]
        # C(k-j, i) / C(k, i): probability that i draws from k all miss j successes
        ok = (k - j)[None, :] >= i
        kj = np.maximum(k - j[None, :] - i, 0)
        log_ratio = G[k - j][None, :] - G[kj] - G[k] + G[k - i]
        miss = np.where(ok, np.exp(np.where(ok, log_ratio, 0.0)), 0.0)
        c += trap[i[:, 0] - 1] @ (1.0 - miss)
    c[0], c[k] = 0.0, 1.0  # exact: no success never passes, k successes always do
    return _ro(np.clip(c, 0.0, 1.0))


def auc_at_k(k: int) -> np.ndarray:
    """Trapezoidal AUC of the pass@i curve, i = 1..k, as one degree-k metric."""
    return _auc(k)


def named(metric: str, k: int, *, tau: float | None = None) -> Bernstein:
    """A named Bernstein metric (``"pass@k"``, ``"pass^k"``, ``"maj@k"``, ...)."""
    table = {
        "pass@k": pass_at_k,
        "pass^k": pass_hat_k,
        "maj@k": maj_at_k,
        "mg-pass@k": mg_pass_at_k,
        "auc@k": auc_at_k,
        "avg": avg_at_k,
    }
    if metric == "g-pass@k":
        return Bernstein(pass_hat_k(k) if tau is None else g_pass_tau(k, tau), name=metric)
    if metric not in table:
        raise ValueError(f"unknown metric {metric!r}; expected one of {sorted(table) + ['g-pass@k']}")
    return Bernstein(table[metric](k), name=metric.replace("@k", f"@{k}").replace("^k", f"^{k}"))
