"""Reading delimited text into DataFrames with every float exactly as written.

pandas 2's default C parser (and its ``float_precision="high"``) can land one ulp away
from the written decimal: 99.99999999999997 comes back as 99.99999999999996. For rank
tests that creates or breaks near-ties, so every CSV the package reads goes through
:func:`read_csv`. pandas 3 parses exactly by default and deprecates ``float_precision``,
so the option is passed only where it is needed.
"""

from typing import Any

import pandas as pd

_PANDAS_MAJOR = int(pd.__version__.split(".")[0])
#: What makes ``pandas.read_csv`` parse floats exactly on the installed pandas.
EXACT_FLOATS: dict[str, Any] = {} if _PANDAS_MAJOR >= 3 else {"float_precision": "round_trip"}


def read_csv(source: Any, **options: Any) -> pd.DataFrame:
    """``pandas.read_csv(source, **options)`` with floats parsed exactly (round-trip).

    >>> import io
    >>> float(read_csv(io.StringIO("x\\n99.99999999999997\\n"))["x"].iloc[0])
    99.99999999999997
    """
    return pd.read_csv(source, **EXACT_FLOATS, **options)
