"""Audit s23 (rhabits23): R users' habits at the call, f(formula, data = df) and R's names of options.

A new-user walkthrough: ``rlstats.compare("score ~ agent | task", data=df)``, R's own spelling, stopped with Python's
bare ``TypeError: compare() got multiple values for argument 'data'``; ``rlstats.bootstrap(df, f, conf_level=0.9)``
with Python's ``unexpected keyword argument``, naming neither the options nor ``confidence_level``. Only three
functions refused another function's spelling of the adjustment in an OptionError.
"""

import pytest

import rlstats

DF = rlstats.datasets.simulate(agents=3, tasks=4, seeds=2, effect=1.0, rng=0)
FORMULA = "score ~ agent | task"


def test_a_formula_first_with_data_named_is_r_order():
    with_data_named = rlstats.compare(FORMULA, data=DF)
    assert with_data_named.pvalue == rlstats.compare(DF, FORMULA).pvalue


def test_an_unknown_keyword_is_an_option_error_naming_confidence_level():
    with pytest.raises(rlstats.OptionError, match="pass confidence_level=0.9"):
        rlstats.bootstrap(DF, FORMULA, conf_level=0.9, n_resamples=200, rng=0)


def test_rs_p_adjust_names_each_functions_own_spelling():
    with pytest.raises(rlstats.OptionError, match=r"skillings_mack\(\) has no option p.adjust=: its name here is "
                                                  r"adjustment= \(p.adjust= is R's spelling\); pass adjustment='holm'"):
        rlstats.skillings_mack(DF, FORMULA, **{"p.adjust": "holm"})
    with pytest.raises(rlstats.OptionError, match=r"pass adjust='holm'"):
        rlstats.mixed(FORMULA, data=DF, p_adjust="holm")
    # through compare() the back end is named by method=, with the same advice
    with pytest.raises(rlstats.OptionError, match=r"method='bootstrap' has no option conf.level=: .*pass "
                                                  r"confidence_level=0.9"):
        rlstats.compare(FORMULA, data=DF, method="bootstrap", **{"conf.level": 0.9})
