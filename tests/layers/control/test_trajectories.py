"""Tests for paperlib.control.trajectories (and double_s, workspace_geometry): double-S law, straight segments, polygons, random trajectories."""

from __future__ import annotations

import time

import numpy as np
import pytest
from scipy.optimize import linprog

from paperlib.control.planning import motion_bounds
from paperlib.control.trajectories import (
    MotionBounds,
    Polygon,
    Trajectory,
    double_s_duration,
    double_s_times,
    longest_motion_duration,
    plan_double_s,
    plan_straight_segment,
    random_point_to_point,
    safe_sigma,
    straight_segment_duration,
    well_conditioned_polygon,
)
from paperlib.robots.five_bar import FiveBar

#: the flagship paper's Table 3, from the 5R's description ([motion_limits] of data/robots/five_bar.toml)
TABLE3_BOUNDS = motion_bounds(FiveBar.default())

V = float(TABLE3_BOUNDS.v_max)
A = float(TABLE3_BOUNDS.a_max)
J = float(TABLE3_BOUNDS.j_max)
REL = 1e-9

# Case boundaries for Table 3 (v j >= a^2 there, so a_max is reachable):
H_A = 2.0 * A**3 / J**2  # below: a_max not reached (~0.2606 rad)
H_V = V * (V / A + A / J)  # above: v_max reached (~0.7025 rad)


def _sampled(profile, n: int = 20001):
    t = np.linspace(0.0, profile.duration, n)
    return (t, *profile.evaluate(t))


# --------------------------------------------------------------------------- Table 3


def test_table3_bounds_in_si() -> None:
    lim = FiveBar.default().description["motion_limits"]
    assert (lim["v_max_deg_s"], lim["a_max_deg_s2"], lim["j_max_deg_s3"]) == (210.0, 1680.0, 25200.0)
    assert all(isinstance(x, float) for x in (TABLE3_BOUNDS.v_max, TABLE3_BOUNDS.a_max, TABLE3_BOUNDS.j_max))
    assert V == pytest.approx(210.0 * np.pi / 180.0, rel=1e-15)
    assert A == pytest.approx(1680.0 * np.pi / 180.0, rel=1e-15)
    assert J == pytest.approx(25200.0 * np.pi / 180.0, rel=1e-15)
    b = MotionBounds.from_deg([210.0, 100.0], 1680.0, 25200.0)
    v, a, j = b.per_joint(2)
    np.testing.assert_allclose(v, np.deg2rad([210.0, 100.0]))
    assert a.shape == j.shape == (2,)
    with pytest.raises(ValueError):
        MotionBounds(-1.0, 1.0, 1.0)
    with pytest.raises(ValueError):
        b.per_joint(3)


def test_motion_bounds_of_a_description() -> None:
    # exactly the same floats as converting Table 3's degrees one by one
    assert (TABLE3_BOUNDS.v_max, TABLE3_BOUNDS.a_max, TABLE3_BOUNDS.j_max) == tuple(
        float(np.deg2rad(x)) for x in (210.0, 1680.0, 25200.0))

    class Robot:
        description = {"motion_limits": {"v_max_deg_s": [90.0, 180.0], "a_max_deg_s2": 900.0, "j_max_deg_s3": 9000.0}}

    b = motion_bounds(Robot())
    v, a, j = b.per_joint(2)
    np.testing.assert_array_equal(v, np.deg2rad([90.0, 180.0]))
    np.testing.assert_array_equal(a, np.deg2rad([900.0, 900.0]))
    Robot.description = {"control": {}}
    with pytest.raises(ValueError, match="motion_limits"):
        motion_bounds(Robot())


# --------------------------------------------------------------------------- scalar double S

CASES = {
    # name: (h, v, a, j, closed-form T)
    "v_and_a_reached": (2.3, V, A, J, 2.3 / V + V / A + A / J),
    "v_reached_a_not": (2.0, 1.0, 10.0, 20.0, 2.0 / 1.0 + 2.0 * np.sqrt(1.0 / 20.0)),
    "a_reached_v_not": (
        0.5, V, A, J,
        2.0 * 0.5 * (A / J + np.sqrt((A / J) ** 2 + 4.0 * 0.5 / A)),
    ),
    "neither_reached": (0.1, V, A, J, 2.0 * (4.0 * 0.1 / J) ** (1.0 / 3.0)),
}


@pytest.mark.parametrize("case", list(CASES))
def test_double_s_closed_forms(case: str) -> None:
    h, v, a, j, t_expected = CASES[case]
    p = plan_double_s(h, v, a, j)
    assert p.duration == pytest.approx(t_expected, rel=1e-13)
    reached_v = p.t_v > 0.0
    reached_a = p.t_a - 2.0 * p.t_j > 1e-12
    assert reached_v == case.startswith("v_")
    assert reached_a == (case in ("v_and_a_reached", "a_reached_v_not"))
    assert p.v_peak == pytest.approx(v, rel=1e-12) if reached_v else p.v_peak < v
    assert p.a_peak == pytest.approx(a, rel=1e-12) if reached_a else p.a_peak < a


def test_double_s_duration_is_continuous_and_increasing() -> None:
    h = np.concatenate([np.geomspace(1e-6, 5.0, 2000), [H_A, H_V]])
    h.sort()
    T = double_s_duration(h, V, A, J)
    assert np.all(np.diff(T) > 0.0)
    for hb in (H_A, H_V):  # both formulas agree at the case boundaries
        lo, hi = double_s_duration([hb * (1 - 1e-12), hb * (1 + 1e-12)], V, A, J)
        assert hi - lo == pytest.approx(0.0, abs=1e-9)
    assert double_s_duration(0.0, V, A, J) == 0.0
    with pytest.raises(ValueError):
        double_s_times(-1.0, V, A, J)


H_SWEEP = [1e-7, 1e-3, 0.05, H_A, 0.3, 0.5, H_V, 1.0, 2.3, 6.0]


@pytest.mark.parametrize("h", H_SWEEP)
@pytest.mark.parametrize("bounds", [(V, A, J), (1.0, 10.0, 20.0)], ids=["table3", "a_unreachable"])
def test_double_s_profile_is_exact_rest_to_rest_and_bounded(h: float, bounds: tuple[float, float, float]) -> None:
    v, a, j = bounds
    p = plan_double_s(h, v, a, j)
    t, s, sd, sdd, sddd = _sampled(p)
    # Displacement exact, rest to rest.
    assert s[0] == 0.0 and sd[0] == 0.0 and sdd[0] == 0.0
    assert s[-1] == pytest.approx(h, rel=1e-13, abs=1e-300)
    assert abs(sd[-1]) <= 1e-12 * v and abs(sdd[-1]) <= 1e-12 * a
    # Bounds respected everywhere sampled; motion monotone.
    assert np.max(np.abs(sd)) <= v * (1 + REL)
    assert np.max(np.abs(sdd)) <= a * (1 + REL)
    assert np.max(np.abs(sddd)) <= j * (1 + REL)
    assert np.all(np.diff(s) >= -1e-15 * max(h, 1e-300))
    # Bang-zero-bang jerk: every phase has jerk +j, 0 or -j; sampled jerk too.
    assert set(np.unique(p.jerks)) <= {j, 0.0, -j}
    np.testing.assert_array_equal(p.jerks / j, [1, 0, -1, 0, -1, 0, 1])
    assert np.all(np.isin(sddd, [j, 0.0, -j]))
    assert np.all(p.durations >= 0.0)
    assert p.knots[-1] == pytest.approx(2 * p.t_a + p.t_v, rel=1e-14)


@pytest.mark.parametrize("h", H_SWEEP)
def test_double_s_continuity_across_phases(h: float) -> None:
    p = plan_double_s(h, V, A, J)
    d, jk = p.durations, p.jerks
    # Each phase's cubic, integrated to its end, lands on the next phase's start state.
    s_end = p.s0 + p.v0 * d + p.a0 * d**2 / 2 + jk * d**3 / 6
    v_end = p.v0 + p.a0 * d + jk * d**2 / 2
    a_end = p.a0 + jk * d
    scale_s, scale_v, scale_a = max(h, 1e-300), V, A
    np.testing.assert_allclose(s_end[:-1] / scale_s, p.s0[1:] / scale_s, atol=1e-12)
    np.testing.assert_allclose(v_end[:-1] / scale_v, p.v0[1:] / scale_v, atol=1e-12)
    np.testing.assert_allclose(a_end[:-1] / scale_a, p.a0[1:] / scale_a, atol=1e-12)
    assert s_end[-1] == pytest.approx(h, rel=1e-12)
    assert abs(v_end[-1]) <= 1e-12 * V and abs(a_end[-1]) <= 1e-12 * A
    # And the evaluator is continuous at every knot (a 2 ns window moves s, sd, sdd by at most V, A, J x 2 ns).
    tol = np.array([V, A, J]) * 2.1e-9 + 1e-15
    for tk in p.knots[1:-1]:
        left = np.array(p.evaluate(tk - 1e-9)[:3])
        right = np.array(p.evaluate(tk + 1e-9)[:3])
        assert np.all(np.abs(left - right) <= tol)


@pytest.mark.parametrize("case", list(CASES))
def test_double_s_uniform_time_compression_violates_a_bound(case: str) -> None:
    """Scaling argument: s(t / k) on [0, k T], k < 1, multiplies velocity, acceleration, jerk by 1/k, 1/k^2, 1/k^3.

    A profile that saturates a bound therefore cannot simply be played faster.
    """
    h, v, a, j, _ = CASES[case]
    p = plan_double_s(h, v, a, j)
    _, _, sd, sdd, sddd = _sampled(p)
    k = 0.999
    ratios = np.array([np.max(np.abs(sd)) / v / k, np.max(np.abs(sdd)) / a / k**2, np.max(np.abs(sddd)) / j / k**3])
    assert np.any(ratios > 1.0)


def _max_displacement_lp(T: float, v: float, a: float, j: float, n: int = 300) -> float:
    """Largest rest-to-rest displacement reachable in time T: brute-force LP over piecewise-constant jerk.

    Acceleration is checked exactly (piecewise linear), velocity at the grid points.
    """
    dt = T / n
    k = np.arange(1, n + 1)[:, None]  # grid instants t_k = k dt
    i = np.arange(n)[None, :]  # jerk pieces [i dt, (i + 1) dt)
    done = i < k
    acc = np.where(done, dt, 0.0)
    vel = np.where(done, dt * ((k - i) * dt - 0.5 * dt), 0.0)
    tau = T - (np.arange(n) + 1) * dt
    pos = dt**3 / 6 + dt**2 / 2 * tau + dt * tau**2 / 2
    res = linprog(
        -pos,
        A_ub=np.vstack([acc, -acc, vel, -vel]),
        b_ub=np.concatenate([np.full(2 * n, a), np.full(2 * n, v)]),
        A_eq=np.vstack([acc[-1], vel[-1]]),
        b_eq=[0.0, 0.0],
        bounds=[(-j, j)] * n,
        method="highs",
    )
    assert res.status == 0, res.message
    return float(-res.fun)


@pytest.mark.parametrize("case", list(CASES))
def test_double_s_is_time_optimal_against_brute_force_lp(case: str) -> None:
    h, v, a, j, _ = CASES[case]
    T = plan_double_s(h, v, a, j).duration
    assert _max_displacement_lp(0.995 * T, v, a, j) < h  # 0.5 % faster: no admissible motion reaches h
    assert _max_displacement_lp(1.005 * T, v, a, j) > h  # the LP itself can reach h given slightly more time


# --------------------------------------------------------------------------- straight segments


@pytest.mark.parametrize(
    "bounds",
    [TABLE3_BOUNDS, MotionBounds(v_max=np.array([3.0, 1.0]), a_max=np.array([10.0, 40.0]), j_max=np.array([500.0, 90.0]))],
    ids=["table3", "per_joint"],
)
def test_straight_segments_stay_on_line_and_within_joint_bounds(bounds: MotionBounds) -> None:
    rng = np.random.default_rng(3)
    v, a, j = bounds.per_joint(2)
    for _ in range(25):
        q0, q1 = rng.uniform(-2.0, 2.0, size=(2, 2)) * rng.choice([1.0, 0.05], size=(2, 1))
        seg = plan_straight_segment(q0, q1, bounds, t_start=1.5)
        t = np.linspace(1.5, 1.5 + seg.duration, 8001)
        q, qd, qdd, qddd = seg.evaluate(t)
        d = q1 - q0
        # On the line: (q - q0) is parallel to d, and the path parameter goes 0 -> 1.
        cross = (q[:, 0] - q0[0]) * d[1] - (q[:, 1] - q0[1]) * d[0]
        assert np.max(np.abs(cross)) <= 1e-12 * np.dot(d, d)
        np.testing.assert_allclose(q[0], q0, atol=1e-15)
        np.testing.assert_allclose(q[-1], q1, rtol=0, atol=1e-12)
        np.testing.assert_allclose(qd[[0, -1]], 0.0, atol=1e-12)
        np.testing.assert_allclose(qdd[[0, -1]], 0.0, atol=1e-9)
        # Every joint within its own bounds.
        assert np.all(np.max(np.abs(qd), axis=0) <= v * (1 + REL))
        assert np.all(np.max(np.abs(qdd), axis=0) <= a * (1 + REL))
        assert np.all(np.max(np.abs(qddd), axis=0) <= j * (1 + REL))
        # Optimality along the line: the tightest joint saturates the jerk bound always, and
        # the velocity / acceleration bounds whenever the path law reaches them.
        jj = np.argmin(j / np.abs(d))
        assert np.max(np.abs(qddd[:, jj])) == pytest.approx(j[jj], rel=1e-12)
        p = seg.path
        if p.t_v > 0.0:
            jv = np.argmin(v / np.abs(d))
            assert np.max(np.abs(qd[:, jv])) == pytest.approx(v[jv], rel=1e-9)
        if p.t_a - 2 * p.t_j > 1e-12:
            ja = np.argmin(a / np.abs(d))
            assert np.max(np.abs(qdd[:, ja])) == pytest.approx(a[ja], rel=1e-9)
        assert seg.duration == pytest.approx(float(straight_segment_duration(d, bounds)), rel=1e-14)


def test_straight_segment_with_equal_bounds_is_governed_by_the_largest_joint_move() -> None:
    d = np.array([0.7, -2.1])
    seg = plan_straight_segment([0.3, 1.0], np.array([0.3, 1.0]) + d, TABLE3_BOUNDS)
    assert seg.duration == pytest.approx(float(double_s_duration(2.1, V, A, J)), rel=1e-13)
    hold = plan_straight_segment([0.3, 1.0], [0.3, 1.0], TABLE3_BOUNDS)
    assert hold.duration == 0.0 and not hold.is_motion


# --------------------------------------------------------------------------- polygons


def test_polygon_basics() -> None:
    sq = Polygon(np.array([[0.0, 0.0], [2.0, 0.0], [2.0, 1.0], [0.0, 1.0]]))
    assert sq.area == pytest.approx(2.0)
    np.testing.assert_allclose(sq.centroid, [1.0, 0.5])
    np.testing.assert_array_equal(sq.contains(np.array([[1.0, 0.5], [2.1, 0.5], [2.0, 1.0], [-1e-9, 0.2]])), [True, False, True, False])
    A_, b_ = sq.A, sq.b
    assert np.all(sq.vertices @ A_.T <= b_[None, :] + 1e-12)
    pts = sq.sample(np.random.default_rng(0), 20000)
    assert pts.shape == (20000, 2) and np.all(sq.contains(pts))
    np.testing.assert_allclose(pts.mean(axis=0), [1.0, 0.5], atol=0.02)
    np.testing.assert_allclose(pts.var(axis=0), [4.0 / 12, 1.0 / 12], rtol=0.05)  # uniform
    with pytest.raises(ValueError):
        Polygon(sq.vertices[::-1])  # clockwise
    with pytest.raises(ValueError):
        Polygon(np.array([[0.0, 0.0], [2.0, 0.0], [0.5, 0.5], [0.0, 2.0]]))  # not convex
    hull = Polygon.from_points(np.vstack([sq.vertices, [[1.0, 0.5], [0.5, 0.5]]]))
    assert hull.vertices.shape == (4, 2) and hull.area == pytest.approx(2.0)


DISC_C, DISC_R = np.array([1.0, 2.0]), 1.2
BOX = np.array([[-1.0, 0.0], [3.0, 4.0]])


def _disc_sigma(Q: np.ndarray) -> np.ndarray:
    """1 - |q - c|^2 / R^2 inside the disc, NaN outside: sigma >= 0.5 <=> |q - c| <= R / sqrt(2)."""
    d2 = np.sum((Q - DISC_C) ** 2, axis=1) / DISC_R**2
    return np.where(d2 <= 1.0, 1.0 - d2, np.nan)


def _disc_sigma_raising(Q: np.ndarray) -> np.ndarray:
    if np.any(np.sum((Q - DISC_C) ** 2, axis=1) > DISC_R**2):
        raise ValueError("outside the workspace")
    return 1.0 - np.sum((Q - DISC_C) ** 2, axis=1) / DISC_R**2


def _l_shape(Q: np.ndarray) -> np.ndarray:
    x, y = Q[:, 0], Q[:, 1]
    inside = ((x >= 0) & (x <= 2) & (y >= 0) & (y <= 0.6)) | ((x >= 0) & (x <= 0.6) & (y >= 0) & (y <= 2))
    return np.where(inside, 1.0, 0.0)


def _half_annulus(Q: np.ndarray) -> np.ndarray:
    r = np.hypot(Q[:, 0], Q[:, 1])
    return np.where((r > 1.0) & (r < 2.0) & (Q[:, 1] > 0.0), 2.0 - np.abs(r - 1.5), np.nan)


def _dense_check(poly: Polygon, sigma, threshold: float, rng_seed: int = 1) -> None:
    """Vertices, densely sampled edges and random interior points all satisfy sigma >= threshold."""
    pts = np.vstack([poly.vertices, poly.boundary_points(1e-3), poly.sample(np.random.default_rng(rng_seed), 20000)])
    s = sigma(pts)
    assert np.all(np.isfinite(s)) and np.all(s >= threshold)


def test_polygon_in_disc_field() -> None:
    poly = well_conditioned_polygon(_disc_sigma, 0.5, BOX, seed_rad=DISC_C, max_vertices=10, grid_n=121)
    assert 3 <= poly.vertices.shape[0] <= 10
    r_adm = DISC_R / np.sqrt(2.0)
    assert np.all(np.linalg.norm(poly.vertices - DISC_C, axis=1) <= r_adm * (1 + 1e-12))  # convex: vertices suffice
    _dense_check(poly, _disc_sigma, 0.5)
    assert poly.area >= 0.85 * np.pi * r_adm**2  # a regular inscribed 10-gon has 0.935
    # The same with a sigma that raises outside the workspace, via the wrapper.
    poly2 = well_conditioned_polygon(_disc_sigma_raising, 0.5, BOX, seed_rad=DISC_C, grid_n=101)
    _dense_check(poly2, _disc_sigma, 0.5)
    assert poly2.area >= 0.8 * np.pi * r_adm**2
    with pytest.raises(ValueError):
        well_conditioned_polygon(_disc_sigma_raising, 0.5, BOX, catch_errors=False)


@pytest.mark.parametrize("method", ["auto", "cut", "balloon"])
def test_polygon_in_non_convex_regions(method: str) -> None:
    poly = well_conditioned_polygon(
        _l_shape, 0.5, np.array([[-0.5, -0.5], [2.5, 2.5]]), seed_rad=[0.3, 0.3], grid_n=121, method=method
    )
    _dense_check(poly, _l_shape, 0.5)
    # The largest convex subset of the L is one 2 x 0.6 arm; a greedy cut keeps (nearly) one.
    assert poly.area >= 0.9 * 1.2
    poly = well_conditioned_polygon(
        _half_annulus, 1.0, np.array([[-2.5, -0.5], [2.5, 2.5]]), seed_rad=[0.0, 1.5], grid_n=121, method=method
    )
    _dense_check(poly, _half_annulus, 1.0)
    assert poly.vertices.shape[0] <= 10
    # The cap y >= 1 of the outer disc, a convex admissible set, has 2.46; an inscribed 10-gon a bit less.
    assert poly.area >= (2.0 if method != "balloon" else 1.5)


def test_polygon_seed_selects_the_component() -> None:
    centres = np.array([[-1.0, 0.0], [1.5, 0.0]])

    def two_discs(Q: np.ndarray) -> np.ndarray:
        d = np.min(np.linalg.norm(Q[:, None, :] - centres[None], axis=2), axis=1)
        return 1.0 - d

    box = np.array([[-2.5, -1.5], [3.0, 1.5]])
    for c in centres:
        poly = well_conditioned_polygon(two_discs, 0.4, box, seed_rad=c, grid_n=121)
        assert poly.contains(c[None])[0]
        assert np.all(np.linalg.norm(poly.vertices - c, axis=1) <= 0.6 + 1e-12)
        _dense_check(poly, two_discs, 0.4)
    with pytest.raises(ValueError):
        well_conditioned_polygon(two_discs, 0.4, box, seed_rad=[0.25, 0.0])  # between the discs


def test_safe_sigma_isolates_raising_points() -> None:
    wrapped = safe_sigma(_disc_sigma_raising)
    Q = np.random.default_rng(5).uniform(-1.0, 3.0, size=(500, 2))
    np.testing.assert_array_equal(np.isnan(wrapped(Q)), np.isnan(_disc_sigma(Q)))
    ok = ~np.isnan(_disc_sigma(Q))
    np.testing.assert_allclose(wrapped(Q)[ok], _disc_sigma(Q)[ok])


def test_longest_motion_across_polygon_takes_a_sane_time() -> None:
    # A polygon whose largest joint excursion is 2.3 rad (~132 deg): on Table 3 bounds the
    # longest motion lasts ~0.82 s, as the paper's longest one.
    poly = Polygon(np.array([[0.0, 0.0], [2.3, 0.4], [2.0, 1.5], [0.6, 1.9]]))
    T = longest_motion_duration(poly, TABLE3_BOUNDS)
    assert T == pytest.approx(float(double_s_duration(2.3, V, A, J)), rel=1e-12)
    assert 0.80 < T < 0.84
    pairs = poly.sample(np.random.default_rng(2), 4000).reshape(2000, 2, 2)
    assert np.all(straight_segment_duration(pairs[:, 1] - pairs[:, 0], TABLE3_BOUNDS) <= T)


# --------------------------------------------------------------------------- random trajectories

POLY = Polygon(np.deg2rad(np.array([[60.0, 60.0], [150.0, 40.0], [170.0, 120.0], [90.0, 160.0]])))


def test_random_trajectory_is_deterministic_per_seed() -> None:
    a = random_point_to_point(POLY, 10.0, 7, TABLE3_BOUNDS)
    b = random_point_to_point(POLY, 10.0, 7, TABLE3_BOUNDS)
    c = random_point_to_point(POLY, 10.0, 8, TABLE3_BOUNDS)
    np.testing.assert_array_equal(a.targets, b.targets)
    np.testing.assert_array_equal(a.sample_rate(1000.0)[1], b.sample_rate(1000.0)[1])
    assert a.targets.shape != c.targets.shape or not np.array_equal(a.targets, c.targets)
    # A longer trajectory from the same seed extends the shorter one.
    long = random_point_to_point(POLY, 30.0, 7, TABLE3_BOUNDS)
    m = a.targets.shape[0]
    np.testing.assert_array_equal(long.targets[:m], a.targets)


@pytest.mark.parametrize("dwell_s", [0.0, 0.1])
def test_random_trajectory_respects_polygon_bounds_and_timing(dwell_s: float) -> None:
    traj = random_point_to_point(POLY, 20.0, 11, TABLE3_BOUNDS, dwell_s=dwell_s)
    assert np.all(POLY.contains(traj.targets))
    fs = 4000.0
    t, q, qd, qdd = traj.sample_rate(fs)
    assert t.shape == (80000,) and t[0] == 0.0 and t[-1] < traj.duration
    assert q.shape == qd.shape == qdd.shape == (80000, 2)
    assert np.all(POLY.contains(q, tol=1e-9))  # straight segments between points of a convex set
    assert np.max(np.abs(qd)) <= V * (1 + REL) and np.max(np.abs(qdd)) <= A * (1 + REL)
    qddd = traj.sample_with_jerk(t)[3]
    assert np.max(np.abs(qddd)) <= J * (1 + REL)
    # q, qd, qdd are mutually consistent (central differences) and continuous.
    np.testing.assert_allclose((q[2:] - q[:-2]) * fs / 2, qd[1:-1], atol=J / fs**2)
    np.testing.assert_allclose((qd[2:] - qd[:-2]) * fs / 2, qdd[1:-1], atol=J / fs)
    assert np.max(np.abs(np.diff(qdd, axis=0))) <= J / fs * (1 + REL)
    # Segments are contiguous; motions alternate with dwells of the requested length.
    segs = traj.segments
    for s0, s1 in zip(segs[:-1], segs[1:]):
        assert s1.t_start == pytest.approx(s0.t_end, abs=1e-12)
        np.testing.assert_array_equal(s1.q_start, s0.q_end)
    if dwell_s:
        holds = [s for s in segs if not s.is_motion]
        assert all(h.duration == pytest.approx(dwell_s) for h in holds[:-1])
        mid = np.array([h.t_start + 0.5 * h.duration for h in holds])
        np.testing.assert_array_equal(traj.sample(mid)[1], 0.0)
    # Motion durations are those of the straight segments; none longer than the polygon allows.
    assert np.all(traj.motion_durations <= longest_motion_duration(POLY, TABLE3_BOUNDS) + 1e-12)
    np.testing.assert_allclose(traj.motion_durations, straight_segment_duration(np.diff(traj.targets, axis=0), TABLE3_BOUNDS), rtol=1e-14)


def test_random_trajectory_end_modes_and_start() -> None:
    hold = random_point_to_point(POLY, 5.0, 3, TABLE3_BOUNDS)
    assert hold.duration == 5.0 and hold.end_time <= 5.0
    _, _, qd, qdd = hold.sample_rate(1000.0)
    np.testing.assert_allclose(hold.sample(np.array([5.0]))[1], 0.0, atol=1e-12)
    trunc = random_point_to_point(POLY, 5.0, 3, TABLE3_BOUNDS, end="truncate")
    assert trunc.duration == 5.0 and trunc.end_time >= 5.0
    ext = random_point_to_point(POLY, 5.0, 3, TABLE3_BOUNDS, end="extend")
    assert ext.duration == ext.end_time >= 5.0
    np.testing.assert_array_equal(trunc.targets, ext.targets)
    np.testing.assert_array_equal(hold.targets, trunc.targets[: hold.targets.shape[0]])
    start = POLY.centroid
    s = random_point_to_point(POLY, 3.0, 3, TABLE3_BOUNDS, start=start)
    np.testing.assert_array_equal(s.targets[0], start)
    np.testing.assert_allclose(s.sample(np.array([-1.0, 0.0]))[0], [start, start])
    with pytest.raises(ValueError):
        random_point_to_point(POLY, 3.0, 3, TABLE3_BOUNDS, start=[0.0, 0.0])
    # Holding outside [0, end_time]: at rest at the end points.
    q, qd, qdd = hold.sample(np.array([-5.0, hold.end_time + 10.0]))
    np.testing.assert_array_equal(qd, 0.0)
    np.testing.assert_array_equal(qdd, 0.0)
    np.testing.assert_array_equal(q[1], hold.targets[-1])


def test_trajectory_from_targets_hits_every_target() -> None:
    targets = np.array([[1.2, 1.0], [2.5, 1.4], [2.5, 1.4], [1.5, 2.5]])
    traj = Trajectory.from_targets(targets, TABLE3_BOUNDS, dwell_s=0.05)
    assert len(traj.motions) == 2
    ends = np.array([m.t_end for m in traj.motions])
    q, qd, _ = traj.sample(ends)
    np.testing.assert_allclose(q, targets[[1, 3]], atol=1e-12)
    np.testing.assert_allclose(qd, 0.0, atol=1e-12)


def test_sampling_40_s_at_4_khz_is_fast() -> None:
    traj = random_point_to_point(POLY, 40.0, 0, TABLE3_BOUNDS)
    t = traj.time_grid(4000.0)
    traj.sample(t[:10])  # compile / load the numba cache
    best = np.inf
    for _ in range(3):
        t0 = time.perf_counter()
        q, qd, qdd = traj.sample(t)
        best = min(best, time.perf_counter() - t0)
    assert q.shape == (160000, 2)
    assert best < 0.1
    # Unsorted times give the same values.
    perm = np.random.default_rng(0).permutation(t.size)
    np.testing.assert_array_equal(traj.sample(t[perm])[0], q[perm])
