"""A twin file's ``[calibration]`` table and the friction's position ripple it gives."""

from __future__ import annotations

import copy
import math

import numpy as np
import pytest

from paperlib.friction import lugre as fr
from paperlib.recordings import truth
from paperlib.twin import calibration, drives as dr
from paperlib.twin import plant as pl
from paperlib.twin import thermal as th


TABLE = {"status": "calibrated", "published": "a quantity of the paper", "rule": "how it was solved",
         "reason": "why these values", "joints": ["joint1", "joint2"], "friction_level_factor": [1.2, 0.9],
         "ripple_relative": [0.4, 0.7], "ripple_cycles_per_joint_rev": 10.0}


@pytest.fixture(scope="module")
def design() -> dr.TwinParams:
    return dr.load_twin_params()


@pytest.fixture(scope="module")
def twin(design: dr.TwinParams) -> dr.TwinParams:
    return dr.twin_params_from_doc({**design.raw, "calibration": dict(TABLE)}, design.path)


def _with(twin: dr.TwinParams, **changes) -> dict:
    doc = copy.deepcopy(twin.raw)
    doc["calibration"].update(changes)
    return doc


def test_no_table_leaves_the_design_untouched(design: dr.TwinParams) -> None:
    eff, ripples = calibration.apply(design.raw)
    assert eff == design.raw and ripples == {}
    assert np.all(design.friction[:, fr.FR_RIPPLE_A] == 0.0)


def test_a_calibration_is_applied_on_top_of_the_design(twin: dr.TwinParams, design: dr.TwinParams) -> None:
    cal = twin.raw["calibration"]
    assert "calibration" not in design.raw  # applied to a copy: the design document is untouched
    for name, L, a in zip(cal["joints"], cal["friction_level_factor"], cal["ripple_relative"]):
        j = int(name.removeprefix("joint")) - 1
        for col in (fr.FR_FC, fr.FR_FS, fr.FR_FV, fr.FR_SIGMA0):
            assert twin.friction[j, col] == pytest.approx(L * design.friction[j, col], rel=1e-12)
        assert twin.friction[j, fr.FR_SIGMA1] == pytest.approx(math.sqrt(L) * design.friction[j, fr.FR_SIGMA1])
        assert twin.friction[j, fr.FR_RIPPLE_A] == a
        assert twin.friction[j, fr.FR_RIPPLE_K] == cal["ripple_cycles_per_joint_rev"]
        # the gearbox's network takes L times the heat with the same time constants and temperatures
        np.testing.assert_allclose(th.time_constants(twin.thermal[j]), th.time_constants(design.thermal[j]),
                                   rtol=1e-12)
        assert twin.design_power_W[j] == pytest.approx(L * design.design_power_W[j])
    # the passive hinges carry no ripple
    assert np.all(twin.friction[list(twin.passive_joints), fr.FR_RIPPLE_A] == 0.0)


@pytest.mark.parametrize("changes, words", [
    ({"status": "assumed"}, "status must be 'calibrated'"),
    ({"rule": " "}, "needs a non-empty 'rule'"),
    ({"friction_level_factor": [1.0]}, "one number per joint (2)"),
    ({"ripple_relative": [0.4, 1.5]}, "ripple_relative: 1.5 is not a number in [0.0, 0.9]"),
    ({"ripple_relative": [0.4, float("nan")]}, "is not a number"),
    ({"joints": ["joint1", "joint9"]}, "joints must name [friction] tables"),
    ({"ripple_cycles_per_joint_rev": 0.0}, "ripple_cycles_per_joint_rev must be in"),
    ({"ripple_amplitude": 0.3}, "unknown keys ['ripple_amplitude']"),
])
def test_a_bad_table_is_refused_naming_the_key(twin: dr.TwinParams, changes: dict, words: str) -> None:
    with pytest.raises(dr.TwinConfigError) as err:
        dr.twin_params_from_doc(_with(twin, **changes), twin.path)
    assert words in str(err.value)


def _friction_over_angle(row: np.ndarray, v: float, n: int, dt: float) -> tuple[np.ndarray, np.ndarray]:
    """Friction of one joint sliding at ``v`` [rad/s] for ``n`` cycles: (angle travelled, torque)."""
    fric = np.ascontiguousarray(row[None, :])
    z, phi, Tj = np.zeros(1), np.zeros(1), np.full(1, 22.0)
    psid, psid0, F = np.full(1, v), np.zeros(1), np.zeros(1)
    ang, out = np.empty(n), np.empty(n)
    for i in range(n):
        ang[i] = phi[0]
        pl.friction_torques(1.0, z, phi, Tj, fric, dt, psid, psid0, F)
        out[i] = F[0]
    return ang, out


def test_the_ripple_modulates_the_law_by_angle_and_averages_out(twin: dr.TwinParams) -> None:
    row = twin.friction[0].copy()
    a, k = row[fr.FR_RIPPLE_A], row[fr.FR_RIPPLE_K]
    assert a > 0
    plain = row.copy()
    plain[fr.FR_RIPPLE_A] = 0.0
    v, dt = 1.5, 2.5e-4
    n = int(round(2 * np.pi / k / v / dt)) * 4  # four ripple periods
    ang, f = _friction_over_angle(row, v, n, dt)
    ang0, f0 = _friction_over_angle(plain, v, n, dt)
    np.testing.assert_array_equal(ang, ang0)
    np.testing.assert_allclose(ang, v * dt * np.arange(n), rtol=1e-12)  # phi is the angle travelled
    sliding = slice(n // 4, None)  # past the bristles' transient
    np.testing.assert_allclose(f[sliding], f0[sliding] * (1 + a * np.sin(k * ang[sliding])), rtol=1e-12)
    # over whole ripple periods the mean is the law's (the true mean curve is the law's)
    assert f[sliding].mean() == pytest.approx(f0[sliding].mean(), rel=2e-3)
    assert f.max() / f0.max() == pytest.approx(1 + a, rel=1e-3)


def test_without_a_ripple_the_torque_is_the_law_exactly(twin: dr.TwinParams) -> None:
    row = twin.friction[2].copy()  # a passive hinge: no ripple
    assert row[fr.FR_RIPPLE_A] == 0.0
    _, f = _friction_over_angle(row, 0.8, 400, 2.5e-4)
    z, out = 0.0, []
    for _ in range(400):
        x, z = fr.lugre_step(0.8, z, row, 22.0, 2.5e-4)
        out.append(x)
    np.testing.assert_array_equal(f, np.array(out))


def test_energy_balances_on_a_twin_with_a_ripple(twin: dr.TwinParams) -> None:
    """Motor work = kinetic energy gained + friction dissipation, with the ripple in the friction."""
    from paperlib.twin.robots.five_bar import simulate

    ds = simulate(controller="AC", duration_s=4.0, seed=3, imu_calibration="none", twin_params=twin)
    E, Wm, Wf = (ds[k].values for k in ("kinetic_energy", "work_motor", "work_friction"))
    assert Wm[-1] > 20.0 and Wf[-1] > 5.0
    np.testing.assert_allclose(E - E[0], Wm - Wf, atol=1e-6 * Wm[-1])
    tr = truth(ds)  # the truth carries the ripple with the rest of the friction row
    rows = dict(zip(tr["friction_parameter_names"], np.array(tr["friction"]).T))
    np.testing.assert_array_equal(rows["ripple_relative"], twin.friction[:, fr.FR_RIPPLE_A])
