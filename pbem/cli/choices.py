"""Option choices read from a heavier module only when needed, so that ``pbem`` starts at
once (``tests/cli/test_cli_start.py``): the values are looked up when a command line uses
the option or its help is shown, not when the command is defined."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import click

__all__ = ["LaterChoice", "alignments", "levels"]


class LaterChoice(click.Choice[str]):
    """A ``click.Choice`` among the values ``values()`` gives when first asked for."""

    def __init__(self, values: Callable[[], Sequence[str]], *,
                 case_sensitive: bool = True) -> None:
        self._values = values
        super().__init__((), case_sensitive=case_sensitive)

    @property
    def choices(self) -> tuple[str, ...]:
        return tuple(self._values())

    @choices.setter
    def choices(self, _: object) -> None:
        """Click sets the choices when it builds the type: they are ``values()``'s."""


def levels() -> Sequence[str]:
    """The bots' levels (``pbem.bots.LEVELS``)."""
    from pbem.bots import LEVELS

    return LEVELS


def alignments() -> Sequence[str]:
    """The engine's alignments (``pbem.engine.cards.ALIGNMENTS``)."""
    from pbem.engine.cards import ALIGNMENTS

    return ALIGNMENTS
