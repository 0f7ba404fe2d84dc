"""Session 24, helper small24: small defects left last session (each first a strict xfail reproducer)."""

import re
import warnings

import numpy as np
import pandas as pd
import pytest

import rlstats
from rlstats.errors import OptionError

FORMULA = "score ~ agent | task/seed"


@pytest.fixture(scope="module")
def atari(published):
    return pd.read_csv(published / "atari100k.csv")


def _quiet(function, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return function(*args, **kwargs)


# ------------------------------------------------------------------------ 1. the Monte Carlo SE of a floored bound


def test_welch_floored_bound_has_no_monte_carlo_se(atari):
    """SPR and DER, seeds 0-2, normalised: SPR's optimality gap (0.44106 to 0.61642) has both bounds from the Welch t
    floor, a closed form of the data, its bootstrap-t bounds far inside; the summary printed their Monte Carlo SE as
    0 and 4.2402e-83 (DER's mean's upper 2.1458e-07), and said nothing of the floor. A floored bound whose
    bootstrap-t bound lies more than 3 of its SEs inside has SE 0 now, and the key under the table names them."""
    from scipy import stats
    sub = atari[atari.agent.isin(["SPR", "DER"]) & (atari.seed < 3)]
    # the two metrics the floor acts on (the same resamples as with the default four: the numbers are the default's)
    res = _quiet(rlstats.bootstrap, sub, FORMULA, normalize="atari100k_reference", metrics=("mean", "optimality_gap"),
                 rng=1)
    gap, mean = res.metrics.index("optimality_gap"), res.metrics.index("mean")
    spr, der = list(res.agents).index("SPR"), list(res.agents).index("DER")
    assert res.intervals[spr, gap] == pytest.approx([0.44106, 0.61642], abs=1e-5)
    # the Welch bound by hand: the gap -+ t(0.975, df) sqrt(c / (c - 1)) SE, df the mean's 2.3764, c = 3
    half = stats.t.ppf(0.975, res.welch_degrees_of_freedom[spr]) * np.sqrt(1.5) * res.standard_errors[spr, gap]
    assert res.welch_degrees_of_freedom[spr] == pytest.approx(2.3764, abs=1e-4)
    np.testing.assert_allclose(res.intervals[spr, gap], res.estimates[spr, gap] + np.array([-half, half]),
                               rtol=1e-12)
    assert res.welch_floored[spr, gap].all() and res.welch_floored[der, mean].tolist() == [False, True]
    # (on today's cell streams, audit s33; before them DER's mean's upper SE was 0 and the others 0.0013502 and
    # 0.00016199)
    assert (res.interval_mc_se[spr, gap] == 0).all() and res.interval_mc_se[der, gap, 1] == 0
    assert res.interval_mc_se[der, mean, 0] == pytest.approx(0.0011757, rel=1e-4)  # the bootstrap-t's own bound
    # DER's gap's lower bound and mean's upper bound: floored, their bootstrap-t bounds within 3 SE of them: a share
    # of that SE, as before
    assert res.welch_floored[der, gap, 0] and res.interval_mc_se[der, gap, 0] == pytest.approx(3.6958e-05, rel=1e-4)
    assert 0 < res.interval_mc_se[der, mean, 1] == pytest.approx(7.0373e-06, rel=1e-4)
    text = str(res.summary())
    assert "e-83" not in text and "e-07" not in text
    key = ("(the Welch t floor set DER's mean (the upper bound), DER's optimality gap (both bounds) and SPR's "
           "optimality gap (both bounds), a closed form of the data: Monte Carlo SE 0 where the bootstrap-t bound lies "
           "more than 3 of its Monte Carlo SEs inside it, else the bootstrap-t bound's SE times the chance that other "
           "resamples move it beyond the floor)")
    assert key in text
    assert "The Welch t floor set DER's mean" in res.summary().to_latex(mc_se=True)
    # no floor taken (the percentile interval): no key
    other = _quiet(rlstats.bootstrap, sub, FORMULA, normalize="atari100k_reference", interval="percentile",
                   metrics=("mean",), n_resamples=200, rng=1)
    assert other.welch_floored is None and "Welch t floor set" not in str(other.summary())


# ------------------------------------------------------------------------ 3. task_table's key with a rank test


def test_task_table_rank_test_key_says_what_the_set_is_for():
    """statistic='median' with the Mann-Whitney U test: the bold is the best median, the marks a confidence set for
    an agent whose runs no other's beat (by ranks); the key said 'a 95% confidence set for the best agent of the
    task' and '*bold*: best'. On task_01 agent_1 has the best median (9.27) and agent_2, whose median 7.85 is the
    lowest, is marked: the Mann-Whitney test does not find agent_1's runs to beat its (Holm p 1 vs alpha 0.05)."""
    df = rlstats.datasets.simulate(3, 3, 6, effect=[0, 0.5, 1], rng=1)
    table = _quiet(rlstats.task_table, df, FORMULA, test="mannwhitney", statistic="median", rng=0)
    text = str(table)
    tidy = table.tidy().set_index(["task", "agent"])
    assert tidy.loc[("task_01", "agent_1"), "estimate"] == pytest.approx(9.27, abs=0.005)
    assert tidy.loc[("task_01", "agent_2"), "estimate"] == pytest.approx(7.85, abs=0.005)
    assert tidy.loc[("task_01", "agent_2"), "possibly_best"]
    assert "confidence set for the best agent of the task;" not in text
    assert "*bold*: best median\n" in text
    key = ("95% confidence set for the best agent of the task by its runs' ranks, one whose runs no other agent's beat "
           "more often than not (the Mann-Whitney U test compares the runs' ranks, not the medians shown)")
    assert key in text and key in table.caption()
    assert key.replace("%", r"\%") in table.to_latex()
    # Welch's t and statistic='mean': as before
    mean = _quiet(rlstats.task_table, df, FORMULA, rng=0)
    assert "*bold*: best mean\n" in str(mean) and "95% confidence set for the best agent of the task;" in str(mean)


# ------------------------------------------------------------------------ 4. a minus sign in LaTeX


def test_latex_negative_numbers_take_a_minus_sign(atari):
    """SPR's mean on Atari 100k, seeds 0-2, normalised, has the lower bound -0.36986 (-0.41531 since audit s33 keyed
    each cell's stream by its task's name): to_latex() printed it "-0.36986", a hyphen in text; a number's sign is now
    $-$ (math), as U+2212 already was."""
    sub = atari[atari.agent.isin(["SPR", "DER"]) & (atari.seed < 3)]
    res = _quiet(rlstats.bootstrap, sub, FORMULA, normalize="atari100k_reference", rng=1)
    assert res.intervals[list(res.agents).index("SPR"), res.metrics.index("mean"), 0] == pytest.approx(-0.41531,
                                                                                                      abs=5e-6)
    latex = res.summary().to_latex()
    assert "$-$0.41531" in latex and " -0.41531" not in latex
    # the task table's cells: A's runs -1.5 ... -1.1 (mean -1.35), B's -0.7 ... -0.2 (mean -0.45)
    scores = [-1.5, -1.2, -1.4, -1.1, -1.3, -1.6, -0.5, -0.4, -0.7, -0.2, -0.6, -0.3]
    df = pd.DataFrame({"agent": np.repeat(["A", "B"], 6), "task": "t", "seed": [*range(6)] * 2, "score": scores})
    table = _quiet(rlstats.task_table, df, FORMULA)
    latex = table.to_latex()
    assert r"\textbf{$-$0.45 $\pm$ 0.19}" in latex and r"$-$1.35 $\pm$ 0.19" in latex
    assert "-0.45" not in latex and "-1.35" not in latex


def _math_balanced(latex):
    """Whether every unescaped $ opens and closes inline math on one line, none opening display math ($$)."""
    return all(len(re.findall(r"(?<!\\)\$", line)) % 2 == 0 for line in latex.splitlines()) and "$$" not in latex


#: a hyphen before a digit that is no LaTeX command's argument ({-1}) nor inside a word or a range (3-10)
_HYPHEN_SIGN = re.compile(r"(?<![\w.{}$\-])-(?=\.?\d)")


def test_every_to_latex_sets_signs_as_minus_and_balances_math():
    """Every back end's summary().to_latex() (and the task table's own to_latex()) on scores shifted below 0: no
    number's sign set as a hyphen, every $ paired on its line and no $$ (pdflatex is not on this machine: the check is
    on the text)."""
    from test_paper_output import CASES
    blocked = rlstats.datasets.simulate(agents=3, tasks=4, seeds=4, effect=1.0, rng=0)
    blocked["score"] -= 30.0
    curves = rlstats.datasets.simulate_curves(agents=3, tasks=3, seeds=3, steps=4, effect=0.5, rng=0)
    curves["score"] -= 30.0
    outputs = {}
    for name, (options, on_curves) in CASES.items():
        options = {"method": name, **options}
        if name == "selection":
            options.update(treatment="agent_3", reported=["task_01", "task_02"])
        if name == "equivalence":
            options["margin"] = 3.0
        res = _quiet(rlstats.compare, curves if on_curves else blocked,
                     "score ~ agent | task/seed" if on_curves else "score ~ agent | task", rng=1, **options)
        outputs[name] = res.summary().to_latex()
    table = _quiet(rlstats.task_table, blocked, "score ~ agent | task", aggregate="bootstrap", n_resamples=200, rng=0)
    outputs["task_table own"] = table.to_latex()
    signs = 0
    for name, latex in outputs.items():
        assert _math_balanced(latex), name
        assert _HYPHEN_SIGN.search(latex) is None, (name, latex[max(_HYPHEN_SIGN.search(latex).start() - 60, 0):][:120])
        signs += latex.count("$-$")
    assert signs > 50  # the shifted scores' negative numbers were there to set
# ------------------------------------------------------------------------ 5. the selection check's one-sided interval


def test_selection_mean_effect_by_set_says_which_interval_is_one_sided():
    """The by-set table printed the reported set's one-sided interval (-1.8872, Inf) beside the held-out set's
    two-sided (-0.40091, 1.4073) and said which only in the docstring and the plot's title; the key under it (and the
    LaTeX caption) now says so, read off the rows."""
    df = rlstats.datasets.simulate(2, 8, 4, effect=0.5, rng=0)
    res = _quiet(rlstats.selection_check, df, "score ~ agent | task", treatment="agent_2", baseline="agent_1",
                 reported=["task_01", "task_02", "task_03"])
    summary = res.summary()
    table = summary.tables["Mean effect by set (mean_diff, agent_2 vs agent_1)"]
    np.testing.assert_allclose(table[["conf_low", "conf_high"]].to_numpy(dtype=float),
                               [[-1.8872, np.inf], [-0.40091, 1.4073]], rtol=1e-4)
    # the held-out set's: Student's t, two-sided, by hand
    from scipy import stats
    held = res.effects.loc[res.effects["set"] == "heldout", "effect"].to_numpy()
    half = stats.t.ppf(0.975, held.size - 1) * held.std(ddof=1) / np.sqrt(held.size)
    np.testing.assert_allclose(table["conf_high"].iloc[1], held.mean() + half, rtol=1e-12)
    key = ("reported: a one-sided 95% interval (conf_low, Inf), as the reporter's test of a positive mean is; "
           "heldout: a two-sided 95% interval")
    assert f"({key})" in str(summary)
    assert f"({key})" in summary.to_markdown().replace("\\", "")
    # the caption names the column as the LaTeX table heads it (audit s25 vocab25: "(conf\\_low, Inf)")
    assert "Reported: a one-sided 95\\% interval (lower, Inf)" in summary.to_latex()


# ------------------------------------------------------------------------ 6. R's habits


def test_conf_level_to_a_function_taking_alpha():
    """conf.level= (R's htest level) to a function taking alpha= and no confidence_level= listed its options; it is
    now offered as alpha = 1 - conf.level, with the value (0.9 -> 0.1, not 0.09999999999999998)."""
    df = rlstats.datasets.simulate(3, 4, 5, rng=1)
    with pytest.raises(OptionError, match=r"^skillings_mack\(\) has no option conf\.level=: its name here is alpha= "
                                          r"\(conf\.level= is R's spelling; alpha = 1 - conf\.level\); pass alpha=0\.1$"):
        rlstats.skillings_mack(df, FORMULA, **{"conf.level": 0.9})
    with pytest.raises(OptionError, match=r"\(level= is the spelling of R's confint\(\); alpha = 1 - level\); "
                                          r"pass alpha as 1 - level$"):
        rlstats.adastop(df, FORMULA, level="high")
    # a function taking confidence_level= is offered it, the value as given
    with pytest.raises(OptionError, match=r"its name here is confidence_level= \(conf\.level= is R's spelling\); "
                                          r"pass confidence_level=0\.9$"):
        rlstats.task_table(df, FORMULA, **{"conf.level": 0.9})


def test_boot_count_to_a_function_counting_permutations():
    """R= (boot()'s count of bootstrap resamples) to the rank test, whose n_resamples= counts permutations: the
    error said only that R= is boot()'s spelling; it now says what the function's own count counts."""
    df = rlstats.datasets.simulate(3, 4, 5, rng=1)
    with pytest.raises(OptionError, match=r"\(R= is the spelling of R's boot\(\), a count of bootstrap resamples; here "
                                          r'n_resamples= is: permutations for pvalue="monte_carlo"\); '
                                          r"pass n_resamples=999$"):
        rlstats.skillings_mack(df, FORMULA, R=999)
    with pytest.raises(OptionError, match=r"here n_resamples= is: random subsets of the permutation inspector\)"):
        rlstats.compare(df, "score ~ agent | task", method="selection", R=99)
    # a bootstrap's count is boot()'s: said as before
    with pytest.raises(OptionError, match=r"\(R= is the spelling of R's boot\(\)\); pass n_resamples=999$"):
        rlstats.bootstrap(df, FORMULA, R=999)
