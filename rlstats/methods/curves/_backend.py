"""The learning curves' declaration (read by the registry, :mod:`rlstats.methods`)."""

from .._declaration import Backend

_HERE = "rlstats.methods.curves"

BACKENDS = (
    Backend(
        name="curves",
        function=f"{_HERE}._api:curves",
        result=f"{_HERE}._result:CurvesResult",
        options=f"{_HERE}._api:CurvesOptions",
        citations=("agarwal2021", "montielolea2019", "westfall1993", "hesterberg2015"),
        reads_curves=True,
        contract=("score ~ agent | task/seed", {"step": "step", "n_resamples": 100, "compare": "all"}),
        demo=("score ~ agent | task/seed", {"step": "step", "compare": "all", "n_resamples": 1000}),
        no_power="it compares learning curves step by step, and power() simulates one score per run",
    ),
)
