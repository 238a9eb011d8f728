"""Generated kernels are fresh, and the staleness check really detects staleness."""

from __future__ import annotations


import numpy as np
import sympy as sp

from paperlib import codegen
from paperlib.estimation.regressor import assemble_row
from paperlib.friction import TABLE4, FrictionModel
from paperlib.symbolic.friction import friction_regressor as symbolic_friction_regressor
from paperlib.provenance import REPO_ROOT


def test_generated_kernels_are_fresh():
    assert codegen.main(["--check"]) == 0


def test_check_fails_on_stale_or_missing_kernel(tmp_path, monkeypatch):
    monkeypatch.setattr(codegen, "KERNEL_DIR", tmp_path)
    # one robot's kernels are enough to see the check work (test_generated_kernels_are_fresh derives all)
    assert codegen.main(["--check", "five_bar"]) == 1  # missing
    assert codegen.main(["five_bar"]) == 0
    assert codegen.main(["--check", "five_bar"]) == 0
    path = tmp_path / "five_bar.py"
    path.write_text(path.read_text().replace("idet = 1.0/det", "idet = 1.0/(det + 1e-9)", 1))
    assert codegen.main(["--check", "five_bar"]) == 1  # hand-edited


def test_generated_header_names_generator_and_source():
    text = (codegen.KERNEL_DIR / "five_bar.py").read_text()
    head = text[:600]
    assert "GENERATED FILE - DO NOT EDIT" in head
    assert "python -m paperlib.codegen" in head
    assert "paperlib/symbolic/five_bar.py" in head


def _random_friction_models(rng, n):
    for _ in range(n):
        k = rng.integers(1, 6)
        joints = tuple(sorted(rng.choice(np.arange(1, 6), size=k, replace=False).tolist()))
        yield FrictionModel(joints=joints, order=int(rng.integers(1, 5)), symmetric=bool(rng.integers(0, 2)))


def test_compiled_regressor_matches_symbolic_derivation():
    """Y = [-D_m^T diag(tau_m), Y_F] for any joint subset, order and symmetry (eqs. 6-12)."""
    rng = np.random.default_rng(0)
    D_sym = sp.Matrix(5, 2, lambda i, j: sp.Symbol(f"D{i}{j}"))
    v_sym = [sp.Symbol(f"v{j}", real=True) for j in range(5)]
    models = list(TABLE4.values()) + list(_random_friction_models(rng, 12))
    for model in models:
        Y_sym = symbolic_friction_regressor(model, D_sym, v_sym)
        f = sp.lambdify(list(D_sym) + v_sym, Y_sym, "numpy")
        for _ in range(4):
            D = rng.normal(size=(5, 2))
            v = rng.normal(size=5) * 2
            v[rng.integers(0, 5)] *= -1
            tau = rng.normal(size=2)
            D_m = np.diag(rng.uniform(5, 20, 2))
            Q_I = rng.normal(size=2)
            Y = np.empty((2, 2 + model.n_params))
            R = np.empty(2)
            assemble_row(Q_I, D_m, tau, np.zeros((2, 0)), D, v, model.columns(), Y, R)
            np.testing.assert_allclose(Y[:, 2:], np.array(f(*D.ravel(), *v), dtype=float), rtol=1e-13, atol=1e-13)
            np.testing.assert_allclose(Y[:, :2], -D_m.T @ np.diag(tau), rtol=1e-15)
            np.testing.assert_array_equal(R, Q_I)


def test_friction_model_resists_motion():
    model = TABLE4[3]
    pi = np.array([1.0, 0.5, -0.05, 0.01] * 2)
    v = np.linspace(-3.7, 3.7, 101)
    tau = model.torque(pi, v, joint=1)
    assert np.all(tau * v >= 0)  # resisting torque has the sign of the velocity
    assert model.n_params == 8 and len(model.param_names()) == 8


def test_numba_cache_is_keyed_on_the_source_even_if_numba_came_first(tmp_path):
    # numba only invalidates a cached function when its own file changes; paperlib points the
    # cache at a directory keyed on the package's source. That must hold when numba was
    # imported before paperlib too (it then ignores a later NUMBA_CACHE_DIR in the environment).
    import os
    import subprocess
    import sys

    from paperlib._numba_cache import source_digest

    code = ("import numba\nimport paperlib.twin.imu\nfrom numba.core import config\n"
            "print(config.CACHE_DIR)\n")
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    env["XDG_CACHE_HOME"] = str(tmp_path)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    digest = source_digest(REPO_ROOT / "paperlib")
    assert out.stdout.strip() == str(tmp_path / "paperlib" / "numba" / digest)


def test_serial_arm_kernel_set_matches_the_numeric_newton_euler(tmp_path):
    """The serial_arm kind's generated M, h and R agree with SerialArm's numeric path (item: any arm on the runner)."""
    import types

    from test_seventh_robot import TOML, URDF  # the seventh robot's files (its folder is on sys.path)
    from paperlib.robots.serial_arm import read_arm
    from paperlib.symbolic import serial_arm as S

    (tmp_path / "planar3.urdf").write_text(URDF)
    (tmp_path / "planar3.toml").write_text(TOML)
    text = S.kernel_module("planar3", tmp_path / "planar3.toml")
    assert text.startswith("# GENERATED FILE - DO NOT EDIT.")
    mod = types.ModuleType("planar3_kernels")
    exec(compile(text.replace("cache=True", "cache=False"), "planar3_kernels", "exec"), mod.__dict__)
    arm = read_arm(tmp_path / "planar3.toml")
    gear = np.array([2.0, 3.0, 5.0])
    prm = np.concatenate([arm.inertial.ravel(), gear])
    rng = np.random.default_rng(3)
    for _ in range(5):
        q, qd, qdd = rng.normal(size=(3, 3))
        M, h = np.empty((3, 3)), np.empty(3)
        assert mod.mass_bias(q, qd, prm, M, h) == 0
        np.testing.assert_allclose(M, arm.mass_matrix(q), atol=1e-14)
        np.testing.assert_allclose(M @ qdd + h, arm.inverse_dynamics(q, qd, qdd), atol=1e-13)
        R, D_m, D_u, u = np.empty(3), np.empty((3, 3)), np.empty((3, 3)), np.empty(3)
        assert mod.terms(q, qd, qdd, prm, R, D_m, D_u, u) == 0
        np.testing.assert_allclose(-R, arm.inverse_dynamics(q, qd, qdd), atol=1e-13)
        np.testing.assert_array_equal(D_m, np.diag(gear))
        np.testing.assert_array_equal(u, qd)
    code = S.kernel_set("planar3", tmp_path / "planar3.toml")
    assert code.sizes() == (3, 3, 3, 0, 33, ())
