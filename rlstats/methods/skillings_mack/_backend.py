"""The blocked rank tests' declaration (read by the registry, :mod:`rlstats.methods`)."""

from .._declaration import Backend, PowerRule

_HERE = "rlstats.methods.skillings_mack"


def citations(result, keys):
    """Friedman (1937) first when the test run was Friedman's."""
    return ["friedman1937", *keys] if str(getattr(result, "method", "")).startswith("Friedman") else list(keys)


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
        power=PowerRule(
            key=11, label="blocked rank test", decide=f"{_HERE}._power:decide", sentence=f"{_HERE}._power:sentence",
            call=f"{_HERE}._power:call_options", outcomes=f"{_HERE}._api:pvalue_only",
            decide_outcomes=f"{_HERE}._power:decide_pvalue", batch_pvalues=f"{_HERE}._api:batch_pvalues"),
    ),
)
