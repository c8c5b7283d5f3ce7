"""``pbem cards``: lists the card set, as an aligned table or as JSON."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import TYPE_CHECKING

import click

from pbem.cli.choices import LaterChoice, alignments
from pbem.errors import CardDataError, PbemError

if TYPE_CHECKING:
    from pbem.engine.cards import Card, CardSet, Illuminati

__all__ = ["card_record", "cards"]

_KINDS = ("illuminati", "group", "special")


@click.command("cards")
@click.option(
    "--kind", type=click.Choice(_KINDS, case_sensitive=False), help="Only cards of this kind."
)
@click.option(
    "--alignment",
    type=LaterChoice(alignments, case_sensitive=False),
    help="Only groups with this alignment (Media: the groups that gain it with media_alignment).",
)
@click.option("--name", "query", metavar="TEXT", help="One card; any unambiguous spelling.")
@click.option("--json", "as_json", is_flag=True, help="Every field of every card, as JSON.")
@click.option(
    "--data",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="Read and check this card file instead of the one shipped with pbem, or a card "
    "pack (a file with a [pack] table: the set a game created with --cards FILE plays with).",
)
def cards(
    kind: str | None, alignment: str | None, query: str | None, as_json: bool, data: Path | None
) -> None:
    """List the Illuminati, groups and special cards."""
    from pbem.engine.carddata import load_cardset, read_pack, with_pack
    from pbem.orders.names import NameMatcher

    try:
        text = data.read_text(encoding="utf-8") if data is not None else ""
        if text.lstrip().startswith("[pack]") or "\n[pack]" in text:
            cardset = with_pack(load_cardset(), read_pack(text, str(data)), str(data))
        else:
            cardset = load_cardset(data)
    except (OSError, UnicodeDecodeError) as exc:
        raise click.ClickException(f"cannot read {data}: {exc}") from exc
    except CardDataError as exc:
        raise click.ClickException(str(exc)) from exc
    listed = [card for card in _all_cards(cardset) if _fits(card, kind, alignment)]
    if query is not None:
        # Matching among the cards the other filters left makes "--kind illuminati
        # --name society" mean The Society of Assassins rather than being ambiguous.
        matcher = NameMatcher((c.name for c in listed), aliases=cardset.aliases())
        try:
            name = matcher.match(query)
        except PbemError as exc:
            raise click.BadParameter(str(exc), param_hint="--name") from exc
        listed = [c for c in listed if c.name == name]
    if as_json:
        click.echo(json.dumps([card_record(c) for c in listed], indent=2, ensure_ascii=False))
        return
    if not listed:
        click.echo("No card matches these filters.")
        return
    click.echo(_table(listed))
    click.echo(_count_line(listed))


def card_record(card: Card) -> dict[str, object]:
    """Gives every field of ``card`` as JSON-ready data, its kind first."""
    return {"kind": card.kind, **dataclasses.asdict(card)}


def _all_cards(cardset: CardSet) -> list[Card]:
    return [*cardset.illuminati, *cardset.groups, *cardset.specials]


def _fits(card: Card, kind: str | None, alignment: str | None) -> bool:
    from pbem.engine.cards import Group

    if kind is not None and card.kind != kind.lower():
        return False
    if alignment is None:
        return True
    if not isinstance(card, Group):
        return False  # only groups have alignments
    return alignment in card.alignments or (alignment == "Media" and card.media)


def _row(card: Card) -> tuple[str, ...]:
    from pbem.engine.cards import Illuminati, Special

    if isinstance(card, Special):
        kind = "special" if card.copies == 1 else f"special x{card.copies}"
        return (card.name, kind, "", "-", "-", "-", card.text)
    power = str(card.power) if card.transferable == 0 else f"{card.power}/{card.transferable}"
    income = str(card.income)
    if isinstance(card, Illuminati):
        return (card.name, "illuminati", "", power, "-", income, _illuminati_text(card))
    alignments = "/".join(card.alignments) or "none"
    if card.media:
        alignments += " (Media)"
    return (card.name, "group", alignments, power, str(card.resistance), income, card.ability_text)


def _illuminati_text(card: Illuminati) -> str:
    return f"{card.ability_text}. Goal: {card.goal_text}"


def _table(listed: list[Card]) -> str:
    header = ("NAME", "KIND", "ALIGNMENTS", "POWER", "RES", "INCOME", "ABILITY")
    rows = [header, *(_row(card) for card in listed)]
    widths = [max(len(row[i]) for row in rows) for i in range(len(header) - 1)]
    numeric = {3, 4, 5}  # power, resistance, income read best right-aligned
    lines = []
    for row in rows:
        cells = [
            cell.rjust(width) if i in numeric and row is not header else cell.ljust(width)
            for i, (cell, width) in enumerate(zip(row, widths, strict=False))
        ]
        lines.append("  ".join([*cells, row[-1]]).rstrip())
    return "\n".join(lines)


def _count_line(listed: list[Card]) -> str:
    from pbem.engine.cards import Group, Illuminati, Special

    illuminati = sum(1 for c in listed if isinstance(c, Illuminati))
    groups = sum(1 for c in listed if isinstance(c, Group))
    specials = [c for c in listed if isinstance(c, Special)]
    copies = sum(c.copies for c in specials)
    parts = []
    if illuminati:
        parts.append(f"{illuminati} Illuminati")
    if groups:
        parts.append(f"{groups} group{'s' if groups != 1 else ''}")
    if specials:
        kinds = f" ({len(specials)} kinds)" if copies != len(specials) else ""
        parts.append(f"{copies} special card{'s' if copies != 1 else ''}{kinds}")
    return ", ".join(parts) + "."
