"""An absence never costs the player the game (docs/service.md, "Absences"): the turns a
stand-in plays (house rules ``pass`` and ``bot``) are not the player's own for elimination,
a bot standing in never gives up its seat's last group, an absent player is not asked in
response windows, and ``SET ABSENCE`` warns of what the game's policy may still cost.

Each game runs through the service by mail, the other seats played by bots of the default
level, so the whole game is played in a few steps.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest
from transcripts.harness import Mailroom

from pbem.engine.events import Eliminated
from pbem.service import gm
from pbem.service.history import read_game

CTHULHU = "The Servants of Cthulhu"
UFOS = "The UFOs"
ABSENCE = "SET ABSENCE 2026-11-29 TO 2026-12-12"  # from the start (2026-11-29 12:00 UTC)
# A seed with which, before stand-in turns were told apart, Alice was eliminated under both
# rules and with both Illuminati (the bots of the default level got her no group to keep).
SEED = "01" * 32


@pytest.fixture
def room(tmp_path: Path) -> Mailroom:
    return Mailroom(tmp_path)


def eliminated(room: Mailroom, game: str = "illu") -> list[str]:
    """The players the game's log says were eliminated, in order."""
    events = [e for entry in read_game(room.store.inner, game).log
              for e in entry.get("events", ())]
    return [e["data"]["player"] for e in events if e.get("kind") == Eliminated.kind]


def play_on(room: Mailroom, rounds: int = 6) -> None:
    """Let the bots play: every step the game's mails call for, until Alice has begun
    ``rounds`` turns, the game is over, or her absence is nearly over (the clock moves on
    six hours whenever the game waits, for a deadline or a response window)."""
    while room.now < datetime(2026, 12, 11, tzinfo=UTC):
        room.service.process(room.now)
        room.collect()
        state = room.state()
        if state.phase == "over" or state.player("Alice").turns >= rounds:
            return
        room.at(hours=6)
        room.service.tick(room.now)  # (bot seats answer: several commits, unlike a player's)


@pytest.mark.parametrize("stand_in", ["pass", "bot"])
@pytest.mark.parametrize("illuminati", [CTHULHU, UFOS])
def test_an_absence_from_the_start_never_eliminates_the_player(
        room: Mailroom, stand_in: str, illuminati: str) -> None:
    """Alice (the Servants of Cthulhu, or the UFOs who chose their goal) is away from the
    first day; the other seats are bots that play at once. Her turns pass or a bot plays
    them: none is one of her three first turns, so she is still in the game when her sixth
    turn begins, however few groups the stand-in got her."""
    room.new_game("illu", [("Alice", illuminati), ("Bob", "The Gnomes of Zurich"),
                           ("Carol", "The Network")], options={"stand_in": stand_in},
                  seed=SEED)
    goal = ["GOAL The Servants of Cthulhu"] if illuminati == UFOS else []
    out = room.orders("Alice", *goal, ABSENCE)
    assert f"{1 + len(goal)} accepted" in out[0].subject
    for seat in ("Bob", "Carol"):
        gm.set_bot(room.service, "illu", seat, True, room.now)
    play_on(room)
    state = room.state()
    assert "Alice" not in eliminated(room)
    assert state.player("Alice").playing or state.phase == "over"
    assert state.player("Alice").stood_in == state.player("Alice").turns
    for game in room.service.games():
        assert room.service.replay_check(game)


PLAYERS = [("Alice", ""), ("Bob", ""), ("Carol", "")]  # the seed: Carol plays first


def test_an_absent_player_is_not_asked_and_the_window_closes_at_once(room: Mailroom) -> None:
    """Alice is away: Carol's attack asks Bob only (Alice, with money to interfere, would be
    asked too), and closes with his answer, not at its deadline a day later."""
    room.new_game("illu", PLAYERS)
    room.orders("Alice", ABSENCE)
    out = room.orders("Carol", "ATTACK The Bavarian Illuminati CONTROL Feminists")
    assert [m.to for m in out if "your answer?" in m.subject] == ["bob@example.org"]
    window = room.record().window
    assert window is not None and window.answered("Alice") and not window.answered("Bob")
    out = room.orders("Bob", "NO RESPONSE")
    assert room.record().window is None  # settled at once
    # The attack does not touch her: its result comes with her next mail, not in one of
    # its own (tests/service/test_mail_folding.py).
    assert room.to("Alice", out) == [] and room.record().seat("Alice").untold is not None


def test_an_absence_begun_while_a_window_waits_closes_it(room: Mailroom) -> None:
    """Bob answered; Alice, asked, goes away two hours later: the window closes then (the
    tick looks at the game at the absence's start), long before its deadline."""
    room.new_game("illu", PLAYERS)
    room.orders("Alice", "SET ABSENCE 2026-11-29T14:00 TO 2026-12-03")
    room.orders("Carol", "ATTACK The Bavarian Illuminati CONTROL Feminists")
    room.orders("Bob", "NO RESPONSE")
    window = room.record().window
    assert window is not None and not window.answered("Alice")
    room.at(hours=2, minutes=1)
    room.service.tick(room.now)
    room.collect()
    assert room.record().window is None


@pytest.mark.parametrize(("stand_in", "words"), [
    ("wait", "send your orders as soon as you are back"),
    ("pass", "they do not count among your first three turns"),
    ("bot", "it never gives up your last group"),
])
def test_set_absence_warns_of_what_the_policy_may_cost(room: Mailroom, stand_in: str,
                                                       words: str) -> None:
    """The acknowledgement of SET ABSENCE says what the game's house rule does meanwhile,
    and that attacks are answered only by standing orders (none given: it says how)."""
    room.new_game("illu", PLAYERS, options={"stand_in": stand_in})
    out = room.orders("Alice", "SET ABSENCE 2026-12-01 TO 2026-12-03")
    ack = " ".join(out[0].text.split())
    assert words in ack
    assert "unless you give a standing order first, such as STANDING DEFEND ANY UPTO 3" in ack
    room.orders("Alice", "CANCEL ABSENCE ALL")
    out = room.orders("Alice", "STANDING DEFEND ANY UPTO 3",
                      "SET ABSENCE 2026-12-01 TO 2026-12-03")
    ack = " ".join(out[0].text.split())
    assert "Attacks do not wait for you: your standing orders answer them." in ack
    room.orders("Bob", "SET LANGUAGE FR")
    out = room.orders("Bob", "SET ABSENCE 2026-12-05 TO 2026-12-06")
    assert "Les attaques ne vous attendent pas" in " ".join(out[0].text.split())


def test_a_bot_standing_in_never_gives_up_its_last_group() -> None:
    """The bot seat's orders lose those that would leave it no group (dropped, given away,
    attacked to destroy, or the master of all it holds), and the card played should such an
    attack fail; while it holds another group they stand. The Servants of Cthulhu one group
    short of their goal may still destroy their last: they win so (rulebook-en,
    "Eliminating a Player")."""
    from factory import BAVARIA, CARDS, CTHULHU, GNOMES, game, place

    from pbem.engine.commands import Attack, DropGroup, EndTurn, OfferGroup, PlaySpecial
    from pbem.engine.view import view
    from pbem.orders.model import AttackOrder, ConditionalPlay
    from pbem.service.bot_seats import keeps_a_group

    state = place(game(ann=BAVARIA, bob=GNOMES), "ann", "KGB")
    state = place(state, "ann", "C.I.A.", master="KGB")
    mine = view(CARDS, state, "ann")
    destroy = AttackOrder(Attack("ann", BAVARIA, "C.I.A.", "destroy"))
    murphy = ConditionalPlay("fails", PlaySpecial("ann", "Assassination"))
    end = EndTurn("ann")
    assert keeps_a_group(mine, [DropGroup("ann", "KGB"), end]) == [end]  # C.I.A. with it
    assert keeps_a_group(mine, [DropGroup("ann", "C.I.A."), end]) == [
        DropGroup("ann", "C.I.A."), end]
    assert keeps_a_group(mine, [destroy, murphy, DropGroup("ann", "KGB"),
                                OfferGroup("ann", "KGB", "bob"), end]) == [destroy, murphy, end]
    on_kgb = AttackOrder(Attack("ann", BAVARIA, "KGB", "destroy"))
    assert keeps_a_group(mine, [DropGroup("ann", "C.I.A."), on_kgb, murphy, end]) == [
        DropGroup("ann", "C.I.A."), end]
    alone = view(CARDS, place(game(ann=CTHULHU, bob=GNOMES), "ann", "KGB"), "ann")
    last = AttackOrder(Attack("ann", CTHULHU, "KGB", "destroy"))
    assert keeps_a_group(alone, [last, end]) == [end]
    from dataclasses import replace
    seventh = place(game(ann=CTHULHU, bob=GNOMES), "ann", "KGB")
    seventh = seventh.with_player(replace(seventh.player("ann"), destroyed=7))
    assert keeps_a_group(view(CARDS, seventh, "ann"), [last, end]) == [last, end]


@pytest.mark.parametrize("stand_in", ["pass", "bot"])
def test_a_turn_begun_before_the_absence_and_passed_in_it_is_not_the_players(
        room: Mailroom, stand_in: str) -> None:
    """Bob's turn began before his absence and its deadline passes while he is away: the
    turn passes for him as a stand-in's (no miss, and not one of his three)."""
    room.new_game("illu", PLAYERS, options={"stand_in": stand_in})
    room.orders("Carol", "PASS")
    room.orders("Alice", "PASS")  # Bob's turn begins
    room.orders("Bob", "SET ABSENCE 2026-12-01 TO 2026-12-05")
    room.at(days=3, hours=1)  # past the deadline (2026-12-02 12:00), looked at only now
    room.service.tick(room.now)
    room.collect()
    bob = room.state().player("Bob")
    assert room.state().active_player.name != "Bob"
    assert (bob.turns, bob.stood_in, room.record().seat("Bob").misses) == (1, 1, 0)


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_a_bot_standing_in_plays_as_the_absent_player_would_want(room: Mailroom,
                                                                 lang: str) -> None:
    """Issue 37: Alice (the Servants of Cthulhu) is away under house rule ``bot`` while Bob
    and Carol pass their turns and answer nothing. Over her first four turns the stand-in
    keeps her standing orders, gives nothing of hers away (no group offered, no money or
    card given), spends nothing on the others' attacks and keeps her in the game; back
    (she cancels the absence), she finds a mail of what was done in her name, in her
    language."""
    from pbem.engine.codec import from_json
    from pbem.engine.commands import Command, GiveCard, GiveMoney, Interfere, OfferGroup
    from pbem.orders.format import format_order

    room.new_game("illu", [("Alice", CTHULHU), ("Bob", "The Gnomes of Zurich"),
                           ("Carol", "The Network")], options={"stand_in": "bot"}, seed=SEED)
    if lang == "fr":
        room.orders("Alice", "SET LANGUAGE FR")
    room.orders("Alice", "STANDING DEFEND ANY UPTO 3",
                "SET ABSENCE 2026-11-29 TO 2026-12-12")
    standing = [format_order(o) for o in room.record().standing_of("Alice")]
    for _ in range(200):
        room.service.process(room.now)
        room.collect()
        state, record = room.state(), room.record()
        if state.player("Alice").turns >= 5 or state.phase == "over":
            break
        window = record.window
        waiting = [p for p in ("Bob", "Carol") if window is not None
                   and p in window.asked and not window.answered(p)]
        if waiting:
            room.orders(waiting[0], "NO RESPONSE")
        elif state.offer is not None and state.offer.receiver in ("Bob", "Carol"):
            room.orders(state.offer.receiver, "DECLINE")
        elif state.active_player.name in ("Bob", "Carol") and state.phase == "actions":
            room.orders(state.active_player.name, "PASS")
        else:
            room.at(hours=1)
            room.service.tick(room.now)
    assert room.state().player("Alice").turns >= 5
    log = [from_json(Command, e["command"]) for e in room.store.log("illu") if "command" in e]
    mine = [c for c in log if getattr(c, "player", "") == "Alice"]
    assert mine, "the stand-in played Alice's turns"
    assert not [c for c in mine if isinstance(c, OfferGroup | GiveMoney | GiveCard)]
    assert not [c for c in mine if isinstance(c, Interfere)]
    assert [format_order(o) for o in room.record().standing_of("Alice")] == standing
    assert "Alice" not in eliminated(room) and room.state().player("Alice").playing
    assert len(room.state().player("Alice").structure) > 1  # a group kept
    room.orders("Alice", "CANCEL ABSENCE ALL")
    assert not room.record().seat("Alice").bot
    back = [m for m in room.to("Alice")
            if "what the bot did" in m.subject or "ce que le robot a fait" in m.subject]
    assert len(back) == 1, [m.subject for m in room.to("Alice")]
    text = " ".join(back[0].text.split())
    assert ("What it did in your name:" if lang == "en"
            else "Ce qu'il a fait en votre nom :") in text
    assert "\n- " in back[0].text  # the events listed


def test_a_stand_in_keeps_standing_orders_gives_nothing_and_keeps_money() -> None:
    """Issue 37: of the orders a bot would write, a stand-in for an absent player drops
    those that change the player's standing orders, give a group, money or a card away or
    spend on another player's attack, and caps an attack's money so that the Illuminati
    keep half their treasury to defend with (rulebook-en, Spending Money To Defend: "by
    one for each MB spent from his Illuminati treasury"). An answer left empty is NO
    RESPONSE."""
    from dataclasses import replace as dataclass_replace

    from factory import BAVARIA, CARDS, GNOMES, game, money, place

    from pbem.engine.commands import (
        Attack,
        EndTurn,
        GiveCard,
        GiveMoney,
        Interfere,
        OfferGroup,
        WithdrawOffer,
    )
    from pbem.engine.view import view
    from pbem.orders.model import (
        AttackOrder,
        InterfereOrder,
        NoResponse,
        StandingClear,
        StandingTurnReaction,
    )
    from pbem.service.bot_seats import as_the_player_would

    state = money(place(game(ann=BAVARIA, bob=GNOMES), "ann", "KGB", treasury=4),
                  "ann", BAVARIA, 20)
    mine = view(CARDS, state, "ann")
    end = EndTurn("ann")
    attack = AttackOrder(Attack("ann", "KGB", "Boy Sprouts", "control"), spend=8, upto=12)
    orders = [StandingClear(), StandingTurnReaction("Market Manipulation", "ann"),
              OfferGroup("ann", "KGB", "bob"), WithdrawOffer("ann"), GiveMoney("ann", "bob", 5),
              GiveCard("ann", "bob", "Bribery"), attack, end]
    capped = AttackOrder(attack.attack, spend=8, upto=6)  # 4 MB of KGB's + 10 of 20
    assert as_the_player_would(mine, orders) == [capped, end]
    interfere = InterfereOrder(Interfere("ann", 5, "interfere"), upto=5)
    answering = view(CARDS, dataclass_replace(state, phase="attack"), "ann")
    assert as_the_player_would(answering, [interfere]) == [NoResponse()]
