"""Audit s26 (copies26b): the copied-runs check's count in other units, and two task files read twice.

Found: (1) within a cell (session 25) a repeat counted only where its decimal step was at most ``ROUND_DIGITS``
coarser than its cell's, which a change of units moves (300.39 / 3 = 100.13 amid scores of 8 digits): a 2-decimal
cell's 10 copied runs counted 10, 6 at x 1/3 and 9 at x 3.7.  (2) hpo_landscapes' learning-rate_angle-weight.csv
and learning-rate_distance-weight.csv are byte-identical (the published data's defect), yet no note said so: each
configuration's pair of cells holds 10 runs, improbable alone only at a resolution the data do not bear out; and the
loader said nothing of it.
"""

import numpy as np
import pandas as pd
import pytest

import rlstats
from rlstats.design import COPIED_RUNS

IDENTICAL = ("learning-rate_angle-weight", "learning-rate_distance-weight")


def _within_frame():
    rng = np.random.default_rng(26)
    x = rng.permutation(400)[:40] * 11.0 + rng.integers(1, 99, 40) / 100
    a = x[:20].copy()
    a[10:] = a[:10]  # A's runs 10 to 19 repeat its runs 0 to 9
    return pd.DataFrame({"agent": np.repeat(["A", "B"], 20), "seed": np.tile(np.arange(20), 2),
                         "score": np.r_[a, x[20:]]})


def _count(frame):
    notes = [n for n in rlstats.build(frame, "score ~ agent").notes if COPIED_RUNS in n]
    return notes[0].split(" runs")[0] if notes else None


def _chance(frame):
    notes = [n for n in rlstats.build(frame, "score ~ agent").notes if COPIED_RUNS in n]
    return notes[0].split(" in each")[0].split("is ")[-1] if notes else None


def test_within_count_unchanged_by_the_maps_stated():
    """The count reads who holds equal scores and whether a score is 0 (``_countable``): unchanged by ``a * y``,
    ``a != 0`` (was 10, 6, 9 at x 1, 1/3, 3.7); by ``y + b`` where no repeated score is 0 or -b; the chance bound
    (E: resolution, spread, ties) unchanged by a power of ten and by a shift by a multiple of the 0.01 step."""
    frame = _within_frame()
    for a in (1.0, 1 / 3, 3.7, -1.0, -2.5, 1e-9, 1e9):
        assert _count(frame.assign(score=frame["score"] * a)) == "10", a
    for b in (-1234.56, 0.005, 1e4 + 0.001, 7.0):
        assert _count(frame.assign(score=frame["score"] + b)) == "10", b
    base = _chance(frame)
    assert base == "at most 6e-39"
    assert [_chance(frame.assign(score=frame["score"] * 10.0 ** k)) for k in (-3, 2, 6)] == [base] * 3
    assert [_chance(frame.assign(score=frame["score"] + b)) for b in (-1234.56, 100.0, 5000.03)] == [base] * 3


def test_the_exception_of_zero():
    """0 is a floor runs reach, never counted; a shift making it a score like the others counts it (the one case
    where ``y + b`` changes the count), and one making a repeated score 0 leaves it out."""
    frame = _within_frame()
    y = frame["score"].to_numpy().copy()
    y[[0, 10]] = 0.0  # a repeated pair of A's runs at 0 (one of the ten copies)
    zeroed = frame.assign(score=y)
    assert _count(zeroed) == "9"
    assert _count(zeroed.assign(score=zeroed["score"] + 0.5)) == "10"
    assert _count(frame.assign(score=frame["score"] - frame["score"].iloc[0])) == "9"


def test_one_rule_within_and_across():
    """A score held by 3 runs (a pile) counts nowhere; 3 blocks read 3 times each count within (a block read k
    times) and across alike."""
    from rlstats.statistics import _countable
    value = np.array([0.0, 1.5, 2.5, 3.5, 4.5, 5.5, 6.5, 7.5])
    cell = np.array([0, 0, 0, 0, 1, 1, 1, 1])
    held = np.array([2, 2, 3, 1, 3, 3, 3, 4])
    assert _countable(value, cell, held).tolist() == [False, True, False, True, True, True, True, False]


# -- two tasks' files one file: the evidence of every agent's pair of cells added up ----------------------------------

def _copied_task(n_agents=300, n_runs=5, seed=0, copy=True):
    """Tasks t1, t2 (and t3, t4) of ``n_agents`` agents x ``n_runs`` runs at 3 decimals (sd 1 about each agent's
    level); t2 a copy of t1 where ``copy``: each pair of cells shares 5 scores, E = 25 x 100 x 0.001 / (2 sqrt(pi))
    = 0.7 with the resolution's margin, not improbable alone among 6 x 300**2 pairs of cells."""
    rng = np.random.default_rng(seed)
    level = rng.uniform(0, 1000, n_agents)
    cells = [np.round(level[:, None] + rng.normal(0, 1, (n_agents, n_runs)), 3) for _ in range(4)]
    if copy:
        cells[1] = cells[0].copy()
    return pd.DataFrame({"task": np.repeat(["t1", "t2", "t3", "t4"], n_agents * n_runs),
                         "agent": np.tile(np.repeat([f"a{i}" for i in range(n_agents)], n_runs), 4),
                         "seed": np.tile(np.arange(n_runs), 4 * n_agents), "score": np.concatenate(cells).ravel()})


def _across(frame, formula="score ~ agent | task"):
    from rlstats.design import COPIED_ACROSS
    return [n for n in rlstats.build(frame, formula).notes if COPIED_ACROSS in n]


def test_a_task_file_read_twice_is_noted_jointly():
    frame = _copied_task()
    notes = _across(frame)
    assert len(notes) == 1 and notes[0].startswith(
        "on t1 and t2, the runs of 300 of the 300 agents on one repeat exactly the scores of the same agent's runs on "
        "the other (1,498 scores shared in all), whose joint chance at the scores' resolution is at most 1e-209, "
        "though no agent's alone is improbable")  # 1,498: two cells hold a score twice by chance
    assert notes[0].endswith("keep one of them (data=df[mask] (a boolean mask of the rows where task != 't2' holds) "
                             "to rlstats.build if t2 is the copy)")  # build takes no subset= (review s28)
    # true of the rows analysed, whatever the units and the order; fewer agents add up less
    scaled = _across(frame.assign(score=frame["score"] * 3.7))  # read at 8 digits: each agent's improbable alone too
    assert len(scaled) == 1 and scaled[0].startswith(notes[0][:notes[0].index("at most")])
    assert "that of 67 of those agents improbable alone too" in scaled[0]
    assert _across(frame.sample(frac=1.0, random_state=1)) == notes
    assert not _across(frame[frame["task"] != "t2"])
    few = _across(frame[frame["agent"].isin([f"a{i}" for i in range(20)])])
    assert len(few) == 1 and few[0].startswith("on t1 and t2, the runs of 20 of the 20 agents")
    for k, said in ((5, False), (10, True)):  # evidence adds up: 5 agents' pairs are not enough, 10 are
        assert bool(_across(frame[frame["agent"].isin([f"a{i}" for i in range(k)])])) is said
    assert not _across(_copied_task(copy=False))


def test_the_joint_bound_by_hand():
    """The Gamma tail against scipy (an independent value), and the whole bound written out on 20 agents."""
    import math
    from scipy import special
    from rlstats.statistics import _log_gamma_tail, copied_runs
    for n, x in ((1, 3.0), (5, 20.0), (300, 900.0), (10_000, 60_000.0)):
        # log P(Gamma(n, 1) >= x) = log(e**-x sum_{j<n} x**j / j!), the Poisson sum in logs (scipy's logsumexp), where
        # scipy's gammaincc underflows to 0 (n = 10,000, x = 60,000: about e**-32,000)
        exact = float(special.logsumexp(-x + np.arange(n) * math.log(x) - special.gammaln(np.arange(1, n + 1))))
        if special.gammaincc(n, x) > 0:
            assert exact == pytest.approx(math.log(special.gammaincc(n, x)), rel=1e-12, abs=1e-12)
        bound = float(_log_gamma_tail(n, x))
        assert exact <= bound <= exact + math.log(x / (x - n + 1)) + 1e-9, (n, x, exact, bound)
    assert float(_log_gamma_tail(10, 5.0)) == 0.0
    frame = _copied_task(n_agents=20)
    design = rlstats.build(frame, "score ~ agent | task")
    n, n_cells = design.n_agents, design.n_tasks * design.n_agents
    values = frame["score"].to_numpy()[design.row_position]
    _, _, found = copied_runs(values, design.task * n + design.agent, n_cells, np.arange(n_cells) // n,
                              across_blocks=True, agent=np.arange(n_cells) % n)
    tasks = found.tasks
    assert tasks.first.tolist() == [0] and tasks.second.tolist() == [1] and tasks.cells.tolist() == [20]
    # by hand: per agent E = 25 x max(100 q / (2 sqrt(pi) sigma), the tasks' tie shares (0 here), the near ties)
    log_p = []
    for a in range(20):
        x = np.sort(frame.loc[(frame["agent"] == f"a{a}") & (frame["task"] == "t1"), "score"].to_numpy())
        sigma = min(x.std(ddof=1), np.subtract(*np.percentile(x, [75, 25])) / 1.349)
        q = 10.0 ** np.median(np.floor(np.log10(np.abs(x))) - [len(f"{v:.3f}".replace(".", "").lstrip("0")) - 1
                                                                    for v in x])
        near = max(float(((np.abs(x[:, None] - x[None, :]) > 0)
                          & (np.abs(x[:, None] - x[None, :]) <= (k + .5) * q)).sum()) / (2 * k)
                   for k in (1, 3, 10, 30, 100, 300, 1000))
        e = max(25 * 100 * q / (2 * math.sqrt(math.pi) * sigma), near)
        m = np.unique(x).size  # distinct scores shared (a score held twice in a cell is one)
        log_p.append(min(0.0, m * math.log(e) - math.lgamma(m + 1)))
    x = -sum(log_p)
    assert tasks.chance[0] == pytest.approx(math.exp(-x + 19 * math.log(x) - math.lgamma(20) + math.log(x / (x - 19))),
                                            rel=1e-9)


def test_vectorised_parts_equal_the_per_cell_ones():
    """(s27, copies27: the per-cell ``_spread`` and ``_near_ties_between`` they were checked against are gone; the
    per-cell values are written here: the spreads by Python's statistics module (equal to rounding), the near ties by
    counting pairs, bit for bit.)"""
    import statistics

    from rlstats.statistics import _near_ties_cells, _spreads
    rng = np.random.default_rng(4)
    sizes = rng.integers(2, 12, 40)
    c = np.repeat(np.arange(40), sizes)
    v = np.concatenate([np.sort(np.round(rng.normal(0, 3, k), 1)) for k in sizes])
    lo, hi = np.searchsorted(c, np.arange(40), "left"), np.searchsorted(c, np.arange(40), "right") - 1
    cells = np.arange(40)

    def spread(x):  # Python's statistics module, not numpy's std and percentile (the calls the code makes)
        q1, _, q3 = statistics.quantiles(x.tolist(), n=4, method="inclusive")  # numpy's default (linear) quantiles
        return min(statistics.stdev(x.tolist()), (q3 - q1) / 1.349)

    def near_between(x, z, q):
        d = np.abs(x[:, None] - z[None, :])
        return max(float(((d > 0) & (z[None, :] <= x[:, None] + (k + .5) * q)
                          & (z[None, :] >= x[:, None] - (k + .5) * q)).sum()) / (2 * k)
                   for k in (1, 3, 10, 30, 100, 300, 1000))

    np.testing.assert_allclose(_spreads(v, lo[cells], hi[cells]), [spread(v[lo[k]:hi[k] + 1]) for k in cells],
                               rtol=1e-12, atol=1e-15)
    a, b = rng.integers(0, 40, 60), rng.integers(0, 40, 60)
    step = np.full(60, 0.1)
    def near_within(x, q):  # each pair of runs once
        return max(float(((x[None, :] > x[:, None]) & (x[None, :] <= x[:, None] + (k + .5) * q)).sum()) / (2 * k)
                   for k in (1, 3, 10, 30, 100, 300, 1000))

    a[:5] = b[:5]  # and within cells
    assert _near_ties_cells(v, c, a, b, step).tolist() == [
        near_within(v[lo[i]:hi[i] + 1], 0.1) if i == j else near_between(v[lo[i]:hi[i] + 1], v[lo[j]:hi[j] + 1], 0.1)
        for i, j in zip(a, b)]


def test_no_joint_note_on_coarse_or_capped_scores():
    """Integer game scores, a cap half the runs reach, and scores at 1 decimal: tasks share scores by chance, over
    hundreds of agents, and no pair of tasks is noted."""
    rng = np.random.default_rng(9)
    n_agents, n_runs = 200, 5
    shape = (4, n_agents, n_runs)
    level = rng.uniform(0, 300, n_agents)[None, :, None]
    games = np.round(level + rng.normal(0, 20, shape))
    capped = np.where(rng.random(shape) < 0.5, 500.0, np.round(np.minimum(level + 200 + rng.normal(0, 30, shape),
                                                                         499.99), 2))
    tenths = np.round(level + rng.normal(0, 2, shape), 1)
    for y in (games, capped, tenths):
        frame = pd.DataFrame({"task": np.repeat(["t1", "t2", "t3", "t4"], n_agents * n_runs),
                              "agent": np.tile(np.repeat(np.arange(n_agents), n_runs), 4),
                              "seed": np.tile(np.arange(n_runs), 4 * n_agents), "score": y.ravel()})
        assert not _across(frame)


def test_the_loader_note_of_identical_files():
    """The note the loader sets, from the pins (cheap: no file read), and said again only of two of them."""
    from rlstats.datasets._hpo import _identical_notes, _reword_identical
    (note,) = _identical_notes()
    assert note.items == (((IDENTICAL[0],), None), ((IDENTICAL[1],), None))
    assert note.data == "0bc5fe5db5f21bfb27fa044405af7c9e508050eaa4b94d2acef9fbadb19a8b1c"
    assert _reword_identical(note, note.items[:1], 10) is None
    assert _reword_identical(note, note.items, 10) == note.text


@pytest.mark.slow
def test_loader_says_the_files_are_identical(mirror):
    land = rlstats.datasets.load("hpo_landscapes")
    notes = land.attrs.get("rlstats_notes", ())
    assert notes == (
        "landscapes learning-rate_angle-weight and learning-rate_distance-weight are the same numbers: the published "
        "files learning-rate_angle-weight.csv and learning-rate_distance-weight.csv (in ADA-research/combined_hpo_and_"
        "reward_shaping/0012b924873a42c3b9a9d0c9766f0b0f92d767aa/experimental_results/landscape_analysis/) are "
        "byte-identical (SHA-256 0bc5fe5db5f21bfb27fa044405af7c9e508050eaa4b94d2acef9fbadb19a8b1c), a defect of the "
        "published data, so each configuration's 10 runs there are one set of runs read twice; analyse one of them",)
    # said while both are analysed, not of one alone
    both = rlstats.build(land[land["landscape"].isin(IDENTICAL)], "score ~ config | landscape").notes
    assert notes[0] in both
    one = rlstats.build(land[land["landscape"] != IDENTICAL[0]], "score ~ config | landscape").notes
    assert not [n for n in one if "byte-identical" in n]
