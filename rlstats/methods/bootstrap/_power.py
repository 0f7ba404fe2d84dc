"""What :func:`rlstats.power` decides on for the bootstrap: two agents' intervals of one metric do not overlap.

The rule the thesis studies (Casesa 2024, Section 3.1); non-overlap of two intervals is a conservative test.
"""

import numpy as np

from ... import format as fmt
from ...errors import OptionError

#: bootstrap resamples per simulated data set unless n_resamples is given
POWER_RESAMPLES = 1_000


def check(options):
    """metric= (power()'s own option) names one metric."""
    if "metric" in options:
        metric = options["metric"]
        if not (isinstance(metric, str) or callable(metric)):
            raise OptionError(f"metric must be one metric name (e.g. 'iqm') or a function, got {metric!r}")


def call_options(options, seeds, alpha):
    """One metric's percentile intervals at level 1 - alpha, 1,000 resamples unless given."""
    call = {k: v for k, v in options.items() if k != "metric"}
    call["metrics"] = [options.get("metric", "iqm")]
    call.setdefault("n_resamples", POWER_RESAMPLES)
    call.setdefault("confidence_level", 1 - alpha)
    # the thesis's rule separates percentile intervals; the studentised default withholds at 2 runs per task,
    # which would leave power nothing to count there
    call.setdefault("interval", "percentile")
    return call


def decide(result, alpha, template, seeds):
    low, high = result.intervals[:, 0, 0], result.intervals[:, 0, 1]
    # Some pair is disjoint exactly when the highest lower bound exceeds the lowest upper bound;
    # a NaN bound (undefined BCa) compares False: no rejection, and bootstrap() warns.
    return np.array([bool(np.max(low) > np.min(high))]), np.array([float(seeds)])


def sentence(result):
    options = result.method_options.get("bootstrap", {})
    metric = options.get("metric", "iqm")
    metric = getattr(metric, "__name__", metric)
    level = options.get("confidence_level", 1 - result.alpha)
    resamples = options.get("n_resamples", POWER_RESAMPLES)
    return (f"Bootstrap interval separation (thesis Section 3.1) rejected when the {fmt.signif(100 * level)}% "
            f"stratified-bootstrap intervals ({resamples} resamples) of the {metric} of two agents did not overlap; "
            "non-overlap of two intervals is a conservative test, so its rejection rate under no difference is "
            "expected well below alpha.")
