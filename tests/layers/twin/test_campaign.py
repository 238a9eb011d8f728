"""The TX40 thermal-campaign twin: thermal networks, cycle program, poses, friction, fault, recording."""

from __future__ import annotations

import numpy as np
import pytest

from paperlib.estimation import plateaus as P
from paperlib.experiments.industrial.thermal import truth_reference
from paperlib.recordings import truth
from paperlib.twin.robots import campaign as C
from paperlib.friction.lugre import steady_friction
from paperlib.twin.thermal import modal_form, step_response


@pytest.fixture(scope="module")
def params():
    return C.load_campaign_params()


@pytest.fixture(scope="module")
def rigid_body():
    return C.tx40_rigid_body()


@pytest.fixture(scope="module")
def short_day(params, rigid_body):
    spec = C.DaySpec(robot=2, day=1, warming_fraction=1.0, fault=(1, 1.32, 420.0), seed=5)
    return C.simulate_day(params, spec, rigid_body=rigid_body, cycles=3)


def test_two_node_design_has_the_wanted_modes():
    net = C.design_two_node(150.0, 1800.0, 0.8, 0.35)
    m = modal_form(net.row())
    assert m["tau1_s"] == pytest.approx(150.0, rel=1e-6)
    assert m["tau2_s"] == pytest.approx(1800.0, rel=1e-6)
    assert m["c1_inner"] * m["tau1_s"] == pytest.approx(0.35 * 0.8, rel=1e-6)
    assert m["c2_inner"] * m["tau2_s"] == pytest.approx(0.65 * 0.8, rel=1e-6)
    # steady rise per watt = series resistance of the chain
    T = step_response(np.array([1e6]), 10.0, net.row(), 0.0)[0, 0]
    assert T == pytest.approx(8.0, rel=1e-6)


def test_cycle_program_is_consistent(params):
    prog = C.cycle_program(params, 1.0)
    fs = params.sample_rate_hz
    assert prog.q.shape == (int(params.cycle_period_s * fs), 6)
    # velocities and accelerations are the derivatives of the angles
    np.testing.assert_allclose(np.gradient(prog.q, 1 / fs, axis=0)[1:-1], prog.qd[1:-1], atol=0.05)
    dq = np.gradient(prog.qd, 1 / fs, axis=0)
    mask = np.abs(dq - prog.qdd) > 1.0  # only at the trapezoids' acceleration switches
    assert mask.mean() < 2e-3
    kinds = [s["kind"] for s in prog.segments]
    assert kinds.count("friction") == 6 and "fourier" in kinds and "warming" in kinds
    # joint limits respected, plateau speeds reached in both signs
    assert np.all(prog.q >= C.JOINT_RANGE[:, 0] - 1e-9) and np.all(prog.q <= C.JOINT_RANGE[:, 1] + 1e-9)
    for s in prog.segments:
        if s["kind"] == "friction":
            j = s["joint"] - 1
            v = prog.qd[s["start"]:s["stop"], j]
            assert v.max() == pytest.approx(params.max_speed[j]) and v.min() == pytest.approx(-params.max_speed[j])


def test_friction_poses_have_vertical_axes(rigid_body):
    for j in (0, 3, 4, 5):
        for dq in np.linspace(-1.0, 1.0, 5):
            x = C.FRICTION_POSES[j].copy()
            x[j] += dq
            g = rigid_body(x[None], np.zeros((1, 6)), np.zeros((1, 6)))[0, j]
            assert abs(g) < 1e-9


def test_twin_torque_is_inverse_dynamics_plus_friction(short_day, rigid_body):
    d = short_day
    prog = d.program
    n = prog.q.shape[0]
    T = np.asarray(d.truth["temperature_inner_degC"])
    step = int(round(d.truth["temperature_inner_step_s"] * d.sample_rate_hz))
    rows = np.asarray(d.truth["friction_rows"])
    rb = rigid_body(prog.q, prog.qd, prog.qdd)
    idx = np.arange(0, n, step)[1:]  # samples where the inner temperature was logged (after the step)
    for j in range(6):
        f = np.array([steady_friction(prog.qd[i, j], rows[j], T[i // step, j]) for i in idx])
        resid = d.tau[idx, j] - rb[idx, j] - f
        assert abs(resid.mean()) < 4 * d.truth["torque_noise_Nm"][j] / np.sqrt(idx.size) + 0.02
        assert resid.std() < 2 * d.truth["torque_noise_Nm"][j]
    still = np.all(prog.qd == 0.0, axis=1)  # no friction: the residual is the drive noise
    np.testing.assert_allclose((d.tau[:n] - rb)[still].std(axis=0), d.truth["torque_noise_Nm"], rtol=0.05)


def test_twin_warms_and_fault_raises_friction(short_day):
    d = short_day
    T = np.asarray(d.truth["temperature_inner_degC"])
    assert np.all(T[-1] > T[0] + 3.0)  # every gearbox warms by its own friction
    jf = P.plateau_friction(d.time, d.q, d.tau, list(range(1, 7)), d.sample_rate_hz, gravity_joints=(2, 3))
    assert all(len(jf[j].time_s) == 3 for j in range(1, 7))
    # the friction at the reference speed equals the twin's noise-free friction (+ the fault)
    ds = C.day_recording(d)
    for j in range(1, 7):
        y_true = truth_reference(ds, j, jf[j].time_s, jf[j].v_ref)
        np.testing.assert_allclose(jf[j].friction_ref, y_true, rtol=0.02)
    # fault at 7 min: the joint-1 segment of cycle 3 (10.1 min) is 32 % up on what the
    # temperature alone gives
    tr = truth(ds)
    assert tr["fault"]["factor"] == 1.32
    j1 = jf[1]
    row = np.asarray(tr["friction_rows"][0])
    Tt = np.interp(j1.time_s, np.arange(T.shape[0]) * tr["temperature_inner_step_s"], T[:, 0])
    ratio = j1.friction_ref / np.array([steady_friction(j1.v_ref, row, x) for x in Tt])
    assert ratio[0] == pytest.approx(1.0, abs=0.02) and ratio[-1] == pytest.approx(1.32, abs=0.03)


def test_day_recording_is_twin_with_truth(short_day):
    ds = C.day_recording(short_day)
    assert ds.attrs["source"] == "twin"
    assert ds.attrs["robot"] == "tx40"
    assert set(ds.data_vars) == {"q", "tau_m"}  # an industrial robot: no temperature, no qd
    tr = truth(ds)
    assert len(tr["thermal_params"]) == 6 and tr["fault"]["joint"] == 1


def test_robots_differ_days_differ(params, rigid_body):
    a = C.simulate_day(params, C.DaySpec(1, 1, 1.0, seed=1), rigid_body=rigid_body, cycles=1)
    b = C.simulate_day(params, C.DaySpec(2, 1, 1.0, seed=1), rigid_body=rigid_body, cycles=1)
    ra, rb_ = np.asarray(a.truth["friction_scale_robot"]), np.asarray(b.truth["friction_scale_robot"])
    assert np.all(ra == 1.0) and np.any(np.abs(rb_ - 1) > 0.01) and np.all(np.abs(rb_ - 1) <= params.robot_friction_rel)
    c = C.simulate_day(params, C.DaySpec(1, 2, 1.0, seed=2), rigid_body=rigid_body, cycles=1)
    assert a.truth["ambient_degC"] != c.truth["ambient_degC"]
    assert abs(a.truth["ambient_degC"] - params.ambient_degC) <= params.day_ambient_K


def test_day_starts_at_the_calibrated_gearbox_temperature(params, short_day):
    """The gearboxes start at [campaign.start] (moved by the day's room spread), below the room."""
    tr = short_day.truth
    start = params.gearbox_start_degC
    assert start is not None and start < params.ambient_degC
    shift = tr["ambient_degC"] - params.ambient_degC
    assert abs(shift) <= params.day_ambient_K
    assert tr["gearbox_start_degC"] == pytest.approx(start + shift, abs=1e-12)
    T0 = np.asarray(tr["temperature_inner_degC"])[0]
    np.testing.assert_allclose(T0, start + shift, atol=1e-3)  # the first logged sample, 4 ms in


def test_start_temperature_is_optional_and_checked(tmp_path):
    import tomllib

    src = C.DEFAULT_PARAMS.read_text()
    no_start = src.split("[campaign.start]")[0] + "[campaign.speeds]" + src.split("[campaign.speeds]", 1)[1]
    p = tmp_path / "campaign.toml"
    p.write_text(no_start)
    assert "start" not in tomllib.loads(no_start)["campaign"]
    assert C.load_campaign_params(p).gearbox_start_degC is None  # the days then start at the room temperature
    p.write_text(src.replace("gearbox_degC = 15.0", "gearbox_degC = 288.15"))
    with pytest.raises(ValueError, match="kelvin"):
        C.load_campaign_params(p)
    p.write_text(src.replace("gearbox_degC = 15.0", "gearbox_degc = 15.0"))
    with pytest.raises(ValueError, match=r"\[campaign.start\] needs gearbox_degC"):
        C.load_campaign_params(p)
