"""The blocked rank tests' declaration (read by the registry, :mod:`rlstats.methods`).

When to use
-----------
To ask whether agents differ at all across a benchmark of several tasks, whatever the tasks' scales: the test
ranks runs within each task, so it needs no normalisation and no task can dominate the others. It is
``compare()``'s default with blocks. With one run per agent and task it is Friedman's test (Skillings-Mack when
cells are missing); with several seeds it ranks every run (Mack-Skillings) rather than averaging the seeds. Its
post hoc, drawn as the critical-difference diagram, says which pairs differ. It answers whether agents differ,
not by how much: report an effect size beside it (:func:`rlstats.bootstrap`, :func:`rlstats.task_table`).
"""

from .._declaration import Backend, PowerRule

_HERE = "rlstats.methods.skillings_mack"


def citations(result, keys):
    """Friedman (1937) or Quade (1979) first when that test was run, then the post hoc's sources."""
    method = str(getattr(result, "method", ""))
    first = ["friedman1937"] if method.startswith("Friedman") else ["quade1979", "conover1999"] \
        if method.startswith("Quade") else []
    posthoc = {"exact": ["eisinga2017"], "wilcoxon": ["kerby2014"], "conover": ["conover1999"]}.get(
        getattr(result, "posthoc", None), [])
    control = ["demsar2006"] if getattr(result, "control", None) is not None else []
    return [*first, *keys, *posthoc, *control]


BACKENDS = (
    Backend(
        name="skillings_mack",
        function=f"{_HERE}._api:skillings_mack",
        result=f"{_HERE}._result:SkillingsMackResult",
        options=f"{_HERE}._api:SkillingsMackOptions",
        citations=("skillings1981", "mack1980", "casesa2024"),
        cite=f"{_HERE}._backend:citations",
        default_for="with blocks",
        contract=("score ~ agent | task", {}),
        demo=("score ~ agent | task", {}),
        no_replication="it ranks agents within each task and tests across tasks: one run per agent and task is its "
                       "design (Friedman's test), and it has no output per cell",
        power=PowerRule(
            key=11, label="blocked rank test", decide=f"{_HERE}._power:decide", sentence=f"{_HERE}._power:sentence",
            call=f"{_HERE}._power:call_options", outcomes=f"{_HERE}._api:pvalue_only",
            decide_outcomes=f"{_HERE}._power:decide_pvalue", batch_pvalues=f"{_HERE}._api:batch_pvalues"),
    ),
)

#: the tidy and glance columns only this folder's results report: (column, attribute, printed label,
#: description) rows, which rlstats.vocabulary reads through the registry
VOCABULARY = (
    ("withheld", None, "withheld",
     "whether the comparison's decision was withheld because the omnibus test did not reject (p-values kept)"),
    ("mean_rank", "mean_ranks", "mean rank", "mean within-task rank on the 1..k scale (1 = best)"),
    ("rank_sum", None, "rank sum", "sum over tasks of the within-task mean rank of the agent's runs"),
    ("n_tasks_present", None, "tasks", "number of tasks in which the agent has runs"),
    ("critical_difference", "critical_difference", "critical difference",
     "smallest difference of mean ranks declared significant (balanced designs)"),
    ("variant", "variant", "variant", "which statistic of a family was computed"),
    ("connected", "connected", "connected", "whether every pair of agents is linked through shared tasks"),
    ("rank_biserial", None, "rank-biserial r",
     "matched-pairs rank-biserial correlation of a Wilcoxon comparison, (V - V') / (V + V') (Kerby 2014)"),
    ("df_denominator", "df_denominator", "denom. df", "denominator degrees of freedom of Quade's F"),
)
