"""The game master's pictures of a game, as text for the terminal (English): its status, the
whole game with its secrets, and what the next step would do."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any

from pbem.engine.cards import CardSet
from pbem.engine.state import GameState
from pbem.engine.view import view
from pbem.orders.format import format_order
from pbem.reports.context import (
    Deadline,
    deadline_facts,
    goal_lines,
    group_facts,
    utc_minute,
)
from pbem.reports.templating import environment
from pbem.reports.tree import tree_rows
from pbem.service.chat import masked
from pbem.service.deadlines import offer_due
from pbem.service.gm import Preview
from pbem.service.history import GameFile
from pbem.service.lobby_log import (
    LobbyApprove,
    LobbyEntry,
    LobbyJoin,
    LobbyObserve,
    LobbyOpen,
    LobbyWait,
    lobby_entries,
)
from pbem.service.model import GameService, parse_iso
from pbem.service.options import option_table


def status(state: GameState, service: GameService) -> str:
    """One word or two: over, not started, paused or running."""
    if state.phase == "over":
        return "over"
    if not service.started:
        return "not started"
    return "paused" if service.paused else "running"


def show_text(cards: CardSet, game: GameFile, now: datetime) -> str:
    """Everything about a game as the game master sees it (secrets included), as text."""
    v = view(cards, game.state, None)
    service, window = game.service, game.service.window
    template = environment().get_template("archive/show.txt.j2")
    return template.render(
        v=v, service=service, status=status(game.state, service),
        deadline=_deadline(service.deadline, now), window=window,
        waiting=[p for p in window.asked if not window.answered(p)] if window else [],
        answered=[a.player for a in window.answers] if window else [],
        window_deadline=_deadline(window.deadline, now) if window else None,
        offer_deadline=deadline_facts(offer_due(game.state, service), now, "UTC"),
        queue=[format_order(q.order) for q in service.queue],
        standing={s.name: [format_order(o) for o in service.standing_of(s.name)]
                  for s in service.seats},
        trees={p.name: tree_rows(p.structure) for p in v.players},
        goals={p.name: goal_lines(cards, p) for p in v.players},
        resistance={g.name: g.resistance for g in group_facts(
            cards, (c.card for p in v.players for c in p.structure))},
        draws=game.state.dice.draws, deck_top=game.state.deck[:5],
        rule_options=[f"{o.name} {o.shown(getattr(game.state.options, o.name))}"
                      for o in option_table(cards) if not o.house],
        reminders=" and ".join(f"{h:g}" for h in service.timing.reminders),
        chat=masked(service.audience.chat), pack=game.pack,
    ).rstrip() + "\n"


def preview_text(seen: Preview) -> str:
    """A preview as text: the steps, the mails and the deadline that would change."""
    before, after, state = seen.before, seen.after, seen.state
    closing = ""
    if before.window is not None and (after.window is None
                                      or after.window.opened != before.window.opened):
        closing = before.window.deadline[:16].replace("T", " ")
    mails: dict[str, list[str]] = {}
    for kind, to in seen.mails:
        mails.setdefault(kind, []).append(to or "the game master")
    steps = [(seq, type(c).__name__ + ("" if c.player in ("*", "") else f" by {c.player}"),
              events) for seq, c, events in seen.steps]
    if state.phase == "over":
        waiting = "The game is over."
    elif not after.started or after.paused:
        waiting = "The game has not started." if not after.started else "The game is paused."
    elif after.window is not None:
        late = [p for p in after.window.asked if not after.window.answered(p)]
        waiting = (f"The response window waits for {', '.join(late) or 'nobody'} until "
                   f"{after.window.deadline[:16].replace('T', ' ')} UTC.")
    else:
        waiting = (f"{state.active_player.name}'s orders are due by "
                   f"{after.deadline[:16].replace('T', ' ') or 'no deadline'} UTC.")
    # A group offered waits for its receiver's answer, by a deadline of its own; said beside
    # the orders' deadline (a paused game or an attack's window waits on something else).
    running = state.phase != "over" and after.started and not after.paused
    offer = state.offer if running and after.window is None else None
    due = offer_due(state, after) if offer else None
    template = environment().get_template("archive/preview.txt.j2")
    return template.render(
        game=seen.game, when=utc_minute(seen.now),
        closing=closing, steps=steps, mails=list(mails.items()),
        deadline_moves=after.deadline != before.deadline,
        after_deadline=after.deadline[:16].replace("T", " "), waiting=waiting,
        offer=offer, offer_due=utc_minute(due) if due else "",
        inbox=seen.inbox,
    ).rstrip() + "\n"


def _deadline(moment: str, now: datetime) -> Deadline | None:
    return deadline_facts(parse_iso(moment), now, "UTC") if moment else None


def opening_text(game_id: str, opened: dict[str, Any], waiting: list[dict[str, Any]],
                 log: Sequence[dict[str, Any]] = ()) -> str:
    """A game open for sign-up as the game master sees it (``pbem game show``): the lobby's
    record of it (``pbem.service.signup``), its waiting list, and what its entries of the
    lobby's ``log`` say happened, the game master's doings included."""
    seated = [p for p in opened["players"] if p["approved"]]
    asking = [p for p in opened["players"] if not p["approved"]]

    def who(players: list[dict[str, Any]]) -> str:
        return ", ".join(f"{p['name']} <{p['address']}>"
                         + (f" (prefers {', '.join(p['prefer'])})" if p["prefer"] else "")
                         for p in players) or "nobody"

    options = ", ".join(f"{k}={v}" for k, v in sorted((opened["options"] or {}).items()))
    timing = opened["timing"] or {}
    lines = [f"{game_id}: open for sign-up, {len(seated)} of {opened['seats']} seats taken.",
             f"Seated: {who(seated)}.",
             f"Waiting for your approval: {who(asking)}" + (
                 f" (pbem approve {game_id} NAME, or pbem reject {game_id} NAME)."
                 if asking else "."),
             f"Waiting list: {who(waiting)}.",
             "Deadline to fill: " + (f"{opened['fill_by'][:16]} (pbem extend {game_id} "
                                     "--hours N moves it)." if opened["fill_by"] else "none."),
             f"Approval: {'yes' if opened['approval'] else 'no'}; observers: "
             f"{'yes' if opened['observers'] else 'no'}"
             + ("; observers read press to ALL" if opened["press"] else "")
             + f"; {len(opened.get('watchers', []))} waiting to observe.",
             f"Language: {opened['lang']}; options: {options or 'the defaults'}; orders "
             f"hours: {timing.get('orders_hours', 72.0):g}; response hours: "
             f"{timing.get('response_hours', 24.0):g}.",
             *([f'Cards: the card pack "{pack["name"]}" ({pack["mode"]}).']
               if (pack := opened.get("cards")) else []),
             f"Start it now: pbem game start {game_id}; close it: pbem game close {game_id}."]
    mine = [e for e in lobby_entries(log) if getattr(e, "game", None) == game_id]
    opens = [n for n, e in enumerate(mine) if isinstance(e, LobbyOpen)]
    mine = mine[opens[-1]:] if opens else mine  # (an id opened again: this sign-up's own)
    said = getattr(environment().get_template("_gm.txt.j2").module, "sentence")  # noqa: B009
    happened = [f"  {e.at[:16]}  " + (
        str(said(gm.kind, gm)) if (gm := getattr(e, "gm", None)) is not None
        else SIGNUP_SAYS[type(e)](e))
        for e in mine if getattr(e, "gm", None) is not None or type(e) in SIGNUP_SAYS]
    if happened:
        lines += ["", "Sign-up so far (the lobby's log):", *happened]
    return "\n".join(lines) + "\n"


# What each kind of the lobby's log entries says in ``pbem game show`` (the others are
# answers to mail, or of games no longer open).
SIGNUP_SAYS: dict[type[LobbyEntry], Callable[[Any], str]] = {
    LobbyOpen: lambda e: f"opened for sign-up, {e.opening['seats']} seats",
    LobbyJoin: lambda e: f"{e.name} <{e.address}> joined",
    LobbyApprove: lambda e: f"you approved {e.name}",
    LobbyWait: lambda e: f"{e.name} <{e.address}> on the waiting list",
    LobbyObserve: lambda e: f"{e.address} will observe",
}
