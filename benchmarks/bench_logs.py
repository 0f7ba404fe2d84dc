"""Benchmark of ``rlstats.read_logs`` on a folder of TensorBoard event files.

Run from the repository root: ``python benchmarks/bench_logs.py`` (needs ``pip install ".[test]"``
for tensorboardX, which writes the files, and tensorboard, which decodes them).

Workload (issue 14): 1,000 runs (4 agents x 10 tasks x 25 seeds) x 500 logged steps of an
evaluation return, plus a training loss at the same steps that the reader must skip, written by
tensorboardX to ``{agent}/{task}/seed_{seed}/events.out.tfevents.*`` in a temporary folder (or
``--folder``, kept and reused). Times ``read_logs`` (best of ``--repeat``) with one job and with
two, and, for scale, the tensorboard package's own ``EventFileLoader`` on 20 of the files.
Goal: seconds, not minutes.
"""

from __future__ import annotations

import argparse
import os
import platform
import tempfile
import time
from pathlib import Path

import numpy as np

import rlstats
from measure import best_time  # benchmarks/measure.py


def write_run(folder, seed, steps):
    from tensorboardX import SummaryWriter

    rng = np.random.default_rng(seed)
    writer = SummaryWriter(str(folder), max_queue=1000, flush_secs=3600)
    curve = np.cumsum(rng.normal(0.1, 1.0, steps))
    for i in range(steps):
        writer.add_scalar("eval/mean_reward", curve[i], global_step=i * 2_000)
        writer.add_scalar("train/loss", 1.0 / (i + 1), global_step=i * 2_000)
    writer.close()


def write_logs(root, agents, tasks, seeds, steps):
    from joblib import Parallel, delayed

    jobs = [(root / f"agent_{a}" / f"task_{t:02d}" / f"seed_{s}", (a * 100 + t) * 100 + s)
            for a in range(agents) for t in range(tasks) for s in range(seeds)]
    Parallel(n_jobs=2)(delayed(write_run)(folder, seed, steps) for folder, seed in jobs)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--folder", default=None, help="where to write the logs (default: a temporary folder)")
    parser.add_argument("--steps", type=int, default=500)
    parser.add_argument("--seeds", type=int, default=25, help="seeds per agent and task (4 agents x 10 tasks)")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(args.folder or scratch)
        n_runs = 4 * 10 * args.seeds
        if len(list(root.rglob("events.out.tfevents.*"))) != n_runs:
            start = time.perf_counter()
            write_logs(root, 4, 10, args.seeds, args.steps)
            print(f"wrote {n_runs} runs x {args.steps} steps x 2 tags with tensorboardX in "
                  f"{time.perf_counter() - start:.1f} s (2 jobs)")
        size = sum(p.stat().st_size for p in root.rglob("events.out.tfevents.*"))
        print(f"{n_runs} event files, {size / 1e6:.1f} MB; {platform.python_version()}, {os.cpu_count()} cores, "
              f"numpy {np.__version__}, rlstats {rlstats.__version__}")

        def read(n_jobs):
            return rlstats.read_logs(root, "{agent}/{task}/seed_{seed}", progress=False, n_jobs=n_jobs)

        frame = read(1)
        assert frame.shape[0] == n_runs * args.steps, frame.shape
        for n_jobs in (1, 2):
            seconds = best_time(lambda: read(n_jobs), args.repeat)
            print(f"read_logs, n_jobs={n_jobs}: {seconds:.2f} s for {frame.shape[0]:,} rows "
                  f"({seconds / n_runs * 1e3:.2f} ms per run; best of {args.repeat})")

        from tensorboard.backend.event_processing.event_file_loader import EventFileLoader

        files = sorted(root.rglob("events.out.tfevents.*"))[:20]
        start = time.perf_counter()
        for path in files:
            for _ in EventFileLoader(str(path)).Load():
                pass
        per_file = (time.perf_counter() - start) / len(files)
        print(f"tensorboard's EventFileLoader (decoding only, no frame): {per_file * 1e3:.1f} ms per run, "
              f"{per_file * n_runs:.0f} s projected for {n_runs} runs")


if __name__ == "__main__":
    main()
