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


def cost(shape: Shape, options: Any, passes: Sequence[tuple[int, int]] | None = None) -> Work:
    """The aggregate's bootstrap draws every run again in each resample (3.5e-8 s a value, measured) and keeps each
    agent's aggregate a resample (:data:`BYTES_PER_AGENT`), against :data:`rlstats.cost.MAX_BYTES`.

    ``passes``: (runs, agents) of each bootstrap the call makes, where equivalence() knows them (``_api._passes``):
    an incomplete design bootstraps each distinct set of tasks its pairs share once, on those pairs' agents and tasks
    (up to one a pair: 7 for 5 agents of which 3 miss one task each). They run one after another: the memory is the
    largest one's. Audit s31 equivplot31: one pass of the data's runs was counted; on 5 agents x 20 tasks x 10 runs,
    C, D and E each missing a task, 20,000 resamples, measured 2.8-3.0 s against 0.68 s estimated then, 2.23 s now
    (the complete design: 1.0-1.1 s against 0.70 s). By default one pass of every run and agent."""
    if options.aggregate is None:
        return Work(shape.rows, "resampled values", 3.5e-8, f"1 pass x {shape.rows:,} runs", memory=0,
                    kept=f"no resamples (aggregate={options.aggregate!r})")
    resamples = options.n_resamples
    passes = [(shape.rows, shape.agents)] if passes is None else list(passes)
    if not passes:  # every pair's aggregate withheld (fewer than 2 shared tasks, or 3 runs): nothing is resampled
        return Work(0, "resampled values", 3.5e-8, "no bootstrap (every pair's aggregate is withheld)", memory=0,
                    kept="no resamples (every pair's aggregate is withheld)")
    rows = sum(r for r, _ in passes)
    agents = max((k for _, k in passes), default=0)
    runs = f"({' + '.join(f'{r:,}' for r, _ in passes)} runs)" if len(passes) <= 4 else f"{rows:,} runs"
    what = (f"{resamples:,} resamples x {rows:,} runs" if len(passes) == 1 else
            f"{resamples:,} resamples x {runs} in {len(passes)} bootstraps, one per set of tasks the pairs share")
    return Work(resamples * rows, "resampled values", 3.5e-8, what, memory=BYTES_PER_AGENT * resamples * agents,
                kept=f"{resamples:,} resamples x {agents:,} agents' aggregate (aggregate={options.aggregate!r})")


BACKENDS = (
    Backend(
        name="equivalence",
        cost=f"{_HERE}._backend:cost",
        function=f"{_HERE}._api:equivalence",
        result=f"{_HERE}._result:EquivalenceResult",
        options=f"{_HERE}._api:EquivalenceOptions",
        citations=("schuirmann1987", "berger1982", "agarwal2021"),
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
