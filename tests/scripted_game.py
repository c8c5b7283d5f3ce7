"""A fixed seeded game for the report tests, and every mail rendered from it.

The game is played with ``legal`` + ``apply``, each move chosen by a fixed rule, so the same
seed always gives the same positions; the report tests and the golden files use them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from functools import cache

from pbem.engine import behaviour
from pbem.engine.breakdown import breakdown
from pbem.engine.carddata import load_cardset
from pbem.engine.commands import (
    Attack,
    BeginTurn,
    Command,
    EndTurn,
    OfferGroup,
    PlaySpecial,
    ResolveSpecial,
    Roll,
    Settle,
    Spend,
)
from pbem.engine.events import Event, event_of
from pbem.engine.legal import legal
from pbem.engine.rules import apply
from pbem.engine.setup import Setup, StartingSeat, new_game, with_options
from pbem.engine.state import GameState, PendingAttack
from pbem.orders.model import AttackOrder, Press
from pbem.reports import mails as reports
from pbem.reports.context import ServiceSettings
from pbem.reports.mails import OrderResult, Rendered
from pbem.reports.paraphrase import paraphrase
from pbem.reports.refusals import wording
from pbem.reports.templating import render
from pbem.service.entries import GmReplace

CARDS = load_cardset()
SEED = "a5" * 32
GAME = "illu1"
PLAYERS = ("Alice", "Bob", "Chloé")
MAX_TURNS = 12
NOW = datetime(2025, 3, 1, 9, 30, tzinfo=UTC)
DEADLINE = NOW + timedelta(days=2, hours=3, minutes=15)
# The cards that pay their holder MB when played (card data, pbem.engine.behaviour).
MONEY_CARDS = tuple(s.name for s in CARDS.specials if behaviour.money(s) > 0)


@dataclass(frozen=True)
class Step:
    """One command of the game, the state after it and what it caused."""

    command: Command | None  # None for the setup
    state: GameState
    events: tuple[Event, ...]


def choose(state: GameState) -> Command:
    """The next move, by a fixed rule: the system's steps, then simple greedy players."""
    if state.special is not None:
        return ResolveSpecial()
    if state.phase == "turn_start":
        return BeginTurn()
    if state.phase == "after_roll":
        return Settle()
    if state.phase == "attack":
        return _answer(state)
    p = state.active_player
    money = [c for c in p.hand if c in MONEY_CARDS]
    if money:
        return PlaySpecial(p.name, money[0])
    if state.turn.actions < 2:
        attacks = [c for c in legal(state, p.name, CARDS) if isinstance(c, Attack)]
        if attacks:
            # Control is what a player mostly wants, but every third turn the player turns
            # on a rival; fewer aids keep groups free for later.
            rival = state.turn_number % 3 == 0
            best = max(attacks, key=lambda a: (
                (state.owner(a.target) is not None) == rival,
                _need(state, a) + (2 if a.mode == "control" else 0), -len(a.aids)))
            if _need(state, best) >= 4:
                return best
    return EndTurn(p.name)


def _need(state: GameState, a: Attack) -> int:
    pending = PendingAttack(player=a.player, attacker=a.attacker, target=a.target,
                            mode=a.mode, aids=a.aids)
    return breakdown(CARDS, state, pending).need


def _answer(state: GameState) -> Command:
    """Attacker tops up to 7 once, the defender answers with 1 MB once, then the roll."""
    attack = state.attack
    assert attack is not None
    need = breakdown(CARDS, state, attack).need
    sides = {pay.side for pay in attack.payments}
    attacker = state.player(attack.player)
    if "attack" not in sides and need < 7:
        for source in (attack.attacker, attacker.illuminati):
            slot = attacker.slot(source)
            if slot is not None and slot.treasury > 0:
                return Spend(attacker.name, source, min(slot.treasury, 7 - need))
    owner = state.owner(attack.target)
    if owner is not None and "defense" not in sides and owner.treasury > 0:
        return Spend(owner.name, owner.illuminati, 1)
    return Roll()


def setup() -> Setup:
    return with_options(CARDS, Setup(GAME, tuple(StartingSeat(n) for n in PLAYERS), SEED),
                        max_turns=MAX_TURNS)


@cache
def steps() -> tuple[Step, ...]:
    """The whole game, setup first."""
    state, events = new_game(CARDS, setup())
    out = [Step(None, state, tuple(events))]
    while state.phase != "over":
        command = choose(state)
        state, new = apply(state, command, CARDS)
        out.append(Step(command, state, tuple(new)))
        assert len(out) < 2000, "the scripted game does not end"
    return tuple(out)


def events_between(start: int, end: int) -> tuple[Event, ...]:
    """The events of steps ``start`` to ``end`` (both included)."""
    return tuple(e for s in steps()[start:end + 1] for e in s.events)


def first(predicate: str) -> int:
    """The index of the first step matching a named point of the game."""
    for i, s in enumerate(steps()):
        if POINTS[predicate](s):
            return i
    raise LookupError(predicate)


def _defended_attack(s: Step) -> bool:
    a = s.state.attack
    return (isinstance(s.command, Attack) and a is not None
            and s.state.owner(a.target) is not None)


POINTS: dict[str, Callable[[Step], bool]] = {
    "first_turn": lambda s: isinstance(s.command, BeginTurn),
    "defended_attack": _defended_attack,
    "report": lambda s: isinstance(s.command, BeginTurn) and s.state.turn_number == 7,
    "offer": lambda s: isinstance(s.command, BeginTurn)
    and len(s.state.active_player.structure) > 1,
}


def turn_of(state: GameState, role: str) -> str:
    """The name of the active player ("active") or the one after ("other")."""
    i = state.active if role == "active" else (state.active + 1) % len(state.players)
    return state.players[i].name


def mails(lang: str) -> Iterator[tuple[str, Rendered]]:
    """Every kind of mail at the scripted game's points, named for the golden files."""
    all_steps = steps()
    setup_state = all_steps[0].state
    yield "welcome-Alice", reports.welcome(
        CARDS, setup_state, "Alice", password="brass-otter-57", now=NOW, deadline=DEADLINE,
        settings=ServiceSettings(orders_hours=72, response_hours=36), tz="Europe/Paris",
        lang=lang)

    i = first("first_turn")
    state = all_steps[i].state
    active = state.active_player.name
    yield f"turn_report-first-{active}", reports.turn_report(
        CARDS, state, active, events_between(0, i), now=NOW, deadline=DEADLINE,
        tz="America/New_York", lang=lang)
    yield f"reminder-{active}", reports.reminder(
        CARDS, state, active, about="orders", now=DEADLINE - timedelta(hours=6),
        deadline=DEADLINE, tz="Asia/Tokyo", lang=lang)

    i = first("defended_attack")
    state = all_steps[i].state
    assert state.attack is not None
    defender = state.owner(state.attack.target)
    assert defender is not None
    for who in (p.name for p in state.players):
        role = ("attacker" if who == state.attack.player
                else "defender" if who == defender.name else "other")
        yield f"response_request-{role}-{who}", reports.response_request(
            CARDS, state, who, now=NOW, deadline=DEADLINE, tz="Europe/Paris", lang=lang)
    end = next(j for j in range(i, len(all_steps)) if isinstance(all_steps[j].command, Settle))
    yield f"attack_result-{defender.name}", reports.attack_result(
        CARDS, all_steps[end].state, defender.name, events_between(i, end), now=NOW,
        lang=lang)

    i = first("report")
    state = all_steps[i].state
    since = max(0, i - 40)
    for role in ("active", "other"):
        who = turn_of(state, role)
        yield f"turn_report-{role}-{who}", reports.turn_report(
            CARDS, state, who, events_between(since, i), now=NOW, deadline=DEADLINE,
            tz="Europe/Paris", lang=lang)

    # The active player offers a group to the next one: the receiver is asked for an answer,
    # the giver told the turn waits for it.
    i = first("offer")
    before = all_steps[i].state
    giver, receiver = turn_of(before, "active"), turn_of(before, "other")
    offer = OfferGroup(giver, before.active_player.structure[1].card, receiver)
    state, offered = apply(before, offer, CARDS)
    for role, who in (("offered", receiver), ("offering", giver)):
        yield f"turn_report-{role}-{who}", reports.turn_report(
            CARDS, state, who, offered, now=NOW, deadline=DEADLINE,
            offer_deadline=NOW + timedelta(hours=36), tz="Europe/Paris", lang=lang)

    yield "history-Bob", reports.history_reply(
        GAME, "Bob", [(0, all_steps[0].events), *_turns(1, 3)], lang=lang)

    last = all_steps[-1]
    yield "game_over-Alice", reports.game_over(
        CARDS, last.state, "Alice", events_between(len(all_steps) - 6, len(all_steps) - 1),
        now=NOW, lang=lang)

    # The two groups the orders name, read back from the lines as written (the helper names
    # no card itself: tests/test_layout.py).
    attack_line = "ATTACK The Mafia CONTROL Hackers SPEND 2"
    mafia, hackers = attack_line.removeprefix("ATTACK ").removesuffix(" SPEND 2").split(" CONTROL ")
    yield "acknowledgement-Bob", reports.acknowledgement(
        GAME, "Bob", [
            OrderResult(2, attack_line, True, paraphrase(
                AttackOrder(Attack("Bob", mafia, hackers, "control"), spend=2), lang)),
            OrderResult(3, f"TRANSFER 40 FROM {mafia} TO {hackers}", False, wording(
                lang, "_engine_refusals", "money_short",
                {"card": mafia, "have": 6, "amount": 40})[0] + ".",
                f"TRANSFER 6 FROM {mafia} TO {hackers}"),
        ], pending=f"TRANSFER 1 FROM The Network TO {mafia}\nEND TURN", turn=23,
        lang=lang)
    yield "acknowledgement-stale-Bob", reports.acknowledgement(
        GAME, "Bob", [
            OrderResult(2, "ATTACK The Mafia CONTROL Hackers", False,
                        render("note.txt.j2", lang, key="stale", written=19).strip(),
                        stale=True),
            OrderResult(3, "PRESS TO Alice", True,
                        paraphrase(Press(("Alice",), "Hello"), lang)),
        ], turn=23, turn_number=8, lang=lang)
    yield "gm_announcement-Bob", reports.gm_announcement(
        GAME, "Bob", "The server moves on Sunday.\nDeadlines are extended by one day.",
        lang=lang)
    yield "gm_announcement-override-Bob", reports.gm_announcement(GAME, "Bob", events=[
        event_of("gm_rename", {"old": "Chloé", "new": "Dee", "reason": ""}),
        GmReplace("Chloé", "Dee", "dee@example.org", "chloe@example.org", "Chloé moved away",
                  at="2026-11-29T12:00:00+00:00").event,
    ], lang=lang)
    yield "press-Bob", reports.press_relay(
        GAME, "Bob", "Chloé", "Bob, your Mafia looks lonely.\n\n-- the UFOs", lang=lang)
    for problem in ("unknown_game", "unreadable", "auth_failed", "flooding"):
        yield f"error-{problem}", reports.error_reply(
            problem, game=GAME if problem not in ("unreadable", "flooding") else "",
            games=(GAME, "illu2"), message="", suggestion="", limit=60,
            until=datetime(2026, 11, 29, 13, 5, tzinfo=UTC), lang=lang)


def _turns(low: int, high: int) -> list[tuple[int, tuple[Event, ...]]]:
    """The events of turns ``low`` to ``high``, as the history reply takes them."""
    out: dict[int, list[Event]] = {}
    turn = 0
    for s in steps()[1:]:
        turn = s.state.turn_number if isinstance(s.command, BeginTurn) else turn
        if low <= turn <= high:
            out.setdefault(turn, []).extend(s.events)
    return [(t, tuple(ev)) for t, ev in sorted(out.items())]


@cache
def rendered(lang: str) -> dict[str, Rendered]:
    """Every mail of the scripted game in ``lang``, by its golden file's name."""
    return dict(mails(lang))
