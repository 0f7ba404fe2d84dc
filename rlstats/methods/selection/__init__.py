"""The post-reporting selection check (Komiyama and Maehara, 2018) and its planning helpers.

This subpackage is public as ``rlstats.selection``.
"""

from ._api import EFFECT_MEASURES, INSPECTORS, REPORTERS, SelectionOptions, selection_check
from ._planning import (CONSERVATIVE_RESAMPLES, SelectionSimulation, conservative_pvalue, detection_probability,
                        required_heldout, simulate, top_mean_null)
from ._result import VERDICTS, SelectionCheckResult

__all__ = ["selection_check", "SelectionCheckResult", "simulate", "SelectionSimulation",
           "detection_probability", "required_heldout", "conservative_pvalue", "top_mean_null"]
