"""The ``rrr`` room's plan: its configuration and the parameters its notebooks get.

Configuration: ``config/rrr.yaml`` with a run configuration's ``rrr:`` section merged over it
(:func:`paperlib.experiments.kit.config.deep_merge`, checked against the room's schema).
"""

from __future__ import annotations

from typing import Any, Mapping

from paperlib.experiments.kit.registry import load_room_config
from paperlib.experiments.kit.parameters import check as check_parameters

__all__ = ["SLUG", "NOTEBOOKS", "load_config", "notebook_params"]

SLUG = "rrr"
#: The room's notebooks, in the order the pipeline runs them.
NOTEBOOKS = ("01_identification", "02_tracking")


def load_config(run_config: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """``config/rrr.yaml`` with ``run_config["rrr"]`` merged over it, checked.

    Raises
    ------
    paperlib.experiments.kit.config.ConfigError
        An unknown key or a value of the wrong type (the message names the key and the file).
    """
    cfg = load_room_config(SLUG, run_config)
    cfg.setdefault("formats", ["png", "svg"])
    cfg.setdefault("notebooks", {})
    return cfg


def notebook_params(nb: str, cfg: Mapping[str, Any], res: str, fig: str, recording: str, *, source: str = "twin",
                    archive: str | None = None) -> dict[str, Any]:
    """The papermill parameters of ``nb``: output paths, the sampling recording, then its settings.

    Parameters
    ----------
    nb : str
        One of :data:`NOTEBOOKS`.
    cfg : mapping
        :func:`load_config`.
    res, fig : str
        The room's results and figures folders.
    recording : str
        The sampling recording.
    source : {"twin", "archive"}
        Where the notebooks' own recordings come from; ``archive`` needs the release folder ``archive``.
    archive : str, optional
        The release folder (``paperlib archive pack``).
    """
    if nb not in NOTEBOOKS:
        raise ValueError(f"rrr: unknown notebook {nb!r}; known: {', '.join(NOTEBOOKS)}")
    p: dict[str, Any] = {"results_file": f"{res}/{nb}.json", "figures_dir": fig, "formats": list(cfg["formats"]),
                         "recording": recording, "source": source, "archive": archive, "results_dir": res}
    if nb == "02_tracking":
        p["identification_file"] = f"{res}/01_identification.json"
    p.update((cfg["notebooks"].get(nb) or {}))
    check_parameters(f"notebooks/{SLUG}/{nb}.ipynb", p)
    return p
