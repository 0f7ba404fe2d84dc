"""Which logged tags or column names read as an evaluation return: the word rule that read_logs() chooses a return
tag by and that a formula's unknown response is answered with (``score`` -> `eval/mean_reward`). No package imports:
rlstats.formula and rlstats.logs both read it."""
from __future__ import annotations

import re
from collections.abc import Collection

RETURN_WORDS = {"return", "returns", "ret", "reward", "rewards", "rew", "score"}
EVAL_WORDS = {"eval", "evaluation", "test", "evaluate"}
SPREAD_WORDS = {"std", "min", "max", "var", "stddev", "sem", "median", "count"}


def words(tag: str) -> set[str]:
    """The words of a tag, lower case: ``eval/mean_reward`` -> eval, mean, reward; ``AverageTestEpRet`` -> average,
    test, ep, ret."""
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", tag)
    return set(re.split(r"[^A-Za-z0-9]+", spaced.lower())) - {""}


def chosen_return(available: Collection[str]) -> tuple[str | None, list[str], str]:
    """(the one tag that reads as an evaluation return or None, the candidates of the step that decided, why):
    return-like tags name a return or reward and no spread; among them those naming an evaluation win. None with
    several candidates (ambiguous) or none."""
    returns = [t for t in available if words(t) & RETURN_WORDS and not words(t) & SPREAD_WORDS]
    evaluations = [t for t in returns if words(t) & EVAL_WORDS]
    for candidates, why in ((evaluations, "the one evaluation return"), (returns, "the one return")):
        if candidates:
            return (candidates[0] if len(candidates) == 1 else None), candidates, why
    return None, [], ""
