"""Audit s16 cost: the estimates rlstats.cost acts on (a progress bar above 3 s, max_seconds= above an hour) against
what the calls cost, measured with benchmarks/cost_calibration.py (round s16 of benchmarks/README.md). The tests
assert the formulas' structure and units, never the clock."""

import pytest

import rlstats
from rlstats import cost
from rlstats.cost import Shape
from rlstats.methods.skillings_mack import _backend as rank_backend
from rlstats.planning import _api as planning


def _study(method="skillings_mack", design=None, formula=None, agents=None, tasks=None, options=None, n_sim=1000):
    study, *_ = planning._prepare(method, design, formula, 0.5, tasks, agents, "mixed", 1.0, "agents", None, 0.05,
                                  n_sim, 0, 1, None, None, False, None, options or {}, None)
    return study


def _one_call(study, seeds, **options):
    """skillings_mack()'s own estimate of one call on the study's data set of ``seeds`` runs a cell."""
    defaults = {"pvalue": "auto", "n_resamples": 10_000}
    return rank_backend.cost(Shape.of(study.source.template(seeds)),
                             type("Options", (), {**defaults, **options})()).seconds


def test_power_prices_the_batched_exact_path_by_its_distinct_nulls():
    """power('skillings_mack') with its defaults (2 agents x 10 tasks, 3, 5, 10 and 20 seeds, 1,000 data sets) was
    estimated at 23 s (a progress bar) and took 0.6-0.8 s of CPU: its estimate priced every simulated data set as a
    skillings_mack() call with its own exact null (9 ms at 20 seeds), where the batched path computes the untied null
    once a design and looks every data set's statistic up in it. The estimate counts distinct exact computations:
    one a number of seeds for simulated (untied) data, one a data set for a resampled pilot, whose repeated runs
    tie."""
    study = _study()
    call = _one_call(study, 20)
    one, two = (planning._study_work(study, [20], n).seconds for n in (1000, 2000))
    assert one >= call  # the design's one exact null is counted
    # a thousand more data sets add no exact null: a pass over their rows (drawn, ranked, looked up), 2 x 10 x 20
    assert two - one < 0.05 * 1000 * call
    shape = Shape.of(study.source.template(20))
    # (audit s35: the drawing priced a block of data sets at a time, no longer 1,000 times one data set's)
    assert two - one == pytest.approx(study.source.draw_seconds(shape, 2000) - study.source.draw_seconds(shape, 1000)
                                      + 1000 * (rank_backend.BATCH_SECONDS + rank_backend.BATCH_PER_RUN * 400))
    # the default study is under the bar (it takes well under a second)
    assert planning._study_work(study, [3, 5, 10, 20], 1000).seconds < cost.PROGRESS_SECONDS
    # a resampled pilot's data sets tie: each is an exact null of its own
    pilot = _study(design=rlstats.datasets.simulate(2, 10, 5, rng=1), formula="score ~ agent | task")
    assert planning._study_work(pilot, [5], 200).seconds >= 200 * _one_call(pilot, 5)


def test_adastop_prices_joint_relabelling_of_three_agents_or_more():
    """adastop() with three agents or more relabels the pooled runs of every running agent on each path
    (permutations="joint", the default), 4.3-5.7e-8 s a permuted value measured at 3-8 agents x 5-26 tasks x 10 runs
    (0.13-1.16 s CPU), where two agents gather from a table of slot choices (1.1-1.5e-8). One rate, 2e-8, left every
    call of three agents or more 2.2-4x under, and power('adastop') at 8 agents x 26 tasks (1,000 data sets a number
    of seeds) under the hour's bound that it passes. The permutation test (the same paths, one interim) was 2-3.9x
    under on 8 agents x 26 tasks x 3-10 runs."""
    from rlstats.methods.adastop import _backend as ada

    options = type("Options", (), {"n_resamples": 10_000, "permutations": "joint"})()
    pairwise = type("Options", (), {"n_resamples": 10_000, "permutations": "pairwise"})()
    eight = Shape(rows=2080, agents=8, tasks=26, cells=208, most_runs=10)
    two = Shape(rows=520, agents=2, tasks=26, cells=52, most_runs=10)
    assert ada.cost(eight, options).seconds == pytest.approx(10_000 * 2080 * 4e-8)
    assert ada.cost(eight, pairwise).seconds == pytest.approx(10_000 * 2080 * 2e-8)
    assert ada.cost(two, options).seconds == pytest.approx(10_000 * 520 * 2e-8)  # two agents: never joint
    # the permutation test runs the same paths (one interim): power() priced it by a formula of its own (3e-8 s a
    # value) and permutation() by AdaStop's; one formula now, the one both calls are admitted with
    from rlstats.methods import DECLARATIONS
    assert DECLARATIONS["permutation"].cost == DECLARATIONS["adastop"].cost == "rlstats.methods.adastop._backend:cost"
