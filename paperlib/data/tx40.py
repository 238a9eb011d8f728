"""Import the public Stäubli TX40 recording (FIGAROH) into a schema-2 recording, joint side.

The published files hold motor-side angles and motor-side torques at 5 kHz (45,000 samples,
9 s). The conversion is the one stated with the data (FIGAROH's TX40 example):

- reduction ratios ``N = [32, 32, 45, -48, 45, 32]``; motor 6 turns as ``N6 (q5 + q6)`` (the
  wrist coupling), so ``q_motor = R q`` with ``R = diag(N)`` and ``R[6, 5] = N6`` (1-based);
- joint angles ``q = R^-1 q_motor``, then the modified-DH zero ``q2 -= pi/2``, ``q3 += pi/2``;
- joint torques by power balance ``tau = R^T tau_motor`` (``tau5 = 45 tau_m5 + 32 tau_m6``).

**Torque unit (an assumption).** The source does not state the unit of ``curr_data.csv``
(its name says current). We take it as motor torque in N m: (1) FIGAROH's own identification
treats it as torque and multiplies it by the ratios only; (2) at rest at the start of the
record, the converted joint torques of the gravity-loaded joints 2 and 3 agree with the
nominal URDF model's gravity torques in sign and to within tens of percent (a current in A
would be off by the torque constant, ~0.5-1.5 N m/A for drives of this size), which
``tests/layers/data/test_tx40_data.py`` checks and the notebook reports. The recording's ``tau_m``
attribute ``unit_assumption`` says so.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Mapping

import numpy as np
import xarray as xr

from paperlib.data.registry import DataError, fetch, load_dataset_registry

__all__ = ["GEAR_RATIOS", "SAMPLE_RATE_HZ", "coupling_matrix", "motor_to_joint", "import_tx40", "UNIT_ASSUMPTION"]

GEAR_RATIOS = np.array([32.0, 32.0, 45.0, -48.0, 45.0, 32.0])
SAMPLE_RATE_HZ = 5000.0
JOINT_ZERO_RAD = np.array([0.0, -np.pi / 2, np.pi / 2, 0.0, 0.0, 0.0])
UNIT_ASSUMPTION = ("curr_data.csv taken as motor-side torque in N m (the source states no unit); joint torque "
                   "tau = R^T tau_motor. Supported by FIGAROH's own use and by the static gravity check at the start "
                   "of the record (joints 2-3 agree with the nominal model in sign and magnitude).")


def coupling_matrix(ratios: np.ndarray = GEAR_RATIOS) -> np.ndarray:
    """``R`` with ``q_motor = R q``: ``diag(N)`` plus ``R[5, 4] = N[5]`` (0-based; motor 6 turns with joint 5)."""
    R = np.diag(np.asarray(ratios, dtype=np.float64))
    R[5, 4] = ratios[5]
    return R


def motor_to_joint(q_motor: np.ndarray, tau_motor: np.ndarray, ratios: np.ndarray = GEAR_RATIOS) -> tuple[np.ndarray, np.ndarray]:
    """Joint angles [rad] (with the MDH zero) and joint torques [N m] from motor-side arrays (N, 6)."""
    R = coupling_matrix(ratios)
    q = np.linalg.solve(R, np.asarray(q_motor, dtype=np.float64).T).T + JOINT_ZERO_RAD
    tau = np.asarray(tau_motor, dtype=np.float64) @ R  # row form of tau = R^T tau_m
    return q, tau


def _read_csv(path: Path) -> np.ndarray:
    try:
        with open(path) as f:
            header = f.readline().strip().split(",")
        if header != [f"Joint_{i}" for i in range(1, 7)]:
            raise DataError(f"{path}: header {header} is not Joint_1..Joint_6")
        arr = np.loadtxt(path, delimiter=",", skiprows=1, dtype=np.float64)
    except (OSError, ValueError) as exc:
        raise DataError(f"{path}: cannot read ({exc})") from None
    if arr.ndim != 2 or arr.shape[1] != 6:
        raise DataError(f"{path}: expected 6 columns, got shape {arr.shape}")
    if not np.isfinite(arr).all():
        raise DataError(f"{path}: non-finite value at row {int(np.argwhere(~np.isfinite(arr))[0, 0]) + 2}")
    return arr


def import_tx40(files: Mapping[str, Path] | None = None, mirror: str | Path | None = None) -> xr.Dataset:
    """The TX40 recording as a schema-2 dataset (``source = hardware``, joint side).

    Parameters
    ----------
    files : mapping, optional
        ``{file name: path}`` as returned by :func:`paperlib.data.fetch` (fetched if omitted).
    mirror : path, optional
        Passed to :func:`paperlib.data.fetch` when ``files`` is omitted.

    Returns
    -------
    xarray.Dataset
        ``q`` [rad] and ``tau_m`` [N m, side = joint] on (time, joint 1..6), with the origin,
        licence, checksums and conversion in the attributes.
    """
    from paperlib.recordings import from_arrays

    files = dict(files) if files is not None else fetch("tx40", mirror=mirror)
    ds_reg = load_dataset_registry()["tx40"]
    qm = _read_csv(Path(files["pos_read_data.csv"]))
    tm = _read_csv(Path(files["curr_data.csv"]))
    if qm.shape != tm.shape:
        raise DataError(f"{files['pos_read_data.csv']} and {files['curr_data.csv']}: different lengths {qm.shape[0]} vs {tm.shape[0]}")
    q, tau = motor_to_joint(qm, tm)
    conversion = ("q = R^-1 q_motor with R = diag(N) + (R[6,5] = N6), N = [32, 32, 45, -48, 45, 32]; then q2 -= pi/2, "
                  "q3 += pi/2 (modified-DH zero); tau = R^T tau_motor")
    attrs = {
        "origin": ds_reg.origin,
        "origin_url": ds_reg.base_url,
        "licence": ds_reg.licence,
        "dataset": "tx40",
        "source_files_sha256": json.dumps(ds_reg.files, sort_keys=True),
        "conversion": conversion,
        "description": ds_reg.title,
    }
    ds = from_arrays(q, sample_rate_hz=SAMPLE_RATE_HZ, robot="tx40", source="hardware", channels={"tau_m": tau},
                     torque_side="joint", writer="paperlib.data.tx40 (import of the FIGAROH TX40 files)",
                     controller="unknown (Staubli CS8 controller, excitation trajectory)", attrs=attrs)
    ds["tau_m"].attrs["unit_assumption"] = UNIT_ASSUMPTION
    return ds
