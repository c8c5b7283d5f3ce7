"""Mails and text lines each player gets over whole bot games, in each setting of fewer
mails (SET MAIL FULL|DIGEST, SET REPORT FULL|SHORT; issues 22 point 5 and 38 point 3).

The same games (same seeds, same bots) are played through a ``Service`` by mail in every
setting, every player having mailed the setting first; every mail the service sends a player
is counted by its kind (told by its subject: the answers to order mails, the requests for
an answer, the attack results, the reports, the reminders, the rest), with the lines of its
text part. Prints JSON: per setting, the mails per player per turn of the game by kind (a
turn is one player's turn: 4 in a round of four players), the figures per player per game
(mean) and the longest report. Issue 38's aims: at most 2.5 mails per player per turn by
default, 1.5 on SET MAIL DIGEST. Run: ``python bench/mail_volume.py [games] [players]``.
"""

from __future__ import annotations

import email
import email.policy
import json
import sys
from collections import Counter
from datetime import UTC, datetime
from typing import Any

from pbem.service.bot_games import play_game
from pbem.service.service import Service, ServiceConfig
from pbem.store.memory import MemoryStore

START = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
SETTINGS = {
    "FULL/FULL": (),
    "DIGEST/FULL": ("SET MAIL DIGEST",),
    "FULL/SHORT": ("SET REPORT SHORT",),
    "DIGEST/SHORT": ("SET MAIL DIGEST", "SET REPORT SHORT"),
}


def kind_of(subject: str) -> str:
    """The kind of a mail by its (English) subject: the answer to an order mail, a request
    for an answer, a turn report, an attack's result, or another."""
    if "Orders received" in subject:
        return "ack"
    if "Reminder:" in subject:
        return "reminder"
    if "your answer?" in subject:
        return "request"
    if "Turn " in subject and (": your move" in subject or "'s move" in subject):
        return "report"
    if " attack" in subject or "attacks" in subject:
        return "attack_result"
    return "other"


def measure(games: int, players: int, setting: tuple[str, ...]) -> dict[str, Any]:
    mails: Counter[str] = Counter()
    lines: Counter[str] = Counter()
    report_lines: list[int] = []
    turns = 0
    for index in range(games):
        service = Service(MemoryStore(), ServiceConfig(password_cost=4))
        names = [(f"bot{i}", f"bot{i}@example.org") for i in range(players)]
        played = play_game(service, f"vol{index}", names, start=START,
                           seed=f"{index + 1:064x}", options={"victory_groups": 8},
                           keep_mail=True, first_lines=setting)
        turns += played.turns
        for raw in played.outbox:
            message = email.message_from_bytes(raw, policy=email.policy.default)
            if "example.org" not in str(message["To"]):
                continue  # the game master's
            body = message.get_body(("plain",))
            text = body.get_content() if body is not None else ""  # type: ignore[union-attr]
            count = len(str(text).splitlines())
            subject = str(message["Subject"])
            if "] Illuminati: " in subject:  # one thread per game: its title opens the text
                subject = str(text).split("\n", 1)[0]
            kind = kind_of(subject)
            mails["all"] += 1
            mails[kind] += 1
            lines["all"] += count
            lines[kind] += count
            if kind == "report":
                report_lines.append(count)
    seats = games * players
    return {
        "mails_per_player_turn": {k: round(v / turns / players, 2)
                                  for k, v in sorted(mails.items())},
        "mails_per_player": {k: round(v / seats, 1) for k, v in sorted(mails.items())},
        "text_lines_per_player": {k: round(v / seats) for k, v in sorted(lines.items())},
        "report_lines_mean": round(sum(report_lines) / max(1, len(report_lines)), 1),
        "report_lines_max": max(report_lines, default=0),
        "turns_per_game": round(turns / games, 1),
    }


def run(games: int = 3, players: int = 4) -> dict[str, Any]:
    """Every setting's figures, as ``bench/run.py`` gathers them."""
    return {"games": games, "players": players, "victory_groups": 8,
            "settings": {name: measure(games, players, lines)
                         for name, lines in SETTINGS.items()}}


if __name__ == "__main__":
    print(json.dumps(run(*map(int, sys.argv[1:3])), indent=2))
