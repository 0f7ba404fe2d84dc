"""Every vignette runs top to bottom as a script.

Each ``vignettes/*.py`` (except ``render.py`` and helpers,
whose names start with ``_``) is executed in a subprocess with
``RLSTATS_VIGNETTE_FAST=1`` (the smoke size: a few seconds each), the dataset
loader pointed at the offline mirror ``../shared/data/raw`` and the Agg
backend.  The default size (under two minutes per vignette on two cores, about
a quarter of an hour for all) runs behind the ``slow`` marker:
``pytest -m slow``.  The full size (``RLSTATS_VIGNETTE_FULL=1``, tens of
minutes per vignette) is not run by the tests.  New vignettes are picked up
automatically.
"""

import os
import re
import sys
from pathlib import Path

import pytest

from conftest import run_child

ROOT = Path(__file__).resolve().parents[1]
VIGNETTES = sorted(p for p in (ROOT / "vignettes").glob("*.py")
                   if p.name != "render.py" and not p.name.startswith("_"))
SHARED_MIRROR = ROOT.parent / "shared" / "data" / "raw"


def _environment(fast):
    """The vignette's environment: this checkout importable, offline data, no display."""
    mirror = os.environ.get("RLSTATS_DATA_MIRROR") or (str(SHARED_MIRROR) if SHARED_MIRROR.is_dir() else None)
    if mirror is None:
        pytest.skip(f"no data mirror: RLSTATS_DATA_MIRROR is unset and {SHARED_MIRROR} does not exist "
                    "(the vignettes load published data, and the test suite runs offline)")
    env = dict(os.environ, RLSTATS_DATA_MIRROR=mirror, MPLBACKEND="Agg")
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    env.pop("RLSTATS_VIGNETTE_FULL", None)  # fast, or the default size: never the full one
    for variable in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        env.setdefault(variable, "1")  # as render.py: BLAS threads oversubscribe a busy small machine
    if fast:
        env["RLSTATS_VIGNETTE_FAST"] = "1"
    else:
        env.pop("RLSTATS_VIGNETTE_FAST", None)
    return env


def _run(path, tmp_path, fast, cpu_seconds):
    # Run from an empty directory so that a vignette cannot depend on, or write into, the checkout. Bounded in
    # CPU seconds, which load does not stretch (the wall-clock bound is only against a hang).
    done, _ = run_child([sys.executable, str(path)], cpu_seconds, cwd=tmp_path, env=_environment(fast),
                        capture_output=True, text=True)
    assert done.returncode == 0, (
        f"{path.name} exited with status {done.returncode}\n--- stderr (end) ---\n{done.stderr[-4000:]}")


def test_vignettes_found():
    assert {p.stem for p in VIGNETTES} >= {"getting_started", "blocked_rank_atari"}
    assert not any(p.name.startswith("_") for p in VIGNETTES)  # helpers start with _
    assert DEFAULT_RUN <= {p.stem for p in VIGNETTES}, "a vignette of the default run was renamed: update DEFAULT_RUN"


@pytest.mark.parametrize("path", VIGNETTES, ids=lambda p: p.stem)
def test_vignette_format(path):
    """jupytext percent cells, and no plt.show(): figures appear as cell values when rendered."""
    text = path.read_text(encoding="utf-8")
    assert "# %%" in text, f"{path.name} has no '# %%' cells (jupytext percent format)"
    assert "plt.show(" not in text, f"{path.name} calls plt.show(); end the cell with the figure instead"
    # A reader copies the code as it stands: no import of a helper module of this folder.
    assert not re.search(r"^\s*(import|from) _\w+", text, re.M), f"{path.name} imports a private helper"


#: The vignette whose smoke run the default suite keeps: the one on simulated data. The others' smoke runs (4-6.5 s
#: each) are behind -m slow here, since the documentation build (.ci/run) executes every vignette at its smoke size.
DEFAULT_RUN = {"getting_started"}


@pytest.mark.parametrize("path", [pytest.param(p, id=p.stem,
                                               marks=[] if p.stem in DEFAULT_RUN else [pytest.mark.slow])
                                  for p in VIGNETTES])
def test_vignette_runs_fast(path, tmp_path):
    _run(path, tmp_path, fast=True, cpu_seconds=300)


@pytest.mark.slow
@pytest.mark.parametrize("path", VIGNETTES, ids=lambda p: p.stem)
def test_vignette_runs_default_size(path, tmp_path):
    """The default size: under two minutes on two cores (the CPU cap leaves room for both cores' time)."""
    _run(path, tmp_path, fast=False, cpu_seconds=900)


@pytest.mark.parametrize("name, said", [("mixed_atari100k", "is missing from the mirror"),
                                        ("sb3_logs_to_paper", "Stable-Baselines3 logs are not at"),
                                        ("practical_equivalence", "is missing from the mirror")])
def test_vignette_without_its_data_fails_saying_how_to_get_them(name, said, tmp_path, monkeypatch):
    """No silent SystemExit(0): the vignette stops with DataUnavailableError, whose message the docs' box shows.
    Run as __main__ in this process (it stops at its first load, before any work; a child process cost ~1 s of CPU
    to start Python and rlstats): any SystemExit, 0 or not, or another error fails the test."""
    import runpy

    import pandas as pd

    from rlstats.errors import DataUnavailableError

    for variable, value in dict(RLSTATS_DATA_MIRROR=str(tmp_path), RLSTATS_SB3_LOGS=str(tmp_path / "no-logs"),
                                MPLBACKEND="Agg", RLSTATS_VIGNETTE_FAST="1").items():
        monkeypatch.setenv(variable, value)
    monkeypatch.chdir(tmp_path)
    # the vignettes set pandas' display width and columns before their first load: put back for the later tests
    kept = [value for option in ("display.width", "display.max_columns") for value in (option, pd.get_option(option))]
    with pd.option_context(*kept), pytest.raises(DataUnavailableError) as stopped:
        runpy.run_path(str(ROOT / "vignettes" / f"{name}.py"), run_name="__main__")
    assert said in str(stopped.value)


#: Vignettes whose numbers in the text are all printed by their code (sentences built from the results), so that no
#: typed number can drift from what the code computes: their Markdown cells hold no number.
PROSE_FROM_CODE = {"practical_equivalence"}
#: what may hold a digit in such a Markdown cell: code spans, names (CartPole-v1, Stable-Baselines3, delta0, H0),
#: the benchmark's name, the years of the references and the level of a TOST interval
_NOT_A_RESULT = re.compile(r"`[^`]*`|[A-Za-z_][\w-]*\d[\w-]*|Atari 100k|\((?:19|20)\d\d\)|1 - 2 alpha")


@pytest.mark.parametrize("name", sorted(PROSE_FROM_CODE))
def test_vignette_text_has_no_typed_numbers(name):
    """Every number such a vignette states comes from its code: a digit in its Markdown is a typed number."""
    text = (ROOT / "vignettes" / f"{name}.py").read_text(encoding="utf-8")
    cells = re.split(r"^# %%", text, flags=re.M)
    typed = [line for cell in cells if cell.startswith(" [markdown]") for line in cell.splitlines()[1:]
             if re.search(r"\d", _NOT_A_RESULT.sub("", line))]
    assert not typed, f"{name}.py states numbers in its Markdown; print them from the code instead: {typed}"


def test_typed_numbers_are_found():
    """The check above can fail: a probability, a count or a percentage typed in the text is caught."""
    for line in ("# P(rope) is 0.94 here", "# 13 of 26 games", "# the 95% interval", "# nu about 1.9"):
        assert re.search(r"\d", _NOT_A_RESULT.sub("", line)), line
    for line in ("# on CartPole-v1 with Stable-Baselines3", "# delta0 and H0", "# Corani et al. (2017)",
                 "# `RLSTATS_VIGNETTE_FAST=1`", "# the (1 - 2 alpha) interval", "# Atari 100k"):
        assert not re.search(r"\d", _NOT_A_RESULT.sub("", line)), line
