"""Review s36 (rv36a) of the branches meta36 and small36.

1. equivalence's tie tolerance of a difference of means came from every agent's scores on a task, and the mean over
   tasks' from the largest task's: agent C's one run at 1e9 zeroed A - B's difference of 1e-4 there and withheld the
   paired t over tasks (A - B's rows must not depend on C at all).
2. The Wilcoxon post hoc of the rank test tied |d| within twice the largest task's tolerance of every agent's cells,
   chained: C's run at 1e9 took A - B from V = 36, p = 1/128 to V = 0, p = 1.
3. selection_check(effect="std_diff") read effects 1e8 * (1, 1.00005, 1.0001, ...) (within-cell sd 1e-8) as one value:
   its tolerance grew with the effects' size squared.
4. The command rebuilt by small36 read the flags by their exact spelling, where argparse takes an abbreviation
   (``--meth bootstrap``): the command suggested was broken, or dropped the file.
5. normalize()'s factor (x 100) was recognised only where a row holding one of the 8 largest values survived.
6. ValuesAt.factor hashed the rows 73 times per build of a changed normalised frame.
"""

import shlex
import warnings

import numpy as np
import pandas as pd
import pytest

import rlstats
from rlstats.cli import main

F = "score ~ agent | task"


def _three_agents(c_run, deltas=(2e-4, 4e-4, 6e-4, 8e-4, 1e-4)):
    """A - B = deltas[t] on every run of task t; C's first run of task 4 is ``c_run``."""
    rng = np.random.default_rng(3)
    rows = []
    for t, delta in enumerate(deltas):
        a, c = rng.uniform(0.4, 0.6, 5), rng.uniform(0.4, 0.6, 5)
        if t == 4:
            c[0] = c_run
        for s in range(5):
            rows += [("A", f"t{t}", s, a[s] + delta), ("B", f"t{t}", s, a[s]), ("C", f"t{t}", s, c[s])]
    return pd.DataFrame(rows, columns=["agent", "task", "seed", "score"])


def _quiet(f, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return f(*args, **kwargs)


# 1. equivalence: the tolerance of a pair's difference comes from the pair's own scores, task by task

@pytest.mark.parametrize("across", ["paired_t", "welch"])
def test_equivalence_pair_rows_do_not_read_a_third_agent(across):
    def rows(c_run):
        tidy = _quiet(rlstats.equivalence, _three_agents(c_run), F, margin=0.05, across=across,
                      aggregate=None).tidy()
        return tidy[(tidy.agent_1 == "A") & (tidy.agent_2 == "B")].reset_index(drop=True)

    plain, far = rows(0.5), rows(1e9)
    assert plain["estimate"].iloc[:5].to_numpy() == pytest.approx([2e-4, 4e-4, 6e-4, 8e-4, 1e-4], rel=1e-9)
    assert plain["estimate"].iloc[5] == pytest.approx(4.2e-4, rel=1e-9)
    for column in ["estimate", "std_error", "statistic", "p_value"]:
        assert far[column].to_numpy() == pytest.approx(plain[column].to_numpy(), rel=1e-9, nan_ok=True), column
    if across == "paired_t":  # sd of the five differences / sqrt(5): 1.581e-4 / 2.236
        assert far["std_error"].iloc[5] == pytest.approx(np.std([2e-4, 4e-4, 6e-4, 8e-4, 1e-4], ddof=1) / np.sqrt(5),
                                                         rel=1e-6)


# 2. the Wilcoxon post hoc: the pair's own cells, no chain beyond the tolerance

def test_wilcoxon_post_hoc_pair_does_not_read_a_third_agent():
    deltas = (2e-4, 4e-4, 6e-4, 8e-4, 1e-4, 3e-4, 5e-4, 7e-4)
    said = {}
    for c_run in (0.5, 1e9):
        tidy = _quiet(rlstats.skillings_mack, _three_agents(c_run, deltas), F, posthoc="wilcoxon",
                      within_cell="mean").tidy()
        row = tidy[(tidy.agent_1 == "A") & (tidy.agent_2 == "B")].iloc[0]
        said[c_run] = row["statistic"], row["p_value"]
    # 8 tasks, all A > B, distinct |d|: V = 36, exact two-sided p = 2 / 2^8
    assert said[0.5] == (36.0, pytest.approx(2 / 256))
    # C's cell mean 2e8 on t4: A - B's 1e-4 there is within 1e-12 of the task's range, a tie of the task's ranks
    # (issue 39's rule, as before meta36); the other 7 differences stay apart: V = 28 of ranks 1..7, and with one
    # zero the normal approximation with continuity correction, z = (28 - 14 - 0.5) / sqrt(7 * 8 * 15 / 24)
    from scipy.stats import norm
    assert said[1e9] == (28.0, pytest.approx(2 * norm.sf(13.5 / np.sqrt(35)), rel=1e-9))


def test_the_tie_groups_do_not_chain():
    from rlstats.statistics import difference_ties

    # steps of 0.6 tolerance: 1, 1.6, 2.2, 2.8 -> groups {1, 1.6}, {2.2, 2.8}, each member within 1 of its first
    # (shifted from 0 by rvfix36: a 0 takes only the values within their own tolerance of 0)
    snapped = difference_ties([2.8, 1.0, 2.2, 1.6], [0.5, 0.5, 0.5, 0.5])
    assert snapped.tolist() == [2.2, 1.0, 2.2, 1.0]


# 3. selection_check(effect="std_diff"): the tolerance of d = difference / sd is tol / sd + |d| tol(sd) / sd

def _near_deterministic():
    rows = []
    for t, step in enumerate([1.0, 1.00005, 1.0001, 0.99995, 1.00002, 0.99997]):
        for s, noise in enumerate([-1e-8, 0.0, 1e-8]):
            rows += [("A", f"t{t}", s, 5.0 + noise), ("B", f"t{t}", s, 5.0 + step + noise)]
    return pd.DataFrame(rows, columns=["agent", "task", "seed", "score"])


def test_selection_std_diff_of_near_deterministic_runs():
    def statistic(effect):
        result = _quiet(rlstats.selection_check, _near_deterministic(), F, treatment="B", baseline="A",
                        reported=["t0", "t1", "t2"], effect=effect, inspector="t", reporter="t")
        return result.tidy()["statistic"].iloc[0]

    # every task's pooled sd is the same (1e-8): the standardised effects are the differences / 1e-8, same t
    assert statistic("mean_diff") == pytest.approx(1.96683, rel=1e-4)
    assert statistic("std_diff") == pytest.approx(statistic("mean_diff"), rel=1e-6)


# 4. the command rebuilt: each flag typed read as argparse reads it

def _suggested(argv, capsys):
    with pytest.raises(SystemExit):
        main(argv)
    said = " ".join(capsys.readouterr().err.split())
    return said


def test_an_abbreviated_flag_is_rebuilt_as_argparse_reads_it(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    rlstats.datasets.simulate(agents=2, tasks=1, seeds=5, rng=0).to_csv("d3.csv", index=False)
    # the formula first, --meth for --method
    try:
        main(["compare", "score ~ agent", "d3.csv", "--meth", "bootstrap", "-o", "n_resamples=60"])
    except SystemExit:
        pass
    said = " ".join(capsys.readouterr().err.split())
    command = "rlstats compare --method bootstrap -o n_resamples=60 d3.csv 'score ~ agent'"
    assert said.endswith(f"the file comes first on the command line: {command}")
    assert main(shlex.split(command)[1:]) == 0 and "resamples = 60" in capsys.readouterr().out
    # --formula typed as a flag after an abbreviated one: the file kept
    said = _suggested(["compare", "--meth", "bootstrap", "--opt", "n_resamples=60", "--formula", "score ~ agent",
                       "d3.csv"], capsys)
    command = command.replace("-o ", "--option ")  # --opt: the one long option it begins
    assert said.endswith(f"FORMULA is the second positional argument: {command}; see rlstats compare --help")
    assert main(shlex.split(command)[1:]) == 0 and "resamples = 60" in capsys.readouterr().out
    # an abbreviation of two options is none: argparse refuses it, and no command is rebuilt around it
    said = _suggested(["compare", "--s", "1", "--formula", "score ~ agent", "d3.csv"], capsys)
    assert "ambiguous option: --s could match" in said


def test_an_unknown_option_is_not_rebuilt(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    rlstats.datasets.simulate(agents=2, tasks=1, seeds=5, rng=0).to_csv("d3.csv", index=False)
    said = _suggested(["compare", "--title", "x", "--formula", "score ~ agent", "d3.csv"], capsys)
    # no command rebuilt around an option the parser does not know: its usage instead
    assert "rlstats compare --title" not in said
    assert "FORMULA is the second positional argument: rlstats compare [-h] [--method METHOD]" in said
    said = _suggested(["compare", "--method", "bootstrap", "--formula", "score ~ agent"], capsys)
    assert said.endswith("FILE is missing: rlstats compare --method bootstrap FILE 'score ~ agent' (--formula is no "
                         "flag of rlstats compare: FORMULA is the second positional argument); see rlstats compare "
                         "--help")


# 5. normalize()'s factor: recognised on the rows kept, whichever they are

def _with_best():
    rng = np.random.default_rng(0)
    tasks = [f"g{i}" for i in range(5)]
    rows = [(t, a, s, rng.normal(100 * (1 + i) * {"A": 0.5, "B": 0.6, "Best": 3.0}[a], 5))
            for i, t in enumerate(tasks) for a in ["A", "B", "Best"] for s in range(5)]
    df = pd.DataFrame(rows, columns=["task", "agent", "seed", "score"])
    reference = pd.DataFrame({"task": tasks, "low": 0.0, "high": [100.0 * (1 + i) for i in range(5)]})
    return rlstats.normalize(df, reference, low="low", high="high")


def test_a_factor_recognised_without_the_largest_rows():
    pct = _with_best().pipe(lambda f: f.assign(score=f.score * 100))
    for kept in (pct, pct[pct.agent != "Best"], pct[pct.seed < 2], pct[pct.task == "g0"]):
        design = rlstats.build(kept, F)
        assert design.normalized and design.notes[-1].endswith("times 100)")


# 6. the cost of a changed normalised frame: the rows hashed a bounded number of times

def test_a_changed_frame_is_hashed_a_few_times(monkeypatch):
    from rlstats import provenance

    frame = _with_best()
    calls = []
    original = provenance._hashes_of
    monkeypatch.setattr(provenance, "_hashes_of", lambda hashed, n: calls.append(n) or original(hashed, n))
    assert not rlstats.build(frame.assign(score=frame.score + 1), F).normalized
    # the rows once, their keys once (the record's row anchors), then every candidate factor's quotient of 64 rows
    # at once (8 from the largest values, 8 from the rows the record names), then their rounding steps at once (was
    # 73 hashings, 8 anchors x 9 steps + 1)
    assert calls == [75, 75, 16 * 64, 8 * 16 * 64]
    calls.clear()
    assert rlstats.build(frame.assign(score=frame.score * 100), F).normalized
    assert len(calls) <= 6 and max(calls) <= 8 * 16 * 64
