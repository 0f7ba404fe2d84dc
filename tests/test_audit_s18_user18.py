"""Audit s18 (user18): a new user's walk through the README, the demo and the command line on the real data.

power() on raw scores of tasks on different scales passed on the methods' warning "normalise them first with
normalize= ..., or pass normalize=False", both options power() refuses (on the command line: `-o normalize=`,
refused with an error). The advice must be one power() takes."""

import pytest
from conftest import caught

import rlstats
from rlstats.datasets import simulate


def _power_warnings(**kwargs):
    _, said = caught(lambda: rlstats.power("bootstrap", seeds=[3], n_sim=4, rng=0, progress=False, **kwargs))
    return [s for s in said if "on their own scales" in s]


def _pilot():
    # two agents on three tasks whose scores differ a hundredfold, as Atari games do
    df = simulate(agents=2, tasks=3, seeds=5, effect=0.0, rng=1)
    df["score"] = df["score"] * df["task"].astype(str).map({"task_01": 1.0, "task_02": 10.0, "task_03": 100.0})
    return df


@pytest.mark.parametrize("source", ["pilot", "simulated"])
def test_power_raw_scales_warning_gives_advice_power_takes(source):
    kwargs = {"design": _pilot(), "formula": "score ~ agent | task"} if source == "pilot" else {"effect": 0.5}
    said = _power_warnings(**kwargs)
    # the warning stays: the tasks with large scores decide the method's result; one text for each sentence of the
    # rule that fired on the simulated data sets (audit s32 scale32: the narrower half's is a second; on audit s35's
    # data sets, drawn a block at a time, all three sentences fire on the 4 data sets, two did before)
    kinds = [k for k in ("(the range of ", "(the median range of ", "ranges apart (") if any(k in s for s in said)]
    assert 1 <= len(said) == len(kinds) <= 3, said
    assert not [s for s in said if "normalize=" in s]  # power() refuses normalize= (either value)
    with pytest.raises(rlstats.errors.OptionError, match="not taken by power"):
        rlstats.power("bootstrap", seeds=[3], n_sim=4, rng=0, normalize=False, **kwargs)
    if source == "pilot":
        assert all("rlstats.normalize(pilot" in s for s in said)
    else:
        assert all("heterogeneity=0" in s for s in said)


# `rlstats demo` printed compare(..., method='probability_of_improvement', n_resamples=500, ...) over a score interval,
# which draws no resamples: nothing said so (performance_profile, in the same demo, said "n_resamples=500 was not used")
def test_probability_of_improvement_says_n_resamples_was_not_used():
    df = simulate(agents=2, tasks=3, seeds=4, effect=1.0, rng=0)
    unused = "n_resamples=500 was not used: the score interval is a closed form"
    given = rlstats.probability_of_improvement(df, "score ~ agent | task", n_resamples=500, rng=0)
    assert any(note.startswith(unused) for note in given.notes), given.notes
    assert given.n_resamples is None and "n_resamples" not in given.options  # none drawn: not recorded (audit s30)
    assert not any("was not used" in note for note in rlstats.probability_of_improvement(
        df, "score ~ agent | task", rng=0).notes)
    drawn = rlstats.probability_of_improvement(df, "score ~ agent | task", n_resamples=500, interval="percentile",
                                               rng=0)
    assert drawn.n_resamples == 500 and not any("was not used" in note for note in drawn.notes)
    # the estimate and the score interval are those of the call without n_resamples
    plain = rlstats.probability_of_improvement(df, "score ~ agent | task", rng=0)
    assert given.tidy().equals(plain.tidy())


@pytest.mark.parametrize("method", ["probability_of_improvement", "performance_profile"])
def test_demo_asks_no_resamples_of_a_closed_form_interval(method):
    from rlstats.methods import DECLARATIONS

    formula, options = DECLARATIONS[method].demo
    df = simulate(agents=3, tasks=3, seeds=4, effect=1.0, rng=0)
    res = rlstats.compare(df, formula, method=method, normalize="minmax", rng=0, **options)
    assert not any("was not used" in note for note in res.notes), res.notes


# `rlstats read-logs` of SB3 evaluations names the return 'eval/mean_reward'; the README's formula 'score ~ ...' on it
# said only "unknown name 'score' in response; did you mean 'source'?", the column of log file paths
def test_unknown_response_with_a_close_name_lists_the_columns_too():
    import pandas as pd

    logs = pd.DataFrame({"agent": ["A2C", "A2C", "PPO", "PPO"], "task": "CartPole-v1", "seed": [0, 1, 0, 1],
                         "step": 30_000, "eval/mean_reward": [382.0, 250.0, 337.0, 300.0],
                         "source": "A2C/CartPole-v1/seed_0/evaluations.npz"})
    with pytest.raises(rlstats.errors.FormulaError) as error:
        rlstats.compare(logs, "score ~ agent | task/seed")
    message = str(error.value)
    # audit s35 claims35: the column that looks like a return before the closest spelling ('source', file paths)
    assert "did you mean `eval/mean_reward` (the column that looks like a return)?" in message
    assert "'source'" in message  # listed among the columns


def _help(argv):
    import contextlib
    import io

    from rlstats.cli import main

    out = io.StringIO()
    with contextlib.redirect_stdout(out), pytest.raises(SystemExit):
        main([*argv, "--help"])
    return out.getvalue()


def _examples(text):
    """The command lines under 'examples:' in a --help text (a line ending in '|' joined to the next)."""
    lines = text.split("examples:\n", 1)[1].splitlines() if "examples:\n" in text else []
    commands, pending = [], ""
    for line in lines:
        if not line.startswith("  "):
            break
        pending += line.strip()
        if pending.endswith("|"):
            pending += " "
            continue
        commands.append(pending)
        pending = ""
    return commands


# `rlstats --help` and every subcommand's --help gave no command line to start from (the command modules' docstrings
# hold examples, cut from --help with all but their first paragraph)
@pytest.mark.parametrize("argv", [[], ["compare"], ["adastop"], ["adastop", "update"], ["adastop", "status"],
                                  ["adastop", "plot"], ["power"], ["read-logs"]])
def test_every_help_shows_example_command_lines(argv):
    examples = _examples(_help(argv))
    assert examples and all(e.startswith("rlstats ") for e in examples), examples
    assert any(e.startswith(" ".join(["rlstats", *argv])) for e in examples), examples


def test_compare_help_examples_run(tmp_path, monkeypatch):
    import shlex

    from rlstats.cli import main

    monkeypatch.chdir(tmp_path)
    simulate(agents=3, tasks=4, seeds=5, effect=1.0, rng=0).to_csv("runs.csv", index=False)
    rlstats.datasets.simulate_curves(agents=2, tasks=3, seeds=3, steps=5, rng=0).to_csv("steps.csv", index=False)
    examples = _examples(_help(["compare"]))
    assert examples
    for example in examples:
        assert main(shlex.split(example)[1:]) == 0, example


# README and `rlstats demo --help`: the demo "runs every available back end"; it ran 13 of the 14 that
# `rlstats compare --help` lists and said nothing of the one it left out
def test_demo_names_the_back_ends_it_does_not_run(tmp_path, monkeypatch):
    import contextlib
    import io

    import rlstats.cli
    from rlstats.cli import main
    from rlstats.methods import DECLARATIONS

    every = rlstats.cli.demo_runs
    monkeypatch.setattr(rlstats.cli, "demo_runs", lambda data, curves: {
        k: v for k, v in every(data, curves).items() if k == "task_table"})  # one fast back end
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["demo", "--out", str(tmp_path / "demo")]) == 0
    text = " ".join(out.getvalue().split())
    skipped = {name: d.no_demo for name, d in DECLARATIONS.items() if d.demo is None}
    assert skipped  # tuning, at this writing
    for name, why in skipped.items():
        assert f"not run here: {name} ({' '.join(why.split())})" in text, text[-600:]
    assert "every available back end" not in _help(["demo"]) + _help([])


# halfcheetah_sac_td3.csv (SAC 192 runs, TD3 193): `rlstats compare FILE "score ~ agent"` refused, saying the test
# "shares one permutation across comparisons" and to "compare them pairwise": there is one comparison, of one pair
def test_permutation_refusal_of_two_unequal_agents_says_what_holds_for_two():
    df = simulate(agents=2, tasks=1, seeds=6, rng=0)
    df = df.iloc[:-1]  # agent_2 has 5 runs
    with pytest.raises(rlstats.errors.DesignError) as error:
        rlstats.compare(df, "score ~ agent")
    message = str(error.value)
    assert "found agent_1 6, agent_2 5" in message
    assert "pairwise" not in message and "across comparisons" not in message
    # three agents: the shared permutation is the reason, and each pair on its own runs at alpha / 3 the way on (audit s32)
    three = simulate(agents=3, tasks=1, seeds=6, rng=0).iloc[:-1]
    with pytest.raises(rlstats.errors.DesignError, match="across comparisons.*test each of the 3 pairs on its own runs"):
        rlstats.compare(three, "score ~ agent")
