"""Audit s31 (left31): code hygiene, each a second copy of one idea given one home; no number changes.

1. The tasks' (and agents') order of their names sorted, which bootstrap (``_layout_tasks``), bayes (twice) and the
   mixed model (twice) each computed from ``task_places`` / ``agent_places``, is the Design's ``task_order`` and
   ``agent_order``; on a 3-agent x 5-task simulation and its Categorical with both orders reversed, the bootstrap,
   the probability of improvement, the mixed model and bayes' two models gave bit-identical tidy() tables before
   and after (assert_frame_equal, check_exact).
2. AdaStop's header under Holm said "x each at c = J, y in all" with y = J * x computed by the result; the back end
   stores y beside Holm's other levels (``holm_levels.level_all``), the exact sum of the grids' levels times J,
   rounded once: at n = 3, K = 3, 500 paths and J = 9 it is 0.036 where J * x was 0.036000000000000004 (the
   4 digits printed are the same).
3. The public signatures said ``control: str | None`` (likewise reference=, shifted_agent=, treatment=, a pair's
   agents) where the docstrings said str or int and errors.label_named takes a label as printed (9, int64(9), "9",
   9.0): they now say ``Label`` (rlstats._typing: str, int, float or a numpy integer), and the typed user script
   names an agent coded 0 with ``control=0`` under mypy --strict (refused with the old hints: 'expected "str | None"').
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pandas as pd

import rlstats


def test_the_designs_orders_are_the_codes_of_the_names_sorted():
    rows = [(a, t, 0, 1.0) for a in (10, 9, 2) for t in ("zeta", "alpha", "mu")]
    frame = pd.DataFrame(rows, columns=["agent", "task", "seed", "score"])
    frame["task"] = pd.Categorical(frame["task"], categories=["zeta", "alpha", "mu"])
    design = rlstats.build(frame, "score ~ agent | task")
    assert design.tasks == ("zeta", "alpha", "mu")  # the Categorical's order
    assert [design.tasks[t] for t in design.task_order] == ["alpha", "mu", "zeta"]
    # agents read as numbers sort as numbers: 2 < 9 < 10, whatever the design's order
    assert [design.agents[a] for a in design.agent_order] == ["2", "9", "10"]
    # each the inverse of its places
    assert np.array_equal(design.task_places[design.task_order], np.arange(3))
    assert np.array_equal(design.agent_places[design.agent_order], np.arange(3))


def test_holms_level_in_all_is_stored_exactly():
    """holm30's case (3 agents, n = 5, K = 2, 200 paths): at alpha / 3 each comparison spends 1 of the 126 classes
    and 1 of the 200 paths, 1/126 + 1/200; the three of them 3/126 + 3/200."""
    from rlstats.methods.adastop import _kernels

    df = rlstats.datasets.simulate(agents=3, tasks=1, seeds=10, effect=[0.0, 0.0, 2.0], rng=0)
    result = rlstats.adastop(df, "score ~ agent", n=5, K=2, n_resamples=200, rng=0, progress=False)
    levels = result.holm_levels
    assert list(levels.columns) == ["n_comparisons", "alpha_divisor", "level_each", "level_all", "interim",
                                    "level_spent_each"]
    each = Fraction(1, 126) + Fraction(1, 200)
    assert levels["level_each"].iloc[0] == float(each) and levels["level_all"].iloc[0] == float(3 * each)
    assert "0.01294 each at c = 3, 0.03881 in all" in str(result)
    # exact, not J times the rounded level: n = 3 gives 10 and 200 exact paths, then 500 random ones
    schedule = _kernels.make_schedule(3, 3, 500, 0.05)
    assert schedule.n_paths == (10, 200, 500) and _kernels.family_level(schedule, 9) == 0.036
    assert 9 * _kernels.spendable_level(schedule, 9) == 0.036000000000000004


def test_options_naming_an_agent_or_a_task_are_hinted_as_labels():
    import inspect

    from rlstats.methods.adastop import AdaStop, AdaStopResult
    from rlstats.methods.bootstrap import BootstrapResult
    from rlstats.methods.curves import CurvesResult

    named = {rlstats.bayes: ["control"], rlstats.equivalence: ["control"], rlstats.skillings_mack: ["control"],
             rlstats.adastop: ["reference"], rlstats.permutation: ["reference"], AdaStop: ["reference"],
             rlstats.power: ["shifted_agent"], rlstats.sample_size: ["shifted_agent"],
             rlstats.selection_check: ["treatment", "baseline"], AdaStopResult.decision_matrix: ["task"],
             BootstrapResult.inferential_intervals: ["a", "b"], CurvesResult.difference: ["a", "b"]}
    for function, options in named.items():
        parameters = inspect.signature(function).parameters
        for option in options:
            assert parameters[option].annotation in ("Label", "Label | None"), (function, option)
    assert rlstats._typing.Label.__args__[:3] == (str, int, float)
