"""One game's turn flow over email: commands applied, response windows, turns, deadlines.

A ``Table`` wraps the engine state and the service's record of one game for the length of one
step (a mail processed, a tick, a GM command). It applies engine commands, remembers each as a
log entry (the game master's overrides of the service's record too, as GM entries: see
``pbem.service.entries``), and collects the notices (mails to send) the step implies. The
caller commits the entries, the new snapshot and the rendered notices in one store write.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from datetime import datetime, timedelta
from typing import Any

from pbem.engine import behaviour
from pbem.engine.bidding import Stance, settle_bids
from pbem.engine.breakdown import roll_needed, succeeds
from pbem.engine.cards import CardSet
from pbem.engine.commands import (
    AbolishPrivilege,
    Attack,
    BeginTurn,
    Command,
    Counter,
    PlaySpecial,
    ResolveSpecial,
    Roll,
    Settle,
)
from pbem.engine.events import Event
from pbem.engine.rules import apply
from pbem.engine.state import GameState, PendingSpecial
from pbem.errors import IllegalCommandError
from pbem.orders.model import (
    ConditionalPlay,
    StandingAttackReaction,
    StandingCounter,
    StandingDefend,
    StandingNeverInterfere,
    StandingTurnReaction,
)
from pbem.reports.refusals import worded
from pbem.service.answers import counter_rule, merge
from pbem.service.entries import GmEvent, command_entry, gm_entry
from pbem.service.model import Answer, GameService, Queued, Window, iso
from pbem.service.notices import (
    AttackOutcome,
    ChatPost,
    GameOver,
    Notice,
    ObserverReport,
    OrderFailed,
    ResponseRequest,
    TurnReport,
    Welcome,
    chat_recipient,
)
from pbem.service.order_refusals import refused


class Table:
    """One game during one step."""

    def __init__(self, cards: CardSet, state: GameState, service: GameService, now: datetime,
                 log_length: int) -> None:
        self.cards = cards
        self.state = state
        self.service = service
        self.now = now
        self.base = log_length
        self.entries: list[dict[str, Any]] = []
        self.events: list[Event] = []  # of every step on this table (a round's mails)
        self.step_began = 0  # where the step under way began in ``events``
        self.notices: list[Notice] = []

    def step_events(self) -> list[Event]:
        """The events of the step under way: a round of mail seals several steps on one
        table, and what one step tells (an elimination) is not told again by the next."""
        return self.events[self.step_began:]

    # --- commands -------------------------------------------------------------------------

    def do(self, command: Command, *, missed: bool = False) -> list[Event]:
        """Apply one engine command and log it; IllegalCommandError leaves nothing changed.
        ``missed``: the command the orders deadline gave a player who missed it (their
        log entry says so, for the player records across games: pbem.service.records).

        An offer that the command ended, however it ended (answered, withdrawn, a player
        gone, the turn over), takes its answer's deadline and reminder with it."""
        self.state, events = apply(self.state, command, self.cards)
        entry = command_entry(command, events, iso(self.now), self.state.seq)
        self.entries.append({**entry, "missed": True} if missed else entry)
        self.events += events
        if self.state.offer is None and (self.service.offer_deadline
                                         or self.service.offer_reminded):
            self.service = replace(self.service, offer_deadline="", offer_reminded=False)
        return events

    def record(self, event: GmEvent) -> GmEvent:
        """Log a GM override that leaves the engine state alone (a GM entry, which replay
        skips), at the step's time; gives it, for the announcement."""
        event = replace(event, at=iso(self.now))
        self.entries.append(gm_entry(event, self.state.seq))
        return event

    def play_special(self, play: PlaySpecial | AbolishPrivilege,
                     counter: Callable[[str, PendingSpecial], bool] | None = None) -> None:
        """Play a special card (or an abolishing pair), then let Secrets cancel it or let it
        take effect. ``counter(player, card played)`` says whether a player holding Secrets wants
        it cancelled; by default nobody does."""
        self.do(play)
        pending = self.state.special
        if pending is None:
            return
        for p in self.state.players:
            secrets = behaviour.counter_in(self.cards, p.hand)
            if (p.playing and p.name != pending.player and secrets
                    and (self.standing_counter(p.name, pending)
                         or (counter is not None and counter(p.name, pending)))):
                self.do(Counter(p.name, secrets))
                return
        self.do(ResolveSpecial())

    def standing_counter(self, player: str, pending: PendingSpecial) -> bool:
        """Whether ``player``'s standing orders cancel the card just played (``STANDING IF
        <player>|ANYONE PLAYS <card> COUNTER``): Secrets "cancels any special card when it is
        played", in an attack's window or out of one."""
        return not pending.abolish and any(
            isinstance(order, StandingCounter) and order.card == pending.card
            and order.player in ("", pending.player)
            for order in self.service.standing_of(player))

    def notify(self, notice: Notice) -> None:
        """Call for a mail showing the game as it stands now. A welcome starts the reader's
        mail thread: the seat records the step, which names the thread's root. A notice of
        this step it stands for too (``Notice.folds``: the same query asked twice) is
        dropped, one mail for both; one it undoes (``Notice.cancels``: an absence set then
        cancelled) is dropped with it, no mail for either."""
        if isinstance(notice, Welcome):
            start = f"{self.service.steps}:{notice.to}"  # kept through a rename
            seats = tuple(replace(s, thread=start) if s.name == notice.to
                          else s for s in self.service.seats)
            self.service = replace(self.service, seats=seats)
        notice = replace(notice, state=self.state, service=self.service)
        undone = next((i for i, n in enumerate(self.notices) if notice.cancels(n)), None)
        if undone is not None:  # e.g. an absence set and cancelled in one mail
            del self.notices[undone]
            return
        for index, earlier in reversed(list(enumerate(self.notices))):
            folded = notice.folds(earlier)
            if folded is not None:  # one mail for both, in the later one's place
                del self.notices[index]
                notice = folded
        self.notices.append(notice)

    def in_mail_order(self) -> None:
        """Put the step's mails in order: by each kind's place, then as called for."""
        self.notices.sort(key=lambda n: n.place)

    @property
    def log_length(self) -> int:
        return self.base + len(self.entries)

    # --- the active player's orders -------------------------------------------------------

    def may_act_now(self, player: str) -> bool:
        """True when the active player's next order can be carried out at once (nothing
        waits for others' answers)."""
        return (self.state.phase == "actions" and self.state.active_player.name == player
                and self.service.window is None and not self.service.queue
                and self.state.offer is None)

    def waits_for_earlier(self, player: str) -> bool:
        """True when ``player`` is the active player and orders of theirs wait (their attack
        under way, orders queued behind it, a group offered): their next line waits too."""
        return (self.state.phase != "over" and self.state.active_player.name == player
                and (self.service.window is not None or bool(self.service.queue)
                     or self.state.offer is not None))

    def queue(self, item: Queued) -> None:
        self.service = replace(self.service, queue=(*self.service.queue, item))

    def announce(self, attack: Attack, stance: Stance) -> None:
        """The attack is announced with the attacker's money at once; a window opens."""
        self.do(attack)
        self.open_window(stance)

    def open_window(self, stance: Stance | None = None) -> None:
        """Ask those who may answer the attack under way; their standing orders answer now.

        The fixed part of the attacker's stance is paid first, so everyone asked sees it in
        the breakdown; the rest (UPTO) is kept for the proxy bidding when the window closes.
        """
        assert self.state.attack is not None
        seq = self.state.seq
        player = self.state.attack.player
        if stance is not None and stance.fixed > 0:
            self.bid([replace(stance, upto=stance.fixed)])
            stance = replace(stance, fixed=0, upto=max(0, stance.upto - stance.fixed))
        _, reactions = self._standing_plays(player)
        asked = self.responders()
        answers = tuple(a for a in (self.standing_answer(p) for p in asked) if a is not None)
        window = Window(
            opened=iso(self.now),
            deadline=iso(self.now + timedelta(hours=self.service.timing.response_hours)),
            asked=asked,
            answers=answers,
            attacker=Answer(player, stance=stance, reactions=reactions),
            seq=seq,
        )
        self.service = replace(self.service, window=window)
        self.excuse_absent()
        excused = self.service.window
        assert excused is not None
        for name in asked:
            if not excused.answered(name):
                self.notify(ResponseRequest(name))

    def excuse_absent(self) -> None:
        """Those asked in the open window who are away now answer nothing (their standing
        orders answered already, if they gave any): they are not asked, and the window does
        not wait for them (docs/service.md, "Absences")."""
        window = self.service.window
        if window is None:
            return
        for name in window.asked:
            if (not window.answered(name)
                    and self.service.seat(name).absence_at(self.now) is not None):
                self.answer(Answer(name))

    def bid(self, stances: list[Stance]) -> None:
        """Play out the stances' money (proxy bidding), each payment logged with its events."""
        _, commands = settle_bids(self.cards, self.state, stances)
        for command in commands:
            self.do(command)

    def responders(self) -> tuple[str, ...]:
        """Who may answer the attack under way: the defender, and whoever could meddle."""
        attack = self.state.attack
        assert attack is not None
        owner = self.state.owner(attack.target)
        asked = []
        for p in self.state.players:
            if not p.playing or p.name == attack.player:
                continue
            defending = owner is not None and owner.name == p.name
            # A card its holder may answer this attack with (pbem.engine.behaviour).
            reacts = behaviour.asked(self.cards, p.hand, defending=defending,
                                     privileged=attack.privileged)
            if defending:
                group = p.slot(attack.target)
                money = (group.treasury if group else 0) + p.treasury
                abolish = attack.privileged and len(p.hand) >= 2
                if money > 0 or reacts or abolish:
                    asked.append(p.name)
            elif attack.privileged:
                if reacts or len(p.hand) >= 2:
                    asked.append(p.name)
            elif p.treasury > 0 or reacts:
                asked.append(p.name)
        return tuple(asked)

    def standing_answer(self, player: str) -> Answer | None:
        """The answer the player's standing orders give to the attack under way, if any."""
        attack = self.state.attack
        assert attack is not None
        owner = self.state.owner(attack.target)
        defending = owner is not None and owner.name == player
        stance: Stance | None = None
        covered = False
        for order in self.service.standing_of(player):
            if isinstance(order, StandingDefend) and defending:
                if order.group in ("", attack.target):
                    p = self.state.player(player)
                    stance = Stance(player, "defense", 0, order.upto,
                                    (attack.target, p.illuminati))
                    covered = True
            elif isinstance(order, StandingNeverInterfere) and not defending:
                covered = True
        if not covered:
            return None
        plays, reactions = self._standing_plays(player)
        return Answer(player, stance=stance, plays=plays, reactions=reactions)

    def _standing_plays(self, player: str) -> tuple[tuple[str, ...], tuple[ConditionalPlay, ...]]:
        """Cards the player's standing orders play on the attack under way."""
        attack = self.state.attack
        assert attack is not None
        plays: list[str] = []
        reactions: list[ConditionalPlay] = []
        for order in self.service.standing_of(player):
            if not isinstance(order, StandingAttackReaction):
                continue
            if order.attacker not in ("", attack.player) or order.target not in ("",
                                                                                attack.target):
                continue
            if order.when == "always":
                plays.append(order.card)
            else:
                reactions.append(ConditionalPlay(order.when, PlaySpecial(player, order.card)))
        return tuple(plays), tuple(reactions)

    def answer(self, answer: Answer) -> None:
        """Record a player's answer to the open window (a later answer adds to an earlier).

        The attacker is never asked, but may add cards to play after the roll.
        """
        window = self.service.window
        if window is None:
            raise refused("no_window")
        if window.attacker is not None and answer.player == window.attacker.player:
            if answer.stance is not None or answer.plays or answer.abolish:
                raise refused("attacker_paid")
            merged = merge(window.attacker, answer)
            self.service = replace(self.service, window=replace(window, attacker=merged))
            return
        if answer.player not in window.asked:
            # "A player may interfere in an attack" (rulebook-en, Interference) until the
            # dice are rolled: one not asked when it was announced (no money, no card to
            # answer with then) who can answer now (a Swiss Bank Account cashed) joins the
            # window. Asking is only whom the mail waits for, never who may answer.
            if not self.state.player(answer.player).playing:
                raise refused("not_asked")
            window = replace(window, asked=(*window.asked, answer.player))
        old = window.answer_of(answer.player)
        merged = answer if old is None else merge(old, answer)
        answers = (*tuple(a for a in window.answers if a.player != answer.player), merged)
        self.service = replace(self.service, window=replace(window, answers=answers))

    def call_off(self, player: str, command: Command) -> None:
        """The attacker takes the attack back before money went in: the window closes."""
        self.do(command)
        self.service = replace(self.service, window=None, settled_seq=self.state.seq)

    def close_window(self) -> None:
        """Settle the attack: cards played at once, money, the dice, reactions, the result."""
        window = self.service.window
        assert window is not None and self.state.attack is not None
        attack = self.state.attack
        answers = list(window.answers)
        logged = self.log_length
        touched = _touched(self.state, window)
        counter = counter_rule(self.cards, self.state, window)
        for answer in answers:
            for card in answer.plays:
                self.attempt(answer.player, self.play_special,
                             PlaySpecial(answer.player, card), counter)
            if answer.abolish:
                self.attempt(answer.player, self.play_special,
                             AbolishPrivilege(answer.player, answer.abolish), counter)
        stances = [s for s in [window.attacker.stance if window.attacker else None,
                               *(a.stance for a in answers)] if s is not None]
        self.bid([s for s in stances if self._stance_allowed(s)])
        self.do(Roll())
        reactions = [*(window.attacker.reactions if window.attacker else ()),
                     *(r for a in answers for r in a.reactions)]
        for reaction in reactions:
            current = self.state.attack
            assert current is not None and current.roll is not None
            total = current.roll_becomes if current.roll_becomes is not None else sum(
                current.roll)
            success = succeeds(roll_needed(self.cards, self.state, current), total)
            if (reaction.when == "succeeds") == success and (
                reaction.play.card in self.state.player(reaction.play.player).hand
            ):
                self.attempt(reaction.play.player, self.play_special, reaction.play, counter)
        start = len(self.events)
        self.do(Settle())
        self.service = replace(self.service, window=None, settled_seq=self.state.seq)
        result = self.events[start:]
        for p in self.state.players:
            if not p.departed:
                self.notify(AttackOutcome(p.name, tuple(result), attack.player, touched,
                                         logged))

    def _stance_allowed(self, stance: Stance) -> bool:
        attack = self.state.attack
        assert attack is not None
        if stance.side in ("assist", "interfere"):
            return not attack.privileged or stance.player in attack.interference_cards
        return True

    def attempt(self, player: str, action: Callable[..., object], *args: Any,
                line: int = 0, text: str = "", skipped: Sequence[Queued] = ()) -> bool:
        """Carry out an order given earlier; if the rules refuse it now, tell the player,
        quoting the order (its ``line`` in the mail and ``text``) when it was written, and
        the ``skipped`` lines that were to follow it and will not run."""
        try:
            action(*args)
        except IllegalCommandError as exc:
            reason, suggestion = worded(exc, self.service.seat(player).lang)
            self.notify(OrderFailed(player, reason, suggestion, line, text,
                                    [(q.line, q.text) for q in skipped]))
            return False
        return True

    # --- turns ----------------------------------------------------------------------------

    def start_turn(self) -> None:
        """Start-of-turn cards from standing orders, then income and the draw; repeated
        while turns are lost to the Senate."""
        while self.state.phase == "turn_start":
            active = self.state.active_player.name
            for player, order in self.service.standing:
                if not isinstance(order, StandingTurnReaction):
                    continue
                own_turn = behaviour.on_own_turn(self.cards.special(order.card))
                if order.player not in ("", active) or (player == active) != own_turn:
                    continue
                if order.card in self.state.player(player).hand:
                    self.attempt(player, self.play_special, PlaySpecial(player, order.card),
                                 self._senate_counter)
            self.do(BeginTurn(stand_in=self.stands_in(active)))
        self.service = replace(
            self.service,
            turn_seq=self.state.seq,
            deadline=iso(self.now + timedelta(hours=self.service.timing.orders_hours))
            if self.state.phase == "actions" else "",
            reminded=(),
            queue=(),
            offer_deadline="",
            offer_reminded=False,
        )
        self.report()

    def stands_in(self, player: str) -> bool:
        """True when a stand-in plays ``player``'s turn beginning (or passed at its
        deadline) now: they are away, and the game's house rule passes their turn or has a
        bot play it (docs/service.md, "Absences"). Such a turn is not one of their own for
        elimination."""
        return (self.service.house.stand_in in ("pass", "bot")
                and self.service.seat(player).absence_at(self.now) is not None)

    def _senate_counter(self, player: str, pending: PendingSpecial) -> bool:
        """At the start of a turn only the player who would lose it answers, and always
        does: there is no window to ask in, and no one keeps Secrets to lose a turn."""
        card = behaviour.special(self.cards, pending.card)
        return (card is not None and behaviour.takes_a_turn(card)
                and player == self.state.active_player.name)

    def report(self) -> None:
        """Every player's report of what happened since the last one. The game's last mail
        goes to every seat dealt in, those who left or were removed too: each was sent the
        dice commitment at the start, and this mail reveals the seed to check it against."""
        over = self.state.phase == "over"
        kind = GameOver if over else TurnReport
        for p in self.state.players:
            if over or not p.departed:
                self.notify(kind(p.name, since=self.service.reported))
        for o in self.service.audience.observers:  # the public part, the end included
            self.notify(ObserverReport(o.address, since=self.service.reported, lang=o.lang,
                                       tz=o.tz))
        if self.service.audience.chat:  # the group's chat: the public facts, in short
            self.notify(ChatPost(chat_recipient(self.state.game), since=self.service.reported,
                                 lang=self.service.audience.chat_lang))
        self.service = replace(self.service, reported=self.log_length)

    def reset_misses(self, player: str) -> None:
        seats = tuple(replace(s, misses=0) if s.name == player else s
                      for s in self.service.seats)
        self.service = replace(self.service, seats=seats)


def _touched(state: GameState, window: Window) -> tuple[str, ...]:
    """The players an attack about to be settled concerns: its attacker, the target's
    owner, and whoever answered it with money or cards (``NO RESPONSE`` does not)."""
    attack = state.attack
    assert attack is not None
    owner = state.owner(attack.target)
    names = [attack.player, *([owner.name] if owner is not None else []),
             *(a.player for a in window.answers
               if a.stance is not None or a.plays or a.abolish or a.reactions or a.counter)]
    if window.attacker is not None and window.attacker.reactions:
        names.append(window.attacker.player)
    return tuple(dict.fromkeys(names))
