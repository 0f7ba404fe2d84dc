"""Audit s19 (left19): small leftovers, each a defect's reproducer, in the order of the brief."""

import re

import numpy as np
import pandas as pd
import pytest

import rlstats
from conftest import cli_run, named_agents_runs


@pytest.mark.parametrize("name", ["None", "nan"])
def test_rows_dropped_for_text_read_as_missing_name_that_text(tmp_path, name):
    """An agent called 'None' (or 'nan') in a CSV is read as missing by pandas' reader; with -o na_action=drop the
    whole agent went and the result said only "12 of 36 rows dropped (na_action="drop"): 12 with missing values",
    never the name the user wrote."""
    path = tmp_path / "runs.csv"
    named_agents_runs((name, "PPO", "SAC")).to_csv(path, index=False)
    status, out, err = cli_run("compare", path, "score ~ agent | task", "-o", "na_action=drop")
    assert status == 0, err
    # the option as the command takes it (audit s25 cli25)
    assert '12 of 36 rows dropped (-o na_action=drop): 12 with missing values in \'agent\'' in out
    assert (f"column 'agent' of the file holds the text '{name}' in 12 rows, which pandas.read_csv reads as missing "
            f"values: if '{name}' is a name") in " ".join(out.split()), out


@pytest.mark.parametrize("layout", ["long", "wide", "mapping"])
def test_adastop_update_says_it_read_true_false_as_numbers(layout):
    """rlstats.adastop notes "column 'score' holds True/False values, read as 1 (True) and 0 (False)"; AdaStop.update
    took the same batch as 1/0 without a word.  It now warns with the same sentence, naming where they were."""
    from rlstats.methods.adastop import AdaStop

    a, b = [True, False, True, True, True], [False, False, True, False, False]
    batch = {"long": pd.DataFrame({"agent": ["a"] * 5 + ["b"] * 5, "score": a + b}),
             "wide": pd.DataFrame({"a": a, "b": b}), "mapping": {"a": np.array(a), "b": np.array(b, dtype=float)}}[layout]
    seq = AdaStop(agents=["a", "b"], n=5, K=3, rng=0)
    with pytest.warns(rlstats.errors.RlstatsWarning) as caught:
        seq.update(batch)
    said = {"long": "column 'score' holds", "wide": "columns 'a' and 'b' hold",
            "mapping": "the scores of agent 'a' hold"}[layout]
    assert [str(w.message) for w in caught] == [f"batch 1: {said} True/False values, read as 1 (True) and 0 (False)"]
    assert seq.decisions.loc[0, "estimate"] == pytest.approx(0.8 - 0.2)  # the scores as 1/0


@pytest.mark.parametrize("steps", [[True, 100], (0, np.True_, 500_000), pd.Series([False, 10], dtype=object)])
def test_a_boolean_in_a_grid_of_steps_is_refused(steps):
    """steps=[True, 100] aligned the curves at step 1 and 100: a boolean among numbers became a step without a word
    (an array of booleans alone was refused already)."""
    curves = rlstats.datasets.simulate_curves(agents=2, tasks=1, seeds=2, steps=3, rng=0)
    with pytest.raises(rlstats.errors.OptionError, match=r"steps= must be numbers.*; True and False are not steps"):
        rlstats.align_steps(curves, "score ~ agent | task/seed", step="step", steps=steps)


@pytest.mark.parametrize("response, columns, hint", [
    # a column back-quoted already, whose name holds the other's: its quoting was broken, "``ret.mean`.std`"
    ("I(`ret.mean.std` / ret.mean)", ["ret.mean", "ret.mean.std"],
     "the data has a column 'ret.mean': back-quote it: I(`ret.mean.std` / `ret.mean`) ~ agent | task"),
    # a column whose name is inside a longer word of the response is not that word: was "column 'e.v': scor`e.v`2"
    ("score.v2 - e.v", ["e.v"], "the data has a column 'e.v': back-quote it: score.v2 - `e.v` ~ agent | task"),
    ("log(score.v2)", ["e.v"], None),
])
def test_the_back_quoting_hint_quotes_whole_names_only(response, columns, hint):
    data = rlstats.datasets.simulate(agents=2, tasks=3, seeds=3, rng=0)
    for column in columns:
        data[column] = data["score"].abs() + 1
    with pytest.raises(rlstats.errors.FormulaError) as caught:
        rlstats.compare(data, f"{response} ~ agent | task")
    message = str(caught.value)
    if hint is None:
        assert "back-quote it" not in message, message
    else:
        assert hint in message, message


_RUNS = rlstats.datasets.simulate(agents=3, tasks=4, seeds=3, rng=0)
_CURVES = rlstats.datasets.simulate_curves(agents=3, tasks=2, seeds=3, steps=4, rng=0)
_NOBODY = {  # every option that names an agent, given one that is not in the data
    "control=": lambda: rlstats.skillings_mack(_RUNS, "score ~ agent | task", control="nobody"),
    "treatment=": lambda: rlstats.selection_check(_RUNS, "score ~ agent | task", treatment="nobody",
                                                  baseline="agent_1"),
    "reference=": lambda: rlstats.adastop(_RUNS[_RUNS.task == "task_01"], "score ~ agent", reference="nobody",
                                          n=3, K=3, rng=0),
    "pairs=": lambda: rlstats.probability_of_improvement(_RUNS, "score ~ agent | task", pairs=[("agent_1", "nobody")],
                                                         n_resamples=100, rng=0),
    "comparisons=": lambda: rlstats.adastop(_RUNS[_RUNS.task == "task_01"], "score ~ agent",
                                            comparisons=[("agent_1", "nobody")], n=3, K=3, rng=0),
    "compare=": lambda: rlstats.curves(_CURVES, "score ~ agent | task/seed", step="step",
                                       compare=[("agent_1", "nobody")], rng=0),
    "identical=": lambda: rlstats.percentiles(_RUNS, "score ~ agent | task", identical=[("agent_1", "nobody", "task_01")],
                                              rng=0),
    "b=": lambda: rlstats.bootstrap(_RUNS, "score ~ agent | task", n_resamples=100, rng=0).inferential_intervals(
        "agent_1", "nobody"),
}


@pytest.mark.parametrize("option", list(_NOBODY))
def test_an_unknown_agent_is_worded_one_way_whatever_the_option(option):
    """control= said "control='nobody' is not an agent in column 'agent'; the agents are: 'agent_1', ...", pairs= "agent
    'nobody' in pairs= is not in the data; agents: ...", compare= "compare= names agent(s) ['nobody'] not in the data;
    agents: agent_1, ...", identical= "identical names agent 'nobody', which is not in the data; agents are: ...",
    inferential_intervals "agent 'nobody' is not in the result; ...".  Now one sentence, from errors.agent_named."""
    with pytest.raises(rlstats.errors.OptionError) as caught:
        _NOBODY[option]()
    said = f"{option}'nobody'" if option in ("control=", "treatment=", "reference=", "b=") else f"'nobody' in {option}"
    assert str(caught.value).startswith(f"{said} is not an agent"), str(caught.value)
    assert str(caught.value).endswith("; the agents are: 'agent_1', 'agent_2', 'agent_3'"), str(caught.value)


def test_best_set_plot_keeps_a_setting_with_a_comma_on_one_line():
    """The plot split each configuration's label "net=[64, 64], lr=0.001" at every ", ": a value with a comma drew as
    "net=[64" and "64]" on lines of their own, a setting "64]" nobody swept."""
    gen = np.random.default_rng(0)
    rows = [("A", "t1", net, lr, s, gen.normal() + (net == "[64, 64]"))
            for net in ("[64, 64]", "[256, 256]") for lr in (0.001, 0.01) for s in range(3)]
    data = pd.DataFrame(rows, columns=["agent", "task", "net", "lr", "seed", "score"])
    res = rlstats.tuning(data, "score ~ agent | task/seed", config=["net", "lr"], views=["best_set"], rng=0,
                         n_resamples=200)
    assert res.best_set()["config"].iloc[0] == "net=[64, 64], lr=0.001"
    ax = res.plot(kind="best_set")
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert labels[:3] == ["net=[64, 64]\nlr=0.001", "net=[64, 64]\nlr=0.01", "net=[256, 256]\nlr=0.001"], labels
    import matplotlib.pyplot as plt
    plt.close(ax.figure)


def _comma_pilot(tmp_path):
    data = rlstats.datasets.simulate(agents=["R&D, Inc", "SPR", "DQN"], tasks=4, seeds=3, rng=0)
    path = tmp_path / "pilot.csv"
    data.to_csv(path, index=False)
    return data, path


def test_power_agents_flag_takes_a_quoted_name_with_a_comma(tmp_path):
    """rlstats power --pilot FILE --agents takes names separated by commas, so the pilot's agent "R&D, Inc" could not
    be named: 'R&D, Inc,SPR' read as R&D, Inc and SPR, and '"R&D, Inc",SPR' as '"R&D' and 'Inc"'.  A name in double
    quotes is now one name, as in a CSV file's row."""
    data, path = _comma_pilot(tmp_path)
    common = ("power", "skillings_mack", "--pilot", path, "--formula", "score ~ agent | task", "--n-sim", 5,
              "--seeds", 3, "--seed", 0, "--no-progress")
    status, out, err = cli_run(*common, "--agents", '"R&D, Inc",SPR')
    assert status == 0, err
    kept = rlstats.power(method="skillings_mack", design=data, formula="score ~ agent | task", seeds=[3], n_sim=5,
                         agents=["R&D, Inc", "SPR"], rng=0, progress=False)
    # the same two agents as from Python; the notes name --resample as the command takes it (audit s25 cli25)
    assert "resample='pooled'" in str(kept) and out == str(kept).replace("resample='pooled'", "--resample pooled")
    assert out != str(rlstats.power(method="skillings_mack", design=data, formula="score ~ agent | task", seeds=[3],
                                    n_sim=5, rng=0, progress=False))
    status, out, err = cli_run(*common, "--agents", "R&D, Inc,SPR")
    assert status == 2
    # the one wording of an unknown agent, each agent quoted, and how to write a name with a comma
    assert ("'R&D' in --agents is not an agent in column 'agent'; the agents are: 'DQN', 'R&D, Inc', 'SPR'"
            ) in err, err
    assert "a name with a comma goes in double quotes" in err, err


def test_power_pilot_names_an_unknown_agent_in_the_one_wording(tmp_path):
    data, _ = _comma_pilot(tmp_path)
    with pytest.raises(rlstats.errors.OptionError) as caught:
        rlstats.power(method="skillings_mack", design=data, formula="score ~ agent | task", agents=["R&D", "SPR"],
                      n_sim=5, rng=0, progress=False)
    assert str(caught.value) == ("'R&D' in agents= is not an agent in column 'agent'; "
                                 "the agents are: 'R&D, Inc', 'SPR', 'DQN'")


def test_adastop_lists_of_agents_keep_a_name_with_a_comma_whole(tmp_path):
    """rlstats adastop update printed "agents R&D, Inc, SPR, DQN" and "next batch: 3 new runs of each of: R&D, Inc,
    SPR, DQN": four agents to run, or three?  Where a name holds a comma, the lists quote every name."""
    gen = np.random.default_rng(0)
    batch = pd.DataFrame({"agent": ["R&D, Inc"] * 3 + ["SPR"] * 3 + ["DQN"] * 3, "score": gen.normal(size=9)})
    path = tmp_path / "batch.csv"
    batch.to_csv(path, index=False)
    status, out, err = cli_run("adastop", "update", tmp_path / "state.json", path, "--K", 3, "--seed", 0)
    assert status == 0, err
    assert "created" in out and "agents 'R&D, Inc', 'SPR', 'DQN';" in out, out
    assert "next batch: 3 new runs of each of: 'R&D, Inc', 'SPR', 'DQN' (at most 2 batches left)" in out, out
    status, out, err = cli_run("adastop", "status", tmp_path / "state.json")
    assert "runs used: 'R&D, Inc' 3, 'SPR' 3, 'DQN' 3" in out, out
    from rlstats.methods.adastop import AdaStop

    seq = AdaStop(agents=["R&D, Inc", "SPR"], n=3, K=3, rng=0)
    assert "the test is still running: next batch needs 'R&D, Inc', 'SPR'" in seq.result().notes
    with pytest.raises(rlstats.errors.DesignError, match=re.escape("the batch lacks agent 'SPR'; batch 1 needs "
                                                                   "n = 3 runs of each of: 'R&D, Inc', 'SPR'")):
        seq.update({"R&D, Inc": [1.0, 2.0, 3.0]})
    # names without a comma print as before
    assert "next batch needs a, b" in AdaStop(agents=["a", "b"], n=3, K=3, rng=0).result().notes[-1]


_MARKDOWN_NAMES = ["*a*", "_b_", "`c`", "<d>", "[e](f)", "g\\h", "~~i~~", "j&amp;k"]
_MARKDOWN_CASES = [("skillings_mack", {}), ("permutation", {"n_resamples": 200}), ("adastop", {"n": 2}),
                   ("bootstrap", {"n_resamples": 200}), ("task_table", {}), ("equivalence", {"margin": 1.0, "n_resamples": 200}),
                   ("mixed", {}), ("percentiles", {"n_resamples": 200}), ("performance_profile", {"n_resamples": 200}),
                   ("probability_of_improvement", {"n_resamples": 200}), ("bayes", {"n_samples": 500}),
                   ("selection", {"treatment": "*a*", "baseline": "_b_", "reported": ["t*1", "t_2_"], "n_resamples": 99})]


def _rendered_text(markdown):
    """The text a CommonMark renderer (with GitHub's tables) shows for ``markdown``, and its HTML."""
    import html

    # markdown-it-py (the test extra) renders as CommonMark does; skipped, with the reason, where it is absent
    renderer = pytest.importorskip("markdown_it", reason="markdown-it-py renders the Markdown").MarkdownIt
    page = renderer("commonmark").enable("table").enable("strikethrough").render(markdown)
    return html.unescape(re.sub(r"<[^>]+>", " ", page)), page


@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize("method, options", _MARKDOWN_CASES, ids=[m for m, _ in _MARKDOWN_CASES])
def test_names_print_literally_in_markdown(method, options):
    """to_markdown() escaped only '|': agents named *a*, _b_, `c`, <d>, [e](f), g\\h, ~~i~~ rendered as emphasis,
    code, an HTML tag, a link, "gh", struck-through text and an entity ("j&k"), other names than the data's."""
    data = _scores_named(_MARKDOWN_NAMES[:4] if method in ("selection", "adastop") else _MARKDOWN_NAMES)
    res = rlstats.compare(data, "score ~ agent | task", method=method, rng=1, progress=False, **options)
    for markdown in (res.to_markdown(), res.summary().to_markdown()):
        text, page = _rendered_text(markdown)
        shown = set(text.split())
        named = {"selection": _MARKDOWN_NAMES[:2], "adastop": _MARKDOWN_NAMES[:4]}.get(method, _MARKDOWN_NAMES)
        missing = [name for name in named if name not in shown and name not in text]  # the arms alone in selection
        assert not missing, (missing, markdown)
        assert not re.search(r"<(a|img|del|s|d)\b", page), page
        if "t\\*1" in markdown or "t*1" in markdown:  # a task's name too, where the output names tasks
            assert "t*1" in text and "t_2_" in text, text


def _scores_named(agents, tasks=("t*1", "t_2_", "t`3")):
    gen = np.random.default_rng(0)
    rows = [(a, t, s, float(gen.normal(0.5 * i, 1))) for i, a in enumerate(agents) for t in tasks for s in range(4)]
    return pd.DataFrame(rows, columns=["agent", "task", "seed", "score"])


@pytest.mark.parametrize("given", [np.random.SeedSequence(42).spawn(3)[1], np.random.SeedSequence([1, 2, 3])])
def test_a_spawned_seedsequence_is_recorded_as_a_seed_that_repeats_the_run(given):
    """rng=SeedSequence(42).spawn(3)[1] (numpy's way to give parallel jobs their streams) ran, but the result's seed,
    to_dict() and report() said "SeedSequence": nothing a reader could pass as rng= to repeat the run.  The run's
    stream is now seeded by an int drawn from the SeedSequence (read, never advanced), and that int is the record."""
    res = rlstats.bootstrap(_RUNS, "score ~ agent | task", n_resamples=200, rng=given)
    assert isinstance(res.seed, int) and res.seed >= 2**64  # 128 bits, as numpy draws for rng=None
    again = rlstats.bootstrap(_RUNS, "score ~ agent | task", n_resamples=200, rng=res.seed)
    pd.testing.assert_frame_equal(res.tidy(), again.tidy())
    same = rlstats.bootstrap(_RUNS, "score ~ agent | task", n_resamples=200, rng=given)  # the same object again
    pd.testing.assert_frame_equal(res.tidy(), same.tidy())
    assert given.n_children_spawned == 0 and res.to_dict()["seed"] == res.seed
    assert f"random seed {str(res.seed)[:8]}..." in res.report()


def test_design_notes_keep_an_agent_with_a_comma_whole():
    """A categorical level with no rows is left out with a note that listed the names bare: "2 agent levels with no
    runs left out: R&D, Inc, SPR" (three agents?).  Where a name holds a comma every name is quoted."""
    data = named_agents_runs(("a", "b", "c"))
    data["agent"] = pd.Categorical(data["agent"], categories=["a", "b", "c", "R&D, Inc", "SPR"])
    res = rlstats.skillings_mack(data, "score ~ agent | task")
    assert "2 agent levels with no runs left out: 'R&D, Inc', 'SPR'" in res.notes, res.notes
    plain = named_agents_runs(("a", "b", "c")).assign(agent=lambda d: pd.Categorical(d["agent"], categories=["a", "b", "c", "x"]))
    assert "1 agent level with no runs left out: x" in rlstats.skillings_mack(plain, "score ~ agent | task").notes
