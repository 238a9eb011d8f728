"""The emulated chain a rig file describes: one emulated slave per ``[[ethercat.slave]]`` table.

:func:`emulated_chain` turns a rig's expected chain (:class:`~paperlib.hardware.rig_settings.RigSettings`
``chain`` and ``axes``, from its ``[[ethercat.slave]]`` tables) into the ``chain`` list of
:func:`paperlib.hardware.emulators.devices.build_chain`: the same identities in the same wiring
order, each drive with the axes (object offsets) and velocity unit the rig file gives it, so the
master brought up against the emulators meets the chain it expects.
"""

from __future__ import annotations

from typing import Any, Sequence

from paperlib.hardware.ethercat_config import DriveAxis, SlaveIdentity

__all__ = ["emulated_chain"]


def emulated_chain(chain: Sequence[SlaveIdentity], axes: Sequence[DriveAxis]) -> list[dict[str, Any]]:
    """The emulator's chain spec for a rig's expected chain.

    Parameters
    ----------
    chain : sequence of SlaveIdentity
        The expected slaves in wiring order.
    axes : sequence of DriveAxis
        The drives' axes (each names its drive's chain position, object offset and velocity unit).

    Returns
    -------
    list of dict
        One ``{"type": ..., **kwargs}`` per slave: ``"ek1828"`` for the ``digital_inputs`` slave,
        ``"cst_drive"`` (with ``axis_offsets`` and ``velocity_unit_counts_s`` [counts/s]) for a drive.

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
            out.append({"type": "cst_drive", **spec, "axis_offsets": [ax.offset for ax in mine],
                        "velocity_unit_counts_s": units.pop()})
        else:
            raise ValueError(f"slave {pos} ({ident.describe()}) has no role: no emulated device stands in for it")
    return out
