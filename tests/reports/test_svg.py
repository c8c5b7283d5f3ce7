"""The power structure picture: well-formed SVG showing every card, arrow and alignment."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from dataclasses import replace

from scripted_game import CARDS, first, steps

from pbem.engine.structure import sides
from pbem.engine.view import PlayerView, view
from pbem.reports.mails import structure_pictures
from pbem.reports.svg import CARD_W, CELL_H, CELL_W, SVG_NS, structure_svg

NS = {"svg": SVG_NS}


def _biggest() -> PlayerView:
    """The largest structure of the scripted game's last position, as its owner sees it."""
    state = steps()[-1].state
    owner = max(state.players, key=lambda p: len(p.structure))
    return next(p for p in view(CARDS, state, owner.name).players if p.name == owner.name)


def _parse(svg: str) -> ET.Element:
    return ET.fromstring(svg)


def test_svg_is_well_formed_and_shows_each_card() -> None:
    """xml.etree parses it; each card is a group holding its name and its treasury."""
    player = _biggest()
    assert len(player.structure) >= 3
    root = _parse(structure_svg(player, CARDS))
    assert root.tag == f"{{{SVG_NS}}}svg"
    cards = root.findall("svg:g[@class='card']", NS)
    assert [g.get("data-card") for g in cards] == [c.card for c in player.structure]
    for g, card in zip(cards, player.structure, strict=True):
        shown = " ".join(t.text or "" for t in g.iter(f"{{{SVG_NS}}}text"))
        assert all(word in shown for word in card.card.split()), (card.card, shown)
        assert f"{card.treasury} MB" in shown


def test_every_printed_arrow_is_drawn_and_open_ones_are_marked() -> None:
    """One arrow per printed in/out side; the open outgoing ones carry the class "open"."""
    player = _biggest()
    root = _parse(structure_svg(player, CARDS))
    for g, card in zip(root.findall("svg:g[@class='card']", NS), player.structure, strict=True):
        arrows = g.findall("svg:polygon", NS)
        printed = [s for s in sides(CARDS, card.card) if s != "-"]
        assert len(arrows) == len(printed)
        assert sum("in" in a.get("class", "").split() for a in arrows) == printed.count("in")
        opened = [a for a in arrows if "open" in a.get("class", "").split()]
        assert len(opened) == len(card.open_arrows)


def test_cards_sit_on_their_grid_cells() -> None:
    """The picture is as wide and tall as the grid the structure covers."""
    player = _biggest()
    root = _parse(structure_svg(player, CARDS))
    columns = len({c.x for c in player.structure}) or 1
    width, height = int(root.get("width", "0")), int(root.get("height", "0"))
    xs = [c.x for c in player.structure]
    ys = [c.y for c in player.structure]
    assert width >= (max(xs) - min(xs) + 1) * CELL_W >= columns * CARD_W
    assert height >= (max(ys) - min(ys) + 1) * CELL_H


def test_alignments_are_visible_and_translatable() -> None:
    """Each alignment is a coloured stripe and a word; the words come from the caller."""
    player = _biggest()
    aligned = [c for c in player.structure if c.alignments]
    assert aligned
    root = _parse(structure_svg(player, CARDS, {"Weird": "Curieux", "Liberal": "Libéral",
                                                "Criminal": "Criminel"}))
    for g, card in zip(root.findall("svg:g[@class='card']", NS), player.structure, strict=True):
        stripes = [r.get("data-alignment") for r in g.findall("svg:rect[@class='alignment']",
                                                              NS)]
        assert stripes == list(card.alignments)
    text = ET.tostring(root, encoding="unicode")
    if any("Weird" in c.alignments for c in aligned):
        assert "Curieux" in text


def test_hidden_treasuries_and_odd_names_are_safe() -> None:
    """Another player's money shows as ?; a title with markup is escaped, still parses."""
    state = steps()[first("report")].state
    other = next(p for p in view(CARDS, state, "Alice").players if p.name != "Alice")
    svg = structure_svg(replace(other, name="<b>&"), CARDS, {"title": "<script>x</script>"})
    root = _parse(svg)
    assert root.find("svg:title", NS) is not None
    assert root.find("svg:title", NS).text == "<script>x</script>"  # type: ignore[union-attr]
    assert "<script>" not in svg
    assert "? MB" in svg


def test_ampersand_in_a_card_name_is_escaped() -> None:
    """A card whose name holds & (Tobacco & Liquor Companies) still gives valid XML."""
    player = _biggest()
    slot = player.structure[1]
    odd = replace(player, structure=(player.structure[0],
                                     replace(slot, card="Tobacco & Liquor Companies")))
    svg = structure_svg(odd, CARDS)
    assert "Tobacco &amp; Liquor" in svg
    assert _parse(svg).findall("svg:g[@class='card']", NS)[1].get("data-card") == (
        "Tobacco & Liquor Companies")


def test_french_pictures_keep_an_amount_and_its_unit_together() -> None:
    """French typography puts a no-break space between a number and its unit, as the
    French reports write money ("12\xa0MB"); the English pictures keep their plain space."""
    v = view(CARDS, steps()[-1].state, "Alice")
    for lang, gap in (("fr", "\xa0"), ("en", " ")):
        for name, picture in structure_pictures(CARDS, v, lang).items():
            root = _parse(str(picture))
            treasuries = [t.text or "" for t in root.iter(f"{{{SVG_NS}}}text")
                          if t.get("class") == "treasury"]
            titles = [(t.text or "").splitlines()[-1]
                      for g in root.findall("svg:g[@class='card']", NS)
                      for t in g.findall("svg:title", NS)]
            assert treasuries and titles == treasuries, (lang, name)
            for shown in treasuries:
                assert re.fullmatch(rf"(\d+|\?){gap}MB", shown), (lang, name, shown)
