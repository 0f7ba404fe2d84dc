"""What the command and the package import before they need it (issue 27: a command line that starts fast).

Each test runs a fresh interpreter (the commands a test names run one after another in it) and lists the heavy
libraries loaded: ``rlstats --version`` and every
``--help`` load none of pandas, scipy and matplotlib; ``import rlstats`` loads none; the default
``rlstats compare`` and ``rlstats adastop update`` load no scipy and no matplotlib.  The timings are in
``benchmarks/bench_startup.py``, not here.
"""

import argparse
import json
import subprocess
import sys

import pytest

from conftest import HANG_SECONDS
import rlstats
from rlstats.cli import build_parser

HEAVY = ("pandas", "scipy", "matplotlib", "fsspec")

# Runs, in one fresh interpreter and in order, each step of a JSON list: a list of arguments runs `python -m rlstats
# ARGS` as the console script does, a string is Python code executed in a fresh namespace. It prints, for each step,
# its exit status (an exception in code: its traceback), its standard output and the heavy modules loaded by then (as
# JSON, the step's own output captured). sys.modules only grows, so the heavy modules loaded after a step are those
# its imports need plus those of the steps before it: a run of steps loads none (or only pandas) after each exactly
# when each step run alone would.
PROBE = """
import contextlib, io, json, runpy, sys, traceback
said = []
for step in json.loads(sys.argv[1]):
    out = io.StringIO()
    status = 0
    with contextlib.redirect_stdout(out):
        try:
            if isinstance(step, str):
                exec(compile(step, "<step>", "exec"), {{"__name__": "__step__"}})
            else:
                sys.argv = ["rlstats", *step]
                runpy.run_module("rlstats", run_name="__main__", alter_sys=True)
        except SystemExit as exc:
            status = exc.code
        except BaseException:
            status = traceback.format_exc()
    loaded = sorted(name for name in sys.modules if name.split(".")[0] in {heavy!r})
    said.append([status, out.getvalue(), loaded])
print(json.dumps(said))
""".format(heavy=set(HEAVY))


def loaded_by_steps(steps, cwd):
    """[(standard output, heavy modules loaded once it ran)] of each step (a command's arguments, or code) in one
    fresh interpreter, run in order; each must end with status 0."""
    done = subprocess.run([sys.executable, "-c", PROBE, json.dumps([s if isinstance(s, str) else list(s)
                                                                    for s in steps])],
                          capture_output=True, text=True, timeout=HANG_SECONDS, cwd=cwd)
    assert done.returncode == 0, done.stderr
    said = json.loads(done.stdout.strip().splitlines()[-1])
    assert len(said) == len(steps)
    for step, (status, _, _) in zip(steps, said):
        assert status in (0, None), (step, status, done.stderr)
    return [(out, loaded) for _, out, loaded in said]


def commands(parser, prefix=()):
    """Every command path of the parser: ('compare',), ('adastop',), ('adastop', 'update'), ..."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield prefix + (name,)
                yield from commands(sub, prefix + (name,))


COMMANDS = sorted(commands(build_parser()))


def test_the_walk_finds_the_commands():
    assert {("compare",), ("demo",), ("adastop", "update"), ("read-logs",)} <= set(COMMANDS)


# The steps of the three interpreters the tests below read (one each cost 2.7 s more of CPU in nine interpreters).
# None of the first's may load a heavy library; the second's first step must load pandas (so it comes first) and
# the steps after it nothing but pandas; the third holds the lazy face, which must load pandas too.
REGISTRY = ("from rlstats.methods import DECLARATIONS, FOLDERS, POWER_METHODS\n"
            "import importlib\n"
            "for folder in FOLDERS:\n"
            "    importlib.import_module(f'rlstats.methods.{folder}')\n"
            "assert DECLARATIONS and POWER_METHODS")
HELP = [(*c, "--help") for c in [()] + COMMANDS]
NO_HEAVY = ["import rlstats", "import rlstats.selection", REGISTRY, ("--version",), *HELP]
SELECTION = ("import rlstats.selection, rlstats\n"
             "from rlstats.selection import simulate as _\n"
             "assert rlstats.selection is __import__('sys').modules['rlstats.methods.selection']")
COMPARES = [("compare", "small.csv", "score ~ agent | task", *extra)
            for extra in ([], ["-o", "pvalue=asymptotic"], ["--format", "json"])]
ADASTOP = ("adastop", "update", "state.json", "batch.csv", "--K", "3", "--n-resamples", "500", "--seed", "0")
PANDAS_ONLY = [SELECTION, *COMPARES, ADASTOP]
LAZY_FACE = ("import rlstats, rlstats.comparison, rlstats.planning._api, rlstats.normalization\n"
             "assert callable(rlstats.compare) and callable(rlstats.power) and callable(rlstats.normalize)\n"
             "assert set(rlstats.__all__) <= set(dir(rlstats))\n"
             "assert all(getattr(rlstats, name) is not None for name in rlstats.__all__)\n"
             "assert rlstats.selection.__name__ == 'rlstats.methods.selection'\n"
             "assert rlstats.methods.METHODS and rlstats.results.Result\n"
             "from rlstats import *")


@pytest.fixture(scope="module")
def no_heavy(tmp_path_factory):
    """{step: (output, heavy modules loaded by then)} of NO_HEAVY's steps, run in order in one interpreter."""
    return dict(zip(NO_HEAVY, loaded_by_steps(NO_HEAVY, tmp_path_factory.mktemp("no_heavy"))))


@pytest.fixture(scope="module")
def pandas_only(tmp_path_factory):
    """The same for PANDAS_ONLY's steps, in a folder holding the runs the commands read."""
    folder = tmp_path_factory.mktemp("pandas_only")
    rlstats.datasets.simulate(agents=3, tasks=10, seeds=1, effect=1.0, rng=0).to_csv(folder / "small.csv",
                                                                                     index=False)
    lines = ["agent,score"] + [f"{agent},{score}" for agent in ("a", "b") for score in (0.1, 0.5, 0.9, 1.3, 1.7)]
    (folder / "batch.csv").write_text("\n".join(lines) + "\n")
    return dict(zip(PANDAS_ONLY, loaded_by_steps(PANDAS_ONLY, folder)))


def test_version_imports_no_heavy_library(no_heavy):
    out, loaded = no_heavy["--version",]
    assert out.strip() == f"rlstats {rlstats.__version__}"
    assert loaded == []


def test_help_imports_no_heavy_library(no_heavy):
    # every command's --help in one interpreter (nine took 1.4 s of CPU in nine), after the steps before them in
    # NO_HEAVY: what one loads stays loaded, so each list below names what its command loaded, or an earlier one
    for command in HELP:
        out, loaded = no_heavy[command]
        assert out.startswith("usage: rlstats"), (command, out)
        assert loaded == [], (command, loaded)


def test_import_rlstats_imports_no_heavy_library(no_heavy):
    assert NO_HEAVY[0] == "import rlstats"  # the first step: nothing was loaded before it
    assert no_heavy["import rlstats"][1] == []


def test_a_public_subpackage_imports_under_its_public_name(no_heavy, pandas_only):
    # rlstats.selection's docstring calls it public: `import rlstats.selection` works, lazily, and is the
    # same module as the attribute. SELECTION is the first step of its interpreter: the pandas it loads is its own.
    assert PANDAS_ONLY[0] == SELECTION and "pandas" in pandas_only[SELECTION][1]
    assert no_heavy["import rlstats.selection"][1] == []


def test_the_registry_and_the_back_end_folders_import_no_heavy_library(no_heavy):
    # The declarations are read at `import rlstats` and by `--help`: each folder's package and _backend load
    # their modules on first use.
    assert no_heavy[REGISTRY][1] == []


def test_the_lazy_face_keeps_every_public_name_and_loads_no_scipy_or_matplotlib(tmp_path):
    # Every public name is there to see before it is loaded, and loads on first use (the back ends, power, logs,
    # the normalisation): pandas, but scipy and matplotlib are left to the functions that use them. One interpreter
    # for both checks (two cost 1.1 s more of CPU): `from rlstats import *` takes every public name, which the code
    # before it has already loaded, so it adds nothing to what is loaded. Alone in its interpreter, so that the
    # pandas loaded is its own.
    [(_, loaded)] = loaded_by_steps([LAZY_FACE], tmp_path)
    assert "pandas" in loaded
    assert [m for m in loaded if m.split(".")[0] != "pandas"] == []
    with pytest.raises(AttributeError, match="no attribute 'no_such_name'"):
        rlstats.no_such_name  # noqa: B018


def test_default_compare_imports_no_scipy_and_no_matplotlib(pandas_only):
    # the three compares in one interpreter, as the --help above, after SELECTION (which loads pandas alone)
    for command in COMPARES:
        out, loaded = pandas_only[command]
        assert "Friedman" in out or '"statistic"' in out
        assert [m for m in loaded if m.split(".")[0] != "pandas"] == [], command


def test_adastop_update_imports_no_scipy_and_no_matplotlib(pandas_only):
    out, loaded = pandas_only[ADASTOP]
    assert "after batch 1" in out
    assert [m for m in loaded if m.split(".")[0] != "pandas"] == []
