"""Reproducible figure files and the figure builders (paperlib.figures)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest

from paperlib.figures import io as fio
from paperlib.experiments.mems import figures as figs


def _figure():
    import holoviews as hv

    fio.configure()
    x = np.linspace(0.0, 1.0, 200)
    img = hv.Image(np.outer(np.sin(3 * x), np.cos(2 * x)), bounds=(0, 0, 1, 1)).opts(cmap="Reds", colorbar=True)
    curve = hv.Curve((x, x**2), "t_s", "y", label="a curve")
    return (img * curve).opts(title="test figure")


@pytest.mark.parametrize("fmt", ["png", "svg", "pdf"])
def test_save_is_byte_reproducible(tmp_path: Path, fmt: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SOURCE_DATE_EPOCH", raising=False)
    a = fio.save(_figure(), tmp_path / "a" / "fig", (fmt,))[0]
    b = fio.save(_figure(), tmp_path / "b" / "fig", (fmt,))[0]
    assert a.read_bytes() == b.read_bytes()
    assert a.stat().st_size > 1000
    if fmt == "svg":
        text = a.read_text()
        assert "<dc:date>" not in text and "Matplotlib" not in text
    if fmt == "png":
        assert b"Matplotlib" not in a.read_bytes()


def test_save_honours_source_date_epoch(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    a = fio.save(_figure(), tmp_path / "a", ("svg",))[0]
    b = fio.save(_figure(), tmp_path / "b", ("svg",))[0]
    assert a.read_bytes() == b.read_bytes()
    assert "2023-11-14" in a.read_text()


def test_save_writes_sidecar_and_readable_files(tmp_path: Path) -> None:
    import matplotlib.image as mpimg

    files = fio.save(_figure(), tmp_path / "fig99_test", provenance={"git_commit": "abc", "recordings": []})
    names = [f.name for f in files]
    assert names == ["fig99_test.png", "fig99_test.svg", "fig99_test.json"]
    side = json.loads((tmp_path / "fig99_test.json").read_text())
    assert side["git_commit"] == "abc" and len(side["files"]["fig99_test.png"]["sha256"]) == 64
    img = mpimg.imread(tmp_path / "fig99_test.png")
    assert img.std() > 0.01                               # not blank
    umask = os.umask(0)
    os.umask(umask)
    assert (tmp_path / "fig99_test.png").stat().st_mode & 0o777 == 0o666 & ~umask   # as open() would create it
    assert not list(tmp_path.glob(".fig99_test*"))          # no temporary files left


def test_builders_render_on_synthetic_results(tmp_path: Path) -> None:
    """Every builder renders (smoke test of the plotting code on small synthetic inputs)."""

    from paperlib.experiments.mems import friction_fits as ff
    from paperlib.experiments.mems import model_order as mo
    from paperlib.experiments.mems import tracking as tr
    from paperlib.experiments.mems.synthetic import synthetic_recording

    recs = {c: synthetic_recording(3.0, seed=2, controller=c, fs_hz=500.0) for c in ("PD", "CTC", "AC")}
    hist = ff.estimate_history(recs["CTC"], 3)
    comp = ff.lagrangian_components(recs["CTC"], hist, 3, rate_hz=100.0)
    metrics = tr.compare_controllers(recs, (0.0, 3.0))
    study = mo.model_order_study(recs["CTC"], models=(3, 5), record_every_s=0.1)
    shares = tr.torque_shares(recs["AC"])
    v = np.linspace(-3, 3, 31)
    objs = {
        "f5": figs.model_order(study, chosen=3),
        "f6": figs.friction_velocity(comp, 1, truth_curve=(v, -np.sign(v))),
        "f7": figs.friction_time(comp, 2, (0.5, 2.5)),
        "f8": figs.error_bars(metrics, "peak"),
        "f10a": figs.setpoint_panel(recs["AC"], "q_sp", (0.0, 2.0)),
        "f10d": figs.error_panel(recs["PD"], "PD", (0.0, 2.0), "d"),
        "f11": figs.torque_shares(shares),
        "f12": figs.friction_temperature({"cold": comp, "warm": comp}, {"cold": (v, -v), "warm": (v, -0.5 * v)}, 1,
                                         {"cold": 22.0, "warm": 39.0}),
        "f13": figs.parameter_history({"cold": hist, "warm": hist}, ["pi_pds,1", "pi_pds,2"], "pi_pds", "t",
                                      conv_times={"cold": 1.0, "warm": float("nan")}),
    }
    import matplotlib.image as mpimg

    for name, obj in objs.items():
        png = fio.save(obj, tmp_path / name, ("png",))[0]
        assert mpimg.imread(png).std() > 0.01, name


def test_workspace_figures(tmp_path: Path) -> None:
    from paperlib.control.trajectories import Polygon
    from paperlib.experiments.mems import workspace as ws
    from paperlib.experiments.mems.synthetic import TEST_POLYGON_DEG
    from paperlib.robots.five_bar import FiveBar

    robot = FiveBar.default()
    poly = Polygon(np.radians(TEST_POLYGON_DEG))
    grid = ws.condition_grid(robot, n=41, box_rad=ws.grid_box(robot, poly))
    assert np.nanmax(grid.values) <= 1.0 and np.isnan(grid.values).any()
    traj = ws.sample_trajectories(poly, n_motions=4, seed=1)
    assert traj.attrs["motion_durations_s"] and traj["motion"].max() == 3
    ts = ws.task_space(robot, traj, grid, poly)
    summary = ws.workspace_summary(robot, poly, traj, ts, "test", n_stats_motions=20)
    assert summary["peak_end_point_speed_m_s"] >= summary["shown_peak_end_point_speed_m_s"] > 0.1
    assert 0.1 < summary["longest_motion_s"] < 2.0 and summary["polygon_within_joint_limits"]
    for name, obj in (("4a", figs.condition_map_joint(grid, poly.vertices, traj)), ("4b", figs.condition_map_task(ts))):
        png = fio.save(obj, tmp_path / name, ("png",))[0]
        import matplotlib.image as mpimg

        assert mpimg.imread(png).std() > 0.01


def test_parameter_history_zooms_when_every_marked_time_is_crowded_at_the_start() -> None:
    """Convergence times and the paper's time all in the first 5 % of the run: the axis ends at twice the
    latest of them and the title says so; one of them later in the run: the whole run is shown."""
    import xarray as xr

    t = np.arange(0.0, 100.0, 0.05)
    theta = np.stack([1.0 + 0.5 * np.exp(-t / 0.2), 0.9 - 0.3 * np.exp(-t / 0.3)], axis=1)
    hist = xr.Dataset({"theta": (("t", "param"), theta)}, coords={"t": t, "param": ["pi_pds,1", "pi_pds,2"]})
    params = ["pi_pds,1", "pi_pds,2"]

    def axis(obj):
        fig = fio.render(obj)
        return fig.axes[0]

    crowded = axis(figs.parameter_history({"cold": hist, "warm": hist}, params, "pi_pds [1]", "Fig. 13",
                                          conv_times={"cold": 0.6, "warm": 1.1}, paper_time_s=3.0))
    assert crowded.get_xlim() == (0.0, 6.0)
    assert crowded.get_title(loc="left").endswith("(first 6 s of the 100-s run)")
    whole = axis(figs.parameter_history({"cold": hist, "warm": hist}, params, "pi_pds [1]", "Fig. 13",
                                        conv_times={"cold": 0.6, "warm": 30.0}, paper_time_s=3.0))
    assert whole.get_xlim() == (0.0, pytest.approx(t[-1])) and whole.get_title(loc="left") == "Fig. 13"
