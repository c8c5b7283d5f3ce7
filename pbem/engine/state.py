"""The game state: one frozen value that holds everything, the dice included.

``apply(state, command) -> (state, events)`` is deterministic because the chance stream's
position lives here. Values are frozen dataclasses of tuples that round-trip through JSON
(``pbem.engine.codec``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from pbem.engine.cards import Alignment, AttackMode
from pbem.engine.commands import DealSide, PlaySpecial
from pbem.engine.dice import Dice
from pbem.engine.values import evolve

Phase = Literal[
    "turn_start",  # before income: Senate Investigating Committee may be played
    "actions",  # the active player acts
    "attack",  # an attack is announced: spending, interference, privilege
    "after_roll",  # dice rolled: Assassination / Murphy's Law may be played
    "over",
]
PlayerStatus = Literal["playing", "eliminated", "left", "removed"]  # "removed": by the GM


@dataclass(frozen=True)
class Slot:
    """A card in a power structure: its grid cell, rotation, master and treasury.

    ``rotation`` counts quarter turns clockwise: printed side ``i`` (0 top, 1 right, 2 bottom,
    3 left) faces absolute direction ``(i + rotation) % 4`` (0 up, 1 right, 2 down, 3 left).
    """

    card: str
    x: int
    y: int
    rotation: int
    master: str | None
    treasury: int = 0


@dataclass(frozen=True)
class Player:
    name: str
    illuminati: str
    structure: tuple[Slot, ...]  # the Illuminati first, then masters before their puppets
    hand: tuple[str, ...] = ()
    secret_goal: str | None = None  # the UFOs: name of the Illuminati whose goal they chose
    goal_chosen: bool = False  # the UFOs chose ``secret_goal`` (else it was dealt at random)
    destroyed: int = 0  # groups this player destroyed (The Servants of Cthulhu's goal)
    turns: int = 0  # turns this player has begun
    # Of those, turns a stand-in played while the player was away (``BeginTurn.stand_in``):
    # elimination counts only the player's own (``turn.check_eliminations``).
    stood_in: int = 0
    status: PlayerStatus = "playing"

    @property
    def playing(self) -> bool:
        return self.status == "playing"

    @property
    def departed(self) -> bool:
        """Left the game, or removed by the game master: out of play and, unlike an
        eliminated player, sent no reports while the game goes on."""
        return self.status in ("left", "removed")

    def slot(self, card: str) -> Slot | None:
        """The slot holding ``card`` in this structure, if any."""
        for s in self.structure:
            if s.card == card:
                return s
        return None

    @property
    def treasury(self) -> int:
        """Money on the Illuminati card."""
        return self.structure[0].treasury

    @property
    def groups(self) -> tuple[str, ...]:
        """The groups controlled, not counting the Illuminati."""
        return tuple(s.card for s in self.structure[1:])


@dataclass(frozen=True)
class Options:
    """Rule variants of one game; the English rulebook is the default."""

    victory_groups: int = 12
    network_goal: int = 20
    uncontrolled_refill: int = 0
    media_alignment: bool = False
    max_turns: int = 0  # 0: no cap; otherwise the game ends undecided after this many turns
    agreed_end: bool = True  # the players still in the game may all vote to end it


@dataclass(frozen=True)
class Payment:
    """Money put into an attack: who paid, from which card, and on which side."""

    player: str
    source: str  # card whose treasury paid
    amount: int
    side: Literal["attack", "defense", "assist", "interfere"]


@dataclass(frozen=True)
class PendingAttack:
    player: str
    attacker: str
    target: str
    mode: AttackMode
    aids: tuple[str, ...] = ()
    privilege: Literal["none", "card", "bavarian"] = "none"
    privilege_abolished: bool = False
    payments: tuple[Payment, ...] = ()
    transfer_on_success: int = 0  # MB the attacking group moves into a captured group
    whispering: bool = False  # Whispering Campaign: destroy a group of power 0
    roll: tuple[int, int] | None = None
    roll_becomes: int | None = None  # Assassination (2) or Murphy's Law (12): last one governs
    interference_cards: tuple[str, ...] = ()  # players who played Interference on it
    arrow: int = -1  # attack to control: the attacker's arrow for the captured group
    # Players one of whose two abolishing cards was cancelled by Secrets: the other card is
    # already spent, one more card completes the pair.
    abolish_credit: tuple[str, ...] = ()

    @property
    def privileged(self) -> bool:
        return self.privilege != "none" and not self.privilege_abolished

    @property
    def committed(self) -> bool:
        """Money was spent or the dice rolled: the attack can no longer be called off.

        The Bavarian privilege is paid into the bank when the attack is announced, and "Once
        he actually takes money from his treasury and puts it in the bank, the attack is
        committed" (rulebook): such an attack cannot be called off either.
        """
        return bool(self.payments) or self.roll is not None or self.privilege == "bavarian"


@dataclass(frozen=True)
class PendingSpecial:
    """A special card just played, waiting for a possible Secrets Man Was Not Meant To Know.

    ``partner`` is set when the cards are a pair discarded to abolish privilege: ``play.card``
    and ``partner`` (empty when ``play.card`` replaces a card Secrets cancelled).
    """

    play: PlaySpecial
    partner: str = ""
    abolish: bool = False

    @property
    def player(self) -> str:
        return self.play.player

    @property
    def card(self) -> str:
        return self.play.card


@dataclass(frozen=True)
class GroupOffer:
    """A group offered to another player, waiting for their acceptance."""

    giver: str
    receiver: str
    group: str


@dataclass(frozen=True)
class Deal:
    """An exchange proposed by one player to another, made at once and whole when accepted
    (rulebook-en, When Is a Deal Binding?), or not at all."""

    number: int  # the deal's number in the game, for ACCEPT DEAL <n>
    proposer: str
    partner: str
    gives: DealSide  # what the proposer gives
    takes: DealSide  # what the partner gives
    turn: int  # the game's turn it was proposed in: it lapses at that turn's end


@dataclass(frozen=True)
class EndVote:
    """A player's vote to end the game by agreement, won by ``winners`` (none: no winner)."""

    player: str
    winners: tuple[str, ...] = ()


@dataclass(frozen=True)
class TurnState:
    actions: int = 0  # regular actions used (two allowed)
    free_transfers: int = 0  # free money transfers used (two allowed)
    did_anything: bool = False  # any action or free action: passing is then impossible
    attacked: tuple[str, ...] = ()  # cards that took part in an attack (once each; UFOs twice)
    privileged_bavarian: bool = False  # the Bavarian 5 MB privilege was used this turn
    lasers_used: bool = False
    recyclers_used: bool = False
    market_manipulation: bool = False
    alignment_changes: tuple[tuple[str, tuple[Alignment, ...]], ...] = ()  # Lasers, this turn
    end_powers: bool = False  # end-of-turn powers used: no more actions
    lost: bool = False  # Senate Investigating Committee: the turn is lost
    stood_in: bool = False  # a stand-in plays this turn for its absent player
    # The active player destroyed their own last group this turn: the Servants of Cthulhu's
    # exception to elimination (rulebook-en, Eliminating a Player) holds for this turn only.
    destroyed_own_last: bool = False


@dataclass(frozen=True)
class GameState:
    game: str
    options: Options
    players: tuple[Player, ...]  # in turn order
    deck: tuple[str, ...]  # draw pile, top first
    dice: Dice
    seq: int = 0
    active: int = 0
    phase: Phase = "turn_start"
    turn: TurnState = TurnState()
    turn_number: int = 0  # turns begun in the whole game
    uncontrolled: tuple[str, ...] = ()
    dead: tuple[str, ...] = ()
    discards: tuple[str, ...] = ()
    money_issued: int = 0  # paid out by the bank minus paid back: equals all treasuries
    attack: PendingAttack | None = None
    special: PendingSpecial | None = None
    offer: GroupOffer | None = None
    deals: tuple[Deal, ...] = ()  # deals proposed and not yet answered
    deals_made: int = 0  # deals proposed in the game (numbers the next)
    end_votes: tuple[EndVote, ...] = ()  # votes to end the game by agreement
    winners: tuple[str, ...] = ()
    # Why the game ended: "victory", "turn cap", "no players", "game master", "agreement".
    outcome: str = ""

    @property
    def active_player(self) -> Player:
        return self.players[self.active]

    def player(self, name: str) -> Player:
        """The player named ``name``; KeyError if there is none."""
        for p in self.players:
            if p.name == name:
                return p
        raise KeyError(name)

    def owner(self, card: str) -> Player | None:
        """The player whose structure holds ``card``, if any."""
        for p in self.players:
            if p.slot(card) is not None:
                return p
        return None

    def with_player(self, player: Player) -> GameState:
        """This state with ``player`` (matched by name) replaced."""
        players = tuple(player if p.name == player.name else p for p in self.players)
        return evolve(self, players=players)

    @property
    def money_in_play(self) -> int:
        return sum(s.treasury for p in self.players for s in p.structure)
