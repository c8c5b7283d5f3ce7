"""Power structure geometry: cards on a grid, arrows that must face, no overlaps.

Every card fills one grid cell. A puppet sits in the cell its master's outgoing arrow points
at, turned so that its single incoming arrow faces that arrow ("It does not matter if a card is
upside-down or sideways, as long as the arrows line up properly"). An outgoing arrow is open
when the cell it points at is empty: a card there, puppet or not, uses or blocks it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from pbem.engine.cards import CardSet, Side
from pbem.engine.state import Player, Slot
from pbem.engine.values import evolve

# Absolute directions: 0 up, 1 right, 2 down, 3 left.
STEP: tuple[tuple[int, int], ...] = ((0, -1), (1, 0), (0, 1), (-1, 0))
DIRECTION_NAMES: tuple[str, ...] = ("top", "right", "bottom", "left")


def sides(cards: CardSet, card: str) -> tuple[Side, Side, Side, Side]:
    """The printed sides of a card (top, right, bottom, left)."""
    return cards.card(card).sides  # type: ignore[union-attr]


def facing(slot: Slot, side: int) -> int:
    """The absolute direction printed side ``side`` of a placed card faces."""
    return (side + slot.rotation) % 4


def neighbour(slot: Slot, direction: int) -> tuple[int, int]:
    dx, dy = STEP[direction]
    return slot.x + dx, slot.y + dy


def occupied(structure: Iterable[Slot]) -> set[tuple[int, int]]:
    return {(s.x, s.y) for s in structure}


def out_directions(cards: CardSet, slot: Slot) -> list[int]:
    """Absolute directions of a placed card's outgoing arrows, in direction order."""
    printed = sides(cards, slot.card)
    return sorted(facing(slot, i) for i, side in enumerate(printed) if side == "out")


def open_arrows(cards: CardSet, player: Player, card: str) -> list[int]:
    """Directions of the card's outgoing arrows whose neighbouring cell is empty."""
    slot = player.slot(card)
    if slot is None:
        return []
    taken = occupied(player.structure)
    return [d for d in out_directions(cards, slot) if neighbour(slot, d) not in taken]


def puppet_slot(cards: CardSet, master: Slot, direction: int, card: str, treasury: int) -> Slot:
    """Where ``card`` goes when it hangs from ``master``'s arrow pointing at ``direction``."""
    incoming = sides(cards, card).index("in")
    x, y = neighbour(master, direction)
    rotation = ((direction + 2) - incoming) % 4
    return Slot(card=card, x=x, y=y, rotation=rotation, master=master.card, treasury=treasury)


def arrow_of(master: Slot, puppet: Slot) -> int:
    """The direction from master to puppet."""
    return STEP.index((puppet.x - master.x, puppet.y - master.y))


def puppets(player: Player, card: str) -> list[Slot]:
    """Direct puppets of ``card``."""
    return [s for s in player.structure if s.master == card]


def subtree(player: Player, card: str) -> list[Slot]:
    """``card`` and everything below it, masters before puppets."""
    root = player.slot(card)
    if root is None:
        return []
    out = [root]
    i = 0
    while i < len(out):
        out.extend(puppets(player, out[i].card))
        i += 1
    return out


def depth(player: Player, card: str) -> int:
    """How many steps ``card`` is from its Illuminati (Illuminati 0, adjacent 1...)."""
    masters = {s.card: s.master for s in player.structure}
    steps = 0
    current: str | None = card
    while current is not None and masters.get(current) is not None:
        current = masters[current]
        steps += 1
    return steps


def remove(player: Player, cards_out: Iterable[str]) -> Player:
    """The player without the named slots."""
    gone = set(cards_out)
    return evolve(player, structure=tuple(s for s in player.structure if s.card not in gone))


def attach(
    cards: CardSet,
    player: Player,
    master: str,
    direction: int,
    moving: Sequence[Slot],
) -> tuple[Player, list[Slot]]:
    """Hang a group and its puppets (``moving``, root first) from ``master`` at ``direction``.

    Puppets keep their places relative to their own master where they fit. One that would
    overlap is moved to another open arrow of the same master if there is one; otherwise it
    and its own puppets are lost. Gives the new player and the slots that could not be
    placed (to become uncontrolled). The root's cell must be free.
    """
    master_slot = player.slot(master)
    if master_slot is None:
        raise ValueError(f"{master} is not in {player.name}'s power structure")
    root = moving[0]
    children: dict[str, list[Slot]] = {}
    for s in moving[1:]:
        children.setdefault(s.master or "", []).append(s)

    placed: list[Slot] = list(player.structure)
    taken = occupied(placed)
    new_root = puppet_slot(cards, master_slot, direction, root.card, root.treasury)
    if (new_root.x, new_root.y) in taken:
        raise ValueError(f"{master}'s {DIRECTION_NAMES[direction]} arrow is not open")
    lost: list[Slot] = []

    def place(old: Slot, new: Slot) -> None:
        placed.append(new)
        taken.add((new.x, new.y))
        pending = children.get(old.card, [])
        # A puppet first tries the arrow it used before, turned with its master.
        turn = (new.rotation - old.rotation) % 4
        wanted = [(child, (arrow_of(old, child) + turn) % 4) for child in pending]
        leftover: list[Slot] = []
        for child, d in wanted:
            spot = puppet_slot(cards, new, d, child.card, child.treasury)
            if (spot.x, spot.y) in taken:
                leftover.append(child)
            else:
                place(child, spot)
        for child in leftover:
            free = [d for d in out_directions(cards, new) if neighbour(new, d) not in taken]
            if free:
                place(child, puppet_slot(cards, new, free[0], child.card, child.treasury))
            else:
                lost.extend(_descendants(child, children))

    place(root, new_root)
    return evolve(player, structure=tuple(placed)), lost


def _descendants(root: Slot, children: dict[str, list[Slot]]) -> list[Slot]:
    out = [root]
    for child in children.get(root.card, []):
        out.extend(_descendants(child, children))
    return out


def overlaps(structure: Sequence[Slot]) -> bool:
    """True when two cards share a cell."""
    return len(occupied(structure)) != len(structure)


def well_formed(cards: CardSet, player: Player) -> list[str]:
    """What is wrong with a structure's geometry (empty when it is sound)."""
    problems: list[str] = []
    if overlaps(player.structure):
        problems.append(f"{player.name}: two cards overlap")
    by_card = {s.card: s for s in player.structure}
    for s in player.structure[1:]:
        master = by_card.get(s.master or "")
        if master is None:
            problems.append(f"{player.name}: {s.card} has no master in the structure")
            continue
        d = STEP.index((s.x - master.x, s.y - master.y)) if (
            (s.x - master.x, s.y - master.y) in STEP
        ) else None
        if d is None or d not in out_directions(cards, master):
            problems.append(f"{player.name}: {s.card} is not on an outgoing arrow of {master.card}")
            continue
        incoming = sides(cards, s.card).index("in")
        if facing(s, incoming) != (d + 2) % 4:
            problems.append(f"{player.name}: {s.card}'s incoming arrow does not face its master")
    return problems
