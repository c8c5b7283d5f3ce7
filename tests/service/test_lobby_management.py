"""The game master sees and manages every game in every state (issue 43.2): a game open for
sign-up is shown, extended, closed or deleted, and a JOIN declined, each told by mail to
whom it concerns; a JOIN still waiting for approval when the game fills goes on the game's
waiting list and is told so, never dropped in silence. Played by mail through the real
``Service`` with the clock pinned (``Mailroom``), and through ``pbem`` on a store of files.
Each lobby's log folds to its record (``replay``)."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
from click.testing import CliRunner
from transcripts.harness import SEED, Mailroom

from pbem.errors import IllegalCommandError
from pbem.reports.observing import lobby_mail
from pbem.reports.templating import template
from pbem.service import gm
from pbem.service.entries import (
    GmEvent,
    GmJoinDeclined,
    GmSignupClosed,
    GmSignupExtended,
    gm_event,
)
from pbem.service.lobby_log import LobbyJoin, LobbyOpen, LobbyReject
from pbem.service.signup import LOBBY, Opening, apply, empty, replay


@pytest.fixture
def room(tmp_path: Path) -> Mailroom:
    return Mailroom(tmp_path)


def to(out: list) -> list[tuple[str, str]]:
    """(recipient's local part, subject) of each mail."""
    return [(m.to.split("@")[0].split("<")[-1], m.subject) for m in out]


def lobby_log(room: Mailroom) -> list[dict]:
    return list(room.store.log(LOBBY))


def lobby_replays(room: Mailroom) -> None:
    assert replay(lobby_log(room)) == room.service.lobby.meta()


def test_a_join_waiting_for_approval_when_the_game_fills_goes_on_the_waiting_list(
        room: Mailroom) -> None:
    """Three ask to join a game of two seats with approval; the game master seats two, the
    game starts: the third is told, and is on the waiting list (told of seats offered)."""
    room.override("open_game", Opening(seats=2, approval=True, seed=SEED), game="duo")
    for name in ("Ann", "Ben", "Cy"):
        room.mail(name, f"JOIN duo AS {name}\n")
    room.override("approve", "Ann", game="duo")
    out = room.override("approve", "Ben", game="duo")
    assert ("cy", "[duo] The game started: on the waiting list (Cy)") in to(out)
    told = next(m for m in out if m.to == "cy@example.org")
    assert "before the game master approved your join" in " ".join(told.text.split())
    assert room.service.lobby.waiting("duo") == [("cy@example.org", "en")]
    assert room.state("duo").turn_number == 1
    lobby_replays(room)
    # The waiting list hears of a seat offered, as any waiting list does.
    out = room.override("offer_seat", "Ann", game="duo")
    assert "cy@example.org" in [m.to for m in out]


def test_the_game_master_declines_a_join_and_the_player_is_told_once(room: Mailroom) -> None:
    room.override("open_game", Opening(seats=3, approval=True, seed=SEED), game="vetted")
    room.mail("Eve", "JOIN vetted AS Eve\n")
    room.mail("Fay", "JOIN vetted AS Fay\n")
    out = room.override("reject_join", "eve", game="vetted", reason="a closed club")
    assert to(out) == [("eve", "[vetted] Your join was declined (Eve)")]
    assert "Their reason: a closed club." in " ".join(out[0].text.split())
    assert [p["name"] for p in room.service.lobby.open_games()["vetted"]["players"]] == ["Fay"]
    with pytest.raises(IllegalCommandError):
        gm.reject_join(room.service, "vetted", "Eve", room.now)
    entry = lobby_log(room)[-1]
    assert (entry["kind"], entry["name"], entry["by"]) == ("reject", "Eve", "gm")
    # A seated player is declined too; Eve may join again.
    room.override("approve", "Fay", game="vetted")
    out = room.override("reject_join", "Fay", game="vetted")
    assert to(out) == [("fay", "[vetted] Your join was declined (Fay)")]
    out = room.mail("Eve", "JOIN vetted AS Eve\n", subject="again")
    assert to(out)[0] == ("eve", "[vetted] Your join waits for approval (Eve)")
    lobby_replays(room)


def test_someone_on_a_running_game_s_waiting_list_is_declined(tmp_path: Path) -> None:
    room = Mailroom(tmp_path, files=True)
    room.override("open_game", Opening(seats=2, seed=SEED), game="duo")
    for name in ("Ann", "Ben", "Cy"):
        room.mail(name, f"JOIN duo AS {name}\n")
    assert room.service.lobby.waiting("duo") == [("cy@example.org", "en")]
    from pbem.cli.main import main as pbem_main

    listed = CliRunner().invoke(pbem_main, ["games", "--store", str(tmp_path / "store")])
    assert "duo: waiting list: Cy" in listed.output, listed.output
    out = room.override("reject_join", "Cy", game="duo")
    assert to(out) == [("cy", "[duo] Your join was declined (Cy)")]
    assert "no longer on its waiting list" in " ".join(out[0].text.split())
    assert room.service.lobby.waiting("duo") == []
    lobby_replays(room)


def test_a_seat_freed_before_the_start_goes_to_the_first_on_the_waiting_list() -> None:
    """The lobby's fold: declining a seated player seats the first one waiting."""
    meta = apply(empty(), LobbyOpen("g", {"seats": 2, "approval": False, "fill_by": ""}))
    person = {"prefer": [], "lang": "en"}
    meta = apply(meta, LobbyJoin("g", "Ann", "a@x", (), "en"))
    meta["waiting"]["g"].append({"name": "Cy", "address": "c@x", "approved": True, **person})
    meta = apply(meta, LobbyReject("g", "Ann"))
    assert [p["name"] for p in meta["open"]["g"]["players"]] == ["Cy"]
    assert meta["waiting"]["g"] == []


def test_the_game_master_closes_a_sign_up_and_everyone_who_joined_is_told(
        room: Mailroom) -> None:
    room.override("open_game", Opening(seats=4, approval=True, seed=SEED), game="club")
    room.mail("Ann", "JOIN club AS Ann\n")
    room.mail("Ben", "JOIN club AS Ben\n")
    room.override("approve", "Ann", game="club")
    out = room.override("close_signup", game="club", reason="too few of us this month")
    assert sorted(to(out)) == [("ann", "[club] Sign-up closed: the game will not start"),
                               ("ben", "[club] Sign-up closed: the game will not start")]
    said = " ".join(out[0].text.split())
    assert "The game master closed the sign-up for club" in said
    assert "too few of us this month" in said
    assert room.service.lobby.open_games() == {}
    assert room.mail("Cy", "JOIN club AS Cy\n")[0].subject == "[club] Your JOIN was refused"
    entry = next(e for e in lobby_log(room) if e["kind"] == "closed")
    assert (entry["by"], entry["why"], entry["reason"]) == ("gm", "closed",
                                                            "too few of us this month")
    # The game master's doing is a typed GM entry, kept beside the lobby's change.
    assert gm_event(entry["gm"]["kind"], entry["at"], entry["gm"]["data"]) == GmSignupClosed(
        "club", ["Ben", "Ann"], False, "too few of us this month", at=entry["at"])
    lobby_replays(room)
    # The id is free again; a deleted game's applicants are told it was deleted.
    room.override("open_game", Opening(seats=3, seed=SEED), game="club")
    room.mail("Dee", "JOIN club AS Dee\n", subject="again")
    out = room.override("close_signup", game="club", deleted=True)
    assert to(out) == [("dee", "[club] The game was deleted: the game will not start")]
    lobby_replays(room)


def test_the_game_master_extends_the_deadline_to_fill(room: Mailroom) -> None:
    fill_by = room.now + timedelta(days=1)
    room.override("open_game", Opening(seats=4, fill_by=fill_by.isoformat(), seed=SEED),
                  game="slow")
    room.mail("Ann", "JOIN slow AS Ann\n")
    out = room.override("extend_signup", 48, game="slow")
    assert to(out) == [("ann", "[slow] Sign-up extended")]
    assert "2026-12-02 12:00" in out[0].text
    assert room.tick(days=2) == []  # the old deadline passed: still open
    assert "slow" in room.service.lobby.open_games()
    out = room.tick(days=1, minutes=1)
    assert ("ann", "[slow] Sign-up closed: the game will not start") in to(out)
    lobby_replays(room)


@pytest.mark.parametrize("lang", ["en", "fr"])
@pytest.mark.parametrize(("template", "words"), [
    ("join_rejected", {"player": "Ann", "waiting": False, "reason": "x"}),
    ("join_rejected", {"player": "Ann", "waiting": True, "reason": ""}),
    ("signup_extended", {"fill_by": "2026-12-01 12:00", "reason": "x"}),
    ("signup_closed", {"why": "closed", "reason": "x"}),
    ("signup_closed", {"why": "deleted", "reason": ""}),
    ("joined", {"player": "Ann", "outcome": "overtaken", "still": 0}),
])
def test_every_mail_of_the_game_master_s_sign_up_commands_is_worded_in_each_language(
        template: str, words: dict, lang: str) -> None:
    rendered = lobby_mail(template, lang, None, game="illu", **words)
    assert rendered.subject and rendered.text.strip()
    assert "<pre>" not in rendered.html and "<p>" in rendered.html
    english = lobby_mail(template, "en", None, game="illu", **words)
    assert (rendered.text == english.text) == (lang == "en")


# --- pbem, on a store of files ------------------------------------------------------------------


def test_pbem_shows_extends_declines_closes_and_deletes_a_game_open_for_sign_up(
        tmp_path: Path) -> None:
    from pbem.cli.main import main as pbem_main

    store = tmp_path / "store"

    def run(*args: str, code: int = 0) -> str:
        result = CliRunner().invoke(pbem_main, [*args, "--store", str(store),
                                                "--now", "2026-11-29T12:00:00+00:00"])
        assert result.exit_code == code, result.output
        return result.output

    run("game", "open", "g1", "--seats", "3", "--approval", "--deadline-to-fill",
        "2026-12-01T12:00", "--seed", SEED)
    run("game", "open", "g2", "--seats", "2", "--seed", SEED)
    room = Mailroom(tmp_path, files=True)
    room.mail("Ann", "JOIN g1 AS Ann PREFER UFOs\n")
    room.mail("Ben", "JOIN g1 AS Ben\n")
    room.mail("Cy", "JOIN g2 AS Cy\n")
    shown = run("game", "show", "g1")
    assert "g1: open for sign-up, 0 of 3 seats taken." in shown
    assert "Waiting for your approval: Ann <ann@example.org> (prefers The UFOs), " \
           "Ben <ben@example.org>" in shown
    assert '"open_for_signup"' in run("game", "show", "G1", "--json")
    assert "is now 2026-12-02 12:00 UTC" in run("extend", "g1", "--hours", "24")
    assert "Declined Ben's join of g1" in run("reject", "g1", "ben", "--reason", "full")
    # The lobby's log of the game, the game master's doings included.
    shown = run("game", "show", "g1")
    assert "Ann <ann@example.org> joined" in shown
    assert "The game master declined Ben's join of g1. Reason: full." in shown
    assert "The game master moved the deadline to fill g1 24 hours later, to 2026-12-02 " \
           "12:00 UTC." in shown
    assert "until 2026-12-02T12:00" in run("games")
    assert "Closed the sign-up of g1: it will not start; told Ann." in run(
        "game", "close", "g1", "--reason", "postponed")
    assert "Deleted g2, open for sign-up: told Cy." in run("game", "delete", "g2", "--yes")
    assert "No games yet" in run("games")
    # Every mail went out: the refusal, closing and deletion, each to its applicant.
    titles = sorted((m.to, m.subject) for m in room.collect())
    assert ("ann@example.org", "[g1] Sign-up closed: the game will not start") in titles
    assert ("ben@example.org", "[g1] Your join was declined (Ben)") in titles
    assert ("cy@example.org", "[g2] The game was deleted: the game will not start") in titles
    assert ("ann@example.org", "[g1] Sign-up extended") in titles
    # A game of the store that is not open for sign-up: close says what to use instead.
    room.new_game("illu", [("Alice", ""), ("Bob", "")])
    assert "pbem end illu" in run("game", "close", "illu", code=1)


def sentence(lang: str, done: GmEvent) -> str:
    """The game master's timeline sentence of ``done`` (as ``pbem game show`` says it)."""
    module = template("_gm.txt.j2", lang).module
    return str(module.sentence(done.kind, done))  # type: ignore[attr-defined]


@pytest.mark.parametrize("lang", ["en", "fr"])
@pytest.mark.parametrize("done", [
    GmSignupClosed("club", ["Ann", "Ben"], False, "postponed"),
    GmSignupClosed("club", [], True),
    GmJoinDeclined("club", "Ben", "Cy", "members only"),
    GmJoinDeclined("club", "Ben"),
    GmSignupExtended("club", 24.0, "2026-12-02T12:00:00+00:00", "2026-12-02 12:00"),
], ids=lambda d: d.kind)
def test_the_game_master_s_sign_up_doings_read_as_sentences(done: GmEvent, lang: str) -> None:
    """Each GM entry of the lobby reads as a sentence of the game master's timeline, in each
    language, its reason said."""
    text, other = (str(sentence(language, done)) for language in (lang, "fr" if lang == "en"
                                                                  else "en"))
    assert "club" in text and text.endswith(".") and text != other and "None" not in text
    assert ("postponed" in text or "members only" in text) == bool(done.get("reason"))
