"""Benchmark (issue 27): how fast the ``rlstats`` command and ``import rlstats`` start, beside R and adastop.

Run from the repository root::

    python benchmarks/bench_startup.py
    python benchmarks/bench_startup.py --repeat 20 --adastop /tmp/adastop-venv/bin/adastop

Every figure is the best of ``--repeat`` wall-clock runs of a command in a
fresh subprocess (the run least disturbed by other work on the machine).  The
commands compared with each other run in turn, round after round, so that a
ratio compares runs made under the same load:

* the interpreter alone, the import of the dependencies ``rlstats`` cannot do
  without at its first call (numpy, pandas, patsy), ``import rlstats``, its
  first call's imports (``rlstats.compare`` and the default back end) and every
  public name (``from rlstats import *``);
* ``rlstats --version``, ``--help`` and ``compare --help``;
* ``rlstats compare`` on a 30-row CSV (3 agents x 10 tasks, ``score ~ agent | task``,
  the default method: the blocked rank test, which on so few tasks adds a
  10,000-permutation p-value) beside ``Rscript -e 'friedman.test(...)'`` on the
  same file, and the same call with ``-o pvalue=asymptotic`` (R's p-value);
* one ``rlstats adastop update`` batch (the first, which creates the state; 4 agents,
  n = 5, K = 5, B = 10,000) beside ``adastop compare`` of the reference package
  on the same wide CSV (its own command line, state removed before each run).

The command is the console script installed beside this interpreter (else
``python -m rlstats``).  Compiled bytecode is cached as an installed package has
it: the runs write and read it under a temporary ``PYTHONPYCACHEPREFIX`` even
where ``PYTHONDONTWRITEBYTECODE`` is set (``--as-is`` keeps the environment
unchanged; without a cache every module of rlstats is compiled at each start).
A peer that is not installed is skipped with a line saying so.  The load
average is printed before and after.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd

import rlstats
from measure import run_times  # benchmarks/measure.py

FORMULA = "score ~ agent | task"
FRIEDMAN = f'd <- read.csv("small.csv"); print(friedman.test({FORMULA}, data = d))'


def load_average():
    try:
        return Path("/proc/loadavg").read_text().split()[:3]
    except OSError:
        return ["n/a"]


def rlstats_command():
    """The installed ``rlstats`` script beside this interpreter, else ``python -m rlstats``."""
    script = Path(sys.executable).with_name("rlstats")
    return [str(script)] if script.is_file() else [sys.executable, "-m", "rlstats"]


def runner(command, folder, env, state=None):
    """A call that runs ``command`` once in ``folder`` (removing ``state`` first) and fails loudly."""
    def once():
        if state is not None:
            (folder / state).unlink(missing_ok=True)
        done = subprocess.run(command, cwd=folder, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                              text=True)
        if done.returncode != 0:
            raise SystemExit(f"{' '.join(command)} failed ({done.returncode}): {done.stderr.strip()[-500:]}")

    return once


def best_in_turn(calls, repeat):
    """Best seconds of each call over ``repeat`` rounds, each round running every call once, in turn."""
    for call in calls:
        call()  # checked once; its files are then in the page cache and its bytecode compiled
    rounds = [run_times(call, 1)[0] for _ in range(repeat) for call in calls]
    return [min(rounds[i::len(calls)]) for i in range(len(calls))]


def write_inputs(folder):
    small = rlstats.datasets.simulate(agents=3, tasks=10, seeds=1, effect=1.0, rng=0)
    small.to_csv(folder / "small.csv", index=False)
    rng = np.random.default_rng(0)
    batch = pd.DataFrame({f"agent_{i}": rng.normal(0.3 * i, 1.0, size=5) for i in range(1, 5)})
    batch.to_csv(folder / "batch.csv")  # the reference tool reads the first column as the index


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=10, help="rounds; the best run of each command is shown (10)")
    parser.add_argument("--rscript", default=shutil.which("Rscript"), help="Rscript to compare with (default: on PATH)")
    parser.add_argument("--adastop", default=shutil.which("adastop"),
                        help="the adastop package's command (default: on PATH; e.g. a venv's bin/adastop)")
    parser.add_argument("--as-is", action="store_true",
                        help="run in this environment as it is (no bytecode cache where PYTHONDONTWRITEBYTECODE is set)")
    args = parser.parse_args(argv)

    python, command = sys.executable, rlstats_command()
    print(f"load average at the start: {' '.join(load_average())}; best of {args.repeat} runs each; "
          f"command: {' '.join(command)}; bytecode {'as the environment has it' if args.as_is else 'cached'}")
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        write_inputs(folder)
        env = dict(os.environ)
        if not args.as_is:
            env.pop("PYTHONDONTWRITEBYTECODE", None)
            env["PYTHONPYCACHEPREFIX"] = str(folder / "bytecode")  # not in the checkout or site-packages

        def group(*rows):
            """rows of (label, argv, state, peer label or None): timed in turn; a peer is the group's last row."""
            seconds = best_in_turn([runner(argv, folder, env, state) for _, argv, state, _ in rows], args.repeat)
            return [(label, s, peer) for (label, _, _, peer), s in zip(rows, seconds)]

        imports = group(("python -c pass", [python, "-c", "pass"], None, None),
                        ("import rlstats", [python, "-c", "import rlstats"], None, "deps"),
                        ("import rlstats; rlstats.compare + default back end",
                         [python, "-c", "import rlstats, rlstats.methods.skillings_mack; rlstats.compare"], None, "deps"),
                        ("from rlstats import * (every public name)", [python, "-c", "from rlstats import *"], None,
                         "deps"),
                        ("import numpy, pandas, patsy (dependencies)", [python, "-c", "import numpy, pandas, patsy"],
                         None, None))
        starts = group(("rlstats --version", [*command, "--version"], None, None),
                       ("rlstats --help", [*command, "--help"], None, None),
                       ("rlstats compare --help", [*command, "compare", "--help"], None, None))
        compares = [("rlstats compare (30 rows, default method)", [*command, "compare", "small.csv", FORMULA], None,
                     "R"),
                    ("  same, -o pvalue=asymptotic", [*command, "compare", "small.csv", FORMULA, "-o",
                                                      "pvalue=asymptotic"], None, "R")]
        if args.rscript:
            compares.append(("Rscript friedman.test (same CSV)", [args.rscript, "-e", FRIEDMAN], None, None))
        else:
            print("Rscript not found (apt-get install r-base-core, or pass --rscript): R's friedman.test skipped")
        compares = group(*compares)
        updates = [("rlstats adastop update (first batch)", [*command, "adastop", "update", "state.json", "batch.csv",
                                                             "--n", "5", "--K", "5", "--n-resamples", "10000", "--seed",
                                                             "0"], "state.json", "adastop")]
        if args.adastop:
            updates.append(("adastop compare (its own command)", [args.adastop, "compare", "-K", "5", "-N", "5", "-B",
                                                                  "10000", "--seed", "0", "batch.csv"],
                            ".adastop_comparator.pkl", None))
        else:
            print("adastop's command not found (pip install adastop into a venv and pass --adastop): skipped")
        updates = group(*updates)

    peers = {"deps": imports[-1], "R": compares[-1] if args.rscript else None,
             "adastop": updates[-1] if args.adastop else None}
    width = max(len(label) for label, _, _ in imports + starts + compares + updates)
    print(f"{'':{width}}  {'seconds':>8}  ratio")
    for label, seconds, peer in imports + starts + compares + updates:
        beside = peers.get(peer)
        ratio = f"  {seconds / beside[1]:5.2f}x {beside[0].split(' (')[0]}" if beside else ""
        print(f"{label:{width}}  {seconds:8.3f}{ratio}")
    print(f"load average at the end: {' '.join(load_average())}")


if __name__ == "__main__":
    main()
