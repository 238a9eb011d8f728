"""Schema ``paperlib.recording/2``: a small core, a channel vocabulary, v1 files still valid,
analyses that name the channel they miss, and derived kinematics from encoder angles."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import xarray as xr

from paperlib import recordings as R
from paperlib import signals
from paperlib.provenance import REPO_ROOT

V1_FILE = REPO_ROOT / "tests" / "data" / "v1_five_bar_pd.nc"
FS = 1000.0


def _external_file(path: Path, n: int = 2000, **attrs) -> Path:
    """What another lab's tool writes with plain xarray: only q, tau_s and tau_ref."""
    t = np.arange(n) / FS
    q = 0.5 * np.sin(2 * np.pi * 0.5 * t)[:, None]
    ds = xr.Dataset(
        {"q": (("time", "joint"), q, {"units": "rad", "long_name": "joint angle"}),
         "tau_s": (("time", "joint"), 0.2 * np.cos(t)[:, None], {"units": "N m", "long_name": "torque sensor"}),
         "tau_ref": (("time", "joint"), 0.1 * np.cos(t)[:, None], {"units": "N m", "long_name": "load cell"})},
        coords={"time": ("time", t, {"units": "s", "long_name": "time"}),
                "joint": ("joint", np.array([7]), {"units": "1", "long_name": "joint"})},
        attrs={"schema": "paperlib.recording/2", "robot": "kinova_gen3_joint7", "source": "hardware",
               "sample_rate_hz": FS, "created": "2026-11-30T10:00:00+00:00", "writer": "lab_logger 1.3", **attrs})
    ds.to_netcdf(path, engine="h5netcdf")
    return path


def test_foreign_minimal_file_validates(tmp_path):
    ds = R.read_recording(_external_file(tmp_path / "joint7.nc"), require=("q", "tau_s", "tau_ref"))
    assert set(ds.data_vars) == {"q", "tau_s", "tau_ref"}
    assert ds.attrs["writer"] == "lab_logger 1.3"


def test_analysis_refuses_a_missing_channel_by_name(tmp_path):
    path = _external_file(tmp_path / "joint7.nc")
    with pytest.raises(R.RecordingError) as err:
        R.read_recording(path, require=("q", "tau_m", "qd"), analysis="EWR-RLS identification")
    msg = str(err.value)
    assert str(path) in msg and "'tau_m'" in msg and "'qd'" in msg and "EWR-RLS" in msg
    assert "'tau_s'" not in msg
    # The real identification command refuses it the same way, without a traceback.
    from paperlib.cli import main
    assert main(["identify", str(path)]) == 1


def test_identify_command_names_the_missing_channel(tmp_path, capsys):
    from paperlib.cli import main
    path = _external_file(tmp_path / "joint7.nc")
    assert main(["identify", str(path)]) == 1
    err = capsys.readouterr().err
    assert "'tau_m'" in err and str(path) in err


@pytest.mark.parametrize("attrs, fault", [
    ({"source": "twin"}, "'truth'"),
    ({"writer": ""}, "'writer'"),
    ({"source": "twin", "truth": '{"withheld": ""}'}, "'withheld'"),
    ({"source": "hardware", "truth": '{"fc": 1}'}, "'truth'"),
])
def test_core_attribute_faults(tmp_path, attrs, fault):
    with pytest.raises(R.RecordingError, match=fault):
        R.read_recording(_external_file(tmp_path / "x.nc", **attrs))


def test_external_twin_may_withhold_its_truth(tmp_path):
    ds = R.read_recording(_external_file(tmp_path / "x.nc", source="twin",
                                         truth='{"withheld": "vendor simulator, parameters confidential"}'))
    assert R.truth(ds)["withheld"].startswith("vendor")


def test_vocabulary_units_are_enforced(tmp_path):
    ds = R.from_arrays(np.zeros((10, 1)), sample_rate_hz=FS, robot="x", source="hardware",
                       channels={"current": np.ones(10)}, writer="t 1")
    assert ds.current.attrs["units"] == "A"
    bad = ds.assign(current=ds.current.copy().assign_attrs(units="N m"))
    with pytest.raises(R.RecordingError, match="'current'.*current in A"):
        R.validate(bad)


def test_from_arrays_states_origins_and_writer(tmp_path):
    n = 500
    q = np.linspace(0, 1, n)[:, None] * [1.0, 2.0]
    with pytest.raises(R.RecordingError, match="'qd': state its origin"):
        R.from_arrays(q, sample_rate_hz=FS, robot="my_2dof", source="hardware", channels={"qd": q})
    ds = R.from_arrays(q, sample_rate_hz=FS, robot="my_2dof", source="hardware", channels={"qd": q, "tau_m": q},
                       origins={"qd": "tachometer"}, torque_side="joint", writer="my_logger 0.9")
    back = R.read_recording(R.write_recording(ds, tmp_path / "a.nc"))
    assert back.qd.attrs["origin"] == "tachometer" and back.tau_m.attrs["side"] == "joint"
    assert back.attrs["writer"] == "my_logger 0.9" and "git_commit" not in back.attrs
    own = R.from_arrays(q, sample_rate_hz=FS, robot="my_2dof", source="twin", truth={"m": 1.0})
    assert own.attrs["writer"].startswith("paperlib ") and "git_commit" in own.attrs


def test_v1_file_still_reads_and_validates():
    ds = R.read_recording(V1_FILE)  # written by the v1 writer (commit 08cd64e)
    assert ds.attrs["schema"] == R.SCHEMA_V1 and ds.attrs["source"] == "twin"
    R.validate(ds)
    # v1 keeps its own rules: dropping a v1-required variable is still a fault there.
    with pytest.raises(R.RecordingError, match="'tau_tgt': missing"):
        R.validate(ds.drop_vars("tau_tgt"))


def test_v1_file_has_what_the_identification_needs():
    from paperlib.estimation.replay import REPLAY_CHANNELS
    R.require_channels(R.read_recording(V1_FILE), REPLAY_CHANNELS, analysis="EWR-RLS identification")


def test_new_writers_write_schema_2(tmp_path):
    with R.RecordingWriter(tmp_path / "w.nc", [1], robot="single", source="hardware", sample_rate_hz=FS,
                           channels=("q", "tau_s"), writer=None) as rec:
        for k in range(20):
            rec.append(k / FS, q=[0.01 * k], tau_s=[0.5])
    ds = R.read_recording(tmp_path / "w.nc", require=("tau_s",))
    assert ds.attrs["schema"] == R.SCHEMA and set(ds.data_vars) == {"q", "tau_s"}


# ------------------------------------------------------------------------- derived kinematics

def test_zero_phase_derivatives_match_the_analytic_ones():
    fs, f = 1000.0, 0.7
    t = np.arange(int(10 * fs)) / fs
    w = 2 * np.pi * f
    q = np.stack([np.sin(w * t), 0.3 * np.cos(2 * w * t)], axis=1)
    rng = np.random.default_rng(3)
    q_noisy = q + 1e-5 * rng.standard_normal(q.shape)  # ~ a 19-bit encoder
    _, qd, qdd = signals.zero_phase_derivatives(q_noisy, fs, cutoff_hz=10.0)
    inner = slice(500, -500)  # away from the filter's end transients
    qd_true = np.stack([w * np.cos(w * t), -0.6 * w * np.sin(2 * w * t)], axis=1)
    qdd_true = np.stack([-w**2 * np.sin(w * t), -1.2 * w**2 * np.cos(2 * w * t)], axis=1)
    assert np.abs(qd[inner] - qd_true[inner]).max() < 2e-3 * np.abs(qd_true).max()
    assert np.abs(qdd[inner] - qdd_true[inner]).max() < 2e-2 * np.abs(qdd_true).max()
    # zero phase: no delay between the derived and the true velocity
    lag = np.argmax(np.correlate(qd[inner, 0], qd_true[inner, 0], "full")) - (len(t[inner]) - 1)
    assert lag == 0


def test_causal_filter_would_lag_zero_phase_does_not():
    from scipy import signal
    fs = 1000.0
    t = np.arange(5000) / fs
    q = np.sin(2 * np.pi * 2 * t)
    sos = signal.butter(4, 10.0, fs=fs, output="sos")
    causal = signal.sosfilt(sos, q)
    zp, _, _ = signals.zero_phase_derivatives(q, fs, 10.0)
    assert np.abs(zp[1000:-1000] - q[1000:-1000]).max() < 1e-3
    assert np.abs(causal[1000:-1000] - q[1000:-1000]).max() > 1e-2


@pytest.mark.parametrize("cutoff", [0.0, 500.0, 800.0])
def test_cutoff_must_be_below_nyquist(cutoff):
    with pytest.raises(ValueError, match="cut-off"):
        signals.zero_phase_derivatives(np.zeros(1000), 1000.0, cutoff)


def test_nan_angle_is_refused():
    q = np.zeros(1000)
    q[321] = np.nan
    with pytest.raises(ValueError, match="time index 321"):
        signals.zero_phase_derivatives(q, 1000.0, 20.0)


def test_ensure_kinematics_states_the_filter_and_validates(tmp_path):
    ds = R.read_recording(_external_file(tmp_path / "x.nc"))
    out = signals.ensure_kinematics(ds, cutoff_hz=25.0)
    for v in ("qd", "qdd"):
        assert out[v].attrs["origin"] == "encoder-derived"
        assert "Butterworth" in out[v].attrs["filter"] and out[v].attrs["cutoff_hz"] == 25.0
    R.validate(out)
    w = 2 * np.pi * 0.5
    t = ds.time.values
    inner = slice(200, -200)
    assert np.abs(out.qd.values[inner, 0] - 0.5 * w * np.cos(w * t[inner])).max() < 1e-3
    # the file's own channels are kept unless forced
    assert signals.ensure_kinematics(out, cutoff_hz=5.0) is out


# ------------------------------------------------------------------ one pass, plausibility

def test_every_fault_is_reported_in_one_pass(tmp_path):
    path = _external_file(tmp_path / "x.nc")
    ds = xr.load_dataset(path, engine="h5netcdf")
    ds.attrs.pop("writer")
    ds.attrs.pop("created")
    ds["time"] = ds.time.copy().assign_attrs(units="ms")
    ds["tau_s"] = ds.tau_s.copy().assign_attrs(units="N mm")
    q = ds.q.values.copy()
    q[5, 0] = np.nan
    ds["q"] = (ds.q.dims, q, ds.q.attrs)
    ds["qd"] = (ds.q.dims, q * 0, {"units": "rad/s", "long_name": "v"})
    with pytest.raises(R.RecordingError) as err:
        R.validate(ds, "seeded")
    text = str(err.value)
    for fault in ("'writer'", "'created'", "coordinate 'time'", "'tau_s'", "'q'", "'qd': attribute 'origin'"):
        assert fault in text, fault
    assert len(err.value.problems) >= 6


def test_plausibility_warns_on_degrees_and_a_wrong_rate():
    fs = 500.0
    t = np.arange(2000) / fs
    q_deg = np.degrees(1.5 * np.sin(2 * np.pi * 0.3 * t))[:, None] * 3  # +-258 "rad"
    ds = R.from_arrays(q_deg, sample_rate_hz=fs, robot="x", source="hardware", writer="w 1")
    assert any("degrees" in w for w in R.plausibility(ds))
    q = 0.8 * np.sin(2 * np.pi * 0.5 * t)[:, None]
    qd = 0.8 * 2 * np.pi * 0.5 * np.cos(2 * np.pi * 0.5 * t)[:, None]
    good = R.from_arrays(q, sample_rate_hz=fs, robot="x", source="hardware", writer="w 1", channels={"qd": qd},
                         origins={"qd": "tachometer"})
    assert R.plausibility(good) == []
    wrong_rate = R.from_arrays(q, sample_rate_hz=2 * fs, robot="x", source="hardware", writer="w 1",
                               channels={"qd": qd}, origins={"qd": "tachometer"})
    assert any("sample_rate_hz" in w for w in R.plausibility(wrong_rate))
    mnm = R.from_arrays(q, sample_rate_hz=fs, robot="x", source="hardware", writer="w 1",
                        channels={"tau_s": 5e4 * np.ones_like(q)})
    assert any("mN m" in w for w in R.plausibility(mnm))


def test_validate_command_prints_the_warning(tmp_path, capsys):
    from paperlib.cli import main
    fs = 500.0
    t = np.arange(2000) / fs
    ds = R.from_arrays(np.degrees(4 * np.sin(t))[:, None], sample_rate_hz=fs, robot="x", source="hardware",
                       writer="w 1")
    path = R.write_recording(ds, tmp_path / "deg.nc")
    assert main(["validate", str(path)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("OK") and "warning:" in out and "degrees" in out


def _file_with_q(path: Path, q_dims: tuple[str, str], q_values: np.ndarray, robot: str = "x") -> Path:
    """A two-joint hardware file written with plain xarray whose only channel is ``q`` (no units)."""
    t = np.arange(q_values.shape[0 if q_dims[0] == "time" else 1]) / FS
    ds = xr.Dataset(
        {"q": (q_dims, q_values, {"long_name": "joint angle"})},
        coords={"time": ("time", t, {"units": "s", "long_name": "time"}),
                "joint": ("joint", np.array([1, 2]), {"units": "1", "long_name": "joint"})},
        attrs={"schema": "paperlib.recording/2", "robot": robot, "source": "hardware", "sample_rate_hz": FS,
               "created": "2026-11-30T10:00:00+00:00", "writer": "lab_logger 1.3"})
    ds.to_netcdf(path, engine="h5netcdf")
    return path


def test_a_variable_with_wrong_dimensions_is_checked_on(tmp_path, capsys):
    """``q`` transposed, without units and with a NaN: the first pass lists all three faults, and fixing the
    dimensions brings no new one to light."""
    from paperlib.cli import main
    q = 0.3 * np.sin(2 * np.pi * np.arange(400) / FS)[:, None] * np.ones((1, 2))
    q[7, 1] = np.nan
    broken = _file_with_q(tmp_path / "broken.nc", ("joint", "time"), q.T.copy())
    fixed = _file_with_q(tmp_path / "fixed.nc", ("time", "joint"), q)
    assert main(["validate", str(broken)]) == 1
    first = capsys.readouterr().out.splitlines()
    assert main(["validate", str(fixed)]) == 1
    second = capsys.readouterr().out.splitlines()
    assert first[0] == f"FAIL {broken}" and second[0] == f"FAIL {fixed}"
    assert [p for p in first if "wrong dimensions" in p] == [
        f"     {broken}: variable 'q': wrong dimensions ('joint', 'time') (shape (2, 400)); expected ('time', 'joint')"]
    for lines, path in ((first, broken), (second, fixed)):
        assert f"     {path}: variable 'q': has no 'units' attribute (expected angle in rad)" in lines
        nan = [p for p in lines if "'q': nan at" in p]
        assert len(nan) == 1 and "time index 7 (t = 0.007 s)" in nan[0] and "joint 2" in nan[0]
    assert len(second) == len(first) - 1  # the dimensions were the only fault the first pass had not named


def test_plausibility_warns_on_angles_outside_the_robots_joint_limits():
    fixture = R.read_recording(R.DEFAULT_REGISTRY.parent / "fixture_five_bar_ac_0p25s.nc")
    assert fixture.attrs["robot"] == "five_bar"
    assert not any("joint limits" in w for w in R.plausibility(fixture))
    # The same angles in degrees, labelled rad: a small motion, so only the five-bar's limits can tell.
    lo, hi = R.robot_joint_limits("five_bar")
    q_deg = np.degrees(fixture["q"].values)
    assert np.all(np.ptp(q_deg, axis=0) < 4 * np.pi)  # the turns-and-30-rad check would not fire
    deg = R.from_arrays(q_deg, sample_rate_hz=float(fixture.attrs["sample_rate_hz"]), robot="five_bar",
                        source="hardware", writer="lab_logger 1.3")
    warnings = [w for w in R.plausibility(deg, "deg.nc") if "joint limits" in w]
    assert len(warnings) == 2
    for label, w in zip((1, 2), warnings):
        assert w.startswith(f"deg.nc: variable 'q', joint {label}: reaches ") and "degrees labelled 'rad'" in w
        assert f"[{lo[label - 1]:.4g}, {hi[label - 1]:.4g}] rad" in w
    # A serial arm's limits come from its model: the TX40's wrist joint 5 stops at +2.33 rad.
    lo6, hi6 = R.robot_joint_limits("tx40")
    assert lo6.shape == hi6.shape == (6,) and hi6[4] == pytest.approx(2.33)
    q6 = np.zeros((500, 6))
    q6[:, 4] = np.linspace(0.0, 2.30, 500)
    ok = R.from_arrays(q6, sample_rate_hz=FS, robot="tx40", source="hardware", writer="w 1")
    assert not any("joint limits" in w for w in R.plausibility(ok))
    q6[:, 4] = np.linspace(0.0, 2.40, 500)
    over = R.from_arrays(q6, sample_rate_hz=FS, robot="tx40", source="hardware", writer="w 1")
    [w] = [w for w in R.plausibility(over) if "joint limits" in w]
    assert "joint 5: reaches 2.4 rad at time index 499" in w and "degrees labelled" not in w
    # No model of the robot, no judgement.
    assert R.robot_joint_limits("kinova_gen3_joint7") is None


def test_validate_ok_line_labels_what_it_shows(tmp_path, capsys):
    """The OK line names each field (issue 27: a file without a controller showed a bare '-')."""
    from paperlib.cli import main
    q = 0.1 * np.sin(np.arange(300) / FS)[:, None] * np.ones((1, 2))
    path = tmp_path / "plain.nc"
    R.write_recording(R.from_arrays(q, sample_rate_hz=FS, robot="my_joint", source="hardware", writer="lab 1"), path)
    assert main(["validate", str(path)]) == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert first.startswith(f"OK   {path}: source hardware, robot my_joint, no controller stated, written by lab 1, ")
    assert " - " not in first


def test_validate_warns_on_a_five_bar_file_in_degrees_as_issue_27_found_it(tmp_path, capsys):
    """Angles at 115 and 70 "rad" moving +-5 (degrees, labelled rad): far under the 4 pi span the unit check
    needs, so only the five-bar's joint limits can tell; the file stays valid (exit 0) with one warning a joint."""
    from paperlib.cli import main
    t = np.arange(4000) / FS
    q = np.stack([115 + 5 * np.sin(2 * np.pi * 0.5 * t), 70 + 5 * np.sin(2 * np.pi * 0.7 * t)], axis=1)
    path = tmp_path / "deg.nc"
    R.write_recording(R.from_arrays(q, sample_rate_hz=FS, robot="five_bar", source="hardware", writer="lab 1"), path)
    assert main(["validate", str(path)]) == 0
    warnings = [line for line in capsys.readouterr().out.splitlines() if "warning:" in line]
    assert len(warnings) == 2
    for joint, w in zip((1, 2), warnings):
        assert f"joint {joint}: reaches" in w and "outside five_bar's joint limits" in w and "degrees labelled" in w
