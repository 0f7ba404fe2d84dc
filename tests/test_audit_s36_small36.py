"""Audit s36 (small36): left-over defects of earlier sessions.

1. The note on runs copied between two tasks' cells (or two agents' on one task) offered ``subset=`` leaving out a
   whole agent x task cell, after which a method comparing every agent on every task (bootstrap, percentiles, ...)
   refused the call for want of ``na_action="drop"``, which the hint did not say: following it verbatim failed.
2. normalize()'s frame times a positive common factor (x 100 for percent) lost its note and was read as raw scales.
3. The command rebuilt where a positional argument was typed as a flag (or the formula first) dropped the options
   typed; a hint quoting a label holding a quote stayed Python on the command line.
4. AdaStop called the private ``Design._select_rows``.
5. Some 25 hand-built plurals and verbs (``step{'s' if n > 1 else ''}``).
"""

import re
import shlex
import warnings

import numpy as np
import pandas as pd
import pytest

import rlstats
from rlstats.cli import main
from rlstats.design import COPIED_ACROSS


def _copied_frame(across=True):
    """Three agents on five tasks, 10 runs each; 6 of a0's runs on t1 repeat its runs on t0 (audit s26's frame;
    not ``across``: none)."""
    rng = np.random.default_rng(5)
    n = 5 * 3 * 10
    frame = pd.DataFrame({"task": np.repeat([f"t{i}" for i in range(5)], 30),
                          "agent": np.tile(np.repeat([f"a{j}" for j in range(3)], 10), 5),
                          "seed": np.tile(np.arange(10), 15), "score": np.round(rng.normal(1000, 300, n), 3)})
    source = frame.loc[(frame["task"] == "t0") & (frame["agent"] == "a0"), "score"].to_numpy()
    target = np.flatnonzero(((frame["task"] == "t1") & (frame["agent"] == "a0")).to_numpy())[:6]
    if across:
        frame.loc[target, "score"] = source[:6]
    return frame


HINTED = ("leave out a0's 10 runs on t0 if those are the copies (subset=\"~(agent == 'a0' & task == 't0')\" and "
          "na_action=\"drop\", which leaves out t0 where the method compares every agent on every task)")


@pytest.mark.parametrize("method", ["percentiles", "skillings_mack"])  # bootstrap: test_audit_s35_adastop35
def test_the_copied_runs_hint_runs_as_given(method):
    frame = _copied_frame()
    options = {"n_resamples": 100} if method == "bootstrap" else {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = rlstats.compare(frame, "score ~ agent | task", method=method, rng=1, **options)
    note, = [n for n in result.notes if COPIED_ACROSS in n]
    assert note.endswith(HINTED)
    subset, na_action = re.search(r'\(subset="(.+?)" and na_action="(\w+)"', note).groups()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        kept = rlstats.compare(frame, "score ~ agent | task", method=method, rng=1, subset=subset,
                               na_action=na_action, **options)
    assert not [n for n in kept.notes if COPIED_ACROSS in n]
    if method == "skillings_mack":  # a method reading incomplete designs: na_action="drop" changes nothing
        assert str(kept) == str(rlstats.compare(frame, "score ~ agent | task", rng=1, subset=subset))
    else:  # t0 left out with a note
        assert any(n.startswith("1 task left out because some agent has no runs there") for n in kept.notes)


def test_the_copied_runs_hint_on_the_command_line(tmp_path, capsys):
    path = tmp_path / "copied.csv"
    _copied_frame().to_csv(path, index=False)
    argv = ["compare", str(path), "score ~ agent | task", "--method", "percentiles"]
    assert main(argv) == 0
    text = " ".join(capsys.readouterr().out.split())
    way = ("leave out a0's 10 runs on t0 if those are the copies (-o \"subset=~(agent == 'a0' & task == 't0')\" and "
           "-o na_action=drop, which leaves out t0 where the method compares every agent on every task)")
    assert way in text
    words = shlex.split(way.split("copies (")[1].split(", which")[0].replace(" and ", " "))
    assert main(argv + words) == 0
    text = capsys.readouterr().out
    assert COPIED_ACROSS not in text and "1 task left out because some agent has no runs there" in text



def test_the_copied_agents_hint_and_a_call_dropping_already():
    """An agent's runs saved again as another's on one task: its hint leaves out the second agent's cell, with
    na_action="drop" likewise; a call passing na_action="drop" already is told the subset= alone."""
    frame = _copied_frame(across=False)
    a0 = frame.loc[(frame["task"] == "t0") & (frame["agent"] == "a0"), "score"].to_numpy()
    frame.loc[(frame["task"] == "t0") & (frame["agent"] == "a1"), "score"] = a0
    note, = [n for n in rlstats.compare(frame, "score ~ agent | task", method="percentiles", rng=1,
                                        na_action="drop").notes if COPIED_ACROSS in n]
    assert note.endswith("leave out a1's 10 runs on t0 if those are the copies "
                         "(subset=\"~(agent == 'a1' & task == 't0')\")")
    note, = [n for n in rlstats.compare(frame, "score ~ agent | task", method="percentiles", rng=1).notes
             if COPIED_ACROSS in n]
    assert note.endswith("leave out a1's 10 runs on t0 if those are the copies (subset=\"~(agent == 'a1' & task == "
                         "'t0')\" and na_action=\"drop\", which leaves out t0 where the method compares every agent on "
                         "every task)")
    kept = rlstats.compare(frame, "score ~ agent | task", method="percentiles", rng=1,
                           subset="~(agent == 'a1' & task == 't0')", na_action="drop")
    assert not [n for n in kept.notes if COPIED_ACROSS in n] and kept.tasks == ("t1", "t2", "t3", "t4")

# 2. A frame from normalize() whose scores the user multiplied by a positive common factor (x 100 for percent) lost
#    normalize()'s note and was read as raw scales (its values are not those normalize() wrote, audit s33 norm33):
#    the factor is now recognised and said; a shift, a factor per task or a negative one is not.

def _normalised():
    rng = np.random.default_rng(2)
    tasks, scale = ["t0", "t1", "t2", "t3"], {"t0": 1, "t1": 100, "t2": 1000, "t3": 20000}
    rows = [(t, a, s, rng.normal(scale[t] * (0.5 + 0.1 * (a == "B")), scale[t] * 0.1))
            for t in tasks for a in "AB" for s in range(5)]
    df = pd.DataFrame(rows, columns=["task", "agent", "seed", "score"])
    reference = pd.DataFrame({"task": tasks, "low": 0.0, "high": [float(scale[t]) for t in tasks]})
    return rlstats.normalize(df, reference, low="low", high="high")


NORMALISED = "'score' normalised per task as (score - low) / (high - low) with low and high from the reference frame"


@pytest.mark.parametrize("factor, said", [(100.0, "100"), (0.01, "0.01"), (1 / 3, "0.333333333333")])
def test_a_common_factor_keeps_the_note_said_with_it(factor, said):
    frame = _normalised()
    scaled = frame.assign(score=frame["score"] * factor)
    design = rlstats.build(scaled, "score ~ agent | task")
    assert design.normalized
    assert list(design.notes) == [f"{NORMALISED}; the scores analysed are those times {said} (every row holds "
                                  f"normalize()'s value times {said})"]
    # the rows of some tasks alone: recognised from the values kept (a row holding one of the 8 largest values
    # written, or one of the 64 rows the record names: every row here; review s36 rv36a)
    kept = rlstats.build(scaled[scaled["task"] != "t3"], "score ~ agent | task")
    assert kept.normalized and kept.notes[-1].endswith(f"times {said})")


def test_the_optimality_gap_target_said_on_the_scaled_scores():
    frame = _normalised()
    result = rlstats.compare(frame.assign(score=frame["score"] * 100), "score ~ agent | task", method="bootstrap",
                             n_resamples=50, rng=0)
    gap = [n for n in result.notes if n.startswith("the optimality gap is")]
    assert gap == ["the optimality gap is the mean shortfall below gamma = 1, a target on a normalised scale (1: the "
                   "reference score, e.g. human), but 'score' holds normalised scores times 100: every score is at or "
                   "above it, so the gap is 0 for every agent and tells them apart in nothing; set gamma=100, the "
                   "reference score times 100"]


@pytest.mark.parametrize("change", ["shift", "per task", "negative"])
def test_other_changes_are_not_a_factor(change):
    frame = _normalised()
    y = frame["score"].to_numpy()
    y = {"shift": y + 1, "per task": y * np.where(frame["task"] == "t0", 100, 1), "negative": -100 * y}[change]
    design = rlstats.build(frame.assign(score=y), "score ~ agent | task")
    assert not design.normalized
    rows = {"shift": 40, "per task": 10, "negative": 40}[change]
    assert len(design.notes) == 1 and design.notes[0].startswith(
        f"'score' holds, in {rows} of 40 rows, values that are not those normalize() wrote (first: task='t0', ")


# 3. The command line: the command rebuilt where a positional argument was typed as a flag kept only the file and
#    the formula (``rlstats compare --method bootstrap -o n_resamples=100 --formula F d3.csv`` suggested
#    ``rlstats compare d3.csv F``, the default method); and a hint quoting a label with a quote stayed Python.

def _refusal(argv, capsys):
    with pytest.raises(SystemExit):
        main(argv)
    return " ".join(capsys.readouterr().err.split())


def test_the_command_rebuilt_keeps_every_option_typed(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    rlstats.datasets.simulate(agents=2, tasks=1, seeds=5, rng=0).to_csv("d3.csv", index=False)
    said = _refusal(["compare", "--method", "bootstrap", "-o", "n_resamples=100", "--formula", "score ~ agent",
                     "d3.csv"], capsys)
    command = "rlstats compare --method bootstrap -o n_resamples=100 d3.csv 'score ~ agent'"
    assert said.endswith(f"FORMULA is the second positional argument: {command}; see rlstats compare --help")
    assert main(shlex.split(command)[1:]) == 0
    assert "resamples = 100" in capsys.readouterr().out
    # a file named like a flag goes after --
    said = _refusal(["compare", "--seed", "3", "--formula", "score ~ agent", "--", "-d3.csv"], capsys)
    assert said.endswith("FORMULA is the second positional argument: rlstats compare --seed 3 -- -d3.csv "
                         "'score ~ agent'; see rlstats compare --help")
    # FILE missing: the command with the options typed and FILE in its place
    said = _refusal(["compare", "--method", "bootstrap", "--formula", "score ~ agent"], capsys)
    assert said.endswith("FILE is missing: rlstats compare --method bootstrap FILE 'score ~ agent' (--formula is no "
                         "flag of rlstats compare: FORMULA is the second positional argument); see rlstats compare "
                         "--help")


def test_a_quote_in_a_label_is_said_as_the_shell_takes_it():
    from rlstats.cli._shared import in_command_words

    condition = "~(agent == \"it's\" & task == 't0')"
    said = in_command_words(f"leave them out (subset={condition!r})", {}, {"subset"})
    assert said == "leave them out (-o 'subset=~(agent == \"it'\"'\"'s\" & task == '\"'\"'t0'\"'\"')')"
    assert shlex.split(said[len("leave them out ("):-1]) == ["-o", f"subset={condition}"]
    said = in_command_words("pass subset='agent == \"a\\\\b\"'", {}, {"subset"})  # a backslash, escaped by repr
    assert shlex.split(said[len("pass "):]) == ["-o", "subset=agent == \"a\\b\""]


# 4. ``Design._select_rows``, a private method, was called from AdaStop's module: the runs fed are now
#    ``copied_runs_note(rows=)``'s, selected in design.py (``_rows_selected``); no other module reads a private name
#    of Design.

def test_no_module_but_design_reads_a_private_name_of_design():
    import ast
    import pathlib

    from rlstats.design import Design

    private = {name for name in vars(Design) if name.startswith("_") and not name.startswith("__")}
    root = pathlib.Path(rlstats.__file__).parent
    texts = {path: path.read_text(encoding="utf-8") for path in root.rglob("*.py") if path != root / "design.py"}
    found = [(str(path.relative_to(root)), node.lineno, node.attr) for path, text in texts.items()
             if any(f".{name}" in text for name in private)  # parsed where the text names one
             for node in ast.walk(ast.parse(text)) if isinstance(node, ast.Attribute) and node.attr in private]
    assert private and found == []
    assert not hasattr(Design, "_select_rows") and not hasattr(Design, "rows_selected")


# 5. Hand-built plurals (``step{'s' if n > 1 else ''}``, ``describe{'s' if one else ''}``) in curves, adastop, runs,
#    options, the command line and others: each is now the grammar module's plural(), count() or verb().

#: the places left, each not a count's agreement: a step range's "step"/"steps" (one step or a range), the verb after
#: names read as plural by their own words ("the means depend"), and "Start"'s capital (twice)
LEFT = {("methods/curves/_result.py", "return f\"at step{'' if one else 's'}"),
        ("normalization.py", "f\"depend{'' if len(read) > 1 or read[0][1] else 's'}"),
        ("cli/adastop.py", "lambda match: f\"{'S' if match.group(1) == 'P' else 's'}tart"),
        ("cli/adastop.py", "return _LARGER_N_OR_K.sub(lambda match: f\"{'s' if match.group(1) == 'u' else 'S'}tart")}


def test_no_hand_built_plural_is_left():
    import pathlib

    root = pathlib.Path(rlstats.__file__).parent
    pattern = re.compile(r"""\{'e?s' if|"e?s" if |'e?s' if len|else 'e?s'\}|else 've'\}|["']s["'] \* \(""")
    found = {(str(path.relative_to(root)), line.strip()[:len(text)])
             for path in root.rglob("*.py") if path.name != "grammar.py"
             for line in path.read_text(encoding="utf-8").splitlines() if pattern.search(line)
             for text in [next((t for p, t in LEFT if line.strip().startswith(t)), line.strip())]}
    assert found == LEFT


def test_the_verbs_the_plurals_became():
    from rlstats.grammar import verb

    assert [verb(n, w) for w in ("goes", "misses", "describes", "repeats", "ends") for n in (1, 2)] == [
        "goes", "go", "misses", "miss", "describes", "describe", "repeats", "repeat", "ends", "end"]


def test_the_formula_first_keeps_the_options_typed(tmp_path, capsys, monkeypatch):
    """The formula typed first (R's order) was said as ``rlstats compare FILE FORMULA`` without the options typed,
    and a file named like a flag without ``--``."""
    monkeypatch.chdir(tmp_path)
    rlstats.datasets.simulate(agents=2, tasks=1, seeds=5, rng=0).to_csv("d3.csv", index=False)
    assert main(["compare", "score ~ agent", "d3.csv", "--method", "bootstrap", "-o", "n_resamples=100"]) == 2
    command = "rlstats compare --method bootstrap -o n_resamples=100 d3.csv 'score ~ agent'"
    assert capsys.readouterr().err == ("rlstats: error: 'score ~ agent' is a formula, and the file comes first on "
                                       f"the command line: {command}\n")
    assert main(shlex.split(command)[1:]) == 0 and "resamples = 100" in capsys.readouterr().out
    assert main(["compare", "--seed", "1", "--", "score ~ agent", "-d3.csv"]) == 2
    assert capsys.readouterr().err.endswith("the command line: rlstats compare --seed 1 -- -d3.csv 'score ~ agent'\n")


def test_a_bounded_record_reads_no_factor(monkeypatch):
    """Beyond VALUES_CAP a record keeps a 1-in-m share of the hashes, which cannot tell a row unchecked from one
    replaced once divided by a factor: no factor is read, and the line of values not written stays."""
    monkeypatch.setattr(rlstats.provenance, "VALUES_CAP", 8)  # 40 rows: modulus 10 (test_audit_s34_notes34)
    frame = _normalised()
    design = rlstats.build(frame.assign(score=frame["score"] * 100), "score ~ agent | task")
    assert not design.normalized and len(design.notes) == 1 and design.notes[0].startswith(
        "'score' holds, in 5 of 5 rows checked (1 in 10), values that are not those normalize() wrote")
