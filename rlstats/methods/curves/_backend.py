"""The learning curves' declaration (read by the registry, :mod:`rlstats.methods`).

When to use
-----------
For data with one row per run and step (training logs, :func:`rlstats.read_logs`): the sample-efficiency figure,
an aggregate (IQM by default) of each agent at every step with pointwise and simultaneous bands from resampling
whole runs, and where two agents differ over the steps with a permutation test that controls the error over all
steps. To test one number per run instead (the final score, the area under the curve), reduce the curves with
:func:`rlstats.summarize_runs` and use any other back end.
"""

from typing import Any

from .._declaration import Backend, Need
from ...cost import Shape, Work
from ...grammar import plural

_HERE = "rlstats.methods.curves"
#: the band methods (``bands=``, ``_api.BAND_METHODS``) whose bands are studentised (bootstrap-t): here, where
#: the cost rule reads them without importing the back end; ``_api`` and ``_result`` import them from here
STUDENTIZED_BANDS = ("studentized", "studentized_unwidened")


def cost(shape: Shape, options: Any) -> Work:
    """Each resample draws every run's curve again, step by step (rows: runs x steps; 1e-8 s a value, measured in
    round s11 of benchmarks/README.md); the studentised bands (the default) pass over the resamples again for their
    standard errors (2 passes: 1.8-3.8x the expanded bands' CPU), and each compared pair's differences read both
    agents' run-steps again (2 x pairs x rows / agents). It counted 6e-8 s a run-step, 3-4x over the defaults."""
    passes = 2 if getattr(options, "bands", "studentized") in STUDENTIZED_BANDS else 1
    compare = getattr(options, "pairs", ())
    pairs = (shape.agents * (shape.agents - 1) // 2 if isinstance(compare, str) and compare == "all"
             else len(compare) if compare else 0)
    pair_steps = 2 * pairs * shape.rows // max(shape.agents, 1)
    compared = f" + {pair_steps:,} run-steps of {pairs} compared {plural('pair', pairs)}" if pairs else ""
    return Work(options.n_resamples * (passes * shape.rows + pair_steps), "resampled values", 1e-8,
                f"{options.n_resamples:,} resamples x ({passes} x {shape.rows:,} run-steps{compared})")


BACKENDS = (
    Backend(
        name="curves",
        cost=f"{_HERE}._backend:cost",
        function=f"{_HERE}._api:curves",
        result=f"{_HERE}._result:CurvesResult",
        options=f"{_HERE}._api:CurvesOptions",
        citations=("agarwal2021", "montielolea2019", "westfall1993", "hesterberg2015"),
        reads_curves=True,
        # its bands resample each agent's runs within a task, expanded by sqrt(n / (n - 1)): a single run has none.
        # Refused where an agent has no task of 2 runs (as bootstrap()'s intervals); an agent with a task of one run
        # among others keeps its curve and has its bands withheld by step_bands, with a note (audit s31 trialfix31:
        # one such cell refused the whole call, where bootstrap and task_table carry on and say what they withheld)
        replication=(Need("bands", "bootstrap bands of the curves", runs=2, per="agent", below="refuse",
                          way_on="resampling one run gives bands of zero width; add runs"),
                     # read at each grid step on the runs logged there (runs that end early leave fewer)
                     Need("step_bands", "bands of the curves", runs=2, per="cell",
                          way_on="add runs that reach those steps")),
        contract=("score ~ agent | task/seed", {"step": "step", "n_resamples": 100, "compare": "all"}),
        demo=("score ~ agent | task/seed", {"step": "step", "compare": "all", "n_resamples": 1000}),
        no_power="it compares learning curves step by step, and power() simulates one score per run",
    ),
)

#: the tidy and glance columns only this folder's results report: (column, attribute, printed label,
#: description) rows, which rlstats.vocabulary reads through the registry
VOCABULARY = (
    ("conf_low_simultaneous", None, "lower (simultaneous)",
     "lower bound of a band covering a whole curve at the confidence level"),
    ("conf_high_simultaneous", None, "upper (simultaneous)",
     "upper bound of a band covering a whole curve at the confidence level"),
    ("n_steps", None, "steps", "number of steps of the curves"),
    ("n_steps_different", None, "steps different",
     "number of steps at which two curves differ, the error controlled over all steps"),
)
