"""The service's own record of a game, beside the engine state: seats, deadlines, the open
response window, queued orders, standing orders. Frozen values that round-trip through JSON.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from datetime import datetime
from typing import Any

from pbem.engine.bidding import Stance
from pbem.errors import IllegalCommandError
from pbem.orders.model import (
    ConditionalPlay,
    Order,
    StandingAttackReaction,
    StandingCounter,
    StandingDefend,
    StandingNeverInterfere,
    StandingTurnReaction,
)

StandingOrder = (
    StandingDefend | StandingNeverInterfere | StandingAttackReaction | StandingTurnReaction
    | StandingCounter
)


@dataclass(frozen=True)
class Absence:
    """A time a player is away (``SET ABSENCE``): from ``start`` to ``end``, ISO times in
    UTC."""

    start: str
    end: str


@dataclass(frozen=True)
class Former:
    """Someone who played a seat before it passed on (a takeover, ``pbem replace``): their
    address, when it passed (ISO, UTC), and how they wanted their mail. Their later mail to
    the game is told the seat is no longer theirs (``pbem.service.takeover``)."""

    address: str
    at: str
    lang: str = "en"
    tz: str = "UTC"


@dataclass(frozen=True)
class Seat:
    """A player's seat: who sits there and how they want their mail."""

    name: str
    address: str
    password_hash: str = ""  # "scrypt$salt$hash"; empty until the game starts
    tz: str = "UTC"
    lang: str = "en"
    html: bool = True
    misses: int = 0  # consecutive missed orders deadlines
    bot: bool = False  # a bot plays this seat (the GM's stand-in for a dropped player)
    # The bot's password in clear, as stores of format version 3 kept it while a bot played
    # the seat; read from such a record once, and forgotten (see ``bot_keys``).
    bot_password: str = ""
    # While a bot plays the seat: hashes of the one-time passwords of the bot's latest
    # order mails (newest last); the clear ones live only in those mails (masked once
    # processed) and in memory. Its mail goes through the same authentication as a
    # person's (see docs/service.md).
    bot_keys: tuple[str, ...] = ()
    bot_level: str = "normal"  # how well the bot plays: a pbem.bots.Level
    # Fewer mails (SET MAIL, SET REPORT): "full" or "digest"; "full" or "short".
    mail: str = "full"
    report: str = "full"
    json: bool = False  # SET JSON: the view attached to every report and request
    # What the mails folded away told (pbem.service.digest), for the seat's next mail: the
    # (line, order, words) of the order mails left unanswered, and the log entry from which
    # the news of the attack results and reports left unsent run (None: nothing untold).
    folded: tuple[tuple[int, str, str], ...] = ()
    folded_mails: tuple[str, ...] = ()  # their Message-IDs, which the next mail refers to
    untold: int | None = None
    # The (player, key) of each other player's structure picture the seat's last report
    # with pictures showed (``pbem.reports.mails.picture_keys``): a report leaves out those
    # whose key is the same (``pbem.service.digest.deliver``).
    pictured: tuple[tuple[str, str], ...] = ()
    absences: tuple[Absence, ...] = ()  # SET ABSENCE, oldest first
    # The player's own password hash, kept while a bot plays for them during an absence
    # (house rule stand_in "bot"); "" otherwise. Their password still works meanwhile.
    away_hash: str = ""
    # While a bot stands in for the absent player: the log entry its stand-in began at, so
    # that the player finds on return what was done in their name; -1 otherwise.
    stood_in_from: int = -1
    # The step and seat name whose welcome started the seat's mail thread (docs/service.md,
    # Threads): each welcome starts a new one; "" for a seat welcomed before threads were
    # kept.
    thread: str = ""
    former: tuple[Former, ...] = ()  # who played the seat before, oldest first

    def absence_at(self, moment: datetime) -> Absence | None:
        """The absence ``moment`` falls in, if any."""
        return next((a for a in self.absences
                     if parse_iso(a.start) <= moment < parse_iso(a.end)), None)


@dataclass(frozen=True)
class Timing:
    """Per-game deadlines in hours, reminders in hours before a deadline."""

    orders_hours: float = 72.0
    response_hours: float = 24.0
    reminders: tuple[float, ...] = (12.0,)
    miss_limit: int = 2  # after this many consecutive misses the GM is told
    require_registered_address: bool = True
    close_early: bool = True  # a window closes once everyone asked has answered

    def __post_init__(self) -> None:
        # Hours are often written as whole numbers; the record keeps floats, so it reads
        # back from JSON as the same value.
        object.__setattr__(self, "orders_hours", float(self.orders_hours))
        object.__setattr__(self, "response_hours", float(self.response_hours))
        object.__setattr__(self, "reminders", tuple(float(h) for h in self.reminders))


@dataclass(frozen=True)
class HouseRules:
    """A game's options of the service beside the rules and the deadlines: press and
    absences (docs/service.md, "Press" and "Absences")."""

    # "white": press signed; "grey": the reader does not learn who sent it; "none": refused.
    press: str = "white"
    press_in_attack: bool = True  # press may be sent while an attack waits for answers
    absence_days: int = 14  # the longest one absence may be, in days (0: none allowed)
    absence_days_per_game: int = 28  # all of one player's absences together, in days
    # Who plays an absent player's turn: "wait" (the deadline moves to the absence's end),
    # "pass" (the turn passes at once, no miss counted), "bot" (a bot plays the seat).
    stand_in: str = "wait"
    # Orders are taken only from mail whose From domain's DKIM signature passed, by the word
    # of the trusted mail server ([mail] trusted_authserv_id), besides the password.
    require_dkim: bool = False


HOUSE_CHOICES: dict[str, tuple[str, ...]] = {
    "press": ("white", "grey", "none"), "stand_in": ("wait", "pass", "bot")}
"""The words a house rule given as a word may take."""

HOUSE_RANGES: dict[str, tuple[int, int]] = {
    "absence_days": (0, 365), "absence_days_per_game": (0, 365)}
"""The whole numbers a house rule given as a number may take, lowest and highest
(docs/service.md, "Absences"). ``pbem.service.options`` reads every house rule by these two
tables and the field's type."""

HOUSE_DOCS: dict[str, str] = {
    "press": "white: press is signed with its writer's name; grey: unsigned; none: no press.",
    "press_in_attack": "no: no press while an attack waits for answers.",
    "absence_days": "The longest one absence (SET ABSENCE) may be, in days; 0: none.",
    "absence_days_per_game": "All of one player's absences together, in days.",
    "stand_in": "While a player is away: wait (their deadline moves to the absence's end), "
                "pass (their turn passes at once, no miss counted) or bot (a bot plays it).",
    "require_dkim": "yes: orders are taken only from mail with an aligned DKIM pass by the "
                    "trusted mail server ([mail] trusted_authserv_id), besides the password.",
}
"""What each house rule does, for ``pbem game options`` (docs/service.md says more)."""


def house_rules(options: Mapping[str, Any]) -> tuple[HouseRules, dict[str, Any]]:
    """The game's options split: the house rules among them, and the rest (the rules'
    options, for the engine). A house rule's word is checked here."""
    names = {f.name for f in fields(HouseRules)}
    chosen = {k: v for k, v in options.items() if k in names}
    for key, value in chosen.items():
        if key in HOUSE_CHOICES and value not in HOUSE_CHOICES[key]:
            raise IllegalCommandError(f"{key} is one of {', '.join(HOUSE_CHOICES[key])}, "
                                      f"not {value!r}")
    return HouseRules(**chosen), {k: v for k, v in options.items() if k not in names}


@dataclass(frozen=True)
class Queued:
    """An order of the active player waiting for an attack to be settled."""

    line: int
    text: str
    order: Order


@dataclass(frozen=True)
class Answer:
    """What one player answered in a response window."""

    player: str
    stance: Stance | None = None
    plays: tuple[str, ...] = ()  # cards played at once (Deep Agent, Interference)
    abolish: tuple[str, ...] = ()  # two cards discarded to abolish privilege
    reactions: tuple[ConditionalPlay, ...] = ()
    counter: bool = False  # cancel with Secrets any special card played against me


@dataclass(frozen=True)
class Window:
    """An attack waiting for the answers of the players who may answer it."""

    opened: str  # ISO time
    deadline: str
    asked: tuple[str, ...]
    answers: tuple[Answer, ...] = ()
    seq: int = 0  # the state sequence number once the attack was announced
    attacker: Answer | None = None  # the attacker's own money and reactions
    reminded: tuple[str, ...] = ()

    def answer_of(self, player: str) -> Answer | None:
        """Give ``player``'s answer so far (theirs or a standing order's), None if none."""
        return next((a for a in self.answers if a.player == player), None)

    def answered(self, player: str) -> bool:
        """True when ``player`` answered (or a standing order answered for them)."""
        return self.answer_of(player) is not None

    @property
    def complete(self) -> bool:
        """True when everyone asked has answered."""
        return all(self.answered(p) for p in self.asked)


# --- who follows a game besides its players (observers, seats offered for takeover) ---------


@dataclass(frozen=True)
class Observer:
    """Someone who reads the public part of a game's reports and takes no seat."""

    address: str
    lang: str = "en"
    tz: str = "UTC"


@dataclass(frozen=True)
class Audience:
    """The game's observers and what they may do; the seats offered for takeover."""

    open: bool = False  # anyone may ask to observe by mail (OBSERVE <game>)
    press: bool = False  # observers read press to ALL
    observers: tuple[Observer, ...] = ()
    offered: tuple[str, ...] = ()  # seats the game master offers for takeover
    # The chat webhook the game posts its public events to (an apprise URL, pbem.service.chat):
    # a token, shown to nobody but the game master's store; "" when the game posts nowhere.
    chat: str = ""
    chat_lang: str = "en"  # the language of its posts

    def observer(self, address: str) -> Observer | None:
        return next((o for o in self.observers if o.address == address.lower()), None)


@dataclass(frozen=True)
class Done:
    """A player's last order mail carried out (``pbem.service.resent``): its orders' digest,
    the turn they were carried out in, the state they left, and when."""

    player: str
    digest: str
    turn_seq: int
    seq_after: int  # the state's sequence number once the mail was carried out
    at: str  # ISO time


@dataclass(frozen=True)
class GameService:
    """Everything about a game that is not the engine state."""

    seats: tuple[Seat, ...]
    timing: Timing = field(default_factory=Timing)
    house: HouseRules = field(default_factory=HouseRules)
    started: bool = False
    paused: bool = False
    deadline: str = ""  # the active player's orders deadline (ISO), "" when none
    reminded: tuple[float, ...] = ()  # reminders already sent for this deadline
    offer_deadline: str = ""  # when a group offered and not yet answered counts as declined
    offer_reminded: bool = False  # the receiver of the group offered was reminded
    window: Window | None = None
    queue: tuple[Queued, ...] = ()
    standing: tuple[tuple[str, StandingOrder], ...] = ()  # (player, order) in order given
    reported: int = 0  # log length at the last turn report: events after it are news
    turn_seq: int = 0  # state sequence number when this turn began: older orders are stale
    # State sequence number when the last attack was settled or called off: an answer
    # written before it may have been meant for that attack, and is stale.
    settled_seq: int = 0
    goal_told: tuple[str, ...] = ()  # the UFOs told that the goal dealt at random stands
    steps: int = 0  # steps committed; names this step's outgoing mails stably
    audience: Audience = field(default_factory=Audience)
    done: tuple[Done, ...] = ()  # each player's last order mail: a resend is not done again

    @property
    def language(self) -> str:
        """Give the language most of its seats read (the game's, as it was made; a tie goes
        to the first seat's), "en" without seats: what a newcomer is written in."""
        languages = [s.lang for s in self.seats]
        return max(languages, key=languages.count) if languages else "en"

    def seat(self, name: str) -> Seat:
        for s in self.seats:
            if s.name == name:
                return s
        raise KeyError(name)

    def standing_of(self, player: str) -> tuple[StandingOrder, ...]:
        return tuple(o for p, o in self.standing if p == player)


def iso(moment: datetime) -> str:
    return moment.isoformat()


def parse_iso(text: str) -> datetime:
    return datetime.fromisoformat(text)
