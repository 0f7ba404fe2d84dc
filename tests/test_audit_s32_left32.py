"""Audit s32 (left32): items the last session noticed and left."""
import re
import warnings

import numpy as np
import pandas as pd
import pytest

from conftest import separated_rejected

import rlstats
from rlstats.methods.adastop import AdaStop


# ---- 1. AdaStop warns where even perfectly separated runs are rarely rejected ----

def _rare(make):
    """The warnings of ``make()`` that say separated runs are rarely rejected."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        make()
    return [str(w.message) for w in caught if "perfectly separated" in str(w.message)]


def _quoted(text):
    return float(re.search(r"with chance only about ([\d.]+)", text).group(1)), \
        int(re.search(r"n_resamples=([\d_]+) or more", text).group(1).replace("_", ""))


def test_rarely_rejecting_settings_warn_with_the_chance_and_a_way_that_works():
    """n = 4, K = 1 and 20 random paths spend 1 of the 20 (alpha 0.05) but reject separated runs with chance
    Binomial(19, 2/70) < 1 = (1 - 1/35)**19 = 0.577: silent before. Simulated here: 300 seeds of AdaStop on
    perfectly separated runs (0.613 over 400 seeds, tests/reference/adastop_separated_rejection.py), within 3 SE of
    the quoted chance; the advice (35 paths, the whole tree) rejects on every seed."""
    names = ["a0", "a1"]
    text, = _rare(lambda: AdaStop(names, n=4, K=1, n_resamples=20, rng=0))
    chance, paths = _quoted(text)
    assert chance == pytest.approx((1 - 1 / 35) ** 19, abs=0.005) and paths == 35
    seeds = 300
    share = np.mean([separated_rejected(names, 4, 1, 20, seed) for seed in range(seeds)])
    assert abs(share - chance) < 3 * np.sqrt(chance * (1 - chance) / seeds)
    assert all(separated_rejected(names, 4, 1, paths, seed) for seed in range(10))
    assert _rare(lambda: AdaStop(names, n=4, K=1, n_resamples=paths, rng=0)) == []
    # 5 runs: 1 - (1 - 1/126)**19 misses; chance 0.86 >= 0.8: silent
    assert _rare(lambda: AdaStop(names, n=5, K=1, n_resamples=20, rng=0)) == []


def test_rarely_rejecting_permutation_and_adastop_warn_alike():
    rng = np.random.default_rng(0)
    df = pd.DataFrame({"agent": np.repeat(["A", "B"], 4), "seed": np.tile(range(4), 2),
                       "score": np.r_[rng.normal(0, 1, 4), rng.normal(9, 1, 4)]})
    text, = _rare(lambda: rlstats.permutation(df, "score ~ agent", n_resamples=20, rng=1))
    assert _quoted(text) == (0.58, 35) and "4 runs per agent" in text
    text, = _rare(lambda: rlstats.adastop(df, "score ~ agent", n=4, K=1, n_resamples=20, rng=1))
    assert _quoted(text) == (0.58, 35) and "n = 4 runs per batch" in text


@pytest.mark.slow
@pytest.mark.parametrize("agents, n, K, n_resamples", [(2, 2, 3, 30), (3, 3, 2, 100), (3, 5, 1, 100)])
def test_rarely_rejecting_chance_by_simulation(agents, n, K, n_resamples):
    """The quoted chance (a lower bound: exact for two agents where one interim spends on random paths) against
    1000 seeds (tests/reference/adastop_separated_rejection.py): measured 0.739 (bound 0.764), 0.631 (0.609), 0.450
    (0.454)."""
    names = [f"a{i}" for i in range(agents)]
    text, = _rare(lambda: AdaStop(names, n=n, K=K, n_resamples=n_resamples, rng=0))
    chance, _ = _quoted(text)
    share = np.mean([separated_rejected(names, n, K, n_resamples, seed) for seed in range(1000)])
    assert chance - 0.01 - 3 * np.sqrt(chance * (1 - chance) / 1000) < share < chance + 0.05


# ---- 2. subset= refuses True/False compared with the number levels of an ordered categorical ----

@pytest.mark.parametrize("subset, value", [("lv > True", "True"), ("False <= lv", "False")])
def test_boolean_against_number_levels_is_refused(subset, value):
    """Python's True == 1: 'lv > True' on levels 1 < 2 < 3 kept levels 2 and 3, as if True were the level 1."""
    df = rlstats.datasets.simulate(agents=2, tasks=3, seeds=3, rng=0)
    df["lv"] = pd.Categorical(df["task"].map({"task_01": 1, "task_02": 2, "task_03": 3}), categories=[1, 2, 3],
                              ordered=True)
    with pytest.raises(rlstats.errors.OptionError) as info:
        rlstats.compare(df, "score ~ agent | task", method="task_table", subset=subset)
    assert (f"{value} is not a level of the ordered categorical 'lv' (1 < 2 < 3)" in str(info.value)
            and "True/False" in str(info.value))
    # the number itself still reads as its level: levels 2 and 3 kept
    assert list(rlstats.compare(df, "score ~ agent | task", method="task_table",
                                subset="lv > 1").to_dict()["tasks"]) == ["task_02", "task_03"]


def test_boolean_levels_still_compare_with_booleans():
    df = rlstats.datasets.simulate(agents=2, tasks=2, seeds=3, rng=0)
    df["ok"] = pd.Categorical(df["task"] == "task_02", categories=[False, True], ordered=True)
    assert list(rlstats.compare(df, "score ~ agent | task", method="task_table",
                                subset="ok > False").to_dict()["tasks"]) == ["task_02"]


# ---- 3. a Decimal score of a pyarrow Table is told the cast in pyarrow ----

def _advised_cast(frame, name):
    """The cast the refusal of ``frame``'s Decimal score advises, and the frame it gives when run (bound to the
    name the advice writes)."""
    with pytest.raises(rlstats.FormulaError) as caught:
        rlstats.compare(frame, "score ~ agent | task")
    code = re.search(r"convert it first, e\.g\. (.*)$", str(caught.value).splitlines()[0]).group(1)
    import pyarrow as pa
    import pyarrow.compute as pc
    space = {name: frame, "pa": pa, "pc": pc}
    try:
        import polars as pl
        space["pl"] = pl
    except ImportError:
        pass
    exec(code, space)  # the advice is code the caller runs as written
    return code, space[name]


@pytest.mark.parametrize("kind", ["Table", "RecordBatch"])
def test_a_pyarrow_decimal_score_is_told_the_pyarrow_cast(kind):
    pa = pytest.importorskip("pyarrow")
    df = rlstats.datasets.simulate(agents=2, tasks=3, seeds=2, rng=0)
    table = pa.Table.from_pandas(df, preserve_index=False)
    table = table.set_column(table.column_names.index("score"), "score",
                             table["score"].cast(pa.decimal128(12, 4), safe=False))
    frame = table if kind == "Table" else table.to_batches()[0]
    code, cast = _advised_cast(frame, "table")
    assert "astype" not in code and "from_arrays" in code and "pa.float64()" in code, code
    assert type(cast) is type(frame) and cast.schema.field("score").type == pa.float64()
    assert rlstats.compare(cast, "score ~ agent | task", method="task_table").to_dict()["tasks"] == \
        ["task_01", "task_02", "task_03"]


def test_a_polars_decimal_score_is_told_a_polars_cast_that_runs():
    pl = pytest.importorskip("polars")
    pytest.importorskip("pyarrow")
    df = rlstats.datasets.simulate(agents=2, tasks=3, seeds=2, rng=0)
    frame = pl.from_pandas(df).with_columns(pl.col("score").cast(pl.Decimal(10, 3)))
    code, cast = _advised_cast(frame, "df")
    assert "astype" not in code and cast.schema["score"] == pl.Float64


# ---- 4. "its name here is ..." has one home: other_spelling_error ----

def test_the_other_spelling_wording_has_one_home():
    import inspect
    from rlstats import options

    source = inspect.getsource(options)
    assert source.count("its name here is") == 1
    assert "its name here is" in inspect.getsource(options._named_here)
    # the habit values' error (R's exact=, no value of it ours) as it was pinned (tests/test_audit_s31_lead31.py)
    said = str(options.unknown_option_error("wilcoxon()", "exact", 2, ["pvalue", "rng"]))
    assert said == ("wilcoxon() has no option exact=: its name here is pvalue= (exact= is R's spelling, wilcox.test's "
                    "and PMCMRplus'); pass pvalue='exact' for exact=True; pass pvalue='asymptotic' for exact=False "
                    "(it was 2)")


# ---- 5. unequal runs without tasks: the way on answers the refused two-sided question ----

def _unequal_untasked():
    rng = np.random.default_rng(0)
    return pd.DataFrame({"agent": ["A"] * 5 + ["B"] * 4 + ["C"] * 5,
                         "score": np.r_[rng.normal(0, 1, 5), rng.normal(2.5, 1, 4), rng.normal(0.5, 1, 5)]})


def _one_sided_by_enumeration(x, y):
    """P(mean(x*) - mean(y*) >= observed) over every split of the pooled runs into len(x) and len(y)."""
    import itertools
    pooled, n = np.r_[x, y], len(x)
    observed = x.mean() - y.mean()
    diffs = np.array([pooled[list(c)].mean() - np.delete(pooled, list(c)).mean()
                      for c in itertools.combinations(range(len(pooled)), n)])
    return np.mean(diffs >= observed - 1e-12)


@pytest.mark.parametrize("through", [False, True])
def test_unequal_runs_advice_answers_the_two_sided_question(through):
    """The refused test compares every pair two-sided (step-down over the 3 pairs); the advice was the task table of
    all three, one-sided tests of the 6 ordered pairs giving a confidence set for the best agent. Now each pair on
    its own runs at alpha / 3: with two agents the table's Holm over the two one-sided tests is the equal-tailed
    two-sided test, whose p-value (the other agent's p_exclusion) is twice the smaller one-sided p, here checked
    against the 126 splits of A's 5 and B's 4 runs enumerated."""
    data = _unequal_untasked()
    with pytest.raises(rlstats.DesignError) as info:
        if through:
            rlstats.compare(data, "score ~ agent", method="permutation", rng=0)
        else:
            rlstats.permutation(data, "score ~ agent", rng=0)
    said = str(info.value)
    assert "Holm-adjusted over the pairs" not in said and "two-sided at alpha / 3" in said, said
    assert "which agents could be the best" in said  # what the table of all three answers
    call = re.search(r"e\.g\. A and B: (rlstats\.compare\(.*?alpha=0\.05 / 3\))", said).group(1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = eval(call, {"rlstats": rlstats, "data": data})  # the advice runs as written, on the refused input
    assert res.alpha == pytest.approx(0.05 / 3) and list(res.agents) == ["A", "B"]
    x, y = (data.score[data.agent == a].to_numpy() for a in "AB")
    by_hand = min(1.0, 2 * min(_one_sided_by_enumeration(x, y), _one_sided_by_enumeration(y, x)))
    worse = int(np.argmin(res.estimates[0]))
    assert res.p_exclusion[0, worse] == pytest.approx(by_hand, rel=1e-12)
    assert by_hand == pytest.approx(2 * 1 / 126)  # B's 4 runs above A's 5: the most extreme split


def test_unequal_runs_advice_on_the_command_line_runs(tmp_path, capsys):
    from rlstats.cli import main

    _unequal_untasked().to_csv(tmp_path / "u.csv", index=False)
    assert main(["compare", str(tmp_path / "u.csv"), "score ~ agent", "--method", "permutation", "--seed", "0"]) == 2
    err = capsys.readouterr().err
    assert "-o \"subset=agent in ['A', 'B']\" -o alpha=0.0166" in err, err
    _unequal_untasked().assign(task="all").to_csv(tmp_path / "t.csv", index=False)
    assert main(["compare", str(tmp_path / "t.csv"), "score ~ agent | task", "--method", "task_table", "-o",
                 "test=fisher_pitman", "-o", "subset=agent in ['A', 'B']", "-o", "alpha=0.0166", "--seed", "0"]) == 0
