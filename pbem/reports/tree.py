"""A power structure as rows of an indented text tree, masters before their puppets.

Only the drawing characters are made here; every word of a row comes from the templates.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from pbem.engine.view import CardView

BRANCH, LAST, PIPE, SPACE = "├── ", "└── ", "│   ", "    "


@dataclass(frozen=True)
class TreeRow:
    """One card of the tree: ``lead`` goes before its first line, ``cont`` before the others."""

    card: CardView
    lead: str
    cont: str


def tree_rows(structure: Sequence[CardView]) -> tuple[TreeRow, ...]:
    """The cards of one structure in tree order, each with its drawing prefixes."""
    if not structure:
        return ()
    puppets: dict[str, list[CardView]] = {}
    for c in structure[1:]:
        puppets.setdefault(c.master, []).append(c)
    rows: list[TreeRow] = []

    def walk(card: CardView, lead: str, cont: str) -> None:
        children = puppets.get(card.card, [])
        rows.append(TreeRow(card, lead, cont + (PIPE if children else SPACE)))
        for i, child in enumerate(children):
            last = i == len(children) - 1
            walk(child, cont + (LAST if last else BRANCH), cont + (SPACE if last else PIPE))

    walk(structure[0], "", "")
    return tuple(rows)
