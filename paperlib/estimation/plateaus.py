"""Friction from constant-velocity plateaus, for any recording (paper 001, eqs. 4 and 11).

Paper 001 measures each joint's friction on a special trajectory: one joint moves at a time,
through trapezoidal velocity profiles whose constant-velocity parts sit at 5, 20, 40, 60, 80 and
100 % of the joint's maximum speed, both signs; the acceleration parts are ignored. This module
does that from the encoder angle ``q`` and the drive torque alone:

1. velocities and accelerations are derived from ``q`` (zero-phase Butterworth filter and
   differentiation, :func:`derive_kinematics`);
2. :func:`detect_plateaus` finds, per joint, the runs where that joint moves at a constant
   velocity (|qdd| small, velocity within a relative band of its median) while the other joints
   stand still, trims their edges and averages the torque over each run;
3. :func:`group_segments` groups a joint's plateaus into friction segments (one per cycle);
4. :func:`segment_friction` removes gravity by eq. 11 where the joint's axis is not vertical
   (``tau = f_p + Py cos(q) + Px sin(q)`` with one friction level f_p per plateau and Px, Py
   shared by the segment, linear least squares) and fits eq. 4,
   ``tau_f = k1 sign(v) + k2 v + k3 v^2 sign(v) + k4 v^3`` (the symmetric order-3 polynomial of
   :mod:`paperlib.friction.polynomial`), to the plateau levels;
5. :func:`plateau_friction` runs all of it over a recording and evaluates each segment's eq. 4 at
   the reference speed, 60 % of the joint's fastest plateau in the recording.

No dynamic model is needed: joints whose axis is vertical during their segment carry no gravity.
Which joints those are is the robot's (``gravity_joints`` of its model, e.g. the ``[plateaus]``
table of a serial arm's ``data/robots/<name>.toml``); a robot the compendium does not know is handled by applying
eq. 11 to every joint (with a warning), which costs two parameters per segment and changes nothing
where gravity is absent.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from typing import Mapping, Sequence

import numpy as np
import xarray as xr

from paperlib.friction.polynomial import FrictionModel
from paperlib.signals import zero_phase_derivatives

__all__ = [
    "EQ4", "REFERENCE_FRACTION", "Plateau", "JointFriction", "robot_gravity_joints",
    "derive_kinematics", "detect_plateaus", "group_segments", "eq4_columns", "fit_eq4",
    "eq4_torque", "segment_friction", "plateau_friction", "recording_friction",
]

EQ4 = FrictionModel(joints=(1,), order=3, symmetric=True, name="paper 001, eq. 4")
"""Eq. 4 is the symmetric order-3 polynomial: columns sign(v) |v|^k, k = 0..3."""

REFERENCE_FRACTION = 0.6
"""Reference speed of the friction-versus-time curves: 60 % of the fastest plateau (Figs. 6-7)."""


@dataclass(frozen=True)
class Plateau:
    """One constant-velocity run of one joint.

    Attributes
    ----------
    joint : int
        Joint label.
    start, stop : int
        Sample indices of the kept (trimmed) run, ``stop`` exclusive.
    time_s : float
        Mid time [s].
    velocity : float
        Mean velocity over the run [rad/s].
    torque : float
        Mean drive torque over the run [N m] (gravity not removed).
    """

    joint: int
    start: int
    stop: int
    time_s: float
    velocity: float
    torque: float


@dataclass
class JointFriction:
    """Per-segment friction of one joint from a recording.

    Attributes
    ----------
    joint : int
        Joint label.
    time_s : ndarray, shape (n_segments,)
        Mid time of each friction segment [s].
    k : ndarray, shape (n_segments, 4)
        Eq. 4 coefficients per segment [N m, N m s/rad, N m s^2/rad^2, N m s^3/rad^3].
    friction_ref : ndarray, shape (n_segments,)
        Eq. 4 at the reference speed [N m].
    v_ref : float
        Reference speed [rad/s] (60 % of the fastest plateau).
    gravity : ndarray, shape (n_segments, 2)
        Eq. 11's (Px, Py) per segment [N m] (zeros where gravity was not removed).
    gravity_removed : bool
        Whether eq. 11 was applied.
    plateaus : list of list of Plateau
        The plateaus of each segment.
    levels : list of ndarray
        Per segment, (n_plateaus, 2): plateau velocity [rad/s] and friction level [N m].
    rms_residual : ndarray, shape (n_segments,)
        RMS of the eq. 4 fit residual over the plateau levels [N m].
    """

    joint: int
    time_s: np.ndarray
    k: np.ndarray
    friction_ref: np.ndarray
    v_ref: float
    gravity: np.ndarray
    gravity_removed: bool
    plateaus: list = field(default_factory=list)
    levels: list = field(default_factory=list)
    rms_residual: np.ndarray = field(default_factory=lambda: np.zeros(0))


# ------------------------------------------------------------------------------------------------
# kinematics
# ------------------------------------------------------------------------------------------------
def derive_kinematics(q: np.ndarray, fs: float, cutoff_hz: float = 10.0
                      ) -> tuple[np.ndarray, np.ndarray]:
    """Velocity and acceleration from encoder angles (:func:`paperlib.signals.zero_phase_derivatives`).

    Parameters
    ----------
    q : ndarray, shape (n, n_joint)
        Joint angles [rad].
    fs : float
        Sample rate [Hz].
    cutoff_hz : float
        Filter cut-off [Hz].

    Returns
    -------
    qd, qdd : ndarray, shape (n, n_joint)
        [rad/s], [rad/s^2].
    """
    q = np.asarray(q, dtype=float)
    if q.ndim == 1:
        q = q[:, None]
    _, qd, qdd = zero_phase_derivatives(q, fs, cutoff_hz)
    return np.asarray(qd), np.asarray(qdd)


# ------------------------------------------------------------------------------------------------
# plateaus
# ------------------------------------------------------------------------------------------------
def _runs(mask: np.ndarray) -> np.ndarray:
    """Start/stop indices (stop exclusive) of the True runs of a 1-D mask: (n_runs, 2)."""
    m = np.concatenate(([False], mask, [False])).astype(np.int8)
    d = np.diff(m)
    return np.stack([np.flatnonzero(d == 1), np.flatnonzero(d == -1)], axis=1)


def detect_plateaus(time: np.ndarray, qd: np.ndarray, qdd: np.ndarray, tau: np.ndarray,
                    joints: Sequence[int], *, min_duration_s: float = 0.3, trim_s: float = 0.1,
                    accel_tol: float = 0.5, rel_tol: float = 0.03, v_min: float = 0.02,
                    still_tol: float = 0.02, others_still: bool = True) -> list[Plateau]:
    """Constant-velocity runs of each joint.

    Parameters
    ----------
    time : ndarray, shape (n,)
        [s].
    qd, qdd, tau : ndarray, shape (n, n_joint)
        Velocity [rad/s], acceleration [rad/s^2], drive torque [N m].
    joints : sequence of int
        Joint labels of the columns.
    min_duration_s : float
        Shortest kept run after trimming [s].
    trim_s : float
        Dropped at each end of a run (filter transients of the derived velocity) [s].
    accel_tol : float
        |qdd| below this counts as constant velocity [rad/s^2].
    rel_tol : float
        Samples whose velocity departs from the run's median by more than ``rel_tol |v|`` (plus
        0.005 rad/s) are dropped.
    v_min : float
        Slowest velocity that counts as motion [rad/s].
    still_tol : float
        |qd| of the other joints below this counts as standing still [rad/s].
    others_still : bool
        Require the other joints to stand still (paper 001: one joint at a time).

    Returns
    -------
    list of Plateau
        In time order per joint, joints in column order.
    """
    time = np.asarray(time, dtype=float)
    n, nj = qd.shape
    dt = float(np.median(np.diff(time))) if n > 1 else 1.0
    min_n = max(int(round(min_duration_s / dt)), 2)
    trim = int(round(trim_s / dt))
    absd = np.abs(qd)
    out: list[Plateau] = []
    for c in range(nj):
        cand = (absd[:, c] > v_min) & (np.abs(qdd[:, c]) < accel_tol)
        if others_still and nj > 1:
            others = np.delete(absd, c, axis=1)
            cand &= others.max(axis=1) < still_tol
        for a, b in _runs(cand):
            a2, b2 = a + trim, b - trim
            if b2 - a2 < min_n:
                continue
            v = qd[a2:b2, c]
            vm = float(np.median(v))
            ok = np.abs(v - vm) <= rel_tol * abs(vm) + 0.005
            # keep the longest run of samples inside the band
            best = None
            for s, e in _runs(ok):
                if best is None or e - s > best[1] - best[0]:
                    best = (s, e)
            if best is None or best[1] - best[0] < min_n:
                continue
            s, e = a2 + best[0], a2 + best[1]
            out.append(Plateau(joint=int(joints[c]), start=int(s), stop=int(e),
                               time_s=float(0.5 * (time[s] + time[e - 1])),
                               velocity=float(qd[s:e, c].mean()), torque=float(tau[s:e, c].mean())))
    return out


def group_segments(plateaus: Sequence[Plateau], max_gap_s: float = 30.0, min_plateaus: int = 4
                   ) -> list[list[Plateau]]:
    """Group one joint's plateaus into friction segments (consecutive, gaps < ``max_gap_s``).

    Groups with fewer than ``min_plateaus`` plateaus, or without both signs, are dropped.
    """
    ps = sorted(plateaus, key=lambda p: p.time_s)
    groups: list[list[Plateau]] = []
    for p in ps:
        if groups and p.time_s - groups[-1][-1].time_s <= max_gap_s:
            groups[-1].append(p)
        else:
            groups.append([p])
    keep = []
    for g in groups:
        v = np.array([p.velocity for p in g])
        if len(g) >= min_plateaus and (v > 0).any() and (v < 0).any():
            keep.append(g)
    return keep


# ------------------------------------------------------------------------------------------------
# eq. 4 and eq. 11
# ------------------------------------------------------------------------------------------------
def eq4_columns(v: np.ndarray) -> np.ndarray:
    """Eq. 4's regressor: sign(v) |v|^k for k = 0..3, shape ``v.shape + (4,)``."""
    v = np.asarray(v, dtype=float)
    eye = np.eye(EQ4.n_params)
    return np.stack([EQ4.torque(eye[c], v, 1) for c in range(EQ4.n_params)], axis=-1)


def eq4_torque(k: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Eq. 4 friction [N m] at velocities ``v`` [rad/s] for coefficients ``k``, shape (..., 4)."""
    return np.einsum("...k,...k->...", eq4_columns(v), np.asarray(k, dtype=float))


def fit_eq4(v: np.ndarray, f: np.ndarray) -> tuple[np.ndarray, float]:
    """Least-squares eq. 4 through plateau levels.

    Parameters
    ----------
    v, f : ndarray, shape (m,)
        Plateau velocities [rad/s] and friction levels [N m]; m >= 4.

    Returns
    -------
    k : ndarray, shape (4,)
    rms : float
        RMS residual [N m].
    """
    A = eq4_columns(v)
    k, *_ = np.linalg.lstsq(A, f, rcond=None)
    r = f - A @ k
    return k, float(np.sqrt(np.mean(r * r)))


def segment_friction(plateaus: Sequence[Plateau], q: np.ndarray, tau: np.ndarray,
                     remove_gravity: bool) -> tuple[np.ndarray, np.ndarray]:
    """Friction level of each plateau of one segment, gravity removed by eq. 11 if asked.

    Parameters
    ----------
    plateaus : sequence of Plateau
        One joint's segment.
    q, tau : ndarray, shape (n,)
        That joint's angle [rad] and drive torque [N m] over the whole recording.
    remove_gravity : bool
        Fit ``tau = f_p + Py cos(q) + Px sin(q)`` (eq. 11) over all plateau samples.

    Returns
    -------
    levels : ndarray, shape (n_plateaus,)
        Friction per plateau [N m].
    gravity : ndarray, shape (2,)
        (Px, Py) [N m], zeros when not removed.
    """
    if not remove_gravity:
        return np.array([p.torque for p in plateaus]), np.zeros(2)
    idx = [np.arange(p.start, p.stop) for p in plateaus]
    m = len(plateaus)
    rows = sum(len(i) for i in idx)
    A = np.zeros((rows, m + 2))
    b = np.empty(rows)
    r = 0
    for c, i in enumerate(idx):
        A[r:r + len(i), c] = 1.0
        A[r:r + len(i), m] = np.sin(q[i])
        A[r:r + len(i), m + 1] = np.cos(q[i])
        b[r:r + len(i)] = tau[i]
        r += len(i)
    # normal equations: (m + 2) unknowns, thousands of rows, well conditioned (indicators, sin, cos)
    x = np.linalg.solve(A.T @ A, A.T @ b)
    return x[:m], x[m:]


def plateau_friction(time: np.ndarray, q: np.ndarray, tau: np.ndarray, joints: Sequence[int],
                     fs: float, *, gravity_joints: Sequence[int] = (), cutoff_hz: float = 10.0,
                     reference_fraction: float = REFERENCE_FRACTION, max_gap_s: float = 30.0,
                     detect: Mapping | None = None, qd: np.ndarray | None = None,
                     qdd: np.ndarray | None = None) -> dict[int, JointFriction]:
    """Per-segment friction of every joint from angles and drive torques alone.

    Parameters
    ----------
    time : ndarray, shape (n,)
        [s].
    q, tau : ndarray, shape (n, n_joint)
        Encoder angles [rad] and drive torques [N m].
    joints : sequence of int
        Joint labels of the columns.
    fs : float
        Sample rate [Hz].
    gravity_joints : sequence of int
        Labels of the joints whose segments need eq. 11.
    cutoff_hz : float
        Cut-off of the velocity derivation [Hz].
    reference_fraction : float
        Reference speed as a fraction of the joint's fastest plateau.
    max_gap_s : float
        Plateaus closer than this belong to the same segment [s].
    detect : mapping, optional
        Keyword arguments of :func:`detect_plateaus`.
    qd, qdd : ndarray, shape (n, n_joint), optional
        Velocities and accelerations already derived from ``q`` (:func:`derive_kinematics`).

    Returns
    -------
    dict of int -> JointFriction
        Joints with at least one segment.
    """
    q = np.asarray(q, dtype=float)
    tau = np.asarray(tau, dtype=float)
    if qd is None or qdd is None:
        qd, qdd = derive_kinematics(q, fs, cutoff_hz)
    plats = detect_plateaus(time, qd, qdd, tau, joints, **dict(detect or {}))
    out: dict[int, JointFriction] = {}
    for c, j in enumerate(joints):
        mine = [p for p in plats if p.joint == j]
        groups = group_segments(mine, max_gap_s=max_gap_s)
        if not groups:
            continue
        v_fast = max(abs(p.velocity) for g in groups for p in g)
        v_ref = reference_fraction * v_fast
        grav = j in set(gravity_joints)
        ts, ks, refs, gs, lv, rms = [], [], [], [], [], []
        for g in groups:
            f, pg = segment_friction(g, q[:, c], tau[:, c], grav)
            v = np.array([p.velocity for p in g])
            k, r = fit_eq4(v, f)
            ts.append(np.mean([p.time_s for p in g]))
            ks.append(k)
            refs.append(float(eq4_torque(k, v_ref)))
            gs.append(pg)
            lv.append(np.stack([v, f], axis=1))
            rms.append(r)
        out[int(j)] = JointFriction(joint=int(j), time_s=np.array(ts), k=np.array(ks),
                                    friction_ref=np.array(refs), v_ref=float(v_ref),
                                    gravity=np.array(gs), gravity_removed=grav, plateaus=groups,
                                    levels=lv, rms_residual=np.array(rms))
    return out


def robot_gravity_joints(robot: str) -> tuple[int, ...] | None:
    """Labels of the joints whose friction segments carry gravity, for a robot named in a recording.

    Parameters
    ----------
    robot : str
        The recording's ``robot`` attribute.

    Returns
    -------
    tuple of int or None
        The robot model's ``gravity_joints`` (:func:`paperlib.robots.load`, e.g. the ``[plateaus]``
        table of a serial arm's ``data/robots/<name>.toml``); ``None`` for a robot without a model
        file (the caller states them: ``gravity_joints=``), or whose model does not say.
    """
    from paperlib.robots import load

    try:
        stated = getattr(load(robot), "gravity_joints", None)
    except ValueError:  # no model of this robot
        stated = None
    return None if stated is None else tuple(int(j) for j in stated)


def _torque_channel(ds: xr.Dataset, name: str) -> str:
    for ch in ("tau_m", "tau_s", "tau_tgt"):
        if ch in ds:
            return ch
    raise ValueError(f"{name}: no drive torque channel (tau_m) for the thermal friction analysis")


def recording_friction(ds: xr.Dataset, name: str = "<dataset>", *,
                       gravity_joints: Sequence[int] | None = None, **kwargs) -> dict[int, JointFriction]:
    """:func:`plateau_friction` of a recording (``q`` and the drive torque ``tau_m``).

    Parameters
    ----------
    ds : xarray.Dataset
        A recording (schema 1 or 2); only ``q`` and ``tau_m`` are read.
    name : str
        File name for messages.
    gravity_joints : sequence of int, optional
        Default: the robot's (:func:`robot_gravity_joints`); for an unknown robot eq. 11 is
        applied to every joint, with a warning.
    **kwargs
        Passed to :func:`plateau_friction`.
    """
    if "q" not in ds:
        raise ValueError(f"{name}: no 'q' channel")
    ch = _torque_channel(ds, name)
    robot = str(ds.attrs.get("robot", "")).lower()
    joints = [int(j) for j in ds["joint"].values]
    if gravity_joints is None:
        gravity_joints = robot_gravity_joints(robot)
        if gravity_joints is None:
            warnings.warn(f"{name}: the compendium has no model of robot {robot!r}: gravity is "
                          "removed by eq. 11 on every joint", stacklevel=2)
            gravity_joints = joints
    fs = float(ds.attrs.get("sample_rate_hz") or 1.0 / float(np.median(np.diff(ds["time"].values))))
    return plateau_friction(ds["time"].values, ds["q"].values, ds[ch].values, joints, fs,
                            gravity_joints=gravity_joints, **kwargs)
