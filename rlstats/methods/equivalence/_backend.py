"""The equivalence tests' declaration (read by the registry, :mod:`rlstats.methods`).

When to use
-----------
When the claim is "as good as" rather than "better": a reimplementation that matches the paper, a cheaper agent that
is practically as good, two agents that are practically the same. A non-significant difference is no evidence of
sameness; ``rlstats.equivalence(df, "score ~ agent | task", margin=...)`` puts the burden the other way and answers
"equivalent within +-margin" or "not shown equivalent" (never "equal"; an interval wholly past a bound, "shown below
-margin", a one-sided test at alpha of a difference beyond it), per task (Welch's t), across tasks (the mean of
the task-level differences, its standard error from the runs, Welch-Satterthwaite df; ``across="paired_t"`` treats the
tasks as a sample) and on the IQM or mean (a bootstrap-t interval of the difference from the stratified bootstrap), each
decided by its (1 - 2 alpha) interval; ``alternative="noninferior"`` tests one side only. For a
reproduction against a paper's per-task table of means, SDs and run counts, pass it as ``published=``. Fix the margin
before looking at the data, in the score's units or on normalised scores (``normalize=``).
"""

from typing import Any, Sequence

from .._declaration import Backend, Need
from ...cost import Shape, Work

_HERE = "rlstats.methods.equivalence"


#: bytes an agent's aggregate takes per resample at the call's peak: 58-60 measured at 3e5 resamples, 2, 3 and 5 agents
#: x 3 tasks x 4 runs (peak RSS, audit s18 perf18; 10**7 resamples of 5 agents needed about 2.9 GB, uncounted)
BYTES_PER_AGENT = 64
#: the unit the estimate is counted in: a resampled value at the seconds one took when the formula was first written
#: (the bootstraps are priced by the bootstrap's own formula, the rest in seconds: both said in these units)
PER_VALUE = 3.5e-8
#: Measured by benchmarks/equivalence_cost.py and its fit (audit s39 eq39, after each pair's work was read in one pass:
#: benchmarks/README.md, round s39; CPU seconds on this 2-core machine, OPENBLAS_NUM_THREADS=1, load 3-4): a call's own
#: seconds (the Design, the notes, the result: 0.019 s with aggregate=None on 2 agents x 5 tasks x 5 runs) ...
CALL_SECONDS = 0.018
#: ... each pair's per-task and across-tasks tests, notes and rows besides the bootstrap: 0.77 ms a pair with
#: aggregate=None at 40 agents x 5 x 5, 1.6 ms at 40 x 26 x 3, 2.5 ms at 15 x 60 x 3 (audit s32 rfix32 measured 2.9 ms
#: at 40 x 5 x 5 and 4.6 ms at 15 x 60 x 3 before the pairs' tests and notes were read in one pass) ...
PAIR_SECONDS = 6e-4
PAIR_TASK_SECONDS = 3.3e-5
#: ... its aggregate's bootstrap-t test, floors and caps from the group's resamples: 0.86 ms a pair at 2,000 resamples,
#: 1.55 ms at 20,000 (40 agents x 5 x 5, complete; the bootstrap's own estimate taken off) ...
AGGREGATE_PAIR_SECONDS = 7.8e-4
AGGREGATE_PER_RESAMPLE = 3.9e-8
#: ... and, where several task sets are bootstrapped, the pair's own bootstrap read again from its group's resamples
#: ("bootstrap.agents_alone": its intervals, caps and notes, each agent's pieces computed once a group): 0.73 ms a pair
#: at 2,000 resamples, 3.2 ms at 20,000 (40 agents x 5 x 5, a00 missing t0)
ALONE_SECONDS = 4.6e-4
ALONE_PER_RESAMPLE = 1.37e-7


def _pairs(shape: Shape, options: Any) -> int:
    """The pairs compared: each agent against control=, or every pair."""
    if getattr(options, "control", None) is not None:
        return max(shape.agents - 1, 0)
    return shape.agents * (shape.agents - 1) // 2


def _pair_seconds(shape: Shape, options: Any, aggregated: int = 0, alone: int = 0) -> float:
    """The call's own seconds and each pair's work besides the bootstrap, ``aggregated`` of them with an aggregate
    test and ``alone`` of those read again alone (:data:`CALL_SECONDS` and the constants below it); every task counted
    a pair's (an upper bound where agents miss tasks)."""
    resamples = options.n_resamples
    return (CALL_SECONDS + _pairs(shape, options) * (PAIR_SECONDS + PAIR_TASK_SECONDS * shape.tasks)
            + aggregated * (AGGREGATE_PAIR_SECONDS + AGGREGATE_PER_RESAMPLE * resamples)
            + alone * (ALONE_SECONDS + ALONE_PER_RESAMPLE * resamples))


def _bootstrap_seconds(rows: int, agents: int, options: Any) -> float:
    """Seconds of one bootstrap of ``rows`` runs of ``agents`` agents, as :func:`rlstats.bootstrap` runs it for the
    aggregate (its default interval, one metric, the call's resamples): the bootstrap's own declared formula, read
    through the registry (audit s39 eq39: counted here at 3.5e-8 s a resampled run, it left out each agent's own work
    a resample and the studentised interval's second pass, 0.008 s estimated of 3 agents' 0.08 s)."""
    from types import SimpleNamespace

    from .. import DECLARATIONS, load

    declared = DECLARATIONS["bootstrap"]
    called = SimpleNamespace(metrics=(options.aggregate,), n_resamples=options.n_resamples,
                             interval=load(declared.options).interval, rliable_compat=False, task_bootstrap=False)
    return load(declared.cost)(Shape(rows=rows, agents=agents, tasks=0, cells=0, most_runs=0), called).seconds


def cost(shape: Shape, options: Any, passes: Sequence[tuple[int, int, int]] | None = None) -> Work:
    """Each bootstrap the aggregate makes, priced by the bootstrap's own formula (:func:`_bootstrap_seconds`), each
    keeping every agent's aggregate a resample (:data:`BYTES_PER_AGENT`), against :data:`rlstats.cost.MAX_BYTES`; the
    call's own seconds and each pair's tests (:func:`_pair_seconds`). In resampled values' time
    (:data:`PER_VALUE`).

    ``passes``: (runs, agents, pairs) of each bootstrap the call makes, where equivalence() knows them
    (``_api._passes``): an incomplete design bootstraps each distinct set of tasks its pairs share once, on those
    pairs' agents and tasks (up to one a pair: 7 for 5 agents of which 3 miss one task each), for the aggregates of
    ``pairs`` pairs. They run one after another: the memory is the largest one's. Audit s31 equivplot31: one pass of
    the data's runs was counted. By default one pass of every run and agent, for every pair.

    Audit s32 rfix32: each pair's tests were not counted (780 pairs took 5.3 s of the 0.12 s estimated); audit s39
    eq39: each pair's work read in one pass (40 x 5 x 5, a00 missing t0: 15.4 s CPU idle before, 2.3 s at load 3-4
    after), measured against this estimate by ``benchmarks/equivalence_cost.py``."""
    pairs = _pairs(shape, options)
    if options.aggregate is None:
        return Work(_pair_seconds(shape, options) / PER_VALUE, "resampled values", PER_VALUE,
                    f"{pairs:,} pairs' tests + the call's own {CALL_SECONDS:g} s", memory=0,
                    kept=f"no resamples (aggregate={options.aggregate!r})")
    resamples = options.n_resamples
    passes = [(shape.rows, shape.agents, pairs)] if passes is None else list(passes)
    if not passes:  # every pair's aggregate withheld (fewer than 2 shared tasks, or 3 runs): nothing is resampled
        return Work(_pair_seconds(shape, options) / PER_VALUE, "resampled values", PER_VALUE,
                    f"no bootstrap (every pair's aggregate is withheld) + {pairs:,} pairs' tests + the call's own "
                    f"{CALL_SECONDS:g} s", memory=0, kept="no resamples (every pair's aggregate is withheld)")
    rows = sum(p[0] for p in passes)
    agents = max((p[1] for p in passes), default=0)
    aggregated = sum(p[2] for p in passes)
    # several task sets: each pair of a group of more than two agents is read again alone (_api._aggregate_group)
    alone = sum(p[2] for p in passes if p[1] > 2) if len(passes) > 1 else 0
    seconds = _pair_seconds(shape, options, aggregated, alone) + sum(_bootstrap_seconds(p[0], p[1], options)
                                                                     for p in passes)
    runs = f"({' + '.join(f'{p[0]:,}' for p in passes)} runs)" if len(passes) <= 4 else f"{rows:,} runs"
    what = (f"{resamples:,} resamples x {rows:,} runs" if len(passes) == 1 else
            f"{resamples:,} resamples x {runs} in {len(passes)} bootstraps, one per set of tasks the pairs share")
    what += (f" + {pairs:,} pairs' tests" + (f", {alone:,} of them read alone" if alone else "")
             + f" + the call's own {CALL_SECONDS:g} s")
    return Work(seconds / PER_VALUE, "resampled values", PER_VALUE, what,
                memory=BYTES_PER_AGENT * resamples * agents,
                kept=f"{resamples:,} resamples x {agents:,} agents' aggregate (aggregate={options.aggregate!r})")


BACKENDS = (
    Backend(
        name="equivalence",
        cost=f"{_HERE}._backend:cost",
        function=f"{_HERE}._api:equivalence",
        result=f"{_HERE}._result:EquivalenceResult",
        options=f"{_HERE}._api:EquivalenceOptions",
        citations=("schuirmann1987", "berger1982", "agarwal2021"),
        # audit s32 rhabit32: the R user's name of the test
        other_names=(("tost", "TOST (Schuirmann's equivalence test by two one-sided tests)",
                      ", with margin= the equivalence bound: rlstats.equivalence(data, formula, margin=...)"),),
        contract=("score ~ agent | task", {"margin": 1.0, "n_resamples": 200}),
        demo=("score ~ agent | task", {"margin": 0.1, "na_action": "drop"}),
        replication=(
            # Welch's t reads both agents' spreads within the task
            Need("task_tests", "per-task equivalence tests", runs=2, per="cell",
                 way_on="add runs, or read the across-tasks test with across='paired_t' (one run per task is "
                        "enough there)"),
        ),
        no_power="power() counts rejections of a null of no difference; an equivalence test's power is its rate of "
                 "declaring equivalence at a true difference inside the margin, which no power rule simulates yet",
    ),
)

#: the tidy and glance columns only this folder's results report: (column, attribute, printed label,
#: description) rows, which rlstats.vocabulary reads through the registry
VOCABULARY = (
    ("scope", None, "scope", "what an equivalence test compares: one task, the tasks' differences, or an aggregate"),
    ("margin", "margin", "margin", "the equivalence margin: differences within plus or minus it count as nothing"),
    ("p_lower", None, "p (lower)", "one-sided p-value of H0: difference <= -margin"),
    ("p_upper", None, "p (upper)", "one-sided p-value of H0: difference >= margin"),
    ("shown", None, "shown", "whether the test showed its alternative (equivalence or non-inferiority)"),
    ("conclusion", None, "conclusion",
     "the answer in words: equivalent within the margin, not shown equivalent, or shown beyond the margin"),
    ("n_shown", None, "shown", "how many tests showed their alternative"),
    # not in tidy(): the summary's table, which to_latex() heads by labels (audit s20: it read "p_beyond")
    ("p_beyond", None, "p (beyond)",
     "one-sided p-value of the difference beyond the margin, where the interval lies wholly past it"),
)
