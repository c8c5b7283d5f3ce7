"""The size of a 6-player late-game turn report as mailed (issue 19: under 150 KB; issue
38: under 60 KB), its pictures as PNG parts of the HTML part, with and without the JSON view
(SET JSON) and SET REPORT SHORT.

A bot game of six is played until its structures hold the most cards (at most 40 turns);
the report of that position to each player is composed as the service composes it: as the
next report of a reader whose last one went a whole round before (the pictures of the other
players' structures unchanged since then but for their money left out, as the service does:
``Seat.pictured``), and as a first report, every picture in it ("first_*").
"""

from __future__ import annotations

import email
import email.policy
import json
from datetime import UTC, datetime, timedelta
from typing import Any

from pbem.bots.simulate import busiest_position
from pbem.engine.carddata import load_cardset
from pbem.engine.state import GameState
from pbem.mail.compose import OutgoingMail, compose
from pbem.reports import mails as reports

NOW = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)


def late_game(players: int = 6, seed: int = 7, turns: int = 40) -> GameState:
    return late_game_and_round_before(players, seed, turns)[0]


def late_game_and_round_before(players: int = 6, seed: int = 7,
                               turns: int = 40) -> tuple[GameState, GameState]:
    return busiest_position(load_cardset(), players, seed, turns)


def _mail_bytes(rendered: reports.Rendered) -> bytes:
    return compose(OutgoingMail(
        to="p@example.org", from_addr="game@example.org", subject=rendered.subject,
        text=rendered.text, html=rendered.html, attachments=rendered.attachments,
        inline=rendered.inline, message_id="<size@example.org>", date=NOW))


def run() -> dict[str, Any]:
    cards = load_cardset()
    state, before = late_game_and_round_before()
    sizes = []
    figures: dict[str, list[int]] = {"full": [], "full_json": [], "short": [], "short_json": [],
                                     "first_full": [], "first_full_json": []}
    for player in state.players:
        keys = reports.picture_keys(cards, before, player.name)
        unchanged = [name for name, key in reports.picture_keys(cards, state, player.name).items()
                     if keys.get(name) == key]
        for name, short, json_on in (("full", False, False), ("full_json", False, True),
                                     ("short", True, False), ("short_json", True, True),
                                     ("first_full", False, False),
                                     ("first_full_json", False, True)):
            rendered = reports.turn_report(cards, state, player.name, (), now=NOW,
                                           deadline=NOW + timedelta(days=2), short=short,
                                           json=json_on, unchanged=(
                                               () if name.startswith("first") else unchanged))
            raw = _mail_bytes(rendered)
            figures[name].append(len(raw))
            if name != "full":
                continue
            parts: dict[str, int] = {}
            for part in email.message_from_bytes(raw, policy=email.policy.default).walk():
                if not part.is_multipart():
                    kind = part.get_content_type()
                    parts[kind] = parts.get(kind, 0) + len(part.get_payload(decode=False))
            sizes.append({"player": player.name, "bytes": len(raw), "unchanged": unchanged,
                          "pictures": len(rendered.inline), "encoded_bytes_by_type": parts})
    largest = {name: round(max(values) / 1024, 1) for name, values in figures.items()}
    return {"players": len(state.players), "turn": state.turn_number,
            "cards_in_structures": sum(len(p.structure) for p in state.players),
            # The default (SET REPORT FULL, SET JSON OFF), then with SET JSON ON, then
            # SET REPORT SHORT without and with the JSON view.
            "largest_mail_kb": largest["full"],
            "largest_mail_with_json_kb": largest["full_json"],
            "largest_short_mail_kb": largest["short"],
            "largest_short_mail_with_json_kb": largest["short_json"],
            # A first report (no picture left out), without and with the JSON view.
            "largest_first_mail_kb": largest["first_full"],
            "largest_first_mail_with_json_kb": largest["first_full_json"],
            "mails": sizes}


if __name__ == "__main__":
    print(json.dumps(run(), indent=2))
