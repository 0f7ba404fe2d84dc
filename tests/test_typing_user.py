"""Types a user can trust (issue 42 item 5).

Every string option with a fixed set of values is a ``typing.Literal`` (rlstats/_typing.py): each Literal here is
checked against the tuple its option is checked against at run time, and against the public signatures that use
it, so the two cannot drift. ``compare()``'s overloads (rlstats/__init__.pyi) return the declared result class of
each registered method. The typed user script tests/typing/user_script.py passes ``mypy --strict`` and pyright
(strict), and its lines marked ``# type: ignore[...]`` must fail (unused ignores are errors in both). And
``pyright --verifytypes rlstats`` finds a known type for at least :data:`MIN_TYPE_COMPLETENESS` of the package's
public symbols (what a user's editor and type checker see of the names a user can import).
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import json
import inspect
import os
import shutil
import subprocess
import sys
import typing
from pathlib import Path

import pytest

import rlstats
from rlstats import _typing

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "tests" / "typing" / "user_script.py"
#: the least share of public symbols with a known type in ``pyright --verifytypes rlstats`` (issue 42 item 5)
MIN_TYPE_COMPLETENESS = 0.90


def _runtime(module, name):
    return getattr(importlib.import_module(module), name)


# alias -> (the run-time vocabulary it mirrors, the public parameters annotated with it)
LITERALS = {
    "NaAction": (lambda: _runtime("rlstats.design", "NA_ACTIONS"),
                 [("rlstats.methods.bootstrap._api", "bootstrap", "na_action"),
                  ("rlstats.methods.skillings_mack._api", "skillings_mack", "na_action"),
                  ("rlstats.methods.adastop._api", "adastop", "na_action"),
                  ("rlstats.methods.mixed._api", "mixed", "na_action"), ("rlstats.runs", "align_steps", "na_action"),
                  ("rlstats.design", "build", "na_action")]),
    "ReportFormat": (lambda: _runtime("rlstats.results", "REPORT_FORMATS"),
                     [("rlstats.results", "Result.report", "format")]),
    "RankVariant": (lambda: _runtime("rlstats.methods.skillings_mack._api", "VARIANTS"),
                    [("rlstats.methods.skillings_mack._api", "skillings_mack", "variant")]),
    "RankPvalue": (lambda: _runtime("rlstats.methods.skillings_mack._api", "PVALUE_METHODS"),
                   [("rlstats.methods.skillings_mack._api", "skillings_mack", "pvalue")]),
    "RankPosthoc": (lambda: _runtime("rlstats.methods.skillings_mack._api", "POSTHOC"),
                    [("rlstats.methods.skillings_mack._api", "skillings_mack", "posthoc")]),
    "RankAdjustment": (lambda: _runtime("rlstats.methods.skillings_mack._kernels", "ADJUSTMENTS"),
                       [("rlstats.methods.skillings_mack._api", "skillings_mack", "adjustment")]),
    "WithinCell": (lambda: tuple(v for v in _runtime("rlstats.methods.skillings_mack._api", "WITHIN_CELL")
                                 if v is not None),
                   [("rlstats.methods.skillings_mack._api", "skillings_mack", "within_cell")]),
    "Ddf": (lambda: _runtime("rlstats.methods.mixed._api", "DDF"), [("rlstats.methods.mixed._api", "mixed", "ddf")]),
    "MixedAdjust": (lambda: _runtime("rlstats.methods.mixed._api", "ADJUST"),
                    [("rlstats.methods.mixed._api", "mixed", "adjust")]),
    # audit s33 mixed33: the omnibus F's basis
    "FBasis": (lambda: _runtime("rlstats.methods.mixed._api", "F_BASIS"),
               [("rlstats.methods.mixed._api", "mixed", "f_basis")]),
    # issue 41 item 1
    "BayesModel": (lambda: _runtime("rlstats.methods.bayes._api", "MODELS"), [("rlstats.methods.bayes._api", "bayes", "model")]),
    "BootstrapInterval": (lambda: _runtime("rlstats.methods.bootstrap._api", "INTERVALS"),
                          [("rlstats.methods.bootstrap._api", "bootstrap", "interval")]),
    "ImprovementInterval": (lambda: _runtime("rlstats.methods.bootstrap._api", "IMPROVEMENT_INTERVALS"),
                            [("rlstats.methods.bootstrap._api", "probability_of_improvement", "interval")]),
    "ProfileInterval": (lambda: _runtime("rlstats.methods.bootstrap._api", "PROFILE_INTERVALS"),
                        [("rlstats.methods.bootstrap._api", "performance_profile", "interval")]),
    "PercentileInterval": (lambda: _runtime("rlstats.methods.percentiles._api", "INTERVALS"),
                           [("rlstats.methods.percentiles._api", "percentiles", "interval")]),
    "PercentileTies": (lambda: _runtime("rlstats.methods.percentiles._api", "TIES"),
                       [("rlstats.methods.percentiles._api", "percentiles", "ties")]),
    "TaskStatistic": (lambda: tuple(_runtime("rlstats.methods.task_table._kernels", "SUMMARIES")),
                      [("rlstats.methods.task_table._api", "task_table", "statistic")]),
    "TaskTest": (lambda: _runtime("rlstats.methods.task_table._kernels", "TESTS"),
                 [("rlstats.methods.task_table._api", "task_table", "test")]),
    "TaskAdjustment": (lambda: _runtime("rlstats.methods.task_table._api", "ADJUSTMENTS"),
                       [("rlstats.methods.task_table._api", "task_table", "adjustment")]),
    "EffectIntervals": (lambda: _runtime("rlstats.methods.task_table._kernels", "EFFECT_INTERVALS"),
                        [("rlstats.methods.task_table._api", "task_table", "effect_intervals")]),
    "CurveStatistic": (lambda: _runtime("rlstats.methods.curves._kernels", "STATISTICS"),
                       [("rlstats.methods.curves._api", "curves", "statistic")]),
    "CurveBands": (lambda: _runtime("rlstats.methods.curves._api", "BAND_METHODS"),
                   [("rlstats.methods.curves._api", "curves", "bands")]),
    "AlignMethod": (lambda: _runtime("rlstats.runs", "ALIGN_METHODS"),
                    [("rlstats.runs", "align_steps", "method"), ("rlstats.runs", "summarize_runs", "method"),
                     ("rlstats.methods.curves._api", "curves", "align")]),
    "RunSummary": (lambda: _runtime("rlstats.runs", "SUMMARIES"), [("rlstats.runs", "summarize_runs", "how")]),
    "Permutations": (lambda: _runtime("rlstats.methods.adastop._api", "PERMUTATIONS"),
                     [("rlstats.methods.adastop._api", "adastop", "permutations"),
                      ("rlstats.methods.adastop._api", "permutation", "permutations"),
                      ("rlstats.methods.adastop._incremental", "AdaStop.__init__", "permutations")]),
    "LogFormatName": (lambda: tuple(_runtime("rlstats.logs._formats", "FORMATS")),
                      [("rlstats.logs._read", "read_logs", "format")]),
    "LogKeep": (lambda: _runtime("rlstats.logs._read", "KEEP"), [("rlstats.logs._read", "read_logs", "keep")]),
    "LogOnError": (lambda: _runtime("rlstats.logs._read", "ON_ERROR"),
                   [("rlstats.logs._read", "read_logs", "on_error")]),
    "SmoothOver": (lambda: _runtime("rlstats.logs._smooth", "UNITS"),
                   [("rlstats.logs._read", "read_logs", "smooth_over")]),
    "ColumnNames": (lambda: ("rlstats", "broom"), [("rlstats.results", "Result.tidy", "names")]),
    # issue 40 item 1
    "ExpectedMaxBand": (lambda: _runtime("rlstats.methods.tuning._api", "BANDS"),
                        [("rlstats.methods.tuning._api", "tuning", "band")]),
    "TunedLower": (lambda: _runtime("rlstats.methods.tuning._api", "TUNED_LOWER"),
                   [("rlstats.methods.tuning._api", "tuning", "tuned_lower")]),
    "CompleteInterval": (lambda: _runtime("rlstats.methods.tuning._api", "COMPLETE_INTERVALS"),
                         [("rlstats.methods.tuning._api", "tuning", "complete_interval")]),
    # issue 43 item 3
    "DaskBackend": (lambda: _runtime("rlstats.engines", "CLUSTER_BACKENDS"),
                    [("rlstats.methods.bootstrap._api", "bootstrap", "backend"),
                     ("rlstats.methods.tuning._api", "tuning", "backend")]),
    # issue 41 item 2
    "EquivalenceAlternative": (lambda: _runtime("rlstats.methods.equivalence._api", "ALTERNATIVES"),
                               [("rlstats.methods.equivalence._api", "equivalence", "alternative")]),
    "EquivalenceAcross": (lambda: _runtime("rlstats.methods.equivalence._api", "ACROSS"),
                          [("rlstats.methods.equivalence._api", "equivalence", "across")]),
    "EquivalenceAggregate": (lambda: _runtime("rlstats.methods.equivalence._api", "AGGREGATES"),
                             [("rlstats.methods.equivalence._api", "equivalence", "aggregate")]),
}


@pytest.mark.parametrize("alias", sorted(LITERALS))
def test_each_option_literal_is_the_set_the_code_accepts(alias):
    runtime, parameters = LITERALS[alias]
    literal = getattr(_typing, alias, None) or getattr(importlib.import_module(parameters[0][0]), alias)
    assert typing.get_origin(literal) is typing.Literal
    assert sorted(typing.get_args(literal)) == sorted(runtime()), f"_typing.{alias} differs from the run-time choices"
    for module, qualname, parameter in parameters:
        function = importlib.import_module(module)
        for part in qualname.split("."):
            function = getattr(function, part)
        annotation = inspect.signature(function).parameters[parameter].annotation
        written = str(annotation).replace(" ", "").split("|")
        assert alias in written, f"{module}.{qualname}({parameter}=) is {annotation}"


def test_every_literal_of_the_typing_module_and_the_back_ends_is_checked_here():
    from rlstats.methods import FOLDERS

    modules = [_typing, *(importlib.import_module(f"rlstats.methods.{folder}._api") for folder in FOLDERS)]
    literals = {name for module in modules for name, value in vars(module).items()
                if typing.get_origin(value) is typing.Literal}
    assert literals == set(LITERALS)


def test_a_literal_value_outside_the_set_is_refused_at_run_time_too():
    # the Literal and the check agree on a typo the issue names: both refuse it
    df = rlstats.datasets.simulate(agents=2, tasks=3, seeds=2, rng=0)
    with pytest.raises(rlstats.OptionError, match="kenward-roger"):
        rlstats.mixed(df, "score ~ agent | task", ddf="kenward_roger")  # type: ignore[arg-type]
    res = rlstats.skillings_mack(df, "score ~ agent | task")
    with pytest.raises(rlstats.OptionError, match="latex"):
        res.report(format="markdown")  # type: ignore[arg-type]


def _overloads():
    """method name (None for the default) -> the result class names compare()'s stub overload returns."""
    stub = ast.parse((Path(rlstats.__file__).with_suffix(".pyi")).read_text(encoding="utf-8"))
    out = {}
    for node in stub.body:
        if isinstance(node, ast.FunctionDef) and node.name == "compare":
            method = next(a for a in node.args.args if a.arg == "method").annotation
            key = None if isinstance(method, ast.Constant) else method.slice.value
            returned = node.returns
            names = ([returned.left.id, returned.right.id] if isinstance(returned, ast.BinOp) else [returned.id])
            out[key] = sorted(names)
    return out


def test_compare_overloads_return_each_registered_methods_result_class():
    from rlstats.methods import DECLARATIONS, DEFAULTS

    overloads = _overloads()
    declared = {name: [declared.result_name] for name, declared in DECLARATIONS.items()}
    assert {k: v for k, v in overloads.items() if k is not None} == declared
    # without method=, the type checker cannot read the formula: the union of the two defaults
    assert overloads[None] == sorted(DECLARATIONS[name].result_name for name in DEFAULTS.values())


def test_compare_returns_what_its_overload_says():
    df = rlstats.datasets.simulate(agents=3, tasks=4, seeds=2, rng=0)
    blocked = rlstats.compare(df, "score ~ agent | task")
    one_task = rlstats.compare(df, "score ~ agent", subset=f"task == '{df['task'].iloc[0]}'", n_resamples=200, rng=0)
    assert sorted([type(blocked).__name__, type(one_task).__name__]) == _overloads()[None]
    res = rlstats.compare(df, "score ~ agent | task", method="bootstrap", n_resamples=100, rng=0)
    assert isinstance(res, rlstats.BootstrapResult)


def test_the_user_script_runs():
    spec = importlib.util.spec_from_file_location("user_script", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.main() == 0


def _env():
    return {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}


def _current_numpy():
    """The script is checked against current stubs: before numpy 2, ``np.ndarray`` has no default type arguments,
    so every array the package annotates reads as partially unknown (CI's oldest-versions run)."""
    import numpy as np

    if int(np.__version__.split(".")[0]) < 2:
        pytest.skip(f"numpy {np.__version__}'s stubs give ndarray no default type arguments: the typed check runs "
                    "with numpy >= 2")


@pytest.mark.slow  # 7-9 s of mypy: the default run's budget; .ci/run's mypy step runs the same check
def test_the_user_script_passes_mypy_strict_and_its_bad_lines_fail():
    pytest.importorskip("mypy", reason="mypy is not installed (the test extra has it)")
    _current_numpy()
    if importlib.util.find_spec("pandas-stubs") is None and not list(
            Path(p) for p in sys.path if (Path(p) / "pandas-stubs").is_dir()):
        pytest.skip("pandas-stubs is not installed: mypy --strict would see pandas as untyped")
    done = subprocess.run([sys.executable, "-m", "mypy", "--strict", "--config-file",
                           str(SCRIPT.with_name("mypy.ini")), "--no-incremental", str(SCRIPT)],
                          capture_output=True, text=True, cwd=ROOT, env=_env())
    assert done.returncode == 0, done.stdout + done.stderr


def _pyright():
    pyright = shutil.which("pyright") or shutil.which("pyright", path=str(Path(sys.executable).parent))
    if pyright is None:
        pytest.skip("pyright is not installed (pip install pyright)")
    return pyright


@pytest.mark.slow  # 5 s of pyright: the default run's budget; the mypy --strict check of the same script stays
def test_the_user_script_passes_pyright_strict_and_its_bad_lines_fail():
    pyright = _pyright()
    _current_numpy()
    done = subprocess.run([pyright, "--pythonpath", sys.executable, str(SCRIPT)],
                          capture_output=True, text=True, cwd=ROOT, env=_env())
    assert done.returncode == 0, done.stdout + done.stderr
    assert "0 errors" in done.stdout


@pytest.mark.slow  # 7-14 s of pyright: the default run's budget; the strict user-script check stays in it
def test_pyright_knows_the_type_of_most_public_symbols():
    # pyright's own measure of what a user sees: every public symbol of every public module (a name or module
    # starting with "_" is private; rlstats/__init__.pyi stands for the lazy package face), known when its
    # declared type is complete. Types of other packages that pyright cannot read (pandas without its stubs,
    # patsy) are left out of the count (--ignoreexternal).
    pyright = _pyright()
    _current_numpy()
    done = subprocess.run([pyright, "--pythonpath", sys.executable, "--verifytypes", "rlstats", "--ignoreexternal",
                           "--outputjson"], capture_output=True, text=True, cwd=ROOT, env=_env())
    try:
        report = json.loads(done.stdout)["typeCompleteness"]
    except (ValueError, KeyError):  # pyright itself did not run (no node, and none to fetch): nothing to measure
        pytest.skip(f"pyright --verifytypes did not run: {(done.stderr or done.stdout).strip()[:500]}")
    counts = report["exportedSymbolCounts"]
    total = sum(counts.values())
    assert total > 500, f"pyright found {total} public symbols of rlstats: {done.stdout[:2000]}"
    unknown = {}
    for symbol in report["symbols"]:
        if symbol["isExported"] and not symbol["isTypeKnown"]:
            owner, _, name = symbol["name"].rpartition(".")
            unknown.setdefault(owner, []).append(name)
    lines = [f"  {owner}: {', '.join(names)}" for owner, names in sorted(unknown.items())]
    assert report["completenessScore"] >= MIN_TYPE_COMPLETENESS, (
        f"{counts['withKnownType']} of {total} public symbols have a known type "
        f"({report['completenessScore']:.1%}, below {MIN_TYPE_COMPLETENESS:.0%}); unknown or ambiguous, by module:\n"
        + "\n".join(lines))
