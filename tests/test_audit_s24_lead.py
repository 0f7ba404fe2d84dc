"""Audit s24 (lead): defects found by the lead this session, each with its reproducer."""

import numpy as np
import pandas as pd
import pytest

import rlstats
from rlstats.methods.adastop import AdaStop


def _fed(data, agents, n, K, **options):
    """The incremental class fed ``data``'s runs in their seed order, n per agent per batch."""
    seq = AdaStop(agents, n=n, K=K, rng=0, **options)
    for k in range(K):
        if seq.done:
            break
        seq.update({a: data.loc[data["agent"] == a, "score"].to_numpy()[n * k:n * (k + 1)]
                    for a in seq.agents_to_run})
    return seq.result()


def _level_notes(result):
    return [note for note in result.notes
            if "standard deviations" in note or "level is exact" in note or "family-wise error" in note]


def test_incremental_adastop_prints_the_level_notes_of_adastop():
    # The incremental class ran the same test as adastop() on the same batches, with the same decisions, but its
    # result left out the measured-level notes: unlike spreads under joint relabelling and equal means of unlike
    # shapes (the adastop.fwe_spread and adastop.fwe_means rows).
    gen = np.random.default_rng(1)
    spreads = {"a": 10, "b": 10, "c": 1, "d": 1}
    data = pd.DataFrame([(agent, i, v) for agent, s in spreads.items() for i, v in enumerate(gen.normal(0, s, 10))],
                        columns=["agent", "seed", "score"])
    # (the joint relabelling's notes: audit s29b made holm the default, which is exact beside other spreads)
    batch = rlstats.adastop(data, "score ~ agent", n=5, K=2, rng=0, progress=False, permutations="joint")
    fed = _fed(data, list(spreads), n=5, K=2, permutations="joint")
    assert fed.decisions["decision"].tolist() == batch.decisions["decision"].tolist()
    (note,) = _level_notes(fed)
    assert note == _level_notes(batch)[0] and "differ 5.5 times: a 6.634, c 1.213" in note
    # three agents at n = 5, K = 4: the equal-means row (0.073 rejections) is quoted by both
    three = pd.DataFrame([(agent, i, gen.normal()) for agent in "acd" for i in range(20)],
                         columns=["agent", "seed", "score"])
    batch = rlstats.adastop(three, "score ~ agent", n=5, K=4, rng=0, progress=False, permutations="joint")
    fed = _fed(three, ["a", "c", "d"], n=5, K=4, permutations="joint")
    assert _level_notes(fed) == _level_notes(batch)
    assert any("agents of equal mean" in note and "in 0.073 of 400" in note for note in _level_notes(fed))


def _by_position(function):
    import inspect
    return [p.name for p in inspect.signature(function).parameters.values()
            if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]


def _checked_functions():
    import inspect
    functions = {f"rlstats.{name}": getattr(rlstats, name) for name in rlstats.__all__}
    functions.update({f"rlstats.datasets.{name}": getattr(rlstats.datasets, name) for name in rlstats.datasets.__all__})
    # power and sample_size count the caller's frames to read its names (eval_env); concat and calibration_table
    # take **kwargs they hand on: Python's TypeError there
    skipped = {"rlstats.power", "rlstats.sample_size", "rlstats.concat", "rlstats.calibration_table"}
    return sorted((name, f) for name, f in functions.items()
                  if inspect.isfunction(f) and name not in skipped and not name.startswith("rlstats.datasets.load_"))


def test_a_value_given_by_position_past_the_last_positional_argument_is_an_option_error():
    # R matches every argument by position (boot(df, f, 1000)); Python's TypeError named neither the value nor the
    # options. Nothing is read before the count is checked, so placeholders stand for the data.
    for name, function in _checked_functions():
        taken = _by_position(function)
        args = [object()] * len(taken) + [0.9, 5]
        with pytest.raises(rlstats.errors.OptionError) as caught:
            function(*args)
        message = str(caught.value)
        assert f"takes {len(taken)} value" in message or "takes no values by position" in message, name
        assert f"got {len(args)}" in message, name
        if taken:  # the options left to name, or none (audit s24 review24a: parse(text) said it took no values)
            assert ("give each of 0.9, 5 by its option's name; its options are: " in message
                    or message.endswith(f"got {len(args)}: it takes no other options")), name
            assert not any(f" {p}," in message.split("its options are: ")[-1] for p in taken), name
    assert len(_checked_functions()) >= 28


def test_the_surplus_positional_error_reads_as_written():
    data = pd.DataFrame({"agent": ["a", "b"], "task": ["Pong", "Pong"], "seed": [0, 0], "score": [1.0, 2.0]})
    with pytest.raises(rlstats.errors.OptionError, match=r"^bootstrap\(\) takes 2 values by position \(data, formula\), "
                       r"got 4: give each of 0\.9, 5 by its option's name; its options are: metrics, n_resamples, "):
        rlstats.bootstrap(data, "score ~ agent | task", 0.9, 5)
    with pytest.raises(rlstats.errors.OptionError, match=r"^normalize\(\) takes 2 values by position \(df, reference\), "
                       r"got 3: give 'x' by its option's name"):
        rlstats.normalize(data, "atari100k_reference", "x")
    with pytest.raises(rlstats.errors.OptionError, match=r"compare\(\) takes 3 values by position \(data, formula, "
                       r"method\), got 4: give 'x' by its option's name; its options are: subset, and those "
                       r"help\(compare\) lists$"):
        rlstats.compare(data, "score ~ agent | task", "bootstrap", "x")
    with pytest.raises(rlstats.errors.OptionError, match=r"^available\(\) takes no values by position, got 1: it takes "
                       "no options$"):
        rlstats.datasets.available(1)


def test_an_empty_best_set_is_said_so():
    # cli24 on the real 9-landscape sweep: "best set of 0" where no configuration was best in >= threshold of the
    # resamples (10,000 configurations alike): said as empty, with the share it would need
    gen = np.random.default_rng(0)
    sweep = pd.DataFrame([(c, s, gen.normal()) for c in range(50) for s in range(3)], columns=["lr", "seed", "score"])
    sweep = sweep.assign(agent="ppo", task="t")
    res = rlstats.tuning(sweep, "score ~ agent | task/seed", config=["lr"], rng=0, progress=False, n_resamples=200,
                         views=["best_set"], threshold=0.5)
    assert res.tables["tuned"]["n_best_set"].tolist() == [0]
    assert "best set empty (none best in >= 0.5 of resamples); tuned score" in str(res)
    assert "best set of 0" not in str(res)


def test_the_reporter_interval_is_not_named_corrected_where_no_correction_applied():
    # curves24 on SPR vs DER (6 games where SPR gains most): the reporter's skewness 1.3 is not negative, so Hall's
    # correction is not applied (the printed skewness line says so) while the interval was labelled
    # "t, skewness-corrected (from the runs)"
    gen = np.random.default_rng(3)
    rows = [(agent, f"game_{t:02d}", seed, 3 * gen.gamma(1.0) + 0.8 * t if agent == "new" else gen.normal(0, 0.1))
            for agent in ("new", "old") for t in range(10) for seed in range(3)]
    df = pd.DataFrame(rows, columns=["agent", "task", "seed", "score"])
    reported = [f"game_{t:02d}" for t in range(5, 10)]
    res = rlstats.selection_check(df, "score ~ agent | task", treatment="new", baseline="old", reported=reported,
                                  rng=0, progress=False)
    assert not res.reporter_skewness < 0
    label = res.tidy().set_index("term").loc["reporter", "pvalue_method"]
    assert label == "t (skewness from the runs not negative: no correction)"
    # the bound is the plain one-sided t's
    from scipy import stats
    v = res.effects.loc[res.effects["set"] == "reported", "effect"].to_numpy()
    low = v.mean() - stats.t.ppf(0.95, v.size - 1) * v.std(ddof=1) / np.sqrt(v.size)
    assert res.tidy().set_index("term").loc["reporter", "conf_low"] == pytest.approx(low, rel=1e-12)


def test_another_spelling_of_a_level_outside_0_1_is_not_offered_back():
    # review24a: task_table(conf_level=95) said "pass confidence_level=95", a value confidence_level= refuses
    df = rlstats.datasets.simulate(agents=2, tasks=3, seeds=3, rng=0)
    for given in ("conf_level", "conf.level"):
        with pytest.raises(rlstats.errors.OptionError, match=r"pass confidence_level between 0 and 1 \(it was 95\)$"):
            rlstats.task_table(df, "score ~ agent | task", **{given: 95})
    with pytest.raises(rlstats.errors.OptionError, match=r"pass confidence_level=0\.9$"):
        rlstats.task_table(df, "score ~ agent | task", conf_level=0.9)
    with pytest.raises(rlstats.errors.OptionError, match=r"pass confidence_level between 0 and 1 \(it was 1\)$"):
        rlstats.bootstrap(df, "score ~ agent | task", level=1)
