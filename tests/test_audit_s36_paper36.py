"""Audit s36 (paper36): what every result writes for a paper, pasted into one.

Swept (scratch, not committed): to_latex(), summary().to_latex(), report() and to_markdown() of the rank test,
bootstrap, percentiles, task table, mixed model, equivalence, bayes, AdaStop, tuning, selection_check, power,
probability of improvement, performance profiles, the permutation test, curves of SB3 monitor logs
(read_logs) and the rank test on summarize_runs(how="final") of them; on the atari100k subset (CURL, DER, DrQ, SPR;
Pong, Breakout, MsPacman, Seaquest, Boxing, Freeway; 10 seeds) with plain labels and with agent and task names
holding _ % & # $ { } ~ ^ \\ | e-acute, the micro sign and Greek mu. Each was compiled with pdflatex -halt-on-error in
a two-column article (booktabs, graphicx), page 1 and 2 rendered and read, and the Markdown tables' cells counted.
Everything compiled and every label read as written; the Markdown tables had equal cell counts on every row.
Found: a note ending in an ellipsis lost it ("... at step 40; ." under the curves' table), and tables whose notes
are long (the curves of SB3's logs: 11 notes) were floats taller than the page (pdflatex: "Float too large for page
by 194pt"; tuning's table* by 13.5 pt), the bottom of the notes cut off the page; report() capitalised a note opening
with the response column's name (SB3's 'r' read "R: the value at each run's last logged step"); and Markdown left a $
in a label bare, which GitHub and Jupyter read as math. Also compiled without fontenc (OT1): no missing character; the
MuJoCo AdaStop batches (adastop, rank test, mixed) and HalfCheetah SAC/TD3 (equivalence, bootstrap, power from the
pilot) with label=, environment="table" and resize=True; every number of the LaTeX tables' rows is in the print.
"""

import math
import re
import shutil
import subprocess

import pandas as pd
import pytest

import rlstats
from rlstats import format as fmt

FRAME = pd.DataFrame({"agent": ["A2C", "DQN", "PPO"], "estimate": [312.67, 10.0, 70.333]})
# the curves of SB3's classic-control logs carry notes like these: 11, several of them 400 to 600 characters
LONG_NOTES = tuple(f"note {i}: " + "runs of agent 'DQN' on task 'CartPole-v1' at step 20; " * 9 for i in range(11))


def test_a_note_ending_in_an_ellipsis_keeps_it_in_latex():
    note = "17,104 values of 9 runs filled: run '0' at step 20; run '0' at step 30; ..."
    latex = fmt.table_latex(FRAME, caption="Curves.", notes=(note,))
    assert "; .\\par" not in latex
    assert re.search(r"at step 30; (\.\.\.|\\ldots\{\})\\par", latex)
    assert "Note: a full stop.\\par" in fmt.table_latex(FRAME, notes=("a full stop.",))  # one, not two


def _floats(latex):
    return re.findall(r"\\begin\{(table\*?)\}.*?\\end\{\1\}", latex, re.S)


def _float_height(block, environment):
    """A float's height as pdflatex sets it, roughly (points): caption and rows at 12 pt a line, notes in footnote
    size at 9.5 pt a line, over the float's width."""
    room = fmt.COLUMN_WIDTH if environment == "table" else fmt.TEXT_WIDTH
    caption = re.search(r"\\caption\{(.*)\}", block)
    lines = math.ceil(fmt.text_width(caption.group(1)) / room) if caption else 0
    rows = block.count("\\\\") + 2
    notes = sum(math.ceil(0.8 * fmt.text_width(n) / room) for n in re.findall(r"^Note: (.*)\\par$", block, re.M))
    return 12 * (lines + rows) + 9.5 * notes + 30


def test_notes_longer_than_a_page_are_split_over_floats_numbered_as_one():
    latex = fmt.table_latex(FRAME, caption="Learning curves.", notes=LONG_NOTES)
    floats = re.findall(r"\\begin\{(table\*?)\}(.*?)\\end\{\1\}", latex, re.S)
    assert all(_float_height(block, env) <= 550 for env, block in floats)
    assert sum(block.count("Note: ") for _, block in floats) == len(LONG_NOTES)  # every note, once
    assert latex.count("\\addtocounter{table}{-1}") == len(floats) - 1  # numbered as one table
    assert latex.count("\\begin{tabular}") == 1  # the rows are not repeated
    # a table with a few short notes keeps them under its tabular, in one float
    short = fmt.table_latex(FRAME, caption="Learning curves.", notes=LONG_NOTES[:1])
    assert len(_floats(short)) == 1 and "Note: note 0" in short


@pytest.mark.skipif(shutil.which("pdflatex") is None, reason="pdflatex is not installed (apt-get install "
                    "texlive-latex-base texlive-latex-recommended); the layout is checked on the text above")
def test_long_notes_compile_into_floats_no_taller_than_the_page(tmp_path):
    body = [fmt.table_latex(FRAME, caption="Learning curves.", notes=LONG_NOTES),
            fmt.table_latex(FRAME, caption="Learning curves.", notes=LONG_NOTES, environment="table*")]
    (tmp_path / "paper.tex").write_text("\n".join([r"\documentclass[twocolumn]{article}", r"\usepackage{booktabs}",
                                                   r"\begin{document}", *body, r"\end{document}"]), encoding="utf-8")
    done = subprocess.run(["pdflatex", "-halt-on-error", "-interaction=nonstopmode", "paper.tex"], cwd=tmp_path,
                          capture_output=True, timeout=120)
    log = (tmp_path / "paper.log").read_text(encoding="utf-8", errors="replace")
    assert done.returncode == 0, log[-2000:]
    assert "Float too large" not in log and "Overfull \\hbox" not in log


def test_a_note_opening_with_a_column_name_keeps_its_case_in_the_report():
    # SB3's monitor logs name the return column 'r': the report said "R: the value at each run's last logged step"
    curves = rlstats.datasets.simulate_curves(agents=2, tasks=2, seeds=3, steps=4, rng=0).rename(columns={"score": "r"})
    runs = rlstats.summarize_runs(curves, "r ~ agent | task/seed", step="step", how="final")
    res = rlstats.compare(runs, "r ~ agent | task", method="skillings_mack")
    assert "Note: r: the value at each run's last logged step" in str(res)
    assert " r: the value at each run's last logged step" in res.report()
    assert "R: the value" not in res.report() and "R: the value" not in res.report("text")
    assert "Note: r: the value" in res.to_latex()


def test_a_dollar_in_a_label_renders_as_written_in_markdown():
    # 'DrQ($\epsilon$)' rendered as DrQ(ε) on GitHub and in Jupyter, 'cost $5 and $x$' with x in italics
    frame = pd.DataFrame({"agent": [r"DrQ($\epsilon$)", "SPR"], "estimate": [1.0, 2.0]})
    table = fmt.table_markdown(frame)
    assert r"DrQ(\$\\epsilon\$)" in table
    assert re.search(r"(?<!\\)\$", table) is None
    assert len({line.count(" | ") for line in table.splitlines()}) == 1  # one cell count on every row
