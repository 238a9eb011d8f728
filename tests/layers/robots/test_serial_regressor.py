"""SerialArm: regressor and dynamics against pinocchio (oracle), URDF/DH parsing, base parameters."""

from __future__ import annotations

import numpy as np
import pinocchio as pin
import pytest

from paperlib.robots.serial import SerialArm, rpy_matrix

REL = 1e-9


def random_urdf(seed: int, n: int = 4, fixed_link: bool = True) -> str:
    """A random serial chain of ``n`` revolute joints (unaligned axes, random placements and
    physically consistent inertials), with a fixed joint carrying a massive link in the middle."""
    rng = np.random.default_rng(seed)

    def inertial() -> str:
        m = rng.uniform(0.5, 5.0)
        d = rng.uniform(0.01, 0.2, 3)
        princ = np.array([d[1] + d[2], d[0] + d[2], d[0] + d[1]]) * m * 0.1  # triangle inequality holds
        R = rpy_matrix(rng.uniform(-np.pi, np.pi, 3))
        I = R @ np.diag(princ) @ R.T
        c = rng.uniform(-0.2, 0.2, 3)
        rpy = rng.uniform(-1, 1, 3)
        # URDF inertia is given in a frame turned by the inertial rpy: rotate it back
        Ro = rpy_matrix(rpy)
        Il = Ro.T @ I @ Ro
        return (f'<inertial><origin xyz="{c[0]} {c[1]} {c[2]}" rpy="{rpy[0]} {rpy[1]} {rpy[2]}"/><mass value="{m}"/>'
                f'<inertia ixx="{Il[0, 0]}" ixy="{Il[0, 1]}" ixz="{Il[0, 2]}" iyy="{Il[1, 1]}" iyz="{Il[1, 2]}" izz="{Il[2, 2]}"/></inertial>')

    parts = ['<robot name="random4">', f'<link name="l0">{inertial()}</link>']
    parent = "l0"
    for i in range(n):
        xyz = rng.uniform(-0.4, 0.4, 3)
        rpy = rng.uniform(-np.pi, np.pi, 3)
        ax = rng.normal(size=3)
        ax /= np.linalg.norm(ax)
        parts.append(f'<joint name="j{i + 1}" type="revolute"><origin xyz="{xyz[0]} {xyz[1]} {xyz[2]}" rpy="{rpy[0]} {rpy[1]} {rpy[2]}"/>'
                     f'<parent link="{parent}"/><child link="l{i + 1}"/><axis xyz="{ax[0]} {ax[1]} {ax[2]}"/>'
                     '<limit lower="-3" upper="3" effort="100" velocity="5"/></joint>')
        parts.append(f'<link name="l{i + 1}">{inertial()}</link>')
        parent = f"l{i + 1}"
        if fixed_link and i == 1:
            xyz = rng.uniform(-0.3, 0.3, 3)
            rpy = rng.uniform(-np.pi, np.pi, 3)
            parts.append(f'<joint name="fix" type="fixed"><origin xyz="{xyz[0]} {xyz[1]} {xyz[2]}" rpy="{rpy[0]} {rpy[1]} {rpy[2]}"/>'
                         f'<parent link="{parent}"/><child link="lf"/></joint>')
            parts.append(f'<link name="lf">{inertial()}</link>')
            parent = "lf"
    parts.append("</robot>")
    return "\n".join(parts)


def _pin_model(urdf_text: str):
    model = pin.buildModelFromXML(urdf_text)
    return model, model.createData()


def _rel_err(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.max(np.abs(a - b)) / np.max(np.abs(b)))


@pytest.fixture(scope="module")
def tx40_generic() -> SerialArm:
    return SerialArm.named("tx40", kernel=None)


@pytest.mark.parametrize("seed", [1, 2])
def test_random_urdf_regressor_matches_pinocchio(seed: int) -> None:
    text = random_urdf(seed)
    arm = SerialArm.from_urdf(text)
    assert arm.n == 4
    model, data = _pin_model(text)
    q, qd, qdd = arm.random_states(20, seed=seed, v_max=3.0, a_max=20.0)
    Y = arm.inertial_regressor(q, qd, qdd)
    tau = arm.inverse_dynamics(q, qd, qdd)
    for s in range(len(q)):
        Yp = pin.computeJointTorqueRegressor(model, data, q[s], qd[s], qdd[s])
        assert _rel_err(Y[s], Yp) < REL
        # pinocchio merged the fixed link's inertia: the parameters agree too, so do the torques
        assert _rel_err(tau[s], pin.rnea(model, data, q[s], qd[s], qdd[s])) < REL
    pin_params = np.concatenate([model.inertias[i + 1].toDynamicParameters() for i in range(4)])
    assert np.allclose(arm.inertial.ravel(), pin_params, rtol=1e-12, atol=1e-12)


def test_tx40_generic_regressor_matches_pinocchio(tx40_generic: SerialArm) -> None:
    arm = tx40_generic
    model, data = _pin_model(arm.to_urdf())
    q, qd, qdd = arm.random_states(20, seed=3, v_max=5.0, a_max=30.0)
    Y = arm.regressor(q, qd, qdd)
    assert Y.shape == (20, 6, arm.n_params)
    for s in range(len(q)):
        Yp = pin.computeJointTorqueRegressor(model, data, q[s], qd[s], qdd[s])
        assert _rel_err(Y[s, :, :60], Yp) < REL
        assert _rel_err(arm.inverse_dynamics(q[s], qd[s], qdd[s]), pin.rnea(model, data, q[s], qd[s], qdd[s])) < REL
    # one state gives (n, p)
    assert arm.regressor(q[0], qd[0], qdd[0]).shape == (6, arm.n_params)


def test_mass_matrix_matches_pinocchio_and_is_positive(tx40_generic: SerialArm) -> None:
    arm = tx40_generic
    model, data = _pin_model(arm.to_urdf())
    q, _, _ = arm.random_states(5, seed=4)
    for s in range(5):
        M = arm.mass_matrix(q[s])
        Mp = pin.crba(model, data, q[s])
        Mp = np.triu(Mp) + np.triu(Mp, 1).T
        assert _rel_err(M, Mp) < REL
        assert np.allclose(M, M.T, atol=1e-14)
        # the URDF's link 6 has zero inertia about its axis: M is only semidefinite, its 5x5 block definite
        assert np.min(np.linalg.eigvalsh(M)) > -1e-12 and np.min(np.linalg.eigvalsh(M[:5, :5])) > 0


def test_forward_dynamics_inverts_inverse_dynamics_and_matches_pinocchio() -> None:
    text = random_urdf(5)
    arm = SerialArm.from_urdf(text)
    model, data = _pin_model(text)
    q, qd, qdd = arm.random_states(6, seed=6)
    tau = arm.inverse_dynamics(q, qd, qdd)
    back = arm.forward_dynamics(q, qd, tau)
    assert np.allclose(back, qdd, rtol=1e-9, atol=1e-9)
    for s in range(6):
        assert _rel_err(back[s], pin.aba(model, data, q[s], qd[s], tau[s])) < REL
    # with extra rotor inertia (Ia) on the diagonal
    ia = np.array([0.3, 0.2, 0.1, 0.05])
    tau2 = tau + ia * qdd
    assert np.allclose(arm.forward_dynamics(q, qd, tau2, rotor_inertia=ia), qdd, rtol=1e-9, atol=1e-9)


def test_power_balance_of_inverse_dynamics(tx40_generic: SerialArm) -> None:
    """d/dt (kinetic + potential energy) = qd . tau, along a smooth motion (finite differences)."""
    arm = tx40_generic
    t = np.linspace(0.0, 1.0, 2001)
    w = np.arange(1, 7)[None, :]
    q = 0.5 * np.sin(w * t[:, None] + 0.3)
    qd = 0.5 * w * np.cos(w * t[:, None] + 0.3)
    qdd = -0.5 * w**2 * np.sin(w * t[:, None] + 0.3)
    tau = arm.inverse_dynamics(q, qd, qdd)
    M = arm.mass_matrix(q)
    kin = 0.5 * np.einsum("ni,nij,nj->n", qd, M, qd)
    # potential energy: -sum m_i g . c_i (world centre of mass)
    Rw, pw = arm.forward_kinematics(q)
    h = arm.inertial[:, 1:4]
    m = arm.inertial[:, 0]
    com_w = np.einsum("nkij,kj->nki", Rw, h) + m[None, :, None] * pw
    pot = -np.einsum("nki,i->n", com_w, arm.gravity)
    dE = np.gradient(kin + pot, t)
    power = np.einsum("ni,ni->n", qd, tau)
    inner = slice(5, -5)
    assert np.max(np.abs(dE[inner] - power[inner])) < 1e-4 * np.max(np.abs(power))


def test_from_dh_planar_2r_matches_closed_form() -> None:
    """Planar 2R in a vertical plane (gravity along -y of frame 0): textbook M and g."""
    l1 = 0.7
    arm = SerialArm.from_dh([(0.0, 0.0, 0.0, 0.0), (0.0, l1, 0.0, 0.0)], gravity=(0.0, -9.81, 0.0))
    m1, m2, c1, c2, I1, I2 = 2.0, 1.5, 0.3, 0.25, 0.05, 0.03
    inert = np.zeros((2, 10))
    for i, (m, c, I) in enumerate([(m1, c1, I1), (m2, c2, I2)]):
        inert[i, 0] = m
        inert[i, 1] = m * c
        inert[i, 9] = I + m * c * c  # about the joint origin
        inert[i, 4] = inert[i, 6] = 0.01
    q, qd, qdd = np.array([0.4, -1.1]), np.array([0.8, 1.7]), np.array([-2.0, 3.0])
    tau = SerialArm.from_dh([(0.0, 0.0, 0.0, 0.0), (0.0, l1, 0.0, 0.0)], inertial=inert, gravity=(0.0, -9.81, 0.0)).inverse_dynamics(q, qd, qdd)
    a = I1 + m1 * c1**2 + I2 + m2 * (l1**2 + c2**2 + 2 * l1 * c2 * np.cos(q[1]))
    b = I2 + m2 * (c2**2 + l1 * c2 * np.cos(q[1]))
    d = I2 + m2 * c2**2
    hh = -m2 * l1 * c2 * np.sin(q[1])
    g = 9.81
    g1 = (m1 * c1 + m2 * l1) * g * np.cos(q[0]) + m2 * c2 * g * np.cos(q[0] + q[1])
    g2 = m2 * c2 * g * np.cos(q[0] + q[1])
    expect = np.array([
        a * qdd[0] + b * qdd[1] + hh * (2 * qd[0] * qd[1] + qd[1] ** 2) + g1,
        b * qdd[0] + d * qdd[1] - hh * qd[0] ** 2 + g2,
    ])
    assert np.allclose(tau, expect, rtol=1e-12, atol=1e-12)
    assert arm.param_names[:10] == ("m1", "mx1", "my1", "mz1", "XX1", "XY1", "YY1", "XZ1", "YZ1", "ZZ1")


def test_joint_and_coupling_columns(tx40_generic: SerialArm) -> None:
    arm = tx40_generic
    q, qd, qdd = arm.random_states(3, seed=5)
    Y = arm.regressor(q, qd, qdd)
    names = arm.param_names
    col = {k: i for i, k in enumerate(names)}
    assert np.allclose(Y[:, 2, col["fv3"]], qd[:, 2]) and np.allclose(Y[:, 1, col["fv3"]], 0.0)
    assert np.allclose(Y[:, 0, col["fs1"]], np.sign(qd[:, 0]))
    assert np.allclose(Y[:, 3, col["Ia4"]], qdd[:, 3]) and np.allclose(Y[:, 5, col["off6"]], 1.0)
    v = qd[:, 4] + qd[:, 5]
    for j in (4, 5):
        assert np.allclose(Y[:, j, col["Iam6"]], qdd[:, 4] + qdd[:, 5])
        assert np.allclose(Y[:, j, col["fvm6"]], v)
        assert np.allclose(Y[:, j, col["fsm6"]], np.sign(v))
    assert np.allclose(Y[:, :4, col["Iam6"]], 0.0)


def test_base_parameters_reproduce_every_parameter_vector(tx40_generic: SerialArm) -> None:
    arm = tx40_generic
    bp = arm.base_parameters(n_states=150, seed=0)
    q, qd, qdd = arm.random_states(40, seed=11)
    Y = arm.regressor(q, qd, qdd).reshape(-1, arm.n_params)
    rng = np.random.default_rng(0)
    for _ in range(3):
        pi = rng.normal(size=arm.n_params)
        assert np.allclose(Y @ pi, bp.columns(Y) @ bp.project(pi), rtol=1e-9, atol=1e-9 * np.max(np.abs(Y @ pi)))
    # full column rank of the base regressor, and a clean gap in the pivoted QR
    Yb = bp.columns(Y)
    assert np.linalg.matrix_rank(Yb / np.linalg.norm(Yb, axis=0)) == bp.n_base
    assert bp.diag[bp.rank - 1] > 1e-4 and bp.diag[bp.rank] < 1e-10
    rel = bp.relations()
    # joint 1 sees ZZ1 and the rotor inertia only through their sum (Khalil's regrouping)
    zz1 = next(r for r in rel if r.startswith("ZZ1R ="))
    assert "Ia1" in zz1 and "YY2" in zz1
    # a parameter is regrouped into earlier ones only
    idx = {k: i for i, k in enumerate(arm.param_names)}
    for k, j in enumerate(bp.index):
        later = np.flatnonzero(np.abs(bp.K[k]) > 1e-10)
        assert np.all(later >= j), bp.names[k]
    assert idx["m1"] not in set(bp.index)


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ("not xml", "cannot read URDF"),
        ('<robot name="x"><link name="a"/><link name="b"/><joint name="j" type="prismatic"><parent link="a"/>'
         '<child link="b"/></joint></robot>', r"no revolute or continuous joint .*'j' \(prismatic\)"),
        ('<robot name="x"><link name="a"/><joint name="j" type="revolute"><parent link="a"/>'
         '<child link="zz"/></joint></robot>', "not defined"),
    ],
)
def test_bad_urdf_gives_clear_errors(text: str, match: str, tmp_path) -> None:
    f = tmp_path / "bad.urdf"
    f.write_text(text)
    with pytest.raises(ValueError, match=match) as info:
        SerialArm.from_urdf(f)
    assert str(f) in str(info.value)


def test_unknown_robot_name() -> None:
    with pytest.raises(ValueError, match="no serial robot named"):
        SerialArm.named("no_such_robot")


def test_tx40_generated_kernel_matches_pinocchio_and_is_used() -> None:
    arm = SerialArm.named("tx40")
    assert arm._kernel_module() is not None, "the TX40 arm should use paperlib/kernels/tx40.py"
    model, data = _pin_model(arm.to_urdf())
    q, qd, qdd = arm.random_states(20, seed=7, v_max=5.0, a_max=30.0)
    Y = arm.inertial_regressor(q, qd, qdd)
    for s in range(len(q)):
        assert _rel_err(Y[s], pin.computeJointTorqueRegressor(model, data, q[s], qd[s], qdd[s])) < REL
    # a changed geometry falls back to the generic path (the kernel's constants no longer apply)
    moved = SerialArm.named("tx40", p0=arm.p0 + 0.01)
    assert moved._kernel_module() is None


def test_closed_form_2r_expressions() -> None:
    import sympy as sp

    from paperlib.symbolic.serial import regressor_expressions

    arm = SerialArm.from_dh([(0.0, 0.0, 0.0, 0.0), (0.0, 0.5, 0.0, 0.0)], gravity=(0.0, -9.81, 0.0))
    Y = regressor_expressions(arm)
    q1, q2 = sp.symbols("q0 q1")
    # joint 2 torque column of mx2 (m2 c2x): gravity and the centripetal term of joint 1
    expect = sp.Float(9.81) * sp.cos(q1 + q2) + 0.5 * sp.Symbol("qd0") ** 2 * sp.sin(q2) + 0.5 * sp.Symbol("qdd0") * sp.cos(q2)
    syms = sp.symbols("q0 q1 qd0 qd1 qdd0 qdd1")
    g = sp.lambdify(syms, Y[1, 11] - expect, "numpy")
    pts = np.random.default_rng(0).uniform(-2, 2, (10, 6))
    assert max(abs(g(*p)) for p in pts) < 1e-12
    assert Y[0, 9] == sp.Symbol("qdd0")  # ZZ1 of joint 1: its acceleration only
    q, qd, qdd = arm.random_states(3, seed=1)
    f = sp.lambdify(sp.symbols("q0 q1 qd0 qd1 qdd0 qdd1"), Y, "numpy")
    for s in range(3):
        assert np.allclose(np.array(f(*q[s], *qd[s], *qdd[s]), dtype=float), arm.inertial_regressor(q[s], qd[s], qdd[s]), atol=1e-12)
