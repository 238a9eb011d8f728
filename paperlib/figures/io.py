"""Reproducible static figures: the holoviews matplotlib backend with fixed metadata.

:func:`save` renders a holoviews object (or a matplotlib figure) and writes PNG/SVG/PDF so
that two runs on the same inputs give byte-identical files:

* ``rcParams['svg.hashsalt']`` is fixed (SVG element ids are otherwise random);
* no creation date in the metadata, unless ``SOURCE_DATE_EPOCH`` is set, in which case
  matplotlib writes that date (the reproducible-builds convention);
* no software/version string in PNG/SVG/PDF metadata (so a matplotlib patch release does not
  change every file's bytes by itself);
* fixed dpi and font settings; files are written to a temporary name and renamed.

Every figure says where its data came from: when the provenance names a ``source``, a footer
line is drawn under the plot (:data:`SOURCE_TEXT`: simulated twin data, measured data, or the
model alone) with the recordings it used, so one look at a PNG tells what it is.

Each figure also gets a sidecar ``<stem>.json`` recording what it was made from (recordings
with their source, seed and sha256, the notebook, the git commit of the code) and the
sha256 of each image file. The commit lives in the sidecar, not in the image, so an
unchanged figure stays byte-identical across commits.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any, Iterable, Mapping

__all__ = ["SVG_HASHSALT", "DEFAULT_DPI", "SOURCE_TEXT", "configure", "render", "save", "figure_metadata",
           "source_footer"]

#: How a figure's footer names the kind of data it shows.
SOURCE_TEXT = {
    "twin": "Data: digital twin (simulated, not measured)",
    "hardware": "Data: measured on the robot",
    "model": "Data: none (computed from the robot model and planner)",
    "twin+hardware": "Data: measured on the robot and simulated by the twin",
}

SVG_HASHSALT = "paperlib"
DEFAULT_DPI = 150

_configured = False


def configure() -> None:
    """Select holoviews' matplotlib backend and set the reproducibility rcParams (idempotent)."""
    global _configured
    import matplotlib

    import holoviews as hv

    if not _configured or hv.Store.current_backend != "matplotlib":
        hv.extension("matplotlib", logo=False)
        hv.Store.set_current_backend("matplotlib")
    rc = matplotlib.rcParams
    rc["svg.hashsalt"] = SVG_HASHSALT
    rc["svg.fonttype"] = "path"
    rc["pdf.fonttype"] = 42
    rc["font.family"] = "DejaVu Sans"
    rc["figure.dpi"] = DEFAULT_DPI
    rc["savefig.dpi"] = DEFAULT_DPI
    rc["path.simplify"] = True
    from paperlib.figures import style

    style.apply()  # the compendium's figure style (colour roles, legends, sizes)
    _configured = True


def figure_metadata(fmt: str) -> dict[str, Any]:
    """Metadata for ``savefig`` that carries no date (unless SOURCE_DATE_EPOCH) and no version."""
    epoch = "SOURCE_DATE_EPOCH" in os.environ
    if fmt == "png":
        return {"Software": None}
    if fmt == "svg":
        md: dict[str, Any] = {"Creator": None}
        if not epoch:
            md["Date"] = None
        return md
    if fmt == "pdf":
        md = {"Creator": None, "Producer": None}
        if not epoch:
            md["CreationDate"] = None
            md["ModDate"] = None
        return md
    return {}


def render(obj: Any):
    """A matplotlib Figure for a holoviews object (or the figure itself)."""
    import matplotlib.figure

    configure()
    if isinstance(obj, matplotlib.figure.Figure):
        return obj
    import holoviews as hv

    return hv.render(obj, backend="matplotlib")


def source_footer(provenance: Mapping[str, Any]) -> str | None:
    """The footer line for a figure's provenance (None when it names no source)."""
    source = provenance.get("source")
    if not source:
        return None
    text = SOURCE_TEXT.get(str(source), f"Data: {source}")
    recs = [r for r in provenance.get("recordings", []) or [] if isinstance(r, Mapping)]
    emulated = [r.get("rig") == "emulated-hardware" for r in recs]
    if any(emulated):  # the twin behind the real master and emulated devices: say so
        text += " through the emulated rig" if all(emulated) else " (partly through the emulated rig)"
    calibrated = [bool(r.get("twin_calibration")) for r in recs]
    if any(calibrated):  # a twin calibrated to a published quantity (issue 28): say so
        text += ", twin calibrated to the paper" if all(calibrated) else ", partly a twin calibrated to the paper"
    names = []
    for r in recs:
        label = r.get("file") or r.get("role") or r.get("name")
        if label:
            names.append(Path(str(label)).name)
    if names:
        text += " | recordings: " + ", ".join(names[:4]) + (" ..." if len(names) > 4 else "")
    nb = provenance.get("notebook")
    if nb:
        text += f" | {nb}"
    return text


def _footer_y(fig) -> float:
    """Height of the footer line in figure coordinates: the figure's bottom edge, or below whatever
    the plot draws under it (rotated tick labels, an axis label of a layout), so the footer covers
    nothing. Figures whose content stays inside the canvas keep the footer at 0."""
    try:
        from matplotlib.backend_bases import _get_renderer  # works on any canvas (holoviews' is a bare one)

        renderer = fig.canvas.get_renderer() if hasattr(fig.canvas, "get_renderer") else _get_renderer(fig)
        bottom = fig.get_tightbbox(renderer).y0 / fig.get_figheight()
    except Exception:  # no renderer for this canvas: the plain bottom edge
        return 0.0
    return min(0.0, float(bottom) - 0.005) if bottom < 0.0 else 0.0


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def save(obj: Any, path_stem: str | os.PathLike[str], formats: Iterable[str] = ("png", "svg"), *,
         dpi: int = DEFAULT_DPI, provenance: Mapping[str, Any] | None = None) -> list[Path]:
    """Render and write a figure reproducibly.

    Parameters
    ----------
    obj : holoviews object or matplotlib.figure.Figure
        What to draw.
    path_stem : path-like
        Output path without extension, e.g. ``figures/fig05_model_order``.
    formats : iterable of str
        Any of "png", "svg", "pdf".
    dpi : int
        Raster resolution [dots per inch].
    provenance : mapping, optional
        Written, with the image files' sha256, to ``<stem>.json`` (sorted keys); its
        ``source`` (and ``recordings``, ``notebook``) also go into the footer line.

    Returns
    -------
    list of Path
        The files written (images, then the sidecar if any).
    """
    import matplotlib.pyplot as plt

    fig = render(obj)
    footer = source_footer(provenance or {})
    if footer:
        fig.text(0.5, _footer_y(fig), footer, ha="center", va="top", fontsize=7, color="0.3", transform=fig.transFigure)
    stem = Path(path_stem)
    stem.parent.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    try:
        for fmt in formats:
            fmt = fmt.lower().lstrip(".")
            target = stem.with_name(stem.name + "." + fmt)
            fd, tmp = tempfile.mkstemp(prefix=f".{stem.name}.", suffix="." + fmt, dir=stem.parent)
            os.close(fd)
            try:
                fig.savefig(tmp, format=fmt, dpi=dpi, metadata=figure_metadata(fmt), bbox_inches="tight", pad_inches=0.1)
                os.chmod(tmp, 0o666 & ~_umask())
                os.replace(tmp, target)
            finally:
                if os.path.exists(tmp):
                    os.unlink(tmp)
            written.append(target)
    finally:
        plt.close(fig)
    if provenance is not None:
        side = dict(provenance)
        side["files"] = {p.name: {"sha256": _sha256(p), "bytes": p.stat().st_size} for p in written}
        sidecar = stem.with_name(stem.name + ".json")
        sidecar.write_text(json.dumps(side, indent=1, sort_keys=True, default=str) + "\n")
        written.append(sidecar)
    return written
