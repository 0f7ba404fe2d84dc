"""Audit s27 (units27): a units slip against a named reference, and polars input's notes.

1. Scores in other units than the reference's (Atari 100k's game scores x1000 normalised with
   ``normalize="atari100k_reference"``) gave an IQM of 215 times human (DER) and said nothing.
Tests reading the published scores skip with the reason when the mirror is not here.
"""

from __future__ import annotations

import warnings

import pytest

import rlstats


def _caught(call):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = call()
    return out, [str(w.message) for w in caught if issubclass(w.category, rlstats.RlstatsWarning)]


@pytest.mark.xfail(strict=True, reason="audit s27 units27: a x1000 units slip against atari100k_reference is silent")
def test_atari100k_x1000_against_its_reference_is_said(mirror):
    atari = rlstats.datasets.load("atari100k")
    out, said = _caught(lambda: rlstats.normalize(atari.assign(score=atari["score"] * 1000), "atari100k_reference"))
    assert any("1000 times" in s for s in said)
