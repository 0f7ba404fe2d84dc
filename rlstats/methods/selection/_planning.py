"""Planning helpers of the selection check and the paper's simulations (Komiyama and Maehara, 2018).

:func:`detection_probability` and :func:`required_heldout` plan how many held-out
tasks an inspector needs; :func:`conservative_pvalue` and :func:`top_mean_null`
give the reporter's conservative test; :func:`simulate` reproduces the paper's
simulations and doubles as a test oracle.
"""

from __future__ import annotations

import numbers
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
import pandas as pd

from ... import format as fmt
from ...errors import OptionError, shown
from ...options import MAX_RESAMPLES, check_at_most, check_choice, check_fraction, check_int, check_resamples
from ...resampling import seed_sequence
from . import _kernels as kernels

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

    from ..._typing import Seed

CONSERVATIVE_RESAMPLES = kernels.CONSERVATIVE_RESAMPLES
#: The most candidate or held-out tasks these helpers take (power()'s bound on tasks): the conservative null draws
#: n_resamples x n_candidates normals, a simulation n_candidates + n_heldout a trial; benchmarks have tens.
MAX_TASKS = 10_000
#: The most fresh tasks :func:`required_heldout` tries (it evaluates every count up to max_heldout).
MAX_HELDOUT = 10_000_000


def check_tasks(name: str, value: object, *, minimum: int = 1) -> int:
    """A number of tasks: whole, at least ``minimum``, at most :data:`MAX_TASKS` (checked before any draw)."""
    return check_at_most(name, check_int(name, value, minimum=minimum), MAX_TASKS, "tasks",
                         "benchmarks have tens of tasks; pass a smaller count")


def _task_counts(name, value):
    """``n_reported`` or ``n_heldout`` of the vectorised :func:`detection_probability`: whole numbers >= 1."""
    array = np.asarray(value) if not isinstance(value, (bool, np.bool_)) else np.asarray(None)
    if array.dtype.kind not in "iuf" or array.size == 0 or not np.all(np.isfinite(array)) \
            or not np.all(array == np.floor(array)):
        raise OptionError(f"{name} must be whole numbers of tasks (a count or an array of them), got {shown(value)}")
    if np.any(array < 1):
        raise OptionError(f"{name} must be at least 1, got {shown(value)}")
    return array


def _means(value):
    """``mean_reported``: finite numbers (a missing or infinite reported mean has no p-value or detection)."""
    array = np.asarray(value) if not isinstance(value, (bool, np.bool_)) else np.asarray(None)
    if array.dtype.kind not in "iuf" or not np.all(np.isfinite(array)):
        raise OptionError(f"mean_reported must be a finite number (or an array of them), the reported mean effect "
                          f"over the sd of the effects; got {shown(value)}")
    return array.astype(float)


def detection_probability(mean_reported: ArrayLike, n_reported: ArrayLike, n_heldout: ArrayLike, *,
                          beta: float = 0.05, mu0: float = 0.0) -> float | np.ndarray:
    """Probability that the z inspector flags a report, given its mean and the number of fresh tasks.

    ``Phi(sqrt(N_I) (mean_reported - mu0 - z_beta sqrt(1/N_P + 1/N_I)))``, with
    every mean in units of the sd of the per-task effects: the fresh tasks'
    mean is ``N(mu0, 1/N_I)`` and the inspector flags when the reported mean
    exceeds it by ``z_beta sqrt(1/N_P + 1/N_I)``.

    Parameters
    ----------
    mean_reported : float
        The reported mean effect over the sd of the effects.
    n_reported, n_heldout : int or array_like of int
        N_P and N_I (vectorised).
    beta : float
        The inspector's level.
    mu0 : float
        Hypothesised true mean effect (0: no real improvement).

    Returns
    -------
    float or ndarray

    References
    ----------
    Komiyama and Maehara (2018), section 5.2 and Theorem 5; the exact form
    replaces the theorem's sufficient condition (whose proof has a sign slip
    and a missing ``1/sqrt(N_P)``).

    Examples
    --------
    >>> import rlstats
    >>> p5, p20 = rlstats.selection.detection_probability(1.2497, 5, [5, 20])
    >>> round(float(p5), 3), round(float(p20), 3)
    (0.68, 0.972)
    """
    beta = check_fraction("beta", beta)
    result = kernels.detection_probability(_means(mean_reported), _task_counts("n_reported", n_reported),
                                           _task_counts("n_heldout", n_heldout), beta, mu0)
    return float(result) if np.ndim(result) == 0 else result


def required_heldout(mean_reported: float, n_reported: int, *, beta: float = 0.05, power: float = 0.95,
                     mu0: float = 0.0, max_heldout: int = 1_000_000) -> int | None:
    """Fewest fresh tasks with which the z inspector flags the report with probability ``power``.

    Same units as :func:`detection_probability`.  Returns None when no N_I up
    to ``max_heldout`` suffices: a reported mean below ``z_beta / sqrt(N_P)``
    cannot be flagged however many tasks are drawn.

    Examples
    --------
    >>> import rlstats
    >>> rlstats.selection.required_heldout(1.2497, 5, power=0.95)
    17
    """
    beta = check_fraction("beta", beta)
    power = check_fraction("power", power)
    n_reported = check_tasks("n_reported", n_reported)
    max_heldout = check_at_most("max_heldout", check_int("max_heldout", max_heldout, minimum=1), MAX_HELDOUT,
                                "fresh tasks", "no benchmark has more; pass a smaller max_heldout")
    return kernels.required_heldout(float(_means(mean_reported)), n_reported, beta, power, mu0, max_heldout)


def conservative_pvalue(mean_reported: ArrayLike, n_reported: int, n_candidates: int, *,
                        n_resamples: int = CONSERVATIVE_RESAMPLES,
                        rng: Seed = None) -> tuple[float, float] | tuple[np.ndarray, np.ndarray]:
    """Conservative p-value: how often the best ``n_reported`` of ``n_candidates`` null tasks do as well.

    ``P[mean of the top N_P of N_A i.i.d. N(0, 1) >= mean_reported]``, with
    ``mean_reported`` in units of the sd of the per-task effects, estimated
    from ``n_resamples`` draws as ``(1 + hits) / (n_resamples + 1)``.

    Returns
    -------
    pvalue, mc_se : float or ndarray
        Vectorised over ``mean_reported``.

    References
    ----------
    Komiyama and Maehara (2018), section 4, eq. 4.3 (corrected: the survival
    function of the top-N_P mean, as the text says, not ``P[mu >= mu_top]``).

    Examples
    --------
    >>> import rlstats
    >>> p, se = rlstats.selection.conservative_pvalue(1.2, 10, 30, rng=0)
    >>> abs(p - 0.278) < 4 * se
    True
    """
    means = _means(mean_reported)
    n_reported = check_tasks("n_reported", n_reported)
    n_candidates = check_tasks("n_candidates", n_candidates, minimum=n_reported)
    ss, _ = seed_sequence(rng)
    null = kernels.top_mean_null(n_reported, n_candidates, check_resamples(n_resamples, minimum=1), ss)
    p, se = kernels.conservative_pvalue(null, means)
    return (float(p), float(se)) if np.ndim(p) == 0 else (p, se)


def top_mean_null(n_reported: int, n_candidates: int, *, n_resamples: int = CONSERVATIVE_RESAMPLES,
                  rng: Seed = None) -> np.ndarray:
    """Sorted draws of the mean of the best ``n_reported`` of ``n_candidates`` i.i.d. N(0, 1) (read-only array).

    The null distribution of :func:`conservative_pvalue`; its 1 - alpha
    quantile is the conservative critical value (1.455 for (10, 30) at 0.05).

    Examples
    --------
    >>> import rlstats
    >>> round(float(rlstats.selection.top_mean_null(10, 30, rng=0).mean()), 2)
    1.06
    """
    n_reported = check_tasks("n_reported", n_reported)
    n_candidates = check_tasks("n_candidates", n_candidates, minimum=n_reported)
    ss, _ = seed_sequence(rng)
    return kernels.top_mean_null(n_reported, n_candidates, check_resamples(n_resamples, minimum=1), ss)


@dataclass(frozen=True)
class SelectionSimulation:
    """Rates of a simulated setting (:func:`simulate`); every rate has its Monte Carlo standard error.

    Attributes
    ----------
    claim_rate : float
        P(naive reporter p-value <= alpha).
    claim_rate_gap : float
        P(gap p-value <= alpha) (equal to ``claim_rate`` when ``mu_gap = 0``).
    claim_rate_conservative : float or None
        P(conservative p-value <= alpha); known variance only.
    detection_rate : float
        P(inspector p-value <= beta).
    detection_rate_given_claim : float
        P(inspector flags | gap claim): the paper's "> 0.9" of Fig. 2(b).
    undetected_claim_rate : float
        P(gap claim and no detection): false claims that survive.
    mean_reported : float
        Average reported mean effect (units of the effects' sd).
    n_trials, n_claims : int
    setting : dict
        The inputs; ``seed`` how the stream was seeded.
    """

    claim_rate: float
    claim_rate_gap: float
    claim_rate_conservative: float | None
    detection_rate: float
    detection_rate_given_claim: float
    undetected_claim_rate: float
    mean_reported: float
    n_trials: int
    n_claims: int
    setting: dict[str, Any]
    seed: object

    def standard_error(self, name: str) -> float | None:
        """Monte Carlo standard error of one of the rates."""
        rate = getattr(self, name)
        if rate is None:
            return None
        n = self.n_claims if name == "detection_rate_given_claim" else self.n_trials
        return float(np.sqrt(rate * (1 - rate) / n)) if n else np.nan

    def to_frame(self) -> pd.DataFrame:
        """The rates as a DataFrame: quantity, estimate, std_error."""
        names = ["claim_rate", "claim_rate_gap", "claim_rate_conservative", "detection_rate",
                 "detection_rate_given_claim", "undetected_claim_rate"]
        return pd.DataFrame({"quantity": names, "estimate": [getattr(self, n) for n in names],
                             "std_error": [self.standard_error(n) for n in names]})

    def __str__(self):
        text = fmt.table_text(self.to_frame(), 4)
        setting = ", ".join(f"{k} = {v}" for k, v in self.setting.items())
        return f"Selection-check simulation ({self.n_trials} trials): {setting}\n{text}\n"

    __repr__ = __str__


_SIMULATION_HELDOUT = ("fresh", "complement", "resample")


def simulate(n_candidates: int, n_reported: int, n_heldout: int | None = None, *, mu: float = 0.0,
             mu_gap: float = 0.0, reporter: Literal["top", "random"] = "top",
             variance: Literal["known", "unknown"] = "known",
             heldout: Literal["fresh", "complement", "resample"] = "fresh",
             inspector: Literal["z", "t", "welch", "fisher_pitman"] | None = None, alpha: float = 0.05,
             beta: float = 0.05, n_trials: int = 10_000, n_resamples: int = 999,
             rng: Seed = None) -> SelectionSimulation:
    """Simulate the paper's synthetic experiments: how often a reporter claims and an inspector detects.

    Each trial draws ``n_candidates`` per-task effects i.i.d. N(mu, 1); the
    reporter shows the best ``n_reported`` (``reporter="top"``, the paper's
    Scenario 2, cherry-picking) or the first ones (``"random"``, Scenario 1,
    honest) and tests them (z with known variance, t with the centred
    variance otherwise, against 0 and against ``mu_gap``); the inspector
    compares them with held-out effects.  Vectorised over trials.

    Parameters
    ----------
    n_candidates, n_reported : int
        N_A and N_P.
    n_heldout : int, optional
        N_I; default N_P for fresh or resampled held-out tasks (the paper's
        choice), N_A - N_P (all the others) for the complement.
    mu : float
        True mean effect, in units of the sd of the effects.
    mu_gap : float
        Minimum improvement of the gap test (>= 0).
    reporter : {"top", "random"}
    variance : {"known", "unknown"}
        z tests with sd 1 (and the conservative p-value), or t tests.
    heldout : {"fresh", "complement", "resample"}
        New draws (footnote 4), the candidates not reported, or N_I drawn
        uniformly from all candidates, reported ones included (section 7.2).
    inspector : {"z", "t", "welch", "fisher_pitman"}, optional
        Default z with known variance, pooled t otherwise.
    alpha, beta : float
    n_trials : int
    n_resamples : int
        Random subsets per trial of the fisher_pitman inspector (exact
        enumeration when there are no more subsets than this).
    rng : None, int or numpy.random.Generator

    Returns
    -------
    SelectionSimulation

    References
    ----------
    Komiyama and Maehara (2018), Theorem 1, Fig. 2 and section 7.2; the
    re-simulated targets are in the spec's section 5.2 (the paper's figure
    values are not printed, so they were re-simulated, not quoted).

    Examples
    --------
    >>> import rlstats
    >>> sim = rlstats.selection.simulate(15, 5, n_trials=20_000, rng=0)   # Fig. 2(a), N_P = 5
    >>> abs(sim.claim_rate - 0.813) < 0.01
    True
    """
    n_candidates = check_tasks("n_candidates", n_candidates)
    n_reported = check_tasks("n_reported", n_reported)
    if n_reported > n_candidates:
        raise OptionError(f"n_reported={n_reported} exceeds n_candidates={n_candidates}")
    heldout = check_choice("heldout", heldout, _SIMULATION_HELDOUT)
    variance = check_choice("variance", variance, ("known", "unknown"))
    if heldout == "complement":
        rest = n_candidates - n_reported
        if n_heldout is not None and n_heldout != rest:
            raise OptionError(f"with heldout=\"complement\" the held-out tasks are the {rest} candidates not "
                              f"reported; drop n_heldout (got {n_heldout})")
        n_heldout = rest
    n_heldout = n_reported if n_heldout is None else n_heldout
    n_heldout = check_tasks("n_heldout", n_heldout)
    if heldout == "resample" and n_heldout > n_candidates:
        raise OptionError(f"n_heldout={n_heldout} exceeds the {n_candidates} candidates it is drawn from")
    inspector = ("z" if variance == "known" else "t") if inspector is None else inspector
    inspector = check_choice("inspector", inspector, kernels.INSPECTORS, renamed=kernels.RENAMED_INSPECTORS)
    if inspector == "welch" and min(n_reported, n_heldout) < 2:
        raise OptionError("inspector=\"welch\" needs at least 2 reported and 2 held-out tasks")
    if inspector == "t" and n_reported + n_heldout < 3:
        raise OptionError("inspector=\"t\" needs at least 3 tasks in all")
    if variance == "unknown" and n_reported < 2:
        raise OptionError("variance=\"unknown\" (t tests) needs n_reported >= 2")
    for name, value in (("mu", mu), ("mu_gap", mu_gap)):
        if isinstance(value, bool) or not isinstance(value, numbers.Real) or not np.isfinite(value):
            raise OptionError(f"{name} must be a finite number, got {shown(value)}")
    if mu_gap < 0:
        raise OptionError(f"mu_gap must be >= 0, got {mu_gap}")
    setting = kernels.SimulationSetting(
        n_candidates=n_candidates, n_reported=n_reported, n_heldout=n_heldout, mu=float(mu), mu_gap=float(mu_gap),
        reporter=check_choice("reporter", reporter, ("top", "random")), variance=variance, heldout=heldout,
        inspector=inspector, alpha=check_fraction("alpha", alpha), beta=check_fraction("beta", beta),
        n_resamples=check_resamples(n_resamples, minimum=1))
    n_trials = check_at_most("n_trials", check_int("n_trials", n_trials, minimum=1), MAX_RESAMPLES, "trials",
                             "10,000 to 100,000 give rates to within a percent")
    ss, seed = seed_sequence(rng)
    counts = kernels.simulate_counts(setting, n_trials, ss)
    counts = {name: float(value) for name, value in counts.items()}
    n_claims = int(counts["claim_gap"])
    return SelectionSimulation(
        claim_rate=counts["claim_naive"] / n_trials, claim_rate_gap=counts["claim_gap"] / n_trials,
        claim_rate_conservative=None if variance == "unknown" else counts["claim_conservative"] / n_trials,
        detection_rate=counts["detect"] / n_trials,
        detection_rate_given_claim=counts["claim_and_detect"] / n_claims if n_claims else np.nan,
        undetected_claim_rate=(counts["claim_gap"] - counts["claim_and_detect"]) / n_trials,
        mean_reported=counts["sum_mean_reported"] / n_trials, n_trials=n_trials, n_claims=n_claims,
        setting=asdict(setting), seed=seed)
