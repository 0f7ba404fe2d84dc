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
#: seconds each pair's tests take besides the bootstrap (audit s32 rfix32: not counted, 40 agents x 5 tasks x 5 runs
#: estimated at 0.12 s took 5.3 s CPU; measured in a fresh process, OPENBLAS_NUM_THREADS=1, this 2-core machine):
#: a pair's across-tasks test, notes and rows, 2.9 ms measured with aggregate=None at 40 agents x 5 x 5 (4.6 ms over 60
#: tasks at 15 x 60 x 3, whence a task's Welch test of a pair, 30 us) ...
PAIR_SECONDS = 2.7e-3
PAIR_TASK_SECONDS = 3e-5
#: ... its aggregate's bootstrap-t test, floors and caps from the group's resamples, 1 ms (3.7-3.9 ms a pair in all on
#: complete designs of 20 and 40 agents x 5 x 5) ...
AGGREGATE_PAIR_SECONDS = 1e-3
#: ... and, where several task sets are bootstrapped, the pair's own bootstrap read again from its group's resamples
#: ("bootstrap.agents_alone": its intervals, caps and notes): 3.0 ms at 2,000 resamples, 9.5 ms more at 20,000
#: (6.7-7.0 ms a pair in all at 20 and 40 agents x 5 x 5, a00 missing t0)
ALONE_SECONDS = 2.3e-3
ALONE_PER_RESAMPLE = 3.6e-7


def _pairs(shape: Shape, options: Any) -> int:
    """The pairs compared: each agent against control=, or every pair."""
    if getattr(options, "control", None) is not None:
        return max(shape.agents - 1, 0)
    return shape.agents * (shape.agents - 1) // 2


def _pair_seconds(shape: Shape, options: Any, aggregated: int = 0, alone: int = 0) -> float:
    """Each pair's work besides the bootstrap, ``aggregated`` of them with an aggregate test and ``alone`` of those
    read again alone (:data:`PAIR_SECONDS` and the constants below it); every task counted a pair's (an upper bound
    where agents miss tasks)."""
    return (_pairs(shape, options) * (PAIR_SECONDS + PAIR_TASK_SECONDS * shape.tasks)
            + aggregated * AGGREGATE_PAIR_SECONDS + alone * (ALONE_SECONDS + ALONE_PER_RESAMPLE * options.n_resamples))


def cost(shape: Shape, options: Any, passes: Sequence[tuple[int, int, int]] | None = None) -> Work:
    """The aggregate's bootstrap draws every run again in each resample (3.5e-8 s a value, measured) and keeps each
    agent's aggregate a resample (:data:`BYTES_PER_AGENT`), against :data:`rlstats.cost.MAX_BYTES`.

    ``passes``: (runs, agents, pairs) of each bootstrap the call makes, where equivalence() knows them
    (``_api._passes``): an incomplete design bootstraps each distinct set of tasks its pairs share once, on those
    pairs' agents and tasks (up to one a pair: 7 for 5 agents of which 3 miss one task each), for the aggregates of
    ``pairs`` pairs. They run one after another: the memory is the largest one's. Audit s31 equivplot31: one pass of
    the data's runs was counted; on 5 agents x 20 tasks x 10 runs, C, D and E each missing a task, 20,000 resamples,
    measured 2.8-3.0 s against 0.68 s estimated then, 2.23 s now (the complete design: 1.0-1.1 s against 0.70 s). By
    default one pass of every run and agent, for every pair.

    Each pair's tests add their own seconds (:func:`_pair_seconds`; audit s32 rfix32: 780 pairs took 5.3 s of the
    0.12 s estimated), in resampled values' time."""
    per_value = 3.5e-8
    if options.aggregate is None:
        return Work(shape.rows + _pair_seconds(shape, options) / per_value, "resampled values", per_value,
                    f"1 pass x {shape.rows:,} runs + {_pairs(shape, options):,} pairs' tests", memory=0,
                    kept=f"no resamples (aggregate={options.aggregate!r})")
    resamples, pairs = options.n_resamples, _pairs(shape, options)
    passes = [(shape.rows, shape.agents, pairs)] if passes is None else list(passes)
    if not passes:  # every pair's aggregate withheld (fewer than 2 shared tasks, or 3 runs): nothing is resampled
        return Work(_pair_seconds(shape, options) / per_value, "resampled values", per_value,
                    f"no bootstrap (every pair's aggregate is withheld) + {pairs:,} pairs' tests", memory=0,
                    kept="no resamples (every pair's aggregate is withheld)")
    rows = sum(p[0] for p in passes)
    agents = max((p[1] for p in passes), default=0)
    aggregated = sum(p[2] for p in passes)
    # several task sets: each pair of a group of more than two agents is read again alone (_api._aggregate_group)
    alone = sum(p[2] for p in passes if p[1] > 2) if len(passes) > 1 else 0
    seconds = _pair_seconds(shape, options, aggregated, alone)
    runs = f"({' + '.join(f'{p[0]:,}' for p in passes)} runs)" if len(passes) <= 4 else f"{rows:,} runs"
    what = (f"{resamples:,} resamples x {rows:,} runs" if len(passes) == 1 else
            f"{resamples:,} resamples x {runs} in {len(passes)} bootstraps, one per set of tasks the pairs share")
    what += f" + {pairs:,} pairs' tests" + (f", {alone:,} of them read alone" if alone else "")
    return Work(resamples * rows + seconds / per_value, "resampled values", per_value, what,
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
