"""What happened: one frozen value per kind of event the engine (and the game master's
overrides) tell.

The log keeps today's JSON form of every event, and is the truth::

    {"type": "Event", "kind": "transfer", "data": {"player": ..., "from": ..., ...},
     "visible_to": null}

``Event.data`` is that ``data`` object: the kind's fields in their order, by their log names
(``NAMES``: a field whose log name is a Python keyword, ``from``); a field that defaults to
None is left out while None (an optional fact: the draw of a roll, the bonus card of White
Collar Crime; older logs lack some, e.g. the kind of card of a GM money edit). ``to_json``
and ``from_json`` (``pbem.engine.codec``) read and write that form through ``__json__`` and
``__from_json__``; ``event_of(kind, data)`` builds an event from it.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, ClassVar

from pbem.engine.codec import from_json, to_json


@dataclass(frozen=True)
class Event:
    """Something that happened. ``visible_to`` None means everyone may see it."""

    kind: ClassVar[str] = ""
    NAMES: ClassVar[dict[str, str]] = {}  # field name -> log name, where they differ
    visible_to: tuple[str, ...] | None = field(default=None, kw_only=True)

    @property
    def data(self) -> dict[str, Any]:
        """The event's facts as the log writes them."""
        out: dict[str, Any] = {}
        for f, log_name in _facts(type(self)):
            value = getattr(self, f.name)
            if value is None and f.default is None:
                continue
            out[log_name] = value
        return out

    def __json__(self) -> dict[str, Any]:
        return {"type": "Event", "kind": self.kind, "data": to_json(self.data),
                "visible_to": to_json(self.visible_to)}

    @classmethod
    def __from_json__(cls, data: dict[str, Any]) -> Event:
        if data.get("type", "Event") != "Event":
            raise ValueError(f"expected Event, got {data.get('type')}")
        visible = data.get("visible_to")
        return event_of(data["kind"], from_json(dict[str, Any], data.get("data", {})),
                        visible_to=None if visible is None else tuple(visible))


def event_of(kind: str, data: dict[str, Any],
             visible_to: tuple[str, ...] | None = None) -> Event:
    """The event of ``kind`` whose facts, by their log names, are ``data`` (facts no field
    holds, which no log of ours wrote, are left out); ValueError for an unknown kind."""
    cls = KINDS.get(kind)
    if cls is None:
        raise ValueError(f"unknown event kind {kind!r}")
    names = {log_name: f.name for f, log_name in _facts(cls)}
    return cls(**{names[k]: v for k, v in data.items() if k in names}, visible_to=visible_to)


def _facts(cls: type[Event]) -> tuple[tuple[dataclasses.Field[Any], str], ...]:
    """The fields of an event class, each with its log name."""
    facts = _FACTS.get(cls.kind)
    if facts is None:
        facts = _FACTS[cls.kind] = tuple((f, cls.NAMES.get(f.name, f.name))
                                         for f in dataclasses.fields(cls)
                                         if f.name != "visible_to")
    return facts


_FACTS: dict[str, tuple[tuple[dataclasses.Field[Any], str], ...]] = {}


@dataclass(frozen=True)
class TurnBegins(Event):
    kind = "turn_begins"
    player: str
    turn: int


@dataclass(frozen=True)
class TurnLost(Event):
    kind = "turn_lost"
    player: str


@dataclass(frozen=True)
class Passed(Event):
    kind = "pass"
    player: str
    amount: int


@dataclass(frozen=True)
class EndedTurn(Event):
    kind = "end_turn"
    player: str


@dataclass(frozen=True)
class Refill(Event):
    kind = "refill"
    card: str


@dataclass(frozen=True)
class Victory(Event):
    kind = "victory"
    winners: tuple[str, ...]


@dataclass(frozen=True)
class TurnCap(Event):
    kind = "turn_cap"
    turns: int


@dataclass(frozen=True)
class NextPlayer(Event):
    kind = "next_player"
    player: str


@dataclass(frozen=True)
class NoPlayers(Event):
    kind = "no_players"


@dataclass(frozen=True)
class Removed(Event):
    kind = "removed"
    player: str
    groups: tuple[str, ...]
    reason: str


@dataclass(frozen=True)
class Eliminated(Event):
    kind = "eliminated"
    player: str
    groups: tuple[str, ...]


@dataclass(frozen=True)
class Left(Event):
    kind = "left"
    player: str
    groups: tuple[str, ...]


@dataclass(frozen=True)
class Moved(Event):
    kind = "move"
    player: str
    group: str
    master: str
    arrow: int
    lost: tuple[str, ...]


@dataclass(frozen=True)
class Dropped(Event):
    kind = "drop"
    player: str
    groups: tuple[str, ...]


@dataclass(frozen=True)
class Offered(Event):
    kind = "offer"
    player: str
    to: str
    group: str


@dataclass(frozen=True)
class GroupGiven(Event):
    kind = "gift_group"
    player: str
    to: str
    group: str
    master: str
    arrow: int
    lost: tuple[str, ...]


@dataclass(frozen=True)
class OfferDeclined(Event):
    kind = "offer_declined"
    player: str
    group: str
    giver: str
    unanswered: bool | None = None


@dataclass(frozen=True)
class OfferWithdrawn(Event):
    kind = "offer_withdrawn"
    player: str
    to: str
    group: str


@dataclass(frozen=True)
class OfferEnded(Event):
    kind = "offer_ended"
    giver: str
    receiver: str
    group: str
    player: str
    status: str


@dataclass(frozen=True)
class Lasers(Event):
    kind = "lasers"
    player: str
    group: str
    change: str
    alignment: str
    now: tuple[str, ...]


@dataclass(frozen=True)
class Recyclers(Event):
    kind = "recyclers"
    player: str


@dataclass(frozen=True)
class PowersEnded(Event):
    kind = "end_powers"
    player: str


@dataclass(frozen=True)
class Transfer(Event):
    kind = "transfer"
    NAMES: ClassVar[dict[str, str]] = {"source": "from"}
    player: str
    source: str
    to: str
    amount: int


@dataclass(frozen=True)
class MoneyGiven(Event):
    kind = "gift_money"
    player: str
    to: str
    amount: int


@dataclass(frozen=True)
class CardGiven(Event):
    kind = "gift_card"
    player: str
    to: str
    card: str


@dataclass(frozen=True)
class CardGivenCount(Event):
    kind = "gift_card_count"
    player: str
    to: str


@dataclass(frozen=True)
class AbolishPlayed(Event):
    kind = "abolish_played"
    player: str
    cards: tuple[str, ...]


@dataclass(frozen=True)
class PrivilegeAbolished(Event):
    kind = "privilege_abolished"
    player: str
    cards: tuple[str, ...]


@dataclass(frozen=True)
class IlluminatiDealt(Event):
    kind = "illuminati"
    player: str
    illuminati: str
    treasury: int


@dataclass(frozen=True)
class SecretGoal(Event):
    kind = "secret_goal"
    player: str
    goal: str


@dataclass(frozen=True)
class Uncontrolled(Event):
    kind = "uncontrolled"
    groups: tuple[str, ...]


@dataclass(frozen=True)
class TurnOrder(Event):
    kind = "turn_order"
    order: tuple[str, ...]
    rolls: tuple[tuple[str, int], ...]


@dataclass(frozen=True)
class SpecialPlayed(Event):
    kind = "special_played"
    player: str
    card: str
    group: str
    other: str


@dataclass(frozen=True)
class SpecialCancelled(Event):
    kind = "special_cancelled"
    player: str
    card: str
    owner: str
    lost: str


@dataclass(frozen=True)
class SpecialNoEffect(Event):
    kind = "special_no_effect"
    player: str
    card: str


@dataclass(frozen=True)
class RollBecomes(Event):
    kind = "roll_becomes"
    player: str
    card: str
    roll: int


@dataclass(frozen=True)
class Bribery(Event):
    kind = "bribery"
    player: str
    group: str


@dataclass(frozen=True)
class Espionage(Event):
    kind = "espionage"
    player: str
    looked_at: str
    hand: tuple[str, ...] | None = None
    treasury: int | None = None


@dataclass(frozen=True)
class InterferenceCard(Event):
    kind = "interference_card"
    player: str


@dataclass(frozen=True)
class MarketManipulation(Event):
    kind = "market_manipulation"
    player: str


@dataclass(frozen=True)
class Revived(Event):
    kind = "revived"
    player: str
    group: str


@dataclass(frozen=True)
class Senate(Event):
    kind = "senate"
    player: str
    victim: str


@dataclass(frozen=True)
class MoneyCard(Event):
    kind = "money_card"
    player: str
    card: str
    to: str | None = None
    amount: int = 0


@dataclass(frozen=True)
class Privilege(Event):
    kind = "privilege"
    player: str
    card: str
    amount: int | None = None


@dataclass(frozen=True)
class AttackAnnounced(Event):
    kind = "attack"
    player: str
    attacker: str
    target: str
    mode: str
    aids: tuple[str, ...]
    privileged: bool
    defender: str
    need: int
    whispering: bool


@dataclass(frozen=True)
class Spent(Event):
    kind = "spend"
    player: str
    source: str
    amount: int
    side: str
    need: int


@dataclass(frozen=True)
class CalledOff(Event):
    kind = "called_off"
    player: str
    target: str


@dataclass(frozen=True)
class Rolled(Event):
    kind = "roll"
    player: str
    dice: tuple[int, int]
    draw: int | None = None
    need: int = 0


@dataclass(frozen=True)
class AttackResult(Event):
    kind = "attack_result"
    player: str
    attacker: str
    target: str
    mode: str
    need: int
    dice: tuple[int, int]
    roll: int
    success: bool
    terms: tuple[tuple[str, str, int], ...]
    draw: int | None = None


@dataclass(frozen=True)
class Captured(Event):
    kind = "captured"
    NAMES: ClassVar[dict[str, str]] = {"source": "from"}
    player: str
    group: str
    source: str
    puppets: tuple[str, ...]
    lost: tuple[str, ...]


@dataclass(frozen=True)
class Neutralized(Event):
    kind = "neutralized"
    NAMES: ClassVar[dict[str, str]] = {"source": "from"}
    player: str
    source: str
    groups: tuple[str, ...]


@dataclass(frozen=True)
class Destroyed(Event):
    kind = "destroyed"
    NAMES: ClassVar[dict[str, str]] = {"source": "from"}
    player: str
    group: str
    source: str
    freed: tuple[str, ...]


@dataclass(frozen=True)
class Income(Event):
    kind = "income"
    player: str
    card: str
    amount: int


@dataclass(frozen=True)
class IrsTax(Event):
    kind = "irs_tax"
    player: str
    to: str
    amount: int


@dataclass(frozen=True)
class PostOffice(Event):
    kind = "post_office"
    player: str
    paid_by: str


@dataclass(frozen=True)
class DeckEmpty(Event):
    kind = "deck_empty"
    player: str


@dataclass(frozen=True)
class DrewSpecial(Event):
    kind = "drew_special"
    player: str
    card: str


@dataclass(frozen=True)
class DrewSpecialCount(Event):
    kind = "drew_special_count"
    player: str


@dataclass(frozen=True)
class DrewGroup(Event):
    kind = "drew_group"
    player: str
    card: str


@dataclass(frozen=True)
class GmMoney(Event):
    kind = "gm_money"
    card: str
    card_type: str | None = None
    player: str | None = None
    reason: str = ''
    amount: int = 0


@dataclass(frozen=True)
class GmMoneyCount(Event):
    kind = "gm_money_count"
    card: str
    card_type: str | None = None
    player: str | None = None
    reason: str = ''


@dataclass(frozen=True)
class GmMove(Event):
    kind = "gm_move"
    NAMES: ClassVar[dict[str, str]] = {"source": "from"}
    source: str
    place: str
    reason: str
    card: str


@dataclass(frozen=True)
class GmMoveCount(Event):
    kind = "gm_move_count"
    NAMES: ClassVar[dict[str, str]] = {"source": "from"}
    source: str
    place: str
    reason: str


@dataclass(frozen=True)
class GmRename(Event):
    kind = "gm_rename"
    old: str
    new: str
    reason: str


@dataclass(frozen=True)
class GmEnd(Event):
    kind = "gm_end"
    winners: tuple[str, ...]
    reason: str


@dataclass(frozen=True)
class GmNote(Event):
    kind = "gm"
    NAMES: ClassVar[dict[str, str]] = {"gm_kind": "kind", "entry": "data"}
    gm_kind: str
    entry: Any


@dataclass(frozen=True)
class DealProposed(Event):
    kind = "deal_proposed"
    number: int
    player: str
    to: str
    gives: dict[str, Any]  # DealSide's fields: groups, money, cards
    takes: dict[str, Any]


@dataclass(frozen=True)
class DealMade(Event):
    """The exchange was made, whole: what each side gave (the groups moving are told to all
    by their own GroupGiven events; money and cards only to the two)."""

    kind = "deal_made"
    number: int
    player: str  # the proposer
    to: str
    gives: dict[str, Any]
    takes: dict[str, Any]


@dataclass(frozen=True)
class DealFailed(Event):
    """The deal was accepted but could not be made as proposed: nothing changed hands.
    ``reason`` is the refusal's key, ``words`` its values (as an IllegalCommandError's)."""

    kind = "deal_failed"
    number: int
    player: str
    to: str
    reason: str
    words: dict[str, Any]


@dataclass(frozen=True)
class DealEnded(Event):
    """The deal ended unmade: ``how`` is "declined", "withdrawn", "lapsed" (the end of the
    turn it was proposed in) or "gone" (a party left the game)."""

    kind = "deal_ended"
    number: int
    player: str
    to: str
    how: str


@dataclass(frozen=True)
class EndVoted(Event):
    kind = "end_voted"
    player: str
    winners: tuple[str, ...]
    missing: tuple[str, ...]  # the players still in the game who have not voted so


@dataclass(frozen=True)
class EndVoteWithdrawn(Event):
    kind = "end_vote_withdrawn"
    player: str


@dataclass(frozen=True)
class AgreedEnd(Event):
    kind = "agreed_end"
    winners: tuple[str, ...]


# Each kind of event by its name in the log.
KINDS: dict[str, type[Event]] = {c.kind: c for c in (
    TurnBegins, TurnLost, Passed, EndedTurn, Refill, Victory, TurnCap, NextPlayer, NoPlayers,
    Removed, Eliminated, Left, Moved, Dropped, Offered, GroupGiven, OfferDeclined,
    OfferWithdrawn, OfferEnded, Lasers, Recyclers, PowersEnded, Transfer, MoneyGiven, CardGiven,
    CardGivenCount, AbolishPlayed, PrivilegeAbolished, IlluminatiDealt, SecretGoal,
    Uncontrolled, TurnOrder, SpecialPlayed, SpecialCancelled, SpecialNoEffect, RollBecomes,
    Bribery, Espionage, InterferenceCard, MarketManipulation, Revived, Senate, MoneyCard,
    Privilege, AttackAnnounced, Spent, CalledOff, Rolled, AttackResult, Captured, Neutralized,
    Destroyed, Income, IrsTax, PostOffice, DeckEmpty, DrewSpecial, DrewSpecialCount, DrewGroup,
    GmMoney, GmMoneyCount, GmMove, GmMoveCount, GmRename, GmEnd, GmNote,
    DealProposed, DealMade, DealFailed, DealEnded, EndVoted, EndVoteWithdrawn, AgreedEnd,
)}
