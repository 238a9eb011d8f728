"""The one estimator protocol of :mod:`paperlib.estimation` (scikit-learn's shape).

Every estimator of the layer follows the same contract:

* **configure in** ``__init__``: hyper-parameters only, stored unchanged under the argument's
  name (so :meth:`EstimatorMixin.get_params` reads them back); no data, no learning;
* **learn in** ``fit(recording_or_arrays, ...) -> self``: the data (arrays, or a recording /
  a data object the estimator names) go in, ``self`` comes back so that
  ``Est(...).fit(...).predict(...)`` chains; an estimator whose input is a recording's channels
  as they are (the basis regression: ``q``, ``qd``, ``qdd``, ``tau_s``) takes the recording
  itself (:func:`recording_channels`); the others take what a room derives from one
  (regressor rows, drive data, warm-up runs). A recursive estimator adds
  ``partial_fit(...) -> self``, which continues from its state instead of starting afresh;
* **learned values** live in attributes whose names end in ``_`` and exist only after ``fit``
  (or after :meth:`from_json`); every estimator has at least

  - ``params_``: the estimate, ndarray (p,),
  - ``std_``: the standard deviation beside every estimate, ndarray (p,) (NaN where the data
    do not determine a value),
  - ``residual_rms_``: RMS of the fit's residual, float, in the units of what is fitted;

  where an estimator's own names came first (``theta_``, ``weights_``, ``beta_``, ``rms_``,
  EWR-RLS's ``theta``), these are the same values under the protocol's names;

* ``predict(...)``: the model's output for new inputs (the signature is the estimator's: rows,
  kinematics, a data object); before ``fit`` it raises :class:`NotFittedError`;
* ``to_json() -> dict``: a JSON-safe description (``json.dumps(d, allow_nan=False)`` works:
  NaN and inf become ``null``), and ``from_json(d)`` (a classmethod) rebuilds a fitted
  estimator from it, enough to predict (and, for the recursive EWR-RLS, to continue exactly: a
  warm start);
* ``fit`` refuses bad input with a clear :class:`ValueError`: non-finite samples, wrong shapes,
  a missing channel or field (naming it).

:class:`Estimator` is that contract as a :class:`typing.Protocol` (for type checkers and
``isinstance``); :class:`EstimatorMixin` holds the shared pieces (``get_params``, the not-fitted
check, JSON encoding); :func:`check_array` is the input check the estimators share.
:data:`ESTIMATORS` lists every estimator of the layer (``tests/contracts`` checks each
against this contract).
"""

from __future__ import annotations

import importlib
import inspect
import math
from typing import Any, Mapping, Protocol, Sequence, runtime_checkable

import numpy as np

__all__ = ["Estimator", "EstimatorMixin", "NotFittedError", "ESTIMATORS", "estimator_classes",
           "json_safe", "from_json_float", "from_json_array", "check_array", "is_recording",
           "recording_channels"]


class NotFittedError(RuntimeError, AttributeError):
    """An estimator was used (predict, to_json, ...) before ``fit`` or ``from_json``.

    An ``AttributeError`` too, so that ``hasattr(est, "params_")`` is False before ``fit``.
    """


@runtime_checkable
class Estimator(Protocol):
    """What every estimator of :mod:`paperlib.estimation` provides (see the module docstring)."""

    params_: np.ndarray
    std_: np.ndarray
    residual_rms_: float

    def get_params(self) -> dict[str, Any]:
        """The constructor's arguments as stored."""

    def fit(self, *args: Any, **kwargs: Any) -> "Estimator":
        """Learn from data; returns self."""

    def predict(self, *args: Any, **kwargs: Any) -> Any:
        """The fitted model's output."""

    def to_json(self) -> dict[str, Any]:
        """JSON-safe description of the fitted estimator."""

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> "Estimator":
        """A fitted estimator rebuilt from :meth:`to_json` output."""


#: Every estimator of the layer, ``name -> "module:Class"`` (imported on demand by
#: :func:`estimator_classes`, so that this module imports none of them).
ESTIMATORS: dict[str, str] = {
    "linear_least_squares": "paperlib.estimation.least_squares:LinearLeastSquares",
    "physical_least_squares": "paperlib.estimation.physical:PhysicalLeastSquares",
    "basis_regression": "paperlib.estimation.basis_regression:BasisRegression",
    "kostic_nls": "paperlib.estimation.nls:KosticNLS",
    "coulomb_viscous_ls": "paperlib.estimation.nls:CoulombViscousLS",
    "thermal_model": "paperlib.estimation.thermal:ThermalModel",
    "double_exponential": "paperlib.estimation.thermal:DoubleExponential",
    "ewrls": "paperlib.estimation.ewrls:EWRLS",
}


def estimator_classes() -> dict[str, type]:
    """The classes of :data:`ESTIMATORS`, imported."""
    out = {}
    for name, target in ESTIMATORS.items():
        mod, cls = target.split(":")
        out[name] = getattr(importlib.import_module(mod), cls)
    return out


def json_safe(obj: Any) -> Any:
    """``obj`` with numpy arrays and scalars as lists and numbers, tuples as lists, NaN/inf as None.

    The result passes ``json.dumps(..., allow_nan=False)``. Dict keys become ``str``.
    """
    if isinstance(obj, Mapping):
        return {str(k): json_safe(v) for k, v in obj.items()}
    if isinstance(obj, np.ndarray):
        return json_safe(obj.tolist())
    if isinstance(obj, (list, tuple)):
        return [json_safe(v) for v in obj]
    if isinstance(obj, (bool, np.bool_)):
        return bool(obj)
    if isinstance(obj, (int, np.integer)):
        return int(obj)
    if isinstance(obj, (float, np.floating)):
        x = float(obj)
        return x if math.isfinite(x) else None
    if obj is None or isinstance(obj, str):
        return obj
    raise TypeError(f"json_safe: cannot encode {type(obj).__name__}")


def from_json_float(x: Any) -> float:
    """Inverse of :func:`json_safe` for one number: ``None`` (a NaN or inf written) -> NaN."""
    return math.nan if x is None else float(x)


def from_json_array(x: Any, dtype: Any = np.float64) -> np.ndarray:
    """Inverse of :func:`json_safe` for an array: ``None`` entries -> NaN."""
    if x is None:
        return np.full(0, np.nan)
    a = np.array(x, dtype=object)
    if a.dtype == object:
        a = np.where(a == None, np.nan, a)  # noqa: E711 - elementwise comparison with None
    return np.asarray(a, dtype=dtype)


def check_array(x: Any, name: str, *, ndim: int | Sequence[int] | None = None,
                shape: Sequence[int | None] | None = None, who: str = "fit") -> np.ndarray:
    """``x`` as a float64 array, refused (``ValueError``, naming it) when non-finite or misshapen.

    Parameters
    ----------
    x : array_like
    name : str
        The argument's name, for the message.
    ndim : int or sequence of int, optional
        Accepted numbers of dimensions.
    shape : sequence of int or None, optional
        Expected shape, ``None`` for a free axis.
    who : str
        The caller, for the message (e.g. ``"LinearLeastSquares.fit"``).
    """
    if x is None:
        raise ValueError(f"{who}: {name} is missing")
    a = np.asarray(x, dtype=np.float64)
    if ndim is not None:
        allowed = (ndim,) if isinstance(ndim, int) else tuple(ndim)
        if a.ndim not in allowed:
            raise ValueError(f"{who}: {name} must have {' or '.join(map(str, allowed))} dimension(s); "
                             f"got shape {a.shape}")
    if shape is not None:
        if a.ndim != len(shape) or any(s is not None and s != d for s, d in zip(shape, a.shape)):
            want = "(" + ", ".join("N" if s is None else str(s) for s in shape) + ")"
            raise ValueError(f"{who}: {name} must have shape {want}; got {a.shape}")
    if not np.all(np.isfinite(a)):
        bad = np.argwhere(~np.isfinite(a))
        raise ValueError(f"{who}: {name} holds {len(bad)} non-finite value(s) (NaN or inf), first at "
                         f"index {tuple(int(i) for i in bad[0])}")
    return a


class EstimatorMixin:
    """Shared pieces of the protocol: ``get_params``, the not-fitted check, JSON encoding.

    A subclass names the attribute that exists only once it is fitted in ``_fitted_attr``
    (default ``"params_"``) and implements ``_to_json`` (a plain dict, numpy allowed) and
    ``from_json``; :meth:`to_json` makes ``_to_json``'s output JSON-safe.
    """

    _fitted_attr = "params_"

    def get_params(self) -> dict[str, Any]:
        """The constructor's arguments, read back from the attributes they are stored in."""
        sig = inspect.signature(type(self).__init__)
        return {k: getattr(self, k) for k, p in sig.parameters.items()
                if k != "self" and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)}

    def is_fitted(self) -> bool:
        """Whether ``fit`` (or ``from_json``) has run."""
        return hasattr(self, self._fitted_attr)

    def _check_fitted(self, what: str = "predict") -> None:
        if not self.is_fitted():
            raise NotFittedError(f"{type(self).__name__} is not fitted: call fit (or from_json) before {what}")

    def _to_json(self) -> dict[str, Any]:  # pragma: no cover - every estimator overrides it
        raise NotImplementedError

    def to_json(self) -> dict[str, Any]:
        """JSON-safe description of the fitted estimator (NaN and inf as ``null``)."""
        self._check_fitted("to_json")
        return json_safe({"estimator": type(self).__name__, **self._to_json()})


def is_recording(x: Any) -> bool:
    """Whether ``x`` is a recording (an ``xarray.Dataset`` of :mod:`paperlib.recordings`)."""
    return hasattr(x, "data_vars") and hasattr(x, "attrs")


def recording_channels(ds: Any, channels: Sequence[str], *, joint: int | None = None,
                       who: str = "fit") -> list[np.ndarray]:
    """One joint's samples of ``channels`` of a recording, each (N,) float64.

    Parameters
    ----------
    ds : xarray.Dataset
        A recording (schema 2).
    channels : sequence of str
        Channel names, e.g. ``("q", "qd", "qdd", "tau_s")``.
    joint : int, optional
        The joint's label (the ``joint`` coordinate); may be left out for a one-joint recording.
    who : str
        The analysis, for the messages.

    Raises
    ------
    paperlib.recordings.RecordingError
        A channel is missing (one line each, naming it).
    ValueError
        Several joints and none chosen, or an unknown joint.
    """
    from paperlib.recordings import require_channels

    require_channels(ds, channels, analysis=who)
    out = []
    for c in channels:
        da = ds[c]
        if "joint" in da.dims:
            labels = [int(j) for j in ds["joint"].values]
            if joint is None:
                if len(labels) != 1:
                    raise ValueError(f"{who}: the recording has joints {labels}: choose one with joint=")
                da = da.isel(joint=0)
            elif joint not in labels:
                raise ValueError(f"{who}: joint {joint} is not in the recording (joints {labels})")
            else:
                da = da.sel(joint=joint)
        out.append(check_array(da.values, c, ndim=1, who=who))
    return out
