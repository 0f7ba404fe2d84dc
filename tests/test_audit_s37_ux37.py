"""New-user trial s37 (ux37): the first hour's surprises on the real data, each fixed at its one home.

Each test reproduces the trial's call on simulated or hand-made data (nothing of ``/work/shared/data`` is copied)
and failed before its fix.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import rlstats
from conftest import cli_shell
from rlstats.errors import OptionError


def _pilot(rows: int = 520) -> pd.DataFrame:
    rng = np.random.default_rng(0)
    return pd.DataFrame({"agent": np.repeat(["A", "B"], rows // 2), "task": np.tile(["t1", "t2"], rows // 2),
                         "seed": np.arange(rows) % 13, "score": rng.normal(size=rows)})


@pytest.mark.parametrize("function", [rlstats.power, rlstats.sample_size])
def test_pilot_keyword_says_design(function):
    """power("skillings_mack", pilot=df, ...) printed the whole frame and blamed the rank test; now: pass design=."""
    with pytest.raises(OptionError) as caught:
        function("skillings_mack", pilot=_pilot(), formula="score ~ agent | task")
    message = str(caught.value)
    assert message.startswith(f"pilot= is not an option of {function.__name__}(): give the pilot runs as design=")
    assert "--pilot" in message and "rows x" not in message and "skillings_mack" not in message


def test_unknown_method_option_shows_a_frame_by_its_shape():
    """Any value echoed by power()'s unknown-option error is errors.shown's: a frame by its type and shape."""
    with pytest.raises(OptionError) as caught:
        rlstats.power("skillings_mack", pilott=_pilot(), formula="score ~ agent | task", seeds=[3])
    assert str(caught.value).startswith("pilott=a DataFrame of shape (520, 4) is not an option of skillings_mack")


def test_finite_number_option_shows_a_frame_by_its_shape():
    with pytest.raises(OptionError) as caught:
        rlstats.datasets.simulate(heterogeneity=_pilot())
    assert str(caught.value) == "heterogeneity must be a finite number >= 0, got a DataFrame of shape (520, 4)"


def test_raw_scales_note_says_how_to_state_one_scale():
    """The printed note of tasks on their own scales named normalize= alone; scores already normalised (rliable's
    human-normalised Atari scores) need normalize=False, which only the Python warning said."""
    df = rlstats.datasets.simulate(agents=2, tasks=4, seeds=3, rng=0)
    df["score"] = df["score"] * df["task"].astype(str).map({"task_01": 1.0, "task_02": 1.0, "task_03": 1.0,
                                                             "task_04": 100.0})
    with pytest.warns(rlstats.RlstatsWarning, match="own scales"):
        res = rlstats.bootstrap(df, "score ~ agent | task/seed", metrics=("mean",), n_resamples=200, rng=0)
    said = [n for n in res.notes if "own scales" in n]
    assert len(said) == 1 and said[0].endswith(
        "; normalize= puts them on one scale, or pass normalize=False if they are on one scale already"), said
    assert "normalize=False if they are on one scale already" in str(res)
    # and normalize=False says nothing of scales
    quiet = rlstats.bootstrap(df, "score ~ agent | task/seed", metrics=("mean",), n_resamples=200, rng=0,
                              normalize=False)
    assert not [n for n in quiet.notes if "scale" in n]


_VIGNETTE = Path(__file__).resolve().parents[1] / "vignettes" / "sb3_logs_to_paper.py"


def test_sb3_vignette_says_it_needs_the_logs_extra():
    """The vignette stopped at its TensorBoard cell under the README's plain install, and only vignettes/README.md
    said it needs the `logs` extra: its opening cell says so now."""
    opening = _VIGNETTE.read_text(encoding="utf-8").split("# %%\n")[0]
    assert 'the `logs` extra (`pip install ".[logs]"`' in opening


def test_sb3_vignette_skips_its_tensorboard_cell_without_tensorboard(tmp_path, monkeypatch, capsys):
    """Its cells through the TensorBoard one, run with the tensorboard package unimportable: a printed line, no
    LogReadError (the cells after it read evaluations.npz alone; tests/test_vignettes.py runs the whole file)."""
    if not (Path(__file__).resolve().parents[2] / "shared" / "data" / "logs" / "sb3_classic").is_dir():
        pytest.skip("the SB3 logs are not beside the clone (shared/data/logs/sb3_classic)")
    cells = _VIGNETTE.read_text(encoding="utf-8").split("# %%")
    through = next(i for i, cell in enumerate(cells) if 'format="tensorboard"' in cell)
    # run in this process (a child interpreter's imports cost 2 s of CPU): the tensorboard package unimportable, the
    # vignette's own file name, its fast sizes; pandas' display width and the figures it opens put back after
    import matplotlib.pyplot as plt

    monkeypatch.setitem(sys.modules, "tensorboard", None)
    monkeypatch.setenv("RLSTATS_VIGNETTE_FAST", "1")
    monkeypatch.chdir(tmp_path)
    code = compile("# %%".join(cells[:through + 1]), str(_VIGNETTE), "exec")
    with pd.option_context("display.width", pd.get_option("display.width")):
        try:
            exec(code, {"__file__": str(_VIGNETTE), "__name__": "__main__"})
        finally:
            plt.close("all")
    out = capsys.readouterr().out
    assert ('TensorBoard check skipped: the tensorboard package is not installed (pip install ".[logs]")'
            in out.splitlines()), out[-2000:]


@pytest.mark.parametrize("function", ["compare", "bootstrap", "build"])
@pytest.mark.parametrize("formula", ["return ~ agent | task", "`return` ~ agent | task"])
def test_keyword_response_naming_no_column_is_unknown_first(function, formula):
    """'return ~ agent | task' on a frame with no 'return' column advised back-quoting it, and the back-quoted
    formula then said 'return' was unknown: the unknown name comes first, the keyword advice only for a column."""
    df = rlstats.datasets.simulate(agents=2, tasks=3, seeds=3, rng=0)
    with pytest.raises(rlstats.FormulaError) as caught:
        getattr(rlstats, function)(df, formula)
    assert str(caught.value).startswith("unknown name 'return' in response; did you mean 'score'"), str(caught.value)
    df["return"] = df["score"]  # a column of that name: back-quote it (the bare word only; the quoted one runs)
    if formula.startswith("return"):
        with pytest.raises(rlstats.FormulaError, match=r"'return' is a Python keyword; back-quote the column"):
            getattr(rlstats, function)(df, formula)


@pytest.mark.parametrize("formula, said", [("score ~ class | task", "unknown column 'class' in the grouping term"),
                                           ("score ~ agent | lambda", "unknown column 'lambda' in the blocking term")])
def test_keyword_group_or_block_naming_no_column_is_unknown_first(formula, said):
    df = rlstats.datasets.simulate(agents=2, tasks=3, seeds=3, rng=0)
    with pytest.raises(rlstats.FormulaError, match=said):
        rlstats.compare(df, formula)
    with pytest.raises(rlstats.FormulaError, match="is a Python keyword"):  # the text alone: the advice as before
        rlstats.parse(formula)


def _named_with_separator():
    df = rlstats.datasets.simulate(agents=3, tasks=5, seeds=3, rng=0)
    df["agent"] = df["agent"].map({"agent_1": "CURL - v2", "agent_2": "DER", "agent_3": "SPR"})
    return df


def test_contrast_labels_parenthesise_a_name_holding_the_separator():
    """mixed() printed "CURL - v2 - DER"; as emmeans, a name holding " - " is parenthesised (format.difference_label,
    the one home; tidy() and to_latex() keep the pair in two columns, agent_1 and agent_2)."""
    import matplotlib.pyplot as plt

    from rlstats.format import difference_label

    assert difference_label("CURL - v2", "DER") == "(CURL - v2) - DER"
    assert difference_label("DER", "CURL - v2") == "DER - (CURL - v2)"
    assert difference_label("PPO-clip", "DER") == "PPO-clip - DER"  # a hyphen alone reads one way: unchanged
    res = rlstats.mixed(_named_with_separator(), "score ~ agent | task")
    rows = [" ".join(line.split()[:6]) for line in str(res).splitlines() if "CURL" in line and " - " in line]
    assert rows == ["(CURL - v2) - DER -1.791", "(CURL - v2) - SPR -0.14846"], rows
    ax = res.plot()
    assert [t.get_text() for t in ax.get_yticklabels()] == ["(CURL - v2) - DER", "(CURL - v2) - SPR", "DER - SPR"]
    plt.close("all")
    assert list(res.tidy()[["agent_1", "agent_2"]].iloc[0]) == ["CURL - v2", "DER"]
    said = str(rlstats.equivalence(_named_with_separator(), "score ~ agent | task", margin=1.0)).splitlines()
    assert "(CURL - v2) - DER:" in said and "(CURL - v2) - SPR:" in said and "DER - SPR:" in said


def test_task_table_random_splits_note_prints_the_seed():
    """task_table's note "p-values from 10000 random splits" gave no seed, which to_dict() alone held; other results
    print theirs (fmt.short_seed)."""
    df = rlstats.datasets.simulate(agents=2, tasks=3, seeds=12, rng=0)
    res = rlstats.compare(df, "score ~ agent | task/seed", method="task_table", test="fisher_pitman", rng=7)
    assert [n for n in res.notes if "random splits" in n] == [
        "permutation test of the mean difference p-values from 10000 random splits (seed 7) where the splits were "
        "too many to enumerate"]
    assert res.to_dict()["seed"] == 7 and "(seed 7)" in str(res)


@pytest.mark.parametrize("given, meant", [("IQM", "iqm"), ("Optimality_Gap", "optimality_gap"), ("MEDIAN", "median")])
def test_bootstrap_metric_in_other_case_is_named(given, meant):
    """bootstrap(metrics=["IQM"]) listed the built-in metrics without naming 'iqm' (errors.did_you_mean, whose
    close_names compares case-folded)."""
    df = rlstats.datasets.simulate(agents=2, tasks=3, seeds=3, rng=0)
    with pytest.raises(OptionError) as caught:
        rlstats.bootstrap(df, "score ~ agent | task", metrics=[given])
    assert str(caught.value).endswith(f"and is not a function (did you mean {meant!r}?)"), str(caught.value)
    with pytest.raises(OptionError) as caught:  # no name close: no guess
        rlstats.bootstrap(df, "score ~ agent | task", metrics=["trimmed"])
    assert str(caught.value).endswith("and is not a function")


def test_bootstrap_says_no_monte_carlo_se_when_every_interval_is_withheld():
    """True/False scores, 90% True: every interval withheld, and the print said "largest Monte Carlo SE of a bound:
    0" (the SE of a median bound the rule had withheld); a bound withheld has no SE, and nothing is said of it."""
    df = rlstats.datasets.simulate(agents=2, tasks=3, seeds=5, rng=0)
    df["score"] = np.random.default_rng(1).random(len(df)) < 0.9
    res = rlstats.bootstrap(df, "score ~ agent | task", n_resamples=200, rng=0)
    assert np.isnan(res.intervals).all() and np.isnan(res.interval_mc_se).all()
    assert "Monte Carlo SE" not in str(res)
    df = rlstats.datasets.simulate(agents=2, tasks=3, seeds=5, rng=0)  # bounds given: their SE said as before
    res = rlstats.bootstrap(df, "score ~ agent | task", n_resamples=200, rng=0)
    finite = np.isfinite(res.intervals)
    assert finite.any() and (np.isfinite(res.interval_mc_se) == finite).all()
    assert f"largest Monte Carlo SE of a bound: {rlstats.format.signif(res.interval_mc_se[finite].max(), 2)}" \
        in str(res).splitlines()


def test_task_table_mean_far_below_its_sd_prints_to_the_sds_decimals():
    """Atari 100k PrivateEye, DrQ: "-0.000000802 ± 0.0019", three significant digits of a mean far below what its
    SD resolves, written out by the column's fixed notation. A mean is printed to the decimals a mean of its SD's size
    gets (fmt.digits_beside: one digit fewer per power of ten below the SD, at least one): "-0.0000008 ± 0.0019"."""
    sd = 0.0019
    base = np.array([-1.0, 1.0, -1.0, 1.0]) * sd * np.sqrt(3) / 2  # four runs of mean 0 and SD 0.0019 exactly
    rows = []
    for agent, offset, spread in (("A", -8.02e-07, 1.0), ("B", 0.5, 1.0), ("C", 0.0587, 0.32 / sd)):
        rows += [{"agent": agent, "task": "t", "seed": i, "score": offset + spread * v} for i, v in enumerate(base)]
        # a second task where every mean prints fixed, so the column reads in fixed notation (fmt.as_fixed)
        rows += [{"agent": agent, "task": "u", "seed": i, "score": 0.5 + v} for i, v in enumerate(base)]
    res = rlstats.task_table(pd.DataFrame(rows), "score ~ agent | task/seed")
    assert np.isclose(res.std_dev[0, 0], sd) and np.isclose(res.estimates[0, 0], -8.02e-07)
    row = next(line for line in str(res).splitlines() if line.startswith("t "))
    assert row.split()[1:4] == ["-0.0000008", "±", "0.0019"], row
    assert "0.059 ± 0.32" in row, row  # a mean a power of ten below its SD: one digit fewer than 3
    assert "0.5 ± 0.0019" in row.replace("*", ""), row  # a mean above its SD: as before
    from rlstats.format import digits_beside

    assert [digits_beside(m, s, 3) for m, s in ((-8.02e-07, 0.0019), (0.0587, 0.32), (0.0668, 0.056), (5, 0))] == \
        [1, 2, 3, 3]


def _mirrored_pair():
    """A and B lead each other by as much on twin tasks (their mean ranks tie exactly), three other agents with
    unequal runs per cell: the rank test's post hoc sums fractions k_i / q_i of mean ranks over the 26 tasks."""
    rng = np.random.default_rng(2)
    rows = []
    for j in range(13):
        x, y = rng.random(5), rng.random(5)
        others = [(f"C{a}", rng.random(int(rng.integers(3, 12)))) for a in range(3)]
        for t, (xa, xb) in enumerate(((x, y), (y, x))):
            task = f"t{2 * j + t}"
            rows += [{"agent": agent, "task": task, "seed": s, "score": v}
                     for agent, values in (("A", xa), ("B", xb), *others) for s, v in enumerate(values)]
    return pd.DataFrame(rows)


def test_rank_post_hoc_of_a_tied_pair_is_exactly_zero(tmp_path):
    """compare()'s default (the blocked rank test, Holm post hoc on this unbalanced design) wrote estimate 2.73e-16,
    statistic 1.5e-15 and p = 0.9999999999999988 for a pair whose mean ranks tie exactly; the sum of its tasks'
    differences is read by the tie rule (statistics.noise_free) in shared_task_contrasts, its one home: 0, z 0, p 1."""
    df = _mirrored_pair()
    res = rlstats.compare(df, "score ~ agent | task/seed", rng=1)
    tidy = res.tidy()
    pair = tidy[(tidy["agent_1"] == "A") & (tidy["agent_2"] == "B")].iloc[0]
    assert (pair["estimate"], pair["statistic"], pair["p_value"], pair["p_adjusted"]) == (0.0, 0.0, 1.0, 1.0)
    # the others are untouched: A - C0 as before the fix
    other = tidy[(tidy["agent_1"] == "A") & (tidy["agent_2"] == "C0")].iloc[0]
    assert other["estimate"] == pytest.approx(-0.4227572975042352, rel=1e-12)
    assert other["p_value"] == pytest.approx(0.016439073282639508, rel=1e-9)
    path = tmp_path / "tied.csv"
    df.to_csv(path, index=False)
    done = cli_shell("compare", str(path), "score ~ agent | task/seed", "--format", "csv", "--seed", "1")
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.splitlines()[1].startswith("A,B,26,0.0,0.0,1.0,1.0,False,"), done.stdout[:300]
