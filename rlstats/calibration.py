"""The measured level of every default claim, from one table that ships with the package.

``calibration.csv`` beside this module is written by ``tests/reference/calibrate.py`` (rerun it to regenerate any
part: ``--only PROCEDURE``). One row per procedure and grid point:

``procedure``
    What was measured, as ``backend.claim``: ``task_table.possibly_best`` (the possibly-best set holds every truly
    best agent), ``curves.band`` (a band holds the true curve; for ``band=difference`` and ``band=max_t``, two alike
    agents are not declared different anywhere; the median's rows on 2 tasks, ``configuration`` "the mean's bands",
    measure the mean's bands, which ``curves()`` gives the median there, the median of 2 task means being their
    mean), ``skillings_mack.size`` (the default rank test does not reject
    under the null), ``bootstrap.interval`` (a bootstrap interval at few runs per task holds the true metric),
    ``percentiles.interval`` (the performance percentiles' simultaneous intervals all hold their true values),
    ``bootstrap.profile`` (a performance profile's pointwise band holds the true profile at one threshold),
    ``bootstrap.interval_tasks`` (an interval of ``bootstrap(task_bootstrap=True)`` holds the metric's value over the
    population of tasks the tasks were drawn from; ``configuration`` the runs' sd beside the task means' 1),
    ``bootstrap.profile_population`` (a band of ``performance_profile(task_bootstrap=True)`` holds the profile of the
    population of tasks at one threshold; ``metric`` the profile's ``kind``: ``runs`` (the fraction of its runs above
    it) or ``tasks`` (the fraction of its tasks whose mean is above it, audit s30); ``configuration`` the runs' sd
    beside the task means' 1 and the true profile there, e.g. ``run sd 0.3, profile 0.10``),
    ``selection.size`` (the selection check's inspector and reporter tests do not reject under their null),
    ``adastop.fwe`` (AdaStop and the one-shot permutation test reject no comparison under the global null; from
    three agents on, the ``permutations=`` scheme in ``interval``: ``holm``, the default, or ``joint``),
    ``adastop.fwe_means`` (AdaStop rejects no comparison when the agents' means are equal but one agent's
    shape differs, ``interval`` as ``adastop.fwe``'s: ``distribution`` names the pair of shapes, e.g. ``skewed_vs_normal``; a permutation test's level is
    exact for identical distributions only, so these rows measure what its "larger" or "smaller" is worth as a claim
    about means),
    ``adastop.fwe_spread`` (AdaStop rejects no true equality when two identical agents have ``ratio`` times the
    spread of the others, identical among themselves, all of equal mean: ``configuration`` ``K=..,ratio=..``, the
    ``permutations=`` scheme in ``interval``; at ratio 1 every pair is a true equality),
    ``mixed.contrast`` (the mixed model's Tukey or Bonferroni simultaneous intervals of the pairwise differences,
    and since audit s33 Sidak's and Scheffe's at 3 and 8 agents, with Satterthwaite's or Kenward-Roger's df in
    ``test`` and the adjustment in ``interval``, hold every true difference; under agents alike, no pair is declared
    different; since audit s34 also on unbalanced designs, ``configuration`` "unbalanced <pattern> (...): ...",
    ``runs`` empty; since audit s36 on agents alike in mean whose runs differ in spread, ``configuration`` "run sd by
    agent 1/1/1/4: all_equal", :data:`RUN_SPREADS`), ``mixed.f_size`` (the mixed model's omnibus F of the agents, agents alike, does not reject at
    0.05 on unbalanced designs: Satterthwaite's or Kenward-Roger's df in ``test``, ``f_basis=`` in ``statistic``;
    audit s34), ``mixed.means`` (each agent's interval of its
    estimated marginal mean holds its true mean, over the tasks at hand or over tasks drawn afresh),
    ``equivalence.size`` (the equivalence and non-inferiority tests do not declare their alternative when the true
    difference sits on the margin; ``configuration`` "delta = -margin, A vs B: 2 of 5 tasks shared": a pair of an
    incomplete design, whose across-tasks and aggregate tests read the tasks it shared, ``tasks`` their number, audit
    s32), ``equivalence.spread_ruled_out`` (the runs do not wrongly rule out the unlike spreads of ``equivalence()``'s
    note, Bonett's 99% interval of the SD ratio within 1/1.7 to 1.7, where the true spread is the ``equivalence.size``
    rows' own: ``configuration`` "spread 1/2", agent 1's deviations times 1/2; ``level`` 0.995, one side of the
    interval; audit s36 calib36),
    ``task_table.next_ranked`` (an effect-size interval against the next-ranked agent holds the true effect; in
    it and in ``task_table.effect_size``, ``metric`` ``difference`` (audit s33) is Welch's interval of the difference
    of means, whose ``coverage`` is 1 - its false coverage-statement rate, the mean over tasks of the share of a
    task's k - 1 printed intervals that hold, and whose ``se`` is that mean's Monte Carlo error over tasks),
    ``skillings_mack.conover_fwer`` (Conover's post hoc declares no pair of null agents different),
    ``skillings_mack.pairs_fwer`` (the rank test's default post hoc, Tukey's critical difference on balanced designs
    and Holm with exact pair p-values where they can be counted elsewhere, declares no pair of null agents different;
    the adjustment in ``interval``, the pairs' p-values, ``exact``, ``normal``, ``exact_and_normal`` or ``omnibus``,
    in ``statistic``, and ``complete``, ``unbalanced`` or ``incomplete`` in ``configuration``),
    ``power.bootstrap`` (``power("bootstrap")``'s rule does not reject two alike agents, ``statistic`` ``size``; its
    decision on a data set is the one :func:`rlstats.bootstrap` with its defaults makes there, ``agreement``),
    ``bayes.decision`` (the decisions a reader takes from :func:`rlstats.bayes`'s probabilities at the threshold
    ``level``, 0.95, are not wrong: ``statistic`` ``false_equivalence``, P(rope) >= 0.95 although the true mean
    difference sits on the ROPE's edge or 1.5 times beyond it, ``configuration`` ``delta = rope`` or
    ``delta = 1.5 rope``; ``false_difference``, P(better) or P(worse) >= 0.95 although the agents are alike,
    ``delta = 0``; the model in ``test``; posterior decisions, not tests, so ``level`` is the threshold read, not a
    promised level), ...
design columns
    ``test``, ``statistic``, ``band``, ``interval``, ``metric``, ``agents``, ``tasks``, ``runs``,
    ``distribution``, ``configuration``: the design the row was simulated at; empty where a procedure has no such
    choice. The ``curves.band`` and ``bootstrap.interval`` rows of ``configuration`` :data:`FAR_APART` measure one
    fixed design, 3 tasks far apart (audit s34), which the results' notes read for agents whose tasks' runs lie
    apart (:func:`tasks_apart`, audit s34 iqmfar34b) and for none else; so do the ``bootstrap.interval`` and
    ``curves.band`` rows of ``configuration`` :data:`APART_BY_CHANCE` (audit s35 farapart35 and apart35), 3 tasks that
    overlap, drawn as the grid's, a design a data set (so no draws), of the data sets whose runs lay apart by chance
    (the curves': at more than half of the steps, curves()' reading).
``level``
    The nominal level of the claim: the confidence level of an interval, band or set, 1 - alpha for a test.
``coverage``
    The share of simulations in which the claim held: the interval, band or set held the truth, or, for a test
    under its null, the test did not reject (so a test's size is 1 - coverage). It holds its level when
    ``coverage >= level``, as an interval does.
``n_sim``, ``se``
    The simulations behind the row and the binomial standard error of ``coverage``.
``n_resamples``, ``set_size``
    Resamples or permutations each simulated result used, and (possibly-best set) its mean size.
``design_draws``, ``coverage_min``
    How many draws of the tasks' offsets and scales the row pools (``tests/reference/designs.py``), and the lowest
    coverage of a single draw: a row holds only if the pooled coverage and every draw hold, so that one lucky draw
    of the design cannot flatter it. Empty for rows measured on a single fixed design.

A result quotes a row (:func:`shortfall`) where its design is one at which the level was missed by more than 3
Monte Carlo standard errors, pooled or in any one design draw (:func:`worst_draw_clause` words that draw, and
:func:`miss_clause` which of the two missed).

:func:`calibration_table` (``rlstats.calibration_table``) is the table for users: a typed DataFrame, filtered by
procedure and design, with the columns ``default`` (the row measures what the function does when no method is
named: :data:`DEFAULTS`), ``worst`` (:func:`worst_coverage`) and ``misses`` (:func:`misses`);
:func:`coverage_by_runs` is what ``rlstats.plotting.calibration_figure`` draws from it.
"""

from __future__ import annotations

import csv
import functools
import math
import pathlib
from typing import TYPE_CHECKING, Any, Callable, Hashable, Iterable, Mapping, Sequence, TypeVar

import numpy as np

if TYPE_CHECKING:
    import pandas as pd
    from numpy.typing import ArrayLike, NDArray

PATH = pathlib.Path(__file__).with_name("calibration.csv")
#: The ``configuration`` of the optimality gap's rows (``curves.band``, ``bootstrap.interval``) of agents whose every
#: score sits at or below gamma while their true score distribution crosses it: their bands and intervals are the
#: mean's reflected, whose own rows measure a truth below gamma (audit s28: ``tests/reference/coverage_curves_gap.py``,
#: ``tests/reference/coverage_bootstrap_gap.py``); the one name both back ends' notes read
GAP_BELOW_GAMMA = "every score at or below gamma"
#: The start of the ``configuration`` of the ``curves.band`` rows measured where some runs end early or start late
#: (audit s28 early28, ``tests/reference/coverage_curves_early.py``: "runs cut: one_at_5", ...): another design than
#: the complete curves' rows, which curves()' notes read; the one spelling the script and the tests read
RUNS_CUT = "runs cut: "
#: The start of the ``configuration`` of the ``mixed.contrast`` and ``mixed.f_size`` rows measured on unbalanced
#: designs (audit s34 mixbal34, ``tests/reference/coverage_mixed_unbalanced.py``: "unbalanced missing_cells (10 empty
#: cells, runs 5): all_equal"), whose ``runs`` is empty: the runs vary by cell
UNBALANCED = "unbalanced "
#: The start of the ``configuration`` of the ``mixed.contrast`` rows measured where the agents' runs differ in spread
#: (audit s36 calib36, ``tests/reference/coverage_mixed_spreads.py``: "run sd by agent 1/1/4/4: all_equal", each
#: agent's run sd in noise units)
RUN_SPREADS = "run sd by agent "
#: The ``configuration`` of the ``curves.band`` and ``bootstrap.interval`` rows measured on 3 tasks far apart (audit s34
#: iqmfar34, ``tests/reference/coverage_far_apart.py``: offsets 0, 3 and 12 and scales 0.3, 0.6 and 3 in noise units,
#: audit s32's Dopamine trial); the one spelling the script and the tests read
FAR_APART = "tasks far apart: offsets 0, 3, 12; scales 0.3, 0.6, 3"
#: The ``configuration`` of the ``bootstrap.interval`` and ``curves.band`` rows measured on 3 tasks whose scores
#: overlap (drawn as the grid's: offsets uniform on [0, 2], scales lognormal with log-sd 0.5, a design a data set) and
#: whose runs lie apart by chance (:func:`tasks_apart`; audit s35 farapart35, and apart35 for the curves' bands and
#: the bootstrap's median and optimality gap, ``tests/reference/coverage_apart_by_chance.py``): the data
#: that :func:`tasks_apart` reads as apart come from either design, so its notes quote both
APART_BY_CHANCE = "tasks overlapping, runs apart by chance: offsets uniform on [0, 2], scales lognormal"
#: The :data:`APART_BY_CHANCE` design as the notes that quote its rows say it (bootstrap()'s and curves()' alike)
APART_BY_CHANCE_WORDS = ("3 tasks whose scores overlap (offsets and scales drawn as the grid's) and whose runs lay "
                         "apart by chance")
#: {runs per task: (lowest, highest) share of data sets} of 3 tasks drawn as the grid's (the :data:`APART_BY_CHANCE`
#: rows' design) whose runs lie apart by chance (:func:`tasks_apart`), over normal, skewed and capped runs (audit s35
#: farapart35, ``tests/reference/coverage_apart_by_chance.py``'s rates; up to 172 million data sets at 10 normal runs)
APART_BY_CHANCE_SHARE = {3: (0.022, 0.057), 5: (0.0011, 0.0083), 10: (0.000006, 0.00034)}
#: The tasks with runs, lying apart, that send a result to the :data:`FAR_APART` rows (:func:`tasks_apart`): exactly
#: the rows' 3 (review s34: with 4 or 5 tasks apart the IQM's interval holds, 0.95-0.99)
APART_TASKS = 3


def apart_words(label: str, task: str = "task", whose: str = "", why: bool = True) -> str:
    """What a note of agents whose tasks' runs lie apart (:func:`tasks_apart`) says of them, before the rows it
    quotes; bootstrap()'s and curves()' alike. ``why``: with the cause of the IQM's bias where the tasks' scores lie
    apart too (the :data:`FAR_APART` rows' design), said of that design alone: where the scores overlap and the runs
    lie apart by chance (the :data:`APART_BY_CHANCE` rows) the IQM's bias was not that one (audit s35 farapart35:
    -0.015 to 0.000 in noise units on normal runs, where its intervals covered 0.66-0.84)."""
    from .format import plural

    tasks = plural(task)
    text = f"the {APART_TASKS} {tasks}' runs{whose} lie apart (each {task}'s all below or all above every other's)"
    if why:
        text += (f"; where the {tasks}' scores lie apart too, the {label} of the pooled runs, trimming floor(N / 4) of "
                 f"them from each end (3 of 15 at 5 runs a {task}, 20%, not the population's 25%), keeps more of the "
                 f"outer {tasks} than the population's does and is biased")
    return text


def tasks_apart(low: ArrayLike, high: ArrayLike) -> NDArray[np.bool_]:
    """Whether the tasks' runs lie apart, the design of the :data:`FAR_APART` rows: ``low`` and ``high`` (..., tasks),
    each task's smallest and largest run as the IQM pools them (NaN or infinite: no runs there); True where exactly
    :data:`APART_TASKS` (3) tasks have runs and their ranges are pairwise disjoint (every run of a task below every run
    of the next), so that the pooled IQM's trim of floor(N / 4) runs from each end (3 of 15 at 5 runs a task) cuts
    within the outer tasks short of the population's quarter (3.75 of 15) and its estimate sits above the
    population's (audit s34 iqmfar34: +1.0 of its sd at 5 normal runs).

    Not 4 or more tasks (review s34): with 4 tasks apart the trim takes the two outer tasks whole, as the population's
    does, and with 5 it cuts 1 run into the second task where the population cuts 1.25; the default interval held
    there (studentised, 1,000 resamples, 400 intervals each; the far-apart design plus tasks at 30 and 45, sd 1):
    4 x 5 normal 0.960, 5 x 5 normal 0.970, 5 x 3 normal 0.953, 5 x 5 capped 0.988, beside 3 x 5 normal 0.885.

    Audit s34 iqmfar34b measured it (4,000 data sets each, ``tests/test_audit_s34_iqmfar34b.py``): true of 98.5-99.7%
    of the far-apart design's at 3 and 5 runs (normal, skewed, capped), of none of the grid's 5- and 26-task designs
    at 3-5 runs (at most 0.1%; none since review s34's rule of exactly 3 tasks), and of 0.5-6.7% of 3 tasks drawn as
    the grid draws them (offsets on [0, 2]; 20 draws), which the grid does not simulate; the 2-task designs are left
    out (their trim cuts half of each task, the population's too). Audit s35 farapart35, a design a data set (up to
    172 million data sets): 2.2-5.7% at 3 runs, 0.11-0.83% at 5, 0.0006-0.034% at 10; their intervals covered less
    (the IQM's 0.37-0.84, the mean's 0.53-0.91), and have rows of their own (:data:`APART_BY_CHANCE`), which the notes quote beside
    those.

    >>> tasks_apart([[0.0, 3.0, 9.0], [0.0, 1.0, 9.0]], [[1.0, 4.0, 15.0], [1.5, 4.0, 15.0]]).tolist()
    [True, False]
    >>> tasks_apart([[0.0, 3.0, 9.0, 20.0]], [[1.0, 4.0, 15.0, 21.0]]).tolist()  # 4 tasks apart: the trim holds
    [False]
    """
    low, high = np.asarray(low, dtype=float), np.asarray(high, dtype=float)
    ran = np.isfinite(low) & np.isfinite(high)
    order = np.argsort(np.where(ran, low, np.inf), axis=-1, kind="stable")  # the tasks without runs last
    low, high, ran = (np.take_along_axis(a, order, axis=-1) for a in (low, high, ran))
    # consecutive by their lowest runs, each task's highest below the next's lowest: the ranges form a chain
    gaps = (low[..., 1:] > high[..., :-1]) | ~ran[..., 1:]
    return gaps.all(axis=-1) & (ran.sum(axis=-1) == APART_TASKS)


@functools.lru_cache(maxsize=None)
def read(path: str | pathlib.Path = PATH) -> tuple[dict[str, str], ...]:
    """The rows of the table at ``path`` as dicts of strings (none when the file is absent)."""
    path = pathlib.Path(path)
    if not path.exists():
        return ()
    with path.open(newline="", encoding="utf-8") as handle:
        return tuple(csv.DictReader(handle))


@functools.lru_cache(maxsize=None)
def rows(procedure: str) -> tuple[dict[str, str], ...]:
    """The package table's rows measuring ``procedure`` (e.g. ``"curves.band"``); kept, as :func:`read` is (a
    bootstrap() call looks its rows up a few times, and power() makes a thousand calls: 7,680 rows filtered each
    time took a fifth of a call)."""
    return tuple(row for row in read() if row["procedure"] == procedure)


_K = TypeVar("_K")
_KEPT: dict[Hashable, tuple[Any, Any]] = {}
_KEPT_MOST = 4096


def kept(table: Sequence[dict[str, str]], key: Hashable, select: Callable[[Sequence[dict[str, str]]], _K]) -> _K:
    """``select(table)``, computed once per ``key`` and ``table`` (a back end's filter of :func:`rows`, called with
    the same arguments in every call of a simulation: curves() filtered the band's 2,006 rows each call, a twentieth
    of a small call). Read again where ``table`` is another object (a test's rows in place of the package's). The
    answer is shared: callers copy it before changing it."""
    found = _KEPT.get(key)
    if found is None or found[0] is not table:
        if len(_KEPT) >= _KEPT_MOST:
            _KEPT.clear()
        found = _KEPT[key] = (table, select(table))
    return found[1]


def procedures() -> list[str]:
    """The procedures the package table has rows for."""
    return sorted({row["procedure"] for row in read()})


def shortfall(rows: Iterable[dict[str, str]], level: float, **design: object) -> dict[str, str] | None:
    """The row with the lowest coverage among ``rows`` matching ``design`` that miss ``level`` by over 3 SE.

    A row matches when each named column reads as the given value (compared as text, so ``runs=5`` matches
    ``"5"``). The standard error is the binomial one at the nominal level, sqrt(level (1 - level) / n_sim); a row
    that pools design draws also misses when its lowest draw is below the level by 3 standard errors of one draw.
    The rows are ranked by that worst coverage. None when every matching row holds its level or none matches.
    """
    short = [row for row in rows if all(row[key] == str(value) for key, value in design.items())
             and misses(row, level)]
    return min(short, key=worst_coverage) if short else None


def quoted_kinds(cells: Sequence[Sequence[Any]], fewest_per_agent: Sequence[int]) -> tuple[Any, ...]:
    """(M,) the statistic whose rows each of M statistics' calibration notes quote, from ``cells`` (agents, M), the
    statistic whose interval or bands each agent's takes (bootstrap()'s ``_small_runs.interval_kinds``, curves()'
    ``_band_options``): the one that every agent with the fewest runs in a task (``fewest_per_agent``: the runs whose
    rows each agent's notes would read, bootstrap()'s design's, curves()' fewest logged at a step with a band) takes,
    else the statistic's own (the first agent's that is not the mean's). The notes quote the rows at the fewest of
    them, so they speak of those agents' intervals: where each of them takes the mean's (its optimality gap below gamma,
    reflected), the mean's rows measure it; where one keeps the gap's own, the gap's rows. An agent with more runs
    sits at rows of more runs, which the notes do not quote, whichever it takes. The one rule of both back ends (audit
    s28 gapkinds28: curves() read the mean's rows only where every agent took the mean's bands, bootstrap() where every
    agent of the fewest runs took its interval)."""
    fewest = min(fewest_per_agent)
    few = [row for row, n in zip(cells, fewest_per_agent) if n == fewest]
    return tuple(few[0][j] if all(row[j] == few[0][j] for row in few) else
                 next(row[j] for row in cells if row[j] != "mean") for j in range(len(few[0])))

def bracketing_counts(counts: Iterable[int], n: int) -> tuple[int, ...]:
    """The simulated counts (numbers of tasks a grid measured) whose rows speak for a design of ``n``: ``n`` alone
    where it was simulated, else the two that bracket it (the largest below, the smallest above); beyond the grid,
    its end (the largest below a design larger than every count, the smallest above one smaller than all).

    The one rule of every note quoting rows by task count (audit s23, nearest23): a note reads the rows of both
    neighbours and quotes the worse, so it never goes silent because one neighbour is lucky (160 simulated
    intervals a row leave 3 Monte Carlo SE of 0.05 at 95%), and a design of 2 tasks reads its 1- and 5-task rows.
    """
    grid = sorted(set(counts))
    if not grid:
        raise ValueError("no simulated counts to bracket a design with")
    if n in grid:
        return (n,)
    below, above = [c for c in grid if c < n], [c for c in grid if c > n]
    return tuple(([below[-1]] if below else []) + ([above[0]] if above else []))


def nearest_count(counts: Iterable[int], n: int) -> int:
    """The simulated count (of runs, agents) nearest ``n`` among ``counts``, the smaller on a tie (4 runs read the
    3-run rows of a 3, 5 grid): the one rule of the notes that quote the rows at one measured count rather than
    bracket it (:func:`bracketing_counts`): equivalence's size and unlike-spread notes, bayes' decision notes,
    mixed's marginal means (runs and agents) and tuning's bands (runs)."""
    grid = sorted(set(int(c) for c in counts))
    if not grid:
        raise ValueError("no simulated counts to choose the nearest from")
    return min(grid, key=lambda c: (abs(c - n), c))


def bracketing_rows(rows: Iterable[dict[str, str]], n: int,
                    column: str = "tasks") -> tuple[list[dict[str, str]], tuple[int, ...]]:
    """The ``rows`` whose ``column`` (a count) is one of :func:`bracketing_counts` of ``n`` over the rows' counts,
    and those counts (empty and ``()`` where no row has a count)."""
    rows = list(rows)
    counts = {int(row[column]) for row in rows if row.get(column, "")}
    if not counts:
        return [], ()
    kept = bracketing_counts(counts, n)
    return [row for row in rows if row.get(column, "") and int(row[column]) in kept], kept


def bracket_words(counts: Iterable[int], quoted: int | str, noun: str = "task") -> str:
    """``"5 and 26 tasks (the worse on 5)"`` naming the bracketing ``counts`` a note read and the one whose row it
    quotes (``quoted``); ``"5 tasks"`` where it read one count."""
    counts = sorted(set(int(c) for c in counts))
    words = counts_words(counts, noun)
    return words if len(counts) == 1 else f"{words} (the worse on {int(quoted)})"


def counts_words(counts: Iterable[int], noun: str = "task") -> str:
    """``"5 and 26 tasks"``, ``"1 task"``: the simulated counts a note quotes, named."""
    from .format import join_and

    counts = sorted(set(int(c) for c in counts))
    return f"{join_and(counts)} {noun if counts == [1] else noun + 's'}"


def worst_coverage(row: dict[str, str]) -> float:
    """The row's pooled coverage, or its lowest design draw's where it records one."""
    low = _optional(row, "coverage_min")
    return min(float(row["coverage"]), float(low)) if low else float(row["coverage"])


def worst_draw_clause(row: dict[str, str], *, size: bool = False, drawn: str = "the tasks'") -> str:
    """``", 0.871 in the worst of its 4 draws of the tasks' offsets and scales"`` where ``row`` pools design draws
    and its worst draw is below the pooled coverage; empty otherwise. ``size=True`` states 1 - coverage (a test's
    size, above the pooled size); ``drawn`` whose offsets and scales were drawn (``"the configurations'"`` in the
    tuning rows)."""
    low, draws = _optional(row, "coverage_min"), _optional(row, "design_draws")
    if not (low and draws) or float(low) >= float(row["coverage"]):
        return ""
    return (f", {1 - float(low) if size else float(low):.3f} in the worst of its {draws} draws of {drawn} "
            "offsets and scales")


def miss_clause(row: dict[str, str], level: float, *, size: bool = False, target: str | None = None) -> str:
    """Which criterion of :func:`misses` ``row`` fails, as the clause a note quoting it ends on (audit s21).

    ``"below 0.95 by more than 3 Monte Carlo standard errors"`` where the pooled coverage misses ``level``;
    ``"its worst draw below 0.95 by more than 3 Monte Carlo standard errors of a draw"`` where only its worst design
    draw does (the pooled value is within 3 SE). ``size=True`` words a test's size: ``"above alpha = 0.05 ..."``.
    ``target`` replaces the words of the level (``"the level"``, ``"beta = 0.05"``, ``"95%"``). A row that holds
    its level has no such clause: ValueError.
    """
    words = target if target is not None else f"alpha = {1 - level:g}" if size else f"{level:g}"
    way = "above" if size else "below"
    if pooled_misses(row, level, 3.0):
        return f"{way} {words} by more than 3 Monte Carlo standard errors"
    if misses(row, level):
        return f"its worst draw {way} {words} by more than 3 Monte Carlo standard errors of a draw"
    raise ValueError(f"the row holds its level {level:g}: it has no miss to word")


def pooled_misses(row: dict[str, str], level: float, se: float = 3.0) -> bool:
    """Whether the pooled coverage of ``row`` is below ``level`` by more than ``se`` binomial SE at the level."""
    return float(row["coverage"]) < level - se * math.sqrt(level * (1 - level) / int(row["n_sim"]))


def misses(row: dict[str, str], level: float, se: float = 3.0) -> bool:
    """Whether ``row`` is below ``level`` by more than ``se`` Monte Carlo SE (binomial, at the level), pooled or in
    its worst design draw. The table's rule is 3 SE; the reference scripts continue a grid point on more data sets
    where a row is below by 2 (``se=2``: it misses, or may hold by its Monte Carlo error alone)."""
    if pooled_misses(row, level, se):
        return True
    low, draws = _optional(row, "coverage_min"), _optional(row, "design_draws")
    return bool(low and draws) and float(low) < level - se * math.sqrt(level * (1 - level) * int(draws)
                                                                        / int(row["n_sim"]))


def _optional(row: dict[str, str], key: str) -> str:
    """A column that older rows leave empty (absent, blank, or ``nan`` after a round trip through pandas)."""
    value = str(row.get(key) or "")
    return "" if value.lower() == "nan" else value


#: A procedure's patterns: a row matching any one (each column it names holds the value, or one of a tuple's) is meant.
Patterns = tuple[dict[str, str | tuple[str, ...]], ...]

#: Which rows measure each procedure's default: a row does when it matches one of the procedure's patterns (each
#: column it names holds the value, or one of the values of a tuple); ``ALL``, every row (the procedure has no
#: method to choose, or its function picks it from the design, as the rank test picks Friedman or Mack-Skillings).
#: Edit a line when a default changes: tests/test_calibration.py checks each value against the keyword default of
#: the public function it names.
ALL: Patterns = ({},)
DEFAULTS: dict[str, Patterns] = {
    # the default permutations= scheme, "holm" since audit s29b ("joint" before); with two agents every scheme is one
    # test, whose rows leave interval empty
    "adastop.fwe": ({"interval": ("holm", "")},),
    "adastop.fwe_means": ({"interval": ("holm", "")},),  # audit s21: the default at equal means of different shapes
    "adastop.fwe_spread": ({"interval": "holm"},),  # audit s23: the default permutations= scheme
    # bootstrap()'s interval (the metrics' rows) and probability_of_improvement()'s (its rows)
    # (audit s19: the one-task rows where the default withholds, measured with the rule lifted, are "withheld")
    # (audit s28, gapboot28: the gap's default of agents whose every score is at or below gamma, GAP_BELOW_GAMMA)
    # (audit s34 iqmfar34: the default on 3 tasks far apart, FAR_APART; audit s35 farapart35: on 3 tasks that
    # overlap whose runs lie apart by chance, APART_BY_CHANCE)
    "bootstrap.interval": ({"interval": ("studentized", "score"),
                            "configuration": ("", GAP_BELOW_GAMMA, FAR_APART, APART_BY_CHANCE)},),
    "bootstrap.profile": ({"metric": "runs", "interval": "wilson"},),  # the profile's kind and band
    # audit s28 taskboot28: task_bootstrap=True, against a population of tasks; the studentised default gives way there
    # to "expanded_tasks" (audit s29 taskboot29; the percentile interval before): the mean's rows are its bootstrap-t
    # ("expanded_tasks_t"), and it is given from 10 tasks for the mean and the gap and from 5 for the median and IQM
    # (_small_runs.TASKS_MIN_TASKS, audit s29 tbfix29b; withheld below, with a note), so the rows at the task counts
    # where it is given
    "bootstrap.interval_tasks": ({"interval": "expanded_tasks", "metric": ("median", "iqm"),
                                  "tasks": ("5", "10", "26")},
                                 {"interval": "expanded_tasks", "metric": "optimality_gap", "tasks": ("10", "26")},
                                 {"interval": "expanded_tasks_t", "metric": "mean", "tasks": ("10", "26")}),
    # audit s29 profile29: performance_profile(task_bootstrap=True)'s kind="runs" band against a population of tasks,
    # "wilson_tasks" (the tasks as the sample; the percentile band of tasks and runs resampled before)
    "bootstrap.profile_population": ({"metric": "runs", "interval": "wilson_tasks"},
                                     # audit s30 tboot30: kind="tasks" too (the percentile band before)
                                     {"metric": "tasks", "interval": "wilson_tasks"}),
    # kind="tasks": the skew-corrected t band (audit s12; "t" from audit s10, whose rows stay)
    "bootstrap.profile_tasks": ({"metric": "tasks", "interval": "skew_t"},),
    "curves.band": ({"interval": ("studentized", "")},),  # bootstrap-t bands; the difference band and max-T
    "mixed.contrast": ({"test": "satterthwaite", "interval": "tukey"},),  # ddf and adjust
    # audit s34 mixbal34: the omnibus F of unbalanced designs, ddf and f_basis
    "mixed.f_size": ({"test": "satterthwaite", "statistic": "orthonormal"},),
    # ddf (the marginal means' intervals are not adjusted) and the estimand the result names: each agent's mean over
    # the tasks analysed; the rows of tasks drawn afresh measure another reading, which the notes quote where it misses
    "mixed.means": ({"test": "satterthwaite", "configuration": "tasks at hand"},),
    "percentiles.interval": ({"interval": "pbp"},),
    # the reporter's skewness-corrected t (issue 40; reporter="t", the paper's, before)
    "selection.size": ({"statistic": "inspector", "test": "fisher_pitman"},
                       {"statistic": "reporter", "test": "skew_t"}),
    "skillings_mack.size": ALL,
    "task_table.effect_size": ({"interval": "fcr"},),  # both effect sizes are reported, at the FCR-adjusted level
    "task_table.possibly_best": ({"test": "welch"},),
    "tuning.best_interval": ({"interval": "select_then_report_pooled_t"},),  # tuned_lower="pooled"
    "tuning.expected_max_band": ({"band": "skew_t"},),
    # equivalence(): TOST per task (Welch) and across tasks (across="welch"); the aggregate's default metric, the IQM;
    # for either alternative= (TOST, and the non-inferiority test: a claim the function makes by default too)
    "equivalence.size": ({"test": ("tost", "noninferior"), "interval": ("welch", "welch_mean")},
                         {"test": ("tost", "noninferior"), "interval": "bootstrap_t", "metric": "iqm"}),
    # audit s36 calib36: the one rule by which equivalence()'s note of unlike spreads leaves a task out (Bonett's interval)
    "equivalence.spread_ruled_out": ALL,
    # issue 41 item 4: task_table's intervals against the next-ranked agent (effect_intervals="fcr"), and Conover's
    # post hoc after the blocked rank test (its adjustment="auto", Holm)
    "task_table.next_ranked": ({"interval": "fcr"},),
    "skillings_mack.conover_fwer": ({"test": "conover", "statistic": "holm"},),
    # the default post hoc (posthoc="ranks", adjustment="auto"): its adjustment and p-values follow from the design
    "skillings_mack.pairs_fwer": ALL,
    # [calibration: tuning complete] the complete algorithm's interval (complete_interval="skew_t")
    "tuning.complete_interval": ({"interval": "skew_t"},),
    # audit s11: power("bootstrap") plans bootstrap()'s default intervals; its size and its agreement with bootstrap()
    "power.bootstrap": ({"statistic": ("size", "agreement"), "interval": "studentized"},),
    # audit s21: bayes()'s default model (model="signed_rank"); both decisions it invites
    "bayes.decision": ({"test": "signed_rank"},),
}
#: The defaults before issue 40 made every default hold its level (as :data:`DEFAULTS` read then): the figure
#: draws a method that was the default and is no longer as a "former default". Never edited.
FORMER_DEFAULTS: dict[str, Patterns] = {
    "bootstrap.interval": ({"interval": "percentile"},),
    "bootstrap.profile": ({"metric": "runs", "interval": "percentile"},),
    "curves.band": ({"interval": ("expanded", "")},),  # the percentile bands, "expanded" since issue 40
    "skillings_mack.size": ({"test": ("friedman", "mack_skillings")},),
    "task_table.effect_size": ({"interval": "per_pair"},),  # the rows before issue 40 had no interval column
    "mixed.contrast": ({"test": "satterthwaite", "interval": "tukey"},),
    "percentiles.interval": ({"interval": "pbp"},),
    "selection.size": ({"statistic": "inspector", "test": "fisher_pitman"}, {"statistic": "reporter", "test": "t"}),
    "task_table.possibly_best": ({"test": "welch"},),
    "tuning.best_interval": ({"interval": "select_then_report_t"},),
    "tuning.expected_max_band": ({"band": "percentile"},),  # named centred_percentile in the rows before issue 40
    # the complete algorithm's two-stage bootstrap, the default then (its rows came later, with its replacement)
    "tuning.complete_interval": ({"interval": "two_stage"},),
}

#: The columns describing the design a row was simulated at, as the table and its filters name them.
DESIGN_COLUMNS = ("test", "statistic", "band", "interval", "metric", "agents", "tasks", "runs", "distribution",
                  "configuration")
#: The columns that name a method (the rest of the design is the estimand and the data): a line of the figure each.
METHOD_COLUMNS = ("test", "band", "interval")
_INTEGERS = ("agents", "tasks", "runs", "n_sim", "n_resamples", "design_draws")
#: the design's sizes among the columns a default is told by: not part of the method a legend names
_SIZES = ("agents", "tasks", "runs")
_FLOATS = ("level", "coverage", "se", "set_size", "coverage_min")
_FLAGS = ("default", "misses")


def is_default(row: dict[str, str], defaults: dict[str, Patterns] = DEFAULTS) -> bool:
    """Whether ``row`` measures its procedure's default (:data:`DEFAULTS`; a procedure not listed has none)."""
    def matches(value: str, wanted: str | tuple[str, ...]) -> bool:
        return value in wanted if isinstance(wanted, tuple) else value == wanted

    return any(all(matches(_optional(row, column), wanted) for column, wanted in pattern.items())
               for pattern in defaults.get(row["procedure"], ()))


def calibration_table(procedure: str | Sequence[str] | None = None, **design: object) -> pd.DataFrame:
    """The package's calibration table: the measured coverage or size of every default claim, as a tidy frame.

    One row per procedure and simulated design (``rlstats/calibration.csv``, written by
    ``tests/reference/calibrate.py``). A row *holds its level* when its coverage is at least ``level`` minus 3
    Monte Carlo standard errors, pooled over its design draws and in its worst draw; results quote the rows that
    do not.

    Parameters
    ----------
    procedure : str or sequence of str, optional
        The procedures to keep (``"bootstrap.interval"``, ``"curves.band"``, ...); all when None.
    **design
        Keep the rows whose column holds the value (or one of a list of values): a design column (``test``,
        ``statistic``, ``band``, ``interval``, ``metric``, ``agents``, ``tasks``, ``runs``, ``distribution``,
        ``configuration``), ``level``, or the flags ``default`` and ``misses``. None keeps the rows where the
        column is empty (the procedure has no such choice).

    Returns
    -------
    pandas.DataFrame
        The table's columns with their types: text as pandas' ``string`` dtype, counts (``agents``, ``tasks``,
        ``runs``, ``n_sim``, ``n_resamples``, ``design_draws``) as nullable ``Int64``, and ``level``,
        ``coverage``, ``se``, ``set_size`` and ``coverage_min`` as floats; empty cells are missing (``<NA>`` or
        NaN). Then ``default`` (the row measures what the function does when no method is named), ``worst``
        (the lower of ``coverage`` and ``coverage_min``) and ``misses`` (below ``level`` by more than 3 Monte
        Carlo standard errors, pooled or in the worst design draw). A test's row holds its size as ``coverage`` =
        1 - size.

    Raises
    ------
    OptionError
        An unknown procedure or column, or a value that no row of the procedures kept holds in that column (the
        message lists those that do).

    See Also
    --------
    rlstats.plotting.calibration_figure : coverage against runs per cell, one panel per procedure.

    Notes
    -----
    The columns are described in the docs' calibration page and in ``rlstats.calibration``'s docstring; coverage is
    the share of simulated data sets whose interval, band or set held the truth (for a test under its null, the
    share that did not reject). The binomial standard error behind ``misses`` is sqrt(level (1 - level) / n_sim).

    Examples
    --------
    >>> import rlstats
    >>> table = rlstats.calibration_table("bootstrap.interval", runs=[3, 5], default=True)
    >>> sorted(table["runs"].unique().tolist())
    [3, 5]
    >>> str(table["runs"].dtype), str(table["coverage"].dtype), bool(table["default"].all())
    ('Int64', 'float64', True)
    >>> bool((table["worst"] <= table["coverage"]).all())
    True

    The share of the default's rows that miss their level, by runs per cell:

    >>> shares = table.groupby("runs")["misses"].mean()
    """
    import pandas as pd

    from .errors import OptionError, shown
    from .options import check_choice

    known = procedures()
    asked = (known if procedure is None else list(procedure) if isinstance(procedure, (list, tuple, set, frozenset))
             else [procedure])
    if not asked:
        raise OptionError("procedure= names no procedure; pass one or a list of: " + ", ".join(map(repr, known)))
    wanted: list[str] = [check_choice("procedure", name, known) for name in asked]
    allowed = (*DESIGN_COLUMNS, "level", *_FLAGS)
    for column in design:
        if column not in allowed:
            raise OptionError(f"{column}= is not a column calibration_table() filters by; filter by one of: "
                              + ", ".join(allowed))
    table = _typed_rows(wanted)
    keep = pd.Series(True, index=table.index)
    for column, value in design.items():
        values = list(value) if isinstance(value, (list, tuple, set, frozenset)) else [value]
        held = table[column]
        present = set(held.dropna().tolist())
        hits = pd.Series(False, index=table.index)
        for item in values:
            if item is None:
                hits |= held.isna()
                continue
            typed = _typed(column, item)
            if typed not in present:
                shown_present = ", ".join(map(repr, sorted(present))) or "none (the column is empty)"
                raise OptionError(f"{column}={shown(item)}: no row of {', '.join(wanted) if procedure else 'the table'}"
                                  f" has it; the values there: {shown_present}")
            hits |= (held == typed).fillna(False).astype(bool)
        keep &= hits
    return table[keep].reset_index(drop=True)


def _typed(column: str, value: object) -> object:
    """A filter's value in its column's type (``runs=5`` and ``runs="5"`` are the same), or an OptionError."""
    from .errors import OptionError, shown

    try:
        if column in _FLAGS:
            if not isinstance(value, bool):
                raise ValueError
            return value
        if column in _INTEGERS:
            if isinstance(value, bool) or float(value) != int(float(value)):  # type: ignore[arg-type]
                raise ValueError
            return int(float(value))  # type: ignore[arg-type]
        if column in _FLOATS:
            return float(value)  # type: ignore[arg-type]
        return str(value)
    except (TypeError, ValueError):
        kind = "True or False" if column in _FLAGS else "a whole number" if column in _INTEGERS else "a number"
        raise OptionError(f"{column}= must be {kind} (or a list of them), got {shown(value)}") from None


#: the rows of :func:`read` and their columns typed (:func:`_typed_columns`; None unless every row has the first
#: one's columns): typed once a process (half a second for 14,000 rows; the suite asked for them dozens of times), and
#: again whenever read() returns other rows (its cache cleared, or the function replaced).
_TYPED: list[tuple[tuple[dict[str, str], ...], pd.DataFrame | None]] = []


def _typed_rows(procedures: Sequence[str]) -> pd.DataFrame:
    """``_frame`` of the rows of :func:`read` measuring ``procedures``: their typed columns taken from the whole
    table's, typed once while read() returns the same rows, into a new frame (a caller changing it changes no other
    call's), then the judgements of :func:`_judged`, made afresh (they follow :data:`DEFAULTS`)."""
    every = read()
    if not _TYPED or _TYPED[0][0] is not every:
        alike = bool(every) and all(row.keys() == every[0].keys() for row in every)
        _TYPED[:] = [(every, _typed_columns(every) if alike else None)]
    typed = _TYPED[0][1]
    at = [i for i, row in enumerate(every) if row["procedure"] in procedures]
    rows = [every[i] for i in at]
    if typed is None or not rows:  # rows of other columns than the first's (made up by a test): typed alone
        return _frame(rows)
    return _judged(typed.take(at).reset_index(drop=True), rows, _row_judgements(every, at))


#: :func:`_judged`'s ``worst`` and ``misses`` of every row of :func:`read` (a row's own numbers decide them, unlike
#: ``default``): judged once while read() returns the same rows (they were three fifths of a whole-table call's 0.15 s)
_ROW_JUDGED: list[tuple[tuple[dict[str, str], ...], Any, Any]] = []


def _row_judgements(every: tuple[dict[str, str], ...], at: Sequence[int]) -> tuple[Any, Any]:
    """(worst, misses) of the rows ``at`` of ``every`` (read()'s rows), from the whole table's, judged once."""
    import numpy as np

    if not _ROW_JUDGED or _ROW_JUDGED[0][0] is not every:
        _ROW_JUDGED[:] = [(every, np.array([worst_coverage(row) for row in every], dtype=float),
                           np.array([misses(row, float(row["level"])) for row in every], dtype=bool))]
    _, worst, missed = _ROW_JUDGED[0]
    return worst[at], missed[at]


def _frame(rows: Sequence[dict[str, str]]) -> pd.DataFrame:
    """The rows of the table (dicts of strings) as a typed frame with the derived columns."""
    return _judged(_typed_columns(rows), rows)


def _typed_columns(rows: Sequence[dict[str, str]]) -> pd.DataFrame:
    """The rows' columns (those of the first row) with their types, empty cells missing."""
    import numpy as np
    import pandas as pd

    columns = list(rows[0]) if rows else list(read()[0]) if read() else ["procedure", *DESIGN_COLUMNS]
    frame = pd.DataFrame([{c: _optional(row, c) for c in columns} for row in rows], columns=columns, dtype=object)
    out: dict[str, Any] = {}
    for column in columns:
        cells = frame[column].replace("", None)
        if column in _INTEGERS:
            out[column] = pd.array([None if c is None else int(c) for c in cells], dtype="Int64")
        elif column in _FLOATS:
            out[column] = np.array([np.nan if c is None else float(c) for c in cells], dtype=float)
        else:
            out[column] = pd.array(list(cells), dtype="string")
    return pd.DataFrame(out, columns=columns)


def _judged(typed: pd.DataFrame, rows: Sequence[dict[str, str]],
            judged: tuple[Any, Any] | None = None) -> pd.DataFrame:
    """``typed`` (the rows' typed columns) with the columns judging each row: ``default``, ``worst``, ``misses``
    (``judged``: the rows' (worst, misses) where they are known, :func:`_row_judgements`)."""
    import numpy as np

    typed["default"] = np.array([is_default(row) for row in rows], dtype=bool)
    if judged is None:
        judged = (np.array([worst_coverage(row) for row in rows], dtype=float),
                  np.array([misses(row, float(row["level"])) for row in rows], dtype=bool))
    typed["worst"], typed["misses"] = judged
    return typed


def method_label(row: Mapping[str, object]) -> str:
    """The method a row measures, as the figure's legend names it: its non-empty method columns (``test``,
    ``band``, ``interval``) and the other columns its procedure's defaults are told by (``statistic`` of
    ``selection.size``) but the design's sizes (the figure takes the lowest over them: a default given from 10 tasks
    named by its task count put a legend line per task count, audit s29), or else its ``metric`` and ``statistic`` (``"a12"``), or the procedure's claim."""
    told = [c for patterns in (DEFAULTS, FORMER_DEFAULTS) for pattern in patterns.get(str(row["procedure"]), ())
            for c in pattern if c not in (*METHOD_COLUMNS, *_SIZES)]

    def named(columns: Sequence[str]) -> list[str]:
        return list(dict.fromkeys(str(row[c]) for c in columns
                                  if row.get(c) is not None and str(row[c]) not in ("", "nan", "<NA>")))

    return ", ".join(named((*told, *METHOD_COLUMNS)) or named(("metric", "statistic"))
                     or [str(row["procedure"]).partition(".")[2]])


#: Said after a default's method in the figure's legend where its rows measure it outside the designs it is the
#: default at (:func:`coverage_by_runs`).
OUTSIDE_DEFAULT = " (where not the default)"

#: A method's role in the figure: the procedure's default, a former default (:data:`FORMER_DEFAULTS`), or other.
ROLES = ("default", "former default", "other")


def coverage_by_runs(table: pd.DataFrame) -> pd.DataFrame:
    """What the calibration figure draws: per procedure, method and runs per cell, the lowest coverage.

    ``table`` is a frame of :func:`calibration_table` (any filter of it). The rows of a procedure are grouped by
    the method they measure (:func:`method_label`) and its ``role`` (:data:`ROLES`); within a group and a number
    of runs per cell, ``coverage`` is the lowest pooled coverage over the other design columns (agents, tasks,
    distribution, metric, ...), ``worst`` the lowest single design draw (NaN where no row records its draws),
    ``level`` the nominal level and ``cells`` the rows behind the point. Rows without ``runs`` are left out.
    """
    import numpy as np
    import pandas as pd

    columns = ["procedure", "method", "role", "runs", "level", "coverage", "worst", "cells"]
    rows = table[table["runs"].notna()]
    if not len(rows):
        return pd.DataFrame(columns=columns)
    # the rows as method_label and is_default read them (strings, "" where empty), in the columns they read: the
    # procedure, the method and measure columns and those the defaults' patterns name (every column's strings took
    # 0.1 s of the 0.22 s of a call on three procedures' 4,559 rows)
    named = {"procedure", "metric", "statistic", *METHOD_COLUMNS,
             *(c for patterns in (DEFAULTS, FORMER_DEFAULTS) for each in patterns.values() for p in each for c in p)}
    records = [{k: ("" if v is None or v is pd.NA or (isinstance(v, float) and v != v) else str(v))
                for k, v in row.items()} for row in rows[[c for c in rows.columns if c in named]].to_dict("records")]
    roles = ["default" if default else "former default" if is_default(row, FORMER_DEFAULTS) else "other"
             for row, default in zip(records, rows["default"].to_numpy(dtype=bool))]
    drawn = rows["coverage_min"].notna().to_numpy() if "coverage_min" in rows else np.zeros(len(rows), bool)
    frame = pd.DataFrame({"procedure": [r["procedure"] for r in records],
                          "method": [method_label(r) for r in records], "role": roles,
                          "runs": rows["runs"].astype(int).to_numpy(), "level": rows["level"].to_numpy(dtype=float),
                          "coverage": rows["coverage"].to_numpy(dtype=float),
                          "worst": np.where(drawn, rows["worst"].to_numpy(dtype=float), np.nan)})
    # a default's method measured where it is not the default (below the task count it is given from, say) keeps its
    # own line, named apart: under the default's very name a dotted line at 0.00 read as the default (audit s29)
    defaults = set(zip(frame["procedure"][frame["role"] == "default"], frame["method"][frame["role"] == "default"]))
    elsewhere = (frame["role"] != "default").to_numpy() & np.array(
        [key in defaults for key in zip(frame["procedure"], frame["method"])], dtype=bool)
    frame.loc[elsewhere, "method"] = frame.loc[elsewhere, "method"] + OUTSIDE_DEFAULT
    frame["role"] = pd.Categorical(frame["role"], categories=ROLES)
    out = frame.groupby(["procedure", "role", "method", "runs"], sort=True, observed=True).agg(
        level=("level", "max"), coverage=("coverage", "min"), worst=("worst", "min"),
        cells=("coverage", "size")).reset_index()
    out["role"] = out["role"].astype(str)
    return out[columns]
