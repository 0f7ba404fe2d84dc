"""Audit s31 (autocal31): the calibration table after pvalue="auto" of the rank test enumerates up to 200,000
within-task arrangements (trialfix31; it stopped at 20,000, AUTO_EXACT_LIMIT, now the post hoc pairs' alone)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import rlstats


def _balanced(agents, tasks, runs, rng=0):
    generator = np.random.default_rng(rng)
    t, a, s = np.meshgrid(np.arange(tasks), np.arange(agents), np.arange(runs), indexing="ij")
    return pd.DataFrame({"task": [f"t{i:02d}" for i in t.ravel()], "agent": [f"a{i}" for i in a.ravel()],
                         "seed": s.ravel(), "score": generator.normal(size=t.size)})


def test_chi_squared_reason_quotes_the_designs_where_chi_squared_is_taken():
    """Beyond the enumeration limit the printed reason quoted the chi-squared size 'at most 0.0525 over designs of 2-5
    agents x 3-50 tasks x 1-3 runs per cell beyond that'; two agents never take the chi-squared p-value (convolved or
    Monte Carlo), whose size there was 0.065-0.127 (0.065 at 2 x 50 x 1, 2^50 arrangements: the rule's docstring), nor
    do 3 agents with one run on fewer than 40 tasks (Monte Carlo; 0.057-0.072). The 0.0525 is of the 3-5 agent designs
    where it is taken. Audit s38 sm38 measured 3-8 agents x 3-50 tasks x 1-20 runs (tests/test_audit_s38_sm38.py): the
    reason quotes that grid's largest size, still of designs with 3 agents or more."""
    from rlstats.methods.skillings_mack import _kernels

    res = rlstats.skillings_mack(_balanced(3, 10, 3), "score ~ agent | task/seed", progress=False)
    assert res.pvalue_method == "asymptotic"
    assert "2-5 agents" not in res.pvalue_rule and "2-8 agents" not in res.pvalue_rule
    assert f"at most {_kernels._SIZE_MEASURED} on the complete designs of 3-8 agents" in res.pvalue_rule


def _row_designs():
    """{(procedure, agents, tasks, runs, configuration): (runs per (task, agent) cell as the test ranks them, the
    kernel's variant)} of the rank test's rows of the package table: ``pairs_fwer.counts`` of the configuration
    (complete where the row names none); Conover's rows summarise each cell by its mean (one value a cell)."""
    import pathlib
    import runpy

    counts_of = runpy.run_path(str(pathlib.Path(__file__).parent / "reference" / "pairs_fwer.py"))["counts"]
    table = pd.read_csv(rlstats.calibration.PATH, dtype=str, keep_default_na=False)
    table = table[table.procedure.str.startswith("skillings_mack.")]
    out = {}
    for row in table.itertuples():
        key = (row.procedure, int(row.agents), int(row.tasks), int(row.runs), row.configuration or "complete")
        cells = counts_of(*key[1:])
        if cells.max() > 1 and row.procedure != "skillings_mack.conover_fwer":
            out[key] = (cells, "mack_skillings")
        else:
            out[key] = ((cells > 0).astype(int), "skillings_mack")
    return out


def test_no_rank_test_row_of_the_table_changes_its_automatic_p_value():
    """Every design of the 828 skillings_mack.* rows (198 designs) takes the p-value it was measured with: none has
    between 20,000 and 200,000 within-task arrangements but two-agent ones (2 x 1 x 10: 184,756, and its unbalanced
    92,378), convolved either way, so the rows need no new measurement. Should the limit move again, this says which
    rows to measure anew: the cases counted below change."""
    from rlstats.methods.skillings_mack import _kernels

    designs = _row_designs()
    assert len(designs) == 198
    cases, moved = {}, []
    for key, (cells, variant) in designs.items():
        case = _kernels.auto_case(cells, variant)
        cases[case] = cases.get(case, 0) + 1
        if 20_000 < _kernels.design_relabellings(cells, 200_001) <= 200_000:
            moved.append((key, case))
    assert cases == {"convolve": 54, "enumerate": 13, "monte_carlo": 9, "asymptotic": 122}
    assert sorted(moved) == [(("skillings_mack.pairs_fwer", 2, 1, 10, "complete"), "convolve"),
                             (("skillings_mack.pairs_fwer", 2, 1, 10, "unbalanced"), "convolve"),
                             (("skillings_mack.size", 2, 1, 10, "complete"), "convolve")]


def _one_task_sums(groups, size):
    """Sum over agents of squared rank sums, one per arrangement of ranks 1..groups*size into ``groups`` labelled
    groups of ``size`` (every distinct within-task arrangement, listed recursively)."""
    import itertools

    def split(left, k):
        if k == 1:
            yield (sum(left) ** 2,)
            return
        for chosen in itertools.combinations(left, size):
            remaining = tuple(r for r in left if r not in chosen)
            for tail in split(remaining, k - 1):
                yield (sum(chosen) ** 2,) + tail

    return np.array([sum(t) for t in split(tuple(range(1, groups * size + 1)), groups)])


def _level(values, alpha=0.05):
    """The exact test's attained level from the statistic's equally likely values: the largest P(T >= t) <= alpha."""
    support, counts = np.unique(values, return_counts=True)
    tails = np.cumsum(counts[::-1])[::-1] / values.size
    return float(tails[tails <= alpha].max())


@pytest.mark.parametrize("agents, tasks, runs, arrangements, hits", [(3, 1, 4, 34_650, 1_686), (3, 6, 1, 46_656, 1_350),
                                                                    pytest.param(5, 1, 2, 113_400, 5_520,
                                                                                 marks=pytest.mark.slow)])
def test_designs_now_exact_by_default_spend_the_enumerated_level(agents, tasks, runs, arrangements, hits):
    """The balanced designs of 3-8 agents x 1-50 tasks x 1-20 runs whose automatic p-value moved (chi-squared,
    Monte Carlo at 3 x 6 x 1): now the exact test, whose level the null's enumeration gives, independently here
    (each task's rank sums listed; the statistic on a balanced design increases with the sum of squared rank sums):
    1,686 / 34,650 = 0.0487 (Kruskal-Wallis 4, 4, 4 tables: 0.049), 1,350 / 46,656 = 0.0289 (Friedman, 3 x 6:
    0.029), 5,520 / 113,400 = 0.0487. On tie-free scores the chi-squared test's size was 1,398 / 34,650 = 0.0403 at
    3 x 1 x 4 and 0 at 5 x 1 x 2 (its statistic is at most 8.73 there, below chi-squared's 9.49 on 4 df)."""
    import itertools

    from rlstats.design import design_of
    from rlstats.methods.skillings_mack import _api, _kernels

    if tasks == 1:
        values = _one_task_sums(agents, runs)
    else:  # one run a cell: each task one of the k! orders of the ranks 1..k
        orders = np.array(list(itertools.permutations(range(1, agents + 1))))
        picks = np.indices((len(orders),) * tasks).reshape(tasks, -1)
        values = (orders[picks].sum(axis=0) ** 2).sum(axis=-1)
    assert values.size == arrangements
    assert _level(values) == hits / arrangements
    frame = _balanced(agents, tasks, runs)
    formula = "score ~ agent | task" + ("/seed" if runs > 1 else "")
    assert _kernels.design_relabellings(np.full((tasks, agents), runs)) == arrangements
    assert _api.level_spent(design_of(frame, formula)) == pytest.approx(hits / arrangements, rel=1e-9)
    res = rlstats.skillings_mack(frame, formula, progress=False)
    assert res.pvalue_method == "exact" and f"{arrangements:,} within-task arrangements" in res.pvalue_rule


def _chi_squared_designs():
    """(agents, tasks, runs) of 3-5 agents x 3-50 tasks (12 counts) x 1-3 runs where pvalue="auto" takes chi-squared."""
    from rlstats.methods.skillings_mack import _kernels

    return [(k, n, c) for k in (3, 4, 5) for c in (1, 2, 3) for n in (3, 4, 5, 6, 8, 10, 12, 16, 20, 30, 40, 50)
            if _kernels.auto_case(np.full((n, k), c), "mack_skillings" if c > 1 else "skillings_mack") == "asymptotic"]


@pytest.mark.slow
def test_chi_squared_size_where_auto_takes_it():
    """The 0.0525 the printed reason quoted (until audit s38 sm38 widened the grid), against the permutation law of
    the ranks (the chi-squared test's size on tie-free scores, ``size_rank_test.chi_squared_size``), 40,000
    permutations a design (SE 0.0011) over the 97 designs (about 30 s): 0.0174 to 0.0518 (3 x 8 x 2)."""
    import pathlib
    import runpy

    chi_squared_size = runpy.run_path(str(pathlib.Path(__file__).parent / "reference" / "size_rank_test.py"))[
        "chi_squared_size"]
    designs = _chi_squared_designs()
    assert len(designs) == 97
    sizes = {d: chi_squared_size(*d, 40_000, np.random.default_rng([31, *d]))[0] for d in designs}
    worst = max(sizes, key=sizes.get)
    print(min(sizes.values()), worst, sizes[worst])
    assert sizes[worst] <= 0.0525 + 3 * np.sqrt(0.05 * 0.95 / 40_000)


def test_chi_squared_size_where_auto_takes_it_reduced():
    """The slow test's worst design (3 x 8 x 2: 0.0518 of 40,000), on 8,000 permutations; 4 x 4 x 1, conservative."""
    import pathlib
    import runpy

    chi_squared_size = runpy.run_path(str(pathlib.Path(__file__).parent / "reference" / "size_rank_test.py"))[
        "chi_squared_size"]
    assert (3, 8, 2) in _chi_squared_designs() and (4, 4, 1) in _chi_squared_designs()
    size, se, _ = chi_squared_size(3, 8, 2, 8_000, np.random.default_rng([31, 3, 8, 2]))
    assert size <= 0.0525 + 3 * se
    size, se, _ = chi_squared_size(4, 4, 1, 8_000, np.random.default_rng([31, 4, 4, 1]))
    assert size <= 0.05
