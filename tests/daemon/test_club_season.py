"""A club's season on a real ``pbem run`` (issue 43, "Done when"): several games at once,
from sign-up or creation with house rules to game over, played by mail by people who read
their mail and answer it (tests/club.py), with observers, each press mode, absences
under each stand-in policy, a takeover, a bot seat and the game master's commands given
while response windows are open. The invariants of ``Club.check`` hold after every step.

Steps that met one of issue 43's numbered bugs have tests of their own in
tests/daemon/test_club_steps.py.
"""

from __future__ import annotations

from pathlib import Path

from club import GM, MAX_TURNS, Club, created_game, play_until, text, window_open

SIGN_UP, GREY, SILENT = "club1", "club2", "club3"


def sign_up_game(club: Club) -> None:
    """A sign-up game with observers, joined by mail (Carol first asks what is open)."""
    club.gm("game", "open", SIGN_UP, "--seats", "3", "--observers", "--observers-read-press",
            "--option", MAX_TURNS, "--option", "press=grey", "--option", "stand_in=pass")
    club.games.add(SIGN_UP)
    club.mail("carol@club.test", "LIST", name="Carol")
    club.await_text("carol@club.test", SIGN_UP)
    club.mail("eve@club.test", f"OBSERVE {SIGN_UP}", name="Eve")
    for name, prefer in (("Alice", " PREFER Network"), ("Bob", ""), ("Carol", "")):
        club.join(SIGN_UP, name, f"{name.lower()}@club.test", prefer)
    club.read_passwords()


def test_a_club_season(tmp_path: Path) -> None:
    club = Club(tmp_path)
    with club.running():
        # Sign-up and creation: three games at once, one press mode each.
        sign_up_game(club)
        created_game(club, GREY, ("Dora", "Emil", "Fay"), "press=grey", "stand_in=pass",
                     "absence_days=7", "absence_days_per_game=14")
        created_game(club, SILENT, ("Gus", "Hana", "Ivo", "Jo"), "press=none",
                     "stand_in=bot", "press_in_attack=no")
        club.check()
        games = {SIGN_UP, GREY, SILENT}

        # Press in each mode: signed (the observer reads it), grey, none (refused).
        club.orders(SIGN_UP, "Alice", "PRESS TO ALL", "Shall we share the Bermuda shorts?",
                    "END PRESS")
        club.orders(GREY, "Dora", "PRESS TO ALL", "Someone is watching.", "END PRESS")
        club.orders(SILENT, "Gus", "PRESS TO ALL", "Hello?", "END PRESS")
        club.settle()
        assert any("Bermuda shorts" in t for t in club.texts("eve@club.test"))
        grey = [t for t in club.texts("emil.club2@club.test") if "Someone is watching" in t]
        assert grey and not any("Dora" in t.split("Someone is watching")[0][-200:]
                                for t in grey)
        assert not any("Hello?" in t for t in club.texts("hana.club3@club.test"))
        club.check()

        # Absences: Carol later in the season (stand_in=wait, the default: nothing to do
        # now); Fay from today with stand_in=pass, Jo from today with stand_in=bot, both
        # leaving standing answers for the attacks meanwhile and then silent.
        club.absent(SIGN_UP, "Carol", "wait", days=2, start_in=20)
        # No standing answers first: a window never waits for them, and a stand-in's turns
        # never eliminate them.
        club.absent(GREY, "Fay", "pass", days=3)
        club.absent(SILENT, "Jo", "bot", days=3)
        club.away(GREY, "Fay")
        club.away(SILENT, "Jo")
        club.check()
        assert club.await_text("dora.club2@club.test", "Fay")

        # A bot seat by the game master's command, in the game of stand-in bots.
        club.gm("bot", SILENT, "Ivo", "on")
        club.away(SILENT, "Ivo")
        club.check()

        # Play on to the first open response window of each game; the game master extends
        # one, pauses and resumes another while it is open.
        assert play_until(club, games, window_open(club, SIGN_UP))
        club.gm("extend", SIGN_UP, "--hours", "12", "--reason", "a holiday")
        club.check()
        if play_until(club, games, window_open(club, SILENT)):
            club.gm("pause", SILENT, "--reason", "the club's evening")
            club.gm("resume", SILENT)
            club.check()

        # Bob drops out of the sign-up game: the game master offers his seat, Zoe takes it
        # by mail and asks where the game stands, as a newcomer would.
        club.gm("seat", "offer", SIGN_UP, "Bob", "--reason", "Bob moved away")
        club.takeover(SIGN_UP, "Bob", "zoe@club.test", "Zoe")
        club.check()

        # Two rounds on, Fay and Jo are back; Ivo's bot hands the seat back to him.
        for _ in range(2):
            club.settle()
            club.play_round()
            club.check(full=False)
        club.back(GREY, "Fay")
        club.back(SILENT, "Jo")
        seen = club.passwords_seen(SILENT, "Ivo")
        club.gm("bot", SILENT, "Ivo", "off")
        club.new_password(SILENT, "Ivo", seen)
        club.check()

        club.play(games, check_every=10)
        club.check()
    for game in games:
        assert club.state(game).phase == "over", game
    # The observer followed the sign-up game to its end and read no password.
    eve = club.texts("eve@club.test")
    assert any("Game over" in t for t in eve)
    assert not any("YOUR PASSWORD" in t for t in eve)
    assert GM in club.addresses()
    assert all(text(m) for m in club.box(GM))
