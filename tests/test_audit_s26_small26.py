"""Audit s26 (small26): small whole fixes found by this session's audits.

1. ``rlstats adastop status`` printed none of the result's notes (a batch repeating runs, accepted with
   ``--allow-repeat``, went unsaid after the update); it prints them as the finishing ``update`` and the
   result's print do.
2. percentiles and the selection check printed "95 percent ... intervals" where every other result (and their own
   summaries and reports) print "95%" (LaTeX "95\\%"): one way, surveyed over every declared demo call.
3. 11 public functions documented ``na_action : {"raise", "drop"}`` though every one takes ``"omit"`` (R's
   ``na.omit``, the same as ``"drop"``, no note): each docstring now gives design.NA_ACTIONS, read by the test.
4. AdaStop's decision table was headed ``agent_1 agent_2 ... n_1 n_2`` in print, in ``rlstats adastop
   update/status`` and (as "agent 1", "runs 1") in LaTeX: with simulate()'s agents (agent_1, ...) a row read
   "agent_3 agent_1" under "agent_1 agent_2". Headed "first agent", "second agent", "runs of first", "runs of
   second" there (adastop._result.HEADERS); tidy(), the summary's DataFrames and to_dict() keep the codes.
   Beside it: AdaStop's to_latex() before the first batch raised IndexError (tests/test_audit_s16_ada.py failed).
5. Result classes' docstrings left 120 fields of 15 classes unnamed (the documentation site shows each class's
   docstring alone): PermutationResult 21 of its 23 (AdaStopResult's), every class Result's 7 (method, ...,
   seed), and has_ties, welch_floored, n_resamples_conservative, conf_level. Each is named now, read by the test
   off dataclasses.fields.
"""

import dataclasses
import inspect
import io
import re
import warnings

import numpy as np
import pandas as pd
import pytest

import rlstats
import rlstats.cli as cli
from rlstats import datasets
from rlstats.methods.adastop import AdaStop


def run(*argv):
    out = io.StringIO()
    status = cli.main(list(argv), out=out)
    return status, out.getvalue()


def _notes_printed(text):
    return [line for line in text.splitlines() if line.startswith("Note: ")]


@pytest.fixture
def repeated_batches(tmp_path):
    """Two wide batches, the second repeating agent A's runs of the first (fed with --allow-repeat)."""
    rng = np.random.default_rng(1)
    a = rng.normal(0, 1, 5)
    paths = []
    for k, b in enumerate((rng.normal(0.1, 1, 5), rng.normal(0.1, 1, 5)), start=1):
        path = tmp_path / f"b{k}.csv"
        pd.DataFrame({"A": a, "B": b}).to_csv(path, index=False)
        paths.append(path)
    return paths


def test_status_prints_the_notes_the_finishing_update_printed(repeated_batches, tmp_path):
    state = tmp_path / "s.json"
    assert run("adastop", "update", str(state), str(repeated_batches[0]), "--K", "2", "--seed", "0")[0] == 0
    status, finished = run("adastop", "update", str(state), str(repeated_batches[1]), "--allow-repeat")
    assert status == 0 and "the test is finished" in finished
    printed = _notes_printed(finished)
    assert any("repeat an earlier interim's exactly" in line for line in printed)
    status, text = run("adastop", "status", str(state))
    assert status == 0
    assert _notes_printed(text) == printed
    # the Python side says the same notes
    result = AdaStop.load(state).result()
    assert [f"Note: {note}" for note in result.notes] == printed
    assert _notes_printed(str(result)) == printed


def test_status_of_a_running_test_prints_its_notes(repeated_batches, tmp_path):
    state = tmp_path / "s.json"
    run("adastop", "update", str(state), str(repeated_batches[0]), "--K", "3", "--seed", "0")
    run("adastop", "update", str(state), str(repeated_batches[1]), "--allow-repeat")
    status, text = run("adastop", "status", str(state))
    assert status == 0
    notes = AdaStop.load(state).result().notes
    assert len(notes) == 3 and _notes_printed(text) == [f"Note: {note}" for note in notes]


# ---- 2. the confidence level printed one way: "95%" ------------------------------------------------------------
_PERCENT_WORD = re.compile(r"\d percent\b")


def _demo(method, agents=3, tasks=4, seeds=5):
    """A back end's declared demo call, on a small simulated benchmark (the CLI demo's own path)."""
    from rlstats.cli import demo_runs
    from rlstats.comparison import compare
    from rlstats.methods import backend

    data = datasets.simulate(agents=agents, tasks=tasks, seeds=seeds, effect=list(np.linspace(0, 1, agents)), rng=0)
    curves = datasets.simulate_curves(agents=3, tasks=3, seeds=4, steps=10, effect=0.3, rng=0)
    frame, formula, options = demo_runs(data, curves)[method]
    if "normalize" in inspect.signature(backend(method)).parameters:
        options = {"normalize": "minmax", **options}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return compare(frame, formula, method=method, rng=0, **options)


def _outputs(res):
    summary = res.summary()
    return {"print": str(res), "summary": str(summary), "report(text)": res.report(format="text"),
            "report(markdown)": summary.to_markdown(), "report(latex)": res.report(), "to_latex": summary.to_latex()}


def _check_levels_one_way(res):
    for where, text in _outputs(res).items():
        assert not _PERCENT_WORD.search(text), (where, _PERCENT_WORD.search(text))
        if "latex" in where:  # a level is \% in LaTeX: no unescaped % but the comment lines rlstats writes
            body = [line for line in text.splitlines() if not line.startswith("% rlstats: ")]
            # (a line may end in %, LaTeX's end of line without a space: \resizebox{...}{!}{%)
            assert not any(re.search(r"(?<!\\)%.", line) for line in body), where


@pytest.mark.parametrize("method, line", [
    ("percentiles", "95% simultaneous intervals ("),
    ("selection", "95% one-sided confidence interval of the difference ("),
])
def test_the_confidence_level_is_printed_as_the_other_results_print_it(method, line):
    res = _demo(method, agents=5, tasks=12, seeds=6) if method == "selection" else _demo(method)
    assert line in str(res)
    _check_levels_one_way(res)


@pytest.mark.slow
def test_every_declared_demo_prints_its_levels_one_way():
    from rlstats.methods import DECLARATIONS

    for method, declared in DECLARATIONS.items():
        if declared.demo is not None:
            _check_levels_one_way(_demo(method, agents=5, tasks=12, seeds=10))


# ---- 3. na_action: every value accepted is documented, and every value documented accepted -------------------------
def _na_action_documented():
    """(name, the set a public function's docstring gives na_action) of every public function taking it."""
    import rlstats

    found = []
    for name in rlstats.__all__:
        obj = getattr(rlstats, name)
        if callable(obj) and not inspect.isclass(obj) and "na_action" in inspect.signature(obj).parameters:
            line = re.search(r"^na_action : \{(.*)\}$", inspect.getdoc(obj) or "", re.M)
            assert line, f"{name}'s docstring gives no set of na_action's values"
            found.append((name, {value.strip().strip('"') for value in line.group(1).split(",")}))
    return found


def test_every_na_action_accepted_is_documented_and_the_other_way():
    from rlstats.design import NA_ACTIONS

    documented = _na_action_documented()
    assert len(documented) >= 17  # the back ends, summarize_runs, align_steps, build
    wrong = [name for name, values in documented if values != set(NA_ACTIONS)]
    assert not wrong, wrong


def test_each_na_action_value_is_accepted_and_omit_is_drop():
    from rlstats.design import NA_ACTIONS

    df = datasets.simulate(agents=3, tasks=4, seeds=4, rng=0)
    df.loc[df.index[5], "score"] = np.nan
    kept = {}
    for value in NA_ACTIONS:
        if value == "raise":
            with pytest.raises(rlstats.errors.DesignError, match="missing"):
                rlstats.build(df, "score ~ agent | task", na_action=value)
            continue
        design = rlstats.build(df, "score ~ agent | task", na_action=value)
        res = rlstats.skillings_mack(df, "score ~ agent | task", na_action=value, rng=0)
        kept[value] = (design.nobs, res.statistic, res.pvalue, res.notes)
    assert kept["omit"] == kept["drop"] and kept["drop"][0] == len(df) - 1


# ---- 4. AdaStop's decision table headed unambiguously whatever the agents' names ----------------------------------
def _simulate_named_adastop():
    """simulate()'s agents are named agent_1, agent_2, agent_3: the codes the decision table was headed by."""
    df = datasets.simulate(agents=3, tasks=1, seeds=10, effect=[0, 0.5, 1.5], rng=0)[["agent", "score", "seed"]]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return rlstats.adastop(df, "score ~ agent", n=5, K=2, rng=0, reference="agent_3", permutations="joint")


def test_adastop_decision_table_headers_are_no_agent_names():
    res = _simulate_named_adastop()
    assert list(res.tidy().columns[:7]) == ["agent_1", "agent_2", "decision", "interim", "estimate", "n_1", "n_2"]
    lines = str(res).splitlines()
    head = lines.index(next(line for line in lines if line.startswith("decisions (")))
    assert lines[head].startswith("decisions (the first agent against the second; larger or smaller: their score "
                                  "distributions differ")
    assert lines[head + 1].split("  ")[1:3] == ["1st agent", "2nd agent"]
    assert "runs of 1st  runs of 2nd" in lines[head + 1]
    assert lines[head + 2].split() == ["agent_3", "agent_1", "larger", "1", "21.445", "5", "5"]
    latex = res.summary().to_latex()
    assert "agent 1" not in latex and "agent 2" not in latex and "runs 1" not in latex
    decisions = latex.split("\\end{table}")[0]
    assert "In every column, 1st agent: agent\\_3" in decisions
    assert "2nd agent & agent\\_1 & agent\\_2" in decisions
    assert "runs of 1st & 5 & 10" in decisions and "runs of 2nd & 5 & 10" in decisions
    # the summary's DataFrames and tidy() keep the codes (public API)
    assert list(res.summary().tables["Decisions"].columns[:2]) == ["agent_1", "agent_2"]


def test_adastop_command_heads_the_decisions_as_the_print_does(repeated_batches, tmp_path):
    state = tmp_path / "s.json"
    status, text = run("adastop", "update", str(state), str(repeated_batches[0]), "--K", "3", "--seed", "0")
    assert status == 0
    header = next(line for line in text.splitlines() if "decision" in line and "interim" in line)
    assert header.split("  ")[:2] == ["1st agent", "2nd agent"] and "agent_1" not in header
    assert "runs of 1st  runs of 2nd" in header


def test_latex_of_a_test_before_its_first_batch():
    """tests/test_audit_s16_ada.py's reproducer fails on main (polish26's caption of a step-down that acted at no
    interim looked up the first of no interims)."""
    seq = AdaStop(["A", "B"], n=3, K=3, n_resamples=200, rng=0)
    latex = seq.result().summary().to_latex()
    assert "Interims 1-3 are not run yet: their levels are the schedule's." in latex
    assert "No step rejected" not in latex and "else none." in latex and "(1st agent, 2nd agent)" not in latex


# ---- 5. every field of every result class named in that class's own docstring ------------------------------------
def _result_classes():
    """Each registered back end's result class and every Result subclass the back-end folders define."""
    from rlstats.methods import DECLARATIONS, load
    from rlstats.results import Result

    found = {}
    for declared in DECLARATIONS.values():
        cls = load(declared.result) if isinstance(declared.result, str) else declared.result
        found[cls.__name__] = cls
    stack = [Result]
    while stack:
        for sub in stack.pop().__subclasses__():
            stack.append(sub)
            if sub.__module__.startswith("rlstats.methods."):
                found.setdefault(sub.__name__, sub)
    return found


def _attribute_entries(doc):
    """The names a numpydoc Attributes section gives an entry (``a, b : type`` lines)."""
    section = re.search(r"(?ms)^Attributes\n-+\n(.*?)(?:^\S[^\n]*\n-+\n|\Z)", doc)
    names = set()
    for line in section.group(1).splitlines() if section else ():
        entry = re.match(r"([A-Za-z_]\w*(?:\s*,\s*[A-Za-z_]\w*)*)\s*(?::|$)", line)
        if entry:
            names.update(name.strip() for name in entry.group(1).split(","))
    return names


def _undocumented_fields():
    """Result class -> its public dataclass fields its own docstring neither gives an entry nor names as ``name``
    (the documentation site shows each class's docstring alone: numpydoc_show_class_members = False)."""
    missing = {}
    for name, cls in _result_classes().items():
        doc = inspect.getdoc(cls) or ""
        entries = _attribute_entries(doc)
        absent = [f.name for f in dataclasses.fields(cls)
                  if not f.name.startswith("_") and f.name not in entries and f"``{f.name}``" not in doc]
        if absent:
            missing[name] = absent
    return missing


def test_every_result_field_is_documented_in_its_class():
    classes = _result_classes()
    assert len(classes) >= 15 and "PermutationResult" in classes
    assert _undocumented_fields() == {}
