"""A fast ``dataclasses.replace`` for the engine's frozen values on its hottest paths."""

from __future__ import annotations

from typing import Any, TypeVar

T = TypeVar("T")


def evolve(value: T, **changes: Any) -> T:
    """A copy of a frozen dataclass value with some fields changed.

    Same result as ``dataclasses.replace`` for our values (plain frozen dataclasses without
    ``__post_init__``, ``__slots__`` or init-only fields), about five times faster because it
    copies the instance dictionary instead of running the frozen ``__init__``. The caller
    names real fields: an unknown name raises, as with ``replace``.
    """
    new = object.__new__(type(value))
    fields = new.__dict__
    fields.update(value.__dict__)
    for name in changes:
        if name not in fields:
            raise TypeError(f"{type(value).__name__} has no field {name!r}")
    fields.update(changes)
    return new
