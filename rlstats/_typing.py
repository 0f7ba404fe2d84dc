"""Names of the types that the public signatures share, for type checkers and readers.

Importing this module imports nothing else: the aliases name their classes in strings that only a type
checker resolves (the imports below run under ``TYPE_CHECKING`` only), so the package face stays light.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal, Union

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd
    import polars as pl
    import pyarrow as pa
    from numpy.typing import ArrayLike
    from patsy import EvalEnvironment

    from .formula import Formula

#: a long table, one row per run (or per run and step): a pandas DataFrame (polars DataFrames and pyarrow
#: Tables are converted once at the front door, and the result says so)
Table = Union["pd.DataFrame", "pl.DataFrame", "pa.Table", "pa.RecordBatch"]
#: what the back ends read: a long table, or a Design already built from one (rlstats.build; the Design is not
#: named here, since design.py and the modules it imports use these names: Any stands for it)
Data = Union[Table, Any]
#: a formula's text, ``"score ~ agent | task"``, or a parsed Formula
FormulaLike = Union[str, "Formula"]
#: every random procedure's ``rng=``: None (fresh entropy), an int seed or a NumPy Generator
Seed = Union[None, int, "np.random.Generator"]
#: where a formula's names are looked up: frames up the stack (an int) or a patsy EvalEnvironment
EvalEnv = Union[None, int, "EvalEnvironment"]
#: ``normalize=``: a reference table, the name of a published one, {task: (low, high)}, or False for none
Normalizer = Union["pd.DataFrame", str, dict[str, Any], bool, None]
#: ``subset=``: a condition in rlstats' restricted grammar, or a boolean mask
Subset = Union[str, "ArrayLike", None]
#: every result's ``tidy(names=)`` and ``glance(names=)``: rlstats' column names or broom's (rlstats.vocabulary)
ColumnNames = Literal["rlstats", "broom"]
