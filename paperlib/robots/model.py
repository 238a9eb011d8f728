"""The protocol every compiled-kernel robot model satisfies, and how its state is kept.

A robot model is **immutable** (frozen dataclasses: ``with_params`` returns a copy): it holds the
known parameters, the parsed description and the id of its compiled kernels, and nothing that a
computation writes. As in pinocchio's split of ``Model`` (constant) and ``Data`` (per-call
workspace), every array a computation writes is a *workspace* owned by its caller and passed
in: the compiled kernels (``paperlib/kernels/``) write into preallocated arrays handed to them,
the controller keeps its state in the buffers of :class:`paperlib.control.controllers.Controller`
and the twin's runner in those of :class:`paperlib.twin.runner.LoopArrays` (built per run). One
model can therefore serve any number of controllers, twins and threads at once.

>>> from paperlib import robots
>>> from paperlib.robots.model import RobotModel
>>> isinstance(robots.load("five_bar"), RobotModel)
True
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

import numpy as np

from paperlib.robots.kernel_sets import KernelSet


@runtime_checkable
class RobotModel(Protocol):
    """What the generic controller step, the estimator replay and the twin runner need of a robot.

    Attributes
    ----------
    name : str
        Robot name (its data file ``data/robots/<name>.toml``; a recording's ``robot`` attribute).
    n_joints : int
        Degrees of freedom (length of ``q``).
    n_drives : int
        Drives (length of ``tau_m``).
    param_names : tuple of str
        Names of the kernel parameters, in the order of ``params``.
    params : ndarray, shape (n_params,)
        Known kernel parameters (SI).
    kernels : KernelSet
        The robot's compiled kernel set (:mod:`paperlib.robots.kernel_sets`).
    description : dict
        The parsed description (control gains, drive limits, sources).
    """

    @property
    def name(self) -> str: ...

    @property
    def n_joints(self) -> int: ...

    @property
    def n_drives(self) -> int: ...

    @property
    def param_names(self) -> tuple[str, ...]: ...

    @property
    def params(self) -> np.ndarray: ...

    @property
    def kernels(self) -> KernelSet: ...

    @property
    def description(self) -> dict[str, Any]: ...
