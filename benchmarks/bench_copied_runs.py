"""CPU seconds of ``statistics.copied_runs`` where its candidates are many (audit s27, copies27): scores that are
means of integer returns over 75 episodes (k / 75: fine decimals, a coarse lattice), so that most cells hold
chance repeats their decimal step calls improbable and every one must be judged at its measured resolution.

- within cells: 10,000 cells (1,000 tasks x 10 agents) x 10 runs, ``copied_runs`` without ``across_blocks``;
- across tasks: 1,000 tasks x 10 agents x 10 runs, ``across_blocks`` and ``agent``: each agent's cells on tasks 2i
  and 2i + 1 share scores (4,757 of the 5,000 such pairs share 2 or more: each judged, and the pairs of tasks
  jointly).

    PYTHONPATH=. python benchmarks/bench_copied_runs.py
"""

import time

import numpy as np

from rlstats.statistics import copied_runs


def _means(rng, n_tasks, n_agents, n_runs, episodes=75):
    """Means over ``episodes`` of returns 0 or 1 (success or failure), offset per agent and per pair of tasks (tasks 2i and 2i + 1
    alike): each score is held by at most the two cells of one agent on a pair of tasks."""
    returns = rng.binomial(1, 0.5, (n_tasks, n_agents, n_runs, episodes))
    group = (np.arange(n_tasks)[:, None] // 2) * n_agents + np.arange(n_agents)[None, :]
    offset = group * 2.0 ** 0.5 * 1e-4  # at most 0.71: scores of 1 to 3, fine decimals; no lattice shared
    return (returns.mean(axis=-1) + offset[:, :, None]).ravel(), n_tasks * n_agents, n_agents, n_runs


def _timed(call, repeat=3):
    best = np.inf
    for _ in range(repeat):
        start = time.process_time()
        out = call()
        best = min(best, time.process_time() - start)
    return best, out


def main():
    rng = np.random.default_rng(0)
    y, n_cells, n_agents, n_runs = _means(rng, 1000, 10, 10)
    cell = np.repeat(np.arange(n_cells), n_runs)
    seconds, (copies, _) = _timed(lambda: copied_runs(y, cell, n_cells, np.arange(n_cells) // n_agents))
    repeats = np.bincount(cell, minlength=n_cells) - np.array([np.unique(y[cell == k]).size for k in range(n_cells)])
    print(f"within cells, {n_cells:,} cells x {n_runs} runs (means over 75 episodes), {int((repeats >= 2).sum()):,} "
          f"holding 2 repeats or more: {seconds:.2f} s CPU, {int((copies > 0).sum())} cells noted")
    y, n_cells, n_agents, n_runs = _means(rng, 1000, 10, 10)
    cell = np.repeat(np.arange(n_cells), n_runs)
    block = np.arange(n_cells) // n_agents
    seconds, (_, _, across) = _timed(lambda: copied_runs(y, cell, n_cells, block, across_blocks=True,
                                                         agent=np.arange(n_cells) % n_agents))
    print(f"across tasks, {n_cells:,} cells x {n_runs} runs: {seconds:.2f} s CPU, {across.first.size} pairs noted")


if __name__ == "__main__":
    main()
