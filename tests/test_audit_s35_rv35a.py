"""Review s35 (rv35a) of this session's merges: power's pilot gaps read with lower scores better, the equivalence
caption's count of per-task tests over several pairs, the command line's missing-positional suggestion in the words
typed, the permutation p-value's floor said once, and one home of ordinal words."""
import numpy as np
import pandas as pd
import pytest

import rlstats


def _pilot():
    """3 agents x 2 tasks x 4 runs, means A 0, B 1, C -1 (C the last agent: the one power() shifts)."""
    noise = [0.3, -0.3, 0.1, -0.1]
    return pd.DataFrame([dict(agent=a, task=t, seed=s, score=m + noise[s])
                         for a, m in zip("ABC", [0, 1, -1]) for t in ("t1", "t2") for s in range(4)])


@pytest.mark.filterwarnings("ignore::rlstats.RlstatsWarning")
def test_power_pilot_gaps_follow_higher_is_better():
    kwargs = dict(design=_pilot(), formula="score ~ agent | task/seed", effect=0.5, seeds=[2], n_sim=2, rng=0,
                  n_resamples=100)
    lower = " ".join(rlstats.power("bootstrap", higher_is_better=False, **kwargs).notes)
    # (A - C) / within-cell SD = 1 / 0.2582 = 3.87 in the pilot, 3.37 once C is raised by 0.5: C's lead narrows
    assert "C leads A by 3.9 within-cell standard deviations (mean over 2 tasks) in the pilot and by 3.4" in lower
    assert "C leads B by 7.7" in lower and "A leads C" not in lower and "B leads C" not in lower
    assert lower.count("(the shift narrows the lead)") == 2
    higher = " ".join(rlstats.power("bootstrap", **kwargs).notes)
    assert "A leads C by 3.9 within-cell standard deviations (mean over 2 tasks) in the pilot and by 3.4" in higher


def _three_by_three():
    rng = np.random.default_rng(1)
    return pd.DataFrame([dict(agent=a, task=t, seed=s, score=m + rng.normal(0, 0.3))
                         for a, m in zip("ABC", [0, 1, 2]) for t in ("t1", "t2", "t3") for s in range(5)])


def test_equivalence_caption_counts_pair_task_tests():
    import matplotlib.pyplot as plt

    result = rlstats.equivalence(_three_by_three(), "score ~ agent | task/seed", margin=0.5, rng=0, n_resamples=300)
    label = result.plot().get_xlabel()
    plt.close("all")
    # A - B 2, A - C 3, B - C 2 of their 3 tasks beyond the margin (the print's per-pair counts)
    # (audit s38 fixc38: the tests not drawn counted first, then those of them beyond the margin)
    assert "per task: 9 tests (3 pairs x 3 tasks) not drawn, 7 of them shown beyond the margin" in " ".join(
        label.split())
    assert "per task, not drawn" not in label
    two = _three_by_three().query("agent != 'C'")
    label = rlstats.equivalence(two, "score ~ agent | task/seed", margin=0.5, rng=0, n_resamples=300).plot().get_xlabel()
    plt.close("all")
    assert "per task: 3 tests not drawn, 2 of them shown beyond the margin" in " ".join(label.split())


@pytest.fixture
def d3(tmp_path):
    path = tmp_path / "d3.csv"
    path.write_text("agent,task,seed,score\nA,t1,0,1\nB,t1,0,2\n")
    return str(path)


def _refusal(argv, capsys):
    from rlstats.cli import main

    with pytest.raises(SystemExit) as caught:
        main(argv)
    assert caught.value.code == 2
    return capsys.readouterr().err.strip().splitlines()[-1]


def test_cli_missing_positional_uses_the_words_typed(d3, capsys):
    import shlex

    said = _refusal(["compare", f"--file={d3}", "--formula=score ~ agent"], capsys)
    assert "the following arguments are required" not in said
    assert f"rlstats compare {shlex.quote(d3)} 'score ~ agent'" in said
    said = _refusal(["compare", d3, "--formula", "score ~ agent | task/seed"], capsys)
    assert f"rlstats compare {shlex.quote(d3)} 'score ~ agent | task/seed'" in said
    said = _refusal(["compare", "--formula", "score ~ agent", d3], capsys)
    assert f"rlstats compare {shlex.quote(d3)} 'score ~ agent'" in said


def test_permutation_floor_said_once():
    df = pd.DataFrame([dict(agent=a, task=t, seed=s, score=m + 0.1 * s + 0.01 * k)
                       for a, m in zip("ABC", [0, 5, 10]) for k, t in enumerate(("t1", "t2", "t3", "t4"))
                       for s in range(3)])
    result = rlstats.compare(df, "score ~ agent | task/seed", pvalue="monte_carlo", n_resamples=999, rng=0)
    text = str(result)
    assert result.pvalue == pytest.approx(1 / 1000)
    assert "none of 999" not in text
    assert text.count("the smallest 999 permutations can give (none reached the observed statistic)") == 1
    assert "the smallest 999 permutations can give" in result.report()


def test_ordinal_has_one_home():
    from rlstats import format as fmt, grammar
    from rlstats.cli import _shared
    from rlstats.methods.selection import plots

    assert fmt.ordinal is grammar.ordinal
    assert [grammar.ordinal(n) for n in (1, 2, 3, 4, 10, 11, 12, 13, 21, 22, 23, 101, 111)] == [
        "first", "second", "third", "fourth", "tenth", "11th", "12th", "13th", "21st", "22nd", "23rd", "101st",
        "111th"]
    assert not hasattr(plots, "_ordinal") and not hasattr(_shared, "_PLACES")
    assert _shared.positional_place(["file", "formula"], "formula") == "FORMULA is the second positional argument"


# ---- review35b (lead): ways on that name their rows, a report in a paper's words ----

def test_skillings_mack_empty_cells_way_on_names_the_complete_tasks_and_runs():
    """skillings_mack called directly with an empty cell and the Conover post hoc sent its caller to
    rlstats.compare(..., subset=...) with no condition; now the tasks every agent ran, in the function's words."""
    import warnings

    df = rlstats.datasets.simulate(agents=3, tasks=4, seeds=3, rng=0)
    df = df[~((df.agent == "agent_1") & (df.task == "task_01"))]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(rlstats.DesignError) as direct:
            rlstats.skillings_mack(df, "score ~ agent | task/seed", posthoc="conover", within_cell="mean")
        assert str(direct.value).endswith(
            "keep the tasks every agent ran (data=df[mask] (a boolean mask of the rows where task in ['task_02', "
            "'task_03', 'task_04'] holds) to rlstats.skillings_mack)")
        with pytest.raises(rlstats.DesignError) as through:
            rlstats.compare(df, "score ~ agent | task/seed", posthoc="conover", within_cell="mean")
        condition = "task in ['task_02', 'task_03', 'task_04']"
        assert str(through.value).endswith(f'keep the tasks every agent ran (subset="{condition}")')
        kept = rlstats.compare(df, "score ~ agent | task/seed", posthoc="conover", within_cell="mean",
                               subset=condition)  # the way on runs
    assert kept.glance()["n_obs"].iloc[0] == 27  # 3 agents x the 3 complete tasks x 3 seeds


def test_sample_size_report_names_no_option():
    res = rlstats.sample_size("skillings_mack", 0.5, effect=1.0, n_sim=4, progress=False, rng=0, max_seeds=4)
    assert "a search starting lower would look below it" in res.report() and "min_seeds" not in res.report()


@pytest.mark.parametrize("labels", [[1, 2, 3, 4], [True, False], ["x", "Ms. Pac-Man's", "y", "z"],
                                    ["1e20", "2e20", "a", "b"]])
def test_skillings_mack_way_on_writes_no_condition_it_cannot_write(labels):
    """review35c: labels of numbers, booleans or with a quote got a condition that is refused or cannot be quoted back
    on the command line ('2' on a column of numbers; True as text); the way on is then said without one."""
    import warnings

    df = rlstats.datasets.simulate(agents=3, tasks=len(labels), seeds=3, rng=0)
    df["task"] = df["task"].map(dict(zip(sorted(df["task"].unique()), labels)))
    df = df[~((df.agent == "agent_1") & (df.task == labels[0]))]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(rlstats.DesignError) as through:
            rlstats.compare(df, "score ~ agent | task/seed", posthoc="conover", within_cell="mean")
        with pytest.raises(rlstats.DesignError) as direct:
            rlstats.skillings_mack(df, "score ~ agent | task/seed", posthoc="conover", within_cell="mean")
    assert str(through.value).endswith("keep the tasks every agent ran (subset= (a condition naming them))")
    assert str(direct.value).endswith(
        "keep the tasks every agent ran (a boolean mask of the rows (data=df[mask] to rlstats.skillings_mack))")
