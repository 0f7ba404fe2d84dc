"""Session 16 audit of the vignettes and the documentation as a new user reads them: every sentence about a number
or a result must be true of what the code prints today, on the published data."""
from __future__ import annotations

import math
import re
from pathlib import Path

import pytest

import rlstats
from rlstats.tables import read_csv

ROOT = Path(__file__).resolve().parents[1]
VIGNETTES = ROOT / "vignettes"


def _markdown(name):
    """The Markdown cells of a vignette, joined, without the leading '# '."""
    text = (VIGNETTES / f"{name}.py").read_text(encoding="utf-8")
    cells = [cell for cell in re.split(r"^# %%", text, flags=re.M) if cell.startswith(" [markdown]")]
    return " ".join(re.sub(r"^# ?", "", line) for cell in cells for line in cell.splitlines()[1:])


def _six_agents(atari):
    return atari[atari["agent"].isin(["CURL", "DER", "DrQ", "DrQ(eps)", "OTRainbow", "SPR"])].reset_index(drop=True)


def test_percentiles_vignette_prints_the_dkw_note_its_text_explains(atari):
    """The text says 'at delta' = 0.05 / 156 the DKW band is 0.21 wide on each side' and the next cell prints PBP's
    note: that printed note must be the DKW one. The vignette's own expression is evaluated on two of its games (the
    full game of 26 takes seconds); the note's half-width is checked against the DKW bound sqrt(log(2 / delta') / (2 n))
    there, and that bound at the vignette's delta' = 0.05 / (6 x 26) and n = 100 is the text's 0.21."""
    text = (VIGNETTES / "percentiles_atari.py").read_text(encoding="utf-8")
    printed = re.findall(r"^print\((.*\bpbp\.notes\b.*)\)$", text, flags=re.M)
    assert len(printed) == 1, printed
    two_games = _six_agents(atari)
    two_games = two_games[two_games["task"].isin(["Boxing", "Pong"])]
    pbp = rlstats.percentiles(two_games, "score ~ agent | task", interval="pbp")
    note = eval(printed[0], {"pbp": pbp})  # the vignette's own expression
    dkw = lambda delta, n: math.sqrt(math.log(2 / delta) / (2 * n))  # noqa: E731
    assert f"DKW band half-width at delta' = {0.05 / 12:.3g} is {dkw(0.05 / 12, 100):.2g}" in note, note
    assert f"{dkw(0.05 / 156, 100):.2f}" == "0.21" and "0.21 wide on each side" in _markdown("percentiles_atari")


#: sb3_logs_to_paper lists the notes of its main curves call "in order": each phrase of the list and the note it
#: stands for. A phrase in the text whose note is not printed, or a printed note no phrase names, is a stale text.
SB3_NOTES = [
    ("what the frame was read from", "read 15 runs from 15 Stable-Baselines3 EvalCallback"),
    ("what a score is", "'score' of an evaluations.npz row is the mean return"),
    ("the task left out and the 6 runs with it", 'Acrobot-v1'),
    ("every run logged at the same 4 steps", "every run is logged at the same 4 steps from 5k to 20k"),
    ("the curves stop at 20k", "curves cover steps 5k to 20k"),
    ("the bootstrap's widening for 3 runs", "widened by sqrt(n/(n - 1)) with n = 3"),
    ("t quantiles at 2 degrees of freedom", "here df = 2"),
    ("the IQM trims nothing", "trims nothing: a quarter of fewer than 4 runs"),
    ("the bands are *withheld*", "bands of the curves are withheld for A2C, DQN and PPO"),
]


def test_sb3_vignette_lists_the_notes_its_curves_print(sb3_evaluations):
    curves = rlstats.curves(sb3_evaluations, "score ~ agent | task/seed", step="step", na_action="drop",
                            n_resamples=200, rng=0)
    text = _markdown("sb3_logs_to_paper")
    listed = text[text.index("Its notes, in order:"):text.index("`bands=\"expanded\"` gives")]
    named = [note for phrase, note in SB3_NOTES if phrase in listed]
    assert all(any(note in printed for printed in curves.notes) for note in named), (named, curves.notes)
    unnamed = [printed for printed in curves.notes if not any(note in printed for note in named)]
    assert not unnamed, unnamed
    # in the order the text gives them
    order = [next(i for i, printed in enumerate(curves.notes) if note in printed) for note in named]
    assert order == sorted(order)


def test_vignette_readme_lists_every_vignette():
    readme = (VIGNETTES / "README.md").read_text(encoding="utf-8")
    listed = set(re.findall(r"^\| `(\w+)\.py` \|", readme, flags=re.M))
    present = {p.stem for p in VIGNETTES.glob("*.py") if p.name != "render.py" and not p.name.startswith("_")}
    assert present - listed == set()


def test_selection_effects_figure_keeps_its_title_inside(atari):
    """cherry_picking_atari: SPR's 8 best Atari 100k games against DrQ(eps); `picked.plot()` saved as it is cut its
    title at both edges ("sk effects; lines: set means, bands: 95% intervals (reported: t, skewness-corrected (from
    the runs), ..."), 0.4 in past the left edge and 1.5 in past the right: the reader lost what the bands are."""
    import matplotlib.pyplot as plt

    from conftest import drawn_outside

    pair = atari[atari["agent"].isin(["SPR", "DrQ(eps)"])].reset_index(drop=True)
    scores = rlstats.normalize(pair, "atari100k_reference")
    means = scores.groupby(["task", "agent"])["score"].mean().unstack()
    best = list((means["SPR"] - means["DrQ(eps)"]).sort_values(ascending=False).index[:8])
    picked = rlstats.selection_check(scores, "score ~ agent | task", treatment="SPR", baseline="DrQ(eps)",
                                     reported=best, n_resamples=99, rng=0)
    ax = picked.plot()
    try:
        assert max(drawn_outside(ax.figure)) <= 0.02, drawn_outside(ax.figure)
        title = ax.get_title().replace("\n", " ")
        # the skewness of these runs is not negative: the plain t's bound, named so (audit s24)
        assert ("reported: t (skewness from the runs not negative: no correction), one-sided" in title
                and "held-out: t" in title)
    finally:
        plt.close(ax.figure)


def test_bootstrap_vignette_epsilon_text_matches_its_split(atari, published):
    """bootstrap_atari's seeded split (rng 7, the vignette's code) of SPR and DrQ(eps), at 200 resamples (the fast
    size). Its text says the test rejects already at c = 3 and that epsilon is smaller at c = 5 than at c = 3 (it must
    not say that epsilon grows with c without saying where it does not): both checked on the package's output, with
    each epsilon recomputed here from thesis eq. 2.28 and the Appendix B.2 rule for a significant test
    (0.999 min(eps, 1)) and each IQM estimate from the raw scores and the published reference with scipy."""
    import numpy as np
    from scipy.stats import trim_mean

    pair = atari[atari["agent"].isin(["SPR", "DrQ(eps)"])].reset_index(drop=True)
    normalised = rlstats.normalize(pair, "atari100k_reference")
    reference = read_csv(published / "atari100k_reference.csv").set_index("task")
    random, human = (pair["task"].map(reference[column]).to_numpy() for column in ("random", "human"))
    by_hand = (pair["score"].to_numpy() - random) / (human - random)
    rng = np.random.default_rng(7)
    shuffled = np.empty(len(normalised), dtype=int)
    for _, rows in normalised.groupby(["agent", "task"]).indices.items():
        shuffled[rows] = rng.permutation(rows.size)
    epsilon = {}
    for c, first in ((3, 0), (5, 3)):
        keep = (shuffled >= first) & (shuffled < first + c)
        subset = normalised[keep]
        boot = rlstats.bootstrap(subset, "score ~ agent | task", metrics=["iqm"], n_resamples=200, rng=c)
        test = rlstats.skillings_mack(subset, "score ~ agent | task")
        ici = boot.inferential_intervals("DrQ(eps)", "SPR", test=test)
        iqm = [trim_mean(by_hand[keep & (pair["agent"] == agent).to_numpy()], 0.25) for agent in ici.agents]
        np.testing.assert_allclose(ici.estimates[:, 0], iqm, rtol=1e-12)
        low, high = np.argsort(ici.estimates[:, 0])
        t1, t2 = ici.estimates[[low, high], 0]
        assert test.pvalue < ici.alpha == 0.05 and ici.branch == ("shrunk",)  # "the test rejects already at c = 3"
        eq_2_28 = (t2 - t1) * (1 + test.pvalue - ici.alpha) / (t2 - t1 + ici.descriptive[low, 0, 1]
                                                               - ici.descriptive[high, 0, 0])
        assert ici.epsilon[0] == pytest.approx(0.999 * min(eq_2_28, 1.0), rel=1e-12)
        epsilon[c] = ici.epsilon[0]
    assert epsilon[5] < epsilon[3] < 1
    assert "smaller at c = 5 than at c = 3" in _markdown("bootstrap_atari")


def test_which_method_examples_run_without_a_warning_that_their_result_is_misleading(monkeypatch):
    """A new user copies the page's blocks as they stand. The bootstrap block puts the simulated tasks on one scale
    (normalize="minmax", with a comment saying why); the equivalence blocks did not, and each printed an
    RlstatsWarning that tasks with large scores decide the result, under a margin of 0.5 raw units that means
    something different on every task. The page must not teach a call the package warns against."""
    import warnings

    import matplotlib.pyplot as plt

    monkeypatch.setattr(plt, "show", lambda *a, **k: None)
    page = ROOT / "docs" / "which_method.md"
    code = "\n".join(re.findall(r"```python\n(.*?)```", page.read_text(encoding="utf-8"), re.S))
    with warnings.catch_warnings():
        warnings.simplefilter("error", rlstats.RlstatsWarning)
        exec(compile(code, str(page), "exec"), {"__name__": "docs"})  # noqa: S102 (our own page)


def _size_triples(path):
    """The (fast, default, full) counts of a vignette's size block."""
    text = path.read_text(encoding="utf-8")
    return [tuple(int(v.replace("_", "")) for v in m) for m in
            re.findall(r"^\s+[A-Z_]+=\(([\d_]+), ([\d_]+), ([\d_]+)\)", text, flags=re.M)]


def test_vignettes_print_their_size_and_the_readme_names_those_smaller_by_default():
    """vignettes/README.md: 'Each vignette prints the size and the counts it used at the top', and it names the
    vignettes whose default size simulates less than the full one. Read from each vignette's size block."""
    readme = (VIGNETTES / "README.md").read_text(encoding="utf-8")
    sizes = readme[readme.index("## Sizes: fast, default, full"):readme.index("Render times measured")]
    smaller = set()
    for path in sorted(VIGNETTES.glob("*.py")):
        triples = _size_triples(path)
        if not triples:
            continue
        assert 'print(f"Size {SIZE!r}: {COUNTS}' in path.read_text(encoding="utf-8"), path.name
        if any(default != full for _, default, full in triples):
            smaller.add(path.stem)
    assert {"percentiles_atari", "how_many_seeds"} <= smaller  # the parse finds them
    named = set(re.findall(r"`(\w+)`", sizes))
    assert smaller <= named, smaller - named


def test_vignettes_leave_the_backend_to_the_notebook():
    """A vignette that sets the backend itself overrides the notebook's inline one: its figures are drawn and never
    shown (the documentation build rendered tuning_procedures with 0 images; its last cell draws the expected best
    score after k configurations, which its text reads). The tests and render.py set MPLBACKEND instead."""
    for path in sorted(VIGNETTES.glob("*.py")):
        if path.name == "render.py":
            continue
        assert "matplotlib.use(" not in path.read_text(encoding="utf-8"), path.name


def _five_games(atari):
    return atari[atari["agent"].isin(["CURL", "DER", "DrQ(eps)", "SPR"])
                 & atari["task"].isin(["Alien", "Boxing", "Breakout", "Freeway", "Pong"])]


@pytest.mark.slow  # 10,000 bootstrap resamples of the aggregate row: about 1.5 CPU seconds
def test_readme_real_case_table_is_what_its_code_prints(atari):
    """README.md's "A real case": its Markdown table is `t.to_markdown()`'s table as the code prints it today."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    table = rlstats.task_table(_five_games(atari), "score ~ agent | task/seed", statistic="iqm", aggregate="bootstrap",
                               normalize="atari100k_reference", rng=0)
    rows = [line for line in table.to_markdown().splitlines() if line.startswith("|")]
    assert len(rows) == 8 and "\n".join(rows) in readme


def test_readme_real_case_profile_text_is_what_its_code_prints(atari):
    """The README's sentence on the profiles quotes the thresholds' span and the runs outside it as the result's
    note counts them (16 below and 21 above, of 2,000 runs)."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    profile = rlstats.performance_profile(_five_games(atari), "score ~ agent | task", normalize="atari100k_reference")
    note = next(n for n in profile.notes if n.startswith("thresholds tau span"))
    low, high = re.search(r"span (\S+) to (\S+),", note).groups()
    below, above = (int(n) for n in re.findall(r"(\d+) of 2000 runs score", note))
    assert (round(float(low), 2), float(high)) == (-0.33, 3.9) and below + above == 37
    assert re.search(r"here\s+-0\.33 to 3\.9;", readme)
    assert re.search(r"counts\s+the\s+37\s+of\s+2,000\s+runs\s+outside\s+it", readme)
