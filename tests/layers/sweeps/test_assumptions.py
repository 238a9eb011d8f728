"""The assumption records rooms declare for sensitivity studies refuse inconsistent ranges and values."""

import math

import pytest

from paperlib.sweeps.assumptions import Assumption, check_factors


def _a(**kw):
    base = dict(name="k_Nm", baseline=1.0, low=0.5, high=2.0, unit="N m", meaning="m", reason="r")
    base.update(kw)
    return Assumption(**base)


@pytest.mark.parametrize("kw", [dict(low=2.0, high=0.5), dict(baseline=3.0), dict(low=math.nan),
                                dict(low=0.0, baseline=0.1, log=True)])
def test_inconsistent_ranges_are_refused(kw):
    with pytest.raises(ValueError, match="k_Nm"):
        _a(**kw)


def test_factors_are_checked_against_their_ranges_and_others_passed_by():
    A = {"k_Nm": _a()}
    assert check_factors({"k_Nm": "1.5", "half_life_s": 300.0}, A) == {"k_Nm": 1.5}
    for bad in (2.5, math.inf, "x"):
        with pytest.raises(ValueError, match="k_Nm"):
            check_factors({"k_Nm": bad}, A)
