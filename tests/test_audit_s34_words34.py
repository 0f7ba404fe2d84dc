"""Audit s34 (words34): the words a user reads.

1. About sixty "(s)" in messages ("column(s) ['x'] not found", "1 row(s) of 'score' lie outside"): a noun before
   names now agrees with them (``format.plural(word, n)``: "column ['x']", "columns ['x', 'y']"), a count says its
   noun and verb by number (``format.count``, ``format.verb``: "1 row of 'score' lies"), and where the number is
   not known the sentence is said without it ("the tasks the median sits on").
2. About fifty messages agreed a verb with a count by hand (``"has" if n == 1 else "have"``); they now say it by
   one rule, ``format.verb(n, "has")``, beside ``format.count``.
3. ``subset="flag == 1"`` on a column of True/False values was read as Python reads it (True == 1): the reverse of
   session 33's ``seed > True``. A number compared with a column of True/False values is now an error naming the
   column and the way to write what was meant (``flag == True``, or ``flag`` alone).
4. tuning's REPLICATE_WORDS listed again the run columns' names of design.RUN_IDS; it is now read from there.
"""

import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import rlstats
from rlstats import format as fmt
from rlstats.conditions import parse_condition
from rlstats.datasets import simulate
from rlstats.errors import OptionError

PACKAGE = Path(rlstats.__file__).parent


def _flagged():
    df = simulate(agents=["A0", "A1"], tasks=["g0", "g1"], seeds=4, effect=[0.0, 1.0], rng=0)
    df["flag"] = df["seed"] % 2 == 0
    return df


# ---- 3. subset=: a number compares only with a column of numbers, not of True/False values ----

@pytest.mark.parametrize("subset, read", [("flag == 1", "would read as True"), ("flag != 0", "would read as False"),
                                          ("1 == flag", "would read as True"), ("flag > 0", "would read as False"),
                                          ("flag in [1]", "would read as True"), ("flag == 1.0", "would read as True"),
                                          ("flag == 2", "equals")])
def test_number_against_a_boolean_column_is_refused(subset, read):
    # before: 'flag == 1' kept the 8 rows where flag is True, 'flag == 2' none, as Python's True == 1 reads them
    with pytest.raises(OptionError) as info:
        parse_condition(subset).mask(_flagged())
    value = subset.split()[0] if subset.startswith("1 ") else subset.split()[-1].strip("[]")
    read = f"which Python (and R's subset()) {read}" if read != "equals" else "which no True/False value equals"
    assert str(info.value) == (
        f"subset={subset!r}: column 'flag' holds True/False values (bool), not numbers, and {value} is a number, "
        f"{read}; compare the column with True or False: 'flag == True' (or 'flag' alone) keeps the rows where it "
        "is True, 'flag == False' (or '~flag') those where it is False")


@pytest.mark.parametrize("dtype", ["boolean", object])
def test_number_against_a_nullable_or_object_boolean_column_is_refused(dtype):
    df = _flagged()
    df["flag"] = df["flag"].astype(dtype)
    df.loc[3, "flag"] = None
    with pytest.raises(OptionError, match=f"column 'flag' holds True/False values \\({df['flag'].dtype}\\)"):
        parse_condition("flag == 1").mask(df)


@pytest.mark.parametrize("subset, kept", [("flag == True", 8), ("flag", 8), ("~flag", 8), ("seed == 1", 4),
                                          ("seed in [0, 1]", 8)])
def test_booleans_and_numbers_still_compare_as_they_are(subset, kept):
    df = _flagged()
    assert parse_condition(subset).mask(df).sum() == kept
    # an object column with no value present holds nothing a number could misread: 'x == 1' keeps no row, as before
    assert parse_condition("x == 1").mask(df.assign(x=np.full(len(df), None, dtype=object))).sum() == 0


def test_the_command_line_refuses_a_number_beside_true_false(tmp_path, capsys):
    from rlstats.cli import main
    path = tmp_path / "runs.csv"
    _flagged().to_csv(path, index=False)
    assert main(["compare", str(path), "score ~ agent | task", "-o", "subset=flag == 1"]) != 0
    assert capsys.readouterr().err.startswith(
        "rlstats: error: -o \"subset=flag == 1\": column 'flag' holds True/False values (bool), not numbers, and 1 "
        "is a number")


# ---- 2. a verb agreeing with a count: format.verb, the one rule ----

@pytest.mark.parametrize("n, one, several, said", [
    (1, "has", None, "has"), (2, "has", None, "have"), (0, "has", None, "have"), (np.int64(1), "is", None, "is"),
    (np.int64(5), "is", None, "are"), (np.bool_(True), "was", None, "was"), (3, "was", None, "were"),
    (2, "does", None, "do"), (2, "lies", None, "lie"), (2, "lacks", None, "lack"), (2, "matches", None, "match"),
    (2, "each has", None, "each have"), (1, "has", "each have", "has"), (4, "has", "each have", "each have")])
def test_verb_agrees_with_its_count(n, one, several, said):
    assert fmt.verb(n, one, several) == said


def test_messages_say_one_run_has_and_two_runs_have():
    # the verbs of a count, as the sites that built them by hand said them (runs.summarise's refusal)
    assert f"{fmt.count(1, 'run')} {fmt.verb(1, 'has')} no value" == "1 run has no value"
    assert f"{fmt.count(2, 'run')} {fmt.verb(2, 'has')} no value" == "2 runs have no value"


#: a verb chosen by a condition in place of fmt.verb: "'has' if n == 1 else 'have'", "'has' if one else 'have'",
#: "'have' if n != 1 else 'has'", "'are' if n > 1 else 'is'" (any condition, either order)
_ONE = r"""['"](?:has|is|was|does|lacks|holds|lies|ends)['"]"""
_SEVERAL = r"""['"](?:each )?(?:have|are|were|do|lack|hold|lie|end)['"]"""
_HAND_BUILT = re.compile(rf"{_ONE} if [^{{}}\n]+? else {_SEVERAL}|{_SEVERAL} if [^{{}}\n]+? else {_ONE}")


#: verbs agreeing with a phrase's number, not a count: a flag set where the phrase names several things ("the columns
#: ... hold", "later interims are"), or a phrase whose number is not its count ("each interval is")
_BY_PHRASE = {("design.py", "'hold' if plural else 'holds'"),
              ("_result.py", '"is" if len(of) == 1 or "median" not in kinds else "are"'),
              ("vocabulary.py", "'are' if plural else 'is'")}


def test_no_verb_agreement_is_built_by_hand():
    found = [f"{path.relative_to(PACKAGE.parent)}:{i}: {hit.group()}" for path in sorted(PACKAGE.rglob("*.py"))
             if path.name != "grammar.py"  # its docstrings show the spelling verb() replaces
             for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
             for hit in _HAND_BUILT.finditer(line) if (path.name, hit.group()) not in _BY_PHRASE]
    assert found == []


@pytest.mark.parametrize("line", ["'has' if n == 1 else 'have'", "'has' if one else 'each have'",
                                  "'have' if n != 1 else 'has'", "'are' if len(x) > 1 else 'is'"])
def test_the_scan_finds_each_hand_built_form(line):
    assert _HAND_BUILT.search(line)


# ---- 1. no "(s)": a noun by its count (format.plural(word, n), format.count), or said without one ----

#: A noun written "(s)" in the package's strings (messages, notes, help, docstrings)
#: ("task(s)", "Column(s)", "match(es)"; not a call: html.escape(s))
_MAYBE_PLURAL = re.compile(r"(?<![.\w])[A-Za-z]+\(e?s\)")
#: strings saying "(s)" on purpose: grammar's docstrings name the spelling they replace; PBP-t's F_{k, task(s)}
#: is the task of slot s
_SAID_ON_PURPOSE = {("grammar.py", "column(s)"), ("grammar.py", "task(s)"), ("_kernels.py", "task(s)"),
                    ("_simulated.py", "progress(s)")}  # simulate()'s curve of step s


def _string_words(path):
    import io
    import tokenize
    text = path.read_text(encoding="utf-8")
    if not _MAYBE_PLURAL.search(text):  # most files: no need to read their strings apart from their comments
        return []
    tokens = tokenize.generate_tokens(io.StringIO(text).readline)
    return [(path.name, word) for token in tokens
            if token.type == tokenize.STRING or token.type == getattr(tokenize, "FSTRING_MIDDLE", -1)
            for word in _MAYBE_PLURAL.findall(token.string)]


def test_no_message_says_s_in_parentheses():
    found = [hit for path in sorted(PACKAGE.rglob("*.py")) for hit in _string_words(path)
             if hit not in _SAID_ON_PURPOSE]
    assert found == []


@pytest.mark.parametrize("missing, said", [(["x"], "1 task of the data is missing from the reference's 'task' column"),
                                           (["x", "y"], "2 tasks of the data are missing from the reference's 'task'")])
def test_a_count_says_its_noun_and_verb_by_number(missing, said):
    from rlstats.errors import DesignError
    df = simulate(agents=["A0", "A1"], tasks=["x", "y", "z"], seeds=2, effect=[0.0, 1.0], rng=0)
    reference = pd.DataFrame({"task": [t for t in "xyz" if t not in missing], "random": 0.0, "human": 1.0})
    with pytest.raises(DesignError, match=re.escape(said)):
        rlstats.normalize(df, reference)


@pytest.mark.parametrize("threshold, said", [({"g0": 1.0, "g1": 1.0}, "threshold= has no value for task ['g2']"),
                                             ({"g0": 1.0}, "threshold= has no value for tasks ['g1', 'g2']")])
def test_names_after_a_noun_agree_with_it(threshold, said):
    runs = simulate(agents=["A0", "A1"], tasks=["g0", "g1", "g2"], seeds=2, effect=[0.0, 1.0], rng=0)
    curves = runs[["agent", "task", "seed"]].merge(pd.DataFrame({"step": [0, 1]}), how="cross")
    curves["score"] = np.arange(len(curves), dtype=float)
    with pytest.raises(OptionError, match=re.escape(said)):
        rlstats.summarize_runs(curves, "score ~ agent | task/seed", step="step", how="time_to_threshold",
                               threshold=threshold)


# ---- 4. one list of the names of a run column: tuning's replicate words are design.RUN_IDS' ----

def test_tunings_replicate_words_are_the_designs_run_names():
    from rlstats.design import RUN_IDS, RUN_NAMES
    from rlstats.methods.tuning._api import REPLICATE_WORDS
    assert sorted(REPLICATE_WORDS) == ["rep", "repetition", "replicate", "run", "seed", "trial"]  # as before
    assert set(REPLICATE_WORDS) <= RUN_IDS <= RUN_NAMES
    # every name of a run column is one of them or its plural ('runs', 'seeds'), or one with '_id' ('run_id')
    assert {fmt.singular(w).removesuffix("_id") for w in RUN_IDS} == set(REPLICATE_WORDS)
