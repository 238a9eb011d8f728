"""Recordings the pipeline keeps: only what the analyses read, stated in the file, the whole log one option away."""

from __future__ import annotations

import json

import numpy as np
import pytest

from paperlib.experiments.mems import friction_fits as ff
from paperlib.experiments.mems import pipeline as P
from paperlib.experiments.mems import sources, tracking as tr
from paperlib.recordings import RecordingError, read_recording, reduce_recording, write_recording


@pytest.fixture(scope="module")
def twin_ac():
    from paperlib.twin.robots.five_bar import simulate

    return simulate(controller="AC", duration_s=3.0, seed=5, imu_calibration="none")


def test_reduce_keeps_core_and_states_what_it_dropped(twin_ac, tmp_path) -> None:
    small = reduce_recording(twin_ac, keep=["qd", "pi_hat"], float32=["pi_hat"], purpose="test")
    assert set(small.data_vars) == {"q", "qd", "pi_hat"}
    assert "part" not in small.dims and "param" in small.dims  # coordinates of dropped variables go too
    note = json.loads(small.attrs["reduced"])
    assert note["float32"] == ["pi_hat"] and "tau_m" in note["dropped"] and note["purpose"] == "test"
    path = write_recording(small, tmp_path / "small.nc")
    back = read_recording(path)
    assert back["pi_hat"].dtype == np.float64  # analyses compute in double precision
    np.testing.assert_allclose(back["pi_hat"].values, twin_ac["pi_hat"].values, rtol=6e-8, atol=0)
    np.testing.assert_array_equal(back["q"].values, twin_ac["q"].values)  # float64 kept bit for bit
    np.testing.assert_array_equal(back["qd"].values, twin_ac["qd"].values)
    assert back.attrs["truth"] == twin_ac.attrs["truth"]


def test_quantized_channels_are_stored_as_counts_bit_for_bit(twin_ac, tmp_path) -> None:
    import h5py

    steps = sources.twin_resolutions()
    assert set(steps) == {"q", "tau_m"}
    small = reduce_recording(twin_ac, keep=["q", "tau_m", "qd"], resolution={**steps, "qd": 1e-3})
    assert json.loads(small.attrs["reduced"])["integer_counts"] == ["q", "tau_m"]  # qd is no multiple of 1e-3
    path = write_recording(small, tmp_path / "counts.nc")
    with h5py.File(path) as h:
        assert h["q"].dtype == np.int32 and h["tau_m"].dtype == np.int32 and h["qd"].dtype == np.float64
    back = read_recording(path)
    for v in ("q", "tau_m", "qd"):
        assert back[v].dtype == np.float64
        np.testing.assert_array_equal(back[v].values, twin_ac[v].values)
    # a step the values are not multiples of is not used
    off = reduce_recording(twin_ac, keep=["q"], resolution={"q": 1.5 * steps["q"]})
    assert "resolution" not in off["q"].attrs


def test_reduce_refuses_unknown_names(twin_ac) -> None:
    with pytest.raises(ValueError, match="not in the recording"):
        reduce_recording(twin_ac, keep=["q", "no_such"])
    with pytest.raises(ValueError, match="not kept"):
        reduce_recording(twin_ac, keep=["q"], float32=["qd"])


def test_reduced_file_is_smaller(twin_ac, tmp_path) -> None:
    cfg = P.load_config()
    full = write_recording(twin_ac, tmp_path / "full.nc").stat().st_size
    st = P.storage(cfg, "cold")
    small = write_recording(reduce_recording(twin_ac, **st), tmp_path / "small.nc").stat().st_size
    assert small < 0.5 * full


def test_every_notebook_says_what_it_reads() -> None:
    """A new notebook must declare the recording variables it reads (else its recordings are kept whole)."""
    assert set(P.NOTEBOOK_READS) == set(P.NOTEBOOKS)
    cfg = P.load_config()
    reads = dict(P.NOTEBOOK_READS)
    del reads["02_model_order"]
    P_reads, P.NOTEBOOK_READS = P.NOTEBOOK_READS, reads
    try:
        assert P.storage(cfg, "identification")["keep"] is None
    finally:
        P.NOTEBOOK_READS = P_reads


def test_storage_follows_the_notebooks() -> None:
    cfg = P.load_config()
    assert cfg["recording_storage"] == "analysis"
    ident = P.storage(cfg, "identification")
    # read by 02 and 03, and warm-started from by pd/ctc/ac
    users = [nb for nb in P.NOTEBOOKS if cfg["notebooks"][nb].get("recording") == "identification"]
    assert set(ident["keep"]) == set().union(*(P.NOTEBOOK_READS[nb] for nb in users)) | {"pi_hat"}
    assert "pi_hat" in ident["keep"]
    assert set(P.storage(cfg, "ac")["keep"]) == set(P.NOTEBOOK_READS["04_controller_comparison"])
    full = P.normalise_config(P.merge(cfg, {"recording_storage": "full"}))
    assert P.storage(full, "cold")["keep"] is None and P.storage(full, "cold")["float32"] == []
    with pytest.raises(ValueError, match="recording_storage"):
        P.normalise_config(P.merge(cfg, {"recording_storage": "some"}))


def test_full_recordings_flag_reaches_snakemake() -> None:
    from paperlib.cli import build_parser
    from paperlib.experiments.cli import snakemake_command

    args = build_parser().parse_args(["reproduce", "mems", "--full-recordings"])
    cmd = snakemake_command(args)
    assert "recording_storage=full" in cmd[cmd.index("--config"):]
    args = build_parser().parse_args(["reproduce", "mems"])
    assert "recording_storage=full" not in snakemake_command(args)


def test_notebook_analyses_run_on_reduced_recordings(twin_ac) -> None:
    """What each notebook calls works on a recording reduced to its NOTEBOOK_READS (a channel the
    analysis reads but the list forgot would raise here)."""
    cfg = P.load_config()
    cold = reduce_recording(twin_ac, **P.storage(cfg, "cold"))
    hist = ff.estimate_history(cold, 3)
    assert hist.attrs["estimate_from"] == "online"
    comp = ff.lagrangian_components(cold, hist, 3)
    assert "Q_F_true" in comp and np.isfinite(comp["Q_F_meas"].values).all()
    np.nanmean(cold["temperature"].values)
    ac = reduce_recording(twin_ac, **P.storage(cfg, "ac"))
    m = tr.compare_controllers({"AC": ac}, (0.5, 3.0))
    assert np.isfinite(m["rms"].values).all()
    tr.torque_shares(ac, (0.5, 3.0))
    tr.window_with_motions(ac, 2)
    ident = reduce_recording(twin_ac, **P.storage(cfg, "identification"))
    sources.final_estimate(ident, 3)
    with pytest.raises(RecordingError):  # a channel that is not kept is refused by name, not a KeyError
        from paperlib.recordings import require_channels

        require_channels(ac, ["tau_m"])
