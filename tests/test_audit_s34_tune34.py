"""Audit s34 (tune34): a new-user trial of tuning() on the real ADA-research sweeps (hpo_optimisation, hpo_landscapes).

HIGH-1  a sweep of one configuration of one seed (the baseline procedure) beside sweeps withheld for a configuration of
        one seed: probability_best 1.0 and in_best_set True, a full bar at 1.0 under a title saying "probabilities
        withheld where a configuration has one seed", and no word that the 1 is by construction (nothing selected).
HIGH-2  the expected-max band's coverage note quoted the design of a sweep whose band was withheld (5 configurations,
        3 seeds: nearest to 1 seed) where only a sweep of 10 seeds had its band printed.
MED-3   the best-set plot drew members (best or tied for best in >= threshold of the resamples) at their shared
        probability, left of the threshold line; the table printed the rule without the quantity it reads.
LOW-7   the configurations never best (probability 0) were left out of best_set(), its LaTeX table and the plot
        without a word (the caption's "configurations = 1 to 5" beside a sweep listing 3).
"""

import math

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402

import rlstats  # noqa: E402
from conftest import load_dataset  # noqa: E402


def _sweeps(spec, task="lunar"):
    """A long frame of procedures -> list of configurations' scores (one list of seeds' scores each)."""
    rows = [(p, task, k, s, x) for p, configs in spec.items() for k, seeds in enumerate(configs)
            for s, x in enumerate(seeds)]
    return pd.DataFrame(rows, columns=["procedure", "task", "tuning_run", "seed", "score"])


def _tune(df, **options):
    return rlstats.tuning(df, "score ~ procedure | task/seed", config="tuning_run", progress=False,
                          **{"rng": 0, "n_resamples": 400, **options})


# ---- HIGH-1: a sweep of one configuration is best by construction, and said to be ----------------------------------

@pytest.fixture(scope="module")
def baseline_beside_one_seed():
    """'base': one configuration of one seed; 'dd': 3 configurations of one seed (withheld); 'rs': 3 of 4 seeds."""
    rs = [[300, 320, 310, 330], [305, 290, 335, 300], [200, 210, 190, 205]]
    df = _sweeps({"base": [[289.0]], "dd": [[280.0], [250.0], [270.0]], "rs": rs})
    return _tune(df, views=["best_set"])


def test_one_configuration_is_best_by_construction_and_said(baseline_beside_one_seed):
    res = baseline_beside_one_seed
    best = res.best_set().set_index("agent")
    # 1 exactly, since a sweep of one configuration has nothing to select: a fact, not a measurement
    assert best.loc["base", "probability_best"] == 1.0 and bool(best.loc["base", "in_best_set"])
    assert best.loc["dd", "probability_best"] != best.loc["dd", "probability_best"]  # withheld (NaN)
    said = [n for n in res.notes if "by construction" in n]
    assert len(said) == 1 and "base on lunar" in said[0] and "one configuration" in said[0]
    assert "not a measured probability" in said[0]
    text = str(res)
    assert "base on lunar: tuning_run=0 is the only configuration (best by construction" in text
    assert "selected of 1" not in text
    assert "by construction" in res.to_latex() and "by construction" in str(res.summary())
    ax = res.plot(kind="best_set")
    title = " ".join(ax.get_title().split())
    plt.close(ax.figure)
    assert "hatched: a sweep's only configuration, 1 by construction" in title
    # the withheld line says where: sweeps of several configurations ("base" has a configuration of one seed too)
    assert "probabilities withheld where one of several configurations has one seed" in title
    assert "probabilities withheld where a configuration has one seed" not in title


def test_one_configuration_bar_is_drawn_apart(baseline_beside_one_seed):
    """The by-construction bar is hatched and unfilled, the measured ones filled."""
    ax = baseline_beside_one_seed.plot(kind="best_set")
    try:
        labels = [t.get_text() for t in ax.get_yticklabels()]
        bars = list(ax.containers[0])
        base = bars[[i for i, label in enumerate(labels) if label.startswith("base")][0]]
        assert base.get_hatch() and base.get_fill() is False and base.get_width() == 1.0
        assert all(b.get_fill() and not b.get_hatch() for b in bars if b is not base)
    finally:
        plt.close(ax.figure)


# ---- HIGH-2: the coverage note quotes the designs of the sweeps whose bands are shown -------------------------------

def _band_notes(res):
    return [n for n in res.notes if n.startswith("the expected-max band's pointwise coverage")]


def test_band_note_quotes_the_shown_sweeps_design():
    rng = np.random.default_rng(4)
    rs = (300 + 40 * rng.standard_normal((5, 10))).tolist()
    dd = [[280.0], [250.0], [270.0], [260.0], [300.0]]
    alone = _tune(_sweeps({"rs": rs}), views=["expected_max"])
    both = _tune(_sweeps({"rs": rs, "dd": dd}), views=["expected_max"])
    em = both.expected_max()
    assert em.loc[em["agent"] == "dd", "conf_low"].isna().all()  # dd's band withheld (one seed)
    assert _band_notes(alone) and _band_notes(both) == _band_notes(alone)
    assert "(5 configurations, 10 seeds" in _band_notes(both)[0]


def test_band_notes_one_per_shown_design():
    """Two shown designs (10 and 3 seeds): each quoted, naming its sweeps."""
    rng = np.random.default_rng(4)
    rs = (300 + 40 * rng.standard_normal((5, 10))).tolist()
    three = (300 + 40 * rng.standard_normal((5, 3))).tolist()
    res = _tune(_sweeps({"rs": rs, "dd": three}), views=["expected_max"])
    notes = _band_notes(res)
    assert len(notes) == 2
    assert any("(5 configurations, 10 seeds" in n and "for rs on lunar" in n for n in notes)
    assert any("(5 configurations, 3 seeds" in n and "for dd on lunar" in n for n in notes)


def test_band_note_of_the_shown_sweep_on_real_sweeps(mirror_root):
    """The trial's case: PPO on LunarLander, 'hpo=dehb, rpo=rs' (5 tuning runs x 10 seeds) beside 'hpo=dehb,
    rpo=dehb' cut to 1 seed per run: the quoted row is rs's design (0.946 pooled, 0.640 worst at 10 seeds)."""
    opt = load_dataset("hpo_optimisation").drop_duplicates()
    ppo = opt[(opt["algorithm"] == "ppo") & (opt["task"] == "lunar") & (opt["objective"] == "return")]
    rs = ppo[ppo["procedure"] == "hpo=dehb, rpo=rs, return"]
    dd = ppo[ppo["procedure"] == "hpo=dehb, rpo=dehb, return"].groupby("tuning_run").head(1)
    res = _tune(pd.concat([rs, dd]), views=["expected_max"])
    (note,) = _band_notes(res)
    assert "measured at 0.946 over 51 real sweeps, 0.640 in the worst" in note and "10 seeds" in note


# ---- MED-3: the plot and table show what membership is decided on ----------------------------------------------------

@pytest.fixture(scope="module")
def capped():
    """20 configurations all at the cap (1000 x 3) and one, X, at 1000 in 2 of 3 seeds: X ties the cap in a resample
    with probability (2/3)^3 = 8/27, then shares it 21 ways; each capped one is tied always, sharing 20 or 21 ways."""
    configs = [[1000.0] * 3] * 20 + [[1000.0, 1000.0, 900.0]]
    return _tune(_sweeps({"ppo": configs}), views=["best_set"], n_resamples=4000)


def test_membership_quantity_is_in_the_table_and_checks_by_hand(capped):
    best = capped.best_set()
    p_x = 8 / 27
    x = best[best["config"] == "tuning_run=20"].iloc[0]
    se = math.sqrt(p_x * (1 - p_x) / 4000)
    assert abs(x["probability_best_or_tied"] - p_x) < 4 * se
    assert abs(x["probability_best"] - p_x / 21) < 4 * se / 21
    others = best[best["config"] != "tuning_run=20"]
    assert (others["probability_best_or_tied"] == 1.0).all()
    assert others["probability_best"].to_numpy() == pytest.approx((1 - p_x) / 20 + p_x / 21, abs=4 * se / 20)
    # every member reaches the threshold on the column printed beside it
    assert best["in_best_set"].all() and (best["probability_best_or_tied"] >= capped.threshold).all()
    assert (best["probability_best"] < capped.threshold).all()  # the quantity the plot drew: all left of the line
    assert "P(best or tied)" in capped.to_latex()


def test_no_member_left_of_the_line(capped):
    ax = capped.plot(kind="best_set")
    try:
        bars = list(ax.containers[0])
        members = capped.best_set()["in_best_set"].to_numpy(dtype=bool)
        widths = np.array([b.get_width() for b in bars])
        assert members.all() and (widths >= capped.threshold).all()
        assert "best or tied for best" in ax.get_xlabel()
        # the shared probability drawn too (a tick on each bar), labelled in the title
        ticks = ax.lines[-1].get_xdata()
        assert len(ticks) == 21 and (np.asarray(ticks) < capped.threshold).all()
        assert "|: probability of being best, ties shared" in ax.get_title()
    finally:
        plt.close(ax.figure)


def test_bootstrap_probabilities_by_hand_numpy():
    """An independent bootstrap (numpy, its own draws) of 3 configurations with ties at the cap, against the table:
    A = [1000, 1000, 990], B = [1000] * 3, C = [1000, 995, 1000]; tied shares 8/27, 1, 8/27 in closed form."""
    X = np.array([[1000, 1000, 990], [1000, 1000, 1000], [1000, 995, 1000]], dtype=float)
    res = _tune(_sweeps({"ppo": X.tolist()}), views=["best_set"], n_resamples=4000)
    rng = np.random.default_rng(123)
    m = np.take_along_axis(X[None], rng.integers(0, 3, size=(20000, 3, 3)), 2).mean(2)
    top = m >= m.max(1, keepdims=True) - 1e-9
    tied, shared = top.mean(0), (top / top.sum(1, keepdims=True)).mean(0)
    exact_tied = np.array([8 / 27, 1, 8 / 27])
    assert tied == pytest.approx(exact_tied, abs=0.012)
    best = res.best_set().set_index("config").loc[["tuning_run=0", "tuning_run=1", "tuning_run=2"]]
    assert best["probability_best_or_tied"].to_numpy() == pytest.approx(tied, abs=0.03)
    assert best["probability_best"].to_numpy() == pytest.approx(shared, abs=0.03)


# ---- LOW-7: configurations left out are counted, and why ---------------------------------------------------------

def test_left_out_configurations_are_counted():
    rs = [[300, 320, 310, 330], [305, 290, 335, 300], [100, 110, 90, 105], [50, 60, 55, 40], [320, 300, 310, 315]]
    res = _tune(_sweeps({"rs": rs, "base": [[305.0, 300.0]]}), views=["best_set"])
    best = res.best_set()
    assert len(best) == 4 and best.equals(res.best_set(runners_up=True))  # 3 of rs's 5, base's 1: all in the sets
    said = [n for n in res.notes if n.startswith("best_set() lists")]
    assert said == ["best_set() lists the 4 configurations in the best sets (4 of the 6 configurations); the 2 others "
                    "(in rs on lunar) were never best or tied for best in any of the 400 resamples (probability 0)"]
    latex = res.to_latex()
    caption = latex[latex.index("hyperparameter sweep: best set."):]
    assert "lists 4 of the 6 configurations" in caption[:caption.index("\\end{table")]
    assert "In best set: best or tied for best in $\\geq$ 0.05 of the resamples (P(best or tied)); P(best) shares" in caption
    ax = res.plot(kind="best_set")
    try:
        assert "2 configurations never best (left out)" in ax.get_title()
    finally:
        plt.close(ax.figure)


def test_one_configuration_on_real_sweeps(mirror_root):
    """The trial's case: PPO on LunarLander, each procedure's first tuning run of one seed (the baseline's one run),
    'hpo=dehb, rpo=rs' whole (5 runs x 10 seeds): the baseline's 1 is said to be by construction; 7 of 21 listed."""
    opt = load_dataset("hpo_optimisation").drop_duplicates()
    ppo = opt[(opt["algorithm"] == "ppo") & (opt["task"] == "lunar") & (opt["objective"] == "return")]
    one = ppo.groupby(["procedure", "tuning_run"]).head(1)
    one = pd.concat([one, ppo[ppo["procedure"] == "hpo=dehb, rpo=rs, return"]]).drop_duplicates()
    res = _tune(one, views=["best_set"], n_resamples=2000)
    best = res.best_set()
    assert len(best) == 6 and len(res.best_set(runners_up=True)) == 7  # one of rs's configurations outside its set
    base = best[best["agent"] == "hpo=base, rpo=base, return"].iloc[0]
    assert base["probability_best"] == 1.0 and base["n_runs"] == 1
    assert any(n.startswith("best_set(): hpo=base, rpo=base, return on lunar has one configuration, so it is best by "
                            "construction") for n in res.notes)
    assert ("best_set() lists the 3 configurations in the best sets and the selected one in each of the 3 sweeps whose "
            "probabilities are withheld (6 of the 21 configurations); best_set(runners_up=True) adds the 1 other best "
            "or tied for best in some resample but in fewer than 0.05 of them; of the 14 others, 2 (in hpo=dehb, "
            "rpo=rs, return on lunar) were never best or tied for best in any of the 2,000 resamples (probability 0); "
            "12 (in ") in " ".join(res.notes)
