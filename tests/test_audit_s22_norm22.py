"""Audit s22 (norm22): normalisation (rlstats.normalization, normalize= of the back ends) and the reference tables.

Each defect found has a strict xfail reproducer here first, then the fix turns it into a passing test asserting
numbers. The checks that passed at the audit are kept as tests too (independent values, metamorphic relations).
"""

import warnings

import numpy as np
import pandas as pd
import pytest

import rlstats
from rlstats import datasets
from rlstats.errors import DesignError, OptionError
from rlstats.normalization import normalize


def _runs():
    """3 agents x 2 tasks x 4 runs on scales a hundredfold apart, fixed numbers (no generator)."""
    rows = []
    for t, (lo, width) in {"x": (0.0, 10.0), "y": (100.0, 900.0)}.items():
        for a, shift in (("A", 0.0), ("B", 0.25), ("C", 0.5)):
            for s, u in enumerate((0.1, 0.35, 0.2, 0.45)):
                rows.append((a, t, s, lo + width * (u + shift)))
    return pd.DataFrame(rows, columns=["agent", "task", "seed", "score"])


# ---------------------------------------------------------------- independent values (passed at the audit)

def test_atari_d4rl_procgen_values_against_the_published_tables(mirror):
    # typed again from the published tables (rliable/DQN Zoo's random and human; D4RL's infos.py; Cobbe et al.
    # 2020's appendix), not read from the package: (task, low, high)
    atari = {"Pong": (-20.7, 14.6), "Breakout": (1.7, 30.5), "Alien": (227.8, 7127.7), "MsPacman": (307.3, 6951.6),
             "Seaquest": (68.4, 42054.7), "Freeway": (0.0, 29.6)}
    d4rl = {"hopper-medium-v2": (-20.272305, 3234.3), "halfcheetah-expert-v2": (-280.178953, 12135.0),
            "walker2d-random-v2": (1.629008, 4592.3)}
    procgen = {"easy": {"coinrun": (5.0, 10.0), "starpilot": (2.5, 64.0), "jumper": (3.0, 10.0)},
               "hard": {"coinrun": (5.0, 10.0), "starpilot": (1.5, 35.0), "jumper": (1.0, 10.0)}}
    for name, table in [("atari_reference", atari), ("d4rl_reference", d4rl),
                        ("procgen_easy_reference", procgen["easy"]), ("procgen_hard_reference", procgen["hard"])]:
        tasks = list(table)
        df = pd.DataFrame({"agent": "A", "task": tasks, "score": [100.0] * len(tasks)})
        out = normalize(df, name, check_units=False)  # 100 is no Procgen score (coinrun's R_max is 10): said, s27
        expected = [(100.0 - lo) / (hi - lo) for lo, hi in table.values()]
        np.testing.assert_allclose(out["score"], expected, rtol=1e-12)
    # Pong's human score itself maps to 1, its random score to 0
    out = normalize(pd.DataFrame({"task": ["Pong", "Pong"], "score": [-20.7, 14.6]}), "atari100k_reference")
    np.testing.assert_allclose(out["score"], [0.0, 1.0], atol=1e-12)


def test_minmax_invariant_to_affine_maps_row_order_and_polars():
    df = _runs()
    kwargs = dict(metrics=["mean", "iqm"], n_resamples=100, rng=1, progress=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        base = rlstats.bootstrap(df, "score ~ agent | task", normalize="minmax", **kwargs).tidy()
        mapped = rlstats.bootstrap(df.assign(score=3.0 * df["score"] + 7.0), "score ~ agent | task",
                                   normalize="minmax", **kwargs).tidy()
        shuffled = rlstats.bootstrap(df.sample(frac=1.0, random_state=3), "score ~ agent | task",
                                     normalize="minmax", **kwargs).tidy()
    for other in (mapped, shuffled):
        np.testing.assert_allclose(other["estimate"], base["estimate"], rtol=1e-12)
    # A: x scores 1, 3.5, 2, 4.5 of range 1..9.5 -> mean (0 + 2.5 + 1 + 3.5) / 8 / 8.5 over the two tasks alike
    a_mean = base[(base["agent"] == "A") & (base["metric"] == "mean")]["estimate"].item()
    assert a_mean == pytest.approx(np.mean([0.0, 2.5, 1.0, 3.5]) / 8.5, rel=1e-12)
    pl = pytest.importorskip("polars")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from_polars = rlstats.bootstrap(pl.from_pandas(df), "score ~ agent | task", normalize="minmax",
                                        **kwargs).tidy()
    np.testing.assert_allclose(from_polars["estimate"], base["estimate"], rtol=1e-12)


def test_halfcheetah_rows_are_the_files_lines(mirror):
    # PROVENANCE.md says 384 rows (192 runs each); the published TD3 file has 193 lines, as the registry says
    df = datasets.load("halfcheetah_sac_td3")
    assert df.groupby("agent").size().to_dict() == {"SAC": 192, "TD3": 193}


# ---------------------------------------------------------------- defects

@pytest.mark.parametrize("low, high, kind, shown", [(["0", "0"], ["4", "10"], "string", "'0', task 'y': '0'"),
                                                     ([False, False], [True, True], "boolean", "False, task 'y': False")])
def test_reference_bounds_of_text_or_booleans_refused(low, high, kind, shown):
    # before: text '0'/'4' was read as 0 and 4 (score 1 -> 0.25), True/False as 1 and 0 (score 2 -> 2.0), silently
    df = pd.DataFrame({"agent": ["a", "b"], "task": ["x", "y"], "score": [1.0, 2.0]})
    ref = pd.DataFrame({"task": ["x", "y"], "random": low, "human": high})
    with pytest.raises(DesignError, match=f"the reference's 'random' column must hold numbers, but it holds {kind} "
                                          f"values \\(task 'x': {shown}\\)"):
        normalize(df, ref)
    with pytest.raises(DesignError, match="'random' column must hold numbers"):  # through a back end as well
        rlstats.build(df, "score ~ agent | task", normalize=ref)
    # the same numbers as numbers (also as Python objects in an object column) are read
    for numbers in (ref.assign(random=[0, 0], human=[4, 10]), ref.assign(random=[0, 0], human=[4.0, 10.0]).astype(
            {"human": object})):
        assert normalize(df, numbers)["score"].tolist() == [0.25, 0.2]


def test_minmax_bounds_from_the_rows_analysed():
    df = pd.DataFrame({"agent": ["A", "B", "A", "B", "A", "B", "A", "B", None],
                       "task": ["x", "x", "y", "y", "x", "x", "y", "y", "x"],
                       "score": [1.0, 3.0, 0.0, 10.0, 2.0, 4.0, 1.0, 9.0, 100.0]})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        design = rlstats.build(df, "score ~ agent | task", normalize="minmax", na_action="omit")
    # x is analysed on 1, 3, 2, 4 (range 1 to 4), not 1 to 100 from the row whose agent is missing (before: 0,
    # 0.0101, 0.0202, 0.0303, a task squeezed into 3% of the unit range)
    assert sorted(design.y[design.task == design.tasks.index("x")]) == pytest.approx([0.0, 1 / 3, 2 / 3, 1.0])
    assert design.notes[0].endswith("largest score of each task in the data less the 1 row dropped for a missing "
                                    "value in another column: x 1 to 4, y 0 to 10")
    # all rows present: the note as before, and the frame given is not modified
    before = df.copy()
    full = rlstats.build(df.dropna(), "score ~ agent | task", normalize="minmax")
    assert full.notes[0].endswith("of each task in the data: x 1 to 4, y 0 to 10")
    pd.testing.assert_frame_equal(df, before)


def test_minmax_note_says_the_rows_subset_kept():
    df = _runs()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = rlstats.compare(df, "score ~ agent | task", method="bootstrap", subset="agent != 'C'",
                                 normalize="minmax", metrics=["mean"], n_resamples=50, rng=1, progress=False)
    text = " ".join(str(result).split())
    # A and B's x scores: 1 to 7 (C's reach 9.5), y: 190 to 730
    assert "largest score of each task in the rows subset= kept: x 1 to 7, y 190 to 730" in text
    assert "subset=\"agent != 'C'\" kept 16 of 24 rows" in text


def test_curves_minmax_note_says_over_all_steps():
    df = _runs()
    curves = pd.concat([df.assign(step=step, score=df["score"] * step / 3) for step in (1, 2, 3)], ignore_index=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = rlstats.curves(curves, "score ~ agent | task/seed", step="step", normalize="minmax",
                                n_resamples=50, rng=1, progress=False)
    note = " ".join(str(result).split())  # the printed result, its lines joined
    # x's smallest score is at step 1 (1 / 3), its largest at step 3 (9.5), y's 190 / 3 and 955: over every step
    assert ("largest score of each task in the data, over every step logged in 'step': x 0.33333 to 9.5, "
            "y 63.333 to 955") in note


@pytest.mark.parametrize("given, meant", [("Atari100k", "atari100k"), ("atari100k_refrence", "atari100k_reference")])
def test_unknown_dataset_name_did_you_mean(given, meant):
    # before: the allowed names listed, none suggested
    with pytest.raises(OptionError, match=f"did you mean '{meant}'"):
        datasets.load(given)
    if meant.endswith("_reference"):
        with pytest.raises(OptionError, match=f"did you mean '{meant}'"):
            normalize(pd.DataFrame({"task": ["Pong"], "score": [1.0]}), given)


def test_did_you_mean_names_every_name_as_close():
    from rlstats.options import did_you_mean

    names = list(datasets.available()["name"]) + ["minmax", "dm_control"]
    assert did_you_mean("procgen_reference", names) == (" (did you mean 'procgen_easy_reference' or "
                                                        "'procgen_hard_reference'?)")
    assert did_you_mean("MinMax", names) == " (did you mean 'minmax'?)"
    assert did_you_mean("nope", names) == "" and did_you_mean(3, names) == ""


def test_command_line_reference_file_with_a_word_for_a_score(tmp_path, capsys):
    import io

    from rlstats.cli import main

    runs = pd.DataFrame({"agent": ["A"] * 4 + ["B"] * 4, "task": ["Pong", "Pong", "Alien", "Alien"] * 2,
                         "seed": [0, 1] * 4, "score": [1.0, 3.0, 100.0, 300.0, 2.0, 4.0, 200.0, 400.0]})
    runs.to_csv(tmp_path / "runs.csv", index=False)
    pd.DataFrame({"task": ["Pong", "Alien"], "random": [0, 0], "human": ["ten", "1000"]}).to_csv(
        tmp_path / "reference.csv", index=False)
    argv = ["compare", str(tmp_path / "runs.csv"), "score ~ agent | task", "--method", "task_table", "--seed", "0",
            "--format", "csv", "-o", "statistic=mean", "-o", f"normalize={tmp_path / 'reference.csv'}"]
    assert main(argv, out=io.StringIO()) == 2
    # the file's '1000' is read as text beside 'ten': only the word is named
    assert capsys.readouterr().err == ("rlstats: error: the reference's 'human' column must hold numbers, but it holds "
                                       "string values (task 'Pong': 'ten'); write each task's score as a number in "
                                       "the file\n")


def test_lower_is_better_reference_says_swap_the_bounds():
    # before: "... normalising would divide by zero or flip the scale", and no way on
    df = pd.DataFrame({"agent": ["A", "B"] * 2, "task": ["x", "x", "y", "y"], "score": [10.0, 5.0, 100.0, 50.0]})
    ref = pd.DataFrame({"task": ["x", "y"], "random": [20.0, 200.0], "human": [0.0, 0.0]})
    with pytest.raises(DesignError, match="swap the bounds: low='human', high='random'"):
        normalize(df, ref)
    # swapped, human maps to 0 and lower stays better: x 10 -> 0.5, 5 -> 0.25; y 100 -> 0.5, 50 -> 0.25
    out = normalize(df, ref, low="human", high="random")
    assert out["score"].tolist() == [0.5, 0.25, 0.5, 0.25]
    # one task only flipped: no swap offered (it would flip the others)
    with pytest.raises(DesignError, match="flip the scale$"):
        normalize(df, ref.assign(human=[0.0, 300.0]))


def test_minmax_tied_task_says_what_to_do():
    # before: "... task 'x' has one value only (or none that is not missing), so its range is zero", no way on
    df = pd.DataFrame({"agent": ["a", "b", "a", "b"], "task": ["x", "x", "y", "y"], "score": [1.0, 1.0, 0.0, 2.0]})
    with pytest.raises(DesignError, match=r"task 'x' has one value only .* drop it from the data \(e.g. "
                                          r"df\[~df\['task'\].isin\(\['x'\]\)\]\)"):
        normalize(df, "minmax")
    # dropped as advised, y alone: 0 and 2 -> 0 and 1
    assert normalize(df[~df["task"].isin(["x"])], "minmax")["score"].tolist() == [0.0, 1.0]
