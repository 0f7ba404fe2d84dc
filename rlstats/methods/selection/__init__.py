"""The post-reporting selection check (Komiyama and Maehara, 2018) and its planning helpers.

This subpackage is public as ``rlstats.selection``; it also re-exports the option
vocabularies (``EFFECT_MEASURES``, ``INSPECTORS``, ``REPORTERS``, ``VERDICTS``) and
``CONSERVATIVE_RESAMPLES`` that the old ``rlstats.methods.selection`` module had.
"""

from ._api import EFFECT_MEASURES, INSPECTORS, REPORTERS, SelectionOptions, selection_check  # noqa: F401
from ._planning import CONSERVATIVE_RESAMPLES  # noqa: F401
from ._planning import (SelectionSimulation, conservative_pvalue, detection_probability, required_heldout, simulate,
                        top_mean_null)
from ._result import VERDICTS, SelectionCheckResult  # noqa: F401

__all__ = ["selection_check", "SelectionCheckResult", "simulate", "SelectionSimulation",
           "detection_probability", "required_heldout", "conservative_pvalue", "top_mean_null"]
