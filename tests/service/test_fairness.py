"""The fair order of waiting mails (issue 44, point 4; pbem.service.fairness): round robin
between games, and between senders among mail that names no game; a game's own mail in
arrival order; the turn kept across rounds cut short."""

from __future__ import annotations

import base64

from pbem.service.fairness import NO_GAME, FairOrder, Waiting, mail_queue

GAMES = {"g1": "g1", "g2": "g2"}


def _waiting(spec: str) -> list[Waiting]:
    """'g1:alice g1:bob -:spam' -> mails 0, 1, 2 (queue '-' is no game)."""
    return [Waiting(str(n), "" if queue == "-" else queue, sender)
            for n, (queue, sender) in enumerate(w.split(":") for w in spec.split())]


def test_queues_take_turns_and_a_game_keeps_its_arrival_order() -> None:
    waiting = _waiting("g1:alice g1:bob g1:alice g1:carol -:spam -:spam -:eve g2:dan")
    order = FairOrder().order(waiting, 50)
    assert [w.mail_id for w in order] == ["0", "4", "7", "1", "6", "2", "5", "3"]


def test_the_turn_is_kept_across_rounds_cut_short() -> None:
    """A round that takes one mail only (stopped by time) does not start the turn over at
    the queue of the oldest mail: the flood's game waits for the others' turn."""
    fair = FairOrder()
    waiting = _waiting("g1:a g1:a g1:a g1:a g2:dan g2:dan")
    taken: list[str] = []
    while waiting:
        first = fair.order(waiting, 50)[0]
        fair.served([first])
        taken.append(first.mail_id)
        waiting = [w for w in waiting if w != first]
    assert taken == ["0", "4", "1", "5", "2", "3"]


def test_most_bounds_the_round() -> None:
    assert len(FairOrder().order(_waiting(" ".join(["g1:a"] * 80 + ["-:b"] * 80)), 50)) == 50


def test_a_mail_queue_is_the_game_its_start_line_names_even_encoded() -> None:
    plain = b"From: a@b\r\n\r\nhello\r\n  GAME G2 PLAYER Dan PASSWORD x\r\nSTATUS\r\n"
    assert mail_queue(plain, lambda name: GAMES.get(name.casefold()), 1 << 20) == "g2"
    encoded = (b"From: a@b\r\nMIME-Version: 1.0\r\nContent-Type: text/plain\r\n"
               b"Content-Transfer-Encoding: base64\r\n\r\n"
               + base64.encodebytes(b"GAME g1 PLAYER Alice PASSWORD x\nSTATUS\n"))
    assert mail_queue(encoded, lambda name: GAMES.get(name.casefold()), 1 << 20) == "g1"
    for raw in (b"From: a@b\r\n\r\nGAME nosuch PLAYER X PASSWORD y\r\n",
                b"From: a@b\r\n\r\nLIST\r\n", b"Subject: game on\r\n\r\nbuy\r\n", b""):
        assert mail_queue(raw, lambda name: GAMES.get(name.casefold()), 1 << 20) == NO_GAME
