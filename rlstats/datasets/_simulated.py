"""Simulated benchmark-like data: :func:`simulate` (final scores) and :func:`simulate_curves` (learning curves).

The score model itself (task locations, standardised noise families) is :mod:`rlstats.simulation`, shared with
power studies; this module checks the options and lays the draws out as a long frame.
"""

from __future__ import annotations

import collections
import math
import numbers
from collections.abc import Sequence

import numpy as np
import pandas as pd

from ..errors import OptionError, shown
from ..options import check_at_most, check_choice, check_fraction, check_int, is_finite_number, keywords_checked
from ..resampling import seed_sequence
from ..simulation import noise, task_locations
from .._typing import Seed

#: Score families, each drawn standardised to mean 0 and variance 1.
FAMILIES = ("normal", "lognormal", "t", "beta", "mixture")
#: Families given to tasks in turn by ``distribution="mixed"``.
MIXED_CYCLE = ("lognormal", "t", "mixture", "beta", "normal")

#: The most scores simulate() and simulate_curves() draw, one row each (10**7 rows are about 300 MB).
MAX_VALUES = 10**7


def _check_size(function, sizes):
    """Refuse, before drawing anything, a simulation of more than :data:`MAX_VALUES` scores."""
    total = math.prod(sizes.values())
    if total > MAX_VALUES:
        shown = " x ".join(f"{n:,} {name}" for name, n in sizes.items())
        raise OptionError(f"{function}() would draw {shown} = {total:,} scores, more than the {MAX_VALUES:,} "
                          "allowed (one row each); ask for fewer")


def _count(value, what):
    """How many ``agents``/``tasks`` a count or a sequence of names gives, read before any name is made or listed
    (audit s37 bounds37: ``agents=range(10**8)`` was listed whole, a MemoryError, and ``agents=10**7, tasks=10**7``
    named 2 x 10**7 levels before the size was checked)."""
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        return check_at_most(what, check_int(what, value, minimum=1), MAX_VALUES, what,
                             "each takes a row at the least; simulate fewer")
    if isinstance(value, str) or not isinstance(value, Sequence):
        raise OptionError(
            f"{what} must be a count or a sequence of names, got {shown(value)}; "
            f"write e.g. {what}=3 or {what}=['a', 'b', 'c']"
        )
    if len(value) > MAX_VALUES:
        raise OptionError(f"{what}= lists {len(value):,} names, more than the {MAX_VALUES:,} {what} rlstats takes "
                          "(each takes a row at the least); simulate fewer")
    return len(value)


def _names(value, what, prefix, pad):
    """Names for ``agents``/``tasks``: generated from a count, or checked if given (counted first, :func:`_count`).

    Generated numbers are zero-padded to at least two digits when ``pad``.
    """
    n = _count(value, what)
    if isinstance(value, numbers.Integral):
        width = max(2, len(str(n))) if pad else 1
        return tuple(f"{prefix}{i:0{width}d}" for i in range(1, n + 1))
    names = tuple(value)
    if not names:
        raise OptionError(f"{what} must name at least one {what[:-1]}, got an empty sequence")
    bad = [n for n in names if not isinstance(n, str) or not n]
    if bad:
        raise OptionError(f"{what} names must be non-empty strings, got {shown(bad[0])}")
    repeats = collections.Counter(names)  # one pass: names.count() per name was quadratic in the names
    dupes = sorted(name for name, times in repeats.items() if times > 1)
    if dupes:
        raise OptionError(f"{what} names must be unique; repeated: {', '.join(dupes[:10])}"
                          + (f" and {len(dupes) - 10:,} more" if len(dupes) > 10 else ""))
    return names


def _shifts(effect, n_agents):
    """One location shift per agent, in within-cell standard deviations."""
    if isinstance(effect, numbers.Real) and not isinstance(effect, bool):
        if not np.isfinite(effect):
            raise OptionError(f"effect must be finite, got {effect!r}")
        return np.linspace(0.0, float(effect), n_agents)
    if isinstance(effect, str) or not isinstance(effect, Sequence | np.ndarray):
        raise OptionError(f"effect must be a number or one number per agent, got {shown(effect)}")
    if not isinstance(effect, np.ndarray) and len(effect) != n_agents:  # counted before converting: range(10**8)
        raise OptionError(f"effect gives {len(effect):,} shifts for {n_agents:,} agents; give one per agent "
                          "or a single number")
    try:
        shifts = np.asarray(effect, dtype=float)
    except (TypeError, ValueError):
        raise OptionError(f"effect must hold numbers, got {shown(effect)}") from None
    if shifts.shape != (n_agents,):
        raise OptionError(
            f"effect gives {shifts.size} shifts for {n_agents} agents; give one per agent "
            "or a single number"
        )
    if not np.all(np.isfinite(shifts)):
        raise OptionError(f"effect must be finite, got {shown(effect)}")
    return shifts


def _heterogeneity(value):
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not np.isfinite(value):
        raise OptionError(f"heterogeneity must be a finite number >= 0, got {shown(value)}")
    if value < 0:
        raise OptionError(f"heterogeneity must be >= 0, got {value}")
    return float(value)


def _task_families(distribution, n_tasks):
    if distribution == "mixed":
        return tuple(MIXED_CYCLE[i % len(MIXED_CYCLE)] for i in range(n_tasks))
    return (distribution,) * n_tasks


def _missing_cells(gen, missing, n_agents, n_tasks):
    """Boolean (agents, tasks) mask of removed cells, keeping >= 2 agents per task."""
    removed = np.zeros((n_agents, n_tasks), dtype=bool)
    n_remove = int(round(missing * n_agents * n_tasks))
    if n_remove == 0:
        return removed
    most = n_tasks * max(n_agents - 2, 0)
    if n_remove > most:
        raise OptionError(
            f"missing={missing} asks to remove {n_remove} of {n_agents * n_tasks} agent x task "
            f"cells, but at most {most} can go while every task keeps 2 agents; "
            "lower missing or add agents"
        )
    left = np.full(n_tasks, n_agents)
    for cell in gen.permutation(n_agents * n_tasks):
        a, t = divmod(int(cell), n_tasks)
        if left[t] > 2:
            removed[a, t] = True
            left[t] -= 1
            n_remove -= 1
            if n_remove == 0:
                break
    return removed


def _long_frame(scores, removed, agent_names, task_names):
    """Long frame in agent, task, seed order, without the removed cells."""
    n_agents, n_tasks, n_seeds = scores.shape
    a, t, s = np.meshgrid(
        np.arange(n_agents), np.arange(n_tasks), np.arange(n_seeds), indexing="ij"
    )
    keep = ~np.repeat(removed[:, :, None], n_seeds, axis=2)
    agent = pd.Categorical.from_codes(a[keep], categories=agent_names, ordered=True)
    task = pd.Categorical.from_codes(t[keep], categories=task_names, ordered=True)
    return pd.DataFrame(
        {"agent": agent, "task": task, "seed": s[keep].astype(np.int64), "score": scores[keep]}
    )


@keywords_checked  # a keyword it does not take: an OptionError naming it, not Python's TypeError (audit s23)
def simulate(agents: int | Sequence[str] = 4, tasks: int | Sequence[str] = 10, seeds: int = 5,
             effect: float | Sequence[float] = 0.0, *, distribution: str = "mixed", heterogeneity: float = 1.0,
             missing: float = 0.0, rng: Seed = None) -> pd.DataFrame:
    """Draw benchmark-like scores: agents x tasks x runs, in long form.

    Every run of agent ``a`` on task ``t`` scores::

        score = offset[t] + scale[t] * (effect[a] + Z)

    where ``Z`` has mean 0 and variance 1 and follows the task's score
    distribution.  ``scale[t]`` is therefore the within-cell standard
    deviation of task ``t`` and **the effect is measured in within-cell
    standard deviations**: a shift of 1 moves every run of the agent by one
    standard deviation of its task's noise.  The effect is a pure location
    shift, so with ``effect=0`` all agents on a task share one distribution
    and the null hypothesis of rank tests holds exactly.

    Parameters
    ----------
    agents, tasks : int or sequence of str
        A count (names ``"agent_1", "agent_2", ...`` and ``"task_01",
        "task_02", ...`` are generated) or the names themselves, in order.
    seeds : int
        Runs per agent and task, numbered ``0 .. seeds - 1``.
    effect : float or sequence of float
        A number spreads the agents' shifts evenly from 0 (first agent) to
        ``effect`` (last agent); a sequence gives one shift per agent.  In
        units of the within-cell standard deviation (see above).
    distribution : {"mixed", "normal", "lognormal", "t", "beta", "mixture"}
        Distribution of ``Z``, standardised to mean 0 and variance 1:
        ``"lognormal"`` is ``exp(0.5 N)`` (right-skewed, skewness 1.75);
        ``"t"`` is Student's t with 5 degrees of freedom (heavy tails,
        excess kurtosis 6); ``"beta"`` is Beta(5, 2) (bounded,
        left-skewed); ``"mixture"`` is bimodal, a "failed" normal mode of
        weight 0.3 and a "solved" one of weight 0.7, 5 mode-widths apart.
        ``"mixed"`` gives the tasks, in order, lognormal, t, mixture, beta,
        normal, then again from the start, so with 3 tasks or more skewed,
        heavy-tailed and bimodal tasks all appear.
    heterogeneity : float, >= 0
        How different the tasks are.  ``scale[t] = 10 ** (heterogeneity *
        u)`` and ``offset[t] = 10 * heterogeneity * scale[t] * v`` with
        ``u ~ Uniform(-1, 1)`` and ``v ~ Uniform(0, 1)`` drawn per task; 0
        makes every task's offset 0 and scale 1, 1 spreads scales over two
        orders of magnitude.
    missing : float in [0, 1)
        Fraction of agent x task cells (all runs of an agent on a task)
        removed at random, rounded to a whole number of cells.  Cells are
        visited in random order and one is skipped when removing it would
        leave its task with fewer than 2 agents; asking for more than can go
        is an error.
    rng : None, int or numpy.random.Generator
        Source of randomness.  The task parameters, the noise and the
        missing cells use separate streams spawned from it, so changing
        ``effect`` or ``missing`` leaves the noise draws unchanged (common
        random numbers across scenarios).

    Returns
    -------
    pandas.DataFrame
        Columns ``agent`` and ``task`` (ordered Categoricals in the given
        order), ``seed`` (int64) and ``score`` (float64), one row per run,
        sorted by agent, task and seed.  ``df.attrs["simulate"]`` records
        the truth: each task's ``distribution``, ``offset`` and ``scale``
        and each agent's ``effect``.

    Raises
    ------
    OptionError
        For a bad count, name, effect, distribution, heterogeneity or
        missing fraction.

    See Also
    --------
    rlstats.datasets.simulate_curves : Learning curves instead of final scores.
    rlstats.power : Power by simulation from this model.

    Examples
    --------
    >>> from rlstats.datasets import simulate
    >>> df = simulate(agents=3, tasks=4, seeds=5, effect=1.0, rng=0)
    >>> df.shape
    (60, 4)
    >>> df.columns.tolist()
    ['agent', 'task', 'seed', 'score']
    >>> df["agent"].cat.categories.tolist()
    ['agent_1', 'agent_2', 'agent_3']
    >>> df.attrs["simulate"]["distribution"]
    {'task_01': 'lognormal', 'task_02': 't', 'task_03': 'mixture', 'task_04': 'beta'}
    >>> sparse = simulate(agents=4, tasks=3, seeds=2, missing=0.25, rng=0)
    >>> sparse.groupby(["agent", "task"], observed=True).ngroups  # 12 cells, 3 removed
    9
    """
    n_agents, n_tasks = _count(agents, "agents"), _count(tasks, "tasks")
    n_seeds = check_int("seeds", seeds, minimum=1)
    _check_size("simulate", {"agents": n_agents, "tasks": n_tasks, "seeds": n_seeds})
    agent_names = _names(agents, "agents", "agent_", pad=False)
    task_names = _names(tasks, "tasks", "task_", pad=True)
    shifts = _shifts(effect, len(agent_names))
    distribution = check_choice("distribution", distribution, ("mixed",) + FAMILIES)
    heterogeneity = _heterogeneity(heterogeneity)
    missing = check_fraction("missing", missing, open_interval=False)

    ss, _record = seed_sequence(rng)
    task_ss, noise_ss, missing_ss = ss.spawn(3)
    families = _task_families(distribution, len(task_names))
    offset, scale = task_locations(np.random.default_rng(task_ss), len(task_names), heterogeneity)
    z = noise(np.random.default_rng(noise_ss), families, len(agent_names), n_seeds)
    scores = offset[None, :, None] + scale[None, :, None] * (shifts[:, None, None] + z)
    removed = _missing_cells(
        np.random.default_rng(missing_ss), missing, len(agent_names), len(task_names)
    )
    df = _long_frame(scores, removed, agent_names, task_names)
    df.attrs["simulate"] = {
        "distribution": dict(zip(task_names, families)),
        "offset": dict(zip(task_names, offset.tolist())),
        "scale": dict(zip(task_names, scale.tolist())),
        "effect": dict(zip(agent_names, shifts.tolist())),
    }
    return df


@keywords_checked  # a keyword it does not take: an OptionError naming it, not Python's TypeError (audit s23)
def simulate_curves(agents: int | Sequence[str] = 2, tasks: int | Sequence[str] = 5, seeds: int = 5, steps: int = 20,
                    effect: float | Sequence[float] = 0.0, *, max_step: int = 1_000_000, noise: float = 0.3,
                    rho: float = 0.8, heterogeneity: float = 1.0, rng: Seed = None) -> pd.DataFrame:
    """Draw learning curves: agents x tasks x runs x steps, in long form.

    Run ``r`` of agent ``a`` on task ``t`` at step ``s`` scores::

        score = offset[t] + scale[t] * (progress(s) * (1 + effect[a]) + noise * e[a, t, r, s])

    with ``progress(s) = 1 - exp(-3 s / max_step)`` (from 0 to 0.95) and ``e`` a stationary
    Gaussian AR(1) process over the logged steps with lag-one correlation ``rho`` and variance
    1, independent between runs: a run that is ahead early tends to stay ahead, as real runs do.
    The expected curve of an agent on a task is ``offset + scale * progress * (1 + effect)``, so
    the truth of any statistic of the means is known (``attrs["simulate_curves"]``).

    Parameters
    ----------
    agents, tasks : int or sequence of str
        Counts or names, as in :func:`simulate`.
    seeds : int
        Runs per agent and task.
    steps : int
        Logged steps per run, evenly spaced from 0 to ``max_step``.
    max_step : int
        The last logged step (the training budget).
    effect : float or sequence of float
        Relative gain of each agent's curve: spread evenly from 0 to ``effect`` over the agents,
        or one value per agent; 0.2 makes the last agent's curve 20% higher at every step.
    noise : float, >= 0
        Standard deviation of a run around its expected curve, in units of the task's scale.
    rho : float in [0, 1)
        Lag-one correlation of a run's deviations between consecutive logged steps.
    heterogeneity : float, >= 0
        Spread of the tasks' offsets and scales, as in :func:`simulate`.
    rng : None, int or numpy.random.Generator
        Seed of the simulation: the same seed gives the same data.

    Returns
    -------
    pandas.DataFrame
        Columns ``agent``, ``task`` (ordered Categoricals), ``seed``, ``step`` (int64) and
        ``score``, sorted by agent, task, seed and step. ``attrs["simulate_curves"]`` holds the
        truth: ``steps``, ``progress``, and each task's ``offset`` and ``scale`` and each agent's
        ``effect``.

    See Also
    --------
    rlstats.datasets.simulate : One score per run.
    rlstats.curves : Aggregate the curves this draws.

    Examples
    --------
    >>> from rlstats.datasets import simulate_curves
    >>> df = simulate_curves(agents=2, tasks=3, seeds=4, steps=5, rng=0)
    >>> df.shape, df.columns.tolist()
    ((120, 5), ['agent', 'task', 'seed', 'step', 'score'])
    """
    n_agents, n_tasks = _count(agents, "agents"), _count(tasks, "tasks")
    n_seeds = check_int("seeds", seeds, minimum=1)
    n_steps = check_int("steps", steps, minimum=1)
    _check_size("simulate_curves", {"agents": n_agents, "tasks": n_tasks, "seeds": n_seeds, "steps": n_steps})
    agent_names = _names(agents, "agents", "agent_", pad=False)
    task_names = _names(tasks, "tasks", "task_", pad=True)
    shifts = _shifts(effect, len(agent_names))
    heterogeneity = _heterogeneity(heterogeneity)
    rho = check_fraction("rho", rho, open_interval=False)
    if not (is_finite_number(noise) and noise >= 0):
        raise OptionError(f"noise must be a number >= 0, got {noise!r}")
    if not (is_finite_number(max_step) and max_step > 0):
        raise OptionError(f"max_step must be a positive number, got {max_step!r}")
    # the logged steps are max_step's grid rounded to whole numbers: exact as floats and int64 up to 2**53, and
    # all different when they are at least 1 apart
    if max_step > 2**53:
        raise OptionError(f"max_step={max_step!r} is more than 2**53, the largest step rlstats simulates exactly; "
                          f"pass a smaller max_step")
    if max_step < n_steps - 1:
        raise OptionError(f"max_step={max_step!r} is smaller than steps - 1 = {n_steps - 1}, so whole-numbered steps "
                          f"from 0 to max_step would repeat within a run; pass max_step >= {n_steps - 1} or fewer "
                          f"steps")

    ss, _record = seed_sequence(rng)
    task_ss, noise_ss = ss.spawn(2)
    offset, scale = task_locations(np.random.default_rng(task_ss), len(task_names), heterogeneity)
    grid = np.linspace(0, max_step, n_steps).round().astype(np.int64)
    progress = 1.0 - np.exp(-3.0 * grid / max_step)
    shocks = np.random.default_rng(noise_ss).standard_normal((len(agent_names), len(task_names), n_seeds, n_steps))
    deviation = np.empty_like(shocks)
    deviation[..., 0] = shocks[..., 0]
    for k in range(1, n_steps):  # AR(1) over steps, vectorised over every run
        deviation[..., k] = rho * deviation[..., k - 1] + np.sqrt(1.0 - rho ** 2) * shocks[..., k]
    mean = progress[None, :] * (1.0 + shifts[:, None])  # (agents, steps), before the task's scale
    scores = offset[None, :, None, None] + scale[None, :, None, None] * (
        mean[:, None, None, :] + float(noise) * deviation)
    a, t, r, s = np.meshgrid(*(np.arange(n) for n in scores.shape), indexing="ij")
    df = pd.DataFrame({
        "agent": pd.Categorical.from_codes(a.ravel(), categories=agent_names, ordered=True),
        "task": pd.Categorical.from_codes(t.ravel(), categories=task_names, ordered=True),
        "seed": r.ravel().astype(np.int64),
        "step": grid[s.ravel()],
        "score": scores.ravel(),
    })
    df.attrs["simulate_curves"] = {
        "steps": grid.tolist(),
        "progress": progress.tolist(),
        "offset": dict(zip(task_names, offset.tolist())),
        "scale": dict(zip(task_names, scale.tolist())),
        "effect": dict(zip(agent_names, shifts.tolist())),
    }
    return df
