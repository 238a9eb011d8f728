"""Where an experiment's recordings come from: ``archive``, ``twin`` or ``hardware``.

Every notebook and the pipeline take a ``source`` parameter:

``archive``
    Read recordings from files (``paperlib.recording/2``), typically listed in
    ``data/recordings/registry.toml`` or made by an earlier pipeline step.
``twin``
    Make them now with the digital twin (:func:`paperlib.twin.robots.five_bar.simulate`).
``hardware``
    Make them on the robot with ``paperlib run --rig hardware --config RIG.toml``. This needs
    a rig configuration file (``config/rig.example.toml`` documents the keys) whose EtherCAT
    interface exists on this machine. Without one, :func:`require_rig` refuses with
    :class:`RigUnavailable`: the twin is **never** used silently in place of the hardware.

A *recording spec* is a plain mapping describing one run (keys of :data:`SPEC_KEYS`,
SI units, temperatures in degC, warm-up in minutes), e.g.
``{"controller": "AC", "duration_s": 40.0, "seed": 1}``. The special key ``warm_start``
names another recording whose final estimate initialises this run's estimator.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any, Callable, Mapping

import numpy as np
import xarray as xr

from paperlib import provenance
from paperlib.experiments.kit import rig_config as kit_rig

__all__ = [
    "SOURCES",
    "SPEC_KEYS",
    "SourceError",
    "RigUnavailable",
    "check_source",
    "load_rig_config",
    "require_rig",
    "simulate_kwargs",
    "hardware_command",
    "estimator_config",
    "final_estimate",
    "twin_resolutions",
    "make_recording_now",
    "obtain_recordings",
    "registry_lookup",
    "describe_recording",
]

SOURCES = ("archive", "twin", "hardware")

#: Keys a recording spec may hold, with their meaning (SI; temperatures degC).
SPEC_KEYS: dict[str, str] = {
    "controller": "PD, CTC, AC or OPEN (switches of the paper's Fig. 1)",
    "duration_s": "run length [s]",
    "seed": "seed of the random trajectory (and of the twin's noise)",
    "model": "Table 4 friction model the online estimator fits",
    "ambient_temperature_C": "room temperature [degC] (twin only)",
    "warm_up_minutes": "minutes of the paper's warm-up motion before the run",
    "half_life_s": "EWR-RLS weighting half-life T_HL [s]",
    "lambda_reg": "EWR-RLS regularization lambda",
    "pi_pds0": "initial drive-gain estimates (default 1)",
    "pi_F0": "initial friction coefficients (default 0)",
    "friction_step": "(t_s, factor): the twin's true friction scaled from t_s on",
    "warm_start": "name of a recording whose final estimate initialises pi_pds0 and pi_F0 (switches b, c then closed from the start)",
    "closed_from_start": "switches (b), (c) closed from t = 0 (set by warm_start)",
    "P0": "initial estimator covariance (set by warm_start from the previous recording's estimator_P)",
    "description": "one line, for people",
    "archive_name": "registry name of the archived recording, if it differs from the run's name (pipeline only)",
}

#: Rig configuration keys that must be present (section, key) -- see config/rig.example.toml.
RIG_REQUIRED_KEYS: tuple[tuple[str, str], ...] = (
    ("rig", "robot"),
    ("ethercat", "interface"),
    ("imu", "udp_port"),
)


class SourceError(RuntimeError):
    """A recording cannot be obtained from the requested source."""


class RigUnavailable(SourceError, kit_rig.RigUnavailable):
    """``source = "hardware"`` was requested but no usable rig is configured or present."""


def check_source(source: str, rig_config: str | os.PathLike[str] | None = None) -> str:
    """Validate a ``source`` parameter; for ``hardware`` also check the rig (see :func:`require_rig`).

    Parameters
    ----------
    source : {"archive", "twin", "hardware"}
        Where recordings come from.
    rig_config : path-like, optional
        Rig configuration TOML (required for ``hardware``).

    Returns
    -------
    str
        ``source``, unchanged.

    Raises
    ------
    ValueError
        Unknown source.
    RigUnavailable
        ``hardware`` without a usable rig.
    """
    if source not in SOURCES:
        raise ValueError(f"source must be one of {SOURCES}, not {source!r}")
    if source == "hardware":
        require_rig(rig_config)
    return source


def load_rig_config(path: str | os.PathLike[str] | None) -> dict[str, Any]:
    """Read a 5R rig file and check its required keys (:data:`RIG_REQUIRED_KEYS`; the kit's
    :func:`~paperlib.experiments.kit.rig_config.load_rig_config`).

    Raises
    ------
    RigUnavailable
        No path, missing file, not TOML, or a required key missing.
    """
    return kit_rig.load_rig_config(path, RIG_REQUIRED_KEYS, error=RigUnavailable)


_interface_present = kit_rig.interface_present


def require_rig(path: str | os.PathLike[str] | None,
                interface_present: Callable[..., bool] = _interface_present) -> dict[str, Any]:
    """The rig configuration, if the rig can be used from this machine; otherwise refuse.

    Checks: the file exists and has the required keys; its EtherCAT interface exists here
    (``/sys/class/net/<interface>``); the kit's :func:`~paperlib.experiments.kit.rig_config.require_rig`.

    Raises
    ------
    RigUnavailable
        With a message saying what is missing and that nothing was simulated instead.
    """
    return kit_rig.require_rig(path, RIG_REQUIRED_KEYS, interface_present, error=RigUnavailable)


# --------------------------------------------------------------------------------------------
# making recordings
# --------------------------------------------------------------------------------------------

def simulate_kwargs(spec: Mapping[str, Any]) -> dict[str, Any]:
    """Keyword arguments of :func:`paperlib.twin.robots.five_bar.simulate` for a recording spec."""
    kw: dict[str, Any] = {}
    for key in ("controller", "duration_s", "seed", "model", "ambient_temperature_C", "warm_up_minutes",
                "half_life_s", "lambda_reg", "pi_pds0", "pi_F0", "closed_from_start", "P0"):
        if spec.get(key) is not None:
            kw[key] = spec[key]
    if spec.get("friction_step") is not None:
        kw["friction_step"] = tuple(float(x) for x in spec["friction_step"])
    for key in ("duration_s", "ambient_temperature_C", "warm_up_minutes", "half_life_s", "lambda_reg"):
        if key in kw:
            kw[key] = float(kw[key])
    for key in ("seed", "model"):
        if key in kw:
            kw[key] = int(kw[key])
    unknown = sorted(set(spec) - set(SPEC_KEYS))
    if unknown:
        raise ValueError(f"recording spec has unknown key(s) {unknown}; known: {sorted(SPEC_KEYS)}")
    return kw


#: Spec keys that are estimator settings (:class:`paperlib.estimation.config.EstimatorConfig` fields).
ESTIMATOR_SPEC_KEYS = ("model", "half_life_s", "lambda_reg", "pi_pds0", "pi_F0", "closed_from_start", "P0")


def estimator_config(spec: Mapping[str, Any]) -> Any:
    """The whole estimator configuration of a recording spec (warm start and its covariance included)."""
    from paperlib.estimation.config import EstimatorConfig

    kw = {k: spec[k] for k in ESTIMATOR_SPEC_KEYS if spec.get(k) is not None}
    if "model" in kw:
        kw["model"] = int(kw["model"])
    return EstimatorConfig(**kw)


def hardware_command(spec: Mapping[str, Any], rig_config: str | os.PathLike[str], output: str | os.PathLike[str],
                     python: str | None = None) -> list[str]:
    """The ``paperlib run --rig hardware`` command line that makes one recording on the robot.

    Every estimator setting of the spec goes whole through ``--estimator-config``: a JSON file
    written beside ``output`` (``<output>.estimator.json``), so a warm start carries its
    covariance ``P0`` along with ``pi_pds0``, ``pi_F0`` and ``closed_from_start``.
    """
    out = Path(output)
    est_path = out.with_name(out.name + ".estimator.json")
    est_path.parent.mkdir(parents=True, exist_ok=True)
    estimator_config(spec).write(est_path)
    return [python or sys.executable, "-m", "paperlib", "run", "--rig", "hardware", "--config", str(rig_config),
            "--controller", str(spec.get("controller", "AC")), "--duration", str(float(spec.get("duration_s", 40.0))),
            "--seed", str(int(spec.get("seed", 1))), "--output", str(output), "--estimator-config", str(est_path)]


def twin_resolutions() -> dict[str, float]:
    """Steps the 5R twin's sensors quantize to (variable -> step in its units), for lossless storage.

    ``q``: one encoder count at the joint, ``2 pi / (counts per motor rev x gear ratio)`` (as the
    twin computes it); ``tau_m``: the drive's int16 per-mille LSB, ``1e-3 x rated torque``, when the
    twin quantizes it. A step is given only when it is the same for every joint.
    :func:`paperlib.recordings.reduce_recording` checks that every value is a multiple of it.
    """
    from paperlib.robots.five_bar import FiveBar
    from paperlib.twin import drives as dr

    robot = FiveBar.default()
    counts = float(robot.description["sensors"]["encoder_counts_per_motor_rev"])
    out: dict[str, float] = {}
    enc = 2 * np.pi / (counts * robot.gear_ratios)
    if np.all(enc == enc[0]):
        out["q"] = float(enc[0])
    tp = dr.load_twin_params()
    lsb = {1e-3 * float(ax.rated_torque_Nm) for ax in tp.drive_axes}
    if tp.drive_common.quantize_torque_permille > 0.5 and len(lsb) == 1:
        out["tau_m"] = lsb.pop()
    return out


def final_estimate(ds: xr.Dataset, model: int = 3, tail_s: float = 5.0) -> tuple[list[float], list[float]]:
    """Warm-start values (pi_pds, pi_F) from a recording: the mean estimate over its last ``tail_s``.

    Uses the recorded online estimate ``pi_hat`` when its parameters are those of ``model``;
    otherwise replays the recording through the estimator (:func:`paperlib.estimation.replay.replay`).
    """
    from paperlib.friction import table4_model

    fm = table4_model(model)
    n_drv = ds.sizes["joint"]
    names = [f"pi_pds,{j}" for j in ds["joint"].values] + fm.param_names()
    if "pi_hat" in ds and "param" in ds.coords and list(ds["param"].values) == names:
        t = ds["time"].values
        sel = t >= t[-1] - tail_s
        theta = ds["pi_hat"].values[sel].mean(axis=0)
    else:
        from paperlib.estimation.replay import replay

        res = replay(ds, fm)
        h = res.history
        sel = h.t >= h.t[-1] - tail_s
        theta = h.theta[sel].mean(axis=0) if sel.any() else res.estimator.theta
    return [float(x) for x in theta[:n_drv]], [float(x) for x in theta[n_drv:]]


def make_recording_now(spec: Mapping[str, Any], *, source: str, rig_config: str | os.PathLike[str] | None = None,
                       warm_from: xr.Dataset | None = None, output: str | os.PathLike[str] | None = None,
                       progress: bool = False, store: Mapping[str, Any] | None = None,
                       twin: Mapping[str, Any] | None = None) -> xr.Dataset:
    """Make one recording from ``twin`` or ``hardware`` (writing it to ``output`` if given).

    Parameters
    ----------
    spec : mapping
        Recording spec (module docstring).
    source : {"twin", "hardware"}
    rig_config : path-like, optional
        Required for ``hardware``.
    warm_from : xarray.Dataset, optional
        Recording whose final estimate initialises the estimator (spec key ``warm_start``).
    output : path-like, optional
        Where to write the recording (``.nc``).
    progress : bool
        Print the twin's speed.
    store : mapping, optional
        What to write of a twin recording: ``{"keep": [...] | None, "float32": [...], "resolution": {...},
        "purpose": str}`` (:func:`paperlib.recordings.storage.apply_storage`; the pipeline's
        :func:`paperlib.experiments.mems.pipeline.storage`). The returned dataset is what was
        written. Hardware recordings are always written whole.
    twin : mapping, optional
        Twin only: ``twin_params`` and ``robot`` of :func:`paperlib.twin.robots.five_bar.simulate`
        (a sensitivity study's varied twin, :mod:`paperlib.experiments.mems.assumptions`);
        default the stated twin.

    Raises
    ------
    RigUnavailable
        ``hardware`` without a usable rig.
    SourceError
        The twin is not installed (``paperlib.twin.robots.five_bar`` missing), or the hardware run failed.
    """
    from paperlib.recordings.storage import apply_storage
    from paperlib.recordings import read_recording, write_recording

    spec = dict(spec)
    if warm_from is not None:
        pds, pf = final_estimate(warm_from, int(spec.get("model", 3)))
        spec["pi_pds0"], spec["pi_F0"] = pds, pf
        if "estimator_P" in warm_from.attrs:  # the estimator's internal state, saved with the estimate
            spec["P0"] = json.loads(warm_from.attrs["estimator_P"])
            spec["closed_from_start"] = True
    if source == "twin":
        try:
            from paperlib.twin.robots.five_bar import simulate
        except ImportError as exc:
            raise SourceError(f"source 'twin' needs paperlib.twin.robots.five_bar, which cannot be imported: {exc}") from exc
        extra = dict(twin or {})
        bad = sorted(set(extra) - {"twin_params", "robot"})
        if bad:
            raise ValueError(f"twin= takes twin_params and robot, not {bad}")
        ds = simulate(**simulate_kwargs(spec), progress=progress, **extra)
        ds = apply_storage(ds, store)
        if output is not None:
            write_recording(ds, output)
        return ds
    if twin:
        raise ValueError(f"twin= (a varied twin) applies to source 'twin' only, not {source!r}")
    if source == "hardware":
        require_rig(rig_config)
        out = Path(output) if output is not None else Path(tempfile.mkdtemp(prefix="paperlib_hw_")) / "run.nc"
        cmd = hardware_command(spec, rig_config, out)  # type: ignore[arg-type]
        proc = subprocess.run(cmd, cwd=provenance.REPO_ROOT)
        if proc.returncode != 0:
            raise SourceError(f"hardware run failed (exit {proc.returncode}): {' '.join(cmd)}")
        ds = read_recording(out)
        emulated = bool(load_rig_config(rig_config).get("rig", {}).get("emulated", False))
        # an emulated rig's recordings are simulated data and say so (source twin, rig emulated-hardware)
        want = "twin" if emulated else "hardware"
        if ds.attrs.get("source") != want:
            raise SourceError(f"{out}: made by the hardware command on a{'n emulated' if emulated else ' real'} rig "
                              f"but labelled source = {ds.attrs.get('source')!r} (expected {want!r})")
        return ds
    raise ValueError(f"make_recording_now makes recordings from 'twin' or 'hardware', not {source!r}")


def obtain_recordings(specs: Mapping[str, Mapping[str, Any]], *, source: str,
                      paths: Mapping[str, str | os.PathLike[str]] | None = None,
                      rig_config: str | os.PathLike[str] | None = None,
                      progress: bool = False, twin: Mapping[str, Any] | None = None,
                      obtain: Callable[[str, Callable[[], xr.Dataset]], xr.Dataset] | None = None
                      ) -> dict[str, xr.Dataset]:
    """All recordings an experiment needs, by name.

    Parameters
    ----------
    specs : mapping name -> spec
        The runs (module docstring); ``warm_start`` references are made first.
    source : {"archive", "twin", "hardware"}
        ``archive`` reads ``paths[name]`` for every name; the others make the runs now.
    paths : mapping name -> path, optional
        Recording files (required for ``archive``).
    rig_config : path-like, optional
        Rig configuration (required for ``hardware``).
    twin : mapping, optional
        ``twin_params`` and ``robot`` for every twin run (:func:`make_recording_now`).
    obtain : callable, optional
        ``obtain(name, make)`` gives each run made now (e.g. stored and read back,
        :func:`paperlib.experiments.mems.beyond.run_obtainer`); default ``make()``.

    Returns
    -------
    dict of str -> xarray.Dataset
    """
    from paperlib.recordings import read_recording

    check_source(source, rig_config)
    out: dict[str, xr.Dataset] = {}
    if source == "archive":
        paths = dict(paths or {})
        missing = [n for n in specs if n not in paths]
        if missing:
            raise SourceError(f"source 'archive' needs a recording file for {missing}; got paths for {sorted(paths)}")
        for name in specs:
            out[name] = read_recording(paths[name])
            out[name].attrs["_path"] = str(paths[name])
        return out

    def make(name: str, stack: tuple[str, ...] = ()) -> xr.Dataset:
        if name in out:
            return out[name]
        if name not in specs:
            raise SourceError(f"recording {stack[-1] if stack else name!r} warm-starts from unknown recording {name!r}")
        if name in stack:
            raise SourceError(f"warm_start cycle: {' -> '.join(stack + (name,))}")
        spec = dict(specs[name])
        warm = spec.pop("warm_start", None)
        warm_ds = make(warm, stack + (name,)) if warm else None
        spec.pop("description", None)
        run = lambda: make_recording_now(spec, source=source, rig_config=rig_config,  # noqa: E731
                                         warm_from=warm_ds, progress=progress, twin=twin)
        out[name] = obtain(name, run) if obtain is not None else run()
        return out[name]

    for name in specs:
        make(name)
    return out


def registry_lookup(name: str, registry: str | os.PathLike[str] | None = None) -> Path | None:
    """Path of the archived recording ``name`` if ``data/recordings/registry.toml`` lists it, else None."""
    from paperlib.recordings import load_recording_registry

    try:
        entries = load_recording_registry(registry)
    except Exception:  # no registry, or a broken one: the pipeline reports it through `recordings verify`
        return None
    for e in entries:
        if e.name == name:
            return e.path
    return None


def describe_recording(ds: xr.Dataset, name: str = "") -> dict[str, Any]:
    """Provenance of a recording for figure sidecars and results: name, file, source, seed, commit."""
    d: dict[str, Any] = {
        "name": name,
        "file": ds.attrs.get("_path", ""),
        "source": ds.attrs.get("source"),
        "robot": ds.attrs.get("robot"),
        "controller": ds.attrs.get("controller"),
        "seed": int(ds.attrs["seed"]) if "seed" in ds.attrs else None,
        "duration_s": float(ds["time"].values[-1] - ds["time"].values[0]) if ds.sizes.get("time") else 0.0,
        "recording_git_commit": ds.attrs.get("git_commit"),
        "recording_created": ds.attrs.get("created"),
    }
    if ds.attrs.get("twin_calibration"):  # a twin calibrated to a published quantity (issue 28) says so
        d["twin_calibration"] = json.loads(ds.attrs["twin_calibration"])
    path = d["file"]
    if path and Path(path).is_file():
        from paperlib.recordings import sha256_file

        d["sha256"] = sha256_file(path)
    return d

