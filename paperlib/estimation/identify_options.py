"""The options of ``paperlib identify`` beyond the flagship paper: kinematics source, ``--model auto``, std.

``--kinematics imu`` (default) uses the recording's ``qd``/``qdd`` (the IMU's, where the robot has them);
``--kinematics encoder[:METHOD[:key=value,...]]`` derives them from the encoder angle by a causal
observer (:mod:`paperlib.estimation.encoder_kinematics`) and pairs them with the encoder and torque
of the same sample (no IMU delay). ``--model auto`` scores the candidates of
:mod:`paperlib.estimation.model_selection` and identifies with the chosen one. Every estimate gets
its standard deviation (:mod:`paperlib.estimation.uncertainty`).
"""

from __future__ import annotations

import argparse
from typing import Any

import numpy as np

__all__ = ["model_arg", "add_options", "prepare", "json_extras"]


def model_arg(text: str) -> int | str:
    """``--model`` value: a Table 4 number 1..5 or ``auto``."""
    if text == "auto":
        return "auto"
    try:
        m = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"--model takes 1..5 or auto, not {text!r}") from None
    if m not in (1, 2, 3, 4, 5):
        raise argparse.ArgumentTypeError(f"--model takes 1..5 or auto, not {text!r}")
    return m


def add_options(p: argparse.ArgumentParser) -> None:
    """Register ``--kinematics`` and ``--auto-criterion``."""
    p.add_argument("--kinematics", default="imu", metavar="imu|encoder[:METHOD]",
                   help="where qd, qdd come from: the recording's (imu, default) or a causal observer on the encoder "
                        "angle (encoder = encoder:kalman; encoder:observer; design keys after a second colon, e.g. "
                        "encoder:kalman:jerk_psd=1e5; encoder:kalman:auto estimates jerk PSD and angle noise from the recording)")
    p.add_argument("--auto-criterion", default=None, metavar="NAME",
                   help="criterion of --model auto (default bic_eff; aic, bic, aic_eff, cv, prequential)")


def prepare(args: argparse.Namespace, ds: Any, cfg: Any) -> tuple[Any, Any, int | None, dict[str, Any]]:
    """Apply ``--kinematics`` and ``--model auto``: (recording, configuration, imu delay, JSON extras)."""
    from paperlib.estimation.encoder_kinematics import parse_kinematics, with_encoder_kinematics
    from paperlib.estimation.model_selection import AUTO_CRITERION, select_friction_model

    source, method, design = parse_kinematics(getattr(args, "kinematics", None) or "imu")
    delay = args.imu_delay_cycles
    extras: dict[str, Any] = {}
    if source == "encoder":
        ds = with_encoder_kinematics(ds, method, **design)
        delay = 0 if delay is None else delay
        extras["kinematics"] = {"source": "encoder", "method": method, "design": ds.attrs["kinematics"]}
    else:
        extras["kinematics"] = {"source": "imu", "method": "the recording's qd, qdd",
                                "origin": {v: ds[v].attrs.get("origin", "?") for v in ("qd", "qdd")}}
    if getattr(args, "model", None) == "auto":
        sel = select_friction_model(ds, config=cfg, imu_delay_cycles=delay,
                                    criterion=getattr(args, "auto_criterion", None) or AUTO_CRITERION)
        cfg = cfg.replace(model=int(sel["chosen"]))
        extras["model_selection"] = sel
    return ds, cfg, delay, extras


def json_extras(res: Any, extras: dict[str, Any]) -> dict[str, Any]:
    """The JSON keys added to ``paperlib identify``'s output: std beside each estimate, kinematics, selection."""
    from paperlib.estimation.uncertainty import parameter_std

    u = parameter_std(res)
    nd = res.n_drives

    def by_joint(x: np.ndarray) -> list[list[float]]:
        out: dict[int, list[float]] = {}
        for c, (j, _, _) in enumerate(res.model.columns()):
            out.setdefault(int(j), []).append(float(x[nd + c]))
        return [out[j] for j in sorted(out)]

    d: dict[str, Any] = {
        "pi_pds_std": [float(x) for x in u["std"][:nd]],
        "pi_F_std": by_joint(u["std"]),
        "pi_pds_std_corrected": [float(x) for x in u["std_corrected"][:nd]],
        "pi_F_std_corrected": by_joint(u["std_corrected"]),
        "std_rule": u["rule"],
        "std_corrected_rule": u["corrected_rule"],
        "residual_sigma_Nm": u["sigma_Nm"],
        "residual_autocorrelation_samples": u["tau_samples"],
    }
    d.update(extras)
    return d
