"""The order language, one rule per test: how a mail and its lines are read.

Each test's docstring states the rule; the body writes a mail or a line and checks the value
or the error read from it.
"""

from __future__ import annotations

import pytest
from support import refuses

from pbem.engine.carddata import load_cardset
from pbem.engine.commands import (
    AbolishPrivilege,
    AcceptGroup,
    Attack,
    CallOff,
    Counter,
    DeclineGroup,
    DropGroup,
    EndPowers,
    EndTurn,
    GiveCard,
    GiveMoney,
    Interfere,
    LeaveGame,
    MoveGroup,
    OfferGroup,
    Pass,
    PlaySpecial,
    TransferMoney,
    UseLasers,
    UseRecyclers,
)
from pbem.errors import AmbiguousNameError, OrderSyntaxError, PbemError
from pbem.orders import (
    AmbiguousOrderError,
    AttackOrder,
    ConditionalPlay,
    DefendOrder,
    Header,
    Help,
    History,
    InterfereOrder,
    NoResponse,
    Odds,
    Order,
    ParsedOrders,
    Press,
    SetHtml,
    SetJson,
    SetLanguage,
    SetTimezone,
    StandingAttackReaction,
    StandingClear,
    StandingDefend,
    StandingList,
    StandingNeverInterfere,
    StandingTurnReaction,
    Status,
    blank_password,
    format_orders,
    parse_order,
    parse_orders,
)
from pbem.orders.grammar import LineReader, TooTangled
from pbem.orders.lexer import quote_name, tokenize
from pbem.orders.parse import parse_header, read_start
from pbem.orders.vocabulary import Vocabulary
from pbem.reports.languages import LANGUAGES

CARDS = load_cardset()
PLAYERS = ("Alice", "Bob", "Carol Ann")
ME = "Alice"


def mail(*lines: str, end: bool = True) -> str:
    body = ["GAME g1 PLAYER Alice PASSWORD pw", *lines]
    if end:
        body.append("END")
    return "\n".join(body) + "\n"


def read(line: str, players: tuple[str, ...] = PLAYERS) -> Order:
    """The one order a mail holding only ``line`` says; fails the test on any error."""
    parsed = parse_orders(mail(line), CARDS, players)
    assert parsed.errors == (), [str(e) for e in parsed.errors]
    assert len(parsed.orders) == 1
    return parsed.orders[0].order


def error(line: str, players: tuple[str, ...] = PLAYERS) -> OrderSyntaxError:
    """The one error a mail holding only ``line`` gets; fails the test if the line reads."""
    parsed = parse_orders(mail(line), CARDS, players)
    assert parsed.orders == ()
    assert len(parsed.errors) == 1
    return parsed.errors[0]


def attack(attacker: str, mode: str, target: str, **fields: object) -> Attack:
    return Attack(ME, attacker, target, mode, **fields)  # type: ignore[arg-type]


# --- the mail -------------------------------------------------------------------------------


def test_the_start_line_gives_game_player_password_and_step() -> None:
    """GAME <game-id> PLAYER <name> PASSWORD <password> [STEP <seq>]: the number counts the
    game's steps, not its turns (issue 18.5); TURN, its name on forms before, reads the same."""
    parsed = parse_orders("GAME illu42 PLAYER Alice PASSWORD Xy7 STEP 17\nEND\n", CARDS)
    assert parsed.header == Header("illu42", "Alice", "Xy7", 17)
    parsed = parse_orders("GAME illu42 PLAYER Alice PASSWORD Xy7 TURN 17\nEND\n", CARDS)
    assert parsed.header == Header("illu42", "Alice", "Xy7", 17)
    assert parse_orders("game g player Bob password p\nend", CARDS).header.turn is None


def test_the_header_player_is_matched_to_the_players_when_given() -> None:
    """Player names are matched only when the players are given, else kept as written."""
    text = "GAME g PLAYER carol ann PASSWORD p\nEND"
    assert parse_orders(text, CARDS, PLAYERS).header.player == "Carol Ann"
    assert parse_orders(text, CARDS).header.player == "carol ann"


def test_the_start_line_alone_reads_as_parse_orders_reads_it() -> None:
    """parse_header (routing a mail to its game) gives parse_orders' header, and raises
    where it raises; the orders after the start line are not read."""
    text = "Hi\nGAME illu42 PLAYER Alice PASSWORD Xy7 TURN 17\nATTACK nonsense\nEND\n"
    assert parse_header(text, CARDS) == parse_orders(text, CARDS).header
    with refuses("no_start_line", OrderSyntaxError):
        parse_header("Thanks for the game!\nPASS\nEND\n", CARDS)


@pytest.mark.parametrize("text", [
    "GAME g PLAYER carol ann PASSWORD p\nPASS\nEND",  # matched to Carol Ann
    'GAME g PLAYER "carol   ANN" PASSWORD p TURN 3\nEND',
    "GAME g PLAYER Zed PASSWORD p\nGAME g PLAYER bob PASSWORD q\nPASS\nEND",  # Zed: no player
    "GAME g PLAYER Password PASSWORD x\nEND",
    "Hi\ngame g player al password p turn 2 extra\ngame g player al password p\nEND",
    "GAME g PLAYER Zed PASSWORD p\nEND",  # no start line that reads with the players
    'GAME g PLAYER "" PASSWORD p\nEND',
])
@pytest.mark.parametrize("players", [PLAYERS, ("Alice", "Alan"), ()])
def test_the_start_line_read_once_reads_as_when_read_again(
        text: str, players: tuple[str, ...]) -> None:
    """parse_orders given read_start's start line (read without the players) gives what it
    gives reading the text alone: the player matched, or a later start line that reads."""
    try:
        start = read_start(text, CARDS)
    except OrderSyntaxError:  # a start line no players make readable
        with pytest.raises(OrderSyntaxError):
            parse_orders(text, CARDS, players)
        return
    try:
        expected = parse_orders(text, CARDS, players)
    except OrderSyntaxError as error:
        with pytest.raises(OrderSyntaxError) as raised:
            parse_orders(text, CARDS, players, start)
        assert vars(raised.value) == vars(error)
        return
    got = parse_orders(text, CARDS, players, start)
    assert (got.header, got.orders, got.warnings) == (
        expected.header, expected.orders, expected.warnings)
    assert [vars(e) for e in got.errors] == [vars(e) for e in expected.errors]


def test_the_password_keeps_its_case() -> None:
    """Keywords are blind to case; the password is not."""
    assert parse_orders("game g player Bob password AbC\nend", CARDS).header.password == "AbC"


def test_no_start_line_raises() -> None:
    """A text without a start line is the one case parse_orders raises."""
    with refuses("no_start_line", OrderSyntaxError) as caught:
        parse_orders("Thanks for the game!\nPASS\nEND\n", CARDS)
    assert "GAME" in (caught.value.suggestion or "")


def test_a_bad_start_line_raises_with_the_password_blanked() -> None:
    """An unreadable start line is reported, and the password never travels in the error,
    even where the line's fault is the password typed again (``STEP s3cr3t``: the words
    once quoted the bad step number)."""
    with pytest.raises(OrderSyntaxError) as caught:
        parse_orders("GAME g PLAYER Alice PASSWORD s3cr3t STEP s3cr3t\nPASS\nEND", CARDS)
    assert caught.value.line == 1
    assert "s3cr3t" not in f"{caught.value} {caught.value.words} {caught.value.suggestion}"
    assert "******" in (caught.value.text or "")
    with refuses("expected_after", OrderSyntaxError):
        parse_orders("GAME g PLAYER Alice\nEND", CARDS)


def test_an_unknown_header_player_raises() -> None:
    """With the players given, the writer must be one of them."""
    with refuses("unknown_name", OrderSyntaxError, what="player"):
        parse_orders("GAME g PLAYER Zed PASSWORD p\nEND", CARDS, PLAYERS)


def test_text_outside_the_markers_is_ignored() -> None:
    """Everything before the start line and after END is ignored."""
    text = "Hello all,\nmy orders:\n" + mail("PASS") + "Cheers\nATTACK nonsense\n"
    parsed = parse_orders(text, CARDS, PLAYERS)
    assert [o.order for o in parsed.orders] == [Pass(ME)]
    assert parsed.errors == () and parsed.warnings == ()


def test_quoted_lines_blank_lines_and_comments_are_ignored() -> None:
    """Lines starting with '>' and blank lines are ignored; '#' starts a comment."""
    parsed = parse_orders(
        mail("", "> ATTACK quoted CONTROL nothing", "   ", "# only a comment",
             "PASS   # and a remark", ">> GAME old"),
        CARDS, PLAYERS,
    )
    assert [o.order for o in parsed.orders] == [Pass(ME)]
    assert parsed.errors == ()


def test_a_quoted_start_line_is_not_the_start_line() -> None:
    """A reply that quotes an old start line still finds the writer's own."""
    text = "> GAME g PLAYER Bob PASSWORD ******\n" + mail("PASS")
    assert parse_orders(text, CARDS).header.player == "Alice"


def test_orders_keep_their_line_numbers_and_text() -> None:
    """Each order carries the line it came from, counted from the first line of the text."""
    parsed = parse_orders("hi\n" + mail("", "PASS  "), CARDS, PLAYERS)
    assert [(o.line, o.text) for o in parsed.orders] == [(4, "PASS")]


def test_a_mail_without_end_is_read_to_the_end_with_a_warning() -> None:
    """Without END, everything to the end of the text is read, and a warning says so."""
    parsed = parse_orders(mail("PASS", "END TURN", end=False), CARDS, PLAYERS)
    assert [o.order for o in parsed.orders] == [Pass(ME), EndTurn(ME)]
    assert parsed.errors == ()
    assert len(parsed.warnings) == 1 and "END" in parsed.warnings[0].message


def test_a_signature_line_ends_a_mail_without_end() -> None:
    """Without END, the '-- ' signature line ends the orders, with the warning."""
    parsed = parse_orders(mail("PASS", "-- ", "Alice, sent from my phone", end=False), CARDS)
    assert [o.order for o in parsed.orders] == [Pass(ME)]
    assert parsed.errors == () and "signature" in parsed.warnings[0].message


def test_a_bad_line_is_reported_and_reading_goes_on() -> None:
    """A bad line becomes an error with its line number; the next lines are still read."""
    parsed = parse_orders(mail("ATACK Mafia CONTROL Hackers", "PASS"), CARDS, PLAYERS)
    assert [o.order for o in parsed.orders] == [Pass(ME)]
    (bad,) = parsed.errors
    assert bad.line == 2 and bad.text == "ATACK Mafia CONTROL Hackers"
    assert bad.suggestion == "did you mean ATTACK?"


def test_keywords_are_blind_to_case() -> None:
    """ATTACK, attack and Attack are the same word."""
    expected = read("ATTACK Mafia CONTROL Hackers")
    assert read("attack mafia control hackers") == expected
    assert read("Attack The Mafia Control HACKERS") == expected


def test_crlf_and_non_breaking_spaces_are_read() -> None:
    """Mail from phones has CRLF line ends and non-breaking spaces."""
    parsed = parse_orders(mail("GIVE\u00a05\u00a0MB TO Bob").replace("\n", "\r\n"), CARDS,
                          PLAYERS)
    assert [o.order for o in parsed.orders] == [GiveMoney(ME, "Bob", 5)]


# --- names ----------------------------------------------------------------------------------


def test_names_are_blind_to_case_punctuation_and_the() -> None:
    """"C.I.A.", "CIA" and "cia" are one card; "Mafia" is "The Mafia"."""
    for written in ("C.I.A.", "CIA", "cia", "c.i.a"):
        assert read(f"TRANSFER 1 FROM {written} TO mafia") == TransferMoney(
            ME, "C.I.A.", "The Mafia", 1)


def test_a_unique_beginning_is_enough() -> None:
    """A prefix that fits one card names it."""
    assert read("DROP boy") == DropGroup(ME, "Boy Sprouts")
    assert read("TRANSFER 2 FROM fed res TO bavarian") == TransferMoney(
        ME, "Federal Reserve", "The Bavarian Illuminati", 2)


def test_aliases_name_cards() -> None:
    """Common short names work (OMCL, UN, Secrets, Murphy)."""
    assert read("DROP OMCL") == DropGroup(ME, "Orbital Mind Control Lasers")
    assert read("GIVE CARD Secrets TO Bob") == GiveCard(
        ME, "Bob", "Secrets Man Was Not Meant To Know")
    assert read("IF SUCCEEDS PLAY murphy") == ConditionalPlay(
        "succeeds", PlaySpecial(ME, "Murphy's Law"))


def test_quoted_names_are_one_name() -> None:
    """A name in quotes (straight, curly or guillemets) is one name, keywords and all."""
    expected = AttackOrder(attack("Orbital Mind Control Lasers", "control", "Boy Sprouts"))
    assert read('ATTACK "Orbital Mind Control Lasers" CONTROL "Boy Sprouts"') == expected
    assert read("ATTACK “Orbital Mind Control Lasers” CONTROL « Boy Sprouts »") == expected


def test_names_holding_keywords_are_found_without_quotes() -> None:
    """"Orbital Mind Control Lasers" holds CONTROL and "Secrets ..." holds TO, yet read."""
    assert read("ATTACK Orbital Mind Control Lasers CONTROL Boy Sprouts") == AttackOrder(
        attack("Orbital Mind Control Lasers", "control", "Boy Sprouts"))
    assert read("ATTACK Mafia CONTROL Orbital Mind Control Lasers") == AttackOrder(
        attack("The Mafia", "control", "Orbital Mind Control Lasers"))
    assert read("GIVE CARD Secrets Man Was Not Meant To Know TO Bob") == GiveCard(
        ME, "Bob", "Secrets Man Was Not Meant To Know")


def test_an_unknown_name_says_did_you_mean() -> None:
    """A name that fits no card is an error suggesting close names."""
    bad = error("ATTACK Mafia CONTROL Boy Sprots")
    assert "Boy Sprots" in bad.message
    assert bad.suggestion == "did you mean: Boy Sprouts?"


def test_an_ambiguous_name_is_its_own_error() -> None:
    """A name that fits several cards asks which, as an AmbiguousNameError."""
    bad = error("ATTACK Mafia CONTROL Boy Sprouts WITH C")
    assert isinstance(bad, AmbiguousOrderError) and isinstance(bad, AmbiguousNameError)
    assert "C.I.A." in (bad.suggestion or "")


def test_a_card_of_the_wrong_kind_is_named_as_such() -> None:
    """DROP needs a group: naming a special card says so."""
    bad = error("DROP Bribery")
    assert bad.message.startswith("Bribery is a special card, not a group")


def test_player_names_are_matched_when_the_players_are_given() -> None:
    """Player names: case-blind, a unique beginning works; unknown ones are errors."""
    assert read("GIVE 5 MB TO carol") == GiveMoney(ME, "Carol Ann", 5)
    assert "Bob" in (error("GIVE 5 MB TO Bobb").suggestion or "")


def test_player_names_are_kept_as_written_without_the_players() -> None:
    """Without the list of players, a player name is what was written."""
    assert read("GIVE 5 MB TO Dan  the Man", players=()) == GiveMoney(ME, "Dan the Man", 5)


# --- numbers --------------------------------------------------------------------------------


def test_money_may_be_written_3_or_3_mb_or_3mb() -> None:
    """A sum of MB may carry its unit."""
    for written in ("3", "3 MB", "3mb", "3 mb"):
        assert read(f"TRANSFER {written} FROM CIA TO Mafia") == TransferMoney(
            ME, "C.I.A.", "The Mafia", 3)


@pytest.mark.parametrize(
    ("line", "says"),
    [
        ("TRANSFER -3 FROM CIA TO Mafia", "cannot be negative"),
        ("DEFEND -1", "cannot be negative"),
        ("ATTACK Mafia CONTROL Hackers SPEND -2", "cannot be negative"),
        ("GIVE 0 MB TO Bob", "at least 1"),
        ("TRANSFER 0 FROM CIA TO Mafia", "at least 1"),
        ("DEFEND 2.5", "whole number"),
        ("DEFEND lots", "a number"),
        ("DEFEND 12345678", "too large"),
        ("HISTORY 0", "at least 1"),
        ("STANDING CLEAR 0", "at least 1"),
        ("STANDING DEFEND ANY UPTO 0", "at least 1"),
    ],
)
def test_numbers_are_checked(line: str, says: str) -> None:
    """Amounts are whole numbers, never negative; counts start at 1."""
    assert says in error(line).message


# --- every order ----------------------------------------------------------------------------


def test_attack_with_every_part() -> None:
    """ATTACK ... WITH ... PRIVILEGE ... SPEND n FROM card UPTO max THEN MOVE n AT side."""
    order = read("ATTACK Mafia CONTROL Boy Sprouts WITH CIA, Pentagon PRIVILEGE Bribery "
                 "SPEND 3 FROM Mafia UPTO 10 THEN MOVE 2 AT LEFT")
    assert order == AttackOrder(
        attack("The Mafia", "control", "Boy Sprouts", aids=("C.I.A.", "Pentagon"),
               privilege="card", privilege_card="Bribery", transfer_on_success=2, arrow=3),
        spend=3, spend_from="The Mafia", upto=10,
    )
    assert isinstance(order, AttackOrder) and order.then_move == 2


def test_attack_parts_come_in_any_order() -> None:
    """The optional parts of an attack may be written in any order."""
    assert read("ATTACK Mafia DESTROY Hackers UP TO 4 SPEND 1 PRIVILEGE BAVARIAN") == (
        AttackOrder(attack("The Mafia", "destroy", "Hackers", privilege="bavarian"),
                    spend=1, upto=4))


def test_attack_reads_plain_english() -> None:
    """"ATTACK Mafia TO NEUTRALISE ..." reads as the keyword form."""
    assert read("ATTACK Mafia TO NEUTRALISE Hackers") == AttackOrder(
        attack("The Mafia", "neutralize", "Hackers"))


def test_attack_errors() -> None:
    """A misspelt mode, a part given twice, THEN MOVE on a destroy and self-attack fail."""
    bad = error("ATTACK Mafia CONTOL Boy Sprouts")
    assert "CONTROL" in bad.message
    assert bad.suggestion == "did you mean CONTROL instead of 'CONTOL'?"
    assert "twice" in error("ATTACK Mafia CONTROL Hackers SPEND 1 SPEND 2").message
    assert "THEN MOVE" in error("ATTACK Mafia DESTROY Hackers THEN MOVE 2").message
    assert "itself" in error("ATTACK Mafia CONTROL Hackers WITH Mafia").message
    assert "SPEND" in (error("ATTACK Mafia CONTROL Hackers SPND 3").suggestion or "")


def test_the_active_players_orders() -> None:
    """Every order of the active player reads to its engine command."""
    cases: dict[str, Order] = {
        "TRANSFER 3 FROM CIA TO Mafia": TransferMoney(ME, "C.I.A.", "The Mafia", 3),
        "MOVE Boy Sprouts TO Mafia LEFT": MoveGroup(ME, "Boy Sprouts", "The Mafia", 3),
        "MOVE Hackers TO CIA top": MoveGroup(ME, "Hackers", "C.I.A.", 0),
        "DROP Hackers": DropGroup(ME, "Hackers"),
        "GIVE Hackers TO Bob": OfferGroup(ME, "Hackers", "Bob"),
        "GIVE 5 MB TO Bob": GiveMoney(ME, "Bob", 5),
        "GIVE CARD Slush Fund TO Bob": GiveCard(ME, "Bob", "Slush Fund"),
        "GIVE Slush Fund TO Bob": GiveCard(ME, "Bob", "Slush Fund"),
        "LASERS ADD weird ON Hackers": UseLasers(ME, "Hackers", "add", "Weird"),
        "LASERS REVERSE Liberal ON Democrats": UseLasers(ME, "Democrats", "reverse", "Liberal"),
        "RECYCLE": UseRecyclers(ME),
        "END POWERS": EndPowers(ME),
        "PASS": Pass(ME),
        "END TURN": EndTurn(ME),
        "CALL OFF": CallOff(ME),
        "LEAVE GAME": LeaveGame(ME),
        "ACCEPT": AcceptGroup(ME),
        "ACCEPT AT CIA RIGHT": AcceptGroup(ME, "C.I.A.", 1),
        "DECLINE": DeclineGroup(ME),
    }
    for line, expected in cases.items():
        assert read(line) == expected, line


def test_each_special_card_takes_its_own_parameters() -> None:
    """PLAY: Bribery ON group; Whispering ON target WITH attacker; Media ON dead group;
    Espionage ON player or group; White Collar Crime MOVE ... BONUS TO card."""
    cases: dict[str, Order] = {
        "PLAY Bribery ON Hackers": PlaySpecial(ME, "Bribery", group="Hackers"),
        "PLAY Bribery ON Hackers AT CIA BOTTOM": PlaySpecial(
            ME, "Bribery", group="Hackers", master="C.I.A.", arrow=2),
        "PLAY Whispering Campaign ON Flat Earthers WITH Mafia": PlaySpecial(
            ME, "Whispering Campaign", group="Flat Earthers", attacker="The Mafia"),
        "PLAY Media Campaign ON Hackers": PlaySpecial(ME, "Media Campaign", group="Hackers"),
        "PLAY Computer Espionage ON Bob": PlaySpecial(ME, "Computer Espionage", other="Bob"),
        "PLAY Computer Espionage ON CIA": PlaySpecial(ME, "Computer Espionage", other="C.I.A."),
        "PLAY White Collar Crime MOVE 3 FROM CIA TO Mafia, MOVE 2 FROM Pentagon TO CIA "
        "BONUS TO Mafia": PlaySpecial(
            ME, "White Collar Crime", moves=(("C.I.A.", "The Mafia", 3),
                                             ("Pentagon", "C.I.A.", 2)),
            bonus_to="The Mafia"),
        "PLAY White Collar Crime": PlaySpecial(ME, "White Collar Crime"),
        "PLAY Slush Fund": PlaySpecial(ME, "Slush Fund"),
        "PLAY Deep Agent": PlaySpecial(ME, "Deep Agent"),
        "PLAY Secrets": Counter(ME, "Secrets Man Was Not Meant To Know"),
    }
    for line, expected in cases.items():
        assert read(line) == expected, line


def test_special_card_parameters_are_checked_against_the_card() -> None:
    """A card missing its parameters, or given ones it does not take, is an error."""
    bad = error("PLAY Bribery")
    assert bad.message == "Bribery needs ON <group>"
    assert bad.suggestion == (
        "write it as: PLAY Bribery ON <uncontrolled group> [AT <card> TOP|RIGHT|BOTTOM|LEFT]")
    assert "WITH <attacking group>" in error("PLAY Whispering Campaign ON Hackers").message
    assert error("PLAY Slush Fund ON Mafia").suggestion == "write it as: PLAY Slush Fund"


def test_the_answers_to_an_attack() -> None:
    """DEFEND, INTERFERE, ASSIST, ABOLISH PRIVILEGE, IF ... PLAY, COUNTER, NO RESPONSE."""
    cases: dict[str, Order] = {
        "DEFEND 3": DefendOrder(3),
        "DEFEND 2 FROM Hackers UPTO 6": DefendOrder(2, "Hackers", 6),
        "DEFEND 0 UPTO 5": DefendOrder(0, "", 5),
        "INTERFERE 2 UPTO 5": InterfereOrder(Interfere(ME, 2, "interfere"), 5),
        "ASSIST 3": InterfereOrder(Interfere(ME, 3, "assist")),
        "ABOLISH PRIVILEGE WITH Slush Fund, Bribery": AbolishPrivilege(
            ME, ("Slush Fund", "Bribery")),
        "ABOLISH PRIVILEGE WITH Interference AND Interference": AbolishPrivilege(
            ME, ("Interference", "Interference")),
        "ABOLISH PRIVILEGE WITH Bribery": AbolishPrivilege(ME, ("Bribery",)),
        "IF SUCCEEDS PLAY Murphy's Law": ConditionalPlay(
            "succeeds", PlaySpecial(ME, "Murphy's Law")),
        "IF FAILS PLAY Assassination": ConditionalPlay(
            "fails", PlaySpecial(ME, "Assassination")),
        "COUNTER": Counter(ME, "Secrets Man Was Not Meant To Know"),
        "NO RESPONSE": NoResponse(),
        "PLAY Interference": PlaySpecial(ME, "Interference"),
    }
    for line, expected in cases.items():
        assert read(line) == expected, line


def test_answers_that_cannot_be() -> None:
    """Only after-roll cards wait for the roll; one card cannot be discarded twice."""
    bad = error("IF SUCCEEDS PLAY Slush Fund")
    assert "cannot wait for the roll" in bad.message
    assert "Murphy's Law" in (bad.suggestion or "")
    assert "only one Bribery" in error("ABOLISH PRIVILEGE WITH Bribery, Bribery").message


def test_abolish_takes_at_most_two_cards() -> None:
    """Privilege is abolished with two cards (one when replacing a cancelled one)."""
    assert "too many" in error("ABOLISH PRIVILEGE WITH Bribery, Slush Fund, Deep Agent").message


def test_standing_orders() -> None:
    """STANDING DEFEND / NEVER INTERFERE / IF ... ATTACKS / IF ... STARTS TURN / LIST / CLEAR."""
    cases: dict[str, Order] = {
        "STANDING DEFEND ANY UPTO 3": StandingDefend(3),
        "STANDING DEFEND UPTO 3": StandingDefend(3),
        "STANDING DEFEND Hackers UPTO 8": StandingDefend(8, "Hackers"),
        "STANDING NEVER INTERFERE": StandingNeverInterfere(),
        "STANDING IF ANYONE ATTACKS Hackers AND SUCCEEDS PLAY Murphy's Law":
            StandingAttackReaction("Murphy's Law", "", "Hackers", "succeeds"),
        "STANDING IF bob ATTACKS ANY PLAY Deep Agent":
            StandingAttackReaction("Deep Agent", "Bob", "", "always"),
        "STANDING IF Bob STARTS TURN PLAY Senate": StandingTurnReaction(
            "Senate Investigating Committee", "Bob"),
        "STANDING IF ME STARTS TURN PLAY Market Manipulation": StandingTurnReaction(
            "Market Manipulation", "Alice"),
        "STANDING LIST": StandingList(),
        "STANDING CLEAR 2": StandingClear(2),
        "STANDING CLEAR ALL": StandingClear(),
        "STANDING CLEAR": StandingClear(),
    }
    for line, expected in cases.items():
        assert read(line) == expected, line
    assert "cannot be played as a turn starts" in error(
        "STANDING IF Bob STARTS TURN PLAY Murphy").message


def test_queries_and_settings() -> None:
    """STATUS, ODDS, HISTORY, HELP; SET TIMEZONE (checked by zoneinfo), LANGUAGE, HTML."""
    cases: dict[str, Order] = {
        "STATUS": Status(),
        "ODDS Mafia CONTROL Boy Sprouts WITH CIA SPEND 3": Odds(
            attack("The Mafia", "control", "Boy Sprouts", aids=("C.I.A.",)), 3),
        "HISTORY": History(),
        "HISTORY 2": History(2),
        "HELP": Help(),
        "HELP Attack": Help("attack"),
        "SET TIMEZONE europe/paris": SetTimezone("Europe/Paris"),
        "SET TIMEZONE UTC": SetTimezone("UTC"),
        "SET LANGUAGE fr": SetLanguage("fr"),
        "SET LANGUAGE English": SetLanguage("en"),
        "SET LANGUAGE DE": SetLanguage("de"),
        "set language Deutsch": SetLanguage("de"),
        "SET LANGUAGE german": SetLanguage("de"),
        "SET HTML OFF": SetHtml(False),
        "set html on": SetHtml(True),
        "SET JSON ON": SetJson(True),
        "set json off": SetJson(False),
    }
    for line, expected in cases.items():
        assert read(line) == expected, line
    bad = error("SET TIMEZONE Europe/Pariss")
    assert "time zone" in bad.message and "Europe/Paris" in (bad.suggestion or "")
    assert error("SET LANGUAGE Klingon").key == "language_expected"


def test_set_language_reads_any_language_code() -> None:
    """docs/orders.md: SET LANGUAGE names a language by its code (or, for those shipped, its
    name): the parser reads any code, the service says whether it has words for it
    (tests/service/test_set_language.py)."""
    for lang in (*LANGUAGES, "it", "pt"):
        assert read(f"SET LANGUAGE {lang.upper()}") == SetLanguage(lang)


def test_press_takes_the_lines_up_to_end_press() -> None:
    """PRESS TO <players>|ALL: the following lines, as written, up to END PRESS."""
    parsed = parse_orders(
        mail("PRESS TO Bob, carol", "Hi # not a comment", "", "  indented", "> quoted",
             "END PRESS", "PRESS TO ALL", "Peace.", "end press", "PASS"),
        CARDS, PLAYERS,
    )
    assert parsed.errors == ()
    assert [o.order for o in parsed.orders] == [
        Press(("Bob", "Carol Ann"), "Hi # not a comment\n\n  indented"),
        Press((), "Peace."),
        Pass(ME),
    ]
    assert [o.line for o in parsed.orders] == [2, 8, 11]


def test_press_without_end_press_is_not_sent() -> None:
    """A press with no END PRESS is an error: it would swallow the orders after it."""
    parsed = parse_orders(mail("PRESS TO Bob", "My secret plan:", "ATTACK ..."), CARDS, PLAYERS)
    assert parsed.orders == ()
    assert "END PRESS" in parsed.errors[0].message and parsed.errors[0].line == 2


def test_end_press_outside_a_press_and_a_second_start_line_are_errors() -> None:
    """END PRESS needs a PRESS TO before it; a mail holds one start line, and reading stops
    at a second one (a pasted report's order form is no orders)."""
    parsed = parse_orders(mail("END PRESS", "PASS", "GAME g PLAYER Alice PASSWORD s3cret",
                               "DROP Hackers"), CARDS, PLAYERS)
    assert [o.order for o in parsed.orders] == [Pass(ME)]
    first, second = parsed.errors
    assert "no PRESS TO" in first.message and first.line == 2
    assert "second start line" in second.message and "s3cret" not in str(second)
    assert "GAME" in parsed.errors[1].text and second.line == 4


def test_an_empty_press_is_an_error() -> None:
    parsed = parse_orders(mail("PRESS TO ALL", "", "END PRESS", "PASS"), CARDS, PLAYERS)
    assert [o.order for o in parsed.orders] == [Pass(ME)]
    assert "empty" in parsed.errors[0].message


def test_unknown_orders_and_leftovers() -> None:
    """An unknown first word, a two-word order cut short and leftovers are errors."""
    assert error("FLY to the moon").message == "unknown order 'FLY'"
    bad = error("END TURNS")
    assert "TURN" in bad.message and bad.suggestion == "did you mean END TURN?"
    assert error("PASS now").message == "PASS takes nothing after it"
    assert "quote" in error('DROP "Hackers').message


def test_parse_order_reads_one_line() -> None:
    """parse_order reads a single line for a given player, raising on a bad one."""
    assert parse_order("pass", CARDS, "Bob") == Pass("Bob")
    with pytest.raises(OrderSyntaxError):
        parse_order("ATTACK", CARDS, "Bob")
    with pytest.raises(OrderSyntaxError):
        parse_order("   ", CARDS, "Bob")


def test_a_reading_with_too_many_ways_is_cut_off() -> None:
    """The ways of reading one line are bounded, so no line can take long to refuse."""
    r = LineReader(tokenize("x TO " * 200 + "x"), Vocabulary(CARDS), ME)
    with pytest.raises(TooTangled):
        for _, first_end in r.name(0, "player", "one", ("to",), at_end=False):
            for _, second in r.keyword(first_end, "to"):
                for _, second_end in r.name(second, "player", "two", ("to",), at_end=False):
                    for _, third in r.keyword(second_end, "to"):
                        list(r.name(third, "player", "three", ()))


def test_errors_are_pbem_errors_with_line_text_and_suggestion() -> None:
    """Every error carries the line, the text and a suggestion a person can act on."""
    parsed: ParsedOrders = parse_orders(
        mail("TRANSFER x FROM CIA TO Mafia", "DROP Hackrs", "GIVE 3 MB TO"), CARDS, PLAYERS)
    assert [e.line for e in parsed.errors] == [2, 3, 4]
    for bad in parsed.errors:
        assert isinstance(bad, PbemError)
        assert bad.text and bad.suggestion and bad.message


# --- text back --------------------------------------------------------------------------------


def test_names_are_quoted_only_when_they_would_not_read_back() -> None:
    """The formatter writes names bare unless they hold an order word, a comma or a number."""
    assert quote_name("Boy Sprouts") == "Boy Sprouts"
    assert quote_name("C.I.A.") == "C.I.A."
    assert quote_name("Orbital Mind Control Lasers") == '"Orbital Mind Control Lasers"'
    assert quote_name("Smith, John") == '"Smith, John"'
    assert quote_name("3 Musketeers") == '"3 Musketeers"'
    assert quote_name("Any") == '"Any"'
    assert quote_name('Ann "Ace" Lee') == "“Ann \"Ace\" Lee”"


def test_a_stray_closing_quote_is_an_error() -> None:
    assert "closing quote" in error("DROP Hackers”").message


def test_format_orders_blanks_the_password() -> None:
    """Pending orders are sent back as a mail to resend, the password blanked."""
    text = format_orders(Header("g1", "Alice", "s3cret", 4), [Pass(ME), Status()])
    assert text == "GAME g1 PLAYER Alice PASSWORD ****** STEP 4\nPASS\nSTATUS\nEND\n"
    assert blank_password("GAME g PLAYER Password PASSWORD s3cret TURN 2") == (
        "GAME g PLAYER Password PASSWORD ****** TURN 2")
