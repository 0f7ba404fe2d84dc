"""AdaStop: adaptive, sequential permutation tests of several agents (Mathieu et al., 2023).

Three entry points share one engine (:mod:`rlstats.methods.adastop._kernels`):

* :func:`adastop` runs the test on runs already collected, interim by
  interim, from a ``batch=`` column or from the seed order in groups of ``n``;
* :class:`AdaStop` (in ``_incremental.py``) runs it while the experiments run:
  feed each new batch with :meth:`AdaStop.update`, ask :attr:`AdaStop.agents_to_run`
  what to train next, and :meth:`AdaStop.save` / :meth:`AdaStop.load` the state
  between sessions;
* :func:`permutation` is the same machinery with a single interim: a
  multiple-comparison permutation test of mean differences with step-down.

With ``score ~ agent | task`` one independent AdaStop runs per task; the
family-wise error is controlled within each task, not across tasks.

How a permutation path acts on the data (``permutations=``): by default
(``"holm"``, audit s29) the paper's paths, but each comparison is tested on
its own pair's column at alpha / c (c not yet rejected, Holm's): exact
under any partial null, more powerful than the joint relabelling with several
interims, less with one interim and few runs.  ``"joint"`` (the default
before) relabels the pooled runs of every agent still running, which is a
permutation of the data, so when every agent's runs are exchangeable under
the null (identical distributions) the family-wise error is at most the level
spent whatever the number of agents; not when identical agents sit beside
agents of another spread (see :func:`adastop`'s Notes); these paths are
random from the first interim on.  ``"pairwise"`` is the paper's Algorithm
3: one choice of ``n`` slots among ``2n`` per path, applied to every pair,
enumerated exactly while the tree fits; with three identical agents or more
its error can exceed alpha.  With two agents all three are the same test.
"""

from __future__ import annotations

import functools
import inspect
import math
from fractions import Fraction
from dataclasses import asdict, dataclass, field, replace
from typing import Any, Sequence

import numpy as np
import pandas as pd

from .._replication import verdict
from ... import calibration
from ... import format as fmt
from ...design import (Design, agents_said, arm_label, block_label, copied_runs_note, data_and_formula,
                       design_of, public_function)
from ...connectivity import method_called, subset_selecting
from ...cost import MAX_BYTES, admit, shows
from ...interop import as_pandas
from ...normalization import AVERAGED_ATTR
from ...errors import DesignError, OptionError, agent_named, label_value, planned_runs, shell_word, warn
from ...options import check_at_most, check_choice, check_cost_options, check_fraction, check_int, check_pairs
from ...progress import progress_bar
from ...resampling import agent_seed_sequence, canonical_order, child_generator, seed_sequence
from ...statistics import noise_free
from . import _kernels as kernels
from ._backend import DECISION_WORDS, NO_DIFFERENCE, REPEATED_RUNS, cost
from ._result import AdaStopResult, PermutationResult
from ._defaults import DEFAULT_K, MAX_N
from ..._typing import Data, EvalEnv, FormulaLike, Label, NaAction, Permutations, Seed

__all__ = ["adastop", "permutation", "AdaStopOptions", "DEFAULT_K"]

#: how a permutation path acts on the data: one relabelling of the pooled block of every running agent, one slot
#: choice per pooled pair (the paper), or each pair's own slot choices with Holm's step-down (the default, audit s29)
PERMUTATIONS = ("joint", "pairwise", "holm")
#: the default tests' measured family-wise error in the package table (rlstats/calibration.csv, written by
#: tests/reference/calibrate.py)
FWE_PROCEDURE = "adastop.fwe"
#: AdaStop's rejection rate at equal means of different shapes (audit s21; tests/reference/size_adastop_means.py)
FWE_MEANS_PROCEDURE = "adastop.fwe_means"
#: the family-wise error of identical agents beside agents of another spread (audit s23;
#: tests/reference/size_adastop_spread.py)
FWE_SPREAD_PROCEDURE = "adastop.fwe_spread"
#: the smallest ratio of the agents' standard deviations at which the ``adastop.fwe_spread`` rows of the joint
#: relabelling (the default until audit s29b) miss alpha (they hold at 2, miss from 4 on): a task whose runs' standard deviations differ this much
#: gets a note (audit s23)
SPREAD_RATIO = 4
#: the runs an agent needs for its standard deviation to enter that note: with 10, identical normal agents (3 to 8 of
#: them) are 4 times apart in 0.1% to 0.6% of data sets; with 5, in 5% to 22% (audit s23, 20,000 simulated sets)
SPREAD_MIN_RUNS = 10
#: the decision of a comparison the replication rule withholds (an agent with too few runs on the task), and the
#: output its per-cell need declares (``_backend.py``)
WITHHELD = "withheld"
DECISION = "decision"

# Sizes an option or a state file can ask for, checked before anything is allocated (a state with
# K = 10**9 used to loop for ever, one with n_resamples = 10**12 to ask for terabytes).  Each bound is far
# above what a study uses; the memory estimate below decides how they may combine (MAX_N, the runs per agent per
# batch, lives in _defaults: the command line reads it).
#: interims: the paper's designs use K <= 10; every path keeps one cumulative sum per interim
MAX_K = 1_000
#: permutation paths: 1000 times the default; the exact tree of three interims of n = 5 (8 million paths) fits
MAX_RESAMPLES = 10_000_000
#: comparisons: all pairs of 32 agents (496) or one reference against 500 others.  The step-down recomputes
#: the boundaries of every interim each time it decides one, so its time grows as their square (20 agents,
#: 190 pairs: 3 s for K = 6; 50 agents, 1225 pairs: 3.5 minutes)
MAX_COMPARISONS = 500
#: agents of the incremental AdaStop: more than two per comparison could never all be compared
MAX_AGENTS = 2 * MAX_COMPARISONS
#: memory the stored paths and one interim's temporaries may take, estimated from the sizes
#: (:func:`~rlstats.methods.adastop._kernels.memory_estimate`) before the test starts: the package's bound,
#: :data:`rlstats.cost.MAX_BYTES`, with no peak factor (the estimate is the peak: measured / estimated peak RSS
#: 0.94-1.02 at 2-6 agents, joint and pairwise, 2e5-5e5 paths; audit s18, benchmarks/README.md; 2 GiB of its own before)
MEMORY_LIMIT = MAX_BYTES


# ---------------------------------------------------------------------------
# Options
# ---------------------------------------------------------------------------

@dataclass(frozen=True)
class AdaStopOptions:
    n: int = 5
    K: int | None = None
    n_resamples: int = 10_000
    alpha: float = 0.05
    beta: float = 0.0
    comparisons: object = "all"
    reference: Label | None = None  # as given; the data's label once read (errors.label_named)
    batch: str | None = None
    permutations: str = "holm"
    na_action: NaAction = "raise"
    progress: bool = True

    @classmethod
    def checked(cls, **options: Any) -> AdaStopOptions:
        """Validate every option once; raises OptionError naming the bad one."""
        K = options["K"]
        beta = check_fraction("beta", options["beta"], open_interval=False)
        if beta >= 1:
            raise OptionError(f"beta must be below 1 (0 switches early accept off), got {beta}")
        batch = options["batch"]
        if batch is not None and not isinstance(batch, str):
            raise OptionError(f"batch must name a column (a string), got {batch!r}")
        reference = options["reference"]
        reference = None if reference is None else label_value("reference", reference)  # read against the agents later
        n = check_int("n", options["n"], minimum=1)
        K = None if K is None else check_int("K", K, minimum=1)
        n_resamples = check_int("n_resamples", options["n_resamples"], minimum=1)
        return cls(n=check_at_most("n", n, MAX_N, "runs per agent per batch",
                                   "RL studies use 5 to 20; pass a smaller n"),
                   K=None if K is None else check_at_most("K", K, MAX_K, "interims",
                                                          "pass a smaller K (the paper's designs use at most 10)"),
                   n_resamples=check_at_most("n_resamples", n_resamples, MAX_RESAMPLES, "permutation paths",
                                             "pass a smaller n_resamples (the default is 10,000)"),
                   alpha=check_fraction("alpha", options["alpha"]), beta=beta,
                   comparisons=_check_comparisons_option(options["comparisons"], reference),
                   reference=reference, batch=batch,
                   permutations=check_choice("permutations", options.get("permutations", "holm"),
                                             PERMUTATIONS),
                   na_action=options["na_action"],
                   progress=check_cost_options(options["progress"], options.get("max_seconds"))[0])


def _check_comparisons_option(comparisons, reference):
    if isinstance(comparisons, str):
        if comparisons != "all":
            raise OptionError(f"comparisons={comparisons!r} is not allowed: pass \"all\" or a list of "
                              "(agent_1, agent_2) pairs, or reference= an agent")
        return "all"
    if reference is not None:
        raise OptionError("pass either comparisons= a list of pairs or reference= an agent, not both")
    try:
        pairs = [tuple(p) for p in comparisons]
    except TypeError:
        raise OptionError(f"comparisons must be \"all\" or a list of (agent_1, agent_2) pairs, "
                          f"got {comparisons!r}") from None
    if not pairs:
        raise OptionError("comparisons is an empty list; name at least one (agent_1, agent_2) pair")
    if len(pairs) > MAX_COMPARISONS:
        raise OptionError(f"comparisons lists {len(pairs):,} pairs, more than {MAX_COMPARISONS}, the most AdaStop "
                          "takes; compare fewer pairs, or split them into several tests")
    bad = [p for p in pairs if len(p) != 2]
    if bad:
        raise OptionError(f"each comparison must be a pair of agent names, got {bad[0]!r}")
    return tuple(tuple(label_value("comparisons", a) for a in p) for p in pairs)  # read against the agents later


def _labelled(options, agents, **said):
    """``options`` with ``reference=`` and ``comparisons=`` the labels of ``agents`` they name (np.int64(2) and 2.0
    name the agent printed '2'), as the options record them (review s30: they recorded the names as given, where
    equivalence, skillings_mack and bayes record control= as the label; review s31: so does the incremental
    AdaStop); an unknown agent is the one OptionError, ``said`` what it says of them (:func:`agents_said`)."""
    if options.reference is not None:
        return replace(options, reference=agent_named(agents, "reference", options.reference, **said))
    if options.comparisons != "all":
        return replace(options, comparisons=check_pairs("comparisons", options.comparisons, tuple(agents), **said))
    return options


def _resolve_pairs(agents, comparisons, reference, **said):
    """Agent-code pairs of the comparisons, checked against the agents (and counted before they are listed);
    ``said``: what an unknown agent's error says of them (:func:`rlstats.design.agents_said`)."""
    if reference is not None or comparisons == "all":
        count = len(agents) - 1 if reference is not None else len(agents) * (len(agents) - 1) // 2
        if count > MAX_COMPARISONS:
            kind = f"reference={reference!r} against every other agent" if reference is not None else "all pairs"
            raise OptionError(f"{len(agents)} agents make {count:,} comparisons with {kind}, more than "
                              f"{MAX_COMPARISONS} comparisons, the most AdaStop takes; pass comparisons= the pairs "
                              "that matter, or compare fewer agents")
    index = {a: i for i, a in enumerate(agents)}
    if reference is not None:
        r = index[agent_named(agents, "reference", reference, **said)]
        return [(r, j) for j in range(len(agents)) if j != r]
    names = check_pairs("comparisons", None if comparisons == "all" else comparisons, tuple(agents), **said)
    return [(index[a], index[b]) for a, b in names]


def no_level_clause(n: int, K: int, alpha: float, shares: int = 1) -> str:
    """What a sequential test of ``n`` runs per batch and ``K`` interims that spends no level at ``alpha`` (with
    Holm's step-down over ``shares`` comparisons: alpha / shares first) is: the clause its warning opens with, and
    the command line's refusal to create such a state (one home)."""
    return (f"with n = {fmt.count(n, 'run')} per batch and K = {fmt.count(K, 'interim')} no level can be spent "
            f"({_spent(alpha, shares)})")


def _spent(alpha, shares):
    """The level a powerless test had to spend: alpha, or Holm's alpha / J on each comparison first."""
    if shares == 1:
        return f"alpha = {alpha}"
    return (f"alpha = {alpha}, of which Holm's step-down spends alpha / {shares} = {fmt.signif(alpha / shares, 3)} "
            f"on each of the {shares} comparisons first")


def holm_shares(options, pairs):
    """J, the comparisons Holm's first step divides alpha among (1 for the other schemes, or a single comparison)."""
    return len(pairs) if options.permutations == "holm" else 1


def _warn_if_powerless(schedule, sequential=True, shares=1, joint=False, where=""):
    """A test that can never reject is almost surely a mistake: say so loudly (permutation() in its own words:
    it has no batches, interims, n= or K=).  ``shares``: Holm's J, whose first step spends alpha / J (audit s29:
    judged at alpha, 3 agents at n = 4, K = 1 were silent though alpha / 3 spends nothing); ``joint``: its paths are
    drawn jointly (never enumerated).  The way on is one that works (:func:`_powerless_way`).  ``where``: the
    tasks whose tests these are, said after the runs per agent (permutation(): " (on each of its 5 tasks)")."""
    if kernels.spendable_level(schedule, shares) > 0:
        _warn_if_rarely_rejecting(schedule, shares, joint, sequential, where)
        return
    way = _powerless_way(schedule, shares, joint, sequential)
    if not sequential:
        warn(f"with n = {fmt.count(schedule.n, 'run')} per agent{where} no level can be spent "
             f"({_spent(schedule.alpha, shares)}): the permutation test can never reject; {way}")
    else:
        warn(f"{no_level_clause(schedule.n, schedule.max_interims, schedule.alpha, shares)}: the test can never "
             f"reject; {way}")


#: below this chance of rejecting even a perfectly separated data set a test that spends some level warns: that chance
#: bounds its power against any difference however large, so under 0.8, the power studies are conventionally
#: planned for, no difference can reach it (audit s32: n = 4, K = 1 at 20 paths, chance 0.58, was silent)
RARE_REJECTION = 0.8


def _warn_if_rarely_rejecting(schedule, shares=1, joint=False, sequential=True, where=""):
    """A test that spends some level but rejects even a perfectly separated data set with chance under
    :data:`RARE_REJECTION` over its random paths (:func:`kernels.separated_rejection`) says so, with the chance and
    the paths from which on such data are rejected for 95% of seeds (:func:`least_resamples`).  Joint relabelling is
    left silent: the chance is a lower bound there that can be far below the truth (three agents at n = 3: 0 by the
    bound, while the extreme pair ties once in 840 paths)."""
    if joint:
        return
    chance = kernels.separated_rejection(schedule, shares)
    if chance >= RARE_REJECTION:
        return
    n, K, paths = schedule.n, schedule.max_interims, schedule.n_resamples
    by_paths = least_resamples(n, K, schedule.alpha, shares)  # joint returned above
    way = (f"pass n_resamples={by_paths:_} or more, from which on such runs are rejected for 95% of seeds"
           if by_paths is not None else _powerless_way(schedule, shares, joint, sequential))
    sizes = (f"n = {fmt.count(n, 'run')} per batch, K = {fmt.count(K, 'interim')}" if sequential
             else fmt.count(n, "run") + " per agent" + where)
    warn(f"with {sizes} and n_resamples={paths:_} ({_spent(schedule.alpha, shares)}), even perfectly separated "
         f"runs are rejected with chance only about {chance:.2f} over the random paths (those that tie the runs' own "
         f"arrangement keep it from passing the boundary), so no difference however large is detected with "
         f"{RARE_REJECTION:.0%} power; {way}")


def _spends(n, K, n_resamples, alpha, shares, joint):
    """Whether the schedule of ``n`` runs per batch, ``K`` interims and ``n_resamples`` paths (enumerated where the
    half tree fits, unless ``joint``) spends some level on Holm's first step (alpha / ``shares``)."""
    schedule = kernels.make_schedule(n, K, n_resamples, alpha, enumerate_paths=not joint)
    return kernels.spendable_level(schedule, shares) > 0


#: the chance, over the random paths, with which the advice of a test that can never reject (its number of paths)
#: rejects a perfectly separated data set: 0.95, for 95% of seeds (review s31: the fewest paths that spend some
#: level rejected such data in 12 of 20 seeds)
SEPARATED_REJECTION = 0.95


# Cached: a pure function of its numbers, asked again by the advice of every test that cannot reject (each of
# power()'s simulated data sets: 85% of power('permutation')'s CPU at 4 seeds, n_sim=10, was spent here).
@functools.lru_cache(maxsize=256)
def least_resamples(n, K, alpha, shares=1, joint=False):
    """The fewest ``n_resamples``, and every larger number, at which a test of ``n`` runs per batch and ``K``
    interims (alpha / ``shares`` on Holm's first step) rejects a perfectly separated data set with chance at least
    :data:`SEPARATED_REJECTION` over its random paths (:func:`kernels.separated_rejection`: certainly once the
    interim that spends enumerates its tree); None where no number up to :data:`MAX_RESAMPLES` does.

    The search starts at the fewest paths that spend some level (:func:`_fewest_spending`) and steps up one path at
    a time; the chance falls a little between two numbers whose grids allow one more path beyond the boundary, so
    a number counts once it and those past it, up to twice it or the whole tree, all reach the chance.  Review s31:
    2 agents x 4 runs, K = 1 were sent to 20 paths (the fewest that spend; chance 0.58, 12 of 20 seeds rejected):
    now 35, the whole tree, which rejects such data always; n = 2, K = 3: 60 (chance 0.84 at 20, 0.91-0.95 at
    40-59)."""
    start = _fewest_spending(n, K, alpha, shares, joint)
    if start is None or kernels.separated_rejection(
            kernels.make_schedule(n, K, MAX_RESAMPLES, alpha, enumerate_paths=not joint), shares) < SEPARATED_REJECTION:
        return None  # the most paths cannot: fewer tie the observed as often, with fewer beyond the boundary allowed
    found = None
    m = start
    while m <= MAX_RESAMPLES:
        schedule = kernels.make_schedule(n, K, m, alpha, enumerate_paths=not joint)
        if kernels.separated_rejection(schedule, shares) < SEPARATED_REJECTION:
            if schedule.exact[-1]:  # the whole tree, as every larger number enumerates it
                return None
            found = None
        else:
            found = m if found is None else found
            if schedule.exact[-1] or m >= 2 * found:  # the whole tree: every larger number enumerates it alike
                return found
        m += 1 if m < 20_000 else m // 10_000  # past 20,000 paths: steps of 0.01%
    return None


def _fewest_spending(n, K, alpha, shares=1, joint=False):
    """The fewest ``n_resamples`` at which a test of ``n`` runs per batch and ``K`` interims spends some level
    (alpha / ``shares`` on Holm's first step); None where no number can (at most :data:`MAX_RESAMPLES`).

    Interim k's grid has m_k = min(T_k, n_resamples) paths, T_k = C(2n, n)**k / 2 the whole (half) tree (joint
    relabelling: n_resamples, never enumerated), and linear spending allows floor(alpha / J * k / K * m_k) of them
    while nothing was spent before.  The first interim that spends needs m_k >= K J / (alpha k), so the fewest paths
    are the smallest such bound over the interims whose whole tree reaches it (review s31: 2 agents x 3 runs, whose
    10 paths spend 0.5 of one, were told a larger n_resamples= would help).  Checked on the schedule itself."""
    level, best, tree, per_block = alpha / shares, None, Fraction(kernels.assignment_count(n), 2), \
        kernels.assignment_count(n)
    for k in range(1, K + 1):
        need = max(1, math.ceil((1 - 1e-9) * K / (level * k)))
        if need > MAX_RESAMPLES:
            continue
        if joint or tree >= need:
            best = need if best is None else min(best, need)
        if tree <= MAX_RESAMPLES:  # past MAX_RESAMPLES every larger tree reaches any bound allowed
            tree *= per_block
    if best is None:
        return None
    while best > 1 and _spends(n, K, best - 1, alpha, shares, joint):  # the floor's rounding, as the schedule has it
        best -= 1
    while best <= MAX_RESAMPLES and not _spends(n, K, best, alpha, shares, joint):
        best += 1
    return best if best <= MAX_RESAMPLES else None


def rejecting_sizes_of(schedule, shares, joint):
    """The smallest n at ``schedule``'s K and the smallest K at its n whose schedule (its n_resamples and alpha)
    spends some level (alpha / ``shares``), each None where none can (:func:`rlstats.methods.adastop.rejecting_sizes`
    says why).  Past the n or K at which the exact tree of the first (or the last) interim outgrows n_resamples,
    every interim draws n_resamples paths whatever a larger n or K: the searches stop there."""
    def smallest(sizes, design, interim):  # the first size whose schedule spends, or None once a larger one is alike
        for size in sizes:
            n, K = design(size)
            found = kernels.make_schedule(n, K, schedule.n_resamples, schedule.alpha, enumerate_paths=not joint)
            if kernels.spendable_level(found, shares) > 0:
                return size
            if not found.exact[interim]:
                return None
        return None

    return (smallest(range(1, MAX_N + 1), lambda n: (n, schedule.max_interims), 0),
            smallest(range(1, MAX_K + 1), lambda K: (schedule.n, K), -1))


def _powerless_way(schedule, shares, joint, sequential):
    """The way on of a test whose ``schedule`` spends no level, one that works (review s31): n_resamples= only where
    the schedule's whole tree of paths could spend some, the number from which on separated data reject for 95% of
    seeds (:func:`least_resamples`), more runs (or a larger n or K) only where they can at its n_resamples
    (:func:`rejecting_sizes_of`), else both, naming the paths and sizes that can; a plan's runs are the seeds it
    simulates (:func:`rlstats.errors.planned_runs`)."""
    planned = planned_runs()  # power() draws the runs itself: its way on is more seeds (audit s28)
    n, K, paths = schedule.n, schedule.max_interims, schedule.n_resamples
    if sequential:
        runs = (f"simulate more seeds per cell ({planned}; n = seeds / K) or pass a larger K=" if planned else
                "use a larger n or K")
    else:
        runs = f"simulate more seeds per cell ({planned})" if planned else "add runs"
    by_paths = least_resamples(n, K, schedule.alpha, shares, joint)
    if any(size is not None for size in rejecting_sizes_of(schedule, shares, joint)):
        return runs + (" (the paper advises n * K >= 30)" if sequential else "")
    sizes = f"n = {n} and K = {K}" if sequential else fmt.count(n, "run") + " per agent"
    larger = "a larger n or K" if sequential else "more runs"
    if by_paths is not None:  # the paths drawn cap the smallest p-value (audit s29: 4 agents x 30 runs, 100 paths)
        return (f"pass n_resamples={by_paths:_} or more (its {paths:,} random paths cap the smallest p-value; "
                f"{larger} cannot help at {paths:,} paths)")
    more, least_n, least_k = separating_sizes(n, K, schedule.alpha, shares, joint, sequential)
    if more is None:
        return f"no n_resamples= up to {MAX_RESAMPLES:,} can at {sizes}"
    can = ([f"n = {least_n} at K = {K}" if sequential else fmt.count(least_n, "run") + " per agent"]
           if least_n is not None else []) + ([f"K = {least_k} at n = {n}"] if least_k is not None else [])
    return (f"{runs} with n_resamples={more:_} or more: no n_resamples= can at {sizes}, nor {larger} at "
            f"{paths:,} paths (at {more:,} paths, {' or '.join(can)} can)")


def separating_sizes(n, K, alpha, shares, joint, sequential=True):
    """``(paths, n, K)``: the fewest paths from which on the smallest larger n (at K) or K (at n; only if
    ``sequential``) that spends some level with the fewest paths any size spends with rejects a perfectly separated
    data set for 95% of seeds (:func:`least_resamples`), and that n and that K (None: the other needs more paths);
    all None where none can up to :data:`MAX_RESAMPLES`.  The warning's way on and the command's refusal (one home;
    review s31: 3 runs and K = 1 were sent to n = 4 at 20 paths, which reject separated data with chance 0.58)."""
    spending = _fewest_spending(n, K, alpha, shares, joint=True)  # the fewest paths any n or K spends with
    least_n, least_k = (None, None) if spending is None else rejecting_sizes_of(
        kernels.make_schedule(n, K, spending, alpha, enumerate_paths=not joint), shares, joint)
    need_n = None if least_n is None else least_resamples(least_n, K, alpha, shares, joint)
    need_k = None if least_k is None or not sequential else least_resamples(n, least_k, alpha, shares, joint)
    found = [need for need in (need_n, need_k) if need is not None]
    if not found:
        return None, None, None
    more = min(found)
    return more, least_n if need_n == more else None, least_k if need_k == more else None


def _interim_generator(ss, task, interim):
    """The generator of one interim of one task, rebuilt from the seed alone (so resuming is exact).

    ``task`` is the task's label: its stream is keyed by it (:func:`rlstats.resampling.agent_seed_sequence`), so a
    task's test draws the same whatever other tasks are analysed, left out by a subset or named to sort before it
    (audit s32/s33; it was keyed by the task's place among the names).  None is the one test of a formula without
    blocks and of the :class:`AdaStop` class, which name no task: keyed 0, as before, so that a state saved by any
    rlstats resumes with the same draws and the class and ``adastop(data, "score ~ agent")`` draw alike.
    """
    return child_generator(ss, 0, interim) if task is None else child_generator(agent_seed_sequence(ss, task), interim)


def _task_key(design, task):
    """What keys a task's stream (:func:`_interim_generator`): its label, None for a formula without blocks."""
    return task if design.has_blocks else None


def _flips(pairs, places, options):
    """Which comparisons the slot choices read the other way round (:class:`kernels.SequentialTest`'s ``flip``):
    "all" pairs, which the agents' order orients, are drawn as their names sorted orient them; pairs the caller
    names (comparisons=, reference=) keep the caller's orientation."""
    if options.reference is not None or options.comparisons != "all":
        return [False] * len(pairs)
    return [bool(places[a] > places[b]) for a, b in pairs]


# ---------------------------------------------------------------------------
# Data: interims of each agent on each task
# ---------------------------------------------------------------------------

@dataclass
class _TaskData:
    """Per agent code present on the task: its batches as an (n_batches, n) array, the runs given (``given``,
    agent code -> rows; more than the batches hold when a last group short of n past K is left out), and the
    Design's rows of each batch (``rows``, agent code -> an (n_batches, n) array: which runs a batch fed holds)."""

    name: str
    blocks: dict
    given: dict = field(default_factory=dict)
    rows: dict = field(default_factory=dict)


def _sorted_levels(values, column):
    try:
        levels = np.unique(np.asarray(values))
    except TypeError:
        raise DesignError(f"column '{column}' mixes types that cannot be ordered "
                          f"({sorted({type(v).__name__ for v in values})}); batches are taken in sorted "
                          "order, so give it one type (e.g. integers 1, 2, ...)") from None
    if levels.dtype == object and all(isinstance(v, str) for v in levels):  # as they read: '2' before '10'
        levels = np.array(sorted(levels, key=fmt.natural_key), dtype=object)
    return levels


def _plain(value):
    """A numpy scalar as the Python value it prints as (for messages)."""
    return value.item() if hasattr(value, "item") else value


def _blocks_from_batches(design, rows, labels, task_levels, n, agent, task, column):
    where = arm_label(design.formula, agent) + (f" on {block_label(design.formula, task)}" if design.has_blocks else "")
    codes = pd.Index(task_levels).get_indexer(labels)  # task_levels are unique, in the batches' order
    counts = np.bincount(codes, minlength=len(task_levels))
    present = np.flatnonzero(counts)
    if present[0] != 0 or present.size != present[-1] + 1:
        missing = [_plain(task_levels[i]) for i in range(present[-1] + 1) if counts[i] == 0]
        raise DesignError(f"{where} has no runs in {'batch' if len(missing) == 1 else 'batches'} {missing[:5]} of "
                          f"column '{column}' but runs in "
                          "later batches; batches must follow each other without gaps")
    wrong = present[counts[present] != n]
    if wrong.size:
        b = wrong[0]
        raise DesignError(f"{where} has {counts[b]} runs in batch {_plain(task_levels[b])!r} of column '{column}'; "
                          f"every batch needs exactly n = {n} runs per {design.arm_word}")
    order = canonical_order(design.y[rows], codes)  # the runs of one batch are exchangeable: by score within it
    return design.y[rows][order].reshape(-1, n), rows[order].reshape(-1, n)


def _as_read(values):
    """Text in the order it reads (ranks by :func:`~rlstats.format.natural_key`: seeds '2' before '10', as the
    integers are), else the values as they are."""
    if values.dtype != object or not all(isinstance(v, str) for v in values):
        return values
    rank = {v: i for i, v in enumerate(sorted(set(values), key=fmt.natural_key))}
    return np.array([rank[v] for v in values])


def _blocks_from_order(design, rows, order_values, n, agent, task, order_name, K=None):
    where = arm_label(design.formula, agent) + (f" on {block_label(design.formula, task)}" if design.has_blocks else "")
    # a last group short of n after K whole batches is never fed (192 runs, n = 5, K = 6): it is left out, with
    # the other runs past K batches, which a note counts (audit s20)
    tail = rows.size % n if K is not None and rows.size > K * n else 0
    if rows.size % n and not tail:
        raise DesignError(
            f"{where} has {fmt.count(rows.size, 'run')}, not a multiple of n = {n}: interims are formed from the "
            f"{order_name} in groups of n; pass n= a divisor of the runs, drop the extra runs, or name "
            "a batch column with batch=")
    if order_values is not None:
        values = _as_read(order_values[rows])
        try:  # runs at the same point of the order are exchangeable: by score among them
            order = canonical_order(design.y[rows], values)
        except TypeError:
            order = canonical_order(design.y[rows], values.astype(str))
        rows = rows[order]
    # rows in the order they were collected, n a batch; within a batch the runs are exchangeable: in score order,
    # as rlstats.AdaStop takes a fed batch (the rows of each batch as they come: which runs it holds)
    rows = rows[:rows.size - tail].reshape(-1, n)
    return np.sort(design.y[rows], axis=1), rows


def _task_data(design, n, batch, order_column, K=None):
    """Split every task's runs into batches of n per agent; errors name the agent, task and count (``K``: the
    interims asked for, past which a short last group is left out)."""
    out = []
    for t, task in enumerate(design.tasks):
        in_task = design.task == t
        blocks, given, batch_rows = {}, {}, {}
        task_levels = None
        if batch is not None:
            task_levels = _sorted_levels(design.extra[batch][in_task], batch)
        for a, agent in enumerate(design.agents):
            rows = np.flatnonzero(in_task & (design.agent == a))
            if rows.size == 0:
                continue
            given[a] = rows.size
            if batch is not None:
                blocks[a], batch_rows[a] = _blocks_from_batches(design, rows, design.extra[batch][rows], task_levels,
                                                                n, agent, task, batch)
            else:
                values = None if order_column is None else design.extra.get(order_column)
                name = f"order of column '{order_column}'" if order_column else "row order"
                blocks[a], batch_rows[a] = _blocks_from_order(design, rows, values, n, agent, task, name, K)
        out.append(_TaskData(task, blocks, given, batch_rows))
    return out


# ---------------------------------------------------------------------------
# Running the tests and assembling the result
# ---------------------------------------------------------------------------

@dataclass
class _TaskRun:
    """One task's test after it ran: the engine, the codes of its comparisons and how it ended."""

    name: str
    test: kernels.SequentialTest
    pair_ids: list          # indices into the global pair list
    missing_pairs: dict     # global pair index -> code of its agent absent from the task
    batches_used: dict      # agent code -> batches fed
    available: dict         # agent code -> batches available
    blocks: dict            # agent code -> (n_batches, n) array
    exhausted: tuple | None  # (interim, agent codes without runs) when the data ran out
    joint: bool = False      # paths relabel the pooled block of every running agent
    withheld_pairs: dict = field(default_factory=dict)  # global pair index -> codes of its agents with too few runs
    given: dict = field(default_factory=dict)  # agent code -> runs given, when more than its batches hold

    @property
    def schedule(self):
        return self.test.schedule


def _check_memory(options, n, max_interims, pairs, tests=1, sequential=True):
    """An OptionError before any path is drawn when ``tests`` tests of these sizes would exceed MEMORY_LIMIT."""
    n_agents = len({a for p in pairs for a in p})
    joint = options.permutations == "joint" and n_agents >= 3
    need = kernels.memory_estimate(n, max_interims, options.n_resamples, len(pairs), n_agents, joint=joint,
                                   tests=tests)
    if need > MEMORY_LIMIT:
        each = f"{tests} tests (one per task), each of " if tests > 1 else ""
        interims = f"K = {fmt.count(max_interims, 'interim')} x " if sequential else ""
        per = "per agent per batch" if sequential else "per agent"
        raise OptionError(f"this {'AdaStop' if sequential else 'permutation test'} would need about "
                          f"{need / 1024 ** 3:.1f} GiB ({each}{interims}n_resamples = {options.n_resamples:,} "
                          f"paths x {fmt.count(len(pairs), 'comparison')}, n = {n} runs {per}), more than the "
                          f"{MEMORY_LIMIT // 1024 ** 3} GiB rlstats allows; pass a smaller n_resamples (the default "
                          f"is 10,000){', a smaller K' if sequential else ''} or fewer comparisons")


def _schedule(options, n, max_interims, family, tests=1):
    """The schedule of one test and whether it relabels jointly (only with three agents or more).

    Checks first that ``tests`` such tests fit in memory (:func:`_check_memory`).
    """
    _check_memory(options, n, max_interims, list(zip(family[::2], family[1::2])), tests)
    joint = options.permutations == "joint" and len(set(family)) >= 3
    schedule = kernels.make_schedule(n, max_interims, options.n_resamples, options.alpha, options.beta,
                                     enumerate_paths=not joint)
    return schedule, joint


def _run_task(task, data, pairs, options, n, max_interims, ss, advance, short=(), places=None):
    """One task's test; agents in ``short`` (too few runs on the task: the replication rule) are not tested.

    ``task`` (the task's label, None without blocks: :func:`_interim_generator`) keys the task's stream and
    ``places`` (each agent code's place among the names sorted) lays out its random paths: both from the names, so
    that the design's order of the agents and tasks, and the other tasks analysed, draw the same.
    """
    present = set(data.blocks)
    compared = present - set(short)
    pair_ids = [i for i, (a, b) in enumerate(pairs) if a in compared and b in compared]
    missing = {i: (a if a not in present else b) for i, (a, b) in enumerate(pairs)
               if i not in pair_ids and not (a in present and b in present)}
    withheld = {i: tuple(x for x in (a, b) if x in short) for i, (a, b) in enumerate(pairs)
                if a in present and b in present and i not in pair_ids}
    family = [a for i in pair_ids for a in pairs[i]]
    schedule, joint = _schedule(options, n, max_interims, family)
    flips = _flips(pairs, places, options) if places is not None else [False] * len(pairs)
    test = kernels.SequentialTest([pairs[i] for i in pair_ids], schedule, joint=joint, places=places,
                                  flip=[flips[i] for i in pair_ids], holm=options.permutations == "holm")
    n_agents = 1 + max(max(p) for p in pairs)
    available = {a: len(block) for a, block in data.blocks.items()}
    used = dict.fromkeys(data.blocks, 0)
    exhausted = None
    for k in range(1, schedule.max_interims + 1):
        if test.done:
            break
        needed = [int(a) for a in np.asarray([pairs[i] for i in pair_ids])[test.undecided].ravel()]
        needed = sorted(set(needed))
        out_of_runs = [a for a in needed if available[a] < k]
        if out_of_runs:
            exhausted = (k, tuple(out_of_runs))
            break
        block = np.full((n_agents, schedule.n), np.nan)
        for a in needed:
            block[a] = data.blocks[a][k - 1]
            used[a] += 1
        test.run_interim(block, _interim_generator(ss, task, k))
        advance(1)
    return _TaskRun(data.name, test, pair_ids, missing, used, available, data.blocks, exhausted, joint, withheld,
                    data.given)


def _reason(run, pair, agents, n):
    if run.exhausted is None:
        return None
    k, short = run.exhausted
    mine = [a for a in pair if a in short]
    if mine:
        a = mine[0]
        return (f"runs exhausted: {agents[a]} has {fmt.count(run.available[a] * n, 'run')} "
                f"({fmt.count(run.available[a], 'batch')}) and interim {k} needs {k * n}")
    names = fmt.name_list([agents[a] for a in short], among=agents)
    return f"runs exhausted: the test stopped before interim {k} because {names} ran out of runs"


def _withheld_reason(short, run, agents):
    who = " and ".join(f"{agents[a]} has {fmt.count(run.blocks[a].size, 'run')}" for a in short)
    return f"withheld: {who} on this task (see the note)"


def _short_agents(method, design, options):
    """Per task, the agent codes whose runs on it are fewer than ``method``'s per-cell need of its decisions.

    Also the replication rule's sentence (naming the tasks and the way on), empty when nothing is withheld; a
    design where no cell has the runs is refused there.
    """
    found = verdict(method, design.counts, options=options, agents=design.agents, tasks=design.tasks,
                    words=design.words, formula=design.formula)
    mask = found.mask(DECISION, design.counts.shape)
    return [set(np.flatnonzero(row).tolist()) for row in mask], found.lines


def _decision_rows(runs, pairs, agents, n_of, blocked):
    rows = []
    for run in runs:
        n = n_of(run)
        local = {g: i for i, g in enumerate(run.pair_ids)}
        faced_at = {(h["comparison"], h["interim"]): h for h in run.test.history}
        for g, (a, b) in enumerate(pairs):
            row = {"task": run.name} if blocked else {}
            row.update(agent_1=agents[a], agent_2=agents[b])
            if g in run.missing_pairs:
                # an agent never ran the task: no comparison there, so no row (audit s14: such pairs were rows
                # 'continue', counted as undecided, and AdaStop was never done however many runs were added)
                continue
            if g in run.withheld_pairs:
                row.update(decision=WITHHELD, interim=0, estimate=float(run.blocks[a].mean() - run.blocks[b].mean()),
                           n_1=run.blocks[a].size, n_2=run.blocks[b].size, boundary=math.nan,
                           boundary_mc_se=math.nan, reason=_withheld_reason(run.withheld_pairs[g], run, agents))
                rows.append(row)
                continue
            j = local[g]
            code = int(run.test.decision[j])
            k = int(run.test.decided_at[j]) if code != kernels.CONTINUE else run.test.interim
            estimate = (run.blocks[a][:k].mean() - run.blocks[b][:k].mean()) if k else math.nan
            faced = faced_at.get((j, k))  # the rejection boundary of the decision's interim, |mean difference| scale
            row.update(decision=kernels.DECISION_NAMES[code], interim=k, estimate=float(estimate),
                       n_1=k * n, n_2=k * n,
                       boundary=math.nan if faced is None else faced["boundary"] / (k * n),
                       boundary_mc_se=math.nan if faced is None else faced["boundary_mc_se"] / (k * n),
                       reason=_reason(run, (a, b), agents, n) if code == kernels.CONTINUE else None)
            rows.append(row)
    frame = pd.DataFrame(rows)
    frame["reason"] = frame["reason"].astype(object)
    return frame


def _history_rows(runs, pairs, agents, n_of, blocked):
    rows = []
    for run in runs:
        n = n_of(run)
        for h in run.test.history:
            a, b = pairs[run.pair_ids[h["comparison"]]]
            scale = h["interim"] * n
            row = {"task": run.name} if blocked else {}
            row.update(agent_1=agents[a], agent_2=agents[b], interim=h["interim"], estimate=h["sum"] / scale,
                       statistic=h["statistic"] / scale, boundary=h["boundary"] / scale,
                       boundary_mc_se=h["boundary_mc_se"] / scale, accept_boundary=h["accept_boundary"] / scale,
                       accept_boundary_mc_se=h["accept_boundary_mc_se"] / scale,
                       decision=kernels.DECISION_NAMES[h["decision"]])
            rows.append(row)
    columns = (["task"] if blocked else []) + ["agent_1", "agent_2", "interim", "estimate", "statistic",
                                               "boundary", "boundary_mc_se", "accept_boundary",
                                               "accept_boundary_mc_se", "decision"]
    return pd.DataFrame(rows, columns=columns)


def _step_rows(runs, pairs, agents, n_of, blocked):
    rows = []
    for run in runs:
        n = n_of(run)
        for s in run.test.steps:
            scale = s["interim"] * n
            chosen = s["comparison"]
            a, b = pairs[run.pair_ids[chosen]] if chosen >= 0 else (None, None)
            row = {"task": run.name} if blocked else {}
            row.update(interim=s["interim"], step=s["step"], n_comparisons=s["n_comparisons"],
                       alpha_divisor=s["alpha_divisor"],
                       boundary=s["boundary"] / scale, boundary_mc_se=s["boundary_mc_se"] / scale,
                       accept_boundary=s["accept_boundary"] / scale,
                       accept_boundary_mc_se=s["accept_boundary_mc_se"] / scale,
                       max_statistic=s["max_statistic"] / scale, min_statistic=s["min_statistic"] / scale,
                       action=s["action"], agent_1="" if a is None else agents[a],
                       agent_2="" if b is None else agents[b])
            rows.append(row)
    columns = (["task"] if blocked else []) + ["interim", "step", "n_comparisons", "alpha_divisor", "boundary",
                                               "boundary_mc_se",
                                               "accept_boundary", "accept_boundary_mc_se", "max_statistic",
                                               "min_statistic", "action", "agent_1", "agent_2"]
    return pd.DataFrame(rows, columns=columns)


def _spending_rows(runs, schedules, blocked):
    rows = []
    seen = set()
    for run in runs:
        sched = schedules[run.name]
        key = run.name if blocked else None
        if key in seen:
            continue
        seen.add(key)
        reject, accept = sched.reject_level, sched.accept_level
        for k in range(sched.max_interims):
            row = {"task": run.name} if blocked else {}
            row.update(interim=k + 1, batch_size=sched.n, n_paths=sched.n_paths[k], exact=sched.exact[k],
                       paths_beyond=sched.reject_counts[k],
                       level_interim=sched.reject_counts[k] / sched.n_paths[k], level=reject[k],
                       accept_level=accept[k])
            rows.append(row)
    return pd.DataFrame(rows)


def _holm_rows(runs, blocked):
    """Per task tested under ``permutations="holm"`` (none for the other schemes): Holm's J (``n_comparisons``), its c
    now (``alpha_divisor``, the comparisons not yet rejected), the level each comparison's own test spends at alpha / J
    over every interim (``level_each``, the first step's), the J of them summed (``level_all``, Bonferroni's sum, the
    family-wise bound) and the level each spends at alpha / c by the last interim run (``interim``;
    ``level_spent_each``, 0 before the first, NaN with every comparison rejected), as
    :func:`kernels.spendable_level` and :func:`kernels.family_level` count them, exactly: what the result prints of
    Holm's levels (audit s30: it re-derived them from the spending table)."""
    rows = []
    for run in runs:
        test = run.test
        if not (test.holm and run.pair_ids):
            continue
        c = test.not_rejected
        row = {"task": run.name} if blocked else {}
        row.update(n_comparisons=len(test.pairs), alpha_divisor=c, level_each=test.first_step_level,
                   level_all=kernels.family_level(test.schedule, len(test.pairs)), interim=test.interim,
                   level_spent_each=kernels.spendable_level(test.schedule, c, test.interim) if c else math.nan)
        rows.append(row)
    columns = (["task"] if blocked else []) + ["n_comparisons", "alpha_divisor", "level_each", "level_all",
                                               "interim", "level_spent_each"]
    return pd.DataFrame(rows, columns=columns)


def _runs_rows(runs, agents, n_of, blocked):
    rows = []
    for run in runs:
        n = n_of(run)
        for a in sorted(run.available):
            row = {"task": run.name} if blocked else {}
            used = run.blocks[a][: run.batches_used[a]]
            row.update(agent=agents[a], n_runs=run.batches_used[a] * n,
                       n_available=run.given.get(a, run.available[a] * n),
                       # display only: scores that cancel (0.1 + 0.2 - 0.3) show a mean of 0, not 5.6e-18
                       mean=float(noise_free(used.mean(), np.ptp(used), np.abs(used).max())) if used.size else math.nan)
            rows.append(row)
    return pd.DataFrame(rows)


def _score_rows(runs, agents, blocked):
    frames = []
    for run in runs:
        for a in sorted(run.available):
            used = run.blocks[a][: run.batches_used[a]]
            frame = pd.DataFrame({"agent": agents[a], "interim": np.repeat(np.arange(1, len(used) + 1),
                                                                           used.shape[1]),
                                  "score": used.ravel()})
            if blocked:
                frame.insert(0, "task", run.name)
            frames.append(frame)
    columns = (["task"] if blocked else []) + ["agent", "interim", "score"]
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=columns)


def _assemble(cls, runs, pairs, agents, *, method, formula, data_name, nobs, notes, options, seed,
              blocked, extra=None):
    """Build the Result from finished task runs; rendering never recomputes anything."""
    if all(g in run.missing_pairs for run in runs for g in range(len(pairs))):
        # audit s28: comparisons= of agents that never shared a task left no row, and building the table failed
        asked = fmt.join_and((f"{agents[a]}-{agents[b]}" for a, b in pairs), 8)
        raise DesignError(f"no comparison asked for has a task on which both its agents ran ({asked}: "
                          f"{'it shares' if len(pairs) == 1 else 'they share'} no task), so there is nothing to "
                          "test; name in comparisons= pairs of agents that ran a common task, or pass reference= an "
                          "agent that shares tasks with the others")
    schedules = {run.name: run.schedule for run in runs}
    # a task whose comparisons are all withheld ran no test: its schedule says nothing of the test's level
    tested = [run for run in runs if run.pair_ids or not run.withheld_pairs] or runs

    def n_of(run):
        return schedules[run.name].n

    sizes = {schedules[r.name].n for r in tested}
    first = schedules[tested[0].name]
    return cls(
        method=method, formula=formula, data_name=data_name, nobs=nobs,
        notes=tuple(notes) + tuple(_absent_notes(runs, pairs, agents, formula)), options=options,
        seed=seed, agents=tuple(agents), tasks=tuple(r.name for r in runs), blocked=blocked,
        batch_size=sizes.pop() if len(sizes) == 1 else None, max_interims=first.max_interims,
        n_resamples=first.n_resamples, alpha=first.alpha, beta=first.beta,
        level_spent=min(schedules[r.name].reject_level[-1] for r in tested),
        decisions=_decision_rows(runs, pairs, agents, n_of, blocked),
        runs_used=_runs_rows(runs, agents, n_of, blocked),
        history=_history_rows(runs, pairs, agents, n_of, blocked),
        steps=_step_rows(runs, pairs, agents, n_of, blocked),
        spending=_spending_rows(tested, schedules, blocked), holm_levels=_holm_rows(runs, blocked),
        scores=_score_rows(runs, agents, blocked), **(extra or {}))


def _absent_notes(runs, pairs, agents, formula=None):
    """A note naming the agents without runs on a task, whose pairs are no comparison there (no row), the tasks left
    with none and the pairs compared on no task (audit s14 review: the rows were dropped without a word)."""
    absent = {}
    for run in runs:
        for g in run.missing_pairs:
            for a in pairs[g]:
                if a not in run.available:
                    absent.setdefault(a, []).append(run.name)
    if not absent:
        return []
    where = "; ".join(f"{agents[a]} has no runs on {fmt.join_and(dict.fromkeys(tasks), 5)}"
                      for a, tasks in sorted(absent.items()))
    task, agent = ("task", "agent") if formula is None else (formula.block_word, formula.arm_word)  # (words33b)
    note = (f"{where}: a pair with {fmt.a_or_an(agent)} that did not run {fmt.a_or_an(task)} is no comparison there "
            "(no row)")
    empty = [run.name for run in runs if run.missing_pairs and not run.pair_ids and not run.withheld_pairs]
    if empty:
        note += f"; {fmt.join_and(empty, 5)} {fmt.verb(len(empty), 'has')} no comparison"
    nowhere = [g for g in range(len(pairs)) if all(g in run.missing_pairs for run in runs)]
    if nowhere:
        names = fmt.join_and((f"{agents[pairs[g][0]]}-{agents[pairs[g][1]]}" for g in nowhere), 8)
        note += f"; {names} share no task and {fmt.verb(len(nowhere), 'is')} compared on none"
    return [note]


def _order_column(design, options):
    """The column whose order forms the interims when no batch column is given (None: row order).

    The replicate column's order is the Design's own (its rows are sorted by it within each cell).
    """
    if options.batch is not None:
        return None
    if design.formula.replicate is not None:
        return design.formula.replicate
    return "seed" if "seed" in design.extra and design.formula.groups != "seed" else None


def _design_options(options):
    """What :func:`adastop` asks of the front door: its batch column, else the seed column when there is one; and no
    note on copied runs, which :func:`_copied_notes` and :func:`_repeat_notes` give of the interims fed."""
    return dict(na_action=options.na_action, extra_columns=() if options.batch is None else (options.batch,),
                optional_columns=("seed",) if options.batch is None else (),
                note_copies=False)  # _copied_notes says it of the interims fed (a copy never fed is not analysed)


def _interim_notes(design, options, order_column, K, task_data):
    notes = []
    n, agent = options.n, design.arm_word  # the arm column by its name (audit s32 block32)
    if options.batch is not None:
        notes.append(f"interims are the batches of column '{options.batch}' in sorted order, n = "
                     f"{fmt.count(n, 'run')} per {agent} each")
    elif order_column is not None:
        notes.append(f"interims are consecutive groups of n = {fmt.count(n, 'run')} per {agent} in the order of "
                     f"column '{order_column}' (pass batch= to name the batches)")
    else:
        # the run column by the formula's own (audit s33 words33b: "no batch or seed column" of '| env' over a 'rep')
        named = (f", as '{design.formula.text}/<run column>' would" if design.formula.blocks is not None
                 and not design.formula.outer else "")
        notes.append(f"interims are consecutive groups of n = {fmt.count(n, 'run')} per {agent} in row order (no "
                     f"batch column, and the formula names no run column to order them{named}; pass batch= to name "
                     "the batches)")
    cells = np.bincount(design.task * len(design.agents) + design.agent, minlength=design.n_tasks * len(design.agents))
    beyond = cells.reshape(design.n_tasks, -1) - K * n
    if (beyond > 0).any():
        parts = [f"{task}: " * (design.n_tasks > 1) + fmt.name_list(
                 [design.agents[a] for a in np.flatnonzero(row > 0)], after=[f"{v:,}" for v in row[row > 0]])
                 for task, row in zip(design.tasks, beyond) if (row > 0).any()]
        notes.append(f"runs beyond the first K = {K} batches of n = {n} are not used ({'; '.join(parts)})")
    return notes + _per_task_notes(design, "AdaStop")


def _per_task_notes(design, test):
    """The one home of "one test per task" (AdaStop's and the permutation test's: audit s27, the latter said it in
    a printed line and a sentence of its report): a note, which print, summary, report and LaTeX all carry."""
    if design.has_blocks and design.n_tasks > 1:
        task = design.block_word  # the block column by its name (audit s32 block32)
        return [f"one {test} per {task}: the family-wise error is controlled within each {task}, not across "
                f"{fmt.plural(task)}"]
    return []


def _repeated_batches(runs):
    """(index of the run, agent code) -> the (batch, the batch it repeats) pairs among the agent's batches fed."""
    found = {(t, a): kernels.repeated_batches(run.blocks[a][:run.batches_used.get(a, 0)])
             for t, run in enumerate(runs) for a in run.blocks}
    return {key: pairs for key, pairs in found.items() if pairs}


def _repeat_notes(runs, agents, blocked, warn_user=True):
    """The fed batches of an agent that repeat an earlier batch of its runs exactly: a file copied, not new runs
    (the AdaStop paper's Hopper batches 3 and 4 repeat batches 1 and 2 for three agents: audit s20); a note and a
    warning (``warn_user``), as the runs are analysed as given."""
    parts, n = [], None
    repeated = _repeated_batches(runs)
    for t, run in enumerate(runs):
        n = run.schedule.n
        repeats = {}  # (batch, the batch it repeats) pairs -> agents
        for a in sorted(run.blocks, key=lambda code: agents[code]):
            found = repeated.get((t, a))
            if found:
                repeats.setdefault(tuple(found), []).append(agents[a])
        for found, names in repeats.items():
            where = fmt.join_and(f"{k + 1} (= {first + 1})" for k, first in found)
            text = f"{fmt.name_list(names)} at {'interim' if len(found) == 1 else 'interims'} {where}"
            parts.append(f"{run.name}: {text}" if blocked else text)
    if not parts:
        return []
    note = (f"{REPEATED_RUNS} (the same {fmt.count(n, 'score')} in any order; a batch "
            "should hold new runs): " + "; ".join(parts))
    if warn_user:
        warn(note)
    return [note]


def _copied_notes(design, given, task_data, runs):
    """The front door's notes on copied runs (:func:`rlstats.design.copied_runs_note`, the one home: runs repeated
    within a cell, or across tasks or agents) of the runs fed, those the tests analysed (audit s35: the AdaStop paper's
    PPO HalfCheetah batch 1, fed, is a copy of PPO's Hopper runs, and only the other back ends said so); the cells
    whose repeated batches :func:`_repeat_notes` names by interim are left out of its sentence on runs copied within
    a cell. None of it where the Design was given (its notes, from build, said it of all its runs) or where a row is a
    mean over seeds (as build: the frame's, or the formula's ``| task/run/seed``)."""
    if given is None or given.attrs.get(AVERAGED_ATTR) or design.averaged_within is not None:
        return []
    fed = [data_t.rows[a][:run.batches_used.get(a, 0)].ravel() for data_t, run in zip(task_data, runs)
           for a in data_t.rows]
    rows = np.sort(np.concatenate(fed)) if fed else np.zeros(0, dtype=np.intp)
    if rows.size < 2:
        return []
    said = [t * design.n_agents + a for t, a in _repeated_batches(runs)]
    return copied_runs_note(design, given, said_within=said, incomplete_refused=False, rows=rows)


def _unused_notes(runs, pairs, agents, K, blocked):
    """The runs within the first K batches that the test never fed (it had decided, or stopped, before their
    batch), counted per agent (and task): the printed runs used alone left them unsaid (audit s12)."""
    parts, total = [], 0
    for run in runs:
        compared = sorted({a for i in run.pair_ids for a in pairs[i]}, key=lambda a: agents[a])
        n = run.schedule.n
        unused = [(agents[a], (min(run.available[a], K) - run.batches_used[a]) * n) for a in compared]
        unused = [(name, k) for name, k in unused if k > 0]
        if unused:
            total += sum(k for _, k in unused)
            text = ", ".join(f"{name} {k}" for name, k in unused)
            parts.append(f"{run.name}: {text}" if blocked else text)
    if not total:
        return []
    return [f"{fmt.count(total, 'run')} within the first K = {K} batches {fmt.verb(total, 'was')} not "
            "used: the test had decided every comparison they would enter, or had stopped, before their batch ("
            + "; ".join(parts) + ")"]


@public_function
def adastop(data: Data, formula: FormulaLike | None = None, *, n: int = 5, K: int | None = None,
            n_resamples: int = 10_000, alpha: float = 0.05, beta: float = 0.0,
            comparisons: str | Sequence[tuple[Label, Label]] = "all", reference: Label | None = None,
            batch: str | None = None, permutations: Permutations = "holm", na_action: NaAction = "raise",
            rng: Seed = None, progress: bool = True,
            max_seconds: float | None = None, eval_env: EvalEnv = None) -> AdaStopResult:
    """AdaStop: adaptive sequential comparison of agents with a family-wise error below alpha.

    Runs the AdaStop test of Mathieu et al. (2023) on runs already
    collected, interim by interim: at each interim every agent still in an
    undecided comparison contributes ``n`` new runs, a permutation test with
    step-down decides which comparisons can be concluded, and the agents
    whose comparisons are all decided stop.  Decisions are ``larger``,
    ``smaller`` (agent_1 versus agent_2, from the sign of the mean
    difference), ``equal`` (not rejected at the last interim, or accepted
    early when ``beta > 0``) or ``continue``.  ``equal`` is the paper's
    name, kept as the value for code ported from its implementation; it
    shows no equality, and print, summary and report say "no difference
    found".

    Parameters
    ----------
    data : pandas.DataFrame or Design
        Long format, one row per run; never modified.
    formula : str or Formula
        ``"score ~ agent"`` for one task, ``"score ~ agent | task"`` to run one
        independent AdaStop per task (the guarantee then holds per task).
    n : int
        Runs per agent per interim (the paper's N).
    K : int, optional
        Maximum number of interims; default: the number of batches
        available (the most any agent has).  The spending ``alpha * k / K``
        depends on it, so fix it before collecting data.  Runs past ``K``
        batches are never fed and are counted in a note; there (without
        ``batch=``) a last group short of ``n`` is no error.
    n_resamples : int
        Maximum number of permutation paths (the paper's B).  With two agents
        (or the slot choices of ``"holm"`` and ``"pairwise"``) interims whose whole permutation tree
        has at most this many paths (half of ``C(2n, n)**k``) are enumerated
        exactly and later ones use this many random paths, the identity
        included; joint relabelling of three agents or more uses this many
        random paths from the first interim on.
    alpha : float
        Family-wise error level.
    beta : float
        Early-accept level (the paper's Appendix F, with its alpha/beta labels
        put right): 0 switches it off.  Heuristic, without a guarantee.
    comparisons : "all" or list of (agent_1, agent_2)
        The family of comparisons; all pairs by default.
    reference : str, int or float, optional
        Compare this agent with every other one (instead of ``comparisons``); named, as the pairs' agents are,
        as the data write it (an agent coded 9: 9 or "9").
    batch : str, optional
        Column giving each run's batch (interim); batches are taken in sorted
        order (text in the order it reads: '2' before '10') and must hold
        exactly ``n`` runs per agent.  Without it the
        interims are consecutive groups of ``n`` runs in the order of the
        formula's replicate column (``task/seed``), else of a ``seed`` column
        when there is one (text in the order it reads: '2' before '10'),
        else in row order; each agent's runs must then be a multiple of ``n``.
    permutations : {"holm", "joint", "pairwise"}
        How a permutation path acts on the data.  ``"holm"`` (default; audit
        s29): the paper's paths (at each interim ``n`` of ``2n`` slots of a
        pair), but each comparison is tested on its own pair's paths at
        ``alpha / c`` with ``c`` comparisons not yet rejected (Holm's): the
        family-wise error is at most alpha under any partial null, whatever
        the other agents' spreads; with one interim and few runs it cannot
        reject (n = 3, whose pair has 20 splits; 8 agents at n = 5), and then
        says so.  ``"joint"`` (the default before audit s29b): a path
        relabels the pooled runs of every agent still running and every
        comparison reads its difference from that relabelling, which keeps
        the family-wise error at alpha when all the agents' runs are
        exchangeable under the null (identical distributions), not when
        identical agents sit beside agents of another spread (see Notes).
        ``"pairwise"`` (the paper's Algorithm 3): every comparison applies
        one slot choice to its own pooled pair, tested jointly; with three
        identical agents or more its error can exceed alpha (see Notes).
        The three are the same test for two agents; only ``"holm"`` keeps
        alpha in every design measured.
    na_action : {"raise", "drop", "omit"}
        Missing values: an error, or drop the rows and say so.
        ``"omit"`` (R's ``na.omit``) is the same as ``"drop"``.
    rng : None, int or numpy.random.Generator
        Seed of the random permutation paths (recorded in the result).
    progress : bool
        A progress bar (tqdm: on a terminal, or a notebook's widget) when the work is estimated to take more
        than a few seconds (:mod:`rlstats.cost`; none for fast calls); False: never.
    max_seconds : float, optional
        The most estimated seconds of work the call starts (None: an hour, ``rlstats.cost.MAX_SECONDS``); above
        it the call is an OptionError quoting the estimate. ``float("inf")``: no bound.
    eval_env : patsy.EvalEnvironment, optional
        Where the response expression's names are looked up.

    Returns
    -------
    AdaStopResult

    Raises
    ------
    FormulaError, DesignError, OptionError

    See Also
    --------
    rlstats.AdaStop : The same test run batch by batch while experiments run.
    rlstats.permutation : The same test with a single interim.
    rlstats.power : How many runs AdaStop uses on simulated data.

    Notes
    -----
    When an agent that an undecided comparison still needs has no further
    batch, the test of that task stops there: the undecided comparisons stay
    ``continue`` with the reason "runs exhausted" (stopping a sequential test
    early never raises its error).  Runs the test never fed, as it had decided
    (or stopped) before their batch, are counted per agent in a note, as are
    runs beyond K batches.

    With two agents the test is exact: under equal distributions the chance
    of a rejection is the level spent (at most ``alpha``).  With three agents
    or more the default ``"holm"`` keeps that for each comparison on its own
    pair's runs and Holm's step-down bounds the family (below).  The joint
    relabelling (``permutations="joint"``, the default before audit s29b)
    is a permutation of the data, so
    the identity path is exchangeable with the random paths and the error
    under identical agents again equals the level spent.  Its cost: less
    power when some agents differ widely (their runs widen the permutation
    spread of the others' comparisons), and Monte Carlo noise from the first
    interim on (report the seed).

    That exchangeability needs every agent's runs to be exchangeable under
    the null.  When identical agents sit beside agents of another spread,
    the relabelling pools their runs with the others' and the boundary of
    their true equality moves: the ``adastop.fwe_spread`` rows of
    :func:`rlstats.calibration_table`
    (``tests/reference/size_adastop_spread.py``; two identical agents
    ``ratio`` times as spread as the others, all of equal mean, on a grid of
    3, 4 and 8 agents, n = 3, 5, 10, K = 1 and 4, normal and skewed scores,
    600 tests each, standard error 0.009) put the joint relabelling's
    family-wise error at 0.033 to 0.067 at ratios 1 and 2, but 0.048 to 0.108 at ratio 4
    and 0.055 to 0.142 at ratio 10 (above alpha by more than 3 standard
    errors in 5 of the 10 designs at ratio 4).  A task tested with
    ``permutations="joint"`` where two compared agents with 10 runs or more
    have standard deviations 4 times apart or more gets a note quoting
    these rows.  The paper's ``"pairwise"`` scheme
    stayed at 0.018 to 0.063 on the same designs at ratios 2 to 1000 (never
    rejecting at n = 3, K = 1, where its 10 classes cannot spend alpha), and
    ``"holm"`` (audit s29) at 0 to 0.053 on all of them (at most 0.027 at
    ratios 2 to 1000; 0 at n = 3 with one interim and with 8 agents at
    n = 5 and one interim, where it can never reject).

    A boundary of random paths is a Monte Carlo estimate of a quantile of
    the permutation distribution: ``history["boundary_mc_se"]`` (and tidy's
    ``boundary_mc_se``) is its binomial order-statistic standard error, 0
    where the interim's paths are enumerated.  A decision whose statistic
    lies within 2 such errors of its boundary is named in a note, with the
    ``n_resamples`` that would resolve it: another ``rng`` could take it the
    other way, and with it the later interims and the runs used.  The random
    paths lay the agents out in their names' sorted order (as numbers when
    every name reads as one), a slot choice reads each of the "all" pairs
    as the sorted names orient it, and each task's stream is keyed by its
    name: neither the rows' order nor a Categorical's category order changes
    a path, nor does leaving out or renaming another task (a task's test
    draws from its own rows and name alone; a renaming of the agents that
    changes their names' sorted order draws other paths, as another ``rng``
    does).  Pairs
    named by ``comparisons=`` or ``reference=`` are read as named.  Where
    every path is enumerated the default's decisions depend on the runs
    alone: each comparison reads its own pair's column, whose law is the
    same whichever agent sits first and whatever order a batch's runs are
    in (0 of 40 data sets of 4 agents, n = 3, K = 3 changed when renamed or
    named the other way round; audit s30).  The paper's ``"pairwise"``
    scheme is another matter: its one slot choice reads every pair the way
    the names orient it, so a renaming that changes their sorted order
    changes the joint law of the pairs and can change its decisions with
    every path enumerated (3 of the same 40).

    Path statistics within the tie tolerance of each other are ties (tied
    scores, such as successes out of 10, make many paths tie with the
    observed one): at each interim ``rlstats.statistics.tie_tolerance`` of
    the runs fed times their range (1e-12 of it) and of their summed
    ``|score|`` (4 rounding units), summed over the interims.  A tie is never
    beyond a boundary and counts as reaching the observed value in a
    p-value, so the rounding of sums cannot split it, and a map a * y + b
    of the scores (a > 0) ties the same paths.

    The paper's pairwise slot choice shared by all comparisons is not a
    permutation of the data with three agents or more (an agent sits first
    in one pair and second in another), so the identity is not exactly
    exchangeable with the other paths.  In our simulations of identical
    normal agents its family-wise error exceeded the level spent: 0.057 and
    0.063 in two runs with 3 agents and 0.058 with 4 agents for n = K = 5,
    against 0.050, and 0.056 for 3 agents with one interim against 0.048
    (standard errors 0.002 to 0.003); with skewed (lognormal) scores it fell
    far below (0.015).  Part of that is the package's: it feeds each
    agent's runs of a batch in score order (so that the rows' order draws
    nothing different), and a slot choice shared by every pair then reads the
    same ranks of every agent (8 identical normal agents, n = 5, one
    interim, 2,000 simulated tests: 0.084 so, 0.064 with the runs in random
    order, as the paper's code takes them; audit s29).  The
    ``adastop.fwe_spread`` rows at ratio 1 (every
    agent identical, 600 tests each) put it at 0.068 to 0.098 with 3 and 4
    agents of normal scores (0.037 and 0.040 with skewed ones; 0 at n = 3,
    K = 1) and 0.110 with 8 agents (n = 5, K = 1), against 0.040 to 0.067
    for the joint relabelling.  So neither scheme keeps alpha in every
    design: the joint relabelling misses when identical agents are more
    spread than the others, the paper's when three agents or more are
    identical; the default ``"holm"`` (below) holds on every measured
    design.  Use
    ``permutations="pairwise"`` to reproduce the paper's decisions.

    The default ``permutations="holm"`` (audit s29) keeps alpha under every
    partial null: each comparison's column of paths is an exact permutation
    distribution of its own pair's runs (whatever the other agents' spreads),
    and Holm's step-down spends ``alpha / c`` linearly per comparison with
    ``c`` undecided, so Bonferroni's sum bounds the family-wise error without
    a model of how the comparisons depend.  Given the pooled runs of a true
    equality, at most ``alpha`` of their splits between its two agents are
    rejected (the joint relabelling rejected 6 and 8 of the 70 splits of 4 + 4 runs of
    two identical agents 1000 times as spread as a third, where 3 are
    allowed).  Its cost is power: a pair's own permutations are few (20 at
    n = 3, half of them mirror images), so with one interim it can never
    reject at n = 3, nor with 8 agents (28 comparisons) at n = 5.  Studentised
    (Welch) statistics inside the joint relabelling did not hold either:
    0.121 at 4 agents, n = 3, ratio 1000, and 0.328 at 8 agents, n = 5
    (2,000 simulated tests, one interim).  With several interims the Holm
    scheme often has more power than the joint one, whose pooled relabelling
    widens every comparison's boundary by the other agents' mean
    differences: the share of false equalities rejected, 200 simulated tests
    of unit-variance normal agents (``tests/reference/power_adastop_schemes.py``),
    n = 3, K = 4, was 0.56 against 0.46
    (4 agents of means 0, 0, 1, 2), 0.62 against 0.46 (3 agents, means 0, 1,
    2) and 0.44 against 0.30 (8 agents, means 0 to 3.5 by 0.5); n = 5,
    K = 4: 0.81 against 0.64 and 0.86 against 0.71; n = 5 at the default
    K = 6: 0.93 against 0.85, 0.95 against 0.93 and 0.73 against 0.55
    (n = 10, K = 1: 0.57 against 0.48, 0.65 against 0.53, 0.44 against
    0.30).  With one interim and few runs it has less: n = 5, K = 1, 0.19
    against 0.23, 0.25 against 0.27 and 0 against 0.13.

    The level is exact for identical distributions, not for equal means: a
    decision "larger" or "smaller" says the agents' scores differ, and
    agents of equal mean but different shape are declared different more
    often than ``alpha``.  In our simulations of two agents with equal mean
    and standard deviation, one normal and the other lognormal (skewness
    6.2) or bimodal (a tenth of the runs succeed, the rest fail, as runs that
    sometimes collapse), the defaults at ``alpha = 0.05`` rejected 0.061 to
    0.076 (lognormal) and 0.062 to 0.088 (bimodal) of 1,000 tests per design
    for n = 3 and 5 and K = 2, 4 and 6 (standard error 0.008;
    ``tests/reference/adastop_equal_means.py``).  Under identical skewed or
    capped agents (2, 3 and 5 of them, the same n and K = 2 to 4) it stayed
    within Monte Carlo error of 0.05.  The ``adastop.fwe_means`` rows of
    :func:`rlstats.calibration_table` measure the default with 2 and 3
    agents of equal mean, one of them skewed (lognormal, skewness 3.7),
    heavy-tailed (t with 3 df) or capped (a third of its runs at a ceiling),
    the others normal, at n = 3, 5, 10 and K = 2, 4, 6 (400 tests each,
    standard error 0.011): 0.027 to 0.088 (mean 0.056), 0.037 to 0.073
    with two agents (``tests/reference/size_adastop_means.py``); a result
    quotes the row of its design where the rate is above ``alpha`` by more
    than 3 standard errors, pooled over its 4 draws of the design, or in
    its worst draw by more than 3 standard errors of a draw (there 100
    tests, 0.022), and says which.

    References
    ----------
    Mathieu, T. et al. (2023), AdaStop: adaptive statistical testing for
    sound comparisons of Deep RL agents, arXiv:2306.10882, Algorithm 3,
    Eqs. 8-12 and Appendix F.

    Examples
    --------
    >>> import rlstats
    >>> df = rlstats.datasets.simulate(agents=3, tasks=1, seeds=30, effect=[0.0, 0.0, 2.0], rng=0)
    >>> from rlstats.methods.adastop import adastop
    >>> res = adastop(df, "score ~ agent", n=5, K=6, rng=0)
    >>> res.decisions[["agent_1", "agent_2", "decision"]].values.tolist()
    [['agent_1', 'agent_2', 'equal'], ['agent_1', 'agent_3', 'smaller'], ['agent_2', 'agent_3', 'smaller']]
    >>> res.runs_used["n_runs"].tolist()
    [30, 30, 10]
    """
    options = AdaStopOptions.checked(n=n, K=K, n_resamples=n_resamples, alpha=alpha, beta=beta,
                                     comparisons=comparisons, reference=reference, batch=batch,
                                     permutations=permutations, na_action=na_action, progress=progress,
                                     max_seconds=max_seconds)
    data, formula = data_and_formula(data, formula)
    given = None if isinstance(data, Design) else as_pandas(data)  # the frame the Design's rows are positions in
    design = design_of(data if given is None else given, formula, eval_env=eval_env, **_design_options(options))
    options = _labelled(options, design.agents, **agents_said(design))
    work = admit(cost, design, options, max_seconds, "adastop()")  # issue 43 item 2
    short, withheld = _short_agents("adastop", design, options)
    order_column, task_data, max_interims, pairs, record, runs = _adastop_runs(design, options, rng, short,
                                                                               shows(work, options.progress))
    notes = (list(design.notes) + withheld + _no_level_notes(design, runs)
             + _interim_notes(design, options, order_column, max_interims, task_data)
             + _unused_notes(runs, pairs, design.agents, max_interims, design.has_blocks)
             + _repeat_notes(runs, design.agents, design.has_blocks)
             + _copied_notes(design, given, task_data, runs)
             + _calibration_notes("adastop", runs, options)
             + _spread_notes(runs, design.agents, options, design.has_blocks and design.block_word)
             + _monte_carlo_notes(runs, pairs, design.agents,
                                                                                  design.has_blocks))
    return _assemble(
        AdaStopResult, runs, pairs, design.agents,
        method="AdaStop sequential permutation test", formula=design.formula, data_name=design.data_name,
        nobs=design.nobs, notes=notes, options={**asdict(options), "K": max_interims}, seed=record,
        blocked=design.has_blocks)


def _adastop_runs(design, options, rng, short, shown):
    """Everything :func:`adastop` computes before its tables: the data, the finished tests (``shown``: whether to
    draw a bar)."""
    order_column = _order_column(design, options)
    task_data = _task_data(design, options.n, options.batch, order_column, options.K)
    max_interims = options.K or check_at_most(
        "K", max(len(b) for t in task_data for b in t.blocks.values()), MAX_K, "interims (the batches of n = "
        f"{options.n} runs the data hold)", "pass K= the interims planned, or a larger n")
    pairs = _resolve_pairs(design.agents, options.comparisons, options.reference, **agents_said(design))
    schedule, joint = _schedule(options, options.n, max_interims, [a for p in pairs for a in p], tests=len(task_data))
    _warn_if_powerless(schedule, shares=holm_shares(options, pairs), joint=joint)
    ss, record = seed_sequence(rng)
    runs = []
    with progress_bar(len(task_data) * max_interims, shown, "AdaStop interims") as advance:
        places = design.agent_places
        for t, data_t in enumerate(task_data):
            runs.append(_run_task(_task_key(design, data_t.name), data_t, pairs, options, options.n, max_interims, ss,
                                  advance, short[t], places))
    return order_column, task_data, max_interims, pairs, record, runs


def _task_outcomes(runs):
    """Per task: whether some comparison was decided (larger or smaller), and the mean runs used per agent.

    The numbers power() reads from ``decisions`` and ``runs_used``, without building those tables.
    """
    larger, smaller = (kernels.DECISION_NAMES.index(name) for name in ("larger", "smaller"))
    # two comparisons of the int8 codes, not np.isin (a tenth of power('permutation')'s CPU, two calls per task)
    rejected = np.array([bool(((run.test.decision == larger) | (run.test.decision == smaller)).any()) for run in runs])
    used = np.array([sum(run.batches_used[a] * run.schedule.n for a in run.available) / max(len(run.available), 1)
                     for run in runs], dtype=float)
    return rejected, used


def _simulation_options(function, options):
    """``function``'s keyword defaults (not rng, eval_env, max_seconds: the numbers-only path estimates nothing)
    updated with ``options``."""
    defaults = {name: p.default for name, p in inspect.signature(function).parameters.items()
                if p.kind is inspect.Parameter.KEYWORD_ONLY and name not in ("rng", "eval_env", "max_seconds")}
    unknown = set(options) - set(defaults)
    if unknown:
        raise OptionError(f"{sorted(unknown)} are not options of {function.__name__}()")
    return {**defaults, **options}


def adastop_outcomes(design, *, rng=None, **options):
    """Per task of ``design``: whether :func:`adastop` decides some comparison, and the mean runs it used per agent.

    The same tests, random streams and warnings as :func:`adastop`, without its tables or Result:
    for simulation studies (:func:`rlstats.power`, through ``rlstats.methods.OPERATIONS``).
    """
    options = AdaStopOptions.checked(**_simulation_options(adastop, options))
    design = design_of(design, **_design_options(options))
    short = _short_agents("adastop", design, options)[0]
    return _task_outcomes(_adastop_runs(design, options, rng, short, options.progress)[-1])


@public_function
def permutation(data: Data, formula: FormulaLike | None = None, *, n_resamples: int = 10_000, alpha: float = 0.05,
                comparisons: str | Sequence[tuple[Label, Label]] = "all", reference: Label | None = None,
                permutations: Permutations = "holm", na_action: NaAction = "raise", rng: Seed = None,
                progress: bool = True, max_seconds: float | None = None, eval_env: EvalEnv = None) -> PermutationResult:
    """Permutation test of mean differences between agents, with step-down multiple comparisons.

    AdaStop's machinery with a single interim: the statistic of each pair is
    the absolute difference of the agents' means, one permutation per path is
    shared by every comparison, and the step-down (Romano and Wolf, 2003)
    controls the family-wise error at ``alpha``.  Every agent must have the
    same number of runs (within each task).

    Parameters
    ----------
    data : pandas.DataFrame or Design
        Long format, one row per run; never modified.
    formula : str or Formula
        ``"score ~ agent"``, or ``"score ~ agent | task"`` for one test per task.
    n_resamples : int
        Permutations: with two agents (or ``permutations="holm"`` or
        ``"pairwise"``) all of them are enumerated when half of ``C(2n, n)``
        fits, else this many
        random ones (the identity included); joint relabelling of three
        agents or more always draws this many.
    alpha : float
        Family-wise error level of the decisions.
    comparisons, reference
        The family of comparisons, as in :func:`adastop`.
    permutations : {"joint", "pairwise", "holm"}
        How a permutation acts on the data, as in :func:`adastop`: the
        default ``"holm"`` tests each pair on its own runs' permutations
        with Holm's adjustment (exact under any partial null; its adjusted
        p-values are Holm's of each pair's share; it cannot reject with few
        runs, e.g. 3 runs per agent, whose pair has 20 splits);
        ``"joint"`` relabels the pooled runs of all agents (exact for any
        number of identical agents, not beside agents of another spread);
        ``"pairwise"`` is the paper's shared slot choice (see
        :func:`adastop`'s Notes).
    na_action : {"raise", "drop", "omit"}
        Missing values: an error, or drop the rows and say so.
        ``"omit"`` (R's ``na.omit``) is the same as ``"drop"``.
    rng : None, int or numpy.random.Generator
        Seed of the random permutations, which follow the agents' names sorted and each task's name (as in
        :func:`adastop`): the rows' order, a Categorical's category order and the other tasks change none.
    progress : bool
        A progress bar (tqdm: on a terminal, or a notebook's widget) when the work is estimated to take more
        than a few seconds (:mod:`rlstats.cost`; none for fast calls); False: never.
    max_seconds : float, optional
        The most estimated seconds of work the call starts (None: an hour, ``rlstats.cost.MAX_SECONDS``); above
        it the call is an OptionError quoting the estimate. ``float("inf")``: no bound.
    eval_env : patsy.EvalEnvironment, optional
        Where the response expression's names are looked up; by default the caller's frame.

    Returns
    -------
    PermutationResult
        With step-down adjusted p-values in ``tidy()["p_adjusted"]``.

    See Also
    --------
    rlstats.adastop : The sequential version: decides batch after batch.
    rlstats.skillings_mack : A rank test across tasks on different scales.

    References
    ----------
    Mathieu, T. et al. (2023), arXiv:2306.10882, Section 3.2 and Algorithm 2.
    Romano, J. P. and Wolf, M. (2003), Exact and approximate stepdown methods
    for multiple hypothesis testing, JASA 100(469), 94-108.
    Westfall, P. H. and Young, S. S. (1993), Resampling-Based Multiple Testing.

    Examples
    --------
    >>> import rlstats
    >>> df = rlstats.datasets.simulate(agents=3, tasks=1, seeds=8, effect=[0.0, 0.0, 2.0], rng=0)
    >>> from rlstats.methods.adastop import permutation
    >>> res = permutation(df, "score ~ agent", rng=0)
    >>> len(res.tidy())
    3
    """
    options = _permutation_options(n_resamples=n_resamples, alpha=alpha, comparisons=comparisons,
                                   reference=reference, permutations=permutations, na_action=na_action,
                                   progress=progress, max_seconds=max_seconds)
    design = design_of(data, formula, na_action=options.na_action, eval_env=eval_env)
    options = _labelled(options, design.agents, **agents_said(design))
    work = admit(cost, design, options, max_seconds, "permutation()")  # issue 43 item 2
    short, withheld = _short_agents("permutation", design, options)
    pairs, record, runs = _permutation_runs(design, options, rng, short, shows(work, options.progress))
    p_adjusted = np.concatenate([_stepdown_pvalues(run, pairs) for run in runs])
    return _assemble(
        PermutationResult, runs, pairs, design.agents,
        method="Permutation test of mean differences with step-down", formula=design.formula,
        data_name=design.data_name, nobs=design.nobs,
        notes=list(design.notes) + withheld + _unreachable_notes(design, runs)
        + _per_task_notes(design, "permutation test")
        + _calibration_notes("permutation", runs, options)
        + _spread_notes(runs, design.agents, options, design.has_blocks and design.block_word)
        + _monte_carlo_notes(runs, pairs, design.agents, design.has_blocks, sequential=False),
        options={**asdict(options), "n": None}, seed=record, blocked=design.has_blocks,
        extra={"p_adjusted": p_adjusted})


def _smallest_pvalue(run):
    """The smallest p-value the one-interim test of ``run`` can attain.

    A step-down p-value counts the identity path, so it is never below 1 / (paths).  Joint relabelling draws
    random paths, whose grid always has a level to spend, but its first step's statistic, the largest absolute
    difference over the comparisons F of L agents with n runs each, is largest when a compared pair holds the n
    lowest and the n highest runs, which 2 |F| (n!)^2 ((L - 2) n)! of the (L n)! / (n!)^L relabellings do: no
    exact permutation p-value is below that share (1 at one run per agent with every pair compared, 1/15 at 3
    agents x 2 runs; the Monte Carlo p-value estimates it).
    """
    smallest = 1 / run.schedule.n_paths[0]
    if run.joint:
        smallest = max(smallest, _joint_share(run.schedule.n, len(np.unique(run.test.pairs)), len(run.test.pairs)))
    return smallest


def _joint_share(n, n_agents, n_pairs):
    """The share of joint relabellings that put a compared pair's runs at the two extremes (:func:`_smallest_pvalue`)."""
    log_share = (math.log(2 * n_pairs) + 2 * math.lgamma(n + 1) + math.lgamma((n_agents - 2) * n + 1)
                 - math.lgamma(n_agents * n + 1))
    return min(1.0, math.exp(log_share))


def _way_on(run, agent="agent"):
    """What lets a one-interim test that cannot reject do so (holmfix29: its note named no way on): the fewest runs
    per agent at which its smallest p-value (Holm's adjusted one: J / paths) is at most alpha with a level to spend,
    and, for Holm, permutations="joint" where that can reject at these runs."""
    schedule, n_pairs = run.schedule, len(run.test.pairs)
    n_agents = len(np.unique(run.test.pairs))
    shares = n_pairs if run.test.holm else 1

    def least(n):  # the smallest p-value at n runs per agent (the joint scheme's, or a pairwise grid's), or None
        if run.joint:
            found = kernels.make_schedule(n, 1, schedule.n_resamples, schedule.alpha, enumerate_paths=False)
            return max(1 / schedule.n_resamples, _joint_share(n, n_agents, n_pairs)), found
        found = kernels.make_schedule(n, 1, schedule.n_resamples, schedule.alpha)
        return shares / found.n_paths[0], found

    runs = None
    for n in range(schedule.n + 1, MAX_N + 1):
        p, found = least(n)
        if kernels.spendable_level(found, shares) > 0 and p <= schedule.alpha:
            runs = n
            break
        if not found.exact[0] and (not run.joint or p <= 1 / schedule.n_resamples):
            break  # every larger n draws n_resamples paths alike
    ways = [f"at {fmt.count(runs, 'run')} per {agent} it can" if runs else
            f"no number of runs can at n_resamples = {schedule.n_resamples:,}"]
    if shares > 1 and math.floor(schedule.alpha * schedule.n_resamples) > 0 and max(
            1 / schedule.n_resamples, _joint_share(schedule.n, n_agents, n_pairs)) <= schedule.alpha:
        ways.append(f'permutations="joint" can reject at these runs, and keeps alpha where the {fmt.plural(agent)}\' '
                    "scores are alike in spread and shape (its calibration rows miss alpha where spreads differ "
                    "4-fold or more)")
    return "; ".join(ways)


def _unreachable(run):
    """Whether the one-interim test of ``run`` cannot reject at alpha: no level to spend on its grid of paths, or
    its smallest attainable p-value (:func:`_smallest_pvalue`) above alpha."""
    return run.test.first_step_level == 0 or _smallest_pvalue(run) > run.schedule.alpha


def permutation_level_spent(design, **options):
    """The level :func:`permutation` can spend on data of ``design``, for :func:`rlstats.power`: the Result's
    ``level_spent`` (the smallest over tasks), and 0 where a task's test cannot reject (:func:`_unreachable`), as
    its notes say. Audit s20: 3 agents x 2 runs, whose smallest p-value is 1/15, printed power 0 with level_spent
    0.05 and no word why. The tests' paths fix it, not their random draws (rng=0); their warnings were raised by
    the call power() made on the same data."""
    import warnings

    options = _permutation_options(**_simulation_options(permutation, {**options, "progress": False}))
    design = design_of(design)
    short = _short_agents("permutation", design, options)[0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        runs = [run for run in _permutation_runs(design, options, 0, short, False)[-1] if run.pair_ids]
    if not runs:
        return math.nan
    return min(0.0 if _unreachable(run) else float(run.schedule.reject_level[-1]) for run in runs)


def _unreachable_notes(design, runs):
    """Notes naming the run counts (and tasks) at which the permutation test cannot reject at alpha.

    It cannot where no level can be spent on its grid of paths, or where its smallest attainable p-value
    (:func:`_smallest_pvalue`) is above alpha.
    """
    blocked = {}
    for run in (run for run in runs if run.pair_ids):
        if _unreachable(run):
            schedule = run.schedule
            # Holm's smallest adjusted p-value: the smallest share times the comparisons
            smallest = min(1.0, _smallest_pvalue(run) * (len(run.test.pairs) if run.test.holm else 1))
            way = _way_on(run, design.arm_word)
            blocked.setdefault((schedule.n, smallest, schedule.alpha, way), []).append(run.name)
    notes = []
    for (n, smallest, alpha, way), tasks in blocked.items():
        where = f"at {fmt.count(n, 'run')} per {design.arm_word}"  # the data's columns by name (audit s33 words33b)
        if design.has_blocks:
            where += (f" (every {design.block_word})" if len(tasks) == design.n_tasks
                      else f" ({fmt.count(len(tasks), design.block_word)}: {', '.join(map(str, tasks))})")
        notes.append(f"{fmt.cannot_reject('permutation test', smallest, alpha, where)}; {way}")
    return notes


def _no_level_notes(design, runs, advice=None):
    """A note naming the tasks whose AdaStop spends no level (its decisions 'equal' there are no test); ``design``
    None for the one test of the incremental AdaStop, whose ``advice`` is a new test's n or K. The way on is the
    never-reject warning's (:func:`_powerless_way`, one that works: audit s31 bfix31, where it said "add runs" at
    n = 3, K = 1 and 5 paths, whose fix is n_resamples= with a larger n or K).

    Withholding an agent can leave a task two agents, whose exact grid at small n spends nothing where the joint
    relabelling of three did.
    """
    tasks = [run.name for run in runs if run.pair_ids and run.test.first_step_level == 0]
    if not tasks:
        return []
    if advice is None:
        advice = "; ".join(dict.fromkeys(
            _powerless_way(run.schedule, len(run.test.pairs) if run.test.holm else 1, run.joint, True)
            for run in runs if run.pair_ids and run.test.first_step_level == 0))
    blocked = design is not None and design.has_blocks
    task = design.block_word if blocked else "task"  # the formula's block column (audit s32 block32)
    # "on any task": "cannot reject on every task" reads as "on some task it cannot" (audit s38 claims38)
    where = "" if not blocked else (f" on any {task}" if len(tasks) == design.n_tasks
                                    else f" on {fmt.count(len(tasks), task)} ({', '.join(tasks)})")
    # Holm's alpha / c only where a test has c > 1 comparisons (with one, every scheme is the same test)
    holm = (" (Holm's alpha / c of each of the c comparisons)"
            if any(run.test.holm and len(run.test.pairs) > 1 for run in runs) else "")
    return [f"AdaStop cannot reject{where}: with its runs per interim and interims no level{holm} can be spent on the "
            f"permutation grid, so its decisions{' there' if blocked else ''} are '{NO_DIFFERENCE}' or 'continue' "
            f"whatever the scores; {advice}"]


def _calibration_notes(test, runs, options):
    """The measured family-wise error where the calibration table shows it above alpha by more than 3 SE here,
    pooled or in its worst design draw (:func:`rlstats.calibration.miss_clause` says which).

    The table (the ``adastop.fwe`` rows of ``rlstats/calibration.csv``, written by ``tests/reference/calibrate.py``)
    holds the default options at alpha = 0.05: every pair compared, no early accept, the default ``"holm"`` scheme
    and ``"joint"`` (its ``interval``; empty for two agents, where every scheme is one test), matched by the agents
    of a task's test and its runs per agent (per interim, and the interims, for AdaStop). Other options get no note.
    The level holds within each task, so the tasks do not enter the match.
    """
    if (options.comparisons != "all" or options.reference is not None or options.permutations == "pairwise"
            or options.beta != 0 or not math.isclose(options.alpha, 0.05)):
        return []
    designs = dict.fromkeys((len(np.unique(run.test.pairs)), run.schedule.n, run.schedule.max_interims)
                            for run in runs if run.pair_ids)
    notes = []
    for agents, n, K in designs:
        match = {"configuration": f"K={K}"} if test == "adastop" else {}
        row = calibration.shortfall(_scheme_rows(FWE_PROCEDURE, options.permutations, agents), 1 - options.alpha,
                                    test=test, agents=agents, runs=n, **match)
        if row is None:
            continue
        what = (f"AdaStop with {agents} agents, n = {n} runs per interim and K = {K} interims" if test == "adastop"
                else f"the permutation test with {agents} agents and {fmt.count(n, 'run')} per agent")
        notes.append(f"measured family-wise error of {what}: {1 - float(row['coverage']):.3f}"
                     f"{calibration.worst_draw_clause(row, size=True)} ({row['distribution']} scores, {row['n_sim']} "
                     f"null tests), {calibration.miss_clause(row, 1 - options.alpha, size=True)}")
    if test == "adastop":
        notes += _equal_means_notes(designs, options)
    return notes


def _scheme_rows(procedure, permutations, agents):
    """The rows of ``procedure`` that measure the scheme ``permutations`` with ``agents`` agents: its name in
    ``interval`` from three agents on; with two, where every scheme is one test, the rows of empty ``interval``."""
    scheme = permutations if agents > 2 else ""
    return [row for row in calibration.rows(procedure) if row.get("interval", "") == scheme]


def _spread_notes(runs, agents, options, blocks):
    """A note per task tested with joint relabelling where two of its compared agents with ``SPREAD_MIN_RUNS`` runs
    or more (in the task's first K batches) have standard deviations ``SPREAD_RATIO`` times apart or more, quoting
    the ``adastop.fwe_spread`` rows (audit s23): the joint relabelling is exact when every agent's runs are
    exchangeable under the null, and pools wide and narrow agents' runs otherwise, which shrinks the boundary of
    two identical wide agents. ``blocks``: the block column as the note names a task (``Design.block_word``), None
    without blocks."""
    table = calibration.rows(FWE_SPREAD_PROCEDURE)
    notes = []
    for run in runs:
        if not run.joint:
            continue
        compared = np.unique(run.test.pairs)
        given = {a: run.blocks[a][:run.schedule.max_interims].ravel() for a in compared}
        sd = {a: float(np.std(x, ddof=1)) for a, x in given.items() if x.size >= SPREAD_MIN_RUNS}
        if len(sd) < 2:
            continue
        wide, narrow = max(sd, key=sd.get), min(sd, key=sd.get)
        if sd[wide] == 0 or sd[wide] < SPREAD_RATIO * sd[narrow]:
            continue
        ratio = sd[wide] / sd[narrow] if sd[narrow] > 0 else math.inf
        measured = [r for r in table if int(r["configuration"].split("ratio=")[1]) >= SPREAD_RATIO
                    and int(r["configuration"].split("ratio=")[1]) <= max(ratio, SPREAD_RATIO)]
        joint = [1 - float(r["coverage"]) for r in measured if r["interval"] == "joint"]
        pairwise = [1 - float(r["coverage"]) for r in measured if r["interval"] == "pairwise"]
        holm = [1 - float(r["coverage"]) for r in measured if r["interval"] == "holm"]
        if not joint:
            continue
        where = f" on {blocks} {run.name}" if blocks else ""  # the formula's block column (audit s32 block32)
        how = f"{ratio:.1f} times" if math.isfinite(ratio) else "infinitely (one agent's runs do not vary)"
        ratios = sorted({int(r["configuration"].split("ratio=")[1]) for r in measured})
        span = {c: sorted({int(r[c]) for r in measured}) for c in ("agents", "runs")}
        interims = sorted({int(r["configuration"].split(",")[0][2:]) for r in measured})
        notes.append(f"the runs' standard deviations{where} differ {how}: {agents[wide]} {sd[wide]:.4g}, "
                     f"{agents[narrow]} {sd[narrow]:.4g}. permutations=\"joint\" relabels the pooled runs "
                     "of every agent still running, which keeps the family-wise error at alpha when all the agents' "
                     "runs are exchangeable under the null (identical distributions), not when identical agents sit "
                     "beside agents of another spread: in simulations of two identical agents "
                     f"{fmt.join_and(ratios, conjunction='or')} times as spread as the others (equal means, "
                     f"{span['agents'][0]} to {span['agents'][-1]} agents, n = {span['runs'][0]} to "
                     f"{span['runs'][-1]}, K = {fmt.join_and(interims)}, alpha = 0.05; the "
                     f"calibration table's {FWE_SPREAD_PROCEDURE} rows) it rejected a true equality in up to "
                     f"{max(joint):.3f} of {measured[0]['n_sim']} tests, the paper's permutations=\"pairwise\" in up "
                     f"to {max(pairwise):.3f} (which exceeds alpha instead when three agents or more are identical)"
                     + (f"; the default permutations=\"holm\" (each pair on its own runs' permutations, Holm's "
                        f"step-down: exact under any partial null; less power with one interim) in up to "
                        f"{max(holm):.3f}" if holm else ""))
    return notes


def _equal_means_notes(designs, options):
    """The measured rejection rate of AdaStop at equal means of different shapes (the ``adastop.fwe_means`` rows)
    where the table shows it above alpha by more than 3 SE at this task's agents, n and K, pooled or in its worst
    design draw (audit s21)."""
    notes = []
    for agents, n, K in designs:
        row = calibration.shortfall(_scheme_rows(FWE_MEANS_PROCEDURE, options.permutations, agents),
                                    1 - options.alpha, agents=agents, runs=n, configuration=f"K={K}")
        if row is None:
            continue
        first, other = row["distribution"].replace("_", "-").split("-vs-")
        notes.append(f"AdaStop's level is exact when the agents' score distributions are identical, not when only "
                     f"their means are: with {agents} agents, n = {n} runs per interim and K = {K} interims, agents "
                     f"of equal mean, one with {first} scores and {'the other' if agents == 2 else 'the others'} "
                     f"{other}, were declared different in {1 - float(row['coverage']):.3f} of {row['n_sim']} "
                     f"simulated tests{calibration.worst_draw_clause(row, size=True)}, "
                     f"{calibration.miss_clause(row, 1 - options.alpha, size=True)}; a 'larger' or 'smaller' says "
                     "the distributions differ, and the mean "
                     "difference says which way")
    return notes


#: a decision is flagged when its statistic lies within this many Monte Carlo standard errors of its boundary
MC_FLAG_SE = 2.0
#: flagged decisions a note names before it counts the rest
MC_NOTE_ROWS = 5


def _most_resamples(runs, pairs):
    """The largest n_resamples the memory check (:func:`_check_memory`) lets this design's tests run, at most
    ``MAX_RESAMPLES``: the estimate grows linearly with the paths."""
    n_agents = len({a for p in pairs for a in p})
    sizes = (max(run.schedule.n for run in runs), max(run.schedule.max_interims for run in runs))
    joint = any(run.joint for run in runs)

    def need(paths):
        return kernels.memory_estimate(*sizes, paths, len(pairs), n_agents, joint=joint, tests=len(runs))
    per_path = need(2) - need(1)
    most = (MEMORY_LIMIT - need(1) + per_path) // per_path
    digits = 10 ** max(0, int(math.log10(most)) - 1)  # two significant digits, rounded down
    return int(min(MAX_RESAMPLES, most // digits * digits))


def _needed_resamples(run, k, se, margin, most):
    """The n_resamples that would put ``MC_FLAG_SE`` standard errors of interim ``k``'s boundary inside ``margin``
    (the error falls as ``1 / sqrt(paths)``; two significant digits, rounded up), None when it is above ``most``;
    and, for slot choices (not joint relabelling), the count that enumerates interim ``k``'s whole permutation
    tree (no Monte Carlo error at all), None when it is above ``most``."""
    tree = None
    if not run.joint:
        count, exact = kernels.path_counts(run.schedule.n, k, most)
        tree = count[-1] if exact[-1] else None
    need = run.schedule.n_paths[k - 1] * (MC_FLAG_SE * se / margin) ** 2 if margin > 0 else math.inf
    if need > most:
        return None, tree
    digits = 10 ** max(0, int(math.log10(need)) - 1)
    return int(math.ceil(need / digits) * digits), tree


def _close_decisions(runs):
    """``(run, history entry, boundary, se, margin)`` of every decision whose statistic lies within ``MC_FLAG_SE``
    Monte Carlo standard errors of the rejection or early-accept boundary it was taken against."""
    close = []
    for run in runs:
        for h in run.test.history:
            # each decision once, against the nearer boundary in standard errors (review s7: one close to both was
            # counted twice); a NaN SE (a lower boundary whose order statistic reaches a removed path) is not flagged
            near = [(abs(h["statistic"] - boundary) / se, boundary, se) for boundary, se in
                    ((h["boundary"], h["boundary_mc_se"]), (h["accept_boundary"], h["accept_boundary_mc_se"]))
                    if se > 0 and abs(h["statistic"] - boundary) <= MC_FLAG_SE * se]
            if near:
                _, boundary, se = min(near, key=lambda item: item[0])
                close.append((run, h, boundary, se, abs(h["statistic"] - boundary)))
    return close


def _monte_carlo_notes(runs, pairs, agents, blocked, sequential=True):
    """A note naming every decision whose statistic lies within ``MC_FLAG_SE`` Monte Carlo standard errors of its
    boundary (history's ``boundary_mc_se``), and the n_resamples that would resolve them.

    A boundary of random permutation paths is a Monte Carlo estimate of a quantile of the statistic's permutation
    distribution; where the statistic sits within its error, another rng (or a renaming of the task, or one that
    reorders the agents' names sorted, which the random paths follow) can take the decision the other way, and with
    it the step-down's later steps, a sequential test's later interims and the runs used.
    """
    close = _close_decisions(runs)
    if not close:
        return []
    parts, needs = [], []
    most = _most_resamples(runs, pairs)
    for run, h, boundary, se, margin in close:
        a, b = pairs[run.pair_ids[h["comparison"]]]
        k, scale = h["interim"], h["interim"] * run.schedule.n
        where = (f" on {run.name}" if blocked else "") + (f" at interim {k}" if sequential else "")
        name = kernels.DECISION_NAMES[h["decision"]]
        decision = DECISION_WORDS.get(name, name)
        parts.append(f"{agents[a]} vs {agents[b]}{where}, {decision}: |mean difference| "
                     f"{fmt.signif(h['statistic'] / scale, 5)} against a boundary of "
                     f"{fmt.signif(boundary / scale, 5)}, Monte Carlo SE {fmt.signif(se / scale, 2)} "
                     f"({run.schedule.n_paths[k - 1]:,} random paths)")
        needs.append(_needed_resamples(run, k, se, margin, most))
    one = len(parts) == 1
    it, its = ("it", "its") if one else ("them", "their")
    shown = "; ".join(parts[:MC_NOTE_ROWS])
    if len(parts) > MC_NOTE_ROWS:
        shown += f"; and {len(parts) - MC_NOTE_ROWS} more (history's boundary_mc_se)"
    text = (f"Monte Carlo error: {fmt.count(len(parts), 'decision')} {fmt.verb(len(parts), 'lies')} within "
            f"{MC_FLAG_SE:g} Monte Carlo standard errors of {its} boundary, so another rng could take {it} the other "
            f"way" + (f" (and with {it} the step-down's later steps, the later interims and the runs used)"
                      if sequential else "") + f": {shown}. ")
    unresolved = sum(need is None and tree is None for need, tree in needs)
    counts = [need if need is not None else tree for need, tree in needs if need is not None or tree is not None]
    if unresolved:
        cap = (f"at most {MAX_RESAMPLES:,}" if most == MAX_RESAMPLES else
               f"at most {most:,}: the paths must fit in {MEMORY_LIMIT // 1024 ** 3} GiB")
        single = unresolved == 1
        who = "It sits" if one else ("1 of them sits" if single else f"{unresolved} of them sit")
        text += (f"{who} on the boundary to Monte Carlo precision: no n_resamples rlstats allows ({cap}) makes "
                 f"{'its margin' if single else 'their margins'} exceed {MC_FLAG_SE:g} SE, so read "
                 f"{'it' if single else 'them'} as undecided between the two outcomes: the rng, not the data, "
                 "decides" + ("; for the others, " if counts else ". "))
    if counts:
        text += (("p" if unresolved else "P") + f"ass n_resamples={max(counts):_} to make "
                 f"{'every' if len(counts) > 1 else 'the'} margin exceed {MC_FLAG_SE:g} Monte Carlo SE (the error "
                 "falls as 1 / sqrt(n_resamples)). ")
    trees = {h["interim"]: tree for (run, h, *_), (_, tree) in zip(close, needs) if tree is not None}
    if trees:
        text += (f"n_resamples={max(trees.values()):_} enumerates every path of "
                 f"{fmt.plural('interim', len(trees))} {', '.join(map(str, sorted(trees)))}: no Monte Carlo error. ")
    # interims the paper's slot choice would enumerate at this n_resamples (joint relabelling never enumerates)
    enumerable = sorted({h["interim"] for run, h, *_ in close if run.joint and
                         kernels.path_counts(run.schedule.n, h["interim"], run.schedule.n_resamples)[1][-1]})
    if enumerable:
        what = (f"{fmt.plural('interim', len(enumerable))} {', '.join(map(str, enumerable))}" if sequential
                else "the permutations")
        text += (f"permutations='pairwise' enumerates {what} exactly (no Monte Carlo error), but it is the paper's "
                 "other test, whose family-wise error can exceed alpha with three agents or more: choose it before "
                 "seeing the data. ")
    return [text + "The margins are estimated at this rng, so these counts are a guide, not a guarantee"]


def _permutation_options(*, n_resamples, alpha, comparisons, reference, permutations, na_action, progress,
                         max_seconds=None):
    return AdaStopOptions.checked(n=1, K=1, n_resamples=n_resamples, alpha=alpha, beta=0.0,
                                  comparisons=comparisons, reference=reference, batch=None,
                                  permutations=permutations, na_action=na_action, progress=progress,
                                  max_seconds=max_seconds)


def _permutation_runs(design, options, rng, short, shown):
    """Everything :func:`permutation` computes before its tables: the pairs, the finished tests (``shown``: whether
    to draw a bar)."""
    pairs = _resolve_pairs(design.agents, options.comparisons, options.reference, **agents_said(design))
    _check_memory(options, int(design.counts.max()), 1, pairs, tests=design.n_tasks, sequential=False)
    ss, record = seed_sequence(rng)
    # the random permutations pick positions: the runs of a cell in score order, so a row shuffle draws the same
    order = canonical_order(design.y, design.task, design.agent)
    y, task_of, agent_of = design.y[order], design.task[order], design.agent[order]
    runs = []
    places = design.agent_places
    with progress_bar(design.n_tasks, shown, "permutation tests") as advance:
        for t, task in enumerate(design.tasks):
            n_task = _equal_runs(design, t, task, pairs, options.alpha)
            data_t = _TaskData(task, {a: y[(task_of == t) & (agent_of == a)].reshape(1, -1)
                                      for a in range(design.n_agents) if design.counts[t, a] > 0})
            runs.append(_run_task(_task_key(design, task), data_t, pairs, options, n_task, 1, ss, advance, short[t],
                                  places))
    # one warning for the tasks whose tests are alike (audit s32: five tasks of 3 runs warned five times alike)
    alike = {}
    for r in runs:
        if r.pair_ids:
            alike.setdefault((r.schedule, holm_shares(options, r.pair_ids), r.joint), []).append(r.name)
    for (schedule, shares, joint), tasks in alike.items():
        word = design.block_word  # the formula's block column (audit s32 block32)
        where = "" if design.n_tasks == 1 else (
            f" (on {block_label(design.formula, tasks[0])})" if len(tasks) == 1 else
            f" (on each of the {fmt.count(len(tasks), word)})" if len(tasks) == design.n_tasks else
            f" (on {fmt.plural(word)} {fmt.listed([repr(t) for t in tasks], 5)})")
        _warn_if_powerless(schedule, sequential=False, shares=shares, joint=joint, where=where)
    return pairs, record, runs


def permutation_outcomes(design, *, rng=None, **options):
    """Per task of ``design``: whether :func:`permutation` rejects some comparison, and the runs per agent.

    The same tests, random streams and warnings as :func:`permutation`, without its tables or Result.
    """
    options = _permutation_options(**_simulation_options(permutation, options))
    design = design_of(design)
    short = _short_agents("permutation", design, options)[0]
    return _task_outcomes(_permutation_runs(design, options, rng, short, options.progress)[-1])


def _equal_runs(design, t, task, pairs=(), alpha=0.05):
    """The runs per agent of task ``t``, the same for every agent that ran it; else a DesignError whose way on runs on
    the runs as they are: the task table's permutation test of the mean difference, which with two agents is the
    two-sided test at its alpha (Holm's first step over the two one-sided tests halves it).  With more agents, each of
    the ``pairs`` compared there on its own runs at alpha / J (Bonferroni): the table of all of them at once answers
    which agents could be the best (one-sided, every ordered pair), not the two-sided question refused (audit s32)."""
    counts = design.counts[t][design.counts[t] > 0]
    if counts.min() != counts.max():
        where = f" on {block_label(design.formula, task)}" if design.has_blocks else ""
        ran = design.counts[t] > 0
        agent, agents = design.arm_word, fmt.plural(design.arm_word)
        detail = fmt.name_list(np.asarray(design.agents, dtype=object)[ran], after=design.counts[t][ran],
                               among=design.agents)
        # which runs go must not depend on their scores: dropping the one that suits the comparison biases the
        # test (audit s19), so the advice names a rule fixed before looking
        blind = ("without looking at their scores (e.g. the last runs in seed order, or runs drawn at random with a "
                 "fixed seed): choosing them by score biases the test")
        # a way that runs on these runs as they are (audit s30: "or compare them pairwise" named nothing that did:
        # permutations="pairwise" and a pair alone were refused alike): the task table's two-sample permutation test
        # spelled for the function called (review s30: permutation() itself takes no method=); compare's spelling
        # through compare() and power(), which the command line says as --method task_table -o test=fisher_pitman
        table = ("rlstats.task_table(..., test='fisher_pitman')" if method_called() is not None else
                 "method='task_table', test='fisher_pitman'")
        given, file, commands = "...", "", [(table, "--method task_table -o test=fisher_pitman")]
        if not design.has_blocks:  # a task table needs tasks (review s31): the runs as one task, a column of one value
            formula = f"'{design.formula.response} ~ {design.formula.groups} | task'"
            given = f"data.assign(task='all'), {formula}"
            table = (f"rlstats.task_table({given}, test='fisher_pitman')" if method_called() is not None else
                     f"rlstats.compare({given}, method='task_table', test='fisher_pitman')")
            file = f"a column task of one value (e.g. all) added to the file, the formula {formula} with "
            commands = [(table, f"{file}--method task_table -o test=fisher_pitman")]
        if counts.size == 2:  # one pair, one comparison (audit s18: the SAC/TD3 runs, 192 and 193)
            message = (f"the permutation test (AdaStop's machinery with one interim) needs both {agents} to have the "
                       f"same number of runs{where}; found {detail}. Drop runs to balance them, {blind}; or test them on "
                       f"their runs as they are: {table} (a permutation test of the mean difference, which takes "
                       "unequal runs)")
        else:
            tested = [(a, b) for a, b in pairs if ran[a] and ran[b]] or [tuple(np.flatnonzero(ran)[:2])]
            first, second = (design.agents[i] for i in tested[0])
            condition = subset_selecting(design.formula.groups, (first, second), numeric=design.numeric_agents)
            level = f"alpha={alpha}" + (f" / {len(tested)}" if len(tested) > 1 else "")
            pair = (f"rlstats.compare({given}, method='task_table', test='fisher_pitman', "
                    f"subset={condition!r}, {level})")
            commands.append((pair, f"{file}--method task_table -o test=fisher_pitman -o "
                                   f"{shell_word(f'subset={condition}')} -o alpha={_floored(alpha / len(tested))}"))
            each = (f"test each of the {len(tested)} pairs on its own runs, two-sided at alpha / {len(tested)} "
                    f"(Bonferroni over the pairs{' of each ' + design.block_word if design.has_blocks else ''}), e.g. {first} and "
                    f"{second}" if len(tested) > 1 else f"test the pair {first} and {second} on its own runs")
            message = (f"the permutation test shares one permutation across comparisons, so every {agent} needs the "
                       f"same number of runs{where}; found {detail}. Drop runs to balance the {agents}, {blind}; or {each}: "
                       f"{pair} (with two agents the task table's one-sided permutation tests of the mean difference "
                       "both ways, Holm-adjusted, are the two-sided test at its alpha, whose p-value is the other "
                       "agent's p_adjusted; it takes unequal runs). The task table of all the agents at once "
                       f"({table}) answers another question: which {agents} could be the best, by one-sided tests of "
                       "every ordered pair, Holm-adjusted over the k(k - 1) of them")
        command_line = message
        for python, command in sorted(commands, key=lambda c: -len(c[0])):  # the pair's call holds the table's start
            command_line = command_line.replace(python, command)
        raise DesignError(message, command_line=command_line)
    return int(counts[0])


def _floored(x, digits=3):
    """``x`` to ``digits`` significant digits, rounded down: a level the command line reads as a number, never above
    the one it stands for (alpha / 3 = 0.0166)."""
    shown = float(f"{x:.{digits - 1}e}")
    if shown > x:
        shown = float(f"{shown - 10.0 ** (math.floor(math.log10(x)) - digits + 1):.{digits - 1}e}")
    return f"{shown:g}"


def _stepdown_pvalues(run, pairs):
    """Adjusted p-values in the order of the task's rows of the global pairs (NaN where the pair was withheld; no
    entry for a pair with an agent absent from the task, which has no row)."""
    out = np.full(len(pairs), np.nan)
    if run.test.interim > 0:
        local = kernels.stepdown_pvalues(run.test, _smallest_pvalue(run))
        for j, g in enumerate(run.pair_ids):
            out[g] = local[j]
    return np.delete(out, sorted(run.missing_pairs))
