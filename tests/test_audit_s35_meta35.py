"""Audit s35 (meta35): metamorphic relations on the option paths the earlier sweeps (test_metamorphic, s9-s34 meta
files) left out, in units, row order, frame library, label dtype and spelling, the sign of the score with
higher_is_better flipped, and the command line's CSV against Parquet.

Swept (scratch, not committed; s34's checker, each number following its column's transform to 1e-9, and the printed
text with its numbers masked): curves with compare="all" or a pair and a steps= grid; summarize_runs' final and
time_to_threshold on a steps= grid; tuning's best_set, expected_max and complete with higher_is_better=False; power()
from an unbalanced pilot (the bootstrap); selection_check with mu_gap= and sigma= in the score's units and with
heldout=; equivalence with published= (equivalence and non-inferiority) and non-inferiority against control= with
higher_is_better=False; bayes' hierarchical model with rope= and control=; AdaStop with batch=; percentiles' pbp_t
with higher_is_better=False; the task table with a normalize= reference frame and with "minmax" -- under the score x
7.3 + 1e6 as a pyarrow Table of categoricals with the rows shuffled, x 1e-6, x 1e6, + 7.3, + 1e6, shuffled rows,
categoricals, polars and string[pyarrow]. The command line (compare with bootstrap, equivalence, skillings_mack,
task_table, mixed, percentiles, bayes, adastop with batch=; --summarize auc and time_to_threshold; power --pilot)
printed the same bytes on a CSV, a Parquet file, a Parquet file of text seeds and one of categorical labels.
read_logs of CSV logs written in other units (x 7.3 + 1e6, seed folders spelt otherwise) then summarize_runs,
bootstrap and curves(compare="all"), with and without smooth=: every number followed the units to 2e-14. Agents and
tasks renamed so that they sort in reverse: the deterministic paths (the task table, Brunner-Munzel, equivalence with
published= and control=, the mixed model, the rank test's Conover post hoc, time_to_threshold keyed by task, the
percentiles' payoffs, selection_check with heldout=) gave the same numbers, their print the same but for column
widths; curves' bands and the signed-rank model's probabilities moved within their Monte Carlo error (their streams are
keyed by the labels' text, rlstats/README.md: a renamed agent or task draws its new name's numbers; curves' band of
agent_3 at rng=1 renamed lay within the spread of rng=2..5). -score with higher_is_better=False against the score:
the same p-values, decisions and intervals mirrored on every path above.

Found (reproducers below):

* equivalence(published=) matched the table's tasks to the data's by their text (str()), a second rule beside
  errors.label_named's (9, 9.0 and "9" name the task printed 9): data whose task column is float (1.0, ...) with a
  published table of int tasks (1, ...) was a DesignError, "the published table has no row for 5 tasks of the data:
  '1.0', ...", while the same data with int or text task columns was compared. Fixed: each published row's task is
  read by errors.label_named (two rows naming one task refused, rows naming none left out with the note as before).
* bayes' hierarchical model: scores shifted by 1e4 or more (raw Atari-sized scores) moved its posterior by Monte Carlo
  error, not by rounding: p_better 0.6384 -> 0.6397 (+ 1e4), estimate 0.4986 -> 0.5171; at + 1e6, 0.6384 -> 0.6378 and
  0.4986 -> 0.5119 (2 chains of 200 draws, rng=1; the shifted scores' differences are the data's to about 1e-12
  relative). Its Gibbs sampler amplifies a perturbation of the standardised sums of 1e-11 to 2.4e-5 in delta0
  (measured: pair agent_3 vs agent_1, chain 0), so a Metropolis or rejection decision flips and the chains part.
  s24 and s30 recorded the model's rounding drift as 2e-8 relative under other units (x 7.3: 1.1e-8 here, held);
  a shift was not tried. Left as a strict xfail here; fixed in audit s36 (bayes36): the sampler reads the
  standardised sums, squares and delta0's bound snapped to a grid of 2^-20 of the pair's scale (a step of at most
  2^-20 of the value for the squares and bound, ``bayes._kernels.snapped``), far coarser than a shift's rounding and
  far finer than the posterior resolves, so the shifted scores give the same draws bit for bit (the test below passes).
* Every format prints a number at DIGITS = 5 significant digits by R's format() rule (format.signif): scores shifted
  by 1e6 print the bootstrap's agent_1 mean 1000015.133 [1000009.749, 1000021.904] as "1e+06 1e+06 1e+06" (R prints
  the same: format(c(1000015.133, 1000009.749, 1000021.904), digits = 5)), and to_latex() moves the estimate and
  bounds into the caption ("In every row, ... estimate: 1e+06"), the table left with the standard errors; curves,
  equivalence and the task table's cells alike. At + 1e5 the print holds (100015, 100010, 100022: fixed notation
  keeps the integer digits). Fixed (audit s35 digits35): levels reaching 1e5 print to the integer digits of the largest
  and so that their smallest spread shows to 3 significant digits (format.level_digits, read by format._formatted for
  every table and by the prose of the results that print levels): 1000015.13 [1000009.75, 1000021.9].
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import rlstats

F = "score ~ agent | task"


from test_audit_s34_meta34 import _runs  # noqa: E402  the unbalanced 3 x 5 runs meta34 sweeps (one home)


# --------------------------------------------------------------------- found: published= read by the one label rule

def _int_tasks():
    df = _runs()
    return df.assign(task=df["task"].str[-2:].astype(int))


PUBLISHED = pd.DataFrame({"task": [1, 2, 3, 4, 5], "mean": [0.1, 0.3, -0.2, 0.5, 0.0],
                          "sd": [1.0, 0.8, 1.2, 0.9, 1.1], "n": [5, 5, 6, 4, 5]})


def _published(df, table=PUBLISHED):
    return rlstats.equivalence(df, F, margin=0.5, published=table, aggregate=None).tidy()


@pytest.mark.parametrize("dtype", [float, "category"])
def test_published_tasks_are_read_as_the_data_print_them(dtype):
    """Tasks as int, float or a Categorical of floats, and the table's as int or float: the same tests."""
    df = _int_tasks()
    base = _published(df)
    other = _published(df.astype({"task": float}).astype({"task": dtype}))
    np.testing.assert_allclose(other["p_value"], base["p_value"], rtol=1e-12)
    np.testing.assert_allclose(other["estimate"], base["estimate"], rtol=1e-12)
    floats = _published(df, PUBLISHED.astype({"task": float}))  # the table's tasks as 1.0, 2.0, ...
    np.testing.assert_allclose(floats["p_value"], base["p_value"], rtol=1e-12)


# ------------------------------------------------------------------ found: left (the hierarchical model's chains)

def _hierarchical(df):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return rlstats.bayes(df, "score ~ agent | task/seed", model="hierarchical", rope=0.1, control="agent_1",
                             chains=2, warmup=100, draws=200, rng=1).tidy()


@pytest.mark.slow  # about 13 s: the model refits at longer chains where R-hat asks (warmup >= 100, chains >= 2)
def test_hierarchical_model_under_a_shift_of_the_scores():
    df = _runs()
    base = _hierarchical(df)
    other = _hierarchical(df.assign(score=df["score"] + 1e4))
    np.testing.assert_allclose(other["p_better"], base["p_better"], rtol=1e-6)
    np.testing.assert_allclose(other["estimate"], base["estimate"], rtol=1e-6)


def test_published_rows_naming_one_task_twice_or_none():
    df = _int_tasks()
    twice = pd.concat([PUBLISHED, PUBLISHED.iloc[:1].astype({"task": str})], ignore_index=True)  # 1 and "1"
    with pytest.raises(rlstats.OptionError, match="lists task '1' more than once"):
        _published(df, twice)
    extra = pd.concat([PUBLISHED, PUBLISHED.iloc[:1].assign(task=9)], ignore_index=True)
    result = rlstats.equivalence(df, F, margin=0.5, published=extra, aggregate=None)
    assert any("1 task of the published table not in the data left out: 9" in n for n in result.notes)
    np.testing.assert_allclose(result.tidy()["p_value"], _published(df)["p_value"], rtol=1e-12)
    padded = df.assign(task=df["task"].map("{:02d}".format))  # text '01' is not the number 1: no row for it
    with pytest.raises(rlstats.DesignError, match="no row for 5 tasks of the data: '01'"):
        _published(padded)


# ------------------------------------------------------- found: a shift of the scores printed every level as 1e+06

def _shifted_bootstrap(shift):
    df = _runs()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return rlstats.bootstrap(df.assign(score=df["score"] + shift), F, metrics=("mean",), n_resamples=200, rng=1)


def test_a_shift_of_the_scores_keeps_the_printed_levels_apart():
    result = _shifted_bootstrap(1e6)
    row = result.tidy().iloc[0]
    cells = next(line for line in str(result).splitlines() if line.startswith("agent_1")).split()
    assert cells[3] != cells[4]  # the interval's bounds read apart, as they do unshifted
    assert float(cells[2]) == pytest.approx(row["estimate"], abs=0.05)
    assert "estimate: 1e+06" not in result.to_latex()
