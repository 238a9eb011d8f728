"""Convex-polygon geometry of a 2-D joint space: where test motions are planned (flagship paper, Fig. 4).

* :class:`Polygon` -- a convex polygon (vertices and half-planes), with uniform sampling,
  containment, boundary and interior check points;
* :func:`safe_sigma` -- a condition-index function that gives NaN where it raises;
* :func:`well_conditioned_polygon` -- a large convex polygon inside the region of the joint
  space where a condition index ``sigma >= threshold`` (multi-start heuristic: cut and balloon
  candidates, repaired at check points, the largest kept).

Units are SI (rad, rad^2).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

__all__ = [
    "Polygon",
    "SigmaFn",
    "convex_hull",
    "safe_sigma",
    "well_conditioned_polygon",
]

FloatArray = NDArray[np.float64]


# ---------------------------------------------------------------------------------------
# Convex polygon in joint space
# ---------------------------------------------------------------------------------------


def _cross2(a: FloatArray, b: FloatArray) -> FloatArray:
    return a[..., 0] * b[..., 1] - a[..., 1] * b[..., 0]


def convex_hull(points: FloatArray) -> FloatArray:
    """Convex hull vertices, counter-clockwise, collinear points dropped (monotone chain).

    Parameters
    ----------
    points : ndarray, shape (M, 2)
        Points [rad].

    Returns
    -------
    ndarray, shape (V, 2)
        Hull vertices [rad] (fewer than 3 rows for degenerate input).
    """
    pts = np.asarray(points, dtype=float)
    if pts.shape[0] > 64:
        from scipy.spatial import ConvexHull, QhullError

        try:
            pts = pts[ConvexHull(pts).vertices]
        except QhullError:  # degenerate (collinear) input: fall through
            pass
    pts = np.unique(pts, axis=0)
    if pts.shape[0] < 3:
        return pts
    lower: list[FloatArray] = []
    for p in pts:
        while len(lower) >= 2 and _cross2(lower[-1] - lower[-2], p - lower[-2]) <= 0.0:
            lower.pop()
        lower.append(p)
    upper: list[FloatArray] = []
    for p in pts[::-1]:
        while len(upper) >= 2 and _cross2(upper[-1] - upper[-2], p - upper[-2]) <= 0.0:
            upper.pop()
        upper.append(p)
    return np.array(lower[:-1] + upper[:-1])


def _area(vertices: FloatArray) -> float:
    x, y = vertices[:, 0], vertices[:, 1]
    return 0.5 * float(np.sum(x * np.roll(y, -1) - np.roll(x, -1) * y))


@dataclass(frozen=True, eq=False)
class Polygon:
    """A convex polygon in a 2-D joint space.

    Stored both as vertices and as half-planes ``A q <= b``; :meth:`contains` and
    :meth:`sample` use only the half-plane form and a bounding box, so an n-D convex
    polytope can later offer the same interface.

    Attributes
    ----------
    vertices : ndarray, shape (V, 2)
        Vertices [rad], counter-clockwise, strictly convex (V >= 3).
    A : ndarray, shape (V, 2)
        Outward unit normals of the edges (edge ``i`` from vertex ``i`` to ``i+1``).
    b : ndarray, shape (V,)
        Offsets [rad]: the polygon is ``{q : A q <= b}``.
    """

    vertices: FloatArray
    A: FloatArray = field(init=False, repr=False)
    b: FloatArray = field(init=False, repr=False)

    def __post_init__(self) -> None:
        v = np.array(self.vertices, dtype=float)
        if v.ndim != 2 or v.shape[1] != 2 or v.shape[0] < 3:
            raise ValueError("Polygon vertices must have shape (V, 2), V >= 3")
        edges = np.roll(v, -1, axis=0) - v
        turn = _cross2(edges, np.roll(edges, -1, axis=0))
        if not np.all(turn > 0.0):
            raise ValueError("Polygon vertices must be strictly convex and counter-clockwise")
        normals = np.stack([edges[:, 1], -edges[:, 0]], axis=1)
        normals /= np.linalg.norm(normals, axis=1, keepdims=True)
        v.setflags(write=False)
        object.__setattr__(self, "vertices", v)
        object.__setattr__(self, "A", normals)
        object.__setattr__(self, "b", np.einsum("ij,ij->i", normals, v))

    @classmethod
    def from_points(cls, points: ArrayLike) -> "Polygon":
        """Convex hull of ``points`` (shape (M, 2)) [rad]."""
        return cls(convex_hull(np.asarray(points, dtype=float)))

    @property
    def dim(self) -> int:
        """Dimension of the joint space (2)."""
        return 2

    @property
    def area(self) -> float:
        """Area [rad^2]."""
        return _area(self.vertices)

    @property
    def centroid(self) -> FloatArray:
        """Area centroid, shape (2,) [rad]."""
        v = self.vertices
        w = np.roll(v, -1, axis=0)
        cr = _cross2(v, w)
        return np.sum((v + w) * cr[:, None], axis=0) / (3.0 * np.sum(cr))

    @property
    def box(self) -> FloatArray:
        """Bounding box, shape (2, 2): row 0 lower, row 1 upper corner [rad]."""
        return np.stack([self.vertices.min(axis=0), self.vertices.max(axis=0)])

    def contains(self, Q: ArrayLike, tol: float = 0.0) -> NDArray[np.bool_]:
        """Whether points are inside (or within ``tol`` [rad] of) the polygon.

        Parameters
        ----------
        Q : array_like, shape (M, 2)
            Points [rad].
        tol : float
            Outward tolerance [rad].

        Returns
        -------
        ndarray of bool, shape (M,)
        """
        Q = np.asarray(Q, dtype=float)
        x = np.ascontiguousarray(Q[..., 0])
        y = np.ascontiguousarray(Q[..., 1])
        inside = np.ones(x.shape, dtype=bool)
        for (ax, ay), bi in zip(self.A, self.b + tol):  # one pass per edge: fast for 2-D points
            inside &= x * ax + y * ay <= bi
        return inside

    def sample(self, rng: np.random.Generator, n: int) -> FloatArray:
        """``n`` points uniformly distributed inside (rejection sampling in the bounding box).

        Parameters
        ----------
        rng : numpy.random.Generator
        n : int

        Returns
        -------
        ndarray, shape (n, 2)
            Points [rad].
        """
        lo, hi = self.box
        fill = self.area / float(np.prod(hi - lo))
        out = np.empty((0, self.dim))
        while out.shape[0] < n:
            m = int(np.ceil(1.2 * (n - out.shape[0]) / fill)) + 8
            cand = rng.uniform(lo, hi, size=(m, self.dim))
            out = np.vstack([out, cand[self.contains(cand)]])
        return out[:n]

    def boundary_points(self, spacing: float) -> FloatArray:
        """Points along the edges (vertices included), at most ``spacing`` [rad] apart, shape (M, 2)."""
        v = self.vertices
        w = np.roll(v, -1, axis=0)
        pts = []
        for p, q in zip(v, w):
            k = max(1, int(np.ceil(np.linalg.norm(q - p) / spacing)))
            s = np.arange(k)[:, None] / k
            pts.append(p + s * (q - p))
        return np.vstack(pts)

    def interior_points(self, spacing: float, offset: float = 0.5) -> FloatArray:
        """Points of a square lattice of pitch ``spacing`` [rad] that lie inside, shape (M, 2).

        The lattice is anchored at the bounding box's lower corner plus ``offset * spacing``.
        """
        lo, hi = self.box
        axes = [np.arange(lo[i] + offset * spacing, hi[i], spacing) for i in range(2)]
        g = np.stack(np.meshgrid(*axes, indexing="ij"), axis=-1).reshape(-1, 2)
        return g[self.contains(g)]

    def shrunk(self, factor: float, center: ArrayLike | None = None) -> "Polygon":
        """Scaled copy about ``center`` (default: centroid) by ``factor`` in (0, 1]."""
        c = self.centroid if center is None else np.asarray(center, dtype=float)
        return Polygon(c + factor * (self.vertices - c))


SigmaFn = Callable[[FloatArray], FloatArray]


def safe_sigma(sigma: SigmaFn, errors: tuple[type[BaseException], ...] = (ValueError,)) -> SigmaFn:
    """Wrap a condition-index function so that points where it raises give NaN.

    The batch is evaluated at once; if it raises one of ``errors``, it is split in
    halves recursively until the offending points are isolated (cost ``O(k log M)``
    calls for ``k`` bad points among ``M``).

    Parameters
    ----------
    sigma : callable
        ``sigma(Q) -> ndarray`` with ``Q`` of shape (M, 2) [rad], result shape (M,).
    errors : tuple of exception types
        Errors meaning "outside the workspace / singular".

    Returns
    -------
    callable
        Same signature; never raises ``errors``; NaN where ``sigma`` raised.
    """

    def wrapped(Q: FloatArray) -> FloatArray:
        Q = np.asarray(Q, dtype=float)
        out = np.full(Q.shape[0], np.nan)

        def fill(lo: int, hi: int) -> None:
            if hi <= lo:
                return
            try:
                value = sigma(Q[lo:hi])
            except errors:
                if hi - lo > 1:
                    mid = (lo + hi) // 2
                    fill(lo, mid)
                    fill(mid, hi)
                return
            out[lo:hi] = np.asarray(value, dtype=float).reshape(hi - lo)

        fill(0, Q.shape[0])
        return out

    return wrapped


def _clip(verts: FloatArray, normal: FloatArray, offset: float) -> FloatArray:
    """Clip a convex polygon (V, 2) to the half-plane ``normal . q <= offset``."""
    out: list[FloatArray] = []
    dist = verts @ normal - offset
    nv = verts.shape[0]
    for i in range(nv):
        p, q = verts[i], verts[(i + 1) % nv]
        dp, dq = dist[i], dist[(i + 1) % nv]
        if dp <= 0.0:
            out.append(p)
        if (dp < 0.0 < dq) or (dq < 0.0 < dp):
            out.append(p + (dp / (dp - dq)) * (q - p))
    return np.array(out).reshape(-1, 2)


def _reduce_vertices(verts: FloatArray, max_vertices: int, center: FloatArray, negligible: float = 1e-3) -> FloatArray:
    """Drop vertices of a convex polygon, least area lost first, keeping ``center`` strictly inside.

    Vertices go while there are more than ``max_vertices``, or while one can go losing
    less than ``negligible`` times the area (near-collinear vertices). The result is a
    subset of the input polygon.
    """
    v = [p for p in verts]
    area0 = _area(np.asarray(verts))
    while len(v) > 3:
        arr = np.array(v)
        prev, nxt = np.roll(arr, 1, axis=0), np.roll(arr, -1, axis=0)
        loss = 0.5 * _cross2(arr - prev, nxt - prev)
        # Removing vertex i leaves edge prev->nxt; center must stay strictly on its left.
        keeps_center = _cross2(nxt - prev, center - prev) > 0.0
        loss = np.where(keeps_center, loss, np.inf)
        i = int(np.argmin(loss))
        if not np.isfinite(loss[i]) or (len(v) <= max_vertices and loss[i] >= negligible * area0):
            break
        v.pop(i)
    return np.array(v)


def _halfplane_polygon(normals: FloatArray, offsets: FloatArray, box: FloatArray) -> FloatArray:
    """Vertices of ``{q in box : normals q <= offsets}``, counter-clockwise."""
    verts = np.array([[box[0, 0], box[0, 1]], [box[1, 0], box[0, 1]], [box[1, 0], box[1, 1]], [box[0, 0], box[1, 1]]])
    for n, d in zip(normals, offsets):
        verts = _clip(verts, n, float(d))
        if verts.shape[0] < 3:
            break
    return verts


def _balloon(start: FloatArray, normals: FloatArray, proj_bad: FloatArray, support: FloatArray, margin: float) -> FloatArray:
    """Grow the polygon ``P = {q : n_k q <= b_k}`` (fixed normals) from ``start`` until every face is blocked.

    All free faces move outward at the same speed (an exact event-driven simulation,
    no time step); a face stops when the polygon would otherwise take in an
    inadmissible point (the face that last kept the point out stops), or at the box.
    It works on the enlarged polygon ``Q = {q : n_k q <= b_k + margin}``, which must hold
    no inadmissible point (``proj_bad``: their projections on the normals, shape (M, K)):
    so every inadmissible point stays farther than ``margin`` from ``P``.

    Returns
    -------
    b : ndarray, shape (K,)
        Offsets of ``P`` (the single point ``start`` if an inadmissible point is within
        ``margin`` of it). ``support`` (K,) is the box's support function.
    """
    bq = normals @ start + margin
    if np.any(np.all(proj_bad <= bq, axis=1)):
        return bq - margin
    limit = support + margin
    free = bq < limit
    tiny = 1e-9 * margin
    while free.any():
        slack = proj_bad - bq  # > 0: the face keeps the point out
        live = ~np.any(slack[:, ~free] > 0.0, axis=1)  # points no stopped face keeps out
        free_idx = np.flatnonzero(free)
        t_box = float(np.min(limit[free_idx] - bq[free_idx]))
        t_pts, j = np.inf, -1
        if live.any():
            s_free = slack[live][:, free_idx]
            entry = s_free.max(axis=1)  # when the last free face keeping it out passes it
            j = int(np.argmin(entry))
            t_pts = max(float(entry[j]), 0.0)
        if t_box <= t_pts:
            bq[free_idx] += max(t_box, 0.0)
            free &= bq < limit - tiny
            continue
        bq[free_idx] += t_pts
        k = int(free_idx[np.argmax(s_free[j])])
        bq[k] = float(proj_bad[np.flatnonzero(live)[j], k]) - tiny
        free[k] = False
    return np.minimum(bq, limit) - margin


_CUT_ANGLES = np.arange(180) * (2.0 * np.pi / 180)  # cut-line normal directions, 2 deg apart


def _repair(
    verts: FloatArray,
    c: FloatArray,
    admissible: Callable[[FloatArray], NDArray[np.bool_]],
    g_pts: FloatArray,
    g_ok: NDArray[np.bool_],
    lattice: FloatArray,
    lattice_ok: NDArray[np.bool_],
    spacing: float,
    max_vertices: int,
    max_iter: int,
    min_area: float,
) -> Polygon | None:
    """Cut inadmissible check points out of a convex polygon (``c`` kept inside), then reduce its vertices.

    ``lattice_ok`` caches the admissibility of ``lattice`` points (NaN-free bool), evaluated
    by the caller. Returns ``None`` if the polygon collapses or ``max_iter`` is reached.
    """
    normals = np.stack([np.cos(_CUT_ANGLES), np.sin(_CUT_ANGLES)], axis=1)
    eps = 0.1 * spacing  # each cut also removes a thin band: no creeping along curved edges
    bad_weight = float(g_pts.shape[0])  # lexicographic: fewest inadmissible kept, then most admissible
    verts = convex_hull(verts)
    if verts.shape[0] < 3 or _area(verts) <= min_area:
        return None
    poly = Polygon(verts)
    g_idx = np.flatnonzero(poly.contains(g_pts))
    l_idx = np.flatnonzero(poly.contains(lattice))
    for _ in range(max_iter):
        edge_pts = poly.boundary_points(spacing / 4.0)
        bad = np.vstack([
            edge_pts[~admissible(edge_pts)],
            lattice[l_idx[~lattice_ok[l_idx]]],
            g_pts[g_idx[~g_ok[g_idx]]],
        ])
        if bad.shape[0] == 0:
            verts = _reduce_vertices(poly.vertices, max_vertices, c)
            if verts.shape[0] == poly.vertices.shape[0]:
                return poly
        else:
            p = bad[np.argmin(np.sum((bad - c) ** 2, axis=1))]
            offsets = normals @ p - eps  # candidate cuts keep n . q <= n . p - eps
            valid = normals @ c < offsets - eps
            # Score on at most ~8000 planning-grid points, plus the inadmissible check points found.
            sel = g_idx[:: max(1, g_idx.size // 4000)]
            gx = np.concatenate([g_pts[sel, 0], bad[:, 0]])
            gy = np.concatenate([g_pts[sel, 1], bad[:, 1]])
            weight = np.concatenate([np.where(g_ok[sel], 1.0, -bad_weight), np.full(bad.shape[0], -bad_weight)])
            score = np.full(normals.shape[0], -np.inf)
            for k in np.flatnonzero(valid):
                score[k] = weight @ (gx * normals[k, 0] + gy * normals[k, 1] <= offsets[k])
            k = int(np.argmax(score))
            if not np.isfinite(score[k]):
                return None
            verts = _clip(poly.vertices, normals[k], float(offsets[k]))
        verts = convex_hull(verts)
        if verts.shape[0] < 3 or _area(verts) <= min_area:
            return None
        poly = Polygon(verts)
        g_idx = g_idx[poly.contains(g_pts[g_idx])]
        l_idx = l_idx[poly.contains(lattice[l_idx])]
    return None


def well_conditioned_polygon(
    sigma: SigmaFn,
    threshold: float,
    box_rad: ArrayLike,
    seed_rad: ArrayLike | None = None,
    *,
    grid_n: int = 201,
    max_vertices: int = 10,
    check_spacing_rad: float | None = None,
    catch_errors: bool = True,
    method: Literal["auto", "cut", "balloon"] = "auto",
    n_starts: int = 12,
    n_normals: int = 24,
    max_iter: int = 1000,
) -> Polygon:
    """A large convex polygon of the joint space where the condition index is ``>= threshold``.

    The largest convex subset of a non-convex region (the "potato peeling" problem) is
    expensive to find exactly; this is a multi-start heuristic that keeps the largest
    of several admissible candidates:

    1. evaluate ``sigma`` on a ``grid_n x grid_n`` planning grid over the box; a grid
       point is admissible if ``sigma >= threshold`` (NaN is inadmissible); keep the
       4-connected admissible component holding ``seed_rad`` (default: the largest);
    2. candidates (``method``):

       * ``"cut"``: the component's convex hull, repaired as in step 3 around the
         component's deepest point (largest distance to the inadmissible set or the
         box edge);
       * ``"balloon"``: from each of ``n_starts`` start points (the deepest point,
         then farthest-point samples of the component's interior), a polygon with
         ``n_normals`` fixed edge directions grows, all faces outward at the same
         speed, each face stopping when the polygon would come within one grid pitch
         of an inadmissible grid point (or at the box);
       * ``"auto"`` (default): all of the above;

    3. repair each candidate: evaluate ``sigma`` afresh at check points -- along the
       edges (vertices included, pitch ``check_spacing_rad / 4``) and on a fixed
       interior lattice of pitch ``check_spacing_rad`` offset by half a pitch from the
       planning grid; while some of them or of the planning-grid points inside are inadmissible, cut the polygon with a line through
       the one nearest the candidate's centre, choosing among 180 orientations the one
       that keeps the fewest inadmissible (planning-grid and check) points, then the
       most admissible planning-grid points; then, while there are more than ``max_vertices`` vertices or one of
       them is nearly collinear (removal loses < 0.1 % of the area), drop the vertex
       whose removal loses the least area (the polygon only shrinks) and check again;
    4. return the largest repaired candidate.

    The result is admissible at every check point: between them, to the resolution
    ``check_spacing_rad``. It is deterministic (no random numbers).

    Parameters
    ----------
    sigma : callable
        ``sigma(Q) -> ndarray``, ``Q`` of shape (M, 2) [rad], result shape (M,);
        NaN outside the workspace or at singularities.
    threshold : float
        Minimum admissible condition index.
    box_rad : array_like, shape (2, 2)
        Joint-space box: row 0 lower corner, row 1 upper corner [rad].
    seed_rad : array_like, shape (2,), optional
        A point of the wanted admissible component [rad]; default: largest component.
    grid_n : int
        Planning grid points per axis.
    max_vertices : int
        Maximum number of vertices (>= 3).
    check_spacing_rad : float, optional
        Interior check pitch [rad]; default: the planning grid pitch (the smaller of the two axes).
    catch_errors : bool
        Wrap ``sigma`` with :func:`safe_sigma` (``ValueError`` -> NaN).
    method : {"auto", "cut", "balloon"}
        Candidates to try (see above).
    n_starts : int
        Balloon start points.
    n_normals : int
        Balloon edge directions (a multiple of 4 keeps the box faces among them).
    max_iter : int
        Maximum cut / reduce iterations per candidate.

    Returns
    -------
    Polygon

    Raises
    ------
    ValueError
        No admissible point, or the seed is not admissible.
    RuntimeError
        No candidate could be repaired.
    """
    from scipy import ndimage

    if max_vertices < 3:
        raise ValueError("max_vertices must be >= 3")
    if method not in ("auto", "cut", "balloon"):
        raise ValueError(f"method must be 'auto', 'cut' or 'balloon', not {method!r}")
    fn = safe_sigma(sigma) if catch_errors else sigma
    box = np.asarray(box_rad, dtype=float)
    if box.shape != (2, 2) or np.any(box[1] <= box[0]):
        raise ValueError("box_rad must have shape (2, 2): [lower, upper] with lower < upper")

    def admissible(Q: FloatArray) -> NDArray[np.bool_]:
        if Q.shape[0] == 0:
            return np.zeros(0, dtype=bool)
        s = np.asarray(fn(Q), dtype=float).reshape(Q.shape[0])
        with np.errstate(invalid="ignore"):
            return s >= threshold

    # 1. Planning grid and admissible component.
    axes = [np.linspace(box[0, i], box[1, i], grid_n) for i in range(2)]
    step = np.array([ax[1] - ax[0] for ax in axes])
    grid = np.stack(np.meshgrid(*axes, indexing="ij"), axis=-1)
    mask = admissible(grid.reshape(-1, 2)).reshape(grid_n, grid_n)
    if not mask.any():
        raise ValueError("well_conditioned_polygon: no grid point has sigma >= threshold")
    labels, _ = ndimage.label(mask)
    if seed_rad is None:
        sizes = np.bincount(labels.ravel())
        sizes[0] = 0
        wanted = int(np.argmax(sizes))
    else:
        seed = np.asarray(seed_rad, dtype=float)
        idx = tuple(int(np.clip(np.rint((seed[i] - box[0, i]) / step[i]), 0, grid_n - 1)) for i in range(2))
        wanted = int(labels[idx])
        if wanted == 0:
            raise ValueError(f"well_conditioned_polygon: seed {seed} is not admissible on the grid")
    comp = labels == wanted
    depth = ndimage.distance_transform_edt(np.pad(comp, 1), sampling=step)[1:-1, 1:-1]
    c_deep = grid[np.unravel_index(int(np.argmax(depth)), depth.shape)]
    hull = convex_hull(grid[comp])
    if hull.shape[0] < 3:
        raise ValueError("well_conditioned_polygon: the admissible component is degenerate (a point or a line)")

    # Shared check data.
    spacing = float(np.min(step)) if check_spacing_rad is None else float(check_spacing_rad)
    lat_axes = [np.arange(box[0, i] + 0.5 * spacing, box[1, i], spacing) for i in range(2)]
    lattice = np.stack(np.meshgrid(*lat_axes, indexing="ij"), axis=-1).reshape(-1, 2)
    in_hull = Polygon(hull).contains(lattice)
    lattice_ok = np.zeros(lattice.shape[0], dtype=bool)
    lattice_ok[in_hull] = admissible(lattice[in_hull])  # every candidate lies in the hull
    g_pts = grid.reshape(-1, 2)
    g_ok = mask.reshape(-1)
    min_area = 1e-9 * float(np.prod(box[1] - box[0]))

    def repair(verts: FloatArray, centre: FloatArray) -> Polygon | None:
        return _repair(verts, centre, admissible, g_pts, g_ok, lattice, lattice_ok, spacing, max_vertices, max_iter, min_area)

    # 2-3. Candidates.
    candidates: list[Polygon] = []
    if method in ("auto", "cut"):
        poly = repair(hull, c_deep)
        if poly is not None:
            candidates.append(poly)
    if method in ("auto", "balloon"):
        ang = np.arange(n_normals) * (2.0 * np.pi / n_normals)
        normals = np.stack([np.cos(ang), np.sin(ang)], axis=1)
        corners = np.array([[box[i, 0], box[j, 1]] for i in (0, 1) for j in (0, 1)])
        support = np.max(corners @ normals.T, axis=0)
        border = ndimage.binary_dilation(mask, structure=np.ones((3, 3), dtype=bool)) & ~mask
        bad_pts = grid[border]
        proj_bad = bad_pts[:, :1] * normals[:, 0] + bad_pts[:, 1:] * normals[:, 1]
        for start in _start_points(grid, comp, depth, n_starts):
            # Keep a grid pitch from the inadmissible grid points: the region's true edge
            # lies somewhere between them and the admissible ones.
            b = _balloon(start, normals, proj_bad, support, float(np.max(step)))
            verts = _halfplane_polygon(normals, b, box)
            if verts.shape[0] >= 3:
                poly = repair(verts, start)
                if poly is not None:
                    candidates.append(poly)
    if not candidates:
        raise RuntimeError("well_conditioned_polygon: no admissible candidate polygon")
    # 4. The largest.
    return max(candidates, key=lambda p: p.area)


def _start_points(grid: FloatArray, comp: NDArray[np.bool_], depth: FloatArray, n: int) -> FloatArray:
    """The deepest component point, then farthest-point samples of the component's interior, shape (<= n, 2)."""
    deep = comp & (depth >= 0.3 * depth.max())
    pts, d = grid[deep], depth[deep]
    chosen = [int(np.argmax(d))]
    dist = np.linalg.norm(pts - pts[chosen[0]], axis=1)
    while len(chosen) < min(n, pts.shape[0]):
        i = int(np.argmax(dist))
        if dist[i] <= 0.0:
            break
        chosen.append(i)
        dist = np.minimum(dist, np.linalg.norm(pts - pts[i], axis=1))
    return pts[chosen]
