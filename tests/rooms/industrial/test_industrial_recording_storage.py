"""The thermal campaign's twin recordings as the pipeline stores them: what notebook 02 reads, the
encoder angles as exact integer counts, the whole log one option away (recording_storage)."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

from paperlib.experiments.industrial import thermal as T
from paperlib.experiments.industrial import thermal_inertial as I
from paperlib.provenance import REPO_ROOT
from paperlib.recordings.storage import FULL_PLAN, KEEP_MODES, apply_storage, check_mode
from paperlib.recordings import RecordingError, read_recording, write_recording
from paperlib.twin.robots import campaign as C

CYCLES = 2


@pytest.fixture(scope="module")
def day():
    """Robot 2's faulty day, two cycles, as the twin logs it (before storage)."""
    params = C.load_campaign_params()
    spec = next(d for d in C.campaign_days(params) if d.fault)
    return C.day_recording(C.simulate_day(params, spec, cycles=CYCLES))


@pytest.fixture(scope="module")
def stored(day, tmp_path_factory):
    """The same day written with the pipeline's default plan and read back by the notebook's loader."""
    path = tmp_path_factory.mktemp("campaign") / "r2_d5_fault.nc"
    write_recording(apply_storage(day, T.storage("analysis")), path)
    return path, T.load_campaign([path])["r2_d5_fault"]


def _reads() -> set[str]:
    return set().union(*T.NOTEBOOK_READS.values())


def test_every_notebook_reading_campaign_recordings_declares_what_it_reads() -> None:
    """The notebooks that load campaign recordings (found in their code) are those of NOTEBOOK_READS."""
    users = set()
    for nb in sorted((REPO_ROOT / "notebooks" / "industrial").glob("*.ipynb")):
        code = "".join("".join(c["source"]) for c in json.loads(nb.read_text())["cells"] if c["cell_type"] == "code")
        if re.search(r"\b(campaign_datasets|load_campaign|simulate_campaign)\(", code):
            users.add(nb.stem)
    assert users and users == set(T.NOTEBOOK_READS)


def test_reduced_day_keeps_every_channel_the_notebooks_read_and_validates(day, stored) -> None:
    path, back = stored
    plan = T.storage("analysis")
    assert _reads() <= set(plan["keep"])
    assert _reads() <= set(back.data_vars)
    read_recording(path, require=sorted(_reads()))  # the schema, and the channels, by name
    # provenance and labels stay; the file says it is reduced and how to get the whole log
    for key in ("source", "seed", "robot", "truth", "config", "created", "writer", "sample_rate_hz"):
        assert back.attrs[key] == day.attrs[key], key
    assert back.attrs["source"] == "twin"
    note = json.loads(back.attrs["reduced"])
    assert T.FULL_RECORDINGS_COMMAND in note["purpose"] and "recording_storage: full" in note["purpose"]
    assert note["integer_counts"] == ["q"] and note["float32"] == []


def test_angles_are_integer_counts_read_back_bit_for_bit(day, stored) -> None:
    import h5py

    path, back = stored
    with h5py.File(path) as h:
        assert h["q"].dtype == np.int32
        assert h["q"].attrs["scale_factor"] == T.campaign_resolutions()["q"]
        assert h["tau_m"].dtype == np.float64  # not quantized by the twin: kept as it is
    for v in day.data_vars:
        assert back[v].dtype == np.float64
        np.testing.assert_array_equal(back[v].values, day[v].values)
    np.testing.assert_array_equal(back["time"].values, day["time"].values)


def test_notebook_analyses_give_the_same_numbers_on_the_stored_day(day, stored) -> None:
    """What notebook 02 computes from a recording (plateau friction, cycle-by-cycle base parameters)
    is the same, to the bit, on the stored file as on the twin's log."""
    from paperlib.estimation.thermal_monitor import analyse_recording

    _, back = stored
    jf_full, qd_full, _ = analyse_recording(day, "full")
    jf_back, qd_back, _ = analyse_recording(back, "stored")
    assert sorted(jf_full) == sorted(jf_back) and jf_full
    for j in jf_full:
        np.testing.assert_array_equal(jf_back[j].k, jf_full[j].k)
        np.testing.assert_array_equal(jf_back[j].friction_ref, jf_full[j].friction_ref)
    np.testing.assert_array_equal(qd_back, qd_full)
    arm = I.cycle_arm()
    bp = I.base_of(arm)
    t0, b0 = I.per_cycle_parameters(day, arm, bp, decimate=10)
    t1, b1 = I.per_cycle_parameters(back, arm, bp, decimate=10)
    np.testing.assert_array_equal(t1, t0)
    np.testing.assert_array_equal(b1, b0)


@pytest.mark.parametrize("channel", sorted(T.CAMPAIGN_READS))
def test_each_declared_channel_is_needed(day, channel) -> None:
    """Without any one of CAMPAIGN_READS the notebook's analyses cannot run, and its loader refuses
    the file by the channel's name."""
    from paperlib.estimation.thermal_monitor import analyse_recording
    from paperlib.recordings import require_channels

    less = day.drop_vars(channel)
    with pytest.raises((KeyError, ValueError)):
        analyse_recording(less, "less")
    with pytest.raises(KeyError):
        I.per_cycle_parameters(less, I.cycle_arm(), I.base_of(I.cycle_arm()))
    with pytest.raises(RecordingError, match=channel):
        require_channels(less, T.CAMPAIGN_READS, analysis="thermal campaign")


def test_full_storage_keeps_the_twin_log_as_it_is(day, tmp_path) -> None:
    import h5py

    plan = T.storage("full")
    assert plan["keep"] is None and plan == FULL_PLAN
    assert apply_storage(day, plan) is day
    path = write_recording(apply_storage(day, plan), tmp_path / "full.nc")
    with h5py.File(path) as h:
        assert h["q"].dtype == np.float64
    assert "reduced" not in read_recording(path).attrs
    assert T.storage_settings(None, "full")[0] == "full"


def test_full_recordings_flag_reaches_the_industrial_rules() -> None:
    from paperlib.cli import build_parser
    from paperlib.experiments.cli import snakemake_command

    cmd = snakemake_command(build_parser().parse_args(["reproduce", "industrial", "--full-recordings"]))
    over = dict(a.split("=", 1) for a in cmd[cmd.index("--config") + 1:] if "=" in a)
    assert T.storage_settings(None, over["recording_storage"]) == ("full", [])
    assert T.storage_settings(None) == ("analysis", [])  # config/industrial.yaml's default


def test_a_wrong_storage_mode_is_refused_clearly(capsys) -> None:
    assert set(KEEP_MODES) == {"analysis", "full"}
    with pytest.raises(ValueError, match=r"recording_storage must be one of \('analysis', 'full'\), not 'some'"):
        T.storage("some")
    with pytest.raises(ValueError, match="config/industrial.yaml.*not 'everything'"):
        T.storage_settings({"industrial": {"thermal_campaign": {"recording_storage": "everything"}}})
    with pytest.raises(ValueError, match="not None"):
        check_mode(None)
    with pytest.raises(SystemExit):
        T._main(["record", "--day", "r1_d1", "--output", "never.nc", "--storage", "half"])
    assert "recording_storage must be one of" in capsys.readouterr().err


def test_measured_recordings_are_never_reduced(day) -> None:
    measured = day.copy()
    measured.attrs = {**day.attrs, "source": "hardware"}
    with pytest.raises(ValueError, match="only twin recordings"):
        apply_storage(measured, T.storage("analysis"))
    assert apply_storage(measured, T.storage("full")) is measured
