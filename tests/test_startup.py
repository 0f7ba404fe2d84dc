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

# Runs `python -m rlstats ARGS` as the console script does, once for each list of arguments given (a JSON list of
# lists), in one fresh interpreter, and prints, for each, its exit status, its standard output and the heavy modules
# loaded by then (as JSON, the command's own output captured). The heavy modules a command loads stay loaded, so the
# commands load none between them exactly when each loads none.
PROBE = """
import contextlib, io, json, runpy, sys
said = []
for args in json.loads(sys.argv[1]):
    sys.argv = ["rlstats", *args]
    out = io.StringIO()
    status = 0
    with contextlib.redirect_stdout(out):
        try:
            runpy.run_module("rlstats", run_name="__main__", alter_sys=True)
        except SystemExit as exc:
            status = exc.code
    loaded = sorted(name for name in sys.modules if name.split(".")[0] in {heavy!r})
    said.append([status, out.getvalue(), loaded])
print(json.dumps(said))
""".format(heavy=set(HEAVY))


def loaded_by_commands(commands, cwd):
    """[(standard output, heavy modules loaded once it ran)] of each command (its arguments) in one fresh
    interpreter, run in order; each must exit with status 0."""
    done = subprocess.run([sys.executable, "-c", PROBE, json.dumps([list(args) for args in commands])],
                          capture_output=True, text=True, timeout=HANG_SECONDS, cwd=cwd)
    assert done.returncode == 0, done.stderr
    said = json.loads(done.stdout.strip().splitlines()[-1])
    for args, (status, _, _) in zip(commands, said):
        assert status in (0, None), (args, status, done.stderr)
    return [(out, loaded) for _, out, loaded in said]


def loaded_by_command(args, cwd):
    return loaded_by_commands([args], cwd)[0]


def loaded_by_code(code, cwd):
    report = f"import json, sys; print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in {set(HEAVY)!r})))"
    done = subprocess.run([sys.executable, "-c", f"{code}\n{report}"], capture_output=True, text=True,
                          timeout=HANG_SECONDS,
                          cwd=cwd)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


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


def test_version_imports_no_heavy_library(tmp_path):
    out, loaded = loaded_by_command(["--version"], tmp_path)
    assert out.strip() == f"rlstats {rlstats.__version__}"
    assert loaded == []


def test_help_imports_no_heavy_library(tmp_path):
    # every command's --help in one interpreter (nine took 1.4 s of CPU in nine): what one loads stays loaded, so
    # each list below names what its command loaded, or an earlier one
    commands = [()] + COMMANDS
    for command, (out, loaded) in zip(commands, loaded_by_commands([[*c, "--help"] for c in commands], tmp_path)):
        assert out.startswith("usage: rlstats"), (command, out)
        assert loaded == [], (command, loaded)


def test_import_rlstats_imports_no_heavy_library(tmp_path):
    assert loaded_by_code("import rlstats", tmp_path) == []


def test_a_public_subpackage_imports_under_its_public_name(tmp_path):
    # rlstats.selection's docstring calls it public: `import rlstats.selection` works, lazily, and is the
    # same module as the attribute.
    code = ("import rlstats.selection, rlstats\n"
            "from rlstats.selection import simulate as _\n"
            "assert rlstats.selection is __import__('sys').modules['rlstats.methods.selection']")
    assert "pandas" in loaded_by_code(code, tmp_path)
    assert loaded_by_code("import rlstats.selection", tmp_path) == []


def test_the_registry_and_the_back_end_folders_import_no_heavy_library(tmp_path):
    # The declarations are read at `import rlstats` and by `--help`: each folder's package and _backend load
    # their modules on first use.
    code = ("from rlstats.methods import DECLARATIONS, FOLDERS, POWER_METHODS\n"
            "import importlib\n"
            "for folder in FOLDERS:\n"
            "    importlib.import_module(f'rlstats.methods.{folder}')\n"
            "assert DECLARATIONS and POWER_METHODS")
    assert loaded_by_code(code, tmp_path) == []


def test_the_lazy_face_keeps_every_public_name_and_loads_no_scipy_or_matplotlib(tmp_path):
    # Every public name is there to see before it is loaded, and loads on first use (the back ends, power, logs,
    # the normalisation): pandas, but scipy and matplotlib are left to the functions that use them. One interpreter
    # for both checks (two cost 1.1 s more of CPU): `from rlstats import *` takes every public name, which the code
    # before it has already loaded, so it adds nothing to what is loaded.
    code = ("import rlstats, rlstats.comparison, rlstats.planning._api, rlstats.normalization\n"
            "assert callable(rlstats.compare) and callable(rlstats.power) and callable(rlstats.normalize)\n"
            "assert set(rlstats.__all__) <= set(dir(rlstats))\n"
            "assert all(getattr(rlstats, name) is not None for name in rlstats.__all__)\n"
            "assert rlstats.selection.__name__ == 'rlstats.methods.selection'\n"
            "assert rlstats.methods.METHODS and rlstats.results.Result\n"
            "from rlstats import *")
    loaded = loaded_by_code(code, tmp_path)
    assert "pandas" in loaded
    assert [m for m in loaded if m.split(".")[0] != "pandas"] == []
    with pytest.raises(AttributeError, match="no attribute 'no_such_name'"):
        rlstats.no_such_name  # noqa: B018


def test_default_compare_imports_no_scipy_and_no_matplotlib(tmp_path):
    rlstats.datasets.simulate(agents=3, tasks=10, seeds=1, effect=1.0, rng=0).to_csv(tmp_path / "small.csv",
                                                                                     index=False)
    extras = ([], ["-o", "pvalue=asymptotic"], ["--format", "json"])  # in one interpreter, as the --help above
    said = loaded_by_commands([["compare", "small.csv", "score ~ agent | task", *extra] for extra in extras], tmp_path)
    for extra, (out, loaded) in zip(extras, said):
        assert "Friedman" in out or '"statistic"' in out
        assert [m for m in loaded if m.split(".")[0] != "pandas"] == [], extra


def test_adastop_update_imports_no_scipy_and_no_matplotlib(tmp_path):
    lines = ["agent,score"] + [f"{agent},{score}" for agent in ("a", "b") for score in (0.1, 0.5, 0.9, 1.3, 1.7)]
    (tmp_path / "batch.csv").write_text("\n".join(lines) + "\n")
    out, loaded = loaded_by_command(["adastop", "update", "state.json", "batch.csv", "--K", "3", "--n-resamples",
                                     "500", "--seed", "0"], tmp_path)
    assert "after batch 1" in out
    assert [m for m in loaded if m.split(".")[0] != "pandas"] == []
