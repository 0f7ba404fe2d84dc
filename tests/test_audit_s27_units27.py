"""Audit s27 (units27): a units slip against a named reference, and polars input's notes.

1. Scores in other units than the reference's (Atari 100k's game scores x1000 normalised with
   ``normalize="atari100k_reference"``) gave an IQM of 215.6 times human (DER) and said nothing. Now every named
   reference (Atari's two, D4RL's, Procgen's two) checks the median over tasks of each task's median normalised score
   against ``UNITS_RANGE`` and the scores' typical size against ``UNITS_TINY``: a warning and a printed note name the
   tasks, the apparent factor and the way on (``check_units=False`` where the scores are genuinely so). Calibrated on
   the published scores the loader offers with their references (``tests/reference/units_slip_survey.py``): never
   said of them, said of them x100, x1000 and /1000.
2. Polars input: every back end's notes (rows dropped, seeds averaged, copied runs, subset=, normalize=) and numbers
   are those of the pandas frame, the conversion's line aside (checked: no defect; the test keeps it so).

Tests reading the published scores skip with the reason when the mirror is not here.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

from conftest import caught, load_dataset
import rlstats
from rlstats.normalization import UNITS_RANGE, UNITS_TINY

#: typed from D4RL's infos.py and Cobbe et al. (2020)'s appendix, as test_audit_s22_norm22 does: (low, high)
#: five tasks each: the check judges units from UNITS_MIN_TASKS = 5 tasks (on fewer one far game decides it)
D4RL = {"hopper-medium-v2": (-20.272305, 3234.3), "halfcheetah-medium-v2": (-280.178953, 12135.0),
        "walker2d-medium-v2": (1.629008, 4592.3), "hopper-medium-replay-v2": (-20.272305, 3234.3),
        "ant-medium-v2": (-325.6, 3879.7)}
PROCGEN_EASY = {"coinrun": (5.0, 10.0), "starpilot": (2.5, 64.0), "jumper": (3.0, 10.0), "bigfish": (1.0, 40.0),
                "bossfight": (0.5, 13.0)}


def _units_said(frame, reference, **options):
    """The units warnings of rlstats.normalize, and the normalised frame."""
    out, said = caught(lambda: rlstats.normalize(frame, reference, **options), rlstats.RlstatsWarning)
    return out, [s for s in said if " times too " in s]


def _says(said_as, text):
    """Whether ``text`` says the scores look ``said_as`` ("about 100 times too large"): since s28 (units28) the
    message names the one or two powers of ten its span allows ("about 100 or 1,000 times", up to three); the known one among them."""
    if said_as is None:
        return False
    factor, way = re.match(r"about ([\d,]+) times too (\w+)", said_as).groups()
    found = re.search(r"look(?:s|ed) about ([\d,]+(?:(?:, | or )[\d,]+)*) times too (\w+)", text)
    return found is not None and factor in re.split(r", | or ", found.group(1)) and found.group(2) == way


def _statistics(frame, reference, low="random", high="human"):
    """(median over tasks of each task's median normalised score, median over tasks of each task's median |score| not 0
    over the larger reference magnitude), written apart from rlstats with pandas."""
    table = reference.set_index("task")
    lo = table.loc[frame["task"], low].to_numpy(float)
    hi = table.loc[frame["task"], high].to_numpy(float)
    score = frame["score"].to_numpy(float)
    rows = pd.DataFrame({"task": frame["task"].to_numpy(), "n": (score - lo) / (hi - lo),
                         "a": np.where(score != 0, np.abs(score) / np.maximum(np.abs(lo), np.abs(hi)), np.nan)})
    return rows.groupby("task")["n"].median().median(), rows.groupby("task")["a"].median().dropna().median()


def _runs(table, levels=(0.3, 0.6, 0.9), runs=5, rng=0):
    """Runs of agents whose normalised scores lie near ``levels`` on each task of ``table`` (task -> (low, high))."""
    gen = np.random.default_rng(rng)
    rows = [(f"agent_{i}", task, seed, lo + (level + 0.05 * gen.standard_normal()) * (hi - lo))
            for i, level in enumerate(levels) for task, (lo, hi) in table.items() for seed in range(runs)]
    return pd.DataFrame(rows, columns=["agent", "task", "seed", "score"])


# ----------------------------------------------------------------------------- the reproducer, mended

def test_atari100k_x1000_against_its_reference_is_said(mirror):
    atari = rlstats.datasets.load("atari100k")
    slipped = atari.assign(score=atari["score"] * 1000)
    out, said = _units_said(slipped, "atari100k_reference")
    middle, _ = _statistics(slipped, rlstats.datasets.load("atari100k_reference"))
    assert len(said) == 1 and _says("about 1,000 times too large", said[0]) and (
        "times too large for atari100k_reference's "
                                                 "random and human scores: the median over 26 tasks of each task's "
                                                 "median normalised score is 233, above 10" in said[0])
    assert round(middle) == 233 and "(divide it by 1,000 if it was scaled" in said[0]
    # the games named: those whose median normalised score is beyond 10 either way (Pong's is -344), by plain pandas,
    # the first five by name
    reference = rlstats.datasets.load("atari100k_reference").set_index("task")
    low, high = (slipped["task"].map(reference[c]) for c in ("random", "human"))
    medians = ((slipped["score"] - low) / (high - low)).groupby(slipped["task"]).median()
    beyond = sorted(medians[medians.abs() > 10].index)
    assert len(beyond) == 24 and "Pong" in beyond
    # each side named as it is (s28: Pong, far below, was listed among the games "beyond" a bound said as "above 10")
    above, below = sorted(medians[medians > 10].index), sorted(medians[medians < -10].index)
    assert below == ["Pong"] and len(above) == 23
    assert ("; above 10 on " + ", ".join(map(repr, above[:5])) + f" and {len(above) - 5} more; below -10 on 'Pong')"
            in said[0])
    assert "check_units': False}" in said[0]
    # the frame's notes say it, and nothing in it changed: the scores are the normalised ones as before
    notes = out.attrs["rlstats_notes"]
    assert any(n.startswith("'score' looked about") and _says("about 1,000 times too large", n) for n in notes)
    quiet, none = _units_said(slipped, "atari100k_reference", check_units=False)
    assert none == [] and not any("times too" in n for n in quiet.attrs["rlstats_notes"])
    np.testing.assert_array_equal(out["score"], quiet["score"])


def test_the_printed_result_says_it_and_its_numbers_are_those_of_the_scores_given(mirror):
    from scipy.stats import trim_mean

    atari = rlstats.datasets.load("atari100k")
    der = atari[atari["agent"] == "DER"]
    slipped = der.assign(score=der["score"] * 1000)
    options = dict(metrics=["iqm"], n_resamples=10, interval="percentile", rng=0, progress=False)
    res, said = caught(lambda: rlstats.bootstrap(slipped, "score ~ agent | task", normalize="atari100k_reference",
                                                 **options), rlstats.RlstatsWarning)
    assert any(_says("about 1,000 times too large", s) for s in said)
    assert _says("about 1,000 times too large", str(res)) and \
        "times too large for atari100k_reference's random and human scores" in str(res)
    # DER's IQM of 215.6 times human, as before the check (it changes nothing in the data): the trimmed mean of its
    # 2,600 runs so normalised (100 a game, so pooled they weigh the games alike)
    reference = rlstats.datasets.load("atari100k_reference").set_index("task")
    low, high = (reference.loc[slipped["task"], c].to_numpy() for c in ("random", "human"))
    expected = trim_mean((slipped["score"].to_numpy() - low) / (high - low), 0.25)
    assert res.tidy()["estimate"].iloc[0] == pytest.approx(expected, rel=1e-12) and round(expected, 2) == 215.62


FACTORS = ((1.0, None), (100.0, "about 100 times too large"), (1e-3, "about 1,000 times too small"))
# x10: Pong's and Boxing's medians outside their games' ranges (said since s28, UNITS_GAME_RANGE)
MORE_FACTORS = ((0.1, None), (10.0, "about 10 times too large"), (1000.0, "about 1,000 times too large"))


@pytest.mark.parametrize("name, factors", [
    ("atari100k_reference", FACTORS),  # x1000: the reproducer's
    # the full benchmark's bound is 50 (its strongest agents' medians are about 20): the Atari 100k agents x100 (23.3)
    # are inside it, x1000 (233) is not; since s28 x100 is said by Pong's and Boxing's game ranges
    pytest.param("atari_reference", ((1.0, None), (100.0, "about 100 times too large"), (1e-3, "about 1,000 times too small")) + MORE_FACTORS,
                 marks=pytest.mark.slow),
    pytest.param("atari100k_reference", MORE_FACTORS, marks=pytest.mark.slow),
])
def test_the_published_atari100k_scores_are_never_said_and_their_slips_are(mirror, name, factors):
    atari = rlstats.datasets.load("atari100k")
    reference = rlstats.datasets.load(name)
    for factor, said_as in factors:
        frame = atari.assign(score=atari["score"] * factor)
        _, said = _units_said(frame, name)
        middle, typical = _statistics(frame, reference)
        # the rule, on statistics computed apart: the published M 0.191, A 0.23; x100 23.3; /1000 A 0.00023 (since
        # s28 Atari's floor and game ranges say more: x10, test_audit_s28_units28)
        assert not (abs(middle) > UNITS_RANGE[name] or typical < UNITS_TINY) or said_as is not None, factor
        assert [_says(said_as, s) for s in said] == ([] if said_as is None else [True]), (factor, said)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["atari100k_reference", "atari_reference"])
def test_no_published_atari100k_agent_alone_is_said(mirror, name):
    atari = rlstats.datasets.load("atari100k")
    for agent, frame in atari.groupby("agent"):
        assert _units_said(frame, name)[1] == [], agent
        assert len(_units_said(frame.assign(score=frame["score"] * 1000), name)[1]) == 1, agent
        assert len(_units_said(frame.assign(score=frame["score"] * 1e-3), name)[1]) == 1, agent


@pytest.mark.slow
def test_the_published_dopamine_curves_are_never_said_and_their_slips_are(mirror):
    """Every game of the Dopamine baselines the Atari reference covers (55 of 60), all iterations pooled as a curves
    back end normalises them, and per agent at its first and last iteration (survey: M 0.004 to 1.5 there)."""
    dopamine = load_dataset("dopamine_atari")
    reference = rlstats.datasets.load("atari_reference")
    covered = dopamine[dopamine["task"].isin(set(reference["task"]))]
    assert covered["task"].nunique() == 55
    parts = [covered] + [f for (_, step), f in covered.groupby(["agent", "step"]) if step in (0, 198)]
    for part in parts:
        assert _units_said(part, "atari_reference")[1] == []
    for factor, said_as in ((100.0, "about 100 times too large"), (1000.0, "about 1,000 times too large"),
                            (1e-3, "about 1,000 times too small")):
        said = _units_said(covered.assign(score=covered["score"] * factor), "atari_reference")[1]
        assert len(said) == 1 and _says(said_as, said[0]), factor


# ----------------------------------------------------------------------------- D4RL's and Procgen's references

@pytest.mark.parametrize("name, table, low, high", [
    ("d4rl_reference", D4RL, "random", "expert"),
    # Procgen's units line is read by the row-order, nested and polars tests too
    pytest.param("procgen_easy_reference", PROCGEN_EASY, "r_min", "r_max", marks=pytest.mark.slow),
])
def test_d4rl_and_procgen_scores_in_their_units_are_not_said_and_slips_are(name, table, low, high):
    runs = _runs(table)
    reference = pd.DataFrame([(t, lo, hi) for t, (lo, hi) in table.items()], columns=["task", low, high])
    for factor, said_as in FACTORS + (MORE_FACTORS[-1:] if name != "d4rl_reference" else ()):
        frame = runs.assign(score=runs["score"] * factor)
        _, said = _units_said(frame, name)
        middle, typical = _statistics(frame, reference, low, high)
        assert (abs(middle) > UNITS_RANGE[name] or typical < UNITS_TINY) == (said_as is not None), factor
        assert [_says(said_as, s) for s in said] == ([] if said_as is None else [True]), (factor, said)
        if said_as is not None:
            assert f"for {name}'s {low} and {high} scores" in said[0]
            # the same words whatever the row order (tasks named sorted, medians of medians)
            assert _units_said(frame.sample(frac=1.0, random_state=1), name)[1] == said
    # far below the low reference: the median task 10 gaps below it (e.g. a cost's sign lost), said with its sign
    below = runs.assign(score=-runs["score"].abs() * 100)
    said = _units_said(below, name)[1]
    middle, _ = _statistics(below, reference, low, high)
    assert len(said) == 1 and f"normalised score is {rlstats.format.signif(middle, 3)}, below -5 (5 times the gap" \
        in said[0]


def test_a_normalised_frame_says_it_of_its_rows_only():
    """rlstats.normalize's line is of the frame it normalised: results on those rows print it; on some of them (where
    its medians over tasks were not taken) it is not shown, and the line on notes of rows not here says so."""
    frame, said = _units_said(_runs(D4RL).assign(score=lambda d: d["score"] * 100), "d4rl_reference")
    assert len(said) == 1
    whole = str(rlstats.compare(frame, "score ~ agent | task/seed", method="skillings_mack"))
    assert _says("about 100 times too large", whole) and "times too large for d4rl_reference's random and expert " \
           "scores when it was normalised: the median over 5 tasks" in whole
    part = str(rlstats.compare(frame[frame["task"] != "hopper-medium-v2"], "score ~ agent | task/seed",
                               method="skillings_mack"))
    assert "times too large" not in part and "notes about those rows alone are not shown" in part


def test_every_named_reference_has_a_units_bound():
    """A reference table added to the registry declares how far its normalised scores may lie."""
    names = [n for n in rlstats.datasets.available()["name"] if n.endswith("_reference")]
    assert sorted(UNITS_RANGE) == sorted(names)


def test_seeds_nested_in_runs_say_it_once():
    """``| task/run/seed`` checks the seeds' rows before averaging them: the units are said once, of the run means."""
    runs = _runs(PROCGEN_EASY, runs=6).assign(score=lambda d: d["score"] * 1000, run=lambda d: d["seed"] // 2)
    res, said = caught(lambda: rlstats.compare(runs, "score ~ agent | task/run/seed", method="task_table",
                                               normalize="procgen_easy_reference"), rlstats.RlstatsWarning)
    assert [s for s in said if "times too" in s] == [said[0]] and _says("about 1,000 times too large", said[0])
    assert str(res).count("times too large") == 1
    # said so through normalize='s dict: no line, no warning, the same numbers (the check changes nothing)
    quiet, none = caught(lambda: rlstats.compare(runs, "score ~ agent | task/run/seed", method="task_table",
                                                 normalize={"reference": "procgen_easy_reference",
                                                            "check_units": False}), rlstats.RlstatsWarning)
    assert not any("times too" in s for s in none) and "times too" not in str(quiet)
    pd.testing.assert_frame_equal(quiet.tidy(), res.tidy())


# ----------------------------------------------------------------------------- 2. polars input's notes

def _noted_runs():
    """Procgen-like runs x1000 (the units line) with what results note: a missing score and a missing agent (rows
    dropped), a cell whose runs 4 to 7 repeat runs 0 to 3 exactly (copied runs), and a run column pairing the runs'
    ids two by two (``task/run/rep``: seeds averaged within runs)."""
    runs = _runs(PROCGEN_EASY, runs=8, rng=4).assign(score=lambda d: d["score"] * 1000)
    runs["run"], runs["rep"] = runs["seed"] // 2, runs["seed"] % 2
    cell = np.flatnonzero((runs["agent"] == "agent_0").to_numpy() & (runs["task"] == "coinrun").to_numpy())
    runs.loc[runs.index[cell[4:]], "score"] = runs["score"].to_numpy()[cell[:4]]
    runs.loc[runs.index[9], "score"] = np.nan
    runs.loc[runs.index[30], "agent"] = None
    return runs


#: back end calls, each reading the notes' sources through the front door, with phrases of the notes expected
POLARS_CASES = {
    "bootstrap": (lambda d: rlstats.bootstrap(d, "score ~ agent | task/run/rep", normalize="procgen_easy_reference",
                                              metrics=["iqm"], n_resamples=20, interval="percentile", rng=0,
                                              na_action="drop", progress=False),
                  ["rows dropped (na_action=\"drop\") before the seeds were averaged",
                   "seeds ('rep') averaged within each run", "times too large for procgen_easy_reference"]),
    "task_table": (lambda d: rlstats.compare(d, "score ~ agent | task/seed", method="task_table", normalize="minmax",
                                             na_action="drop"),
                   ["rows dropped", "repeat another run's score exactly", "(score - min) / (max - min)"]),
    "skillings_mack": (lambda d: rlstats.compare(d, "score ~ agent | task/seed", method="skillings_mack",
                                                 na_action="drop", subset="task != 'jumper'"),
                       ["rows dropped", "repeat another run's score exactly", "subset=\"task != 'jumper'\" kept"]),
    "percentiles": (lambda d: rlstats.compare(d, "score ~ agent | task/seed", method="percentiles", na_action="drop",
                                              rng=0),
                    ["rows dropped", "repeat another run's score exactly"]),
}
CONVERTED = re.compile(r"Note: data converted from a polars DataFrame to a pandas DataFrame \(\d+ rows\)\n")


@pytest.mark.parametrize("case", [pytest.param(c, marks=pytest.mark.slow) if c == "percentiles"
                                  else c for c in POLARS_CASES])
def test_polars_input_prints_the_notes_and_numbers_of_pandas(case):
    """Every statistic unchanged by the frame library, and every line on what was done to the data the same: rows
    dropped, seeds averaged, copied runs, subset=, normalize= (and its units line): the polars result is the pandas
    one plus the line on the conversion (audit s27: no note was lost; kept so)."""
    pl = pytest.importorskip("polars")
    runs = _noted_runs()
    call, phrases = POLARS_CASES[case]
    a, said_a = caught(lambda: call(runs), rlstats.RlstatsWarning)
    b, said_b = caught(lambda: call(pl.from_pandas(runs)), rlstats.RlstatsWarning)
    text_a, text_b = str(a), str(b)
    assert len(CONVERTED.findall(text_b)) == 1 and not CONVERTED.findall(text_a)
    assert CONVERTED.sub("", text_b) == text_a
    assert said_a == said_b
    pd.testing.assert_frame_equal(a.tidy(), b.tidy())
    notes = [line for line in text_a.splitlines() if line.startswith("Note: ")]
    assert all(any(phrase in note for note in notes) for phrase in phrases), (phrases, notes)


def test_a_full_benchmark_agent_as_strong_as_the_strongest_published_is_not_said(mirror):
    """Median human-normalised scores of about 20 (MuZero's 2041 % in its paper) on the full Atari benchmark are not
    said to be 100 times too large (the bound is 50 there); on Atari 100k, where no published agent is near 10, the
    same scores are (the bound is 10). Scores are built from the reference table itself, so the median is known."""
    table = rlstats.datasets.load("atari_reference").set_index("task")
    # not Pong and Boxing, whose scores cannot lie 20 human gaps above random (their games end at 21 and 100 points,
    # UNITS_GAME_RANGE: said since s28): an agent so strong elsewhere is theirs at most
    games = [g for g in table.index if g not in ("Pong", "Boxing")][:26]
    runs = pd.DataFrame([("strong", g, seed, table.loc[g, "random"] + (20 + 0.5 * seed) * (table.loc[g, "human"]
                                                                                         - table.loc[g, "random"]))
                         for g in games for seed in range(3)], columns=["agent", "task", "seed", "score"])
    middle, _ = _statistics(runs, rlstats.datasets.load("atari_reference"))
    assert middle == pytest.approx(20.5)
    assert _units_said(runs, "atari_reference")[1] == []
    shared = [g for g in games if g in set(rlstats.datasets.load("atari100k_reference")["task"])]
    said = _units_said(runs[runs["task"].isin(shared)], "atari100k_reference")[1]
    assert len(said) == 1 and _says("about 100 times too large", said[0])


def test_one_to_four_far_games_are_not_judged(mirror):
    """review27a: on 1-3 tasks one game far from its reference decided the medians: Atari 100k's PrivateEye alone
    (scores near 100 beside a human 69,571) read "about 100 times too small" for every agent. Units are judged from
    5 tasks (UNITS_MIN_TASKS); a x1000 slip on 5 games is still said."""
    from rlstats.normalization import UNITS_MIN_TASKS

    atari = rlstats.datasets.load("atari100k")
    assert UNITS_MIN_TASKS == 5
    for agent, frame in atari[atari["task"] == "PrivateEye"].groupby("agent"):
        assert _units_said(frame, "atari100k_reference")[1] == [], agent
    four = atari[atari["task"].isin(["PrivateEye", "Alien", "Amidar", "Assault"])]
    assert _units_said(four.assign(score=four["score"] * 1000), "atari100k_reference")[1] == []
    five = atari[atari["task"].isin(["Alien", "Amidar", "Assault", "Asterix", "BankHeist"])]
    said = _units_said(five.assign(score=five["score"] * 1000), "atari100k_reference")[1]
    assert len(said) == 1 and _says("about 1,000 times too large", said[0]) and "median over 5 tasks" in said[0]
