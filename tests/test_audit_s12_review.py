"""Second reading of session 12's changes (audit s12, review): Hall's inversion (rlstats.statistics.hall_inverse)
checked against a root finder, the "skew_t" band of performance_profile(kind="tasks"), and the other changes of
the session (mixed()'s omnibus F, selection_check's one interval, percentiles' near ties)."""
import numpy as np
import pandas as pd
import pytest
from scipy import optimize

import rlstats
from rlstats import statistics


@pytest.mark.parametrize("gamma", [0.0, 1e-11, 1e-9, -3e-10, 1e-7, 0.4, -2.5, 6.0])
def test_hall_inverse_agrees_with_a_root_finder_at_small_skewness(gamma):
    """hall_inverse computed 3 / gamma (cbrt(1 + gamma y) - 1), which cancels for small gamma: at gamma 1e-11,
    x 2 and n 5 it gave 0.894417873 where the root of hall_transform(s) = 2 is 0.894427191 (1e-5 relative off),
    so a nearly symmetric sample (a skewness of round-off size) moved its bound in the fifth digit."""
    for x, n in [(2.0, 5), (-1.7, 3), (0.3, 40)]:
        root = optimize.brentq(lambda s: float(statistics.hall_transform(s, gamma, n)) - x, -1e3, 1e3,
                               xtol=1e-15, rtol=1e-15)
        assert float(statistics.hall_inverse(x, gamma, n)) == pytest.approx(root, rel=1e-12, abs=1e-14)
    assert statistics.hall_inverse([np.inf, -np.inf], gamma, 5).tolist() == [np.inf, -np.inf]


def _profile_frame(first_task):
    rng = np.random.default_rng(2)
    rows = []
    for agent in ["A", "B"]:
        for t in range(6):
            runs = rng.normal(0.5, 0.1, 3) if t else first_task
            rows += [(agent, f"t{t}", r, float(x)) for r, x in enumerate(runs)]
    return pd.DataFrame(rows, columns=["agent", "task", "seed", "score"])


def test_skew_t_band_reads_no_skewness_from_runs_tied_up_to_round_off():
    """A task whose runs tie up to round-off (0.3, 0.1 + 0.2, 0.3) counts as flat in the band (near_ties), but its
    runs gave the pooled skewness their k-statistic skewness of sqrt(3): agent A's g moved from 0.399 to -0.167 and
    the band's upper end at tau 0.875 from 1 to 0.333 (0.667 off), for a change of 5.6e-17 in one score."""
    tau = np.linspace(0, 1, 41)
    exact = rlstats.performance_profile(_profile_frame([0.3, 0.3, 0.3]), "score ~ agent | task", kind="tasks",
                                        tau=tau)
    rounded = rlstats.performance_profile(_profile_frame([0.3, 0.1 + 0.2, 0.3]), "score ~ agent | task",
                                          kind="tasks", tau=tau)
    np.testing.assert_array_equal(rounded.intervals, exact.intervals)


def test_plot_keeps_every_name_that_reads_as_a_number():
    """Agents named by a learning rate ("0.0001", "0.0003", ...) were taken for a number axis' labels and thinned:
    the bootstrap's intervals at figsize=(3.4, 1.6) kept 2 of the 12 agents' names ('0.0001', '0.1'), leaving ten
    rows unnamed, where names are never to be dropped (refused with a size that holds them instead)."""
    from rlstats.errors import OptionError

    rng = np.random.default_rng(0)
    names = [str(v) for v in (1e-4, 3e-4, 1e-3, 3e-3, 0.01, 0.03, 0.1, 0.3, 1.0, 3.0, 10.0, 30.0)]
    frame = pd.DataFrame([(a, f"t{t}", r, rng.normal(i * 0.1, 1)) for i, a in enumerate(names) for t in range(3)
                          for r in range(3)], columns=["agent", "task", "seed", "score"])
    res = rlstats.bootstrap(frame, "score ~ agent | task", n_resamples=200, rng=0)
    with pytest.raises(OptionError, match="tick labels? of the y axis"):
        res.plot(figsize=(3.4, 1.6))


def _capped_frame(agents, capped="D"):
    rng = np.random.default_rng(5)
    rows = []
    for a in agents:
        for t in range(8):
            for r in range(4):
                x = (min(1.0, rng.normal(0.6 + 0.05 * t, 0.2)) if a != capped else
                     (1.0 if rng.random() < 0.9 else rng.uniform(0.5, 1)))
                rows.append((a, f"t{t}", r, x))
    return pd.DataFrame(rows, columns=["agent", "task", "seed", "score"])


@pytest.mark.parametrize("agents, capped", [(["A", "D"], "D"), (["A", "B", "C", "D"], "D"), (["A", "B", "C"], "A")])
def test_mixed_withholds_the_coefficients_test_of_a_saturated_pair(agents, capped):
    """With D at the cap in ~90% of its runs its pairs' tests are withheld (A - D: t and p NaN), yet the fixed effects
    printed the same difference's test, agentD t = 5.43, p = 8.9e-05 (2 agents), from the model the note says does
    not describe D's runs. The coefficients of a saturated agent, or all of them when the baseline (first agent) is
    saturated, now withhold their t and p as the pairs do; the intercept's test (a mean, like the marginal means')
    stays where the baseline is not saturated."""
    res = rlstats.mixed(_capped_frame(agents, capped), "score ~ agent | task", bounds=(0, 1))
    assert res.agents[0] == agents[0] and any("withheld for every pair of " + capped in n for n in res.notes)
    coef = res.coefficients.set_index("term")
    for term in coef.index[1:]:
        withheld = capped == agents[0] or term == "agent" + capped
        assert np.isnan(coef.loc[term, "statistic"]) == withheld and np.isnan(coef.loc[term, "p_value"]) == withheld
        assert np.isfinite(coef.loc[term, "estimate"]) and np.isfinite(coef.loc[term, "std_error"])


@pytest.mark.parametrize("adjust, line", [("tukey", "tukey method for comparing a family of 3 estimates"),
                                          ("holm", "holm method for 3 tests")])
def test_mixed_adjustment_line_names_the_family_the_pairs_given_were_adjusted_over(adjust, line):
    """With D saturated the pairs of A, B and C come from the refit without D, adjusted over those 3 agents' 3 pairs,
    yet the print said "tukey method for comparing a family of 4 estimates" ("holm method for 6 tests")."""
    res = rlstats.mixed(_capped_frame(["A", "B", "C", "D"]), "score ~ agent | task", bounds=(0, 1), adjust=adjust)
    assert "P value adjustment: " + line in str(res)


def test_read_logs_warning_counts_files_and_incomplete_runs_apart(sb3_run_missing_a_file):
    """Two runs of PPO CartPole (4 monitor.csv files each), one file of one cut mid-line: the warning read "skipped 2
    of 8 Stable-Baselines3 monitor.csv files that could not be used", counting the run left out whole (its three
    good files unsaid) as a second file that failed."""
    from rlstats.errors import RlstatsWarning

    with pytest.warns(RlstatsWarning) as caught:
        rlstats.read_logs(sb3_run_missing_a_file, "seed_{seed}", format="sb3_monitor", on_error="skip", progress=False)
    text = " ".join(str(w.message) for w in caught)
    assert "skipped 1 of 8 Stable-Baselines3 monitor.csv files that could not be used, and 1 run" in text
