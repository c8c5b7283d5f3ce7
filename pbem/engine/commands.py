"""Command values: everything a player (or the game itself) can do.

Each is a small frozen dataclass; ``pbem.orders`` gives each a canonical text form that parses
back to it. ``player`` is the player's name; ``SYSTEM`` marks the steps the service takes
itself (beginning a turn, rolling, settling).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from pbem.engine.cards import Alignment, AttackMode

SYSTEM = "*"


@dataclass(frozen=True)
class BeginTurn:
    """Income and card draw for the active player (after start-of-turn reactions).
    ``stand_in``: the player is away and a stand-in plays the turn (the service's house
    rules ``pass`` and ``bot``): it is not one of "his" turns for elimination."""

    player: str = SYSTEM
    stand_in: bool = False


@dataclass(frozen=True)
class Attack:
    player: str
    attacker: str  # the attacking group (or the Illuminati card)
    target: str
    mode: AttackMode
    aids: tuple[str, ...] = ()  # groups lending transferable power, announced up front
    privilege: Literal["none", "card", "bavarian"] = "none"
    privilege_card: str = ""  # the special card discarded for privilege
    transfer_on_success: int = 0  # MB moved from the attacker into a captured group
    # Attack to control: the absolute direction (0 up, 1 right, 2 down, 3 left) of the
    # attacker's open outgoing arrow the captured group will hang from; -1: the first open one.
    arrow: int = -1


@dataclass(frozen=True)
class Spend:
    """Money into the pending attack: the attacker's or the defender's."""

    player: str
    source: str  # the card whose treasury pays
    amount: int


@dataclass(frozen=True)
class Interfere:
    """Another player's money from their Illuminati treasury, for or against the attacker."""

    player: str
    amount: int
    side: Literal["assist", "interfere"]


@dataclass(frozen=True)
class AbolishPrivilege:
    """Discard two special cards to end someone else's privilege on the pending attack.

    One card only when it replaces a card of an earlier pair that Secrets Man Was Not Meant
    To Know cancelled ("the other one is lost unless the player can replace it").
    """

    player: str
    cards: tuple[str, ...]


@dataclass(frozen=True)
class CallOff:
    player: str


@dataclass(frozen=True)
class Roll:
    player: str = SYSTEM


@dataclass(frozen=True)
class Settle:
    """Apply the rolled attack's result once the after-roll cards have been played."""

    player: str = SYSTEM


@dataclass(frozen=True)
class PlaySpecial:
    """Play a special card. Which fields matter depends on the card."""

    player: str
    card: str
    group: str = ""  # Bribery, Whispering Campaign (target), Media Campaign (revived)
    attacker: str = ""  # Whispering Campaign: the attacking group
    aids: tuple[str, ...] = ()  # Whispering Campaign: groups aiding the attack
    privilege: Literal["none", "card", "bavarian"] = "none"  # Whispering Campaign
    privilege_card: str = ""  # Whispering Campaign: the special card discarded for privilege
    other: str = ""  # Computer Espionage: the player or group looked at
    moves: tuple[tuple[str, str, int], ...] = ()  # White Collar Crime: (from, to, MB)
    bonus_to: str = ""  # White Collar Crime: where the 5 MB go
    master: str = ""  # Bribery: the card the bribed group hangs from ("": first open arrow)
    arrow: int = -1  # Bribery: the direction of that card's open arrow (-1: its first)


# The card of a Counter logged without one: logs were written when the card had this default
# (the shipped set's one counter card, no pack yet); read back as they meant it. New code
# names the card, the one the card data says cancels (pbem.engine.behaviour.counter_in).
OLD_LOG_COUNTER_CARD = "Secrets Man Was Not Meant To Know"


@dataclass(frozen=True)
class Counter:
    """A card that cancels another (``timing = "counter"``: Secrets Man Was Not Meant To
    Know) against the special card just played."""

    player: str
    card: str

    def __json__(self) -> dict[str, Any]:
        return {"type": "Counter", "player": self.player, "card": self.card}

    @classmethod
    def __from_json__(cls, data: dict[str, Any]) -> Counter:
        return cls(data["player"], data.get("card", OLD_LOG_COUNTER_CARD))


@dataclass(frozen=True)
class ResolveSpecial:
    """No one countered the special card just played: it takes effect."""

    player: str = SYSTEM


@dataclass(frozen=True)
class TransferMoney:
    player: str
    source: str
    dest: str
    amount: int


@dataclass(frozen=True)
class MoveGroup:
    player: str
    group: str
    master: str
    arrow: int  # absolute direction of the master's outgoing arrow (0 up, 1 right, ...)


@dataclass(frozen=True)
class DropGroup:
    player: str
    group: str


@dataclass(frozen=True)
class OfferGroup:
    """Give a group away on your turn; the receiver must accept."""

    player: str
    group: str
    to: str


@dataclass(frozen=True)
class AcceptGroup:
    player: str
    master: str = ""  # where to hang it; empty: the first open arrow from the Illuminati out
    arrow: int = -1


@dataclass(frozen=True)
class DeclineGroup:
    player: str
    # Nobody answered: the offer's deadline, or the giver's turn, ran out. The service says
    # so; a player's DECLINE never does.
    unanswered: bool = False


@dataclass(frozen=True)
class WithdrawOffer:
    """The giver takes back the group offered before its receiver answers: no deal is made
    until the receiver agrees ("When two players agree to a deal, it is binding if they make
    the exchange immediately")."""

    player: str


@dataclass(frozen=True)
class GiveMoney:
    player: str
    to: str
    amount: int


@dataclass(frozen=True)
class GiveCard:
    player: str
    to: str
    card: str


@dataclass(frozen=True)
class ChooseGoal:
    """The UFOs choose in secret the special goal they play for: that of ``goal``."""

    player: str
    goal: str


@dataclass(frozen=True)
class Pass:
    """No actions at all this turn; collect 5 MB. ``stand_in``: the service passes it for a
    player away at its deadline (house rules ``pass`` and ``bot``): the turn is not one of
    "his" for elimination, as ``BeginTurn.stand_in``."""

    player: str
    stand_in: bool = False


@dataclass(frozen=True)
class UseLasers:
    """Orbital Mind Control Lasers: add, remove or reverse one alignment of one group."""

    player: str
    group: str
    change: Literal["add", "remove", "reverse"]
    alignment: Alignment


@dataclass(frozen=True)
class UseRecyclers:
    """The Recyclers pay 5 MB from their own treasury to draw a card."""

    player: str


@dataclass(frozen=True)
class EndPowers:
    """Begin the end-of-turn powers (Gnomes' money, Bermuda's reorganizing): no more actions."""

    player: str


@dataclass(frozen=True)
class EndTurn:
    player: str


@dataclass(frozen=True)
class LeaveGame:
    player: str


@dataclass(frozen=True)
class GmSetMoney:
    """Game master's edit: set the money on a card, with the reason."""

    player: str
    card: str
    amount: int
    reason: str


@dataclass(frozen=True)
class GmMoveCard:
    """Game master's edit: put a card somewhere else (uncontrolled, dead, deck, a hand)."""

    player: str
    card: str
    place: str  # "uncontrolled", "dead", "deck", "discards", or "hand:<player>"
    reason: str


@dataclass(frozen=True)
class GmRenamePlayer:
    """Game master's edit: the player ``seat`` is called ``name`` from now on."""

    player: str
    seat: str
    name: str
    reason: str = ""


@dataclass(frozen=True)
class GmRemovePlayer:
    """Game master's decision: the player ``seat`` leaves the game, as if they dropped out."""

    player: str
    seat: str
    reason: str = ""


@dataclass(frozen=True)
class GmEndGame:
    """Game master's decision: the game ends now, won by ``winners`` (none: no one won)."""

    player: str
    winners: tuple[str, ...]
    reason: str


@dataclass(frozen=True)
class DealSide:
    """What one side of a deal gives: groups (each with its puppets), megabucks from its
    Illuminati treasury, special cards."""

    groups: tuple[str, ...] = ()
    money: int = 0
    cards: tuple[str, ...] = ()

    @property
    def empty(self) -> bool:
        return not (self.groups or self.money or self.cards)


@dataclass(frozen=True)
class ProposeDeal:
    """An exchange proposed to another player: what each side gives, made at once and whole
    if they accept."""

    player: str
    to: str
    gives: DealSide
    takes: DealSide


@dataclass(frozen=True)
class AcceptDeal:
    player: str
    number: int


@dataclass(frozen=True)
class DeclineDeal:
    player: str
    number: int


@dataclass(frozen=True)
class WithdrawDeal:
    player: str
    number: int


@dataclass(frozen=True)
class VoteEnd:
    """A vote to end the game by agreement, won by ``winners`` (none: no one wins)."""

    player: str
    winners: tuple[str, ...] = ()


@dataclass(frozen=True)
class WithdrawVote:
    player: str


Command = (
    BeginTurn
    | Attack
    | Spend
    | Interfere
    | AbolishPrivilege
    | CallOff
    | Roll
    | Settle
    | PlaySpecial
    | Counter
    | ResolveSpecial
    | TransferMoney
    | MoveGroup
    | DropGroup
    | OfferGroup
    | AcceptGroup
    | DeclineGroup
    | WithdrawOffer
    | GiveMoney
    | GiveCard
    | ChooseGoal
    | Pass
    | UseLasers
    | UseRecyclers
    | EndPowers
    | EndTurn
    | LeaveGame
    | GmSetMoney
    | GmMoveCard
    | GmRenamePlayer
    | GmRemovePlayer
    | GmEndGame
    | ProposeDeal
    | AcceptDeal
    | DeclineDeal
    | WithdrawDeal
    | VoteEnd
    | WithdrawVote
)
