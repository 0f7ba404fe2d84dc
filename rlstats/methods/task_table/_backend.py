"""The per-task table's declaration (read by the registry, :mod:`rlstats.methods`)."""

from .._declaration import Backend

_HERE = "rlstats.methods.task_table"

BACKENDS = (
    Backend(
        name="task_table",
        function=f"{_HERE}._api:task_table",
        result=f"{_HERE}._result:TaskTableResult",
        no_options="its keywords are checked in its function (issue 30, item 2, gives it an Options class)",
        citations=("mogstad2024", "holm1979", "neubert2007", "brunner2000", "vargha2000", "steiger1997"),
        contract=("score ~ agent | task", {}),
        demo=("score ~ agent | task", {}),
        no_power="its possibly-best sets and effect sizes are confidence statements per task, whose coverage "
                 "calibration.csv measures; there is no one decision for power() to count",
    ),
)
