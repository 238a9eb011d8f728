"""The friction layer's law objects: protocol conformance, slopes, and agreement with the twin."""

import numpy as np

from paperlib.friction import CoulombViscous, FrictionLaw, LinearFrictionLaw, LuGreLaw, StribeckLaw, table4_model
from paperlib.friction import lugre as fr
from paperlib.twin import drives as dr


def _row():
    return dr.load_twin_params().friction[0]


def test_stribeck_slope_matches_finite_difference():
    law = StribeckLaw.from_row(_row())
    assert isinstance(law, FrictionLaw)
    v = np.array([-3.0, -0.7, -0.05, 0.03, 0.4, 2.5])
    h = 1e-6
    fd = (law.torque(v + h, 30.0) - law.torque(v - h, 30.0)) / (2 * h)
    np.testing.assert_allclose(law.dtorque_dv(v, 30.0), fd, rtol=1e-6, atol=1e-8)


def test_stribeck_is_dissipative_and_falls_with_temperature():
    law = StribeckLaw.from_row(_row())
    v = np.linspace(-4, 4, 41)
    assert np.all(law.torque(v) * v >= 0)
    hot, cold = law.torque(v[v > 0], 39.0), law.torque(v[v > 0], 22.0)
    assert np.all(hot < cold)


def test_lugre_steady_state_is_the_stribeck_curve():
    row = _row()
    law = LuGreLaw.from_row(row)
    v, z, h = 0.8, 0.0, 2.5e-4
    for _ in range(4000):  # 1 s at constant velocity: bristles settle
        f, z = law.step(v, z, 22.0, h)
    np.testing.assert_allclose(f, law.torque(np.array(v), 22.0), rtol=1e-9)
    np.testing.assert_allclose(f, fr.steady_friction(v, row, 22.0), rtol=1e-9)


def test_coulomb_viscous_is_polynomial_order_one():
    law = CoulombViscous(0.7, 0.15)
    assert isinstance(law, LinearFrictionLaw)
    v = np.array([-2.0, -0.1, 0.0, 0.3, 1.5])
    np.testing.assert_allclose(law.torque(v), 0.7 * np.sign(v) + 0.15 * v)
    np.testing.assert_allclose(law.regressor(v) @ law.params, law.torque(v))
    m = table4_model(5)  # order 1, symmetric: [sign v, v] per joint
    np.testing.assert_allclose(m.torque(np.array([0.7, 0.15, 9.0, 9.0]), v, joint=1), law.torque(v))
