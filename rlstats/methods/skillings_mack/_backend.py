"""The blocked rank tests' declaration (read by the registry, :mod:`rlstats.methods`).

When to use
-----------
To ask whether agents differ at all across a benchmark of several tasks, whatever the tasks' scales: the test
ranks runs within each task, so it needs no normalisation and no task can dominate the others. It is
``compare()``'s default with blocks. With one run per agent and task it is Friedman's test (Skillings-Mack when
cells are missing); with several seeds it ranks every run (Mack-Skillings) rather than averaging the seeds. Its
post hoc, drawn as the critical-difference diagram, says which pairs differ. It answers whether agents differ,
not by how much: report an effect size beside it (:func:`rlstats.bootstrap`, :func:`rlstats.task_table`).

Post hocs and figures
---------------------
``posthoc="conover"`` is Conover's all-pairs t after Friedman's test, as R's ``PMCMRplus::frdAllPairsConoverTest``:
each difference of rank sums against the residual variance of the within-task ranks, Student's t on (b - 1)(k - 1)
df. It needs one value per agent and task on every task (``within_cell="mean"`` gives one from several seeds); with
empty cells it is refused and ``posthoc="ranks"`` compares each pair over the tasks both agents ran. ``adjustment=``
takes every ``p.adjust.method`` of PMCMRplus under scipy's names: ``"tukey"`` (its "single-step"), ``"holm"`` (the
default here), ``"hochberg"``, ``"hommel"``, ``"bonferroni"``, ``"bh"``, ``"by"`` (false discovery rate) and
``"none"``. On six designs of 3 to 8 agents, ties included (``tests/reference/conover_posthoc.R``), the statistics
and p-values equal PMCMRplus 1.9.10's within 1e-15; the single step's p-values differ from R's ``ptukey`` by up to
1.7e-9, its accuracy, and equal the same tail integrated by R's ``integrate()`` within 4e-15. Holm is the default
because PMCMRplus's single step, the range of k normals at df = Inf, declared some pair of null agents different
in 11.8% of data sets at 3 agents and 5 tasks (``tests/reference/conover_fwer.py``); after Friedman's rejection,
as rlstats asks, both stayed at or below 0.05 there.

``res.plot(hue=...)`` colours the critical-difference diagram by groups of agents (a dict agent -> group, or the
name of a column of ``data=`` constant per agent), with a legend; ``hue_colors=`` picks the colours. The effect
size of each agent against the agent ranked just above it in a task, beside the one against the best, is in
:func:`rlstats.task_table`'s ``tidy()`` (``next_agent``, ``a12_next``, ``hedges_g_next``, ``diff_next_low``).
"""

import dataclasses
import math
from typing import Any

from .._declaration import Backend, PowerRule
from ...cost import Shape, Work

_HERE = "rlstats.methods.skillings_mack"


def citations(result, keys):
    """Friedman (1937) or Quade (1979) first when that test was run, then the post hoc's sources."""
    method = str(getattr(result, "method", ""))
    first = ["friedman1937"] if method.startswith("Friedman") else ["quade1979", "conover1999"] \
        if method.startswith("Quade") else []
    posthoc = {"exact": ["eisinga2017"], "wilcoxon": ["kerby2014"], "conover": ["conover1999"]}.get(
        getattr(result, "posthoc", None), [])
    control = ["demsar2006"] if getattr(result, "control", None) is not None else []
    return [*first, *keys, *posthoc, *control]


#: the most runs a task's doubled mid-ranks (up to 2n - 1) fit in the 11 bits rlstats.resampling.permute_blocks packs
#: beside each permutation's 52 random key bits; wider tasks rank the keys with argsort and gather the values
_PACKED_RUNS = 1024
#: a Monte Carlo call's fixed seconds
_CALL_SECONDS = 0.003
#: seconds per run of an exact null convolved for two agents (1.5e-5 to 1.9e-5 measured at 400 and 1,040 runs)
_EXACT_PER_RUN = 1.5e-5
#: power()'s vectorised p-values (``_api.batch_pvalues``): seconds a data set and a run of it (ranks, ties, statistic,
#: lookup: 5-160 us a data set measured at 6-2,080 runs; and a call's setup, about 1 ms, over power()'s blocks of 50
#: data sets; audit s16)
BATCH_SECONDS = 2.5e-5
BATCH_PER_RUN = 8e-8
#: seconds an arrangement of one task takes to list (``_kernels._block_contributions``: its multiset permutations, their
#: rank sums, np.unique): 1.2-2.4 us measured on one task of 90,090-181,440 arrangements (3 agents of 4, 4, 5 runs; 4
#: of 3, 3, 3, 2; 5 of 2: 1.5-1.8 us; 8 of 2, 1, ..., 1: 2.2-2.4 us), a fresh process, OPENBLAS_NUM_THREADS=1 on this
#: 2-core machine (audit s32 rfix32: priced as a pass over the rows, 8.5e-5 s for 0.17-0.49 s)
ENUMERATE_PER_LISTED = 2.5e-6
#: seconds an arrangement of the whole design takes to combine from its tasks' distinct contributions and sort
#: (``_kernels._enumerate_null``): 0.13-0.19 us measured untied at 3 x 6 x 1 (46,656), 4 x 3 x 1 and 5 x 2 x 1 (ties
#: merge contributions: fewer), audit s32
ENUMERATE_PER_COMBINED = 2e-7


def _auto_case(shape: Shape) -> str:
    """``pvalue="auto"``'s case (``_kernels.auto_case``, the rule's one home) on a design of this shape, read as
    complete with ``most_runs`` runs in every cell: power()'s simulated designs, and an upper bound of the work on
    designs with empty or smaller cells (bar three agents whose tasks of one run leave fewer than AUTO_MC_TASKS_K3
    tasks, which the kernel gives Monte Carlo permutations). Audit s14: power() at 3 x 6 x 1 counted a pass over the
    rows, 1,600 times under its 29 ms a data set; audit s15: two agents past the convolution's limits (2 x 30 x 40)
    counted the convolution, 0.039 s, for 1.1 s of permutations."""
    import numpy as np

    from ._kernels import auto_case

    runs = max(shape.most_runs, 1)
    counts = np.full((max(shape.tasks, 1), max(shape.agents, 1)), runs)
    return auto_case(counts, "mack_skillings" if runs > 1 else "skillings_mack")


def _enumeration(shape: Shape) -> tuple[int, int]:
    """The exact null's enumeration on a design of this shape read as :func:`_auto_case` reads it (complete, with
    ``most_runs`` runs in every cell: an upper bound): ``(listed, combined)``, the arrangements listed task by task (the
    sum of the tasks' multinomial numbers) and those of the whole design (their product), each at most the
    ``_ENUMERATION_LIMIT`` past which the enumeration is refused."""
    from ._kernels import _ENUMERATION_LIMIT, _multinomial

    one = _multinomial([max(shape.most_runs, 1)] * max(shape.agents, 1))
    tasks = max(shape.tasks, 1)
    combined = one ** tasks if tasks * math.log(one) <= math.log(_ENUMERATION_LIMIT) else _ENUMERATION_LIMIT
    return min(tasks * one, tasks * _ENUMERATION_LIMIT), min(combined, _ENUMERATION_LIMIT)


def pvalue_cost(shape: Shape, options: Any) -> Work:
    """The test's p-value alone (power()'s data sets, ``_api.pvalue_only``): Monte Carlo p-values permute every run's rank within its task once a resample (1.1e-8 s a value, measured;
    3.5e-8 s where a task has more than 1,024 runs, whose ranks are too wide to sort packed with their keys: 3.2-4.6x
    the narrow tasks' CPU a value, round s11 of benchmarks/README.md; the largest task is bounded by the most runs in
    a cell times the agents), and the call's own 3 ms (the Design, the ranks, the result: power() multiplies it by its
    data sets, 2.4-2.6x under without it); the asymptotic p-value is a pass over the rows, the exact one of three or
    more agents (``"auto"``'s up to ``_ENUMERATION_LIMIT`` arrangements) adds its enumeration (:func:`_enumeration`,
    :data:`ENUMERATE_PER_LISTED`, :data:`ENUMERATE_PER_COMBINED`), and two agents' exact null (their default) is a
    convolution per call."""
    case = _auto_case(shape) if options.pvalue == "auto" else None
    if options.pvalue == "monte_carlo" or case == "monte_carlo":
        wide = min(shape.rows, shape.most_runs * shape.agents) > _PACKED_RUNS
        per_unit = 3.5e-8 if wide else 1.1e-8
        return Work(options.n_resamples * shape.rows + _CALL_SECONDS / per_unit, "permuted values", per_unit,
                    f"{options.n_resamples:,} permutations x {shape.rows:,} runs"
                    + (f" (tasks of more than {_PACKED_RUNS:,} runs)" if wide else "")
                    + f" + the call's own {_CALL_SECONDS:g} s")
    if case == "convolve" or (options.pvalue == "exact" and shape.agents == 2):
        # two agents' default is the exact null, convolved per call: 2-16 ms at 2 x 10 x 10 to 2 x 26 x 20 runs (audit
        # s14); power() convolves it once a design for its untied data sets (session 15), priced by _api.batch_cost
        return Work(shape.rows + _CALL_SECONDS / _EXACT_PER_RUN, "rows", _EXACT_PER_RUN,
                    f"{shape.rows:,} runs (the exact null) + the call's own {_CALL_SECONDS:g} s")
    if case == "enumerate" or (options.pvalue == "exact" and shape.agents > 2):
        listed, combined = _enumeration(shape)  # in listed arrangements' time: the combined ones and the rows
        units = listed + (combined * ENUMERATE_PER_COMBINED + shape.rows * 1e-6) / ENUMERATE_PER_LISTED
        return Work(units, "arrangements", ENUMERATE_PER_LISTED,
                    f"the exact null's {combined:,} arrangements, {listed:,} listed task by task, "
                    f"+ {shape.rows:,} runs")
    return Work(shape.rows, "rows", 1e-6, f"{shape.rows:,} runs")


#: seconds an arrangement of the exact post-hoc pair p-values takes (``_kernels.pair_exact_pvalues``: each shared
#: task's law enumerated, the tasks' laws convolved, counted both; 250 ns measured with every pair of 8 and 20 agents
#: on a task of its own of 8 + 8 runs, 12,870 arrangements a pair: 0.18 and 1.25 s; audit s18, benchmarks/README.md)
PAIR_PER_ARRANGEMENT = 2.5e-7


def posthoc_arrangements(shape: Shape, options: Any) -> int:
    """An upper bound of the arrangements the rank post hoc's exact pair p-values enumerate and convolve: none with
    another post hoc or Tukey's single step (``"auto"``'s choice on balanced designs), which take the normal tail,
    nor on a complete design whose every pair shares too many tasks (each has at least k (k - 1) arrangements, or
    C(kc, c) C((k - 1) c, c) with c runs in every cell);
    otherwise ``AUTO_EXACT_LIMIT`` a pair, the most its task laws and their convolution hold."""
    from ._kernels import AUTO_EXACT_LIMIT

    read = {name: getattr(options, name, default) for name, default in  # a namespace of some options: the defaults
            (("posthoc", "ranks"), ("variant", "auto"), ("adjustment", "auto"), ("within_cell", None), ("control", None))}
    if read["posthoc"] != "ranks" or read["variant"] == "quade":
        return 0
    k, complete = shape.agents, shape.cells == shape.agents * shape.tasks
    balanced = complete and (read["within_cell"] is not None or shape.rows == shape.cells * shape.most_runs)
    if read["control"] is None and (read["adjustment"] == "tukey" or (read["adjustment"] == "auto" and balanced)):
        return 0
    runs = 1 if read["within_cell"] is not None or not balanced else shape.most_runs  # in every cell when balanced
    fewest = math.comb(k * runs, runs) * math.comb((k - 1) * runs, runs)  # a pair's arrangements in a task, at least
    if complete and shape.tasks * math.log(max(fewest, 1)) > math.log(AUTO_EXACT_LIMIT):
        return 0
    return (k - 1 if read["control"] is not None else k * (k - 1) // 2) * AUTO_EXACT_LIMIT


#: seconds of Tukey's studentized-range tail a post hoc pair and agent (``statistics.studentized_range_sf``
#: integrates a range of every agent for each pair's statistic): 1.45e-6 and 1.5e-6 measured at 200 and 300 agents x
#: 10 tasks x 3 seeds (5.8 and 19.7 s CPU for the whole call; audit s31, where the cost counted none of it)
TUKEY_PER_PAIR_AGENT = 1.5e-6


def tukey_pairs(shape: Shape, options: Any) -> int:
    """The post hoc pairs whose p-values take Tukey's single-step tail (every pair of agents: the rank post hoc
    without control= under adjustment="tukey", or "auto" on a balanced design); 0 otherwise."""
    read = {name: getattr(options, name, default) for name, default in
            (("posthoc", "ranks"), ("variant", "auto"), ("adjustment", "auto"), ("within_cell", None), ("control", None))}
    if read["posthoc"] != "ranks" or read["variant"] == "quade" or read["control"] is not None:
        return 0
    complete = shape.cells == shape.agents * shape.tasks
    balanced = complete and (read["within_cell"] is not None or shape.rows == shape.cells * shape.most_runs)
    if read["adjustment"] == "tukey" or (read["adjustment"] == "auto" and balanced):
        return shape.agents * (shape.agents - 1) // 2
    return 0


def cost(shape: Shape, options: Any) -> Work:
    """A call's work: its p-value (:func:`pvalue_cost`), the post hoc's exact pair p-values (an upper bound,
    :func:`posthoc_arrangements`; audit s18: not counted, they took 12.5 s on 8 agents in a Python loop, now 0.18 s)
    and Tukey's tails of its pairs (:func:`tukey_pairs`, :data:`TUKEY_PER_PAIR_AGENT`), in the p-value's unit."""
    work = pvalue_cost(shape, options)
    arrangements = posthoc_arrangements(shape, options)
    if arrangements:
        work = dataclasses.replace(
            work, units=work.units + arrangements * PAIR_PER_ARRANGEMENT / work.per_unit,
            what=f"{work.what} + the post hoc's exact pair p-values, at most {arrangements:,} arrangements")
    pairs = tukey_pairs(shape, options)
    if pairs:
        work = dataclasses.replace(
            work, units=work.units + pairs * shape.agents * TUKEY_PER_PAIR_AGENT / work.per_unit,
            what=f"{work.what} + Tukey's tails of {pairs:,} pairs x {shape.agents} agents")
    return work


#: what goes with R's friedman.test, which is this back end's test on a complete design of one run per cell
_FRIEDMAN = (", its p-value Friedman's on a complete design of one run per cell (pvalue='asymptotic' for R's "
             "chi-squared one)")

BACKENDS = (
    Backend(
        name="skillings_mack",
        cost=f"{_HERE}._backend:cost",
        function=f"{_HERE}._api:skillings_mack",
        result=f"{_HERE}._result:SkillingsMackResult",
        options=f"{_HERE}._api:SkillingsMackOptions",
        citations=("skillings1981", "mack1980", "casesa2024"),
        cite=f"{_HERE}._backend:citations",
        default_for="with blocks",
        other_names=(
            ("friedman", "Friedman's test (R's friedman.test)", _FRIEDMAN),
            ("nemenyi", "Nemenyi's all-pairs test (PMCMRplus::frdAllPairsNemenyiTest)",
             ", with its default post hoc (posthoc='ranks', adjustment='tukey' on balanced designs)"),
            ("conover", "Conover's all-pairs test (PMCMRplus::frdAllPairsConoverTest)", ", with posthoc='conover'"),
            # audit s32 rhabit32: R's names of the tests this back end runs
            *((name, "R's friedman.test", _FRIEDMAN) for name in ("friedman.test", "friedmanTest")),
            *((name, "Quade's test (R's quade.test)", ", with variant='quade' (Quade's F; within_cell='mean' where a "
               "cell holds several runs)") for name in ("quade", "quade.test", "quadeTest")),
            *((name, "the Wilcoxon signed-rank test of each pair's per-task scores (R's pairwise.wilcox.test(paired "
               "= TRUE))", ", with posthoc='wilcoxon'; the rank-sum test of two agents' runs within each task (R's "
               "wilcox.test, Mann-Whitney's) is method='task_table' with test='mannwhitney'")
              for name in ("wilcoxon", "wilcox.test", "pairwise.wilcox.test")),
        ),
        contract=("score ~ agent | task", {}),
        demo=("score ~ agent | task", {}),
        no_replication="it ranks agents within each task and tests across tasks: one run per agent and task is its "
                       "design (Friedman's test), and it has no output per cell",
        power=PowerRule(
            key=11, label="blocked rank test", decide=f"{_HERE}._power:decide", sentence=f"{_HERE}._power:sentence",
            outcomes=f"{_HERE}._api:pvalue_only",
            decide_outcomes=f"{_HERE}._power:decide_pvalue", batch_pvalues=f"{_HERE}._api:batch_pvalues",
            batch_cost=f"{_HERE}._api:batch_cost", level_spent=f"{_HERE}._api:level_spent",
            # audit s22; the medians added in audit s31 (the same run, reproduced digit for digit); the true power
            # 0.901 -> 0.909 when audit s35 drew the model's data sets a block at a time; the pilots' rows measured again
            # on today's pilot draws (each cell's runs from a stream of its own since audit s34 powerstream34) in audit
            # s36 calib36, the same script and seeds (3 runs: 0.368, 0.815, 1.0 and 0.823, 0.91, 0.955 before)
            pilot_spread=(0.909, ((3, (0.384, 0.837, 1.0), (0.873, 0.917, 0.962)),
                                  (5, (0.403, 0.685, 0.977), (0.869, 0.897, 0.946)),
                                  (10, (0.65, 0.802, 0.951), (0.87, 0.895, 0.927))))),
    ),
)

#: the tidy and glance columns only this folder's results report: (column, attribute, printed label,
#: description) rows, which rlstats.vocabulary reads through the registry
VOCABULARY = (
    ("withheld", None, "withheld",
     "whether the comparison's decision was withheld because the omnibus test did not reject (p-values kept)"),
    ("mean_rank", "mean_ranks", "mean rank", "mean within-task rank on the 1..k scale (1 = best)"),
    ("rank_sum", None, "rank sum", "sum over tasks of the within-task mean rank of the agent's runs"),
    ("n_tasks_present", None, "tasks", "number of tasks in which the agent has runs"),
    ("critical_difference", "critical_difference", "critical difference",
     "smallest difference of mean ranks declared significant (balanced designs)"),
    ("variant", "variant", "variant", "which statistic of a family was computed"),
    ("connected", "connected", "connected", "whether every pair of agents is linked through shared tasks"),
    ("rank_biserial", None, "rank-biserial r",
     "matched-pairs rank-biserial correlation of a Wilcoxon comparison, (V - V') / (V + V') (Kerby 2014)"),
    ("df_denominator", "df_denominator", "denom. df", "denominator degrees of freedom of Quade's F"),
)
