"""The size of a 6-player late-game turn report as mailed (issue 19: under 150 KB; issue
38: under 60 KB), its pictures as PNG parts of the HTML part, with and without the JSON view
(SET JSON) and SET REPORT SHORT.

A bot game of six is played until its structures hold the most cards (at most 40 turns);
the report of that position to each player is composed as the service composes it.
"""

from __future__ import annotations

import email
import email.policy
import json
import random
from datetime import UTC, datetime, timedelta
from typing import Any

from pbem.bots.simulate import BotTable, seed_for
from pbem.engine.carddata import load_cardset
from pbem.engine.setup import Seat, Setup, new_game, with_options
from pbem.engine.state import GameState
from pbem.mail.compose import OutgoingMail, compose
from pbem.reports import mails as reports

NOW = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)


def late_game(players: int = 6, seed: int = 7, turns: int = 40) -> GameState:
    cards = load_cardset()
    seats = tuple(Seat(f"player{i + 1}") for i in range(players))
    setup = with_options(cards, Setup("size", seats, seed_for(seed, 0)), max_turns=turns)
    state, _ = new_game(cards, setup)
    table = BotTable(cards, state, random.Random(seed), 1_000_000)
    best, most = state, 0
    for _ in range(turns * 200):
        if table.state.phase == "over":
            break
        table.step()
        held = sum(len(p.structure) for p in table.state.players)
        if held > most:
            best, most = table.state, held
    return best


def _mail_bytes(rendered: reports.Rendered) -> bytes:
    return compose(OutgoingMail(
        to="p@example.org", from_addr="game@example.org", subject=rendered.subject,
        text=rendered.text, html=rendered.html, attachments=rendered.attachments,
        inline=rendered.inline, message_id="<size@example.org>", date=NOW))


def run() -> dict[str, Any]:
    cards = load_cardset()
    state = late_game()
    sizes = []
    figures: dict[str, list[int]] = {"full": [], "full_json": [], "short": [], "short_json": []}
    for player in state.players:
        for name, short, json_on in (("full", False, False), ("full_json", False, True),
                                     ("short", True, False), ("short_json", True, True)):
            rendered = reports.turn_report(cards, state, player.name, (), now=NOW,
                                           deadline=NOW + timedelta(days=2), short=short,
                                           json=json_on)
            raw = _mail_bytes(rendered)
            figures[name].append(len(raw))
            if name != "full":
                continue
            parts: dict[str, int] = {}
            for part in email.message_from_bytes(raw, policy=email.policy.default).walk():
                if not part.is_multipart():
                    kind = part.get_content_type()
                    parts[kind] = parts.get(kind, 0) + len(part.get_payload(decode=False))
            sizes.append({"player": player.name, "bytes": len(raw),
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
            "mails": sizes}


if __name__ == "__main__":
    print(json.dumps(run(), indent=2))
