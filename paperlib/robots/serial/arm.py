"""The serial arm: geometry, inertials, column layout, and its regressor and dynamics.

See :mod:`paperlib.robots.serial` for the conventions.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from paperlib.robots._batch import as_states as _as_states
from paperlib.robots.serial.columns import Coupling, JointColumns, joint_columns
from paperlib.robots.serial.rnea import _forward_dynamics_many, _rnea_many, _rot_axis, regressor_many, rnea
from paperlib.robots.serial.spatial import INERTIAL_NAMES, inertial_from_com, rpy_matrix, snap
from paperlib.robots.serial.urdf import arm_urdf, read_urdf

ROBOTS_DIR = Path(__file__).resolve().parents[3] / "data" / "robots"

__all__ = ["SerialArm", "ROBOTS_DIR"]


@dataclass(frozen=True)
class SerialArm:
    """A serial arm of revolute joints (see the module docstring for the conventions).

    Attributes
    ----------
    name : str
        Robot name (a recording's ``robot`` attribute; ``tx40`` has a generated kernel).
    joint_names : tuple of str
    R0 : ndarray, shape (n, 3, 3)
        Joint placement rotations (parent joint frame <- joint frame at q = 0).
    p0 : ndarray, shape (n, 3)
        Joint placement translations in the parent joint frame [m].
    axes : ndarray, shape (n, 3)
        Unit joint axes in their own frames.
    inertial : ndarray, shape (n, 10)
        Nominal standard parameters of each body (SI).
    gravity : ndarray, shape (3,)
        World gravity [m/s^2].
    columns : JointColumns
        Per-joint columns after the inertial ones.
    couplings : tuple of Coupling
    lower, upper : ndarray, shape (n,)
        Joint position limits [rad] (``-inf``/``inf`` if unknown).
    velocity_limit, effort_limit : ndarray, shape (n,)
        [rad/s], [N m] (``inf`` if unknown).
    drive : dict
        Optional drive description (gear ratios, coupling matrix) from the robot file.
    kernel : str or None
        Name of a generated kernel module in ``paperlib.kernels`` for the inertial regressor
        (``None``: the generic compiled Newton-Euler path).
    gravity_joints : tuple of int or None
        Labels (1-based) of the joints whose constant-velocity friction segments carry gravity
        (``gravity_joints`` of the robot file's ``[plateaus]`` table,
        :func:`paperlib.estimation.plateaus.recording_friction`); ``None``: not stated.
    """

    name: str
    joint_names: tuple[str, ...]
    R0: np.ndarray
    p0: np.ndarray
    axes: np.ndarray
    inertial: np.ndarray
    gravity: np.ndarray = field(default_factory=lambda: np.array([0.0, 0.0, -9.81]))
    columns: JointColumns = field(default_factory=JointColumns)
    couplings: tuple[Coupling, ...] = ()
    lower: np.ndarray | None = None
    upper: np.ndarray | None = None
    velocity_limit: np.ndarray | None = None
    effort_limit: np.ndarray | None = None
    drive: dict = field(default_factory=dict, repr=False)
    kernel: str | None = None
    gravity_joints: tuple[int, ...] | None = None

    def __post_init__(self) -> None:
        n = len(self.joint_names)
        object.__setattr__(self, "R0", np.ascontiguousarray(np.asarray(self.R0, dtype=np.float64).reshape(n, 3, 3)))
        object.__setattr__(self, "p0", np.ascontiguousarray(np.asarray(self.p0, dtype=np.float64).reshape(n, 3)))
        ax = np.asarray(self.axes, dtype=np.float64).reshape(n, 3)
        norms = np.linalg.norm(ax, axis=1)
        if np.any(norms < 1e-12):
            raise ValueError(f"{self.name}: joint axis of zero length at joint {int(np.argmin(norms)) + 1}")
        object.__setattr__(self, "axes", np.ascontiguousarray(ax / norms[:, None]))
        object.__setattr__(self, "inertial", np.ascontiguousarray(np.asarray(self.inertial, dtype=np.float64).reshape(n, 10)))
        object.__setattr__(self, "gravity", np.ascontiguousarray(np.asarray(self.gravity, dtype=np.float64).reshape(3)))
        for attr, default in (("lower", -np.inf), ("upper", np.inf), ("velocity_limit", np.inf), ("effort_limit", np.inf)):
            v = getattr(self, attr)
            object.__setattr__(self, attr, np.full(n, default) if v is None else np.asarray(v, dtype=np.float64).reshape(n))
        for cp in self.couplings:
            if len(cp.joints) != len(cp.coefficients) or any(not 0 <= j < n for j in cp.joints):
                raise ValueError(f"{self.name}: coupling {cp.name!r} names joints {cp.joints} outside 0..{n - 1}")

    # -------------------------------------------------------------- construction
    @property
    def n(self) -> int:
        """Number of joints."""
        return len(self.joint_names)

    @classmethod
    def from_dh(
        cls, table: Sequence[Sequence[float]], *, inertial: np.ndarray | None = None, name: str = "dh_arm",
        gravity: Sequence[float] = (0.0, 0.0, -9.81), **kwargs: Any,
    ) -> "SerialArm":
        """Arm from a modified Denavit-Hartenberg table (Craig / Khalil-Kleinfinger).

        Parameters
        ----------
        table : sequence of (alpha, a, theta_offset, d)
            One row per revolute joint: ``alpha_{i-1}`` [rad], ``a_{i-1}`` [m], the joint angle
            offset ``theta_i`` [rad] (the angle at ``q_i = 0``) and ``d_i`` [m]. Frame ``i``
            is ``Rx(alpha) Tx(a) Rz(theta) Tz(d)`` from frame ``i - 1``, and joint ``i`` turns
            about its z axis.
        inertial : ndarray, shape (n, 10), optional
            Standard parameters of each body in its DH frame (zeros if omitted).
        name : str
        gravity : sequence of 3 float
            World (frame 0) gravity [m/s^2].
        **kwargs
            Further :class:`SerialArm` fields (``columns``, ``couplings``, limits...).
        """
        rows = np.asarray(table, dtype=np.float64)
        if rows.ndim != 2 or rows.shape[1] != 4:
            raise ValueError(f"DH table must have rows (alpha, a, theta, d); got shape {rows.shape}")
        n = rows.shape[0]
        R0, p0 = [], []
        for alpha, a, theta, d in rows:
            Rx = rpy_matrix((alpha, 0.0, 0.0))
            Rz = rpy_matrix((0.0, 0.0, theta))
            R0.append(snap(Rx @ Rz))
            p0.append(np.array([a, 0.0, 0.0]) + Rx @ np.array([0.0, 0.0, d]))
        return cls(
            name=name, joint_names=tuple(f"joint_{i + 1}" for i in range(n)), R0=np.array(R0), p0=snap(np.array(p0), 1e-15),
            axes=np.tile([0.0, 0.0, 1.0], (n, 1)), inertial=np.zeros((n, 10)) if inertial is None else inertial,
            gravity=np.asarray(gravity, dtype=np.float64), **kwargs,
        )

    @classmethod
    def from_urdf(cls, path: str | Path, base_link: str | None = None, tip_link: str | None = None, *,
                  name: str | None = None, **kwargs: Any) -> "SerialArm":
        """Arm from a URDF as published: the chain from base to tip, every other link merged (:func:`~paperlib.robots.serial.urdf.read_urdf`).

        Parameters
        ----------
        path : str or Path
            URDF file (or its XML text if it starts with ``<``).
        base_link : str, optional
            Link the arm is mounted on (default: the root link).
        tip_link : str, optional
            Last link of the chain (default: found when the tree holds one movable branch).
        name : str, optional
            Robot name (default: the URDF's ``robot name``).
        **kwargs
            Further :class:`SerialArm` fields.

        Raises
        ------
        ValueError
            Naming the file, the problem and what to pass: not XML, an undefined joint type or
            link, a loop, several movable branches (their tip links), a prismatic or mimic joint
            on the chain.
        """
        fields, limits = read_urdf(path, base_link=base_link, tip_link=tip_link)
        for key, value in limits.items():
            kwargs.setdefault(key, value)
        urdf_name = fields.pop("name")
        return cls(name=name or urdf_name, **fields, **kwargs)

    @classmethod
    def from_toml(cls, path: str | Path, **kwargs: Any) -> "SerialArm":
        """Arm from a robot file in ``data/robots/`` (see ``tx40.toml`` for the layout)."""
        path = Path(path)
        try:
            desc = tomllib.loads(path.read_text())
        except (OSError, tomllib.TOMLDecodeError) as exc:
            raise ValueError(f"{path}: cannot read robot file ({exc})") from None
        try:
            robot = desc["robot"]
            names, R0, p0, axes, inert, lo, hi, vel, eff = [], [], [], [], [], [], [], [], []
            for j in desc["joint"]:
                names.append(j["name"])
                R0.append(snap(rpy_matrix(j.get("rpy", [0, 0, 0]))))
                p0.append(j.get("xyz_m", [0, 0, 0]))
                axes.append(j.get("axis", [0, 0, 1]))
                b = j["inertial"]
                Rc = rpy_matrix(b.get("rpy", [0, 0, 0]))
                ixx, ixy, ixz, iyy, iyz, izz = b["inertia_kg_m2"]
                Ic = np.array([[ixx, ixy, ixz], [ixy, iyy, iyz], [ixz, iyz, izz]])
                inert.append(inertial_from_com(b["mass_kg"], b["com_m"], Rc @ Ic @ Rc.T))
                lo.append(j.get("lower_rad", -np.inf))
                hi.append(j.get("upper_rad", np.inf))
                vel.append(j.get("velocity_rad_s", np.inf))
                eff.append(j.get("effort_n_m", np.inf))
            couplings = tuple(Coupling(c["name"], tuple(int(k) - 1 for k in c["joints"]), tuple(float(x) for x in c["coefficients"]))
                              for c in desc.get("coupling", []))
            cols = JointColumns(**desc.get("columns", {}))
            plateaus = desc.get("plateaus", {})
            gravity_joints = tuple(int(j) for j in plateaus["gravity_joints"]) if "gravity_joints" in plateaus else None
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"{path}: malformed robot file ({type(exc).__name__}: {exc})") from None
        kw = dict(name=robot["name"], joint_names=tuple(names), R0=np.array(R0), p0=np.array(p0), axes=np.array(axes),
                  inertial=np.array(inert), gravity=np.asarray(robot.get("gravity_m_s2", [0, 0, -9.81])), columns=cols,
                  couplings=couplings, lower=np.array(lo), upper=np.array(hi), velocity_limit=np.array(vel),
                  effort_limit=np.array(eff), drive=desc.get("drive", {}), kernel=robot.get("kernel"),
                  gravity_joints=gravity_joints)
        kw.update(kwargs)
        return cls(**kw)

    @classmethod
    def named(cls, name: str, *, base_link: str | None = None, tip_link: str | None = None, **kwargs: Any) -> "SerialArm":
        """Arm from ``data/robots/<name>.toml``, or from a URDF / TOML path.

        ``base_link`` / ``tip_link`` pick the chain in a URDF (:meth:`from_urdf`); a robot file
        holds its chain already and refuses them.
        """
        p = Path(name)
        if p.suffix == ".urdf":
            if not p.exists():
                raise ValueError(f"{p}: no such URDF file")
            return cls.from_urdf(p, base_link=base_link, tip_link=tip_link, **kwargs)
        if base_link is not None or tip_link is not None:
            raise ValueError(f"robot {name!r}: --base-link / --tip-link pick a chain in a URDF; give the .urdf path "
                             "or leave them out for a robot file")
        if p.suffix == ".toml" and p.exists():
            return cls.from_toml(p, **kwargs)
        f = ROBOTS_DIR / f"{name}.toml"
        if not f.exists():
            known = sorted(x.stem for x in ROBOTS_DIR.glob("*.toml") if "[[joint]]" in x.read_text())
            raise ValueError(f"no serial robot named {name!r} (known: {known}; or give a .urdf path)")
        return cls.from_toml(f, **kwargs)

    def with_columns(self, columns: JointColumns | None = None, couplings: Sequence[Coupling] | None = None) -> "SerialArm":
        """A copy with other per-joint columns and/or couplings."""
        return replace(self, columns=self.columns if columns is None else columns,
                       couplings=self.couplings if couplings is None else tuple(couplings))

    def to_urdf(self) -> str:
        """URDF text of the arm (for other tools, e.g. pinocchio as a test oracle)."""
        return arm_urdf(self)

    # -------------------------------------------------------------- parameter layout
    @property
    def inertial_names(self) -> tuple[str, ...]:
        """``m1, mx1, ..., ZZ1, m2, ...`` (10 n names)."""
        return tuple(f"{p}{i + 1}" for i in range(self.n) for p in INERTIAL_NAMES)

    @property
    def param_names(self) -> tuple[str, ...]:
        """Names of the regressor's columns, in order."""
        kinds = self.columns.kinds()
        joint = [f"{k}{j + 1}" for j in range(self.n) for k in kinds]
        coup = [f"{k}{c.name}" for c in self.couplings for k in ("Iam", "fvm", "fsm")]
        return self.inertial_names + tuple(joint) + tuple(coup)

    @property
    def n_params(self) -> int:
        return len(self.param_names)

    def nominal_params(self, **values: float) -> np.ndarray:
        """Parameter vector: the nominal inertials, zeros elsewhere, then ``name=value`` overrides."""
        p = np.zeros(self.n_params)
        p[: 10 * self.n] = self.inertial.ravel()
        idx = {k: i for i, k in enumerate(self.param_names)}
        for k, v in values.items():
            if k not in idx:
                raise ValueError(f"{self.name}: no parameter named {k!r}")
            p[idx[k]] = v
        return p

    # -------------------------------------------------------------- dynamics
    def _kernel_module(self) -> Any:
        if self.kernel is None:
            return None
        import importlib

        try:
            mod = importlib.import_module(f"paperlib.kernels.{self.kernel}")
        except ModuleNotFoundError as exc:  # not generated (yet): the generic path
            if exc.name != f"paperlib.kernels.{self.kernel}":
                raise
            return None
        # the generated code holds its geometry as constants: use it only for that geometry
        if not (np.array_equal(mod.R0, self.R0) and np.array_equal(mod.P0, self.p0) and np.array_equal(mod.AXES, self.axes)
                and np.array_equal(mod.GRAVITY, self.gravity)):
            return None
        return mod

    def inertial_regressor(self, q: Any, qd: Any, qdd: Any) -> np.ndarray:
        """Regressor of the 10 n inertial parameters: (n, 10 n) or (N, n, 10 n) [N m per unit]."""
        Q, single = _as_states(q, "q", self.n)
        QD, _ = _as_states(qd, "qd", self.n)
        QDD, _ = _as_states(qdd, "qdd", self.n)
        if not Q.shape == QD.shape == QDD.shape:
            raise ValueError(f"q, qd, qdd must have the same shape; got {Q.shape}, {QD.shape}, {QDD.shape}")
        Y = np.empty((Q.shape[0], self.n, 10 * self.n))
        mod = self._kernel_module()
        if mod is not None:
            mod.regressor_many(Q, QD, QDD, Y)
        else:
            regressor_many(Q, QD, QDD, self.R0, self.p0, self.axes, self.gravity, Y)
        return Y[0] if single else Y

    def regressor(self, q: Any, qd: Any, qdd: Any) -> np.ndarray:
        """Full joint torque regressor ``Y``: ``tau = Y @ params``.

        Parameters
        ----------
        q, qd, qdd : array_like, shape (n,) or (N, n)
            Joint angles [rad], velocities [rad/s], accelerations [rad/s^2].

        Returns
        -------
        ndarray, shape (n, p) or (N, n, p)
            Columns as :attr:`param_names` (inertial first, then per-joint, then couplings).
        """
        Q, single = _as_states(q, "q", self.n)
        QD, _ = _as_states(qd, "qd", self.n)
        QDD, _ = _as_states(qdd, "qdd", self.n)
        Yi = self.inertial_regressor(Q, QD, QDD)
        Y = np.concatenate([Yi, joint_columns(QD, QDD, self.columns, self.couplings)], axis=2)
        return Y[0] if single else Y

    def inverse_dynamics(self, q: Any, qd: Any, qdd: Any, params: np.ndarray | None = None) -> np.ndarray:
        """Joint torques [N m], (n,) or (N, n).

        With ``params=None`` the nominal rigid-body model (no friction) by recursive
        Newton-Euler; otherwise ``Y(q, qd, qdd) @ params`` with a full parameter vector
        (:attr:`param_names`).
        """
        Q, single = _as_states(q, "q", self.n)
        QD, _ = _as_states(qd, "qd", self.n)
        QDD, _ = _as_states(qdd, "qdd", self.n)
        if params is None:
            out = np.empty(Q.shape)
            _rnea_many(Q, QD, QDD, self.R0, self.p0, self.axes, self.gravity, self.inertial, out)
        else:
            params = np.asarray(params, dtype=np.float64)
            if params.shape != (self.n_params,):
                raise ValueError(f"params must have shape ({self.n_params},) (see param_names); got {params.shape}")
            out = self.regressor(Q, QD, QDD) @ params
        return out[0] if single else out

    def mass_matrix(self, q: Any, inertial: np.ndarray | None = None) -> np.ndarray:
        """Joint-space mass matrix of the rigid bodies [kg m^2], (n, n) (column j = RNEA with qdd = e_j, no gravity)."""
        Q, single = _as_states(q, "q", self.n)
        inert = self.inertial if inertial is None else np.ascontiguousarray(inertial, dtype=np.float64).reshape(self.n, 10)
        g0 = np.zeros(3)
        z = np.zeros(self.n)
        M = np.empty((Q.shape[0], self.n, self.n))
        for s in range(Q.shape[0]):
            for j in range(self.n):
                e = np.zeros(self.n)
                e[j] = 1.0
                M[s, :, j] = rnea(Q[s], z, e, self.R0, self.p0, self.axes, g0, inert)
        return M[0] if single else M

    def forward_dynamics(self, q: Any, qd: Any, tau: Any, inertial: np.ndarray | None = None,
                         rotor_inertia: Any = None) -> np.ndarray:
        """Joint accelerations [rad/s^2] of the rigid bodies under joint torques ``tau`` [N m].

        ``qdd = M(q)^-1 (tau - h(q, qd))`` (compiled; M from n Newton-Euler passes), for one state
        (n,) or many (N, n). ``rotor_inertia`` (n,) [kg m^2] adds ``Ia_j`` to ``M_jj`` (joint-side
        rotor inertia); friction is the caller's (subtract it from ``tau``).
        """
        Q, single = _as_states(q, "q", self.n)
        QD, _ = _as_states(qd, "qd", self.n)
        TAU, _ = _as_states(tau, "tau", self.n)
        inert = self.inertial if inertial is None else np.ascontiguousarray(inertial, dtype=np.float64).reshape(self.n, 10)
        rotor = np.zeros(self.n) if rotor_inertia is None else np.asarray(rotor_inertia, dtype=np.float64).reshape(self.n)
        out = np.empty(Q.shape)
        _forward_dynamics_many(Q, QD, TAU, self.R0, self.p0, self.axes, self.gravity, inert, rotor, out)
        return out[0] if single else out

    def forward_kinematics(self, q: Any) -> tuple[np.ndarray, np.ndarray]:
        """World rotations (.., n, 3, 3) and origins (.., n, 3) [m] of the joint frames."""
        Q, single = _as_states(q, "q", self.n)
        Rw = np.empty((Q.shape[0], self.n, 3, 3))
        pw = np.empty((Q.shape[0], self.n, 3))
        for s in range(Q.shape[0]):
            R, p = np.eye(3), np.zeros(3)
            for i in range(self.n):
                p = p + R @ self.p0[i]
                R = R @ self.R0[i] @ _rot_axis(self.axes[i], Q[s, i])
                Rw[s, i], pw[s, i] = R, p
        return (Rw[0], pw[0]) if single else (Rw, pw)

    def random_states(self, n_states: int, seed: int = 0, v_max: float = 2.0, a_max: float = 10.0) -> tuple[np.ndarray, ...]:
        """Random (q, qd, qdd), each (n_states, n): q within the limits (or +-pi), for tests and QR."""
        rng = np.random.default_rng(seed)
        lo = np.where(np.isfinite(self.lower), self.lower, -np.pi)
        hi = np.where(np.isfinite(self.upper), self.upper, np.pi)
        vm = np.minimum(np.where(np.isfinite(self.velocity_limit), self.velocity_limit, v_max), v_max)
        return (rng.uniform(lo, hi, (n_states, self.n)), rng.uniform(-vm, vm, (n_states, self.n)),
                rng.uniform(-a_max, a_max, (n_states, self.n)))

    def base_parameters(self, n_states: int = 200, seed: int = 0, tol: float = 1e-6) -> "Any":
        """Base parameters by QR with column pivoting on random states (see
        :func:`paperlib.robots.base_parameters.base_parameters`)."""
        from paperlib.robots.base_parameters import base_parameters

        q, qd, qdd = self.random_states(n_states, seed)
        Y = self.regressor(q, qd, qdd).reshape(-1, self.n_params)
        return base_parameters(Y, self.param_names, tol=tol)
