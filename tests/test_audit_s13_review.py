"""Second reading of session 13's change (219c696..main): the critical-difference diagram's footer on pairs found
alike that no bar joins (a reason untrue of some pairs), the hierarchical bayes model's bound on running chains
again (numbers by hand; its warning at bound 1 named max_seconds= alone, though memory can set it too).
"""

import numpy as np
import pandas as pd

import rlstats


def _middle_pair_differs():
    """B beats C on 12 tasks of their own (Holm p 6e-11); every other pair met on one task only (p 0.248, alike).
    Mean ranks A 1.00, B 1.07, C 1.93, D 2.00."""
    rng = np.random.default_rng(0)
    tasks = [{"B": 2.0, "C": 1.0}] * 12 + [{"A": 2.0, "B": 1.0}, {"A": 2.0, "C": 1.0}, {"A": 2.0, "D": 1.0},
                                           {"B": 2.0, "D": 1.0}, {"C": 2.0, "D": 1.0}]
    rows = [(agent, f"t{t}", seed, mean + rng.normal(0, 0.1))
            for t, agents in enumerate(tasks) for agent, mean in agents.items() for seed in range(3)]
    return pd.DataFrame(rows, columns=["agent", "task", "seed", "score"])


def test_critical_difference_footer_reason_true_when_the_agents_between_differ_from_each_other():
    """The footer read "not different, yet under no common bar (an agent between them differs from one or never met
    it): A-C, A-D and B-D". For A-D that reason is untrue: B and C, between them in rank order, each met A and D and
    neither differs from either (Holm p 0.248); no bar holds A to D because B and C differ from each other (p 6e-11).
    The line must give a reason true of every pair it names."""
    import matplotlib.pyplot as plt

    res = rlstats.compare(_middle_pair_differs(), "score ~ agent | task")
    rows = res.tidy().set_index(["agent_1", "agent_2"])
    assert rows.loc[("B", "C"), "significant"]
    assert not any(rows.loc[pair, "significant"] for pair in [("A", "B"), ("A", "C"), ("A", "D"), ("B", "D"),
                                                             ("C", "D")])
    ax = res.plot()
    try:
        said = " ".join(t.get_text().replace("\n", " ") for t in ax.texts)
        assert "not different, yet under no common bar" in said and "A-D" in said
        assert "an agent between them differs from one or never met it" not in said
        assert "every two of which met and are not different" in said
    finally:
        plt.close(ax.figure)


def test_hierarchical_extension_bound_by_time_and_memory():
    """bayes(model='hierarchical')'s bound on running chains again (``_extension_bound``) had no test of its own: the
    largest power of 2 up to 32 with (1 + 2 factor) first runs within max_seconds= and factor x chains x draws x
    tasks x pairs x 8 bytes within 500 MB. Here, by hand: a first run estimated at 1 s with max_seconds=65 allows
    32 (65 s), 64 s allows 16, 2 s none; at 26 tasks x 4 chains x 1,000 draws a pair's draws are 0.832 MB, so 15
    pairs allow 32 (399 MB), 45 pairs 8 (300 MB; 16 would be 599 MB) and 1,035 pairs none."""
    from types import SimpleNamespace

    from rlstats.methods.bayes._api import _extension_bound

    def bound(agents, seconds, max_seconds, control=None):
        design = SimpleNamespace(n_agents=agents, n_tasks=26)
        options = SimpleNamespace(control=control, chains=4, draws=1000)
        return _extension_bound(design, options, SimpleNamespace(seconds=seconds), max_seconds)

    assert [bound(2, 1.0, s) for s in (65, 64, 33, 32, 2)] == [32, 16, 16, 8, 1]
    assert bound(6, 1e-3, float("inf")) == 32                      # 15 pairs
    assert bound(10, 1e-3, float("inf")) == 8                      # 45 pairs
    assert bound(10, 1e-3, float("inf"), control="a") == 32       # 9 pairs against a control: 240 MB at 32
    assert bound(46, 1e-3, float("inf")) == 1                      # 1,035 pairs: 861 MB at 1, 2 not allowed
