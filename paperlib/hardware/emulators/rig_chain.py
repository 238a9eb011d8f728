"""The emulated chain a rig file describes: one emulated slave per ``[[ethercat.slave]]`` table.

:func:`emulated_chain` turns a rig's expected chain (:class:`~paperlib.hardware.rig_settings.RigSettings`
``chain`` and ``axes``, from its ``[[ethercat.slave]]`` tables) into the ``chain`` list of
:func:`paperlib.hardware.emulators.devices.build_chain`: the same identities in the same wiring
order, each drive with the axes (object offsets) and velocity unit the rig file gives it, so the
master brought up against the emulators meets the chain it expects.
"""

from __future__ import annotations

from typing import Any, Sequence

from paperlib.hardware.analog_terminals import AnalogChannel
from paperlib.hardware.ethercat_config import DriveAxis, SlaveIdentity

__all__ = ["emulated_chain"]


def emulated_chain(chain: Sequence[SlaveIdentity], axes: Sequence[DriveAxis],
                   terminals: Sequence[AnalogChannel] = ()) -> list[dict[str, Any]]:
    """The emulator's chain spec for a rig's expected chain.

    Parameters
    ----------
    chain : sequence of SlaveIdentity
        The expected slaves in wiring order.
    axes : sequence of DriveAxis
        The drives' axes (each names its drive's chain position, object offset and velocity unit).
    terminals : sequence of AnalogChannel
        The analog terminals' channels: a bridge's sensor is the one its channel describes (rated
        output, rated load, zero balance), and each terminal keeps the signal (and joint) it feeds.

    Returns
    -------
    list of dict
        One ``{"type": ..., **kwargs}`` per slave: ``"ek1828"`` for the ``digital_inputs`` slave,
        ``"cst_drive"`` (with ``axis_offsets``, ``velocity_unit_counts_s`` [counts/s] and, when an axis
        runs in CSP or CSV, ``modes``: CST and those) for a drive,
        ``"el3356"`` / ``"el3202"`` for a ``bridge`` / ``rtd`` terminal
        (:mod:`paperlib.hardware.emulators.terminals`).

    Raises
    ------
    ValueError
        A slave with no role (no emulator stands in for it yet), or a drive whose axes have
        different velocity units (the emulated drive has one).
    """
    out: list[dict[str, Any]] = []
    for pos, ident in enumerate(chain):
        spec: dict[str, Any] = {"name": ident.name, "vendor_id": ident.vendor_id, "product_code": ident.product_code}
        if ident.revision is not None:
            spec["revision"] = ident.revision
        if ident.role == "digital_inputs":
            out.append({"type": "ek1828", **spec})
        elif ident.role == "drive":
            mine = [ax for ax in axes if ax.slave == pos]
            units = {ax.velocity_unit_counts_s for ax in mine}
            if len(units) != 1:
                raise ValueError(f"slave {pos} ({ident.name}): its axes have velocity units {sorted(units)}; "
                                 "an emulated drive has one")
            drive = {"type": "cst_drive", **spec, "axis_offsets": [ax.offset for ax in mine],
                     "velocity_unit_counts_s": units.pop()}
            others = sorted({ax.mode for ax in mine} - {"cst"})
            if others:  # the drive offers the modes its axes run in (and CST, as every emulated drive)
                drive["modes"] = ["cst", *others]
            out.append(drive)
        elif ident.role == "bridge":
            ch = next(c for c in terminals if c.slave == pos)
            out.append({"type": "el3356", **spec, "sensitivity_mV_V": ch.rated_output_mV_V,
                        "rated_load": ch.rated_load, "zero_mV_V": ch.zero_balance_mV_V, "signal": ch.signal,
                        "joint": ch.joint})
        elif ident.role == "rtd":
            mine = sorted((c for c in terminals if c.slave == pos), key=lambda c: c.channel)
            signals = [[None, 0], [None, 0]]
            for c in mine:
                signals[c.channel] = [c.signal, c.joint]
            out.append({"type": "el3202", **spec, "signals": signals})
        else:
            raise ValueError(f"slave {pos} ({ident.describe()}) has no role: no emulated device stands in for it")
    return out
