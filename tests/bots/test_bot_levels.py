"""Bot levels: each Illuminati plays to its own goal, bots decide from their view only, they
never stall, and games with mixed levels run clean."""

from __future__ import annotations

import random
from dataclasses import replace

from factory import (
    BAVARIA,
    BERMUDA,
    CARDS,
    CTHULHU,
    GNOMES,
    chain,
    deal,
    free,
    game,
    in_round,
    money,
    place,
)

from pbem import bots
from pbem.bots import mailbots, play
from pbem.bots.belief import belief
from pbem.bots.search import best_action
from pbem.bots.simulate import BotTable, play_game
from pbem.engine.bidding import Stance
from pbem.engine.commands import Attack, DropGroup
from pbem.engine.rules import apply
from pbem.engine.setup import Setup, StartingSeat, new_game
from pbem.engine.state import GameState, Options
from pbem.engine.structure import open_arrows
from pbem.engine.victory import victory_allowed
from pbem.engine.view import view


def _board(illuminati: str) -> GameState:
    """``me`` (``illuminati``) with a strong group, two more (a structure safe from
    elimination, even for a player whose goal destroys groups: ``search.DESTROYER_EXPOSED``)
    and money, and one uncontrolled group easier to destroy than to control (power 1,
    resistance 4)."""
    state = game(me=illuminati, other=BAVARIA)
    state = place(place(state, "me", "The Mafia", treasury=8), "me", "Boy Sprouts")
    state = place(state, "me", "Loan Sharks")
    state = in_round(state, 3)
    state = money(state, "me", illuminati, 12)
    return free(state, "Convenience Stores")


def test_the_servants_of_cthulhu_prefer_a_reasonable_destroy() -> None:
    """rulebook-en: "The Servants of Cthulhu ... Destroy at least 8 groups"; an attack to
    destroy "can be made against any other Group in play" (uncontrolled ones too). The
    Servants' bots (normal and strong) destroy; the Bavarians' never destroy a free group."""
    state = _board(CTHULHU)
    plans = bots.plan_attacks(CARDS, state, state.player("me"))
    assert plans[0].attack.mode == "destroy" and state.owner(plans[0].attack.target) is None
    chosen = best_action(CARDS, belief(CARDS, view(CARDS, state, "me")), "me",
                         random.Random(1)).command
    assert isinstance(chosen, Attack) and chosen.mode == "destroy"
    other = game(me=GNOMES, other=BAVARIA)
    other = free(in_round(place(other, "me", "The Mafia", treasury=8), 3),
                 "Convenience Stores")
    assert all(p.attack.mode != "destroy" for p in bots.plan_attacks(CARDS, other,
                                                                     other.player("me")))
    easy = bots.plan_attacks(CARDS, state, state.player("me"), "easy")
    assert all(p.attack.mode != "destroy" for p in easy)  # easy is blind to its goal


def test_the_gnomes_keep_their_money_and_the_bermuda_triangle_seeks_alignments() -> None:
    """rulebook-en: the Gnomes of Zurich win with "a total of 150 megabucks", the Bermuda
    Triangle by controlling "at least one Group of each alignment": the Gnomes' bot puts
    less money into an attack; Bermuda's values a group of a new alignment above one of an
    alignment it holds."""
    assert bots.money_plan(2, 30, hoards=True)[0] < bots.money_plan(2, 30)[0]
    state = game(me=BERMUDA, other=BAVARIA)
    state = place(state, "me", "The Mafia")  # Criminal
    aim = bots.aim_of(CARDS, state, state.player("me"))
    assert "Criminal" in aim.present
    new = bots.goal_bonus(CARDS, state, "Boy Sprouts", aim)  # Straight: new to it
    criminal = bots.goal_bonus(CARDS, state, "Loan Sharks", aim)  # Criminal, held already
    assert new > criminal


def _mid_game(seed: int = 3) -> BotTable:
    """A seeded 4-player bot game, played until its 9th turn's actions, at mixed levels."""
    seats = tuple(StartingSeat(f"p{i}") for i in range(4))
    state, _ = new_game(CARDS, Setup("g", seats, f"{seed:064x}"))
    table = BotTable(CARDS, state, random.Random(seed),
                     levels={"p0": "strong", "p1": "normal", "p2": "easy", "p3": "strong"})
    while not (table.state.turn_number >= 9 and table.state.phase == "actions"
               and not table.state.turn.did_anything):
        table.step()
    return table


def _hidden_changed(state: GameState, me: str) -> GameState:
    """Every other player's hidden things changed: hands and treasuries."""
    players = []
    specials = [s.name for s in CARDS.specials]
    for i, p in enumerate(state.players):
        if p.name != me:
            structure = tuple(replace(s, treasury=s.treasury + 7 * (i + 1) + j)
                              for j, s in enumerate(p.structure))
            p = replace(p, structure=structure, hand=tuple(specials[i:i + 3]))
        players.append(p)
    issued = sum(s.treasury for p in players for s in p.structure)
    return replace(state, players=tuple(players), money_issued=issued)


def test_a_bot_decides_from_its_view_only() -> None:
    """view.py: other players' special cards and treasuries are hidden. Whatever they are,
    the bot's decision is the same: at every level, by the table of ``pbem simulate`` and by
    the mail bot, for the whole turn's orders."""
    table = _mid_game()
    me = table.state.active_player.name
    changed = _hidden_changed(table.state, me)
    assert changed != table.state
    for level in bots.LEVELS:
        decisions = []
        for state in (table.state, changed):
            twin = BotTable(CARDS, state, random.Random(5), levels={me: level})
            twin.gift_turn = state.turn_number  # no gift drawn: the decision alone
            twin.step()
            decisions.append(twin.log[:1])
            mail = mailbots.orders_for(CARDS, view(CARDS, state, me), level)
            decisions.append(mail)
        assert decisions[0] == decisions[2] and decisions[1] == decisions[3], level
        assert decisions[0] and decisions[1]


def test_a_bot_with_no_open_arrow_drops_a_group_to_free_one() -> None:
    """rulebook-en: "If a Group has no open outward-pointing arrow ... it cannot attempt to
    control another Group"; a group may be dropped (a free action). A bot boxed in drops
    its least group so that its structure can grow again: it never stalls."""
    state = game(me=BAVARIA, other=GNOMES)
    for group in ("Boy Sprouts", "Intellectuals", "Punk Rockers", "Trekkies"):
        state = place(state, "me", group)  # no outgoing arrow: the Illuminati are full
    state = free(in_round(state, 3), "Cycle Gangs")
    me = state.player("me")
    assert not any(open_arrows(CARDS, me, s.card) for s in me.structure)
    drop = bots.free_an_arrow(CARDS, state, me)
    assert isinstance(drop, DropGroup)
    chosen = play.action(CARDS, state, "me", "normal", random.Random(1)).command
    assert chosen == drop
    roomy = chain(game(me=BAVARIA, other=GNOMES), "me", "The Mafia")
    assert bots.free_an_arrow(CARDS, roomy, roomy.player("me")) is None


def test_a_whole_game_with_mixed_levels_runs_clean() -> None:
    """Every invariant after every command, the log replays, and the game is decided."""
    result = play_game(CARDS, 0, 4, 11, levels=("strong", "normal", "easy", "strong"))
    assert result.violations == []
    assert result.outcome == "victory" and result.winners
    assert [level for _, _, level in sorted(result.seats)] == ["strong", "normal", "easy",
                                                                 "strong"]
    assert len(result.decisions) > 10


def test_the_response_window_defends_what_matters_and_interferes_against_the_leader() -> None:
    """rulebook-en: "the defender may counter an attack by spending some of his own money";
    others may interfere. A normal bot defends a group with puppets harder than a lone one,
    interferes with the leader's attack, and not with a laggard's."""
    state = game(Options(victory_groups=8), a=BAVARIA, b=GNOMES, c=BERMUDA)
    state = money(state, "b", GNOMES, 20)
    state = chain(state, "b", "The Mafia", "Loan Sharks")
    state = place(state, "b", "Boy Sprouts")
    state = money(state, "c", BERMUDA, 30)
    state = in_round(deal(state, "a", "Murphy's Law"), 3)
    rng = random.Random(1)
    hard = _answer(state, "The Mafia", "b", rng)
    soft = _answer(state, "Boy Sprouts", "b", rng)
    assert hard is not None and soft is not None and hard.upto > soft.upto
    # c meddles only when the attacker leads.
    laggard = _answer(state, "Boy Sprouts", "c", rng)
    assert laggard is None
    leading = chain(state, "a", "C.I.A.", "Big Media", "CFL-AIO", "Democrats")  # 5 of 8
    interfere = _answer(leading, "Boy Sprouts", "c", rng)
    assert interfere is not None and interfere.side == "interfere"


def _answer(state: GameState, target: str, me: str, rng: random.Random) -> Stance | None:
    attacker = state.players[0].illuminati
    attacked, _ = apply(state, Attack(state.players[0].name, attacker, target, "control"),
                        CARDS)
    return bots.response_stance(CARDS, belief(CARDS, view(CARDS, attacked, me)), me, rng)


def test_a_bot_does_not_see_a_rival_s_hidden_money() -> None:
    """view.py: "other players' treasuries" are hidden, and the Gnomes' treasury goal's
    progress with them. The Gnomes attack with 149 MB hidden (one from their goal): a bot
    that saw it would interfere; the bot answers as it would to a poor Gnome."""
    state = game(Options(victory_groups=8), g=GNOMES, me=BERMUDA, c=BAVARIA)
    state = in_round(money(place(state, "c", "Convenience Stores"), "me", BERMUDA, 30), 3)
    rich = money(state, "g", GNOMES, 149)
    poor = money(state, "g", GNOMES, 3)
    answers = [_answer(s, "Convenience Stores", "me", random.Random(2)) for s in (rich, poor)]
    assert answers[0] == answers[1] and answers[0] is None
    attacked, _ = apply(rich, Attack("g", GNOMES, "Convenience Stores", "control"), CARDS)
    seeing = bots.response_stance(CARDS, attacked, "me", random.Random(2))
    assert seeing is not None and seeing.side == "interfere"  # what the full state would do


def test_a_belief_knows_when_victory_is_allowed() -> None:
    """rulebook-en: no one may win "before the end of the first player's second turn"; a
    bot that reads its view counts the turns begun as the engine does, so it sees a winning
    move as one."""
    seats = tuple(StartingSeat(f"p{i}") for i in range(3))
    state, _ = new_game(CARDS, Setup("g", seats, "cd" * 32))
    table = BotTable(CARDS, state, random.Random(1))
    moments = 0
    while table.state.phase != "over" and moments < 400:
        for p in table.state.players:
            assert victory_allowed(table.mind(p.name)) == victory_allowed(table.state)
        moments += 1
        table.step()
    assert victory_allowed(table.state)
