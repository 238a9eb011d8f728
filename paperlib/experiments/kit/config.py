"""A room's configuration: ``config/<slug>.yaml``, one small declarative schema, one merge rule.

Every room keeps its settings in ``config/<slug>.yaml``. A run configuration
(``paperlib reproduce --config FILE``, e.g. ``config/smoke.yaml``) holds one section per room,
``<slug>:``, merged over the room's file by :func:`deep_merge` (nested mappings key by key, the
run configuration wins). The merged configuration is checked against the room's :class:`Schema`
(declared in its ``ROOM``): an unknown key, a value of the wrong type or outside the allowed
ones raises :class:`ConfigError`, whose message names the key (``notebooks.02_model_order.seed``)
and the file it came from.
"""

from __future__ import annotations

import copy
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping, Sequence

import yaml

from paperlib.provenance import REPO_ROOT

__all__ = ["ConfigError", "Key", "Schema", "deep_merge", "config_path", "read_run_config", "read_yaml"]


class ConfigError(ValueError):
    """A configuration key is unknown, missing, of the wrong type or not an allowed value."""


def deep_merge(base: Mapping[str, Any], over: Mapping[str, Any] | None) -> dict[str, Any]:
    """``over`` merged over ``base``: nested mappings key by key, anything else replaced (deep copies).

    The one merge rule of run configurations; neither argument is modified.
    """
    out = copy.deepcopy(dict(base))
    for k, v in (over or {}).items():
        if isinstance(v, Mapping) and isinstance(out.get(k), Mapping):
            out[k] = deep_merge(out[k], v)
        else:
            out[k] = copy.deepcopy(v)
    return out


_TYPE_NAMES = {bool: "a boolean", int: "an integer", float: "a number", str: "a string", list: "a list",
               dict: "a mapping", type(None): "null"}


def _is(value: Any, typ: type) -> bool:
    if typ is float:
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if typ is int:
        return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(value, typ)


@dataclass(frozen=True)
class Key:
    """One configuration key.

    Parameters
    ----------
    types : type or tuple of types
        Allowed Python types of the value after YAML parsing (``float`` accepts integers;
        ``type(None)`` allows ``null``).
    allowed : sequence, optional
        The values allowed (e.g. ``("twin", "hardware", "archive")``).
    required : bool
        The key must be present.
    schema : Schema, optional
        For a mapping: the schema of its keys.
    items : type or tuple of types, optional
        For a list: the allowed types of its items.
    values : Schema or Key, optional
        For a mapping with free keys (e.g. recordings by name): the schema of each value.
    """

    types: type | tuple[type, ...]
    allowed: Sequence[Any] | None = None
    required: bool = False
    schema: "Schema | None" = None
    items: type | tuple[type, ...] | None = None
    values: "Schema | Key | None" = None

    def check(self, value: Any, name: str, where: str) -> None:
        types = self.types if isinstance(self.types, tuple) else (self.types,)
        if not any(_is(value, t) for t in types):
            want = " or ".join(_TYPE_NAMES.get(t, t.__name__) for t in types)
            raise ConfigError(f"{where}: key {name!r} must be {want}, not {value!r}")
        if self.allowed is not None and value not in self.allowed:
            raise ConfigError(f"{where}: key {name!r} must be one of {list(self.allowed)}, not {value!r}")
        if self.items is not None and isinstance(value, list):
            its = self.items if isinstance(self.items, tuple) else (self.items,)
            for i, v in enumerate(value):
                if not any(_is(v, t) for t in its):
                    want = " or ".join(_TYPE_NAMES.get(t, t.__name__) for t in its)
                    raise ConfigError(f"{where}: key '{name}[{i}]' must be {want}, not {v!r}")
        if isinstance(value, Mapping):
            if self.schema is not None:
                self.schema.validate(value, where, prefix=f"{name}.")
            if self.values is not None:
                for k, v in value.items():
                    if isinstance(self.values, Schema):
                        if not isinstance(v, Mapping):
                            raise ConfigError(f"{where}: key '{name}.{k}' must be a mapping, not {v!r}")
                        self.values.validate(v, where, prefix=f"{name}.{k}.")
                    else:
                        self.values.check(v, f"{name}.{k}", where)


@dataclass(frozen=True)
class Schema:
    """The keys of a configuration mapping.

    Parameters
    ----------
    keys : mapping name -> Key
    open : bool
        Allow keys not listed (their values are not checked).
    """

    keys: Mapping[str, Key] = field(default_factory=dict)
    open: bool = False

    def validate(self, cfg: Mapping[str, Any], where: str = "configuration", prefix: str = "") -> None:
        """Raise :class:`ConfigError` for the first key of ``cfg`` that breaks the schema.

        Parameters
        ----------
        cfg : mapping
        where : str
            The file (or files) the configuration came from, named in the message.
        prefix : str
            Key path of ``cfg`` inside the file (``"notebooks."``).
        """
        if not isinstance(cfg, Mapping):
            raise ConfigError(f"{where}: {prefix.rstrip('.') or 'the configuration'} must be a mapping, not {cfg!r}")
        if not self.open:
            unknown = [k for k in cfg if k not in self.keys]
            if unknown:
                raise ConfigError(f"{where}: unknown key {prefix + str(unknown[0])!r}"
                                  f" (known: {', '.join(sorted(self.keys))})")
        for name, key in self.keys.items():
            if name not in cfg:
                if key.required:
                    raise ConfigError(f"{where}: key {prefix + name!r} is missing")
                continue
            key.check(cfg[name], prefix + name, where)


def config_path(slug: str) -> Path:
    """``config/<slug>.yaml`` of the repository."""
    return REPO_ROOT / "config" / f"{slug}.yaml"


def read_yaml(path: str | os.PathLike[str]) -> dict[str, Any]:
    """A YAML mapping (empty file: ``{}``); a file that is not a mapping raises :class:`ConfigError`."""
    p = Path(path)
    try:
        data = yaml.safe_load(p.read_text())
    except yaml.YAMLError as exc:
        raise ConfigError(f"{p}: not valid YAML ({exc})") from exc
    if data is None:
        return {}
    if not isinstance(data, Mapping):
        raise ConfigError(f"{p}: the file must hold a mapping, not {type(data).__name__}")
    return dict(data)


def read_run_config(path: str | os.PathLike[str] | None) -> dict[str, Any]:
    """A run configuration (``--config FILE``), or ``{}`` without one."""
    return {} if path is None else read_yaml(path)
