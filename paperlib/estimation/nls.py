"""Nonlinear least squares of drive friction with a torque-scale ratio (paper 002, eqs. 38-41).

Model (per sample ``j`` and drive ``i``)::

    tau_i^j = k_f E_i^j + f_i(v_i^j),   f_i(v) = k_vi v + f_1i tanh(m_1i v) + f_2i tanh(m_2i v)

``tau`` is the drives' reported torque, ``E = (J_a^T)^+ (M_s p_dd + C_s p_dot)`` the model's
minimum-norm dynamic torque (eq. 37) and ``k_f`` the ratio between the reported torque and the
model's torque (the paper's quantization ratio; here it also absorbs a common torque-constant
error). 16 parameters for three drives (Table 2).

Two residuals:

* ``"joint"`` -- the paper's objective (eq. 41): every drive's torque on its own (3 rows per sample).
* ``"task"`` (default) -- ``J_a^T (tau - k_f E - f(v))``, 2 rows per sample. The robot is
  redundantly actuated: only ``J_a^T tau`` moves the platform, and the part of ``tau`` in the
  null space of ``J_a^T`` (internal preload between the drives) is whatever the controller
  commands. The joint residual treats that part as friction; the task residual is blind to it
  and is the physically consistent fit for any controller.

Estimators follow the project's shape: configure in the constructor, ``fit(data)``, learned
values as trailing-underscore attributes with standard deviations. :class:`KosticNLS` runs
``scipy.optimize.least_squares`` (trust-region reflective, bounds ``k_f > 0``, ``0 <= m <= m_max``)
from several starts: each start draws the four steepnesses ``m`` log-uniformly and solves the
linear parameters for them by linear least squares, then all 16 move. :class:`CoulombViscousLS`
is the paper's baseline ``f(v) = k_v v + f_c sign(v)`` by linear least squares. Both follow
:mod:`paperlib.estimation.protocol`: ``fit`` takes a :class:`FrictionData` (or a mapping with its
fields ``tau``, ``E``, ``v``, ``J``), ``predict(data)`` gives the model torques (N, 3).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

import numpy as np
from scipy.optimize import least_squares
from threadpoolctl import threadpool_limits

from paperlib.estimation.batch import weighted_lstsq
from paperlib.estimation.protocol import EstimatorMixin, from_json_float
from paperlib.estimation.uncertainty import gauss_newton_std
from paperlib.friction.kostic import KosticLaw
from paperlib.friction.polynomial import FrictionModel

__all__ = ["FrictionData", "KosticNLS", "CoulombViscousLS", "kostic_param_names"]

N_DRIVES = 3


@dataclass
class FrictionData:
    """Samples for the identification (already gated).

    Attributes
    ----------
    tau : ndarray, shape (N, 3)
        Reported drive torques [N m].
    E : ndarray, shape (N, 3)
        Minimum-norm model torques (eq. 37) [N m].
    v : ndarray, shape (N, 3)
        Drive rates [rad/s].
    J : ndarray, shape (N, 3, 2)
        Actuated Jacobians J_a [rad/m] (needed by the task residual).
    meta : dict
        How the data were made (filter, gate, source file).
    """

    tau: np.ndarray
    E: np.ndarray
    v: np.ndarray
    J: np.ndarray
    meta: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        n = np.shape(self.tau)[0]
        for name, shape in (("tau", (n, 3)), ("E", (n, 3)), ("v", (n, 3)), ("J", (n, 3, 2))):
            arr = np.asarray(getattr(self, name), dtype=float)
            if arr.shape != shape:
                raise ValueError(f"FrictionData.{name} must have shape {shape}; got {arr.shape}")
            if not np.all(np.isfinite(arr)):
                raise ValueError(f"FrictionData.{name} holds non-finite values")
            setattr(self, name, arr)

    @property
    def n(self) -> int:
        return self.tau.shape[0]


def as_friction_data(data: Any, who: str) -> FrictionData:
    """``data`` as :class:`FrictionData` (given one, or a mapping with its fields), refused clearly otherwise."""
    if isinstance(data, FrictionData):
        return data
    if isinstance(data, Mapping):
        missing = [k for k in ("tau", "E", "v", "J") if k not in data]
        if missing:
            raise ValueError(f"{who}: the data lack {missing} (need tau, E, v, J)")
        return FrictionData(data["tau"], data["E"], data["v"], data["J"], dict(data.get("meta", {})))
    raise ValueError(f"{who}: expected FrictionData or a mapping with tau, E, v, J; got {type(data).__name__}")


def kostic_param_names() -> list[str]:
    """``k_f`` then ``k_v,i, f_1,i, f_2,i, m_1,i, m_2,i`` for i = 1..3 (16 names)."""
    return ["k_f"] + [f"{n}_{i}" for i in (1, 2, 3) for n in ("k_v", "f_1", "f_2", "m_1", "m_2")]


def _project(rows: np.ndarray, J: np.ndarray, residual: str) -> np.ndarray:
    """Per-sample joint-space quantities (N, 3, ...) -> residual rows (joint: 3 N, task: J^T x, 2 N)."""
    if residual == "joint":
        return rows.reshape(rows.shape[0] * 3, *rows.shape[2:])
    out = np.einsum("nia,ni...->na...", J, rows)
    return out.reshape(rows.shape[0] * 2, *rows.shape[2:])


def _check_residual(residual: str) -> None:
    if residual not in ("joint", "task"):
        raise ValueError(f"residual must be 'joint' or 'task'; got {residual!r}")


def _cov_std(Jac: np.ndarray, r: np.ndarray) -> tuple[np.ndarray, float]:
    """Standard deviations from the Gauss-Newton covariance s^2 (J^T J)^-1 (pseudo-inverse if singular).

    A parameter the data do not move (e.g. the steepness of a tanh saturated over every sample)
    is undetermined: NaN (:func:`paperlib.estimation.uncertainty.gauss_newton_std`).
    """
    return gauss_newton_std(Jac, r)


class KosticNLS(EstimatorMixin):
    """Kostic friction of three drives and the common ratio k_f by multi-start NLS.

    Parameters
    ----------
    n_starts : int
        Number of starts (each a different draw of the four m's).
    seed : int
        Seed of the starts.
    residual : {"task", "joint"}
        See the module docstring.
    m_range : (float, float)
        Range [s/rad] the starts' steepnesses are drawn from (log-uniformly).
    m_max : float
        Upper bound of every m [s/rad] during the fit.
    max_nfev : int
        Function evaluations per start.

    Attributes (after :meth:`fit`)
    ------------------------------
    params_ : ndarray (16,)   best parameters, each law in canonical form (``m_1 >= m_2 >= 0``)
    std_ : ndarray (16,)      their standard deviations (Gauss-Newton)
    k_f_, k_f_std_ : float
    laws_ : list of KosticLaw (3,)
    cost_ : float             0.5 * sum of squared residuals at the best start
    rms_residual_ : float     RMS residual [N m (joint) or N (task)]
    residual_rms_ : float     the same (the protocol's name)
    starts_ : list of dict    every start: initial and final parameters, cost, status
    """

    def __init__(self, n_starts: int = 8, seed: int = 0, residual: str = "task",
                 m_range: tuple[float, float] = (0.5, 100.0), m_max: float = 500.0, max_nfev: int = 1000) -> None:
        _check_residual(residual)
        if n_starts < 1:
            raise ValueError("n_starts must be >= 1")
        self.n_starts, self.seed, self.residual = int(n_starts), int(seed), residual
        self.m_range, self.m_max, self.max_nfev = m_range, float(m_max), int(max_nfev)

    # -- model --------------------------------------------------------------------------------
    @staticmethod
    def _split(x: np.ndarray) -> tuple[float, np.ndarray]:
        return float(x[0]), x[1:].reshape(3, 5)

    def predict_joint(self, x: np.ndarray, data: FrictionData) -> np.ndarray:
        """Model torques k_f E + f(v) (N, 3) [N m] for parameters x (16,)."""
        k_f, P = self._split(np.asarray(x, dtype=float))
        out = k_f * data.E
        for i in range(3):
            out[:, i] += KosticLaw.from_params(P[i]).torque(data.v[:, i])
        return out

    def _residual(self, x: np.ndarray, data: FrictionData) -> np.ndarray:
        return _project((data.tau - self.predict_joint(x, data))[:, :, None], data.J, self.residual)[:, 0]

    def _jacobian(self, x: np.ndarray, data: FrictionData) -> np.ndarray:
        k_f, P = self._split(x)
        n = data.n
        G = np.zeros((n, 3, 16))  # d(model)/dx per joint; residual = tau - model
        G[:, :, 0] = data.E
        for i in range(3):
            kv, f1, f2, m1, m2 = P[i]
            v = data.v[:, i]
            t1, t2 = np.tanh(m1 * v), np.tanh(m2 * v)
            c = 1 + 5 * i
            G[:, i, c] = v
            G[:, i, c + 1] = t1
            G[:, i, c + 2] = t2
            G[:, i, c + 3] = f1 * v * (1 - t1**2)
            G[:, i, c + 4] = f2 * v * (1 - t2**2)
        return -_project(G, data.J, self.residual)

    def _linear_start(self, m: np.ndarray, data: FrictionData) -> np.ndarray:
        """For fixed steepnesses m (3, 2), the linear parameters (k_f, k_v, f_1, f_2) by linear LS."""
        x = np.zeros(16)
        x[0] = 1.0
        for i in range(3):
            x[1 + 5 * i + 3: 1 + 5 * i + 5] = m[i]
        G = -self._jacobian(x, data)
        lin = [0] + [1 + 5 * i + k for i in range(3) for k in range(3)]
        b = self._residual(np.where(np.isin(np.arange(16), lin), 0.0, x), data)
        # minimum-norm solution: two saturated tanh columns (both m large) are collinear
        x[lin] = np.linalg.lstsq(G[:, lin], b, rcond=None)[0]
        return x

    # -- fit ----------------------------------------------------------------------------------
    def fit(self, data: FrictionData | Mapping[str, Any]) -> "KosticNLS":
        """Fit from every start; keep the lowest cost. Returns self.

        BLAS runs single-threaded during the fit: its matrices are small (rows x 16), and a
        threaded SVD on a busy 2-core machine was measured 70x slower than one thread.

        Raises
        ------
        ValueError
            Data with a missing field, a wrong shape or non-finite values, or too few samples.
        """
        data = as_friction_data(data, "KosticNLS.fit")
        with threadpool_limits(limits=1):
            return self._fit(data)

    def _fit(self, data: FrictionData) -> "KosticNLS":
        if data.n * (3 if self.residual == "joint" else 2) < 16:
            raise ValueError(f"Kostic NLS needs at least 16 residual rows; the data give {data.n} samples")
        rng = np.random.default_rng(self.seed)
        lo = np.full(16, -np.inf)
        hi = np.full(16, np.inf)
        lo[0] = 1e-9
        for i in range(3):
            lo[1 + 5 * i + 3: 1 + 5 * i + 5] = 0.0
            hi[1 + 5 * i + 3: 1 + 5 * i + 5] = self.m_max
        self.starts_: list[dict[str, Any]] = []
        best = None
        for s in range(self.n_starts):
            m = np.exp(rng.uniform(*np.log(self.m_range), size=(3, 2)))
            x0 = np.clip(self._linear_start(m, data), lo + 1e-12, hi - 1e-12)
            sol = least_squares(self._residual, x0, jac=self._jacobian, bounds=(lo, hi), args=(data,),
                                method="trf", x_scale="jac", max_nfev=self.max_nfev)
            x = self._canonical(sol.x)
            self.starts_.append({"start": s, "x0": x0.tolist(), "x": x.tolist(), "cost": float(sol.cost),
                                 "status": int(sol.status), "nfev": int(sol.nfev), "message": str(sol.message)})
            if best is None or sol.cost < best[1]:
                best = (x, float(sol.cost))
        x, cost = best
        r = self._residual(x, data)
        std, _ = _cov_std(self._jacobian(x, data), r)
        self.params_, self.std_, self.cost_ = x, std, cost
        self.k_f_, self.k_f_std_ = float(x[0]), float(std[0])
        self.laws_ = [KosticLaw.from_params(x[1 + 5 * i: 6 + 5 * i]) for i in range(3)]
        self.rms_residual_ = float(np.sqrt(np.mean(r**2)))
        self.residual_rms_ = self.rms_residual_
        self.n_samples_ = data.n
        return self

    def predict(self, data: FrictionData | Mapping[str, Any]) -> np.ndarray:
        """Model drive torques ``k_f E + f(v)`` (N, 3) [N m] with the fitted parameters."""
        self._check_fitted()
        return self.predict_joint(self.params_, as_friction_data(data, "KosticNLS.predict"))

    @staticmethod
    def _canonical(x: np.ndarray) -> np.ndarray:
        y = np.array(x, dtype=float)
        for i in range(3):
            y[1 + 5 * i: 6 + 5 * i] = KosticLaw.from_params(y[1 + 5 * i: 6 + 5 * i]).canonical().params
        return y

    def friction_curves(self, v: np.ndarray, x: np.ndarray | None = None, per_k_f: bool = True) -> np.ndarray:
        """Friction of the three drives at rates v (m,) -> (m, 3); divided by k_f (true N m) by default."""
        x = self.params_ if x is None else np.asarray(x, dtype=float)
        k_f, P = self._split(x)
        out = np.stack([KosticLaw.from_params(P[i]).torque(v) for i in range(3)], axis=1)
        return out / k_f if per_k_f else out

    def to_dict(self) -> dict[str, Any]:
        """Parameters, standard deviations, residual and the starts (JSON-ready)."""
        names = kostic_param_names()
        return {
            "model": "kostic", "residual": self.residual, "n_samples": self.n_samples_,
            "params": dict(zip(names, self.params_.tolist())), "std": dict(zip(names, self.std_.tolist())),
            "cost": self.cost_, "rms_residual": self.rms_residual_,
            "residual_units": "N m" if self.residual == "joint" else "N",
            "starts": [{k: s[k] for k in ("start", "cost", "status", "nfev")} for s in self.starts_],
        }

    def _to_json(self) -> dict[str, Any]:
        return {**self.to_dict(), "config": self.get_params()}

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> "KosticNLS":
        """A fitted estimator from :meth:`to_json` output (enough to predict)."""
        names = kostic_param_names()
        try:
            cfg = dict(d.get("config") or {})
            if "m_range" in cfg:
                cfg["m_range"] = tuple(cfg["m_range"])
            self = cls(**cfg)
            self.params_ = np.array([from_json_float(d["params"][n]) for n in names])
            self.std_ = np.array([from_json_float(d["std"][n]) for n in names])
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"not a KosticNLS description ({type(exc).__name__}: {exc})") from None
        self.cost_ = from_json_float(d.get("cost"))
        self.k_f_, self.k_f_std_ = float(self.params_[0]), float(self.std_[0])
        self.laws_ = [KosticLaw.from_params(self.params_[1 + 5 * i: 6 + 5 * i]) for i in range(3)]
        self.rms_residual_ = self.residual_rms_ = from_json_float(d.get("rms_residual"))
        self.n_samples_ = int(d.get("n_samples", 0))
        self.starts_ = list(d.get("starts", []))
        return self


class CoulombViscousLS(EstimatorMixin):
    """The paper's baseline ``tau_i = k_f E_i + k_vi v_i + f_ci sign(v_i)`` by linear least squares.

    Uses the first-order odd polynomial of :mod:`paperlib.friction.polynomial` (``sign(v)`` and
    ``sign(v) |v| = v``) for the friction columns.

    Attributes (after :meth:`fit`): ``params_`` (7,) ``[k_f, f_c1, k_v1, f_c2, k_v2, f_c3, k_v3]``,
    ``std_``, ``k_f_``, ``coulomb_`` (3,), ``viscous_`` (3,), ``rms_residual_`` (= ``residual_rms_``).
    """

    MODEL = FrictionModel(joints=(1, 2, 3), order=1, name="Coulomb + viscous")

    def __init__(self, residual: str = "task") -> None:
        _check_residual(residual)
        self.residual = residual

    def _rows(self, data: FrictionData) -> np.ndarray:
        n = data.n
        G = np.zeros((n, 3, 7))
        G[:, :, 0] = data.E
        for i in range(3):
            for k in range(2):
                G[:, i, 1 + 2 * i + k] = self.MODEL.torque(np.eye(6)[2 * i + k], data.v[:, i], i + 1)
        return _project(G, data.J, self.residual)

    def fit(self, data: FrictionData | Mapping[str, Any]) -> "CoulombViscousLS":
        """Linear least squares; returns self.

        Raises
        ------
        ValueError
            Data with a missing field, a wrong shape or non-finite values.
        """
        data = as_friction_data(data, "CoulombViscousLS.fit")
        A = self._rows(data)
        b = _project(data.tau[:, :, None], data.J, self.residual)[:, 0]
        sol = weighted_lstsq(A, b, what="Coulomb + viscous least squares")
        x = sol.theta
        r = A @ x - b
        std, _ = _cov_std(A, r)
        self.params_, self.std_ = x, std
        self.k_f_, self.k_f_std_ = float(x[0]), float(std[0])
        self.coulomb_ = x[[1, 3, 5]]
        self.viscous_ = x[[2, 4, 6]]
        self.rms_residual_ = float(np.sqrt(np.mean(r**2)))
        self.residual_rms_ = self.rms_residual_
        self.n_samples_ = data.n
        return self

    def predict_joint(self, data: FrictionData) -> np.ndarray:
        """Model torques (N, 3) [N m]."""
        self._check_fitted()
        return self.k_f_ * data.E + np.sign(data.v) * self.coulomb_ + data.v * self.viscous_

    def friction_curves(self, v: np.ndarray, per_k_f: bool = True) -> np.ndarray:
        """Friction (m, 3) at rates v (m,); divided by k_f by default."""
        v = np.asarray(v, dtype=float)[:, None]
        out = np.sign(v) * self.coulomb_ + v * self.viscous_
        return out / self.k_f_ if per_k_f else out

    def param_names(self) -> list[str]:
        return ["k_f"] + [f"{n}_{i}" for i in (1, 2, 3) for n in ("f_c", "k_v")]

    def to_dict(self) -> dict[str, Any]:
        names = self.param_names()
        return {
            "model": "coulomb-viscous", "residual": self.residual, "n_samples": self.n_samples_,
            "params": dict(zip(names, self.params_.tolist())), "std": dict(zip(names, self.std_.tolist())),
            "rms_residual": self.rms_residual_, "residual_units": "N m" if self.residual == "joint" else "N",
        }

    def predict(self, data: FrictionData | Mapping[str, Any]) -> np.ndarray:
        """Model drive torques (N, 3) [N m] with the fitted parameters."""
        return self.predict_joint(as_friction_data(data, "CoulombViscousLS.predict"))

    def _to_json(self) -> dict[str, Any]:
        return self.to_dict()

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> "CoulombViscousLS":
        """A fitted estimator from :meth:`to_json` output."""
        try:
            self = cls(residual=str(d.get("residual", "task")))
            names = self.param_names()
            x = np.array([from_json_float(d["params"][n]) for n in names])
            self.std_ = np.array([from_json_float(d["std"][n]) for n in names])
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"not a CoulombViscousLS description ({type(exc).__name__}: {exc})") from None
        self.params_ = x
        self.k_f_, self.k_f_std_ = float(x[0]), float(self.std_[0])
        self.coulomb_ = x[[1, 3, 5]]
        self.viscous_ = x[[2, 4, 6]]
        self.rms_residual_ = self.residual_rms_ = from_json_float(d.get("rms_residual"))
        self.n_samples_ = int(d.get("n_samples", 0))
        return self
