"""Measured against predicted joint torques of a run (the validation figure of an identification)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping, Sequence

import numpy as np

__all__ = ["torque_prediction_figure", "save_torque_prediction"]


def torque_prediction_figure(t: np.ndarray, measured: np.ndarray, predicted: np.ndarray, *, title: str = "",
                             rms: Sequence[float] | None = None) -> Any:
    """A matplotlib figure: one panel per joint, measured and predicted torque [N m] against time [s].

    Parameters
    ----------
    t : ndarray, shape (N,)
        Time [s].
    measured, predicted : ndarray, shape (N, n)
        Joint torques [N m].
    title : str
        Figure title (the run's name).
    rms : sequence of n float, optional
        RMS of the prediction error per joint [N m], written in each panel's label.
    """
    import matplotlib.pyplot as plt

    from paperlib.figures.io import configure

    configure()
    measured, predicted = np.atleast_2d(measured), np.atleast_2d(predicted)
    n = measured.shape[1]
    fig, axes = plt.subplots(n, 1, figsize=(7.0, 1.3 * n + 0.8), sharex=True, squeeze=False)
    for j, ax in enumerate(axes[:, 0]):
        ax.plot(t, measured[:, j], color="0.35", lw=0.8, label="measured")
        ax.plot(t, predicted[:, j], color="C3", lw=0.8, ls="--", label="predicted")
        label = f"joint {j + 1} [N m]"
        if rms is not None and rms[j] is not None:
            label += f"\nRMS err {rms[j]:.3g}"
        ax.set_ylabel(label, fontsize=7)
        ax.tick_params(labelsize=7)
    axes[0, 0].legend(fontsize=7, loc="upper right", ncol=2)
    axes[-1, 0].set_xlabel("time [s]")
    if title:
        axes[0, 0].set_title(title, fontsize=9)
    fig.tight_layout()
    return fig


def save_torque_prediction(trace: Mapping[str, Any], stem: str | Path, rms: Sequence[float] | None = None,
                           extra_provenance: Mapping[str, Any] | None = None) -> list[Path]:
    """Write the figure of one validation trace (``t``, ``measured``, ``predicted``, ``recording``,
    ``source``) as PNG with its sidecar; the footer names the data's source and the recording."""
    from paperlib.figures.io import save

    fig = torque_prediction_figure(trace["t"], trace["measured"], trace["predicted"],
                                   title=f"{trace['recording']}: measured vs predicted joint torque", rms=rms)
    prov = {"source": trace.get("source"), "recordings": [{"file": trace["recording"], "source": trace.get("source")}],
            **(extra_provenance or {})}
    return save(fig, stem, formats=("png",), provenance=prov)
