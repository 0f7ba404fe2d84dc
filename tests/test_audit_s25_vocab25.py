"""Audit s25 vocab25: a LaTeX table pasted into a paper says its columns and the codes its caption names in words.

Columns outside the vocabulary printed as their codes in AdaStop's and the permutation test's LaTeX tables and
captions (``max\\_statistic``, ``paths\\_beyond``, ``n\\_available``), the selection check's captions named its effect
``(mean\\_diff, ...)`` and its interval ``(conf\\_low, Inf)``, the probability of improvement's ``P(agent\\_1 $>$
agent\\_2)``, the inferential intervals' ``optimality\\_gap``, a power study's ``method: skillings\\_mack`` and the
Bayesian test's ``model: signed\\_rank``. The survey below builds every back end's result (and the other results:
power studies, inferential intervals, the hierarchical model, AdaStop with early acceptance and per task) on small
generated data whose agents and tasks carry no underscore, and reads every LaTeX header, caption and cell for a
snake_case code or a Python spelling; every column of every summary table must have a label in the vocabulary, so a
new column without one fails here. tidy(), to_dict() and CSV keep the codes.
"""

from __future__ import annotations

import re

import pandas as pd
import pytest

import rlstats
# the option paths of meta24 and meta25 join meta.CASES when imported: both imported here, so the survey holds them
# whichever files run and in what order (audit s25 review25d: alone it had left out meta24's 19)
import test_audit_s24_meta24 as meta24
import test_audit_s25_meta25 as meta25
import test_metamorphic as meta
from rlstats import vocabulary

#: what a LaTeX table should not print: a snake_case code (escaped "\_" between letters), an option's "name=", a
#: call's "name()" and Python's constants
_CODE = re.compile(r"[A-Za-z0-9]+(?:\\_[A-Za-z0-9]+)+|\w+=|\w+\(\)|\b(?:None|True|False)\b")
#: data, not code: the tuning sweep's configurations are named by the data's column and value ("lr=0.01"), and
#: the agents and tasks power() simulates are simulate()'s ("agent_1", "task_01")
_DATA = re.compile(r"lr=|(agent|task)\\_\d+")


def _named(name):
    return name.replace("agent_", "Ag").replace("task_", "T")


def _relabelled(df):
    out = df.copy()
    for column in ("agent", "task"):
        out[column] = out[column].astype(str).map(_named)
    return out


class _Same:
    """The metamorphic cases' transformation that changes nothing but the names (agent_1 -> Ag1)."""
    names = staticmethod(_named)
    factor = 1.0
    shift = 0.0
    column = "score"


def _runs():
    return _relabelled(meta._runs())


CASES = {name: (lambda data=data, call=call: call(_relabelled(data()), _Same()))
         for name, (data, call) in meta.CASES.items()}
CASES.update({
    # (the joint relabelling, the default when these were written: audit s29b made holm the default)
    "adastop_beta": lambda: rlstats.compare(_runs(), "score ~ agent | task", method="adastop", rng=1, beta=0.01, n=2,
                                            n_resamples=200, permutations="joint"),
    "permutation_one_task": lambda: rlstats.compare(_runs(), "score ~ agent", subset="task == 'T01'",
                                                    method="permutation", rng=1, n_resamples=200,
                                                    permutations="joint"),
    "selection_poi": lambda: rlstats.selection_check(_runs(), "score ~ agent | task", treatment="Ag3",
                                                     baseline="Ag1", reported=["T01", "T02", "T03"], effect="poi",
                                                     rng=1),
    "inferential_intervals": lambda: rlstats.bootstrap(_runs(), "score ~ agent | task", n_resamples=100,
                                                       rng=0).inferential_intervals("Ag1", "Ag2"),
    "power": lambda: rlstats.power("skillings_mack", effect=0.5, seeds=[3, 5], n_sim=4, progress=False, rng=0),
    # effect 0.7 (1.0 until audit s35): on audit s35's data sets effect 1 reaches 0.5 at 2 seeds, where the search
    # starts, whose caption names min_seeds as code (tests/test_audit_s35_power35.py: a strict xfail)
    "sample_size": lambda: rlstats.sample_size("skillings_mack", 0.5, effect=0.7, n_sim=4, progress=False, rng=0,
                                               max_seeds=4),
})
#: the bootstrap's contract case (its default resamples) takes 1.5 to 5 s: its tables are bootstrap_bca's and
#: bootstrap_minmax's, in the default run
SLOW = {"bootstrap": CASES.pop("bootstrap"),
        "bayes_hierarchical": lambda: rlstats.bayes(_runs(), "score ~ agent | task/seed", rng=1, rope=0.1,
                                                    model="hierarchical", chains=2)}
SLOW.update({case: CASES.pop(case) for case in sorted(meta24.SLOW_CASES)})  # a Gibbs sampler's chains
assert {f"s25_{case}" for case in meta25.SWEEP} <= set(meta.CASES)  # meta25's paths joined the survey's source
# meta24's and meta25's option paths (57 cases, ~4 s) run with -m slow; the default run surveys each back end's
# own case, and test_audit_s25_vocab25b.py the labels those paths first showed missing (lead, s25: suite budget)
SLOW.update({case: CASES.pop(case) for case in sorted(CASES) if case.startswith(("s24_", "s25_"))})


def codes_printed(result):
    """Every code or Python spelling in the result's LaTeX headers, captions and cells, as (where, text)."""
    tex = result.to_latex()
    places = {"header": re.findall(r"\\toprule\n(.*?)\\\\\n\\midrule", tex, re.S),
              "caption": re.findall(r"\\caption\{(.*?)\}\n", tex, re.S),
              "cell": re.findall(r"\\midrule\n(.*?)\\bottomrule", tex, re.S)}
    return sorted({(where, code) for where, texts in places.items() for text in texts
                   for code in _CODE.findall(text) if not _DATA.fullmatch(code)})


def unlabelled_columns(result):
    """The columns of the result's summary tables that the vocabulary gives no label (a table whose columns after
    the first are the data's agents, the task table's, excepted)."""
    missing = []
    for name, table in result.summary().tables.items():
        columns = table.columns[:1] if table.attrs.get("rlstats_label_columns") else table.columns
        missing += [(name, column) for column in vocabulary.unknown_columns(columns)]
    return missing


def _survey(make):
    result = make()
    if isinstance(result, pd.DataFrame):  # a function returning data (summarize_runs, align_steps, normalize)
        return [], []
    return codes_printed(result), unlabelled_columns(result)


#: meta25's option paths join the survey (lead, s25); power's pilot settings and the selection check's held-out
#: reporter and p-value method printed codes until vocab25b gave them labels (test_audit_s25_vocab25b.py)
@pytest.mark.parametrize("case", sorted(CASES))
def test_latex_says_every_column_and_code_in_words(case):
    assert _survey(CASES[case]) == ([], [])


@pytest.mark.slow
@pytest.mark.parametrize("case", sorted(SLOW))
def test_latex_says_every_column_and_code_in_words_slow(case):
    assert _survey(SLOW[case]) == ([], [])


def test_every_label_is_words():
    """A label is what a paper prints: no underscore (the selection check's mu_gap was labelled "mu_gap")."""
    labels = [term.label for term in vocabulary.VOCABULARY.values()]
    labels += [said for codes in vocabulary.VALUE_LABELS.values() for said in codes.values()]
    assert [said for said in labels if "_" in said or said.endswith(("=", "()"))] == []


def test_adastop_tables_and_captions_before_and_after():
    res = CASES["adastop_beta"]()
    tex = res.to_latex()
    # (before: "max\\_statistic & min\\_statistic", "paths\\_beyond: ...", "n\\_available: runs given")
    assert "task & interim & boundary & accept boundary & max. statistic & min. statistic \\\\" in tex
    assert "task & interim & level & accept level \\\\" in tex
    assert "In every row, batch size: 2; paths: 200; exact: no; paths beyond: 5; interim level: 0.025." in tex
    assert "In every row, runs: 4; available: 4." in tex
    assert ("paths beyond: permutation paths allowed above the boundary, of the paths; interim level: the level of "
            "that interim, paths beyond / paths; level: cumulated up to it.") in tex
    assert "runs: runs the test used; available: runs given; mean: of the runs used." in tex
    assert ("max. statistic and min. statistic: the largest and smallest \\textbar{}mean difference\\textbar{} among "
            "them; action: reject") in tex
    perm = CASES["permutation_one_task"]()
    assert "adj. p-value: the step-down adjusted p-value." in perm.to_latex()
    # the machine record keeps the codes: the summary's tables, the text the print and Markdown show, to_dict
    steps = res.summary().tables["Step-down"]
    assert {"max_statistic", "min_statistic", "accept_boundary"} <= set(steps.columns)
    assert {"paths_beyond", "n_paths", "level_interim"} <= set(res.summary().tables["Level spent per interim"])
    assert "max_statistic" in res.to_markdown() and "paths_beyond" in str(res.summary())
    assert "max_statistic" in res.to_dict()["steps"]["columns"]


def test_selection_caption_says_the_effect_and_interval_in_words():
    res = CASES["selection"]()
    captions = [line for line in res.to_latex().splitlines() if line.startswith("\\caption")]
    assert "Per-task effects (mean difference, Ag3 vs Ag1)." in captions[0]
    assert "Mean effect by set (mean difference, Ag3 vs Ag1)." in captions[1]
    assert "Reported: a one-sided 95\\% interval (lower, Inf)" in captions[1]
    assert "(mean_diff, Ag3 vs Ag1)" in str(res.summary())  # the print keeps the code, as its columns do
    assert res.glance()["effect_measure"].iloc[0] == "mean_diff" and res.to_dict()["effect_measure"] == "mean_diff"
    poi = CASES["selection_poi"]()
    assert "Per-task effects (probability of improvement, Ag3 vs Ag1)." in poi.to_latex()


def test_probability_of_improvement_and_inferential_intervals_captions():
    poi = CASES["probability_of_improvement"]()
    tex = poi.to_latex()
    said = "P(1st agent $>$ 2nd agent) + P(1st agent = 2nd agent) / 2 within a task, averaged over tasks."
    assert said in tex
    # text: the pair's columns are headed by their labels in every format (audit s27), and so said
    assert "P(1st agent > 2nd agent) + P(1st agent = 2nd agent) / 2" in str(poi.summary())
    ici = CASES["inferential_intervals"]().to_latex()
    assert "epsilon (IQM: " in ici and "optimality gap: " in ici and "optimality\\_gap" not in ici


def test_power_and_bayes_state_codes_as_labels():
    res = CASES["power"]()
    assert "method: blocked rank test;" in res.to_latex() and "skillings" not in res.to_latex()
    assert set(res.tidy()["method"]) == {"skillings_mack"}  # the machine record: the code
    assert "skillings_mack" in res.tidy().to_csv(index=False)
    bayes = CASES["bayes"]()
    assert "model: signed-rank." in bayes.to_latex() and set(bayes.tidy()["model"]) == {"signed_rank"}


def test_selection_figure_says_the_effect_in_words():
    ax = CASES["selection"]().plot()
    assert ax.get_xlabel().replace("\n", " ").startswith("per-task effect (mean difference: Ag3 vs Ag1")


# ------------------------------------------------------------------------------------------------ figures

def _complete_withheld():
    from test_audit_s25_out25 import _untuned
    # two learning rates a sweep (the seeds' parity): each agent one configuration is refused (new-user trial s38)
    return rlstats.tuning(_untuned(["agent_1", "agent_2"], ["task_01"]).assign(lr=lambda d: d.seed % 2),
                          "score ~ agent | task/seed", config="lr", rng=0, n_resamples=200, progress=False)


def test_tuning_complete_title_breaks_evenly_at_a_column_width():
    """At 3.3 x 1.8 in the title "task_01 / intervals withheld / (fewer than 30 configurations; see the notes)" was
    broken again on its third line, "notes)" alone on a fourth; it is now one line after the task's, broken as evenly
    as two lines can be, and one line at 6.9 in."""
    from conftest import drawn_outside

    res = _complete_withheld()
    ax = res.plot(kind="complete", figsize=(3.3, 1.8))
    lines = ax.get_title().split("\n")
    assert lines[0] == "task_01" and len(lines) == 3, lines
    assert " ".join(lines[1:]) == "intervals withheld (fewer than 30 configurations; see the notes)"
    assert min(len(line) for line in lines[1:]) >= 0.6 * max(len(line) for line in lines[1:]), lines
    assert drawn_outside(ax.figure) == (0.0, 0.0, 0.0, 0.0)
    wide = res.plot(kind="complete", figsize=(6.9, 1.8))
    assert wide.get_title() == "task_01\nintervals withheld (fewer than 30 configurations; see the notes)"


def test_text_broken_at_the_plots_size_is_joined_again_on_a_wider_figure():
    """The selection check's figure with a 61-character agent: its title and x label are broken at the plot's own
    6.4 in; at figsize=(14, 4) they stayed broken ("skewness-corrected\\n(from the runs)"), they now read on one
    line."""
    from test_audit_s18_names18 import LONG, _scores

    res = rlstats.selection_check(_scores([LONG, "λ-PPO"], tasks=("t1", "t2", "t3", "t4")), "score ~ agent | task",
                                  treatment=LONG, baseline="λ-PPO", reported=["t1", "t2"], n_resamples=200, rng=0)
    own = res.plot()
    assert "\n" in own.get_xlabel() and "\n" in own.get_title()
    wide = res.plot(figsize=(14, 4))
    assert "\n" not in wide.get_xlabel() and "\n" not in wide.get_title()
    assert wide.get_xlabel() == own.get_xlabel().replace("\n", " ")
    assert wide.get_title() == own.get_title().replace("\n", " ")
