"""The mails a step calls for, one frozen value per kind (``pbem.service.notice_mails`` renders
each kind by a table from its type).

Each kind says its ``place`` in the step's mail order: the step's mails go out sorted by
it, those of one place in the order they were called for (``Table.in_mail_order``). The
answer to the mail processed and a new seat's welcome (password first) come before all
else.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, fields, replace
from typing import Any, ClassVar, Literal

from pbem.engine.events import Event
from pbem.engine.state import GameState, GroupOffer
from pbem.reports.context import ServiceSettings
from pbem.service.entries import GmEvent
from pbem.service.model import GameService

FIRST, IN_TURN = 0, 1  # places in the mail order: before all else, as called for


@dataclass(frozen=True)
class Notice:
    """A mail the step implies: the player it goes to ("" = the GM) and the game as it stood
    when the mail was called for (set by ``Table.notify``). ``kind`` names the templates of
    the kinds rendered from their fields alone."""

    kind: ClassVar[str]
    place: ClassVar[int] = IN_TURN
    tells_news: ClassVar[bool] = False  # a report: its mail shows the news since ``news_since``
    to: str
    state: GameState | None = field(default=None, kw_only=True, compare=False)
    service: GameService | None = field(default=None, kw_only=True, compare=False)
    # What the reader's mails folded away told (``pbem.service.digest.deliver``), carried by
    # the first mail of the step to them: the (line, order, words) of the order mails left
    # unanswered, and the log entry the untold news start at (None: none).
    folded: tuple[tuple[int, str, str], ...] = field(default=(), kw_only=True, compare=False)
    untold: int | None = field(default=None, kw_only=True, compare=False)
    # The Message-IDs of those order mails: the carrying mail refers to them (References).
    folded_mails: tuple[str, ...] = field(default=(), kw_only=True, compare=False)
    # A report's other players whose structure's picture is left out, unchanged but for its
    # money since the last report that showed it to the reader (``deliver``).
    unchanged: tuple[str, ...] = field(default=(), kw_only=True, compare=False)

    @property
    def data(self) -> dict[str, Any]:
        """The kind's own fields, by name."""
        return {f.name: getattr(self, f.name) for f in fields(self)
                if f.name not in ("to", "state", "service", "folded", "untold",
                                  "folded_mails", "unchanged")}

    def get(self, name: str, default: Any = None) -> Any:
        """A field by name, as a dict gives a key: the templates of the kinds rendered from
        their fields alone read optional ones so, and render plain dicts too."""
        return getattr(self, name, default)

    @property
    def news_since(self) -> int | None:
        """The log entry the mail's news start at; None: at the reader's last report."""
        return None

    def folds(self, earlier: Notice) -> Notice | None:
        """This notice standing for ``earlier`` too (one mail for both), or None when each
        is a mail of its own. One mail gets at most one answer of each kind: a mail of
        10,000 STATUS lines gets one report (issue 44)."""
        return None

    def cancels(self, earlier: Notice) -> bool:
        """True when this notice undoes ``earlier`` of the same step: neither is mailed."""
        return False

    @property
    def reply_to(self) -> str | None:
        """The Message-ID of the mail this one answers."""
        return None


@dataclass(frozen=True)
class Ack(Notice):
    """The answer to an order mail: each order's fate."""

    kind = "ack"
    place = FIRST
    results: Sequence[Any]  # OrderResult
    warnings: Sequence[str]
    pending: str = ""
    withdrew: bool = False  # an offer withdrawn, and no other mail to the writer
    answers: str | None = None  # the Message-ID of the order mail

    @property
    def reply_to(self) -> str | None:
        return self.answers


@dataclass(frozen=True)
class AlreadyDone(Notice):
    """The answer to an order mail whose orders were carried out already (a resend): when
    (ISO), and the STEP to write to give them again."""

    kind = "already_done"
    place = FIRST
    at: str
    turn: int
    answers: str | None = None  # the Message-ID of the order mail

    @property
    def reply_to(self) -> str | None:
        return self.answers


@dataclass(frozen=True)
class Welcome(Notice):
    kind = "welcome"
    place = FIRST
    password: str
    settings: ServiceSettings
    answers: str | None = None  # the TAKEOVER mail it answers, when one did

    @property
    def reply_to(self) -> str | None:
        return self.answers


@dataclass(frozen=True)
class ResponseRequest(Notice):
    kind = "response_request"


@dataclass(frozen=True)
class AttackOutcome(Notice):
    """An attack settled: its events. ``touched``: the players it concerns (its attacker, the
    target's owner, whoever put money or cards into it), who get it in a mail of its own;
    the others read it in their next mail, from the log entry ``logged`` on
    (``pbem.service.digest``)."""

    kind = "attack_result"
    events: Sequence[Event]
    attacker: str
    touched: tuple[str, ...] = ()
    logged: int = 0


@dataclass(frozen=True)
class TurnReport(Notice):
    kind = "turn_report"
    tells_news = True
    since: int | None = None
    offer: GroupOffer | None = None  # the offer the report asks the reader to answer

    @property
    def news_since(self) -> int | None:
        return self.since


@dataclass(frozen=True)
class StatusReport(Notice):
    """The turn report a STATUS order asks for (what happened since the last one)."""

    kind = "status"
    tells_news = True

    def folds(self, earlier: Notice) -> Notice | None:
        return self if type(earlier) is StatusReport and earlier.to == self.to else None


@dataclass(frozen=True)
class GameOver(Notice):
    kind = "game_over"
    tells_news = True
    since: int | None = None

    @property
    def news_since(self) -> int | None:
        return self.since


@dataclass(frozen=True)
class Reminder(Notice):
    kind = "reminder"
    about: Literal["orders", "response", "offer"]


@dataclass(frozen=True)
class OfferAnswered(Notice):
    kind = "offer_answered"
    events: Sequence[Event]
    giver: str
    receiver: str
    group: str
    silence: bool = False
    turn_over: bool = False
    waiting: bool = False


@dataclass(frozen=True)
class PressRelay(Notice):
    kind = "press"
    sender: str  # "" when the game's press is grey: the reader is not told who wrote it
    text: str
    to_all: bool
    others: tuple[str, ...] = ()  # the other players it went to


@dataclass(frozen=True)
class HistoryReply(Notice):
    kind = "history"
    turns: int | None = None  # the last so many turns; None: all

    def folds(self, earlier: Notice) -> Notice | None:
        """One history for the reader, as long as the longest asked."""
        if not isinstance(earlier, HistoryReply) or earlier.to != self.to:
            return None
        wanted = (None if self.turns is None or earlier.turns is None
                  else max(self.turns, earlier.turns))
        return replace(self, turns=wanted)


@dataclass(frozen=True)
class GmNews(Notice):
    """An override of the game master told to a player: its engine events, its GM event."""

    kind = "gm"
    events: Sequence[Event] = ()
    gm: GmEvent | None = None


@dataclass(frozen=True)
class StandingOrders(Notice):
    kind = "standing"


@dataclass(frozen=True)
class HelpReply(Notice):
    kind = "help"
    topic: str = ""
    forms: tuple[str, ...] = ()

    def folds(self, earlier: Notice) -> Notice | None:
        return self if (isinstance(earlier, HelpReply) and earlier.to == self.to
                        and earlier.topic.casefold() == self.topic.casefold()) else None


@dataclass(frozen=True)
class OrderFailed(Notice):
    """An order given earlier, refused when its moment came."""

    kind = "order_failed"
    reason: str
    suggestion: str = ""
    line: int = 0
    order: str = ""
    skipped: Sequence[tuple[int, str]] = ()  # (line, text) of those that were to follow


@dataclass(frozen=True)
class OddsReply(Notice):
    """The answer to an ODDS that waited behind an attack: its breakdown now, or why the
    attack could not be made now."""

    kind = "odds"
    order: str
    need: int = 0
    chance: int = 0
    terms: tuple[tuple[str, str, int], ...] = ()
    reason: str = ""


@dataclass(frozen=True)
class GoalDealt(Notice):
    """To the UFOs who did not choose their goal in time: the goal dealt at random stands."""

    kind = "goal_dealt"
    goal: str


@dataclass(frozen=True)
class GmAlert(Notice):
    """To the game master: a player missed deadlines, or only one is left playing."""

    kind = "gm_alert"
    player: str = ""
    misses: int = 0
    alone: str = ""


@dataclass(frozen=True)
class OrdersDropped(Notice):
    kind = "orders_dropped"
    lines: tuple[str, ...]


@dataclass(frozen=True)
class AttackCalledOff(Notice):
    kind = "called_off"
    attacker: str
    target: str


@dataclass(frozen=True)
class PlayerOut(Notice):
    kind = "eliminated"


@dataclass(frozen=True)
class Absent(Notice):
    """A player's absence set or cancelled, told to the others and the game master."""

    kind = "absence"
    player: str
    start: str  # ISO times
    end: str
    stand_in: str  # the house rule: "wait", "pass" or "bot"
    cancelled: bool = False
    by_gm: bool = False  # cancelled by the game master

    def folds(self, earlier: Notice) -> Notice | None:
        """One mail to a reader about one absence, as it stands after the whole mail."""
        return self if self._same(earlier) else None

    def cancels(self, earlier: Notice) -> bool:
        """An absence set and cancelled in one mail is no news to the others: 50 SET
        ABSENCE and CANCEL ABSENCE pairs in one mail make no mail to them (issue 44)."""
        return (self.cancelled and not self.by_gm and self._same(earlier)
                and isinstance(earlier, Absent) and not earlier.cancelled)

    def _same(self, earlier: Notice) -> bool:
        return (isinstance(earlier, Absent) and earlier.to == self.to
                and (earlier.player, earlier.start, earlier.end)
                == (self.player, self.start, self.end))


@dataclass(frozen=True)
class StoodIn(Notice):
    """To a player back from an absence a bot played their seat in (house rule ``bot``):
    what was done in their name, from the log entry ``since`` the stand-in began."""

    kind = "stood_in"
    start: str  # the absence, ISO times
    end: str
    since: int = 0

    @property
    def news_since(self) -> int | None:
        return self.since


KINDS: dict[str, type[Notice]] = {c.kind: c for c in (
    Ack, AlreadyDone, Welcome, ResponseRequest, AttackOutcome, TurnReport, StatusReport,
    GameOver, Reminder, OfferAnswered, PressRelay, HistoryReply, GmNews, StandingOrders,
    HelpReply, OrderFailed, GmAlert, OrdersDropped, AttackCalledOff, PlayerOut, OddsReply,
    GoalDealt, Absent, StoodIn)}


# --- mail to an address that holds no seat: observers, newcomers (pbem.service.signup) ------


@dataclass(frozen=True)
class ToAddress(Notice):
    """A mail to an address that holds no seat of the game (``to`` is the address), written
    in ``lang`` and the zone ``tz``."""

    lang: str = field(default="en", kw_only=True)
    tz: str = field(default="UTC", kw_only=True)


@dataclass(frozen=True)
class Letter(ToAddress):
    """A short mail of sign-up, observing or takeover: ``template`` rendered from ``words``."""

    kind = "letter"
    place = FIRST
    template: str
    words: tuple[tuple[str, Any], ...] = ()
    answers: str | None = None  # the Message-ID of the mail it answers

    @property
    def reply_to(self) -> str | None:
        return self.answers


@dataclass(frozen=True)
class ObserverReport(ToAddress):
    """An observer's public report, with the news since the last report (or the game's end)."""

    kind = "observer_report"
    since: int | None = None

    @property
    def news_since(self) -> int | None:
        return self.since


@dataclass(frozen=True)
class ObserverPress(ToAddress):
    """Press to ALL, relayed to an observer when the game lets them read it."""

    kind = "observer_press"
    sender: str
    text: str


CHAT = "chat:"
"""Starts the recipient of a chat post in the outbox (``chat:<game>``): not an address, the
daemon hands it to the chat poster, never to the mail server (docs/service.md, "Chat")."""


@dataclass(frozen=True)
class ChatPost(ToAddress):
    """The short public post to the game's chat webhook: whose move, the deadline, what
    everyone saw since the last report. ``to`` is ``CHAT`` and the game's id."""

    kind = "chat_post"
    since: int | None = None
    # An override of the game master told to everyone (a deadline moved, a pause, ...): the
    # post tells it alone, its engine events and its GM entry's event, and not the news.
    override: bool = False
    events: tuple[Event, ...] = ()
    gm: GmEvent | None = None

    @property
    def news_since(self) -> int | None:
        return self.since


def chat_recipient(game: str) -> str:
    """The outbox recipient of ``game``'s chat posts."""
    return CHAT + game


def chat_game(recipient: str) -> str | None:
    """The game a chat post's recipient names; None for a mail's recipient."""
    return recipient[len(CHAT):] if recipient.startswith(CHAT) else None
