"""R's habits (issue 31): either argument order, htest indexing, broom's column names, Wilcoxon's V."""

import warnings

import numpy as np
import pandas as pd
import pytest

import rlstats
from rlstats.errors import RlstatsError

DF = rlstats.datasets.simulate(agents=3, tasks=4, seeds=3, rng=0)
ONE_TASK = rlstats.datasets.simulate(agents=2, tasks=1, seeds=5, rng=0).drop(columns="task")
CURVES = rlstats.datasets.simulate_curves(agents=2, tasks=3, seeds=3, steps=5, rng=0)

#: every public analysis function: (function, data, formula, options of a quick call)
CALLS = {
    "compare": (rlstats.compare, DF, "score ~ agent | task", {"rng": 0}),
    "skillings_mack": (rlstats.skillings_mack, DF, "score ~ agent | task", {}),
    "bootstrap": (rlstats.bootstrap, DF, "score ~ agent | task", {"n_resamples": 200, "rng": 0}),
    "probability_of_improvement": (rlstats.probability_of_improvement, DF, "score ~ agent | task",
                                   {"n_resamples": 200, "rng": 0}),
    "performance_profile": (rlstats.performance_profile, DF, "score ~ agent | task", {"n_resamples": 200, "rng": 0}),
    "percentiles": (rlstats.percentiles, DF, "score ~ agent | task",
                    {"interval": "bootstrap", "n_resamples": 240, "rng": 0}),
    "adastop": (rlstats.adastop, ONE_TASK, "score ~ agent", {"n": 5, "K": 1, "n_resamples": 200, "rng": 0}),
    "permutation": (rlstats.permutation, ONE_TASK, "score ~ agent", {"n_resamples": 200, "rng": 0}),
    "selection_check": (rlstats.selection_check, DF, "score ~ agent | task",
                        {"treatment": "agent_2", "baseline": "agent_1", "reported": ["task_01", "task_02"],
                         "n_resamples": 200, "rng": 0}),
    "task_table": (rlstats.task_table, DF, "score ~ agent | task", {"n_resamples": 200, "rng": 0}),
    "curves": (rlstats.curves, CURVES, "score ~ agent | task/seed", {"step": "step", "n_resamples": 200, "rng": 0}),
}


@pytest.mark.parametrize("name", CALLS)
def test_either_argument_order_gives_the_same_result(name):
    function, data, formula, options = CALLS[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours, rs = function(data, formula, **options), function(formula, data, **options)
    assert ours.to_json() == rs.to_json()


def test_r_order_also_for_run_summaries_and_parsed_formulas():
    a = rlstats.summarize_runs(CURVES, "score ~ agent | task/seed", step="step", how="auc")
    b = rlstats.summarize_runs("score ~ agent | task/seed", CURVES, step="step", how="auc")
    pd.testing.assert_frame_equal(a, b)
    parsed = rlstats.formula.parse("score ~ agent | task")
    assert rlstats.skillings_mack(parsed, DF).to_json() == rlstats.skillings_mack(DF, parsed).to_json()


@pytest.mark.parametrize("args", [(DF, DF), ("score ~ agent | task", "score ~ agent | task"), (DF, 3)],
                         ids=["two frames", "two formulas", "a number"])
def test_no_error_message_dumps_a_frame(args):
    for name in ("compare", "skillings_mack", "bootstrap"):
        with pytest.raises(RlstatsError) as error:
            CALLS[name][0](*args)
        message = str(error.value)
        assert "agent_1" not in message and "task_01" not in message and len(message) < 400, message


def test_a_frame_given_as_an_option_is_named_not_printed():
    for call in (lambda: rlstats.compare(DF, "score ~ agent | task", DF),
                 lambda: rlstats.skillings_mack(DF, "score ~ agent | task", variant=DF),
                 lambda: rlstats.skillings_mack(DF, "score ~ agent | task", alpha=DF.to_numpy()),
                 lambda: rlstats.cite(data=DF)):
        with pytest.raises(RlstatsError, match=r"a (DataFrame|ndarray) of shape \(36, 4\)") as error:
            call()
        assert "agent_1" not in str(error.value)


def test_htest_components_by_r_name():
    res = rlstats.skillings_mack(DF, "score ~ agent | task", variant="skillings_mack", within_cell="mean")
    assert res["p.value"] == res.pvalue and res["statistic"] == res.statistic and res["parameter"] == res.df
    assert res["method"] == res.method and res["data.name"] == res.data_name
    with pytest.raises(KeyError, match="'conf.int' is not a component of this SkillingsMackResult; it has: "
                                       "'statistic', 'parameter', 'p.value'"):
        res["conf.int"]
    perm = rlstats.permutation(ONE_TASK, "score ~ agent", n_resamples=200, rng=0)
    assert perm["p.value"] == perm.pvalue


def test_broom_names_for_tidy_and_glance():
    res = rlstats.skillings_mack(DF, "score ~ agent | task", posthoc="wilcoxon")
    tidy, broom = res.tidy(), res.tidy(names="broom")
    assert list(broom.columns) == [{"p_value": "p.value", "p_adjusted": "adj.p.value"}.get(c, c) for c in tidy.columns]
    np.testing.assert_array_equal(broom["p.value"], tidy["p_value"])
    glance = res.glance(names="broom")
    assert {"statistic", "parameter", "p.value", "nobs"} <= set(glance.columns) and "p_value" not in glance
    assert res.tidy(names="rlstats").equals(tidy)
    with pytest.raises(rlstats.errors.OptionError, match="names='R' is not one of the allowed values: 'rlstats'"):
        res.tidy(names="R")
    # an F test: num.df and den.df, as broom's htest tidier names them
    quade = rlstats.skillings_mack(DF.groupby(["agent", "task"], as_index=False)["score"].mean(),
                                   "score ~ agent | task", variant="quade")
    assert {"num.df", "den.df"} <= set(quade.glance(names="broom").columns)
    boot = rlstats.bootstrap(DF, "score ~ agent | task", n_resamples=200, rng=0)
    assert {"conf.low", "conf.high"} <= set(boot.tidy(names="broom").columns)


def test_every_result_class_takes_names():
    import rlstats.methods as methods
    from rlstats.methods._declaration import load

    for backend in methods.DECLARATIONS.values() if isinstance(methods.DECLARATIONS, dict) else methods.DECLARATIONS:
        cls = load(backend.result)
        for name in ("tidy", "glance"):
            assert getattr(getattr(cls, name), "names_keyword", False), (cls.__name__, name)
