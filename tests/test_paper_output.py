"""What rlstats writes for a paper drops into a two-column LaTeX document (issue 29, item 5).

Every ``report()`` is LaTeX text, seeds print short, every table fits a column or says why not and what it
needs, all formats show the same digits; where pdflatex exists, everything is compiled at column width and the
log must hold no error, no overfull box and no float taller than the page.
"""

import re
import shutil
import subprocess
import warnings

import numpy as np
import pandas as pd
import pytest

from conftest import HANG_SECONDS
import rlstats
from rlstats import format as fmt
from rlstats.methods import METHODS

FORMULA = "score ~ agent | task"
AGENTS = 5  # the brief: tables fit a column at 5 agents, or say how to make them fit

# How to reach every registered back end (and the other results) at 5 agents, quickly.
CASES = {
    "skillings_mack": ({}, False),
    "skillings_mack monte carlo": ({"method": "skillings_mack", "pvalue": "monte_carlo", "n_resamples": 200}, False),
    "bootstrap": ({"n_resamples": 200}, False),
    "probability_of_improvement": ({"n_resamples": 200}, False),
    "performance_profile": ({"n_resamples": 200}, False),
    "percentiles": ({}, False),  # pbp, the default: pbp_t takes 20 s at 5 agents x 6 tasks
    "adastop": ({"n": 2, "n_resamples": 200, "alpha": 0.2}, False),
    "permutation": ({"n_resamples": 200}, False),
    "selection": ({"treatment": f"agent_{AGENTS}", "baseline": "agent_1",
                   "reported": ["task_01", "task_02", "task_03"]}, False),
    "curves": ({"step": "step", "n_resamples": 100, "compare": "all"}, True),
    "task_table": ({}, False),  # registered since issue 30; the fixture also makes it directly, with rng=0
    "mixed": ({}, False),
    "equivalence": ({"margin": 1.0, "n_resamples": 200}, False),  # issue 41 item 2
    "bayes": ({"rope": 0.2, "n_samples": 2000}, False),  # issue 41 item 1
}
LATEX_SPECIALS = re.compile(r"(?<!\\)[%_&#]")  # unescaped, each stops pdflatex or (%) drops the rest of a line


@pytest.fixture(scope="module")
def results():
    blocked = rlstats.datasets.simulate(agents=AGENTS, tasks=6, seeds=4, effect=1.0, rng=0)
    curves = rlstats.datasets.simulate_curves(agents=AGENTS, tasks=4, seeds=3, steps=5, effect=0.5, rng=0)
    made = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the small designs' warnings are other tests' business
        for name, (options, on_curves) in CASES.items():
            options = {"method": name, **options}
            formula = "score ~ agent | task/seed" if on_curves else FORMULA
            made[name] = rlstats.compare(curves if on_curves else blocked, formula, rng=1, **options)
        made["task_table"] = rlstats.task_table(blocked, FORMULA, rng=0)
        # two configurations a sweep (a learning rate over the seeds' parity), each with two seeds as replicates
        swept = blocked.assign(lr=np.where(blocked["seed"] % 2 == 0, 1e-3, 3e-4))
        made["tuning"] = rlstats.compare(swept, "score ~ agent | task/seed", method="tuning", config="lr",
                                         n_resamples=200, rng=1)
        made["task_table aggregate, drawn seed"] = rlstats.task_table(blocked, FORMULA, aggregate="bootstrap",
                                                                      statistic="iqm", n_resamples=200)
        made["power"] = rlstats.power("skillings_mack", effect=1.0, seeds=[2, 4], tasks=3, n_sim=20, rng=0,
                                      progress=False)
    return made


@pytest.fixture(scope="module")
def latex(results):
    """Each result's to_latex(), made once for the tests that read it (1.1 s of CPU a pass over the results)."""
    return {name: res.to_latex() for name, res in results.items()}


def test_every_back_end_has_a_case():
    made_apart = {"tuning"}  # its formula names the seeds: made in the fixture, below the loop
    assert set(METHODS) <= set(CASES) | made_apart, f"add a CASES entry for {set(METHODS) - set(CASES) - made_apart}"


# ------------------------------------------------------------------------------------------------ the report


def test_the_default_report_is_latex_text(results):
    for name, res in results.items():
        text, plain = res.report(), res.report(format="text")
        assert text == fmt.latex_escape(plain), name
        assert LATEX_SPECIALS.search(text) is None, (name, LATEX_SPECIALS.search(text))
        assert "_" in plain or "%" in plain, name  # there was something to escape: names, levels
    assert r"agent\_1" in results["bootstrap"].report() and r"95\% studentized" in results["bootstrap"].report()


def test_comparison_signs_read_as_one_sign_in_latex():
    assert fmt.latex_escape("p <= 0.05, >= 0.95, a < b") == r"p $\leq$ 0.05, $\geq$ 0.95, a $<$ b"


# ------------------------------------------------------------------------------------------------ seeds


def test_a_seed_prints_as_given_up_to_20_digits_else_by_its_first_8():
    assert fmt.short_seed(0) == "0" and fmt.short_seed(2**64 - 1) == str(2**64 - 1)  # 20 digits: as given
    assert fmt.short_seed(10**20) == "10000000..."  # 21 digits
    assert fmt.short_seed(83347948792856298933354720534609293813) == "83347948..."
    assert fmt.short_seed("Generator") == "Generator" and fmt.short_seed([7, 7, 2**100]) == "7, 12676506..."


def test_a_drawn_seed_prints_short_and_to_dict_keeps_all_of_it(results):
    drawn = results["task_table aggregate, drawn seed"]
    assert isinstance(drawn.seed, int) and len(str(drawn.seed)) >= 30  # NumPy's 128-bit entropy
    assert drawn.report().endswith(f"random seed {str(drawn.seed)[:8]}...")  # the ellipsis ends the sentence
    assert str(drawn.seed) not in drawn.report() and drawn.to_dict()["seed"] == drawn.seed
    # Welch tests draw nothing: no seed to name (audit s16 mend16), though rng=0 was passed
    assert results["task_table"].report().endswith("Computed with rlstats " + rlstats.__version__ + ".")
    again = rlstats.task_table(rlstats.datasets.simulate(agents=AGENTS, tasks=6, seeds=4, effect=1.0, rng=0),
                               FORMULA, aggregate="bootstrap", statistic="iqm", n_resamples=200, rng=drawn.seed)
    np.testing.assert_array_equal(again.aggregate["intervals"], drawn.aggregate["intervals"])


# ------------------------------------------------------------------------------------------------ one set of digits


def test_every_format_of_the_task_table_shows_the_same_digits():
    # agent A's mean is -255.66 (the case: Markdown printed -255.7 where LaTeX printed -256)
    df = pd.DataFrame({"agent": ["A"] * 3 + ["B"] * 3, "task": "t", "score": [-255.66 - 1, -255.66, -255.66 + 1,
                                                                               1.0, 2.0, 3.0]})
    res = rlstats.task_table(df, FORMULA)
    outputs = {"print": str(res), "markdown": res.to_markdown(), "latex": res.to_latex(),
               "html": res._repr_html_(), "summary": str(res.summary())}
    for name, text in outputs.items():
        text = text.replace("$-$", "-")  # LaTeX sets the sign as a minus (audit s24 small24)
        assert "-256" in text and "-255.7" not in text, name
    assert "$-$256" in outputs["latex"]


def test_every_format_of_a_summary_table_shows_the_same_p_values():
    frame = pd.DataFrame({"agent": ["a", "b"], "p_value": [0.0026853, 0.0], "estimate": [1.23456, 2.0]})
    for render in (fmt.table_text, fmt.table_markdown, fmt.table_latex, fmt.table_html):
        text = render(frame).replace("$-$", "-")  # LaTeX sets the exponent's sign as a minus (audit s24 small24)
        assert "0.00269" in text and "0.0026853" not in text and "1.2346" in text, render.__name__
        assert "1e-16" in text, render.__name__  # never "0"


# ------------------------------------------------------------------------------------------------ layout


def test_a_column_holding_one_value_is_stated_once_in_the_caption():
    frame = pd.DataFrame({"agent": ["a", "b", "c"], "estimate": [1.0, 2.0, 3.0], "adjustment": "holm"})
    latex = fmt.table_latex(frame, caption="Ranks.")
    assert r"\caption{Ranks. In every row, adjustment: holm.}" in latex and "holm \\\\" not in latex
    assert "adjustment" in fmt.table_markdown(frame)  # the other formats keep every column
    one_row = fmt.table_latex(frame.head(1))
    assert "holm" in one_row.split(r"\midrule")[1]  # a single row is not a constant


def test_a_short_wide_table_is_transposed_to_fit_a_column():
    frame = pd.DataFrame({"term": ["reporter", "inspector"], **{f"quantity_{i}": [1.2345, 2.5] for i in range(9)}})
    latex = fmt.table_latex(frame)
    assert r"\begin{table}[ht]" in latex and r"\begin{tabular}{lrr}" in latex
    assert "term & reporter & inspector" in latex and r"quantity\_0 & 1.2345 & 2.5" in latex


def test_a_table_longer_than_a_page_is_split_into_floats_numbered_as_one():
    frame = pd.DataFrame({"tau": np.arange(70) / 10, "estimate": np.linspace(1, 0, 70)})
    latex = fmt.table_latex(frame, caption="Profiles.", label="tab:p")
    assert latex.count(r"\begin{table}") == 3 and latex.count(r"\addtocounter{table}{-1}") == 2
    assert latex.count(r"\label{tab:p}") == 1 and r"\caption{(continued, part 3 of 3)}" in latex
    assert latex.count(r"\toprule") == 3 and "70 rows" in latex.splitlines()[0]


def test_every_table_says_what_it_needs_and_whether_it_fits(latex):
    for name, text in latex.items():
        for block in text.strip().split("\n\n"):
            comment = block.splitlines()[0]
            assert comment.startswith(r"% rlstats: needs \usepackage{booktabs}"), (name, comment)
            assert (r"needs \usepackage{booktabs} and \usepackage{graphicx};" in comment) == ("resizebox" in block)
            wide = r"\begin{table*}" in block
            assert ("so table* spans both columns; to fit one column: environment='table', resize=True" in comment
                    ) == wide, (name, comment)
            assert ("fits one column of a two-column paper (229.5 pt)" in comment) == (not wide), (name, comment)


def test_the_five_agent_task_table_spans_both_columns_or_shrinks_on_request(results, latex):
    table = results["task_table"]
    assert r"\begin{table*}[t]" in latex["task_table"] and "resizebox" not in latex["task_table"]
    assert "shorter agent names" not in latex["task_table"].splitlines()[0]  # its numbers are wider than agent_1
    one_column = table.to_latex(environment="table", resize=True)
    assert r"\begin{table}[ht]" in one_column and r"\resizebox{\ifdim\width>\linewidth" in one_column
    # with mean +- sd in every cell, five agents need about 233 pt even at one digit: they span both columns;
    # three agents (SB3's PPO, A2C and DQN) fit one
    short = pd.DataFrame({"agent": ["PPO", "A2C", "DQN"], "task": "CartPole-v1", "score": [487.0, 212.5, 141.0]})
    fits = rlstats.task_table(pd.concat([short.assign(score=short.score + k) for k in range(3)]), FORMULA)
    assert r"\begin{table}[ht]" in fits.to_latex()
    # the same table with names wider than its numbers says that they widen it
    long_names = rlstats.task_table(pd.concat([short.assign(score=short.score + k, agent="a much longer name " +
                                                            short.agent) for k in range(3)]), FORMULA)
    assert "or shorter agent names" in long_names.to_latex().splitlines()[0]


# ------------------------------------------------------------------------------------------------ pdflatex

PREAMBLE = [r"\documentclass[twocolumn]{article}", r"\usepackage{booktabs}", r"\usepackage{graphicx}",
            r"\begin{document}", r"\typeout{WIDTHS \the\columnwidth\space\the\textwidth}"]


def _compile(tmp_path, body):
    (tmp_path / "paper.tex").write_text("\n".join(PREAMBLE + body + [r"\end{document}"]), encoding="utf-8")
    done = subprocess.run(["pdflatex", "-interaction=nonstopmode", "paper.tex"], cwd=tmp_path, capture_output=True,
                          text=True, timeout=HANG_SECONDS)
    return done.returncode, (tmp_path / "paper.log").read_text(encoding="utf-8", errors="replace")


@pytest.mark.skipif(shutil.which("pdflatex") is None, reason="pdflatex is not installed (apt-get install "
                    "texlive-latex-base texlive-latex-recommended); LaTeX output is compiled where it is")
def test_every_report_and_table_compiles_at_column_width(results, latex, tmp_path):
    body, tables, blocks = [], [], 0
    for name, res in results.items():
        body += [res.report(), r"\clearpage"]
        texts = [latex[name]] + ([res.summary().to_latex()] if name.startswith("task_table") else [])
        for block in re.split(r"\n\s*\n", "\n\n".join(texts).strip()):
            body += [block, r"\clearpage"]
            blocks += 1
            estimate = float(re.search(r"about (\d+) pt wide", block.splitlines()[0]).group(1))
            in_column = r"\begin{table}" in block
            for tabular in re.findall(r"\\begin\{tabular\}.*?\\end\{tabular\}", block, re.S):
                # the width pdflatex sets each tabular at, without any shrinking
                body += [r"\setbox0\hbox{" + tabular + "}", rf"\typeout{{TABULAR {len(tables)} \the\wd0}}"]
                tables.append((blocks, name, estimate, in_column))
    code, log = _compile(tmp_path, body)
    assert code == 0 and not re.search(r"^! ", log, re.M), log[-3000:]
    assert "Overfull \\hbox" not in log, re.findall(r"Overfull \\hbox.*", log)
    assert "Float too large" not in log
    assert re.search(r"WIDTHS (\S+)pt (\S+)pt", log).groups() == (f"{fmt.COLUMN_WIDTH}", f"{fmt.TEXT_WIDTH}")
    measured = {int(i): float(w) for i, w in re.findall(r"TABULAR (\d+) ([\d.]+)pt", log)}
    assert len(measured) == len(tables) > 40
    widest = {}
    for i, (block, name, estimate, in_column) in enumerate(tables):
        if in_column:  # a table chosen for one column is no wider than the column
            assert measured[i] <= fmt.COLUMN_WIDTH, (name, measured[i])
        widest[(block, name, estimate)] = max(widest.get((block, name, estimate), 0), measured[i])
    split = {block for block, *_ in tables if sum(b == block for b, *_ in tables) > 1}
    for (block, name, estimate), width in widest.items():
        # the guess behind the choice is within 1% (and the rounding of "about N pt"); the floats of a split table
        # are each at most as wide as the whole
        assert width <= 1.01 * estimate + 1, (name, estimate, width)
        assert block in split or estimate <= 1.01 * width + 1, (name, estimate, width)
