"""JSON form of engine values: frozen dataclasses of tuples, ints, strings and literals.

``to_json`` and ``from_json`` round-trip exactly: ``from_json(T, to_json(v)) == v``. Unions of
dataclasses are tagged with the class name under ``"type"`` so commands decode without knowing
their class beforehand. A class may write its own form (``__json__``, read back by its class
method ``__from_json__``): events do, see ``pbem.engine.events``.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from functools import cache
from typing import Any, Literal, TypeVar, Union, get_args, get_origin

T = TypeVar("T")

JSON = dict[str, Any] | list[Any] | str | int | float | bool | None


def type_name(cls: type) -> str:
    """The name a value of ``cls`` is written under: its class's name, or the name a renamed
    class keeps for the logs and stores written before (``LOG_NAME``, its own)."""
    return str(cls.__dict__.get("LOG_NAME", cls.__name__))


def to_json(value: Any) -> Any:
    """The JSON-ready form of an engine value."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        if _own_form(type(value)):
            return value.__json__()  # type: ignore[attr-defined]
        out: dict[str, Any] = {"type": type_name(type(value))}
        for f in init_fields(type(value)):
            out[f.name] = to_json(getattr(value, f.name))
        return out
    if isinstance(value, tuple | list):
        return [to_json(v) for v in value]
    if isinstance(value, dict):
        return {str(k): to_json(v) for k, v in value.items()}
    if value is None or isinstance(value, str | int | float | bool):
        return value
    raise TypeError(f"cannot encode {type(value).__name__} as JSON")


def from_json(cls: Any, data: Any) -> Any:
    """The value of type ``cls`` that ``to_json`` turned into ``data``."""
    origin = get_origin(cls)
    if cls is Any:
        return _thaw(data)
    if origin is Literal:
        if data not in get_args(cls):
            raise ValueError(f"{data!r} is not one of {get_args(cls)}")
        return data
    if origin in (Union, types.UnionType):
        return _from_union(get_args(cls), data)
    if origin is tuple:
        args = get_args(cls)
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(from_json(args[0], v) for v in data)
        return tuple(from_json(a, v) for a, v in zip(args, data, strict=True))
    if origin is dict or cls is dict:
        args = get_args(cls) or (str, Any)
        return {k: from_json(args[1], v) for k, v in data.items()}
    if isinstance(cls, type) and dataclasses.is_dataclass(cls):
        if _own_form(cls):
            return cls.__from_json__(data)  # type: ignore[attr-defined]
        if data.get("type", type_name(cls)) != type_name(cls):
            raise ValueError(f"expected {type_name(cls)}, got {data.get('type')}")
        hints = _hints(cls)
        kwargs = {
            f.name: from_json(hints[f.name], data[f.name])
            for f in init_fields(cls) if f.name in data
        }
        return cls(**kwargs)
    if cls in (int, str, bool, float):
        if cls is int and isinstance(data, bool):
            raise ValueError(f"expected int, got {data!r}")
        if not isinstance(data, cls):
            raise ValueError(f"expected {cls.__name__}, got {data!r}")
        return data
    if cls is type(None):
        if data is not None:
            raise ValueError(f"expected null, got {data!r}")
        return None
    raise TypeError(f"cannot decode {cls!r}")


def _from_union(options: tuple[Any, ...], data: Any) -> Any:
    if data is None and type(None) in options:
        return None
    if isinstance(data, dict) and "type" in data:
        for option in options:
            if isinstance(option, type) and type_name(option) == data["type"]:
                return from_json(option, data)
    errors = []
    for option in options:
        if option is type(None):
            continue
        try:
            return from_json(option, data)
        except (ValueError, TypeError, KeyError) as exc:
            errors.append(str(exc))
    raise ValueError(f"{data!r} matches none of {options}: {errors}")


def _thaw(data: Any) -> Any:
    """Lists become tuples so decoded values stay hashable and frozen."""
    if isinstance(data, list):
        return tuple(_thaw(v) for v in data)
    if isinstance(data, dict):
        return {k: _thaw(v) for k, v in data.items()}
    return data


@cache
def init_fields(cls: type) -> tuple[dataclasses.Field[Any], ...]:
    """The fields of a dataclass that ``to_json`` writes: those ``__init__`` takes."""
    return tuple(f for f in dataclasses.fields(cls) if f.init)


@cache
def _own_form(cls: type) -> bool:
    """Whether the class writes and reads its own JSON form."""
    return hasattr(cls, "__json__")


@cache
def _hints(cls: type) -> dict[str, Any]:
    return typing.get_type_hints(cls)
