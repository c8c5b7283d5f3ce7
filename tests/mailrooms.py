"""Games played through the transcript harness's Mailroom that several tests share: a group
offered and answered by mail, an offer in a short turn, a French player's refusals.
"""

from __future__ import annotations

from pathlib import Path

from transcripts.harness import Mailroom, Out

from pbem.service.model import Timing

PLAYERS = [("Alice", ""), ("Bob", ""), ("Carol", "")]  # the seed makes Carol play first
STANDING = ("STANDING DEFEND ANY UPTO 3", "STANDING NEVER INTERFERE")
GROUP = "Feminists"

def words(text: str | None) -> str:
    """The text with every run of blanks (wrapping, no-break spaces) as one space."""
    return " ".join((text or "").split())


def offer(room: Mailroom, *alice: str) -> Out:
    """Carol takes Feminists and gives it to Alice in one mail, the others holding standing
    answers (``alice``: Alice's settings, given with hers); gives Alice's report of the
    offer, her one mail of that step with a view attached (the attack's result has none)."""
    room.new_game("illu", PLAYERS)
    room.at(minutes=5)
    room.orders("Alice", *STANDING, *alice)
    room.at(minutes=5)
    room.orders("Bob", *STANDING)
    room.at(minutes=5)
    out = room.orders("Carol", "ATTACK Bavarian CONTROL Feminists SPEND 1 UPTO 3",
                      f"GIVE {GROUP} TO Alice")
    state = room.state()
    assert state.offer is not None and (state.offer.receiver, state.offer.group) == (
        "Alice", GROUP)
    reports = [m for m in room.to("Alice", out) if m.view_json() is not None]
    assert len(reports) == 1
    return reports[0]


def form_lines(mail: Out) -> list[str]:
    """The order form closing a report: from its GAME line to its END line."""
    lines = mail.text.splitlines()
    start = max(i for i, line in enumerate(lines) if line.startswith("GAME "))
    return lines[start:lines.index("END", start) + 1]


def reply(room: Mailroom, player: str, mail: Out, choice: str) -> list[Out]:
    """The report's order form mailed back as a player fills it in: the password written in,
    the # taken off the line ``choice``; gives the mails sent in answer."""
    password = room.passwords[("illu", player)]
    body = [line.replace("PASSWORD ______", f"PASSWORD {password}")
            for line in form_lines(mail)]
    assert f"# {choice}" in body, body
    body = [choice if line == f"# {choice}" else line for line in body]
    return room.mail(player, "\n".join(body) + "\n")


def reminders(mails: list[Out]) -> list[str]:
    return [m.to.split("@")[0] for m in mails if "Reminder" in m.subject]


def offered_in_a_short_turn(tmp_path: Path) -> Mailroom:
    """Carol's turn lasts 12 hours, until midnight; she takes Feminists and gives it to
    Alice at 12:05: the answer is due when the turn ends, before the response deadline."""
    room = Mailroom(tmp_path)
    room.new_game("illu", PLAYERS, timing=Timing(orders_hours=12, response_hours=24))
    room.at(minutes=5)
    room.orders("Carol", "ATTACK Bavarian CONTROL Feminists SPEND 1 UPTO 3")
    room.orders("Alice", "NO RESPONSE")
    room.orders("Bob", "NO RESPONSE")
    room.orders("Carol", f"GIVE {GROUP} TO Alice")
    return room


def french_room(tmp_path: Path) -> Mailroom:
    room = Mailroom(tmp_path)
    room.new_game("illu", [("Alice", "The Network"), ("Bob", "The Gnomes of Zurich")])
    room.orders("Alice", "SET LANGUAGE FR")
    return room


def refusals_said(text: str) -> list[str]:
    """The reasons and suggestions of an acknowledgement, one line each (no-break spaces
    read as spaces)."""
    said: list[str] = []
    going = False
    for line in text.replace("\xa0", " ").splitlines():
        if line.strip().startswith(("REFUS", "Essayez", "Try")):
            said.append(line.strip())
            going = True
        elif going and line.startswith("    ") and not line.startswith("    OK"):
            said[-1] += " " + line.strip()
        else:
            going = False
    return said
