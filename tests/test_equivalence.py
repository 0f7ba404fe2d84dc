"""rlstats.equivalence (issue 41 item 2): TOST and non-inferiority per task, across tasks, on the aggregate and
against a published table; its numbers against R's t.test (tests/reference/tost_r.R), closed forms and the bootstrap,
and a reduced re-measurement of its size at the margin (the ``equivalence.size`` rows of calibration.csv)."""

import math
import pathlib
import runpy

import numpy as np
import pandas as pd
import pytest

import rlstats
from rlstats import calibration
from rlstats.methods.equivalence import _kernels as kernels

REFERENCE = pathlib.Path(__file__).parent / "reference"
SIZE = runpy.run_path(str(REFERENCE / "size_equivalence.py"))
MARGIN = 1.2
AGENTS = ("A", "B", "C")
SHIFT = {"A": 0.0, "B": 0.4, "C": 1.5}
RUNS = {"A": (5, 4, 6, 3), "B": (4, 6, 3, 5), "C": (6, 3, 4, 4)}


def r_data():
    """The data of tests/reference/tost_r.R, written the same way."""
    rows = []
    for k, a in enumerate(AGENTS):
        for t in range(1, 5):
            for r in range(1, RUNS[a][t - 1] + 1):
                score = (2 * t + SHIFT[a] + ((r * 7 + t * 3 + k * 5) % 11 - 5) / 4
                         + 0.1 * math.sqrt(r + t) * (1 + k))
                rows.append({"agent": a, "task": f"t{t}", "seed": r, "score": score})
    return pd.DataFrame(rows)


@pytest.fixture(scope="module")
def reference():
    return pd.read_csv(REFERENCE / "tost_r.csv", comment="#", keep_default_na=False)


@pytest.mark.parametrize("across", ["welch", "paired_t"])
def test_numbers_equal_r_t_test(reference, across):
    res = rlstats.equivalence(r_data(), "score ~ agent | task", margin=MARGIN, across=across, aggregate=None)
    ours = res.tidy()
    expected = reference[reference["scope"].isin(["task", across])]
    assert len(ours) == len(expected) == 3 * 5
    for (_, row), (_, want) in zip(ours.iterrows(), expected.iterrows()):
        assert (row["agent_1"], row["agent_2"]) == (want["agent_1"], want["agent_2"])
        assert (row["task"] or "") == want["task"]
        for column in ("estimate", "df", "conf_low", "conf_high", "p_lower", "p_upper"):
            # a bound carries the t quantile's error at fractional df: 1.4e-9 relative in the oldest allowed scipy
            bound = column.startswith("conf")
            assert row[column] == pytest.approx(want[column], rel=1e-8 if bound else 1e-9,
                                                abs=1e-9 if bound else 1e-12), (column, want["task"])
        assert row["p_value"] == max(row["p_lower"], row["p_upper"])
        # the interval decides, and agrees with both one-sided tests at alpha
        inside = row["conf_low"] > -MARGIN and row["conf_high"] < MARGIN
        assert row["shown"] == inside == (row["p_value"] < 0.05)
        # wholly past a bound: R's one-sided test of the other direction rejects at alpha (audit s19)
        below, above = row["conf_high"] < -MARGIN, row["conf_low"] > MARGIN
        assert below == (1 - want["p_lower"] < 0.05) and above == (1 - want["p_upper"] < 0.05)
        assert row["conclusion"] == ("equivalent within \u00b11.2" if inside else
                                     "shown below -1.2, beyond the margin" if below else
                                     "shown above 1.2, beyond the margin" if above else "not shown equivalent")


def test_noninferiority_is_the_one_sided_test_of_worse(reference):
    df = r_data()

    class Pairs:  # R's pairs A-B, A-C, B-C in its order: A against the control B, then A and B against C
        def __init__(self, **options):
            options = {"margin": MARGIN, "alternative": "noninferior", "aggregate": None, **options}
            b, c = (rlstats.equivalence(df, "score ~ agent | task", control=control, **options).tidy()
                    for control in "BC")
            self.table = pd.concat([b[b["agent_1"] == "A"], c], ignore_index=True)
            self.text = str(rlstats.equivalence(df, "score ~ agent | task", control="C", **options))

        def tidy(self):
            return self.table

        def __str__(self):
            return self.text

    up, down = Pairs(), Pairs(higher_is_better=False)
    want = reference[reference["scope"].isin(["task", "welch"])]
    assert list(zip(up.tidy()["agent_1"], up.tidy()["agent_2"])) == list(zip(want["agent_1"], want["agent_2"]))
    np.testing.assert_allclose(up.tidy()["p_value"], want["p_lower"], rtol=1e-9)
    np.testing.assert_allclose(down.tidy()["p_value"], want["p_upper"], rtol=1e-9)
    assert (up.tidy()["shown"] == (up.tidy()["conf_low"] > -MARGIN)).all()
    assert (down.tidy()["shown"] == (down.tidy()["conf_high"] < MARGIN)).all()
    assert "non-inferior by margin 1.2" in set(up.tidy()["conclusion"])
    assert "One-sided test of non-inferiority" in str(up)


def test_control_pairs_each_agent_with_it():
    res = rlstats.equivalence(r_data(), "score ~ agent | task", margin=MARGIN, control="B", aggregate=None)
    assert res.pairs == (("A", "B"), ("C", "B"))
    full = rlstats.equivalence(r_data(), "score ~ agent | task", margin=MARGIN, aggregate=None).tidy()
    c_b = res.tidy().query("agent_1 == 'C'")["estimate"].to_numpy()
    b_c = full.query("agent_1 == 'B' and agent_2 == 'C'")["estimate"].to_numpy()
    np.testing.assert_allclose(c_b, -b_c, rtol=1e-12)


def test_published_table_equals_the_runs_it_summarises():
    # a published table made of agent B's own per-task mean, sd and n gives A - B's numbers exactly
    df = r_data()
    cells = df[df["agent"] == "B"].groupby("task")["score"]
    published = pd.DataFrame({"task": cells.mean().index, "mean": cells.mean().to_numpy(),
                              "sd": cells.std(ddof=1).to_numpy(), "n": cells.size().to_numpy()})
    published = pd.concat([published, pd.DataFrame([{"task": "t9", "mean": 1.0, "sd": 1.0, "n": 5}])])
    ours = df[df["agent"] == "A"]
    res = rlstats.equivalence(ours, "score ~ agent | task", margin=MARGIN, published=published)
    runs = rlstats.equivalence(df[df["agent"] != "C"], "score ~ agent | task", margin=MARGIN, aggregate=None)
    assert res.pairs == (("A", "published"),) and res.published and res.aggregate is None
    mine, theirs = res.tidy(), runs.tidy()
    for column in ("estimate", "std_error", "df", "conf_low", "conf_high", "p_lower", "p_upper"):
        np.testing.assert_allclose(mine[column], theirs[column], rtol=1e-12)
    assert any("t9" in n for n in res.notes)  # the published task the data lack
    assert any("no aggregate" in n for n in res.notes)
    assert "against a published table" in res.method and "published table" in res.report()


def test_aggregate_is_the_bootstraps_difference():
    df = rlstats.datasets.simulate(agents=2, tasks=8, seeds=10, effect=0.0, distribution="normal",
                                   heterogeneity=0.0, rng=3)
    res = rlstats.equivalence(df, "score ~ agent | task", margin=0.5, aggregate="mean", n_resamples=2000, rng=1)
    boot = rlstats.bootstrap(df, "score ~ agent | task", metrics=["mean"], n_resamples=2000,
                             confidence_level=0.9, rng=1)
    row = res.tidy().query("scope == 'aggregate'").iloc[0]
    assert row["estimate"] == pytest.approx(boot.estimates[0, 0] - boot.estimates[1, 0], rel=1e-12)
    # scaled by sqrt(c / (c - 1)) for c = 10 runs per task, as the bootstrap's own studentised interval is
    assert row["std_error"] == pytest.approx(math.hypot(*boot.standard_errors[:, 0]) * math.sqrt(10 / 9), rel=1e-12)
    # normal runs: the bootstrap-t interval of the mean difference is close to its closed form (Welch-Satterthwaite
    # over tasks, the across-tasks test), within Monte Carlo and studentisation error
    across = res.tidy().query("scope == 'across tasks'").iloc[0]
    assert across["estimate"] == pytest.approx(row["estimate"], rel=1e-12)
    width = across["conf_high"] - across["conf_low"]
    assert abs(row["conf_low"] - across["conf_low"]) < 0.06 * width
    assert abs(row["conf_high"] - across["conf_high"]) < 0.06 * width
    assert row["shown"] == (row["conf_low"] > -0.5 and row["conf_high"] < 0.5)


def test_bootstrap_t_kernel_p_values_and_interval_agree():
    rng = np.random.default_rng(0)
    t_star = rng.standard_normal(999)
    out = kernels.bootstrap_t(np.array(0.1), np.array(0.2), 0.1 + 0.2 * t_star, np.full(999, 0.2), 0.5, 0.05)
    # the (B + 1) alpha-th order statistics of t* (Efron and Tibshirani 1993, 12.5): the 50th and 950th of 999
    ordered = np.sort(t_star)
    assert out["conf_low"] == pytest.approx(0.1 - 0.2 * ordered[949])
    assert out["conf_high"] == pytest.approx(0.1 - 0.2 * ordered[49])
    assert out["p_lower"] == pytest.approx((np.sum(t_star >= 3.0) + 1) / 1000)
    assert out["p_upper"] == pytest.approx((np.sum(t_star <= -2.0) + 1) / 1000)
    assert bool(out["shown"])


@pytest.mark.parametrize("alternative, higher_is_better",
                         [("equivalence", True), ("noninferior", True), ("noninferior", False)])
def test_bootstrap_t_decision_p_value_and_interval_agree(alternative, higher_is_better):
    # issue 41 item 2 (review): shown was read off an interpolated quantile interval, the p-value was
    # (hits + 1) / (B + 1), and they disagreed near the margin; now one rule: shown iff p <= alpha, and the interval's
    # deciding end lies inside the margin iff shown. Random cases, many near the margin, with ties (rounded t*)
    rng = np.random.default_rng(7)
    for b in (100, 299, 300, 999):
        cases = 400
        delta, se = rng.normal(size=cases), rng.uniform(0.1, 1.5, cases)
        t_star = np.round(rng.standard_t(5, (cases, b)) * rng.uniform(0.5, 2, (cases, 1)), 1)
        resampled_se = se[:, None] * rng.uniform(0.5, 1.5, (cases, b))
        resampled = delta[:, None] + t_star * resampled_se
        margin = np.abs(delta) + rng.uniform(0, 3, cases) * se
        for alpha in (0.05, 0.1):
            out = kernels.bootstrap_t(delta, se, resampled, resampled_se, margin, alpha, alternative,
                                      higher_is_better)
            shown, p = out["shown"], out["p_value"]
            np.testing.assert_array_equal(shown, p <= alpha)
            inside_low, inside_high = out["conf_low"] > -margin, out["conf_high"] < margin
            ends = {("equivalence", True): inside_low & inside_high, ("noninferior", True): inside_low,
                    ("noninferior", False): inside_high}[(alternative, higher_is_better)]
            np.testing.assert_array_equal(ends, shown)
            assert 0.05 < shown.mean() < 0.95  # both answers are exercised
    # the reviewer's case (then at margin 1.2504262: conf_low above -margin while p = 0.0532 > 0.05 said "shown");
    # with the standard error scaled by sqrt(c / (c - 1)) (issue 40) the same data sit at the margin near 1.35
    df = rlstats.datasets.simulate(agents=2, tasks=6, seeds=5, effect=0.0, rng=0)
    row = rlstats.equivalence(df, "score ~ agent | task", margin=1.35, alternative="noninferior", control="agent_2", rng=0,
                              n_resamples=300).tidy().query("scope == 'aggregate'").iloc[0]
    # (p = 18 / 301 from rng=0 until audit s33 bootstream33 keyed each cell's resamples by its task's name, 21 / 301
    # since: a random number near alpha, whose decision, p-value and interval must agree whatever the draws)
    p = row["p_value"]
    assert 0.05 < p < 0.05 + 3 * np.sqrt(0.05 * 0.95 / 300) and float(p * 301).is_integer()
    assert not row["shown"] and row["conf_low"] <= -1.35


def test_bootstrap_t_with_too_few_resamples_for_alpha_shows_nothing():
    rng = np.random.default_rng(1)
    out = kernels.bootstrap_t(np.array(0.0), np.array(0.1), 0.1 * rng.standard_normal(100), np.full(100, 0.1),
                              5.0, 0.005)
    assert out["p_value"] == pytest.approx(1 / 101) and not out["shown"]
    assert out["conf_low"] == -np.inf and out["conf_high"] == np.inf
    df = rlstats.datasets.simulate(agents=2, tasks=3, seeds=3, effect=0.0, rng=0)
    res = rlstats.equivalence(df, "score ~ agent | task", margin=5.0, alpha=0.005, n_resamples=100, rng=0)
    assert res.tidy().query("scope == 'aggregate'")["conclusion"].iloc[0] == "not shown equivalent"
    assert any("raise n_resamples to 200 or more" in n for n in res.notes)


def test_kernels_of_the_calibration_give_the_public_numbers():
    # tests/reference/size_equivalence.py calls the kernels on many data sets at once: they are the public numbers
    df = r_data()
    res = rlstats.equivalence(df, "score ~ agent | task", margin=MARGIN, aggregate=None).tidy()
    a, b = (df[df["agent"] == x].groupby("task")["score"] for x in "AB")
    estimate, se, dof = kernels.welch(a.mean(), a.std(), a.size(), b.mean(), b.std(), b.size())
    test = kernels.tost(estimate, se, dof, MARGIN, 0.05)
    np.testing.assert_allclose(test["conf_low"], res["conf_low"][:4], rtol=1e-12)
    estimate, se, dof = kernels.welch_mean(a.mean(), a.std(), a.size(), b.mean(), b.std(), b.size())
    assert kernels.tost(estimate, se, dof, MARGIN, 0.05)["conf_high"] == pytest.approx(res["conf_high"][4], rel=1e-12)


def test_one_run_per_cell_withholds_what_needs_a_spread():
    df = rlstats.datasets.simulate(agents=2, tasks=6, seeds=1, effect=0.0, rng=0)
    res = rlstats.equivalence(df, "score ~ agent | task", margin=5.0, rng=0)
    tidy = res.tidy()
    assert tidy.query("scope == 'task'")["shown"].isna().all()
    assert (tidy.query("scope != 'task'")["conclusion"] == "withheld").all()
    assert any("per-task equivalence tests" in n and "read the across-tasks test with across='paired_t'" in n
               for n in res.notes)
    assert any("aggregate (IQM) difference is withheld" in n for n in res.notes)
    paired = rlstats.equivalence(df, "score ~ agent | task", margin=5.0, across="paired_t", aggregate=None)
    row = paired.tidy().query("scope == 'across tasks'").iloc[0]
    assert np.isfinite(row["conf_low"]) and row["df"] == 5
    assert "withheld" in str(res)


def test_normalised_margin_is_said():
    data = rlstats.datasets.simulate(agents=2, tasks=4, seeds=5, rng=0)
    res = rlstats.equivalence(data, "score ~ agent | task", margin=0.2, normalize="minmax", aggregate=None)
    assert res.margin_scale == "normalised scores" and "margin = 0.2 (normalised scores)" in str(res)
    raw = rlstats.equivalence(data, "score ~ agent | task", margin=0.2, aggregate=None)
    assert raw.margin_scale == "the units of 'score'"


def test_margin_units_follow_the_designs_record_of_normalisation():
    # issue 41 item 2 (review): normalize=False (the scores are on one scale already) is no normalisation
    data = rlstats.datasets.simulate(agents=2, tasks=4, seeds=5, rng=0)
    kept = rlstats.equivalence(data, "score ~ agent | task", margin=0.5, normalize=False, aggregate=None)
    assert kept.margin_scale == "the units of 'score'" and "margin = 0.5 (the units of 'score')" in str(kept)
    table = data[data["agent"] == "agent_2"].groupby("task")["score"].agg(mean="mean", sd="std", n="size")
    table = table.reset_index()
    mine = data[data["agent"] == "agent_1"]
    with_false = rlstats.equivalence(mine, "score ~ agent | task", margin=0.5, published=table, normalize=False)
    plain = rlstats.equivalence(mine, "score ~ agent | task", margin=0.5, published=table)
    assert with_false.margin_scale == "the units of 'score'"
    pd.testing.assert_frame_equal(with_false.tidy(), plain.tidy())
    with pytest.raises(rlstats.OptionError, match="normalize= with published="):
        rlstats.equivalence(mine, "score ~ agent | task", margin=0.5, published=table, normalize="minmax")


def test_noninferiority_says_its_one_sided_rule():
    # issue 41 item 2 (review): no equivalence wording for non-inferiority, and no claim the margin was prespecified
    data = rlstats.datasets.simulate(agents=2, tasks=4, seeds=5, rng=0)
    higher = rlstats.equivalence(data, "score ~ agent | task", margin=0.5, alternative="noninferior", control="agent_2",
                                 aggregate=None).report("text")
    assert "non-inferior when the 90% interval of its difference has its lower end above -0.5" in higher
    assert "lies within" not in higher
    lower = rlstats.equivalence(data, "score ~ agent | task", margin=0.5, alternative="noninferior", control="agent_2",
                                higher_is_better=False, aggregate=None).report("text")
    assert "its upper end below +0.5 (lower scores are better)" in lower
    tost = rlstats.equivalence(data, "score ~ agent | task", margin=0.5, aggregate=None).report("text")
    assert "interval lies within \u00b10.5" in tost
    for text in (higher, lower, tost):
        assert "(a margin should be fixed before the analysis)" not in text  # said inside the units' parentheses
        assert "(the units of 'score'; a margin should be fixed before the analysis)" in text
        assert "), fixed before the analysis" not in text


def test_per_task_lines_say_they_are_unadjusted():
    # issue 41 item 2 (review): per-task counts are separate tests at alpha; all withheld reads as such
    data = rlstats.datasets.simulate(agents=2, tasks=6, seeds=5, effect=0.0, rng=0)
    res = rlstats.equivalence(data, "score ~ agent | task", margin=1.0, aggregate=None)
    line = next(x for x in str(res).splitlines() if x.strip().startswith("per task:"))
    shown = int(res.tidy().query("scope == 'task'")["shown"].sum())
    assert line.strip() == (f"per task: {shown} of 6 tasks tested shown equivalent; separate tests each at alpha = "
                            "0.05, not adjusted for multiplicity (on every task: holds at alpha; on some task: needs "
                            "an adjustment)")
    assert "not adjusted for multiplicity" in res.report()
    one_run = rlstats.equivalence(data[data["seed"] == 0], "score ~ agent | task", margin=1.0, aggregate=None)
    assert "  per task: withheld on all 6 tasks (see the notes)" in str(one_run).splitlines()


def test_size_notes_quote_a_measured_miss(monkeypatch):
    rows = ({"procedure": "equivalence.size", "test": "tost", "interval": "paired_t", "metric": "",
             "agents": "2", "tasks": "5", "runs": "5", "distribution": "capped", "configuration": "delta = +margin",
             "level": "0.95", "n_sim": "1000", "coverage": "0.90", "se": "0.0069", "design_draws": "4",
             "coverage_min": "0.88"},)
    monkeypatch.setattr(calibration, "rows", lambda procedure: rows if procedure == "equivalence.size" else ())
    data = rlstats.datasets.simulate(agents=2, tasks=5, seeds=5, rng=0)
    res = rlstats.equivalence(data, "score ~ agent | task", margin=1.0, across="paired_t", aggregate=None)
    assert any(n.startswith("measured size at the margin of the across tasks test (paired t over tasks)")
               and "0.120" in n and "across='welch'" in n for n in res.notes)
    welch = rlstats.equivalence(data, "score ~ agent | task", margin=1.0, aggregate=None)
    assert not any(n.startswith("measured size") for n in welch.notes)
    # non-inferiority's miss is worded as such (issue 41 item 2, review)
    rows = ({**rows[0], "test": "noninferior"},)
    res = rlstats.equivalence(data, "score ~ agent | task", margin=1.0, across="paired_t", aggregate=None,
                              alternative="noninferior", control="agent_2")
    said = [n for n in res.notes if n.startswith("measured size")]
    assert len(said) == 1 and "its 'non-inferior' comes too easily" in said[0] and "'equivalent'" not in said[0]


def test_result_face():
    res = rlstats.equivalence(r_data(), "score ~ agent | task", margin=MARGIN, aggregate=None)
    assert len(res.glance()) == 1 and res.glance()["n_comparisons"].iloc[0] == 15
    assert "Two one-sided tests" in res.to_latex() and "equivalent" in res.report()
    assert "equal " not in res.report().replace("equal in spread", "")
    ci = res.confidence_interval()
    assert list(ci.columns[-2:]) == ["conf_low", "conf_high"]
    with pytest.raises(rlstats.OptionError, match="alpha="):
        res.confidence_interval(0.95)
    import matplotlib.pyplot as plt

    ax = res.plot()
    assert len(ax.patches) >= 1  # the margin band
    plt.close("all")


# ----------------------------------------------------------------------------- size at the margin, re-measured

# a few grid points in the default suite (the per-task and across-tasks tests, vectorised); the whole grid under -m slow
QUICK = [("welch", "", 5, 3, "skewed"), ("welch_mean", "", 5, 3, "capped"), ("paired_t", "", 26, 5, "normal")]


def _row(point, configuration, test):
    interval, metric, tasks, runs, distribution = point
    found = [r for r in calibration.rows(SIZE["PROCEDURE"])
             if (r["interval"], r["metric"], int(r["tasks"]), int(r["runs"]), r["distribution"], r["configuration"],
                 r["test"]) == (interval, metric, tasks, runs, distribution, configuration, test)]
    assert len(found) == 1, "the calibration table lacks this grid point"
    return found[0]


def _check(point, n_sim):
    for configuration in SIZE["CONFIGURATIONS"]:
        held = SIZE["held_by_draw"](*point, configuration, n_sim, seed=99)
        for row in SIZE["rows_of"]((*point, configuration), held):
            table = _row(point, configuration, row["test"])
            joint = math.sqrt(0.05 * 0.95 * (1 / row["n_sim"] + 1 / int(table["n_sim"])))
            assert abs(row["coverage"] - float(table["coverage"])) <= 4 * joint, (point, row, table["coverage"])
            # the defaults hold their level here (a bound that fails if alpha is exceeded)
            if point[0] != "paired_t":
                assert row["coverage"] >= 0.95 - 3 * math.sqrt(0.05 * 0.95 / row["n_sim"]), (point, row)


def _points(quick, n_quick, n_full):
    return ([pytest.param(p, n_quick, id="quick-" + "-".join(map(str, p))) for p in quick]
            + [pytest.param(p, n_full, id="-".join(map(str, p)), marks=pytest.mark.slow)
               for p in SIZE["grid"]() if p[0] != "bootstrap_t"])


@pytest.mark.parametrize("point, n_sim", _points(QUICK, 100, 250))
def test_size_at_the_margin(point, n_sim):
    _check(point, n_sim)


@pytest.mark.slow
def test_aggregate_size_at_the_margin_of_five_heavy_tailed_tasks():
    # issue 41 item 4: the IQM's bootstrap-t at 5 tasks x 20 heavy-tailed runs at -margin was recorded at 0.930 (worst
    # draw 0.86) by a re-measurement that reused the data sets whose chance miss triggered it; on fresh data sets it
    # held (0.9463 and 0.9567 at 1,600 and 1,200): re-measured here on others, by the table's rule (20 s)
    point, configuration = ("bootstrap_t", "iqm", 5, 20, "heavy_tailed"), "delta = -margin"
    for row in SIZE["rows_of"]((*point, configuration), SIZE["held_by_draw"](*point, configuration, 100, seed=99)):
        assert not calibration.misses({k: str(v) for k, v in row.items()}, 0.95), row


def test_one_task_has_no_across_tasks_test():
    df = rlstats.datasets.simulate(agents=2, tasks=1, seeds=6, rng=0)
    res = rlstats.equivalence(df, "score ~ agent | task", margin=1.0)
    tidy = res.tidy()
    assert tidy.query("scope == 'task'")["shown"].notna().all()
    assert tidy.query("scope != 'task'")["conclusion"].tolist() == ["withheld"]  # the aggregate: no row, a note
    assert any("across-tasks test is withheld for agent_1 vs agent_2: they share only one task (task_01)" in n
               for n in res.notes)
    assert any("aggregate (IQM) difference is withheld for agent_1 vs agent_2 (only task_01)" in n
               and "needs 2 or more of them" in n for n in res.notes)


# ---------------------------------------------------------------------------- issue 41 items 1-2: withholding, units

#: final evaluation returns of A2C and PPO in /work/shared/data/logs/sb3_classic (3 seeds), normalised to [0, 1] by
#: each environment's return range (Acrobot-v1 [-500, 0], CartPole-v1 [0, 500]): every PPO run on Acrobot-v1 hit the
#: 500-step cap, so it scores 0 three times (the vignette's frame, issue 41 item 5)
SB3 = pd.DataFrame({"agent": ["A2C"] * 6 + ["PPO"] * 6, "task": (["Acrobot-v1"] * 3 + ["CartPole-v1"] * 3) * 2,
                    "seed": [0, 1, 2] * 4, "score": [0.0, 0.8204, 0.6452, 0.8128, 0.9904, 0.4896,
                                                     0.0, 0.0, 0.0, 0.6532, 0.642, 0.7272]})


def test_aggregate_is_floored_as_the_bootstrap_and_withheld_where_it_withholds_an_agent():
    # the SB3 frame gave -3.58 to 0.69 for a difference in [-1, 1], from resampled standard errors near 0; each
    # resample's standard error is now floored as in the bootstrap's own interval (issue 40), which gives PPO an
    # interval too, and the difference's interval lies within the range its resamples take
    res = rlstats.equivalence(SB3, "score ~ agent | task/seed", margin=0.05, n_resamples=2000, rng=0)
    row = res.tidy().query("scope == 'aggregate'").iloc[0]
    assert row["estimate"] == pytest.approx(0.692 - 0.3238)
    assert -1 <= row["conf_low"] < row["estimate"] < row["conf_high"] <= 1
    assert row["conclusion"] == "not shown equivalent" and not row["shown"]
    assert not any("aggregate (IQM) difference is withheld" in n for n in res.notes)
    # PPO failing every run (all 0): the bootstrap withholds its studentised interval, and so does this test
    flat = SB3.assign(score=SB3["score"].where(SB3["agent"] == "A2C", 0.0))
    boot = rlstats.bootstrap(flat, "score ~ agent | task/seed", metrics=["iqm"], n_resamples=2000, rng=0).tidy()
    assert boot.set_index("agent").loc["PPO", ["conf_low", "conf_high"]].isna().all()
    res = rlstats.equivalence(flat, "score ~ agent | task/seed", margin=0.05, n_resamples=2000, rng=0)
    assert res.tidy().query("scope == 'aggregate'")["conclusion"].iloc[0] == "withheld"
    assert any("aggregate (IQM) difference is withheld for A2C vs PPO: the bootstrap withholds the studentised "
               "interval of PPO" in n for n in res.notes)
    assert not any("interval=\"percentile\"" in n for n in res.notes)  # the bootstrap's way on is not this test's


def test_aggregate_is_withheld_where_its_interval_leaves_the_resampled_range():
    # both agents' bootstrap intervals are given, but the difference's bootstrap-t interval reaches beyond
    # min(A2C) - max(PPO) = 0.586 - 0.817: t* blown up by resamples whose standard errors are near 0
    df = SB3.assign(score=[0.668, 0.720, 0.757, 0.662, 0.586, 0.759, 0.564, 0.817, 0.690, 0.564, 0.729, 0.564])
    boot = rlstats.bootstrap(df, "score ~ agent | task/seed", metrics=["iqm"], n_resamples=1000, rng=0).tidy()
    assert boot[["conf_low", "conf_high"]].notna().all().all()
    res = rlstats.equivalence(df, "score ~ agent | task/seed", margin=0.05, n_resamples=1000, rng=0)
    row = res.tidy().query("scope == 'aggregate'").iloc[0]
    assert row["conclusion"] == "withheld" and np.isnan(row["conf_low"])
    assert any("withheld for A2C vs PPO: its bootstrap-t interval reaches beyond the range" in n for n in res.notes)
    # a healthy interval stays given: test_aggregate_is_the_bootstraps_difference


def test_units_of_a_frame_normalised_beforehand_read_as_bayes_reads_them():
    # a frame made by rlstats.normalize holds normalised scores: bayes said so, equivalence said "units of score"
    raw = rlstats.datasets.simulate(agents=2, tasks=3, seeds=5, rng=0)
    normalised = rlstats.normalize(raw, "minmax", by="task", score="score")
    formula = "score ~ agent | task/seed"
    tost = rlstats.equivalence(normalised, formula, margin=0.05, aggregate=None)
    signed = rlstats.bayes(normalised, formula, rope=0.05, n_samples=500, rng=0)
    assert tost.margin_scale == signed.rope_scale == "normalised scores"
    assert "margin = 0.05 (normalised scores)" in str(tost) and "in normalised scores" in str(signed)
    # the same fact read from one home: the Design; a normalised frame analysed through another column is not
    assert rlstats.build(normalised, formula).normalized and not rlstats.build(raw, formula).normalized
    other = normalised.assign(raw_score=raw["score"])
    assert not rlstats.build(other, "raw_score ~ agent | task/seed").normalized
    assert rlstats.equivalence(raw, formula, margin=0.5, aggregate=None).margin_scale \
        == rlstats.bayes(raw, formula, rope=0.5, n_samples=500, rng=0, normalize=False).rope_scale \
        == "the units of 'score'"


def test_across_tasks_note_names_the_reason_it_is_withheld():
    # the note said "needs 2 or more tasks ... (with across='welch', 2 runs ...; across='paired_t' needs one)" where
    # the reason was a single shared task: it names the reason of each pair now
    one_task = SB3[SB3["task"] == "CartPole-v1"]
    notes = rlstats.equivalence(one_task, "score ~ agent | task/seed", margin=0.05).notes
    assert ("the across-tasks test is withheld for A2C vs PPO: they share only one task (CartPole-v1), and a test "
            "across tasks needs 2 or more; its per-task test is the answer there") in notes
    assert not any("needs one" in n for n in notes)
    one_run = SB3[SB3["seed"] == 0]
    notes = rlstats.equivalence(one_run, "score ~ agent | task/seed", margin=0.05, aggregate=None).notes
    assert ("the across-tasks test is withheld for A2C vs PPO: across='welch' reads the spread of the runs within "
            "every shared task, and 2 tasks of 2 (Acrobot-v1, CartPole-v1) lack one (fewer than 2 runs of an agent); "
            "add runs, or use across='paired_t' (tasks as a sample, one run per cell is enough)") in notes
    paired = rlstats.equivalence(one_run, "score ~ agent | task/seed", margin=0.05, aggregate=None, across="paired_t")
    assert not any("across-tasks test is withheld" in n for n in paired.notes)
    # PPO's Acrobot-v1 runs all score 0: that task lacks a spread for PPO; CartPole-v1 has one
    notes = rlstats.equivalence(SB3, "score ~ agent | task/seed", margin=0.05, aggregate=None).notes
    assert not any("across-tasks test is withheld" in n for n in notes)  # A2C's Acrobot-v1 runs vary: Welch's t holds
