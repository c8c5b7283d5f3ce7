"""The strong level's judgement where the normal bot's rules of thumb fail: staying in the
game, stopping a winning attack, buying privilege against interference, going after the
rival closest to a goal."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest
from factory import (
    BAVARIA,
    BERMUDA,
    CARDS,
    CTHULHU,
    DISCORDIA,
    GNOMES,
    NETWORK,
    UFOS,
    active,
    chain,
    deal,
    free,
    game,
    in_round,
    money,
    place,
    update,
)

from pbem import bots
from pbem.bots import play, search
from pbem.bots.belief import belief
from pbem.engine.breakdown import breakdown
from pbem.engine.commands import Attack, PlaySpecial, ResolveSpecial
from pbem.engine.rules import apply
from pbem.engine.state import GameState, Options
from pbem.engine.view import view

SMALL = Options(victory_groups=4)  # four groups (the Illuminati included) win


def _choice(state: GameState, me: str = "me") -> search.Choice:
    return search.best_action(CARDS, belief(CARDS, view(CARDS, state, me)), me,
                              random.Random(1))


def test_a_strong_bot_with_no_group_takes_one_rather_than_be_eliminated() -> None:
    """rulebook-en, Eliminating a Player: "A player is eliminated if, at any time after his
    third turn, he controls no Groups except his Illuminati." The Servants of Cthulhu, in
    their third turn with no group, attack to control a group, not to destroy the one that is
    easier to destroy (their goal), and never pass."""
    state = game(me=CTHULHU, other=BAVARIA)
    state = money(in_round(state, 3), "me", CTHULHU, 12)
    state = free(state, "Convenience Stores")  # power 1, resistance 4
    chosen = _choice(state).command
    assert isinstance(chosen, Attack) and chosen.mode == "control", chosen
    assert search.standing(CARDS, state, state.player("me")) < 0


def _winning_attack(defender_money: int, mine: str = GNOMES) -> GameState:
    """``other`` (the Discordians, one group short of the four that win) attacks to control
    an uncontrolled group; ``me`` (``mine``) holds ``defender_money`` MB in its Illuminati
    treasury and one group; the attack waits for answers."""
    state = game(options=SMALL, other=DISCORDIA, me=mine)
    state = place(place(state, "other", "Boy Sprouts"), "other", "Trekkies")
    state = place(state, "me", "The Mafia")
    state = money(in_round(state, 3), "me", mine, defender_money)
    state = free(state, "Convenience Stores")
    state, _ = apply(state, Attack("other", DISCORDIA, "Convenience Stores", "control"), CARDS)
    return state


def test_a_strong_bot_puts_all_it_has_against_an_attack_that_would_win() -> None:
    """rulebook-en, Winning the Game: "The game ends when, at the end of a turn ... a player
    meets one of his Goals"; Interference: a player "contributes money from his Illuminati
    treasury only ... It affects the needed die roll by 1 for each MB spent." Against an
    attack whose success wins the game, the strong bot interferes with its whole treasury;
    so does the normal bot since issue 37 pt 3 (``bots.wins_if_it_succeeds``)."""
    state = _winning_attack(20)
    mind = belief(CARDS, view(CARDS, state, "me"))
    assert search.if_it_succeeds(CARDS, mind) == search.WON
    stance = search.response(CARDS, mind, "me", random.Random(1))
    assert stance is not None and stance.side == "interfere" and stance.upto == 20
    usual = bots.response_stance(CARDS, mind, "me", random.Random(1))
    assert usual is not None and usual.side == "interfere" and usual.upto == 20


def test_a_strong_bot_keeps_its_money_rather_than_interfere_with_an_ordinary_attack() -> None:
    """rulebook-en, Interference: a player "contributes money from his Illuminati treasury
    only ... This money goes to the bank." The same attack one group further from victory
    (five groups win), made by the player in the lead: the normal bot pays to interfere
    with it; the strong one keeps its money for its own attacks (interfering with every
    attack of the leader, it won less often in ``bench/bots.py``). (The Bermuda Triangle:
    a bot whose goal is money keeps it at every level, ``test_money_goal``.)"""
    state = _winning_attack(20, BERMUDA)
    state = replace(state, options=Options(victory_groups=5))
    mind = belief(CARDS, view(CARDS, state, "me"))
    assert search.if_it_succeeds(CARDS, mind) < search.WON
    usual = bots.response_stance(CARDS, mind, "me", random.Random(1))
    assert usual is not None and usual.side == "interfere" and 0 < usual.upto < 20
    assert play.response(CARDS, mind, "me", "strong", random.Random(1)) is None


def test_a_strong_bot_defends_its_last_group_with_all_it_has() -> None:
    """rulebook-en, Spending Money To Defend: "Resistance to that attack will increase by two
    for each MB spent from the defending Group's treasury, and by one for each MB spent from
    his Illuminati treasury"; Eliminating a Player: "A player is eliminated if, at any time
    after his third turn, he controls no Groups except his Illuminati." An attack on the
    strong bot's one group is defended as the normal bot defends it: with all it holds (the
    group's 3 MB and the Illuminati's 20), however its ``defence`` weighs the money."""
    state = game(other=DISCORDIA, me=GNOMES)
    state = place(state, "me", "The Mafia", treasury=3)
    state = money(in_round(state, 3), "me", GNOMES, 20)
    state = place(state, "other", "Trekkies")
    state, _ = apply(state, Attack("other", DISCORDIA, "The Mafia", "control"), CARDS)
    mind = belief(CARDS, view(CARDS, state, "me"))
    assert search.if_it_succeeds(CARDS, mind) < search.WON
    usual = bots.response_stance(CARDS, mind, "me", random.Random(1))
    assert usual is not None and usual.side == "defense"
    assert usual.upto == 23
    assert search.response(CARDS, mind, "me", random.Random(1)) == usual


def test_a_strong_bot_spends_nothing_on_a_defence_its_money_cannot_change() -> None:
    """rulebook-en, Spending Money To Attack: "Once the roll needed to succeed has reached
    10, additional spending will not improve the attacker's odds; an 11 or 12 always
    fails." The Bavarians, four groups aiding, attack Hollywood (Resistance 0, four steps
    from the bot's Illuminati: no bonus) needing 23: the 6 MB the bot holds would bring it
    to 17, still a success on anything but 11 or 12. The normal bot spends some of them
    anyway; the strong bot weighs its defence and keeps them."""
    state = game(other=BAVARIA, me=DISCORDIA)
    state = chain(state, "me", "Madison Avenue", "Post Office", "Feminists", "Hollywood")
    state = money(in_round(state, 3), "me", DISCORDIA, 6)
    aids = ("C.I.A.", "Big Media", "Federal Reserve")
    for group in aids:
        state = place(state, "other", group)
    state = place(state, "other", "I.R.S.", master="C.I.A.")
    state, _ = apply(state, Attack("other", BAVARIA, "Hollywood", "control",
                                   (*aids, "I.R.S.")), CARDS)
    mind = belief(CARDS, view(CARDS, state, "me"))
    assert mind.attack is not None and breakdown(CARDS, mind, mind.attack).need - 6 > 10
    usual = bots.response_stance(CARDS, mind, "me", random.Random(1))
    assert usual is not None and usual.side == "defense" and usual.upto > 0
    assert [search.response(CARDS, mind, "me", random.Random(seed)) for seed in range(3)] \
        == [None, None, None]


def test_a_strong_bot_pays_for_privilege_when_interference_is_feared() -> None:
    """rulebook-en, Interference: "An attacker may prevent Interference by declaring an attack
    'Privileged' ... he must discard any one Special card"; "No one can interfere either for
    or against a Privileged Attack." A strong bot one group from victory, which a rival would
    interfere with, discards a card it has no use for to make its attack privileged; far from
    victory, where nobody would, it keeps the card."""
    def position(near: bool) -> GameState:
        state = game(options=SMALL if near else Options(), me=BAVARIA, other=GNOMES)
        state = place(place(state, "me", "Boy Sprouts"), "me", "Trekkies")
        state = place(state, "other", "The Mafia")
        state = money(money(in_round(state, 3), "me", BAVARIA, 3), "other", GNOMES, 40)
        state = deal(free(state, "Convenience Stores"), "me", "Media Campaign")
        return active(state, "me")
    feared = _choice(position(near=True)).command
    assert isinstance(feared, Attack) and feared.privilege == "card", feared
    assert feared.privilege_card == "Media Campaign"
    calm = _choice(position(near=False)).command
    assert isinstance(calm, Attack) and calm.privilege == "none", calm


def test_a_strong_bot_weighs_attacks_on_the_rival_closest_to_a_goal() -> None:
    """summary-en, The Discordian Society: "Control 5 Weird groups." Against a rival one
    Weird group from that goal, the strong bot's candidates include attacks on that rival's
    Weird groups, however hard (the normal bot's shortlist holds only the easiest targets),
    and it attacks one of them."""
    state = game(me=BAVARIA, other=DISCORDIA)
    weird = ("Trekkies", "Society for Creative Anarchism", "Science Fiction Fans",
             "Punk Rockers")  # resistance 4 or 5, and close to their Illuminati
    for group in weird:
        state = place(state, "other", group)
    state = place(state, "me", "The Mafia", treasury=6)
    state = money(in_round(state, 3), "me", BAVARIA, 15)
    easy = [g.name for g in CARDS.groups if g.resistance <= 3 and g.name != "The Mafia"]
    state = free(state, *easy[:16])
    mind = belief(CARDS, view(CARDS, state, "me"))
    weighed = {plan.attack.target for plan in search.candidates(CARDS, mind, mind.player("me"))}
    assert weighed & set(weird)
    chosen = _choice(state).command
    assert isinstance(chosen, Attack) and chosen.target in weird, chosen


def test_a_rival_ufo_is_feared_at_the_likeliest_of_the_goals_it_may_have_chosen() -> None:
    """summary-en, UFOs: "the UFO player picks one of the seven special victory conditions
    ... keeping it a secret from the other players." A strong bot cannot see the choice: it
    weighs the UFOs' progress toward every goal they could have picked (here four Weird
    groups, one short of the Discordians' "Control 5 Weird groups"), not toward none."""
    state = update(game(me=BAVARIA, other=UFOS), "other", secret_goal=DISCORDIA)
    for group in ("Trekkies", "Comic Books", "S.M.O.F.", "Flat Earthers"):
        state = place(state, "other", group)
    state = in_round(state, 3)
    mind = belief(CARDS, view(CARDS, state, "me"))
    ufos = mind.player("other")
    assert bots.hidden_goal(CARDS, ufos) and not bots.hidden_goal(CARDS, state.player("other"))
    assert search.one_step(bots.goals_of(CARDS, mind, ufos))
    assert search.threat(CARDS, mind, ufos) > search.standing(CARDS, mind, ufos) > 1.0


def test_a_strong_bot_plays_white_collar_crime_for_its_five_megabucks() -> None:
    """specials: White Collar Crime, "any time ... add 5 MB anywhere in the structure". The
    strong bot plays it at once, the 5 MB into its Illuminati treasury."""
    state = deal(money(in_round(game(me=BAVARIA, other=GNOMES), 3), "me", BAVARIA, 4), "me",
                 "White Collar Crime")
    chosen = _choice(state).command
    assert chosen == PlaySpecial("me", "White Collar Crime", bonus_to=BAVARIA)
    state, _ = apply(state, chosen, CARDS)
    state, _ = apply(state, ResolveSpecial(), CARDS)
    assert state.player("me").treasury == 9


def test_the_gnomes_count_their_own_income_toward_150_megabucks_not_a_rivals() -> None:
    """summary-en, Gnomes of Zurich: "Collect 150 MegaBucks (in the whole Power Structure's
    treasuries)"; rulebook-en, Income: "At the beginning of your turn, each Group you control
    collects the amount listed on its card." To strong Gnomes a group's income is progress
    toward their goal, turn after turn: a group of income 3 is worth more to them than one of
    income 1 and the same power, by more than income is worth to anyone else. A rival's
    income is not counted toward its goal: feared for money it does not hold yet, the Gnomes
    were everyone's target."""
    def worth(group: str, illuminati: str) -> float:
        state = place(game(me=illuminati, other=CTHULHU), "me", group)
        return search.evaluate(CARDS, state, "me")

    def feared(group: str, illuminati: str) -> float:
        state = place(game(me=CTHULHU, other=illuminati), "other", group)
        return search.threat(CARDS, state, state.player("other"))

    trekkies, goldfish = "Trekkies", "Goldfish Fanciers"  # power 0, income 3 and 1
    assert CARDS.facts(trekkies)[:2] == CARDS.facts(goldfish)[:2]
    others = worth(trekkies, BAVARIA) - worth(goldfish, BAVARIA)  # the same power
    gnomes = worth(trekkies, GNOMES) - worth(goldfish, GNOMES)
    assert others > 0 and gnomes > 2 * others
    assert feared(trekkies, GNOMES) - feared(goldfish, GNOMES) == pytest.approx(
        feared(trekkies, BAVARIA) - feared(goldfish, BAVARIA))


def test_a_strong_bot_counts_a_step_toward_its_own_goal_above_a_rivals_same_step() -> None:
    """summary-en, The Discordian Society: "Control 5 Weird groups." The strong bot plays to
    its own special goal and knows it for sure: a Weird group it takes raises its standing
    by more than the same group raises a rival Discordians' standing as the bot fears it
    (both far from the goal, so neither is feared as about to win)."""
    def gain(me: str, whose: str) -> float:
        state = in_round(game(me=DISCORDIA, other=DISCORDIA), 3)
        before = place(state, whose, "Punk Rockers")
        after = place(before, whose, "Trekkies")  # Weird
        if whose == me:
            return search.evaluate(CARDS, after, me) - search.evaluate(CARDS, before, me)
        return search.threat(CARDS, after, after.player(whose)) - search.threat(
            CARDS, before, before.player(whose))

    own, rivals = gain("me", "me"), gain("me", "other")
    assert rivals > 0 and own - rivals > 0.05  # a fifth of the goal, weighed more


def leads(level: bots.Level, illuminati: str, *groups: str) -> bool:
    """Whether the Gnomes (30 MB), seeing ``illuminati`` with ``groups`` attack to control
    the Convenience Stores, judge the attacker the leader, as far along as ``bots.LEADER``
    (where a normal bot interferes), judging as a ``level`` bot."""
    state = game(Options(victory_groups=12), a=illuminati, c=GNOMES)
    for group in groups:
        state = place(state, "a", group)
    state = money(free(in_round(state, 3), "Convenience Stores"), "c", GNOMES, 30)
    attacked, _ = apply(state, Attack("a", illuminati, "Convenience Stores", "control"), CARDS)
    first, closest = bots.LeaderBoard(CARDS, belief(CARDS, view(CARDS, attacked, "c")),
                                      level).leader()
    return first == "a" and closest >= bots.LEADER


def test_a_strong_bot_judges_the_leader_by_the_way_gone_not_by_what_the_deal_gave() -> None:
    """summary-en: "The Network. Control groups with a total Transferable Power of 20";
    "Bermuda Triangle. Control at least one group of each alignment". rulebook-en,
    Interference: a player "may interfere in an attack ... by opposing him". The normal bot
    interferes with the leader's attacks; the strong bot weighs its rivals (its evaluation,
    the rival whose groups it attacks) by the same measure of the way gone, and so does the
    normal bot since issue 37 pt 3 (judged by the share shown, the Bermuda Triangle looked
    the leader from the start and won 0.4 of its fair share); the easy bot still judges by
    the share shown. The Network's own card brings 7 of their 20: with the C.I.A. (4) the
    easy bot sees them 11 of 20 along, a leader; the others see 4 of 13. A Bermuda
    Triangle showing 7 of 10 alignments with three groups does not lead either: a group
    brings up to three, so the first come fast and the last few slowly. Near their goals
    both lead."""
    assert leads("easy", NETWORK, "C.I.A.")
    assert not leads("strong", NETWORK, "C.I.A.")
    assert not leads("normal", NETWORK, "C.I.A.")
    assert leads("strong", NETWORK, "C.I.A.", "Federal Reserve", "Big Media")
    shown = ("Eco-Guerrillas", "Fiendish Fluoridators", "Boy Sprouts")  # 7 alignments
    assert leads("easy", BERMUDA, *shown)
    assert not leads("strong", BERMUDA, *shown)
    assert not leads("normal", BERMUDA, *shown)
    assert leads("strong", BERMUDA, "Semiconscious Liberation Army",
                 "Parent/Teacher Agglomeration", "Hackers")  # all but Government


def test_a_strong_bot_counts_the_bavarians_own_power_as_any_groups() -> None:
    """summary-en: "Bavarian Illuminati. Control groups with a total power of 35 or more
    (including their own power of 10)". rulebook-en, Interference: a player
    "may interfere in an attack ... by opposing him". The Bavarians' card is 10 of their 35
    and attacks and defends like any group: with the Mafia (7) and the C.I.A. (6) they are
    23 of 35 along, and the strong bot judges them the leader; with the C.I.A. alone (16),
    not yet."""
    assert leads("strong", BAVARIA, "The Mafia", "C.I.A.")
    assert not leads("strong", BAVARIA, "C.I.A.")


def test_the_gnomes_near_150_megabucks_keep_the_worth_of_every_megabuck() -> None:
    """summary-en, Gnomes of Zurich: "Collect 150 MegaBucks (in the whole Power Structure's
    treasuries)"; rulebook-en, Income: "At the beginning of your turn, each Group you control
    collects the amount listed on its card." With 18 MB a turn (their own 12 and the Federal
    Reserve's 6), three turns of income would fill on paper the 50 MB the Gnomes miss at
    100 MB; but only money held meets the goal, so 10 MB more still raise their standing by
    at least half what 10 MB did at 60 MB, and no income counts as the goal met."""
    state = place(game(me=GNOMES, other=CTHULHU), "me", "Federal Reserve")

    def worth(held: int) -> float:
        return search.evaluate(CARDS, money(state, "me", GNOMES, held), "me")

    assert worth(110) - worth(100) > 0.5 * (worth(70) - worth(60)) > 0
    assert worth(149) < search.WON / 2


def test_a_strong_bot_plans_its_turn_leaving_money_for_the_second_attack() -> None:
    """rulebook-en, Spending Money To Attack: "Attacking money may be spent from both the
    attacking Group's treasury and the Illuminati treasury"; Winning the Game: the Basic Goal
    "to control a certain number of Groups". Two groups short of victory (four win here), the
    strong bot weighs its first attack with the second it leaves the turn (issue 37 pt 4):
    putting all 10 MB into the first leaves none for the second, so planned together the
    first attack that keeps money for the second is worth far more, and is the one chosen
    even when the all-in attack looks better by itself."""
    state = game(options=SMALL, me=BAVARIA, other=GNOMES)
    state = place(place(state, "me", "The Mafia"), "other", "Boy Sprouts")
    state = free(money(in_round(state, 3), "me", BAVARIA, 10), "Convenience Stores", "Trekkies")
    state = active(state, "me")
    plan = next(p for p in bots.plan_attacks(CARDS, state, state.player("me"), "normal")
                if p.attack.attacker == BAVARIA)
    assert 0 < plan.spend < 10
    all_in = replace(plan, spend=10, upto=10)

    def planned(p: bots.PlannedAttack) -> float:
        decision = search.Decision.of(CARDS, "me", random.Random(1))
        value = search.outcome(decision, state, p, p.spend, p.upto, ahead=True)
        assert value is not None
        return value

    assert planned(plan) > planned(all_in) + 1.0
    announced = search.announce(CARDS, state, "me", plan.attack)
    assert announced is not None
    firsts = [(2.0, 0, [announced], search.Choice(plan.attack, 10, 10)),
              (1.0, 1, [announced], search.Choice(plan.attack, plan.spend, plan.upto))]
    chosen = search.plan_the_turn(search.Decision.of(CARDS, "me", random.Random(1)), firsts)
    assert chosen is not None and chosen[1].spend == plan.spend


def test_a_normal_bot_weighs_attacks_by_how_far_they_set_the_leader_back() -> None:
    """summary-en, The Discordian Society: "Control 5 Weird groups." rulebook-en, Winning the
    Game: "A player wins if he meets his Special Goal at the end of any turn." A Discordian
    Society holding four Weird groups is one from winning: taking one of them sets it back a
    fifth of its goal, a group of no use to that goal only a twelfth of its far basic goal
    (``bots.setback`` weighs each by how close the goal was), and the normal bot adds the
    worth of that check (``bots.stopping``) to the attack (issue 37 pt 3: left alone, the
    Discordians won 2 to 3.6 times their fair share among normal bots); the easy bot does
    not."""
    state = game(me=GNOMES, other=DISCORDIA)
    state = chain(state, "other", "L-4 Society", "Hackers", "Psychiatrists")
    state = place(state, "other", "Punk Rockers")
    state = place(state, "other", "Antiwar Activists")
    other = state.player("other")
    # a fifth of the special goal, at 4 of 5: 0.8 squared times 0.2
    assert bots.setback(CARDS, state, other, "Psychiatrists") == pytest.approx(0.8 ** 2 * 0.2)
    # a twelfth of the basic goal, at 6 of 12 groups (the Illuminati counted)
    assert bots.setback(CARDS, state, other, "Antiwar Activists") == pytest.approx(0.5 ** 2 / 12)
    weird = bots.stopping(CARDS, state, other, "Psychiatrists", "normal")
    assert weird > 1.0
    assert bots.stopping(CARDS, state, other, "Antiwar Activists", "normal") < weird / 5
    assert bots.stopping(CARDS, state, other, "Psychiatrists", "easy") == 0.0


def test_the_search_draws_its_shared_answers_as_the_normal_bots_would() -> None:
    """rulebook-en, Interference: "Any other player may help or hinder an attack". The strong
    bot works out the others' answers to one announced attack once (``search.answers``) and
    draws them again for each of its money plans: each draw gives what ``response_stance``
    would, from the same random numbers, so the search plays the same with the work shared.
    Here c and d each may assist (by chance) an attack on the leader's group."""
    state = game(me=GNOMES, a=BAVARIA, c=DISCORDIA, d=NETWORK)
    state = chain(state, "a", "C.I.A.", "Big Media", "CFL-AIO")
    for name, illuminati in (("c", DISCORDIA), ("d", NETWORK)):
        state = money(state, name, illuminati, 20)
    state = active(money(in_round(state, 3), "me", GNOMES, 20), "me")
    announced = search.announce(CARDS, state, "me", Attack("me", GNOMES, "Big Media", "control"))
    assert announced is not None
    assert [a.chances != () for a in announced.answers] == [False, True, True]
    given = set()
    for seed in range(60):
        shared, alone = random.Random(seed), random.Random(seed)
        stances = search.drawn(announced.answers, shared)
        expected = [bots.response_stance(CARDS, announced.state, name, alone)
                    for name in ("a", "c", "d")]
        assert stances == [s for s in expected if s is not None]
        assert shared.random() == alone.random()  # as many draws taken
        given.add(len(stances))
    assert len(given) > 1  # the chance answers were given in some draws, not in others


def test_a_rival_s_threat_is_shared_only_while_what_it_reads_is_the_same() -> None:
    """rulebook-en, Winning the Game: no one may win "before the end of the first player's
    second turn". The search works out each rival's threat once a decision (``Rivals``) and
    gives it again for the same rival (the same ``Player``) on every state an attack leaves;
    the same rival one success from its goal is feared more once a goal may win, so a state
    where that has changed is worked out again, not given the threat of before."""
    state = game(me=GNOMES, other=DISCORDIA)
    state = chain(state, "other", "L-4 Society", "Hackers", "Psychiatrists")
    state = place(state, "other", "Punk Rockers")  # four Weird groups of five
    early = state.with_player(replace(state.player("me"), turns=0))
    late = state.with_player(replace(state.player("me"), turns=2))
    other = early.player("other")
    assert late.player("other") is other
    rivals = search.Rivals(CARDS)
    before = rivals.threat(early, other)
    assert before == search.threat(CARDS, early, other)
    assert rivals.threat(early, other) == before
    after = rivals.threat(late, other)
    assert after == search.threat(CARDS, late, other) == pytest.approx(before + search.ONE_STEP)


@pytest.mark.parametrize("seed", range(3))
def test_a_strong_servant_of_cthulhu_with_two_groups_takes_a_third_before_it_destroys(
        seed: int) -> None:
    """rulebook-en, Eliminating a Player: "A player is eliminated if, at any time after his
    third turn, he controls no Groups except his Illuminati." A player whose goal destroys
    groups (the Servants of Cthulhu: "Destroy at least 8 groups") spends its attacks on
    other players' groups while its own few stand against theirs: with two groups, the
    strong bot controls a third before it goes on destroying; with three it destroys."""
    state = game(me=CTHULHU, other=BAVARIA)
    state = place(state, "me", "The Mafia", treasury=8)
    state = place(state, "me", "Loan Sharks")
    state = money(in_round(state, 3), "me", CTHULHU, 12)
    state = free(state, "Convenience Stores", "Boy Sprouts")
    state = place(state, "other", "Trekkies")
    choose = random.Random(seed)
    thin = search.best_action(CARDS, belief(CARDS, view(CARDS, state, "me")), "me", choose)
    assert isinstance(thin.command, Attack) and thin.command.mode == "control", thin
    state = place(state, "me", "Trekkies")
    state = place(state, "other", "Boy Sprouts")
    three = search.best_action(CARDS, belief(CARDS, view(CARDS, state, "me")), "me", choose)
    assert isinstance(three.command, Attack) and three.command.mode == "destroy", three
