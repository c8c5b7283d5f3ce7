"""Sign-up by mail, observers, takeover and player records, played by mail through the real
``Service`` with the clock pinned: every mail in and out is compared with a golden
transcript in ``tests/transcripts/`` (``signup``, ``observers``, ``takeover``), and the facts
that matter are asserted in code. Each game's log replays to its snapshot (``check``), and
the lobby's log folds to its record (``lobby_replays``).
"""

from __future__ import annotations

import re
from datetime import timedelta
from pathlib import Path

import pytest
from transcripts.harness import GM, SEED, Mailroom, Out

from pbem.errors import OrderSyntaxError
from pbem.orders.signup import lobby_order
from pbem.reports.observing import lobby_mail
from pbem.service import gm, history
from pbem.service.records import Record
from pbem.service.signup import LOBBY, Opening, replay

PLAYERS = [("Alice", ""), ("Bob", ""), ("Carol", "")]  # the seed makes Carol play first
_PASSWORD = re.compile(r"YOUR PASSWORD\n-+\n(\S+)")


@pytest.fixture
def room(tmp_path: Path) -> Mailroom:
    return Mailroom(tmp_path)


def subjects(mails: list[Out]) -> list[tuple[str, str]]:
    """(recipient's local part, subject) of each mail."""
    return [(m.to.split("@")[0].split("<")[-1], m.subject) for m in mails]


def learn_passwords(room: Mailroom, game: str, mails: list[Out]) -> None:
    """Keep the passwords the welcome mails among ``mails`` bring, for later orders."""
    for mail in mails:
        found = _PASSWORD.search(mail.text)
        if found and "Welcome" in mail.subject:
            player = mail.subject.split("Welcome to the game, ")[1].split(" (")[0]
            room.passwords[(game, player)] = found.group(1)


def gm_history(room: Mailroom, game: str) -> str:
    """The game master's timeline of ``game`` (``pbem history``), on one line."""
    return " ".join(history.timeline_text(room.service.cards, history.read_game(
        room.store, game), None).split())


def lobby_replays(room: Mailroom) -> None:
    assert replay(room.store.log(LOBBY)) == room.service.lobby.meta()


def test_players_sign_up_by_mail_and_the_game_starts_when_full(room: Mailroom) -> None:
    """LIST shows the game open; JOINs are answered, bad names refused as ``game create``
    refuses them; the last seat starts the game with the preferences honoured; a JOIN past
    it goes on the waiting list; LIST then shows the game running."""
    room.override("open_game", Opening(seats=3, observers=True, seed=SEED), game="illu")
    out = room.mail("Dan", "LIST\n")
    assert "illu: 0 of 3 seats taken; open to observers." in out[0].text
    out = room.mail("Alice", "JOIN illu AS Alice PREFER Network, UFOs\n")
    assert subjects(out) == [("alice", "[illu] You have joined (Alice)")]
    out = room.mail("Bob", "JOIN illu AS End\n")
    assert "'End' reads as a word or number of the orders" in out[0].text
    out = room.mail("Bob", "join illu as ALICE\n", subject="again")
    assert "another player is already named 'ALICE'" in out[0].text
    out = room.mail("Alice", "JOIN illu AS Alys\n")
    assert "this address has already joined illu" in out[0].text
    out = room.mail("Zed", "JOIN nosuch AS Zed\n")
    assert "no game called nosuch is open for sign-up" in out[0].text
    room.at(minutes=5)
    out = room.mail("Bob", "> quoted\n\nJOIN illu AS Bob PREFER network\n")
    assert "1 more seat to fill" in out[0].text
    room.at(minutes=5)
    out = room.mail("Carol", "JOIN illu AS Carol PREFER Bermuda\n")
    welcomes = [m for m in out if "Welcome" in m.subject]
    assert len(welcomes) == 3
    learn_passwords(room, "illu", out)
    state = room.state("illu")
    dealt = {p.name: p.illuminati for p in state.players}
    assert dealt["Alice"] == "The Network"  # her first choice
    assert dealt["Carol"] == "The Bermuda Triangle"  # free: hers
    assert dealt["Bob"] not in ("The Network", "The Bermuda Triangle")  # taken: dealt
    assert ("gm", "[illu] Started") in subjects(out)
    room.at(minutes=5)
    out = room.mail("Dan", "JOIN illu AS Dan\n")
    assert subjects(out) == [("dan", "[illu] On the waiting list (Dan)")]
    assert room.service.lobby.waiting("illu") == [("dan@example.org", "en")]
    out = room.mail("Dan", "LIST\n", subject="list again")
    assert "- illu: Alice, Bob, Carol. Open to observers: OBSERVE illu." in out[0].text
    # The players' orders work with the passwords the welcomes brought.
    out = room.orders("Carol", "PASS", game="illu")
    assert "1 accepted" in out[0].subject
    lobby_replays(room)
    room.check("signup")


def test_approval_a_deadline_to_fill_and_the_game_master_s_start(room: Mailroom) -> None:
    """With --approval a JOIN waits for ``pbem approve``; at the deadline to fill a game
    with too few players closes; the game master may start a game before it is full."""
    fill_by = (room.now + timedelta(days=2)).isoformat()
    room.override("open_game", Opening(seats=4, approval=True, fill_by=fill_by, seed=SEED),
                  game="vetted")
    out = room.mail("Eve", "JOIN vetted AS Eve\n")
    assert subjects(out) == [("eve", "[vetted] Your join waits for approval (Eve)"),
                             ("gm", "[vetted] A join waits for your approval")]
    assert "pbem approve vetted Eve" in out[1].text
    out = room.override("approve", "Eve", game="vetted")
    assert subjects(out) == [("eve", "[vetted] You have joined (Eve)")]
    with pytest.raises(Exception, match="no join of 'Eve' waits"):
        gm.approve(room.service, "vetted", "Eve", room.now)
    room.override("open_game", Opening(seats=5, seed=SEED), game="early")
    for name in ("Ann", "Ben"):
        room.mail(name, f"JOIN early AS {name}\n")
    out = room.override("start_open", game="early")
    assert len([m for m in out if "Welcome" in m.subject]) == 2
    assert room.state("early").turn_number == 1
    out = room.tick(days=2)
    assert subjects(out) == [("eve", "[vetted] Sign-up closed: the game will not start"),
                             ("gm", "[vetted] Sign-up closed, not started")]
    assert room.service.lobby.open_games() == {}
    lobby_replays(room)
    room.check("signup_approval")


def test_observers_read_the_public_reports_and_nothing_secret(room: Mailroom) -> None:
    """OBSERVE is refused where the game does not allow it; the game master adds an
    observer, who gets the public report at once and at every turn, but no press unless the
    game says so; UNOBSERVE ends it; the game-over mail reaches an observer too."""
    room.new_game("illu", PLAYERS)
    out = room.mail("Eve", "OBSERVE illu\n")
    assert "not open to observers" in out[0].text
    out = room.override("add_observer", "eve@example.org")
    assert subjects(out) == [("eve", "[illu] You observe the game"),
                             ("eve", "[illu] Turn 1: Carol's move (observer)")]
    report = " ".join(out[1].text.split())
    assert "treasury ? MB" in report and "ORDERS" not in report and "PASSWORD" not in report
    assert out[1].attachments == [] and out[1].html is not None
    assert "<pre>" not in out[1].html and "<p>" in out[1].html
    room.at(minutes=5)
    out = room.orders("Carol", "PRESS TO ALL", "Hello all.", "END PRESS", "PASS")
    assert "eve@example.org" not in [m.to for m in out if "Press" in m.subject]
    observed = [m for m in out if m.to == "eve@example.org"]
    assert [m.subject for m in observed] == ["[illu] Turn 2: Alice's move (observer)"]
    assert "Carol passed" in " ".join(observed[0].text.split())
    room.at(minutes=5)
    # With no word of a trusted mail server on the sender, UNOBSERVE is confirmed from the
    # observer's own mailbox (issue 44: a forged UNOBSERVE changes nothing).
    out = room.mail("Eve", "UNOBSERVE illu\n")
    assert subjects(out) == [("eve", "[illu] Confirm that you stop observing the game")]
    code = re.search(r"UNOBSERVE illu (\w+)", out[0].text)
    assert code is not None
    out = room.mail("Eve", f"UNOBSERVE illu {code.group(1)}\n")
    assert subjects(out) == [("eve", "[illu] You no longer observe the game")]
    out = room.orders("Alice", "PASS")
    assert not [m for m in out if m.to == "eve@example.org"]
    # Another observer, with press to all this time; then the end.
    room.override("add_observer", "fay@example.org")
    out = room.override("end_game", ["Alice"], reason="time is up")
    last = [m for m in out if m.to == "fay@example.org"]
    assert [m.subject for m in last] == ["[illu] Game over: Alice won (observer)"]
    assert "The secret seed of the game was" in last[0].text
    told = gm_history(room, "illu")
    assert "eve@example.org observes the game from now on (by the game master)" in told
    assert "eve@example.org no longer observes the game." in told
    room.check("observers")


def test_observers_read_press_to_all_when_the_game_says_so(room: Mailroom) -> None:
    room.override("open_game", Opening(seats=3, observers=True, press=True, seed=SEED),
                  game="illu")
    room.mail("Eve", "OBSERVE illu\n")
    out: list[Out] = []
    for name in ("Alice", "Bob", "Carol"):
        out = room.mail(name, f"JOIN illu AS {name}\n")
    learn_passwords(room, "illu", out)
    assert ("eve", "[illu] Turn 1: Carol's move (observer)") in subjects(out)
    out = room.orders("Carol", "PRESS TO ALL", "Hello <b>all</b>.", "END PRESS",
                      "PRESS TO Alice", "Only you.", "END PRESS")
    press = [m for m in out if m.to == "eve@example.org"]
    assert [m.subject for m in press] == ["[illu] Press from Carol to all players (observer)"]
    assert "Hello <b>all</b>." in press[0].text and "Only you." not in press[0].text
    assert press[0].html is not None and "Hello &lt;b&gt;all&lt;/b&gt;." in press[0].html


def test_a_seat_offered_is_taken_over_by_mail(room: Mailroom) -> None:
    """``pbem seat offer``, then TAKEOVER from a newcomer: the welcome with a new password
    goes to them, the others are told, the old password no longer works, and the records
    keep the seat's past with its old player."""
    room.new_game("illu", PLAYERS)
    room.orders("Carol", "PASS")
    room.at(hours=80)
    room.tick()  # Alice misses her deadline
    out = room.mail("Zoe", "TAKEOVER illu Bob\n")
    assert "No seat called Bob is offered" in out[0].text
    out = room.override("offer_seat", "Bob", reason="Bob has not written for a week")
    assert out == []  # nobody on a waiting list: the game master tells whom they like
    assert room.record().audience.offered == ("Bob",)
    room.at(minutes=5)
    out = room.mail("Zoe", "TAKEOVER illu bob\n")
    assert subjects(out)[:3] == [
        ("zoe", "[illu] Welcome to the game, Bob (The UFOs)"),
        ("bob", "[illu] The seat of Bob has passed to another player"),
        ("zoe", "[illu] Turn 3: your move (Bob)")]
    told = [m for m in out if m.to == "carol@example.org"]
    assert "A new player now plays Bob's seat." in told[0].text
    assert "zoe@example.org" not in told[0].text  # an address is nobody else's business
    assert "zoe@example.org" not in out[1].text
    learn_passwords(room, "illu", out)
    room.addresses["Bob"] = "zoe@example.org"
    out = room.orders("Bob", "PASS", password="bob-illu-02", address="bob@example.org")
    assert subjects(out) == [
        ("bob", "[illu] Not carried out: the seat of Bob is no longer yours")]
    out = room.orders("Bob", "PASS")
    assert "1 accepted" in out[0].subject
    out = room.mail("Yan", "TAKEOVER illu Bob\n")
    assert "No seat called Bob is offered" in out[0].text
    records = gm.players(room.service)
    assert records["bob@example.org"] == Record(games=1, left=1, met=0)
    assert records["zoe@example.org"] == Record(games=1, met=1)
    assert records["alice@example.org"] == Record(games=1, met=0, missed=1)
    assert records["carol@example.org"] == Record(games=1, met=1)  # her turn 4 runs
    # The game master's history tells it all, the seat offered too.
    told = gm_history(room, "illu")
    assert "The game master offered Bob's seat for takeover." in told
    assert "A new player now plays Bob's seat (address zoe@example.org" in told
    room.check("takeover")


def test_list_shows_the_records_of_the_players_who_joined(room: Mailroom) -> None:
    """A game master picks reliable players by their records, shown beside their names."""
    room.new_game("old", PLAYERS)
    room.at(hours=73)
    room.tick()  # Carol misses her deadline
    room.override("open_game", Opening(seats=3, seed=SEED), game="next")
    room.mail("Carol", "JOIN next AS Carol\n")
    out = room.mail("Dan", "LIST\n")
    assert "Carol: 1 game (0 finished, 0 won, 0 left); deadlines 0 met, 1 missed" in out[0].text
    assert "- old: Alice, Bob, Carol." in out[0].text
    assert GM not in [m.to for m in out]
    room.override("end_game", ["Alice"], game="old", reason="enough")
    out = room.mail("Dan", "LIST\n", subject="list again")
    assert "- old:" not in out[0].text  # over: no longer running
    assert "Carol: 1 game (1 finished, 0 won, 0 left)" in " ".join(out[0].text.split())


# --- the players' guide: docs/orders.md's examples of mail to the server ---------------------

DOC = Path(__file__).resolve().parents[2] / "docs" / "orders.md"
_BLOCK = re.compile(r"^```([\w-]+)\n(.*?)^```", re.MULTILINE | re.DOTALL)


def server_lines(kind: str) -> list[str]:
    return [line for fence, body in _BLOCK.findall(DOC.read_text(encoding="utf-8"))
            if fence == kind for line in body.splitlines() if line.strip()]


def test_the_guide_has_examples_of_mail_to_the_server() -> None:
    assert len(server_lines("server")) >= 5 and server_lines("server-bad")


@pytest.mark.parametrize("line", server_lines("server"))
def test_every_server_example_reads(line: str) -> None:
    assert lobby_order(line + "\n") is not None


@pytest.mark.parametrize("line", server_lines("server-bad"))
def test_every_bad_server_example_is_refused_with_its_form(line: str) -> None:
    with pytest.raises(OrderSyntaxError) as caught:
        lobby_order(line + "\n")
    # (a JOIN says what it lacks: issue 43.10)
    assert caught.value.key == "lobby_form" or caught.value.key.startswith("join_no_")
    assert caught.value.words["usage"].split()[0] == line.split()[0]


def test_a_mail_to_the_server_that_does_not_read_gets_the_right_form(room: Mailroom) -> None:
    out = room.mail("Dan", "observe\n")
    assert "OBSERVE <game>" in out[0].text
    # A first line that looks like one, above a start line, is an order mail's prose.
    room.new_game("illu", PLAYERS)
    out = room.mail("Carol", "List of my orders:\nGAME illu PLAYER Carol PASSWORD "
                    "carol-illu-03\nPASS\nEND\n")
    assert "1 accepted" in out[0].subject


# --- every word in English and French ----------------------------------------------------------

LETTERS = {
    "lobby_list": {"opened": [{"game": "illu", "seats": 4, "approval": True, "fill_by": "x",
                               "observers": True, "waiting": 1, "players": [
                                   {"name": "Ann", "record": Record(2, 1, 1, 0, 9, 1)}]}],
                   "least": 2, "running": [{"game": "old", "players": ["Bo", "Cy"],
                                            "offered": ["Bo"], "observers": True}]},
    "joined": {"player": "Ann", "outcome": "seated", "still": 2},
    "join_refused": {"message": "no", "suggestion": "yes", "running": False},
    "signup_closed": {},
    "gm_signup": {"what": "approval", "names": ["Ann"]},
    "observe_refused": {"why": "closed"},
    "observing": {"press": True},
    "unobserved": {"was": True},
    "seat_offered": {"seat": "Bo"},
    "takeover_refused": {"why": "not_offered", "seat": "Bo"},
    "seat_passed": {"seat": "Bo"},
    "seat_gone": {"seat": "Bo"},
    "observer_press": {"sender": "Bo", "message": "Hello."},
}


@pytest.mark.parametrize("lang", ["en", "fr"])
@pytest.mark.parametrize("template", sorted(LETTERS))
def test_every_mail_of_sign_up_is_worded_in_each_language(template: str, lang: str) -> None:
    rendered = lobby_mail(template, lang, None, game="illu", **LETTERS[template])
    assert rendered.subject and rendered.text.strip()
    assert "<pre>" not in rendered.html and "<p>" in rendered.html
    english = lobby_mail(template, "en", None, game="illu", **LETTERS[template])
    assert (rendered.text == english.text) == (lang == "en")


def test_an_observer_reads_french(room: Mailroom) -> None:
    room.new_game("illu", PLAYERS)
    out = room.override("add_observer", "eve@example.org", lang="fr")
    assert [m.subject for m in out] == ["[illu] Vous observez la partie",
                                        "[illu] Tour 1 : au tour de Carol (observateur)"]
    assert "LES JOUEURS" in out[1].text


def test_mail_still_queued_for_the_player_who_left_is_dropped(room: Mailroom) -> None:
    """As ``pbem replace`` does: a report queued for the old address was written for the
    player who left; the newcomer's welcome and the reports after it show the game."""
    room.new_game("illu", PLAYERS)
    start = f"GAME illu PLAYER Carol PASSWORD {room.passwords[('illu', 'Carol')]}"
    room.service.receive(_raw("carol@example.org", f"{start}\nPASS\nEND\n", 1), room.now)
    before = {i.outbox_id for i in room.store.outbox() if i.to == "bob@example.org"}
    assert before  # not sent yet
    gm.offer_seat(room.service, "illu", "Bob", room.now)
    room.service.receive(_raw("zoe@example.org", "TAKEOVER illu Bob\n", 2), room.now)
    queued = room.store.outbox()
    to_bob = [i for i in queued if i.to == "bob@example.org"]
    assert len(to_bob) == 1 and to_bob[0].outbox_id not in before  # only: the seat passed on
    assert [i for i in queued if i.to == "zoe@example.org"]


def _raw(sender: str, body: str, n: int) -> bytes:
    return (f"From: <{sender}>\nTo: pbem@pbem.example\nSubject: x\nMessage-ID: <q{n}@x.org>\n"
            f"\n{body}").encode()


def test_the_game_master_s_commands(tmp_path: Path) -> None:
    """``pbem game open``, ``pbem games``, ``pbem approve``, ``pbem game start``, ``pbem
    observer add``, ``pbem seat offer`` and ``pbem players`` on a store of files."""
    from click.testing import CliRunner

    from pbem.cli.main import main as pbem_main

    store = tmp_path / "store"

    def run(*args: str) -> str:
        result = CliRunner().invoke(pbem_main, [*args, "--store", str(store),
                                                "--now", "2026-11-29T12:00:00+00:00"])
        assert result.exit_code == 0, result.output
        return result.output

    assert "Opened g1 for sign-up: 3 seats" in run(
        "game", "open", "g1", "--seats", "3", "--approval", "--deadline-to-fill",
        "2026-12-01T12:00", "--seed", SEED)
    room = Mailroom(tmp_path, files=True)
    for name in ("Ann", "Ben", "Cy"):
        room.mail(name, f"JOIN g1 AS {name}\n")
    listed = run("games")
    assert "g1: open for sign-up, 0 of 3 seats taken; waiting for your approval: Ann, Ben, " \
           "Cy; until 2026-12-01T12:00." in listed
    run("approve", "g1", "Ann")
    result = CliRunner().invoke(pbem_main, ["game", "start", "g1", "--store", str(store)])
    assert result.exit_code == 1 and "a game needs 2 at least" in result.output
    assert "The game is full" not in run("approve", "g1", "ben")
    assert "Started g1" in run("game", "start", "g1")
    assert "observes g1" in run("observer", "add", "g1", "eve@example.org")
    assert "no longer observes" in run("observer", "remove", "g1", "eve@example.org")
    assert "Offered Ben's seat of g1" in run("seat", "offer", "g1", "ben")
    assert "ann@example.org" in run("players")


def test_a_french_game_opened_for_sign_up_writes_french_to_newcomers(room: Mailroom) -> None:
    room.override("open_game", Opening(seats=2, lang="fr", seed=SEED), game="jeu")
    out = room.mail("Ann", "JOIN jeu AS Ann\n")
    assert out[0].subject == "[jeu] Vous êtes inscrit (Ann)"
    out = room.mail("Ben", "JOIN jeu AS Ben\n")
    assert "[jeu] Bienvenue" in " ".join(m.subject for m in out)
    assert room.record("jeu").seat("Ben").lang == "fr"


def test_the_lobby_answers_forged_senders_within_the_hourly_budget(room: Mailroom) -> None:
    """LIST under 300 forged From addresses (issue 21.5, backscatter): the lobby answers as
    many as the budget of replies to strangers allows in an hour, and again the next hour."""
    room.override("open_game", Opening(seats=3, seed=SEED), game="next")
    budget = room.service.config.stranger_replies
    answered = sum(len(room.mail("X", "LIST\n", address=f"forged{n}@example.net"))
                   for n in range(300))
    assert answered == budget
    room.at(hours=1, minutes=1)
    assert len(room.mail("X", "LIST\n", address="late@example.net")) == 1


def test_forged_joins_past_the_strangers_budget_are_not_acted_on(room: Mailroom) -> None:
    """Issue 44: JOINs from strangers not vouched for, past the hour's replies to strangers
    (10), are not recorded and do not tell the game master: a flood of forged JOINs fills
    no list and sends no more than 10 notices of approval."""
    fill_by = (room.now + timedelta(days=2)).isoformat()
    room.override("open_game", Opening(seats=4, approval=True, fill_by=fill_by, seed=SEED),
                  game="vetted")
    told = [m for n in range(30) for m in room.mail(f"V{n}", f"JOIN vetted AS V{n}\n")]
    assert len([m for m in told if m.to == "gm@pbem.example"]) <= 10
    assert len([m for m in told if m.to != "gm@pbem.example"]) <= 10
    assert len(room.service.lobby.applicants("vetted")) <= 10


def test_a_newcomer_takes_an_offered_seat_after_the_strangers_budget_is_spent(
        room: Mailroom) -> None:
    """Strangers' LISTs spend the hour's replies to strangers (issue 21.5); a TAKEOVER of
    a seat the game master offers is still answered with the welcome, the seat passing to
    the newcomer (each offer is taken once: a forged one costs one welcome at most), while
    a TAKEOVER of a seat not offered stays unanswered, like any stranger's mail that hour.
    Found by a long club season (``tests/daemon/test_club_events.py``): the newcomer's mail
    was dropped and the seat stayed offered."""
    room.new_game("illu", PLAYERS)
    room.override("offer_seat", "Bob", reason="Bob has not written for a week")
    budget = room.service.config.stranger_replies
    answered = sum(len(room.mail("X", "LIST\n", address=f"lister{n}@example.net"))
                   for n in range(budget + 5))
    assert answered == budget
    assert room.mail("Yan", "TAKEOVER illu Carol\n") == []  # not offered: no answer
    out = room.mail("Zoe", "TAKEOVER illu Bob\n")
    assert ("zoe", "[illu] Welcome to the game, Bob (The UFOs)") in subjects(out)
    assert room.record().audience.offered == ()
    assert room.record().seat("Bob").address == "zoe@example.org"
    assert room.mail("Wes", "TAKEOVER illu Bob\n") == []  # taken: a stranger's mail again
