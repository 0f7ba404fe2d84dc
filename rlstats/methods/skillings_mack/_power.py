"""What :func:`rlstats.power` decides on for the blocked rank test: its p-value at most alpha."""

import numpy as np


def decide(result, alpha, template, seeds):
    return decide_pvalue(result.pvalue, alpha, template, seeds)


def decide_pvalue(pvalue, alpha, template, seeds):
    return np.array([pvalue <= alpha]), np.array([float(seeds)])


#: how the sentence names each p-value method
_PVALUES = {"auto": "skillings_mack()'s default p-value (exact or Monte Carlo where the chi-squared one is liberal, as "
                    "with two agents)", "asymptotic": "its chi-squared p-value", "exact": "its exact p-value",
            "monte_carlo": "its Monte Carlo p-value"}


def sentence(result):
    pvalue = result.method_options.get("skillings_mack", {}).get("pvalue", "auto")
    return ("The blocked rank test (Mack-Skillings 1980 on all runs with several seeds, Skillings-Mack 1981 with "
            f"one) rejected when {_PVALUES.get(pvalue, 'its p-value')} was at most alpha.")
