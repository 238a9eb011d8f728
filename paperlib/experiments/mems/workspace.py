"""Workspace, condition index and test trajectories (flagship paper, Sec. 3.2, Table 3, Fig. 4).

* condition index ``sigma = sqrt(mu_min / mu_max)`` of ``D_p^T D_p`` on a joint-space grid
  (NaN where the loop cannot close or at the singularity) and its image in the task space;
* the well-conditioned convex polygon in which the motions are planned: the robot's planning
  polygon (:func:`paperlib.control.planning.planning_polygon`), the one the twin's and the rig's
  trajectories are drawn from (no twin code runs here: a build from a data release makes this
  figure too);
* consecutive random jerk-limited point-to-point trajectories with joint and end-point speeds;
* the numbers the paper quotes: peak end-point speed (> 1 m/s) and the longest motion (0.82 s).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import xarray as xr

from paperlib.control.planning import motion_bounds
from paperlib.control.trajectories import (
    MotionBounds,
    Polygon,
    longest_motion_duration,
    random_point_to_point,
)

__all__ = ["condition_grid", "grid_box", "planning_polygon", "sample_trajectories", "task_space", "speed_statistics",
           "table3_bounds", "workspace_summary"]


def table3_bounds() -> MotionBounds:
    """Table 3's motion bounds: ``[motion_limits]`` of ``data/robots/five_bar.toml`` [rad/s, rad/s^2, rad/s^3]."""
    from paperlib.robots.five_bar import FiveBar

    return motion_bounds(FiveBar.default())


def _sigma_batch(robot: Any, Q: np.ndarray) -> np.ndarray:
    """Condition index of many states, NaN where invalid (no exception)."""
    from paperlib.kernels import five_bar as K
    from paperlib.robots import _batch

    Q = np.ascontiguousarray(Q, dtype=float)
    Dc = np.empty((Q.shape[0], K.N_CHI, 2))
    Dp = np.empty((Q.shape[0], K.N_PSI, 2))
    status = _batch.batch_q2(K.jacobians, Q, robot.params, Dc, Dp)
    ok = status == 0
    out = np.full(Q.shape[0], np.nan)
    if ok.any():
        sv = np.linalg.svd(Dc[ok][:, 8:10, :], compute_uv=False)
        out[ok] = sv[:, -1] / sv[:, 0]
    return out


def condition_grid(robot: Any, n: int = 161, box_rad: np.ndarray | None = None) -> xr.DataArray:
    """Condition index on a joint-space grid (Fig. 4a background).

    Parameters
    ----------
    robot : FiveBar
    n : int
        Grid points per axis.
    box_rad : ndarray (2, 2), optional
        [[q1_min, q2_min], [q1_max, q2_max]] [rad]; default the robot's joint limits.

    Returns
    -------
    xarray.DataArray
        ``sigma`` (q1, q2) in [0, 1], NaN outside the workspace; coords [rad].
    """
    if box_rad is None:
        lo, hi = robot.joint_limits
        box_rad = np.array([lo, hi])
    q1 = np.linspace(box_rad[0][0], box_rad[1][0], n)
    q2 = np.linspace(box_rad[0][1], box_rad[1][1], n)
    G = np.stack(np.meshgrid(q1, q2, indexing="ij"), axis=-1).reshape(-1, 2)
    s = _sigma_batch(robot, G).reshape(n, n)
    return xr.DataArray(s, dims=("q1", "q2"), coords={"q1": ("q1", q1, {"units": "rad"}), "q2": ("q2", q2, {"units": "rad"})},
                        name="sigma", attrs={"units": "1", "long_name": "condition index sqrt(mu_min/mu_max) of D_p^T D_p"})


def grid_box(robot: Any, polygon: Polygon | None = None, margin_rad: float = 0.1) -> np.ndarray:
    """Joint-space box [[q1_min, q2_min], [q1_max, q2_max]] [rad] covering the joint limits and the polygon."""
    lo, hi = (np.asarray(x, dtype=float) for x in robot.joint_limits)
    if polygon is not None:
        lo = np.minimum(lo, polygon.vertices.min(axis=0))
        hi = np.maximum(hi, polygon.vertices.max(axis=0))
    return np.array([lo - margin_rad, hi + margin_rad])


def planning_polygon(robot: Any = None, sigma_threshold: float = 0.4) -> tuple[Polygon, str]:
    """The well-conditioned polygon of the motions, and where it came from.

    The robot's planning polygon (:func:`paperlib.control.planning.planning_polygon`, the 5R by
    default): the region the twin's (``paperlib.twin.robots.five_bar.flagship_polygon`` returns the
    same) and the rig's trajectories are drawn from. Computed from the robot model only.
    """
    from paperlib.control.planning import planning_polygon as robot_polygon

    if robot is None:
        from paperlib.robots.five_bar import FiveBar

        robot = FiveBar.default()
    return robot_polygon(robot, sigma_threshold), "paperlib.control.planning.planning_polygon"


def sample_trajectories(polygon: Polygon, n_motions: int = 4, seed: int = 1, fs_hz: float = 500.0,
                        dwell_s: float = 0.05) -> xr.Dataset:
    """The first ``n_motions`` consecutive random motions (Table 3 bounds), sampled at ``fs_hz``.

    Returns
    -------
    xarray.Dataset
        ``q``, ``qd`` (time, joint) [rad, rad/s], ``speed`` (time) = |qd| [rad/s], ``motion``
        (time) index of the motion (-1 while dwelling).
    """
    duration = 4.0
    while True:
        traj = random_point_to_point(polygon, duration, seed, table3_bounds(), dwell_s=dwell_s)
        if len(traj.motions) >= n_motions or duration > 120:
            break
        duration *= 2
    motions = traj.motions[:n_motions]
    t_end = motions[-1].t_end
    t = np.arange(0.0, t_end, 1.0 / fs_hz)
    q, qd, _ = traj.sample(t)
    motion = np.full(t.shape, -1, dtype=int)
    for k, m in enumerate(motions):
        motion[(t >= m.t_start) & (t < m.t_end)] = k
    return xr.Dataset(
        {"q": (("time", "joint"), q, {"units": "rad"}), "qd": (("time", "joint"), qd, {"units": "rad/s"}),
         "speed": (("time",), np.linalg.norm(qd, axis=1), {"units": "rad/s", "long_name": "joint-space speed |qd|"}),
         "motion": (("time",), motion, {"units": "1"})},
        coords={"time": ("time", t, {"units": "s"}), "joint": [1, 2]},
        attrs={"seed": int(seed), "motion_durations_s": [float(m.duration) for m in motions]},
    )


def task_space(robot: Any, traj: xr.Dataset, grid: xr.DataArray, polygon: Polygon,
               polygon_points: int = 400) -> dict[str, Any]:
    """End-point path, end-point speed, the polygon's image and the grid's image (Fig. 4b).

    Returns
    -------
    dict
        ``p`` (N, 2) [m], ``p_speed`` (N,) [m/s], ``poly_p`` (M, 2) [m] (image of the polygon
        boundary), ``grid_p`` (K, 2) [m] and ``grid_sigma`` (K,) (valid grid points).
    """
    q = traj["q"].values
    qd = traj["qd"].values
    p, _ = robot.fk(q)
    D_chi, _ = robot.jacobians(q)
    pd = np.einsum("nij,nj->ni", D_chi[:, 8:10, :], qd)
    verts = polygon.vertices
    closed = np.vstack([verts, verts[:1]])
    s = np.linspace(0.0, 1.0, polygon_points // len(verts) + 2)[:-1]
    boundary = np.vstack([a + s[:, None] * (b - a) for a, b in zip(closed[:-1], closed[1:])] + [closed[:1]])
    poly_p, _ = robot.fk(boundary)
    G = np.stack(np.meshgrid(grid["q1"].values, grid["q2"].values, indexing="ij"), axis=-1).reshape(-1, 2)
    sig = grid.values.reshape(-1)
    ok = np.isfinite(sig)
    grid_p, _ = robot.fk(G[ok])
    return {"p": p, "p_speed": np.linalg.norm(pd, axis=1), "poly_p": poly_p, "grid_p": grid_p, "grid_sigma": sig[ok]}


def speed_statistics(robot: Any, polygon: Polygon, seed: int = 1, n_motions: int = 200, fs_hz: float = 250.0) -> dict[str, Any]:
    """Peak end-point and joint speeds [m/s, rad/s] and motion durations [s] over many random motions."""
    traj = sample_trajectories(polygon, n_motions=n_motions, seed=seed, fs_hz=fs_hz)
    D_chi, _ = robot.jacobians(traj["q"].values)
    pd = np.einsum("nij,nj->ni", D_chi[:, 8:10, :], traj["qd"].values)
    speed = np.linalg.norm(pd, axis=1)
    durations = np.asarray(traj.attrs["motion_durations_s"])
    return {"n_motions": int(len(durations)), "peak_end_point_speed_m_s": float(speed.max()),
            "median_motion_peak_end_point_speed_m_s": float(np.median(
                [speed[traj["motion"].values == k].max() for k in range(len(durations))])),
            "peak_joint_speed_rad_s": float(np.abs(traj["qd"].values).max()),
            "longest_sampled_motion_s": float(durations.max()), "mean_motion_s": float(durations.mean())}


def workspace_summary(robot: Any, polygon: Polygon, traj: xr.Dataset, ts: dict[str, Any], polygon_source: str,
                      seed: int = 1, n_stats_motions: int = 200) -> dict[str, Any]:
    """Numbers of Fig. 4's text: peak end-point speed, longest motion in the polygon, polygon size.

    ``peak_end_point_speed_m_s`` is the maximum over ``n_stats_motions`` random motions (the
    paper's "> 1 m/s" is about the test motions in general); the motions shown in the figure
    have their own maximum, ``shown_peak_end_point_speed_m_s``.
    """
    stats = speed_statistics(robot, polygon, seed=seed, n_motions=n_stats_motions)
    lo, hi = (np.asarray(x, dtype=float) for x in robot.joint_limits)
    inside = bool(np.all(polygon.vertices >= lo - 1e-9) and np.all(polygon.vertices <= hi + 1e-9))
    return {
        "peak_end_point_speed_m_s": stats["peak_end_point_speed_m_s"],
        "motion_statistics": stats,
        "shown_peak_end_point_speed_m_s": float(np.max(ts["p_speed"])),
        "shown_peak_joint_speed_rad_s": float(np.max(np.abs(traj["qd"].values))),
        "longest_motion_s": float(longest_motion_duration(polygon, table3_bounds())),
        "shown_motion_durations_s": traj.attrs["motion_durations_s"],
        "polygon_vertices_deg": np.degrees(polygon.vertices).round(3).tolist(),
        "polygon_area_rad2": float(polygon.area),
        "polygon_source": polygon_source,
        "polygon_within_joint_limits": inside,
        "joint_limits_deg": [np.degrees(lo).tolist(), np.degrees(hi).tolist()],
    }
