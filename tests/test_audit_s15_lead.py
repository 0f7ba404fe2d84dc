"""Session 15, the lead's own findings: an option naming an agent the data held but the analysis left out."""

import numpy as np
import pandas as pd
import pytest

import rlstats
from rlstats.errors import OptionError


def _frame():
    rng = np.random.default_rng(0)
    rows = [(a, f"t{t}", s, rng.normal()) for a in ("PPO", "SAC", "TD3") for t in range(4) for s in range(3)]
    return pd.DataFrame(rows, columns=["agent", "task", "seed", "score"]).astype({"agent": "category"})


@pytest.mark.parametrize("call", [
    lambda df: rlstats.equivalence(df, "score ~ agent | task", margin=0.5, control="TD3"),
    lambda df: rlstats.skillings_mack(df, "score ~ agent | task", control="TD3"),
    lambda df: rlstats.bayes(df, "score ~ agent | task", control="TD3", rng=0),
    lambda df: rlstats.selection_check(df, "score ~ agent | task", treatment="PPO", baseline="TD3", reported=["t0"]),
], ids=["equivalence", "skillings_mack", "bayes", "selection_check"])
def test_an_agent_with_no_rows_left_is_named_as_such(call):
    """A pandas subset keeps a categorical's levels: control="TD3" after dropping TD3's rows said "'TD3' is not an
    agent in the data", of an agent the caller can see in df.agent.cat.categories. The error now says it has no rows
    in the data analysed (and every back end naming an agent says it in the same words, from one check)."""
    df = _frame()
    df = df[df.agent != "TD3"]
    with pytest.raises(OptionError, match=r"TD3' is not an agent in column 'agent' \(it has no rows in the data "
                                          r"analysed, left out\); the agents are: 'PPO', 'SAC'"):
        call(df)


def test_an_agent_left_out_with_its_tasks_is_named_as_such():
    df = _frame()
    alone = pd.DataFrame({"agent": "DQN", "task": "t9", "seed": [0, 1, 2], "score": [1.0, 2.0, 3.0]})
    df = pd.concat([df.astype({"agent": str}), alone], ignore_index=True)
    with pytest.raises(OptionError, match="its runs are all on tasks kept out, where no other agent has runs"):
        rlstats.skillings_mack(df, "score ~ agent | task", control="DQN")


def test_a_misspelt_agent_gets_a_suggestion():
    with pytest.raises(OptionError, match=r"control='SCA' is not an agent in column 'agent' \(did you mean 'SAC'\?\)"):
        rlstats.skillings_mack(_frame(), "score ~ agent | task", control="SCA")
