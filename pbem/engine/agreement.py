"""The game ended by agreement: every player still in it votes for the same ending.

The rules end a game only when a player meets a goal ("The game ends when, at the end of a
turn ... a player meets one of his Goals"); by mail, as every judge offers, the players still
in the game may agree to stop it, won by some of them (a shared victory: "If two or more
players both meet their Goals at the same time, they share the victory") or by no one. It
is the game option ``agreed_end`` (on by default). A vote stands until its player withdraws
or changes it; the vote that makes them all agree ends the game at once.
"""

from __future__ import annotations

from pbem.engine import checks
from pbem.engine import events as ev
from pbem.engine.cards import CardSet
from pbem.engine.commands import VoteEnd, WithdrawVote
from pbem.engine.events import Event
from pbem.engine.state import EndVote, GameState, TurnState
from pbem.engine.values import evolve
from pbem.errors import IllegalCommandError

Result = tuple[GameState, list[Event]]


def vote_end(cards: CardSet, state: GameState, cmd: VoteEnd) -> Result:
    """The player's vote to end the game, won by ``cmd.winners`` (none: no winner); the
    game ends when every player still in it has voted for the same ending."""
    p = checks.playing(state, cmd.player)
    if not state.options.agreed_end:
        raise IllegalCommandError(key="agreed_end_off")
    if state.attack is not None or state.special is not None:
        raise IllegalCommandError(key="vote_mid_attack")
    playing = [x.name for x in state.players if x.playing]
    for name in cmd.winners:
        if name not in playing:
            raise IllegalCommandError(key="vote_winner_gone", name=name, playing=playing)
    winners = tuple(n for n in playing if n in cmd.winners)  # in seat order, once each
    votes = (*(v for v in state.end_votes if v.player != p.name), EndVote(p.name, winners))
    state = evolve(state, end_votes=votes)
    missing = tuple(n for n in playing
                    if not any(v.player == n and v.winners == winners for v in votes))
    events: list[Event] = [ev.EndVoted(player=p.name, winners=winners, missing=missing)]
    if missing:
        return state, events
    state = evolve(state, phase="over", outcome="agreement", winners=winners,
                   turn=TurnState(), offer=None, deals=(), end_votes=())
    return state, [*events, ev.AgreedEnd(winners=winners)]


def withdraw_vote(cards: CardSet, state: GameState, cmd: WithdrawVote) -> Result:
    """The player takes their vote to end the game back."""
    p = checks.playing(state, cmd.player)
    if not any(v.player == p.name for v in state.end_votes):
        raise IllegalCommandError(key="no_end_vote", player=p.name)
    votes = tuple(v for v in state.end_votes if v.player != p.name)
    return evolve(state, end_votes=votes), [ev.EndVoteWithdrawn(player=p.name)]


def forget_votes_of(state: GameState, player: str) -> GameState:
    """The state without ``player``'s vote, nor the votes naming them a winner, as they
    leave play (a vote for a winner no longer in the game can agree with no one's)."""
    votes = tuple(v for v in state.end_votes
                  if v.player != player and player not in v.winners)
    return state if votes == state.end_votes else evolve(state, end_votes=votes)
