"""The few statistical functions the tests need, with the standard library and numpy only."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Final

import numpy as np
import numpy.typing as npt

_EPSILON: Final = 1e-15
_TINY: Final = 1e-300
_MAX_STEPS: Final = 100_000


def chi_square_sf(x: float, df: float) -> float:
    """P(X >= x) for X chi-square with `df` > 0 (real) degrees of freedom: Q(df/2, x/2) (`gamma_q`)."""
    if df <= 0:
        raise ValueError(f"degrees of freedom must be positive; got {df}")
    if x <= 0:
        return 1.0
    return gamma_q(df / 2, x / 2)


def gamma_q(a: float, x: float) -> float:
    """The regularised upper incomplete gamma function Q(a, x) = Γ(a, x) / Γ(a), for a > 0, x >= 0: its power
    series below a + 1, its continued fraction (modified Lentz) above, to full double precision (Numerical
    Recipes, 3rd ed., §6.2)."""
    if x <= 0:
        return 1.0
    if x < a + 1:
        return max(0.0, 1.0 - _gamma_p_series(a, x))
    return _gamma_q_fraction(a, x)


def _log_prefactor(a: float, x: float) -> float:
    return a * math.log(x) - x - math.lgamma(a)


def _gamma_p_series(a: float, x: float) -> float:
    term = total = 1.0 / a
    denominator = a
    for _ in range(_MAX_STEPS):
        denominator += 1
        term *= x / denominator
        total += term
        if abs(term) < abs(total) * _EPSILON:
            break
    return total * math.exp(_log_prefactor(a, x))


def _gamma_q_fraction(a: float, x: float) -> float:
    b = x + 1 - a
    c = 1 / _TINY
    d = 1 / b
    h = d
    for i in range(1, _MAX_STEPS):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = _TINY if abs(d) < _TINY else d
        c = b + an / c
        c = _TINY if abs(c) < _TINY else c
        d = 1 / d
        step = d * c
        h *= step
        if abs(step - 1) < _EPSILON:
            break
    return math.exp(_log_prefactor(a, x)) * h


def binomial_log_pmf(n: int, p: float) -> npt.NDArray[np.float64]:
    """log P(K = k) for k = 0..n, K binomial(n, p) with 0 < p < 1."""
    k = np.arange(n + 1, dtype=np.float64)
    log_choose = np.concatenate([[0.0], np.cumsum(np.log((n - k[1:] + 1) / k[1:]))])
    result: npt.NDArray[np.float64] = log_choose + k * math.log(p) + (n - k) * math.log1p(-p)
    return result


def binomial_two_sided_all(n: int, p: float) -> npt.NDArray[np.float64]:
    """The exact two-sided p-value of every outcome k = 0..n of a binomial(n, p) count."""
    log_pmf = binomial_log_pmf(n, p)
    pmf = np.exp(log_pmf - log_pmf.max())
    scale = math.exp(log_pmf.max())
    order = np.argsort(pmf, kind="stable")
    ranked = pmf[order]
    cumulative = np.cumsum(ranked)
    # p-value of k: the total of every outcome with a probability no higher than k's (relative tolerance
    # 1e-7, as binom.test, so outcomes tied in exact arithmetic count whatever the rounding)
    upto = np.searchsorted(ranked, pmf * (1 + 1e-7), side="right") - 1
    values: npt.NDArray[np.float64] = np.minimum(1.0, cumulative[upto] * scale)
    return values


def binomial_two_sided(k: int, n: int, p: float) -> float:
    """The exact two-sided p-value of `k` successes in `n` trials of probability `p`: the sum of the
    probabilities of every outcome no more likely than `k` (the rule of R's ``binom.test``)."""
    if not 0 <= k <= n:
        raise ValueError(f"need 0 <= k <= n; got k={k}, n={n}")
    return float(binomial_two_sided_all(n, p)[k])


def weighted_chi_square_sf(x: float, weights: Sequence[float] | npt.NDArray[np.float64]) -> tuple[float, float, float]:
    """P(Σ λ_j Z_j² >= x) (Z_j independent standard normal) by a scaled chi-square with the same mean
    and variance: ``X / scale`` is chi-square with ``df`` degrees of freedom (Satterthwaite; the second-order
    correction of Rao & Scott, 1981, for chi-square tests on clustered counts). Returns (p, scale, df)."""
    lam = np.asarray([w for w in weights if w > 1e-9], dtype=np.float64)
    if lam.size == 0:
        return 1.0, 1.0, 0.0
    scale = float((lam**2).sum() / lam.sum())
    df = float(lam.sum() ** 2 / (lam**2).sum())
    return chi_square_sf(x / scale, df), scale, df
