"""What :func:`rlstats.power` decides on for the blocked rank test: its p-value at most alpha."""

import numpy as np


def call_options(options, seeds, alpha):
    """The test's keywords in a power study: the chi-squared p-value unless ``pvalue=`` is given.

    The default p-value is automatic (exact or Monte Carlo on small designs); a planning study uses the
    chi-squared one, as the vectorised path does.
    """
    return {**options, "alpha": alpha, "pvalue": options.get("pvalue", "asymptotic")}


def decide(result, alpha, template, seeds):
    return decide_pvalue(result.pvalue, alpha, template, seeds)


def decide_pvalue(pvalue, alpha, template, seeds):
    return np.array([pvalue <= alpha]), np.array([float(seeds)])


def sentence(result):
    return ("The blocked rank test (Mack-Skillings 1980 on all runs with several seeds, Skillings-Mack 1981 with "
            "one) rejected when its p-value was at most alpha.")
