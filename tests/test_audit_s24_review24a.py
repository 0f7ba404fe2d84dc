"""Audit s24 review24a: second review of the session's merged changes."""
import pandas as pd
import pytest

import rlstats
from rlstats.errors import OptionError


def _message(call):
    with pytest.raises(OptionError) as info:
        call()
    return str(info.value)


@pytest.mark.xfail(strict=True, reason="the surplus-positional error lists the arguments already given by position "
                                       "among the options to name the surplus value by")
def test_surplus_positional_error_lists_only_the_options_left():
    frame = pd.DataFrame({"task": ["t"], "score": [1.0]})
    said = _message(lambda: rlstats.normalize(frame, "score", "x"))
    assert said == ("normalize() takes 2 values by position (df, reference), got 3: give 'x' by its option's name; "
                    "its options are: low, high, by, score")
    said = _message(lambda: rlstats.compare(frame, "score ~ agent", "bootstrap", 3))
    assert "its options are: subset, and those help(compare) lists" in said
