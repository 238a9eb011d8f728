"""Tests of the recording format paperlib.recording/1 (paperlib.recordings, paperlib.recordings.cli)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest
import xarray as xr

from paperlib import recordings as R
from paperlib.cli import main

FS = 4000.0
#: the qualifiers schema 2 asks of qd, qdd, tau_m and tau_tgt (the 5R loop's sensors)
QUAL = {"origins": {"qd": "gyroscope", "qdd": "accelerometer"}, "torque_side": "motor"}
N = 400


def _data(n: int = N, joints: int = 2, seed: int = 0) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    return {name: rng.standard_normal((n, joints)) for name in R.REQUIRED_VARIABLES}


def make(n: int = N, *, source: str = "twin", fs: float = FS, temperature: bool = True,
         extra: bool = True, **kw) -> xr.Dataset:
    """A valid recording of ``n`` samples of a 2-joint robot."""
    data = _data(n)
    if temperature:
        temp = np.full((n, 2), 22.5)
        temp[: n // 2, 1] = np.nan  # not measured during the first half
        data["temperature"] = temp
    extra_vars = None
    if extra:
        rng = np.random.default_rng(1)
        extra_vars = {
            "pi_hat": xr.DataArray(rng.standard_normal((n, 3)), dims=("time", "param"),
                                   coords={"param": ["pi_pds_1", "pi_F0_1", "pi_F1_1"]},
                                   attrs={"units": "1", "long_name": "estimated parameters"}),
            "gyro_z_raw": (("time", "joint"), rng.integers(-2**15, 2**15, (n, 2)),
                           {"units": "1", "long_name": "raw gyroscope z channel (counts)"}),
        }
    kw.setdefault("seed", 1234 if source == "twin" else None)
    kw.setdefault("truth", {"fc_1": 0.12, "fv_1": 0.034} if source == "twin" else None)
    kw.setdefault("origins", {"qd": "gyroscope", "qdd": "accelerometer"})
    kw.setdefault("torque_side", "motor")
    return R.make_recording(n, [1, 2], data, robot="five_bar", source=source, sample_rate_hz=fs,
                            controller="AC", config={"duration_s": n / fs, "gains": [1.0, 2.0]},
                            extra_vars=extra_vars, **kw)


@pytest.fixture(scope="module")
def valid() -> xr.Dataset:
    return make()


def _with_time(ds: xr.Dataset, t: np.ndarray) -> xr.Dataset:
    return ds.assign_coords(time=("time", t, ds["time"].attrs))


def _set_attr(**attrs):
    def f(ds: xr.Dataset) -> xr.Dataset:
        ds = ds.copy()
        ds.attrs = {**ds.attrs, **attrs}
        return ds
    return f


def _drop_attr(key):
    def f(ds: xr.Dataset) -> xr.Dataset:
        ds = ds.copy()
        ds.attrs = {k: v for k, v in ds.attrs.items() if k != key}
        return ds
    return f


def _set_units(var, units):
    def f(ds: xr.Dataset) -> xr.Dataset:
        ds = ds.copy(deep=True)
        ds[var].attrs["units"] = units
        return ds
    return f


def _poke(var, index, value):
    def f(ds: xr.Dataset) -> xr.Dataset:
        ds = ds.copy(deep=True)
        ds[var].values[index] = value
        return ds
    return f


def _swap_times(ds):
    t = ds["time"].values.copy()
    t[[10, 11]] = t[[11, 10]]
    return _with_time(ds, t)


def _jitter_time(ds):
    t = ds["time"].values.copy()
    t[100] += 0.1 / FS  # 10 % of a period
    return _with_time(ds, t)


def _drifting_rate(ds):
    # every step 2e-4 too long: within the per-step tolerance, but 0.8 sample off after 4000
    ds = make(4000, extra=False)
    return _with_time(ds, np.arange(4000) / (FS * (1 - 2e-4)))


def _joints(labels):
    def f(ds):
        return ds.assign_coords(joint=("joint", np.asarray(labels), ds["joint"].attrs))
    return f


def _wrong_dims(ds):
    ds = ds.copy()
    ds["q"] = (("time",), ds["q"].values[:, 0], ds["q"].attrs)
    return ds


def _transposed(ds):
    ds = ds.copy()
    ds["qdd"] = ds["qdd"].transpose("joint", "time")
    return ds


def _no_units(ds):
    ds = ds.copy(deep=True)
    del ds["gyro_z_raw"].attrs["units"]
    return ds


def _hardware_with_truth(ds):
    return _set_attr(source="hardware", truth=json.dumps({"fc_1": 0.1}))(ds)


FAULTS = {
    # id: (mutation, substrings the message must contain)
    "missing variable": (lambda ds: ds.drop_vars("q"), ["'q'", "missing"]),
    "velocity without origin": (lambda ds: ds.assign(qd=xr.DataArray(ds.qd.values, dims=ds.qd.dims,
                                                                            attrs={"units": "rad/s", "long_name": "v"})),
                                ["'qd'", "'origin'", "missing"]),
    "unknown velocity origin": (lambda ds: ds.assign(qd=ds.qd.copy().assign_attrs(origin="guess")),
                                ["'qd'", "'guess'", "encoder-derived"]),
    "torque without side": (lambda ds: ds.assign(tau_m=xr.DataArray(ds.tau_m.values, dims=ds.tau_m.dims,
                                                                            attrs={"units": "N m", "long_name": "t"})),
                            ["'tau_m'", "'side'"]),
    "wrong units": (_set_units("tau_m", "kg"), ["'tau_m'", "'kg'", "torque in N m"]),
    "deg instead of rad": (_set_units("q", "deg"), ["'q'", "'deg'", "angle in rad"]),
    "deg/s instead of rad/s": (_set_units("qd", "deg/s"), ["'qd'", "angular velocity in rad/s"]),
    "no units": (_set_units("qdd_sp", None), ["'qdd_sp'", "units"]),
    "temperature in K": (_set_units("temperature", "K"), ["'temperature'", "degC"]),
    "non-monotonic time": (_swap_times, ["'time'", "not strictly increasing", "index 11"]),
    "non-uniform time": (_jitter_time, ["'time'", "non-uniform", "index 99"]),
    "time vs sample_rate_hz": (_set_attr(sample_rate_hz=1000.0), ["'time'", "sample_rate_hz"]),
    "drifting sample rate": (_drifting_rate, ["'time'", "drifts", "sample_rate_hz"]),
    "too few samples": (lambda ds: ds.isel(time=slice(0, 1)), ["'time'", "too few samples"]),
    "NaN": (_poke("qd", (10, 1), np.nan), ["'qd'", "nan at time index 10 (t = 0.0025 s), joint 2"]),
    "inf": (_poke("tau_tgt", (7, 0), np.inf), ["'tau_tgt'", "inf", "time index 7"]),
    "inf temperature": (_poke("temperature", (300, 0), -np.inf), ["'temperature'", "inf"]),
    "NaN in optional variable": (_poke("pi_hat", (3, 2), np.nan), ["'pi_hat'", "nan", "'pi_F1_1'"]),
    "wrong shape": (_wrong_dims, ["'q'", "dimensions"]),
    "transposed": (_transposed, ["'qdd'", "dimensions"]),
    "optional variable without units": (_no_units, ["'gyro_z_raw'", "units"]),
    "float joint labels": (_joints([1.0, 2.0]), ["'joint'", "integers"]),
    "duplicate joint labels": (_joints([1, 1]), ["'joint'", "duplicate"]),
    "zero joint label": (_joints([0, 1]), ["'joint'", "positive"]),
    "bad source": (_set_attr(source="simulation"), ["'source'", "'simulation'"]),
    "no source": (_drop_attr("source"), ["'source'", "missing"]),
    "twin without seed": (_drop_attr("truth"), ["'truth'", "twin", "withheld"]),
    "twin without truth": (_drop_attr("truth"), ["'truth'", "twin"]),
    "hardware with truth": (_hardware_with_truth, ["'truth'", "hardware"]),
    "schema mismatch": (_set_attr(schema="paperlib.recording/0"), ["'schema'", "paperlib.recording/0"]),
    "config not JSON": (_set_attr(config="{duration: 1"), ["'config'", "JSON"]),
    "config not an object": (_set_attr(config="[1, 2]"), ["'config'", "object"]),
    "bad sample rate": (_set_attr(sample_rate_hz=-4000.0), ["'sample_rate_hz'", "positive"]),
    "no provenance": (_drop_attr("writer"), ["'writer'", "missing"]),
}


# ---------------------------------------------------------------------------- round trip

def test_round_trip_is_exact(valid, tmp_path):
    path = R.write_recording(valid, tmp_path / "run.nc")
    back = R.read_recording(path)
    xr.testing.assert_identical(back, valid)  # values (NaN where NaN), coords, all attrs
    for name, var in valid.variables.items():
        assert back[name].dtype == var.dtype, name
    assert back.attrs == valid.attrs
    assert R.truth(back) == {"fc_1": 0.12, "fv_1": 0.034}
    assert R.config(back) == {"duration_s": N / FS, "gains": [1.0, 2.0]}
    assert int(back.attrs["seed"]) == 1234


def test_file_is_compressed_netcdf4(valid, tmp_path):
    import h5py

    path = R.write_recording(valid, tmp_path / "run.nc")
    with h5py.File(path, "r") as f:
        for name in [*R.REQUIRED_VARIABLES, "temperature", "pi_hat", "gyro_z_raw", "time"]:
            assert f[name].compression == "gzip" and f[name].fletcher32, name
        assert f.attrs["schema"] == R.SCHEMA
    # encoder-like (quantised) signals compress to well below their raw size
    n = 40000
    smooth = make(n, extra=False, temperature=False)
    for name in R.REQUIRED_VARIABLES:
        smooth[name].values[:] = np.round(np.sin(np.arange(n) / 400.0) * 2**14)[:, None] / 2**14
    path = R.write_recording(smooth, tmp_path / "smooth.nc")
    raw = 8 * n * (1 + 2 * len(R.REQUIRED_VARIABLES))
    assert path.stat().st_size < 0.3 * raw


def test_hardware_recording_without_seed_or_truth_is_valid(tmp_path):
    ds = make(source="hardware")
    assert "seed" not in ds.attrs and "truth" not in ds.attrs
    back = R.read_recording(R.write_recording(ds, tmp_path / "hw.nc"))
    assert back.attrs["source"] == "hardware"
    with pytest.raises(R.RecordingError, match="truth"):
        R.truth(back)


def test_temperature_may_be_nan(valid):
    assert np.isnan(valid["temperature"].values).any()
    R.validate(valid)  # does not raise


def test_unit_aliases_are_accepted_and_canonicalised(valid, tmp_path):
    aliased = valid.copy(deep=True)
    for name, units in {"qd": "rad s-1", "qdd": "rad s-2", "qdd_sp": "rad/s2",
                        "tau_m": "N.m", "tau_tgt": "newton meter", "time": "seconds"}.items():
        aliased[name].attrs["units"] = units
    R.validate(aliased)
    back = R.read_recording(R.write_recording(aliased, tmp_path / "alias.nc"))
    assert back["qd"].attrs["units"] == "rad/s"
    assert back["qdd"].attrs["units"] == "rad/s^2"
    assert back["qdd_sp"].attrs["units"] == "rad/s^2"
    assert back["tau_tgt"].attrs["units"] == "N m"
    assert back["time"].attrs["units"] == "s"
    assert aliased["qd"].attrs["units"] == "rad s-1"  # the caller's dataset is not modified


def test_six_joints(tmp_path):
    n = 50
    data = _data(n, joints=6)
    ds = R.make_recording(n, [1, 2, 3, 4, 5, 6], data, **QUAL, robot="er3a_c60", source="hardware",
                          sample_rate_hz=1000.0, controller="none", config={})
    back = R.read_recording(R.write_recording(ds, tmp_path / "six.nc"))
    assert back.sizes == {"time": n, "joint": 6}
    np.testing.assert_array_equal(back["tau_m"].values, data["tau_m"])


# ---------------------------------------------------------------------------- faults

@pytest.mark.parametrize("fault", list(FAULTS))
def test_validate_rejects(valid, fault):
    mutate, expected = FAULTS[fault]
    bad = mutate(valid)
    with pytest.raises(R.RecordingError) as info:
        R.validate(bad, name="run.nc")
    message = str(info.value)
    assert all(p.startswith("run.nc: ") for p in info.value.problems), message
    for part in expected:
        assert part in message, f"{part!r} not in {message!r}"


@pytest.mark.parametrize("fault", ["missing variable", "deg instead of rad", "NaN", "twin without seed"])
def test_read_rejects_invalid_file(valid, fault, tmp_path):
    """A schema fault in a file (written by another tool) is caught on reading, naming the file."""
    bad = FAULTS[fault][0](valid)
    path = tmp_path / "foreign.nc"
    bad.to_netcdf(path, engine="h5netcdf")
    with pytest.raises(R.RecordingError) as info:
        R.read_recording(path)
    assert str(info.value).startswith(f"{path}: ")
    assert FAULTS[fault][1][0] in str(info.value)


def _flip_data(good: bytes, path: Path) -> bytes:
    """Flip bytes inside the first compressed, checksummed data chunk of 'qd'."""
    import h5py

    with h5py.File(path, "r") as f:
        info = f["qd"].id.get_chunk_info(0)
    raw = bytearray(good)
    start = info.byte_offset + info.size // 2
    raw[start:start + 16] = bytes(b ^ 0xFF for b in raw[start:start + 16])
    return bytes(raw)


@pytest.mark.parametrize("damage,expected", [
    (lambda good, path: good[: len(good) // 2], "truncated"),
    (lambda good, path: good[:-1], "truncated"),
    (lambda good, path: np.random.default_rng(0).bytes(len(good)), "corrupt"),
    (_flip_data, "corrupt"),
    (lambda good, path: b"", "empty"),
    (lambda good, path: b"time,q\n0.0,1.0\n", "corrupt"),
], ids=["cut in half", "last byte missing", "random bytes", "flipped data bytes", "empty", "csv"])
def test_damaged_files_raise_recording_error(valid, tmp_path, damage, expected):
    good_path = R.write_recording(valid, tmp_path / "good.nc")
    path = tmp_path / "bad.nc"
    path.write_bytes(damage(good_path.read_bytes(), good_path))
    with pytest.raises(R.RecordingError) as info:
        R.read_recording(path)
    assert str(path) in str(info.value) and expected in str(info.value)


def test_missing_file_is_file_not_found(tmp_path):
    with pytest.raises(FileNotFoundError, match="nope.nc"):
        R.read_recording(tmp_path / "nope.nc")


def test_make_recording_rejects_wrong_shape():
    data = _data()
    data["qd"] = data["qd"][:, :1]
    with pytest.raises(R.RecordingError, match=r"'qd': wrong shape \(400, 1\)"):
        R.make_recording(N, [1, 2], data, **QUAL, robot="five_bar", source="hardware",
                         sample_rate_hz=FS, controller="PD", config={})


def test_make_recording_requires_source_to_be_stated():
    with pytest.raises(TypeError, match="source"):
        R.make_recording(N, [1, 2], _data(), **QUAL, robot="five_bar", sample_rate_hz=FS,
                         controller="PD", config={})
    with pytest.raises(R.RecordingError, match="'measured'"):
        R.make_recording(N, [1, 2], _data(), **QUAL, robot="five_bar", source="measured",
                         sample_rate_hz=FS, controller="PD", config={})


def test_make_recording_rejects_unknown_and_missing_variables():
    data = _data()
    data["qdot"] = data.pop("qd")
    with pytest.raises(R.RecordingError, match="qdot"):
        R.make_recording(N, [1, 2], data, **QUAL, robot="five_bar", source="hardware",
                         sample_rate_hz=FS, controller="PD", config={})
    del data["qdot"]
    with pytest.raises(R.RecordingError, match="'q': missing"):
        R.make_recording(N, [1, 2], {k: v for k, v in data.items() if k != "q"}, **QUAL, robot="five_bar",
                         source="hardware", sample_rate_hz=FS, controller="PD", config={})
    with pytest.raises(R.RecordingError, match="'qd': state its origin"):
        R.make_recording(N, [1, 2], _data(), robot="five_bar", source="hardware", torque_side="motor",
                         sample_rate_hz=FS, controller="PD", config={})


def test_config_must_be_json_serialisable():
    with pytest.raises(R.RecordingError, match="'config'"):
        R.make_recording(N, [1, 2], _data(), **QUAL, robot="five_bar", source="hardware",
                         sample_rate_hz=FS, controller="PD", config={"f": object()})
    ds = R.make_recording(N, [1, 2], _data(), **QUAL, robot="five_bar", source="hardware",
                          sample_rate_hz=FS, controller="PD",
                          config={"kp": np.array([1.5, 2.5]), "n": np.int64(3), "p": Path("a/b")})
    assert R.config(ds) == {"kp": [1.5, 2.5], "n": 3, "p": "a/b"}


def test_accumulated_float_time_is_accepted():
    """Times summed as t += dt (a common logger idiom) drift by rounding only: accepted."""
    ds = make(4000, extra=False)
    t = np.cumsum(np.full(4000, 1.0 / FS)) - 1.0 / FS + 3600.0  # an hour into a run
    R.validate(_with_time(ds, t))


# ---------------------------------------------------------------------------- atomic writes

def test_invalid_dataset_writes_nothing(valid, tmp_path):
    with pytest.raises(R.RecordingError, match="'qd'"):
        R.write_recording(FAULTS["NaN"][0](valid), tmp_path / "run.nc")
    assert list(tmp_path.iterdir()) == []


def test_written_file_has_normal_permissions(valid, tmp_path):
    umask = os.umask(0o022)
    os.umask(umask)
    path = R.write_recording(valid, tmp_path / "run.nc")
    assert path.stat().st_mode & 0o777 == 0o666 & ~umask  # not mkstemp's 0o600
    path.chmod(0o640)
    R.write_recording(valid, path)
    assert path.stat().st_mode & 0o777 == 0o640  # a replaced file keeps its mode


def test_crash_during_write_leaves_old_file_and_no_partial(valid, tmp_path, monkeypatch):
    path = R.write_recording(valid, tmp_path / "run.nc")
    before = path.read_bytes()

    def crash(self, target, *args, **kwargs):
        Path(target).write_bytes(b"\x89HDF\r\n\x1a\n" + b"\0" * 100)  # half a file...
        raise OSError("disk full")  # ...then the crash

    monkeypatch.setattr(xr.Dataset, "to_netcdf", crash)
    with pytest.raises(OSError, match="disk full"):
        R.write_recording(make(), path)
    assert [p.name for p in tmp_path.iterdir()] == ["run.nc"]
    assert path.read_bytes() == before

    with pytest.raises(OSError, match="disk full"):
        R.write_recording(valid, tmp_path / "new.nc")
    assert [p.name for p in tmp_path.iterdir()] == ["run.nc"]


# ---------------------------------------------------------------------------- streaming writer

def _writer(path, **kw):
    kw.setdefault("source", "twin")
    kw.setdefault("seed", 7 if kw["source"] == "twin" else None)
    kw.setdefault("truth", {"fc_1": 0.1} if kw["source"] == "twin" else None)
    kw.setdefault("origins", {"qd": "gyroscope", "qdd": "accelerometer"})
    kw.setdefault("torque_side", "motor")
    return R.RecordingWriter(path, [1, 2], robot="five_bar", sample_rate_hz=FS, controller="PD",
                             config={"trajectory": "random"}, **kw)


def _sample(k: int) -> dict[str, np.ndarray]:
    x = np.array([np.sin(k / 100.0), np.cos(k / 100.0)])
    return {name: x * (i + 1) for i, name in enumerate(R.REQUIRED_VARIABLES)}


def test_writer_writes_everything_appended(tmp_path):
    path = tmp_path / "stream.nc"
    params = ["pi_pds_1", "pi_F0_1"]
    with _writer(path, optional=("temperature",), chunk_size=64,
                 extra_channels={"pi_hat": R.Channel("estimated parameters", "1", ("param",)),
                                 "lateness": R.Channel("loop lateness", "s", ())},
                 coords={"param": params}) as rec:
        for k in range(1000):  # crosses 15 chunk boundaries
            rec.append(k / FS, **_sample(k), temperature=np.array([22.0, np.nan]),
                       pi_hat=np.array([k, -k], float), lateness=1e-6 * k)
        assert rec.n_samples == 1000
    ds = R.read_recording(path)
    assert ds.sizes["time"] == 1000 and "fault" not in ds.attrs
    np.testing.assert_array_equal(ds["time"].values, np.arange(1000) / FS)
    np.testing.assert_array_equal(ds["qd"].values[999], _sample(999)["qd"])
    np.testing.assert_array_equal(ds["pi_hat"].values[:, 1], -np.arange(1000.0))
    assert list(ds["param"].values) == params
    assert np.isnan(ds["temperature"].values[:, 1]).all()
    assert ds.attrs["source"] == "twin" and R.truth(ds) == {"fc_1": 0.1}


def test_writer_leaves_valid_file_after_exception(tmp_path):
    path = tmp_path / "fault.nc"
    with pytest.raises(RuntimeError, match="encoder link lost"):
        with _writer(path, source="hardware") as rec:
            for k in range(10_000):
                if k == 500:
                    raise RuntimeError("encoder link lost")
                rec.append(k / FS, **_sample(k))
    ds = R.read_recording(path)
    assert ds.sizes["time"] == 500
    assert ds.attrs["fault"] == "RuntimeError: encoder link lost"
    np.testing.assert_array_equal(ds["q"].values[499], _sample(499)["q"])


def test_writer_finish_records_fault_and_cuts_non_finite_tail(tmp_path):
    path = tmp_path / "nan.nc"
    rec = _writer(path)
    for k in range(300):
        s = _sample(k)
        if k == 200:
            s["qdd"] = np.array([0.0, np.nan])  # a dead accelerometer
        rec.append(k / FS, **s)
    with pytest.warns(RuntimeWarning, match="'qdd'"):
        assert rec.finish(fault="IMU 2 stopped") == path
    ds = R.read_recording(path)
    assert ds.sizes["time"] == 200
    assert ds.attrs["fault"].startswith("IMU 2 stopped; non-finite 'qdd' at time index 200")
    assert rec.finish() is None  # idempotent
    with pytest.raises(RuntimeError, match="finished"):
        rec.append(300 / FS, **_sample(300))


def test_writer_rejects_off_grid_time_and_keeps_nothing_of_it(tmp_path):
    rec = _writer(tmp_path / "grid.nc")
    rec.append(0.0, **_sample(0))
    rec.append(1 / FS, **_sample(1))
    with pytest.raises(ValueError, match="off the grid"):
        rec.append(2.5 / FS, **_sample(2))
    with pytest.raises(ValueError, match="unknown channel 'qdot'"):
        rec.append(2 / FS, **_sample(2), qdot=np.zeros(2))
    with pytest.raises(ValueError, match=r"optional=\('temperature',\)"):
        rec.append(2 / FS, **_sample(2), temperature=np.zeros(2))
    with pytest.raises(ValueError):  # wrong shape
        rec.append(2 / FS, **{**_sample(2), "q": np.zeros(3)})
    assert rec.n_samples == 2
    rec.append(2 / FS, **_sample(2))
    ds = R.read_recording(rec.close())
    assert ds.sizes["time"] == 3


def test_writer_checks_metadata_before_the_run(tmp_path):
    with pytest.raises(R.RecordingError, match="'truth'"):
        _writer(tmp_path / "x.nc", source="twin", truth=None)
    with pytest.raises(R.RecordingError, match="'qd': state its origin"):
        _writer(tmp_path / "x.nc", origins={})
    with pytest.raises(R.RecordingError, match="'source'"):
        _writer(tmp_path / "x.nc", source="sim", seed=1)
    with pytest.raises(R.RecordingError, match="'joint'"):
        R.RecordingWriter(tmp_path / "x.nc", [1, 1], robot="five_bar", source="hardware",
                          sample_rate_hz=FS, controller="PD", config={})
    rec = _writer(tmp_path / "x.nc")
    with pytest.raises(ValueError, match="tau_tgt"):
        rec.append(0.0, **{k: v for k, v in _sample(0).items() if k != "tau_tgt"})
    assert list(tmp_path.iterdir()) == []


def test_writer_with_too_few_samples(tmp_path):
    rec = _writer(tmp_path / "short.nc")
    rec.append(0.0, **_sample(0))
    with pytest.raises(R.RecordingError, match="fewer than 2"):
        rec.close()
    rec = _writer(tmp_path / "short.nc")
    with pytest.warns(RuntimeWarning, match="fewer than 2"):
        assert rec.finish(fault="drive fault at start") is None
    assert not (tmp_path / "short.nc").exists()


def test_writer_flushes_periodically(tmp_path):
    path = tmp_path / "flush.nc"
    rec = _writer(path, flush_every_s=0.05)
    for k in range(300):  # 0.075 s
        rec.append(k / FS, **_sample(k))
    assert R.read_recording(path).sizes["time"] == 201  # flushed at t = 0.05 s
    rec.close()
    assert R.read_recording(path).sizes["time"] == 300


# ---------------------------------------------------------------------------- registry

def _registry(tmp_path, valid, **override) -> Path:
    R.write_recording(valid, tmp_path / "a.nc")
    reg = tmp_path / "registry.toml"
    text = R.registry_entry(tmp_path / "a.nc", name="a", description="test run", registry=reg)
    for key, value in override.items():
        text = "\n".join(f'{key} = "{value}"' if line.startswith(f"{key} =") else line
                         for line in text.splitlines()) + "\n"
    reg.write_text("# test registry\n" + text)
    return reg


def test_repository_registry_is_valid():
    entries = R.load_recording_registry()
    names = [e.name for e in entries]
    assert "fixture_five_bar_ac_0p25s" in names  # a real file (committed) to verify, not an empty list
    problems = R.verify_registry()
    for e in entries:  # archived recordings other than the fixture are not in git: only the fixture must be here
        if e.path.is_file():
            assert not [p for p in problems if p.startswith(e.name + ":")], problems
    fix = next(e for e in entries if e.name == "fixture_five_bar_ac_0p25s")
    ds = R.read_recording(fix.path)
    assert ds.attrs["source"] == "twin" and ds.sizes["time"] == 200 and "truth" in ds.attrs


def test_repository_registry_catches_a_changed_fixture(tmp_path):
    """The same check on a copy of the registry whose fixture was altered: verification must fail."""
    import shutil

    fix = next(e for e in R.load_recording_registry() if e.name == "fixture_five_bar_ac_0p25s")
    reg = tmp_path / "registry.toml"
    shutil.copy(R.DEFAULT_REGISTRY, reg)
    data = bytearray(fix.path.read_bytes())
    data[len(data) // 2] ^= 0xFF
    (tmp_path / fix.path.name).write_bytes(bytes(data))
    problems = [p for p in R.verify_registry(reg) if p.startswith(fix.name + ":")]
    assert problems and "sha256 mismatch" in problems[0]


def test_registry_verifies(tmp_path, valid):
    reg = _registry(tmp_path, valid)
    [entry] = R.load_recording_registry(reg)
    assert (entry.name, entry.source, entry.robot, entry.path) == ("a", "twin", "five_bar", tmp_path / "a.nc")
    assert R.verify_registry(reg) == []


def test_registry_catches_sha_mismatch(tmp_path, valid):
    reg = _registry(tmp_path, valid)
    R.write_recording(make(source="hardware"), tmp_path / "a.nc")  # replaced behind its back
    [problem] = R.verify_registry(reg)
    assert "a: sha256 mismatch" in problem


def test_registry_catches_missing_file(tmp_path, valid):
    reg = _registry(tmp_path, valid)
    (tmp_path / "a.nc").unlink()
    [problem] = R.verify_registry(reg)
    assert "a: file" in problem and "missing" in problem


def test_registry_catches_invalid_file_and_wrong_source(tmp_path, valid):
    reg = _registry(tmp_path, valid, source="hardware")
    assert any("registry says source = 'hardware'" in p for p in R.verify_registry(reg))
    path = tmp_path / "a.nc"
    path.write_bytes(path.read_bytes()[:1000])
    reg = _registry_with_sha(reg, R.sha256_file(path))
    assert any("invalid recording" in p and "truncated" in p for p in R.verify_registry(reg))


def _registry_with_sha(reg: Path, sha: str) -> Path:
    lines = [f'sha256 = "{sha}"' if ln.startswith("sha256 =") else ln
             for ln in reg.read_text().splitlines()]
    reg.write_text("\n".join(lines) + "\n")
    return reg


@pytest.mark.parametrize("text,expected", [
    ('[[recording]]\nname = "a"\n', "missing key 'file'"),
    ('[[recording]]\nname = "a"\nfile = "a.nc"\nsha256 = "00"\nsource = "twin"\nrobot = "r"\n'
     'description = "d"\n', "64 hex"),
    ('[[recording]]\nname = "a"\nfile = "/abs/a.nc"\nsha256 = "' + "0" * 64 + '"\nsource = "sim"\n'
     'robot = "r"\ndescription = "d"\n', "source 'sim'"),
    ("[[recording]\n", "not valid TOML"),
])
def test_malformed_registry(tmp_path, text, expected):
    reg = tmp_path / "registry.toml"
    reg.write_text(text)
    with pytest.raises(R.RecordingError, match=expected):
        R.load_recording_registry(reg)
    assert any(expected in p for p in R.verify_registry(reg))


# ---------------------------------------------------------------------------- CLI

def test_cli_validate(tmp_path, valid, capsys):
    good = R.write_recording(valid, tmp_path / "good.nc")
    bad = tmp_path / "bad.nc"
    FAULTS["deg instead of rad"][0](valid).to_netcdf(bad, engine="h5netcdf")
    assert main(["validate", str(good)]) == 0
    assert capsys.readouterr().out.startswith(f"OK   {good}")
    assert main(["validate", str(good), str(bad), str(tmp_path / "missing.nc")]) == 1
    out = capsys.readouterr().out
    assert f"FAIL {bad}" in out and "variable 'q': units 'deg'" in out
    assert f"FAIL {tmp_path / 'missing.nc'}" in out


def test_cli_recordings_verify_and_list(tmp_path, valid, capsys):
    reg = _registry(tmp_path, valid)
    assert main(["recordings", "verify", "--registry", str(reg)]) == 0
    assert main(["recordings", "list", "--registry", str(reg)]) == 0
    assert "a  " in capsys.readouterr().out
    (tmp_path / "a.nc").unlink()
    assert main(["recordings", "verify", "--registry", str(reg)]) == 1
    assert "missing" in capsys.readouterr().out
    assert main(["recordings", "verify"]) == 0  # the repository's own registry
    with pytest.raises(SystemExit) as exc:
        main(["recordings"])
    assert exc.value.code == 2
