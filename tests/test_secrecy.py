"""No mail shows a player what only another player may know.

Scanned in every part of every mail (text, HTML, the JSON view): the special cards in other
players' hands (by name), the UFOs' secret goal, other players' passwords. A card name may
appear only where the reader may know it: their own hand, the discards, a card played in
the open. Two sweeps:

- **Mail-bot games** through the real service: every mail as sent (composed bytes), step by
  step, passwords included.
- **1,000 seeded bot games** (``pbem.bots.simulate``'s table, short, every hand dealt special
  cards, often a UFO): at each moment the service mails (a turn begins, an attack is
  announced, it is settled) every player's mail is rendered by the service's own renderer
  and scanned. Composing the bytes adds no content and costs more than rendering, so this
  sweep stops at the rendered parts.

``test_a_leaky_view_is_caught`` proves the scan can fail.
"""

from __future__ import annotations

import email
import email.policy
import html
import json
import random
import re
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any

import pytest

from pbem.bots.simulate import BotTable
from pbem.engine import view as view_module
from pbem.engine.carddata import load_cardset
from pbem.engine.events import Event
from pbem.engine.rules import apply
from pbem.engine.setup import Setup, StartingSeat, new_game, with_options
from pbem.engine.state import GameState
from pbem.errors import IllegalCommandError
from pbem.reports.mails import Rendered
from pbem.service.bot_games import play_game
from pbem.service.model import GameService, Seat
from pbem.service.notice_mails import render_notice
from pbem.service.notices import KINDS
from pbem.service.service import Service, ServiceConfig
from pbem.service.settings import MailIdentity
from pbem.store.memory import MemoryStore

CARDS = load_cardset()
SPECIALS = sorted({s.name for s in CARDS.specials})
UFOS = "The UFOs"
NOW = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)
SWEEP_GAMES = 1000
CHUNKS = 20  # spread over pytest-xdist workers
SENDER = MailIdentity(address="pbem@pbem.example", domain="pbem.example")
WATCHER = "watcher@example.org"  # an observer of the mail-bot games: no seat, no secret
# Where the mail-bot games post their public events (pbem.service.chat): no seat, no secret.
# Nothing listens there: the sweep reads the posts as queued.
CHAT_HOOK = "json://127.0.0.1:9/hook"
OBSERVED: Counter[str] = Counter()  # mails scanned, by recipient


# --- what a reader may not know -------------------------------------------------------------


@dataclass(frozen=True)
class Hidden:
    """What a reader may not see at one moment."""

    cards: frozenset[str]  # special cards held by others, never known to the reader
    goals: tuple[tuple[str, str], ...]  # (UFO player, chosen goal) of others
    passwords: frozenset[str]  # other players' passwords


def hidden_from(reader: str, states: Sequence[GameState],
                passwords: dict[str, str] | None = None) -> Hidden:
    """What ``reader`` may not know across ``states`` (a step's start and end)."""
    if any(s.phase == "over" for s in states):
        # The end reveals hands and goals; passwords stay secret.
        return Hidden(frozenset(), (), _others(reader, passwords))
    known = set(states[-1].discards) | set(states[-1].dead)
    held: set[str] | None = None
    for state in states:
        if any(p.name == reader for p in state.players):  # (an observer holds no hand)
            known |= set(state.player(reader).hand)
        mine = {c for p in state.players if p.name != reader for c in p.hand}
        held = mine if held is None else held & mine  # held all along: never shown
    goals = tuple((p.name, p.secret_goal) for p in states[-1].players
                  if p.name != reader and p.secret_goal)
    return Hidden(frozenset((held or set()) - known), goals, _others(reader, passwords))


def _others(reader: str, passwords: dict[str, str] | None) -> frozenset[str]:
    return frozenset(pw for name, pw in (passwords or {}).items() if name != reader)


def leaks(reader: str, state: GameState, hidden: Hidden, texts: Sequence[str],
          views: Sequence[dict[str, Any]]) -> list[str]:
    """Every secret of others found in a mail's parts (text, unescaped HTML, JSON)."""
    found = []
    for text in texts:
        for card in hidden.cards:
            if _name(card).search(text):
                found.append(f"{reader} sees {card} held by another player")
        for secret in hidden.passwords:
            if secret in text:
                found.append(f"{reader} sees another player's password")
        for player, goal in hidden.goals:
            shown = text.count(f"Goal of {goal}:")
            # Legitimate: the goal of a player whose own Illuminati it is.
            allowed = sum(1 for p in state.players if p.illuminati == goal)
            if shown > allowed:
                found.append(f"{reader} sees the secret goal of {player}")
    for v in views:
        for p in v["players"]:
            if p["name"] == reader or v["phase"] == "over":
                continue
            if p["hand"] is not None or p["secret_goal"] is not None:
                found.append(f"{reader}'s JSON view shows {p['name']}'s hand or goal")
            if p["treasury_total"] is not None:
                found.append(f"{reader}'s JSON view shows {p['name']}'s treasury")
            own = p["illuminati"]
            if any(g["goal"] not in ("basic", own) for g in p["goals"]):
                found.append(f"{reader}'s JSON view shows {p['name']}'s chosen goal")
    return found


def _name(card: str) -> re.Pattern[str]:
    return re.compile(rf"(?<![\w']){re.escape(card)}(?![\w'])")


def mail_parts(raw: bytes) -> tuple[list[str], list[dict[str, Any]]]:
    """Every part of a composed mail as text (HTML unescaped), and the JSON views."""
    message = email.message_from_bytes(raw, policy=email.policy.default)
    texts: list[str] = [str(message.get("Subject", ""))]
    views: list[dict[str, Any]] = []
    for part in message.walk():
        if part.is_multipart() or part.get_content_maintype() == "image":
            continue  # a picture's words are its alt text, in the HTML part
        data = part.get_payload(decode=True)
        body = data.decode("utf-8") if isinstance(data, bytes) else ""
        kind = part.get_content_type()
        if kind == "text/html":
            body = html.unescape(body)
        elif kind == "application/json":
            views.append(json.loads(body))
            body = json.dumps(json.loads(body), ensure_ascii=False)
        texts.append(body)
    return texts, views


def rendered_parts(rendered: Rendered) -> tuple[list[str], list[dict[str, Any]]]:
    texts = [rendered.subject, rendered.text, html.unescape(rendered.html)]
    views = []
    for _, kind, data in rendered.attachments:
        texts.append(data.decode("utf-8"))
        if kind == "application/json":
            views.append(json.loads(data))
    return texts, views


# --- sweep 1: mail-bot games through the service ----------------------------------------------


def mail_bot_leaks(games: int, players: int, turns: int) -> tuple[int, list[str]]:
    """Play mail-bot games and scan every mail of every step; gives (mails, leaks)."""
    service = Service(MemoryStore(), ServiceConfig(
        sender=SENDER, password_cost=4, passwords=lambda g, p: f"pw-{g}-{p}-x"))
    found: list[str] = []
    scanned = 0
    for index in range(games):
        game = f"s{index}"
        names = [(f"p{i}", f"p{i}@example.org") for i in range(1, players + 1)]
        before: list[GameState] = []

        def watch(sent: Sequence[tuple[str, bytes]], game: str = game,
                  before: list[GameState] = before,
                  names: list[tuple[str, str]] = names) -> None:
            nonlocal scanned
            state = service.state(game)
            states = [*before[-1:], state]
            passwords = {n: f"pw-{game}-{n}-x" for n, _ in names}
            for to, raw in sent:
                reader = to.split("@")[0]  # "chat:<game>" for a chat post: no player
                OBSERVED[to] += 1
                texts, views = mail_parts(raw)
                hidden = hidden_from(reader, states, passwords)
                found.extend(f"{game}: {x}" for x in leaks(reader, state, hidden, texts, views))
                # The webhook's URL (its token) is the game master's: no mail shows it.
                found.extend(f"{game}: {reader} sees the chat webhook" for text in texts
                             if CHAT_HOOK.partition("://")[2] in text)
                scanned += 1
            before[:] = [state]

        # An observer reads the public reports and the press to all, the group's chat the
        # game's posts: no secret of anyone.
        play_game(service, game, names, start=NOW, seed=f"{index + 1:064x}",
                  options={"max_turns": turns}, watch=watch, observers=[WATCHER],
                  chat=CHAT_HOOK)
        assert service.replay_check(game)
    return scanned, found


def test_no_secret_in_any_mail_of_mail_bot_games() -> None:
    scanned, found = mail_bot_leaks(games=4, players=3, turns=5)
    assert scanned > 100
    assert found == []
    assert OBSERVED[WATCHER] > 20  # the observer's mails were scanned too
    posts = sum(n for to, n in OBSERVED.items() if to.startswith("chat:"))
    assert posts > 20  # and the games' chat posts


# --- sweep 2: a thousand seeded bot games, every mail rendered -------------------------------


class WatchedTable(BotTable):
    """A bot table that keeps the events, so the mails of each moment can be rendered."""

    def __init__(self, cards: Any, state: GameState, rng: random.Random) -> None:
        # The invariants are test_simulate's business: checked never here.
        super().__init__(cards, state, rng, check_every=10**9)
        self.events: list[Event] = []

    def do(self, command: Any) -> bool:
        try:
            self.state, events = apply(self.state, command, self.cards)
        except IllegalCommandError:
            return False
        self.log.append(command)
        self.events += events
        return True


def dealt(state: GameState, rng: random.Random) -> GameState:
    """Every player starts with two or three special cards from the deck: secrets to keep."""
    deck = list(state.deck)
    players = []
    for p in state.players:
        specials = [c for c in deck if c in SPECIALS]
        hand = rng.sample(specials, rng.randint(2, 3))
        for card in hand:
            deck.remove(card)
        players.append(replace(p, hand=tuple(hand)))
    return replace(state, deck=tuple(deck), players=tuple(players))


def sweep_game(index: int, leaky: bool = False) -> tuple[int, list[str]]:
    """One short seeded bot game; every mail of each moment rendered and scanned."""
    rng = random.Random(index)
    count = rng.choice((2, 3, 4))
    names = [f"p{i}" for i in range(1, count + 1)]
    ufo = rng.randrange(count)
    seats = tuple(StartingSeat(n, UFOS if i == ufo and rng.random() < 0.8 else "")
                  for i, n in enumerate(names))
    setup = with_options(CARDS, Setup(f"w{index}", seats, f"{index:064x}"),
                         max_turns=2 if count == 2 else 1)
    state, _ = new_game(CARDS, setup)
    table = WatchedTable(CARDS, dealt(state, rng), random.Random(index))
    record = GameService(seats=tuple(Seat(n, f"{n}@example.org") for n in names),
                         started=True)
    scanned, found = 0, []

    def scan(kind: str, readers: Sequence[str], data: dict[str, Any]) -> None:
        nonlocal scanned
        for reader in readers:
            notice = KINDS[kind](reader, **{k: v for k, v in data.items() if k != "news"})
            _, _, rendered = render_notice(CARDS, table.state, record, notice, now=NOW,
                                           news=data.get("news", ()), history=(),
                                           sender=SENDER)
            texts, views = rendered_parts(rendered)
            hidden = hidden_from(reader, [table.state])
            found.extend(f"game {index}, {kind}: {x}"
                         for x in leaks(reader, table.state, hidden, texts, views))
            scanned += 1

    reported = 0
    for _ in range(2000):
        if table.state.phase == "over":
            break
        phase = table.state.phase
        start = len(table.events)
        attack = table.state.attack
        if phase == "attack":
            others = [p.name for p in table.state.players
                      if p.playing and attack is not None and p.name != attack.player]
            scan("response_request", others, {})
        table.step()
        if phase == "turn_start" and table.state.phase == "actions":
            scan("turn_report", names, {"news": table.events[reported:]})
            reported = len(table.events)
        if phase == "after_roll":
            result = table.events[start:]
            if any(e.kind == "attack_result" for e in result):
                scan("attack_result", names, {"events": result, "attacker": ""})
    return scanned, found


def chunks() -> Iterator[range]:
    size = SWEEP_GAMES // CHUNKS
    for start in range(0, SWEEP_GAMES, size):
        yield range(start, start + size)


@pytest.mark.parametrize("games", list(chunks()), ids=lambda r: f"games{r.start}-{r.stop - 1}")
def test_no_secret_in_the_mails_of_a_thousand_bot_games(games: range) -> None:
    scanned, found = 0, []
    for index in games:
        n, leaked = sweep_game(index)
        scanned += n
        found += leaked
    assert scanned >= 10 * len(games)
    assert found == []


# --- the scan can fail ------------------------------------------------------------------------


def test_a_leaky_view_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """A view that shows everyone everything (hands, goals) is caught by both sweeps."""
    honest = view_module._player_view

    def leaky(cards: Any, state: GameState, p: Any, viewer: str | None) -> Any:
        return honest(cards, state, p, None)

    monkeypatch.setattr(view_module, "_player_view", leaky)
    found = [x for i in range(5) for x in sweep_game(i)[1]]
    assert any("held by another player" in x for x in found)
    assert any("JSON view shows" in x for x in found)
    _, found = mail_bot_leaks(games=1, players=3, turns=2)
    assert any("UFO" in x or "goal" in x or "hand" in x for x in found)


def test_a_leaky_chat_post_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """Chat posts that name the cards in every hand are caught by the mail-bot sweep, as
    chat posts: the sweep reads them."""
    from pbem.service import notice_mails

    honest = notice_mails.chat_post

    def leaky(cards: Any, state: GameState, *args: Any, **kw: Any) -> Rendered:
        post = honest(cards, state, *args, **kw)
        hands = ", ".join(c for p in state.players for c in p.hand)
        return replace(post, text=f"{post.text}\nIn hand: {hands}")

    monkeypatch.setattr(notice_mails, "chat_post", leaky)
    _, found = mail_bot_leaks(games=2, players=3, turns=5)  # specials drawn and kept
    assert any(x.split(": ")[1].startswith("chat:") and "held by another player" in x
               for x in found)
