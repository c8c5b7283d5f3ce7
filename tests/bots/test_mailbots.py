"""Bots that play by mail: they read their reports and write order mails a person could."""

from __future__ import annotations

import email
import email.policy
import re
from datetime import UTC, datetime
from pathlib import Path

from transcripts.harness import Mailroom

from pbem.bots.belief import belief
from pbem.bots.mailbots import BotSeat, decide, read_view
from pbem.engine.carddata import load_cardset
from pbem.engine.codec import from_json
from pbem.engine.commands import Command, WithdrawOffer
from pbem.mail.inbound import parse_mail
from pbem.orders.parse import parse_orders
from pbem.service.auth import KEY_COST
from pbem.service.bot_games import play_game
from pbem.service.model import Timing
from pbem.service.service import Service, ServiceConfig
from pbem.store.memory import MemoryStore

CARDS = load_cardset()
START = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)


def service() -> Service:
    return Service(MemoryStore(), ServiceConfig(password_cost=4))


def players(n: int) -> list[tuple[str, str]]:
    return [(f"bot{i}", f"bot{i}@example.org") for i in range(1, n + 1)]


def test_four_mail_bots_play_a_game_to_victory() -> None:
    """Every order goes through the service as mail; the game ends in a victory and the
    log replays to the final state. (The house rule of 4 groups to win keeps it short.)"""
    svc = service()
    played = play_game(svc, "bots", players(4), start=START, seed=f"{3:064x}",
                       options={"victory_groups": 4})
    assert played.outcome == "victory" and played.winners
    assert svc.replay_check("bots")
    assert played.mails_in >= played.turns  # at least one mail a turn, from the bots
    log = [from_json(Command, e["command"]) for e in svc.store.log("bots")]
    acted = {c.player for c in log if c.player not in ("*", "")}
    assert acted == {name for name, _ in players(4)}
    assert svc.service_record("bots").steps > played.turns


def test_a_mail_bot_takes_back_a_group_it_offered() -> None:
    """rulebook-en: "When two players agree to a deal, it is binding if they make the
    exchange immediately." A bot may withdraw its offer before the answer: in this seeded
    game of mail-bots one does, the service accepts its WITHDRAW OFFER, tells the receiver,
    and the log replays."""
    svc = service()
    played = play_game(svc, "bots", players(4), start=START, seed=f"{25:064x}",
                       options={"victory_groups": 6}, keep_mail=True)
    assert played.outcome == "victory" and svc.replay_check("bots")
    log = [from_json(Command, e["command"]) for e in svc.store.log("bots")]
    assert sum(isinstance(c, WithdrawOffer) for c in log) == 1
    acks = [m for m in played.outbox if b"Orders received" in m]
    assert any(b"WITHDRAW OFFER\n    OK" in m.replace(b"\r\n", b"\n") for m in acks)
    assert not [m for m in acks if b" 0 refused" not in m]
    assert any(b"withdrew the offer of" in m for m in played.outbox)


def test_a_capped_game_ends_at_the_documented_cap() -> None:
    svc = service()
    played = play_game(svc, "capped", players(3), start=START, seed="cd" * 32,
                       options={"max_turns": 4}, keep_mail=True)
    assert played.outcome == "turn cap" and played.turns == 4
    assert svc.replay_check("capped")
    refused = [m for m in played.outbox if b"Orders received" in m and b" 0 refused" not in m]
    assert not refused  # bots write orders the service accepts


def test_the_bot_mail_is_an_order_mail_a_person_could_write(tmp_path: Path) -> None:
    room = Mailroom(tmp_path)
    room.new_game("illu", [("Alice", ""), ("Bob", ""), ("Carol", "")])
    report = room.to("Carol")[-1]
    seat = BotSeat("illu", "Carol", room.passwords[("illu", "Carol")], "carol@example.org",
                   room.sender.address)
    raw = decide(CARDS, seat, [report.raw])
    assert raw is not None
    mail = parse_mail(raw)
    assert mail.sender == "carol@example.org" and mail.automatic is None
    assert mail.in_reply_to == report.raw.split(b"Message-ID: <")[1].split(b">")[0].decode()
    parsed = parse_orders(mail.text, CARDS, ("Alice", "Bob", "Carol"))
    assert not parsed.errors
    assert parsed.header.turn == room.state().seq and parsed.header.player == "Carol"
    assert parsed.orders and mail.text.rstrip().endswith("END")
    # Mail that asks nothing of the bot gets no answer.
    assert decide(CARDS, seat, [room.to("Alice")[-1].raw]) is None
    assert decide(CARDS, seat, [room.to("Carol")[0].raw]) is None  # the welcome


def test_belief_keeps_only_what_the_bot_may_know(tmp_path: Path) -> None:
    room = Mailroom(tmp_path)
    room.new_game("illu", [("Alice", ""), ("Bob", ""), ("Carol", "")])
    room.at(minutes=5)
    room.orders("Carol", "PASS")
    real = room.state()
    # Bob (the UFOs) is also told the goal dealt to him stands, in a mail without a view.
    report = [m for m in room.to("Bob") if m.view_json() is not None][-1]
    view = read_view(report.raw)
    assert view is not None and view.viewer == "Bob"
    state = belief(CARDS, view)
    assert state.player("Bob") == real.player("Bob")  # its own secrets are real
    for name in ("Alice", "Carol"):
        assert state.player(name).hand == ()  # others' hands unknown
        assert state.player(name).treasury == 0  # others' money unknown
    assert state.deck == () and state.dice.seed != real.dice.seed
    assert state.player("Bob").secret_goal == real.player("Bob").secret_goal
    assert state.uncontrolled == real.uncontrolled and state.seq == real.seq


def test_a_bot_answers_an_attack(tmp_path: Path) -> None:
    room = Mailroom(tmp_path)
    room.new_game("illu", [("Alice", ""), ("Bob", ""), ("Carol", "")])
    room.at(minutes=5)
    out = room.orders("Carol", "ATTACK Bavarian CONTROL Feminists", "END TURN")
    request = room.to("Bob", out)[0]
    assert "your answer?" in request.subject and request.view_json() is not None
    seat = BotSeat("illu", "Bob", room.passwords[("illu", "Bob")], "bob@example.org",
                   room.sender.address)
    raw = decide(CARDS, seat, [request.raw])
    assert raw is not None
    room.at(minutes=5)
    window = room.record().window
    assert window is not None and not window.answered("Bob")
    answer = room.receive(raw)
    # Accepted in full: no mail of its own (the attack's result will say so), and taken.
    assert room.to("Bob", answer) == [] and room.record().seat("Bob").folded != ()


def test_a_dropped_seat_is_played_by_a_bot(tmp_path: Path) -> None:
    """The GM lets a bot play a seat: it gets a new password, and the bot's mails go through
    the normal intake; given back, the seat gets yet another password by mail."""
    room = Mailroom(tmp_path)
    room.new_game("illu", [("Alice", ""), ("Bob", ""), ("Carol", "")],
                  timing=Timing(miss_limit=1))
    room.tick(hours=72)  # Carol misses her first turn: the GM is told
    assert room.record().seat("Carol").misses == 1
    room.at(minutes=5)
    standing = ("STANDING DEFEND ANY UPTO 2", "STANDING NEVER INTERFERE")
    room.orders("Alice", *standing, "PASS")
    room.at(minutes=5)
    room.orders("Bob", *standing, "PASS")
    assert room.state().active_player.name == "Carol"
    old = room.passwords[("illu", "Carol")]
    commits = room.store.log_length("illu")
    room.service.set_bot("illu", "Carol", True, room.now)
    room.service.process(room.now)  # the bot's answer waits in the inbox for the daemon
    out = room.collect()
    seat = room.record().seat("Carol")
    # No password in clear in the record: the hashes of the bot's one-time ones.
    assert seat.bot and seat.bot_keys and not seat.bot_password
    # The bot's own mail came in and was acknowledged like anyone's.
    acks = [m for m in room.to("Carol", out) if "Orders received" in m.subject]
    assert acks and " 0 refused" in acks[0].subject
    log = [from_json(Command, e["command"]) for e in room.store.log("illu", commits)]
    assert any(c.player == "Carol" for c in log)
    assert room.state().turn_number == 5  # Carol's turn was played and ended
    raw_seen = [m for m in room.store.inbox()]
    assert raw_seen == []
    # The dropped player's old password no longer works.
    room.at(minutes=5)
    refused = room.orders("Carol", "STATUS", password=old)
    assert "not accepted" in refused[0].text
    # Given back: a new password, mailed to the seat.
    room.service.set_bot("illu", "Carol", False, room.now)
    out = room.collect()
    welcome = [m for m in room.to("Carol", out) if "Welcome" in m.subject]
    assert len(welcome) == 1
    seat = room.record().seat("Carol")
    assert not seat.bot and seat.bot_password == "" and seat.bot_keys == ()
    assert room.record().seat("Carol").password_hash != ""
    assert room.service.replay_check("illu")


def test_bot_mail_is_plain_text_from_the_seat(tmp_path: Path) -> None:
    room = Mailroom(tmp_path)
    room.new_game("illu", [("Alice", ""), ("Bob", "")])
    first = room.state().active_player.name
    report = room.to(first)[-1]
    seat = BotSeat("illu", first, "pw", f"{first.lower()}@example.org", room.sender.address)
    raw = decide(CARDS, seat, [report.raw])
    assert raw is not None
    message = email.message_from_bytes(raw, policy=email.policy.default)
    assert message.get_content_type() == "text/plain"
    assert "X-Pbem" not in raw.decode()  # not mistaken for our own mail
    assert decide(CARDS, seat, [report.raw]) == raw  # the same mail, the same answer


def test_a_bot_seat_answers_with_keys_of_128_random_bits_hashed_cheaply() -> None:
    """Each answer of a bot seat carries a one-time key the server made: 128 random bits
    (32 hex digits), which no guessing reaches, so the record keeps a cheap hash of it
    (``KEY_COST``) where a player's password gets the site's slow one (here 4)."""
    svc = service()
    svc.create_game("g", [(name, address, "") for name, address in players(3)],
                    seed="5eed" * 16)
    svc.start_game("g", START)
    first = svc.state("g").active_player.name
    svc.set_bot("g", first, True, START)  # its answer waits in the inbox
    [waiting] = svc.store.inbox()
    key = re.search(r"PASSWORD (\S+)", svc.store.raw_mail(waiting.mail_id).decode())
    assert key is not None and re.fullmatch("[0-9a-f]{32}", key.group(1))
    keys = svc.service_record("g").seat(first).bot_keys
    assert keys[0].startswith("scrypt$4$")  # the seat's own password, nobody told
    assert all(k.startswith(f"scrypt${KEY_COST}$") for k in keys[1:]) and len(keys) >= 2
    commits = svc.store.log_length("g")
    svc.process(START)
    played = [from_json(Command, e["command"]) for e in svc.store.log("g", commits)
              if "command" in e]
    assert any(c.player == first for c in played)  # the key worked: its orders were applied
