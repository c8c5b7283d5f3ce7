"""Players the game master removes, and the end of a game, as QA met them by mail: who gets
the game's last mail, how a removal is told, what the final structures and a STATUS after
the end say, and how each kind of mail closes (pbem.service.gm through a ``Mailroom``)."""

from __future__ import annotations

import re
from pathlib import Path

from transcripts.harness import GM, SEED, SERVICE, Mailroom

from pbem.service import gm
from pbem.service.settings import MailIdentity

SEED_LINE = SEED[:32]  # the game-over mail shows the seed in two lines of 32


def plain(text: str) -> str:
    """Text with no-break spaces as spaces and the lines joined."""
    return " ".join(text.replace("\xa0", " ").split())


def three(tmp_path: Path, sender: MailIdentity | None = None) -> Mailroom:
    room = Mailroom(tmp_path) if sender is None else Mailroom(tmp_path, sender=sender)
    room.new_game("g2", [("ann", ""), ("ben", ""), ("cam", "")])
    return room


def address(name: str) -> str:
    return f"{name}@example.org"


def test_every_seat_dealt_in_gets_the_last_mail_with_the_seed(tmp_path: Path) -> None:
    """docs/service.md: "every player gets the game's last mail with the reason and the
    secret seed": the player the game master removed and the one who left on their own too,
    as each was sent the dice commitment at the start. Until then they get no reports."""
    room = three(tmp_path)
    room.orders("cam", "LEAVE GAME")
    gm.remove_seat(room.service, "g2", "ben", room.now, "moved away")
    room.collect()
    reports = [m for m in room.orders("ann", "PASS") if "Turn" in m.subject]
    assert [m.to for m in reports] == [address("ann")]
    gm.end_game(room.service, "g2", ["ann"], room.now, "only one left")
    last = {m.to: plain(m.text) for m in room.collect() if "Game over" in m.subject}
    assert set(last) == {address("ann"), address("ben"), address("cam")}
    for text in last.values():
        assert SEED_LINE in text and "victory for ann" in text
    # The final structures say how each one went: removed, or left on their own.
    assert re.search(r"ben \([^)]*, removed by the game master\)", last[address("ann")])
    assert re.search(r"cam \([^)]*, left the game\)", last[address("ann")])
    assert room.state().player("ben").status == "removed"


def test_a_removal_is_told_first_with_its_reason_then_what_follows(tmp_path: Path) -> None:
    """The removal mail says the removal and its reason, then what follows from it (the next
    player's turn), in each reader's language; no "left the game" besides."""
    room = three(tmp_path)
    active = room.state().active_player.name
    reader, french_reader = [n for n in ("ann", "ben", "cam") if n != active]
    room.orders(french_reader, "SET LANGUAGE FR")
    gm.remove_seat(room.service, "g2", active, room.now, "silent")
    told = {m.to: m for m in room.collect() if "game master" in m.subject
            or "maître du jeu" in m.subject}
    assert set(told) == {address("ann"), address("ben"), address("cam")}
    items = [line for line in told[address(reader)].text.splitlines()
             if line.startswith("- ")]
    assert items[0].startswith(f"- The game master removed {active} from the game (silent)")
    assert items[1].startswith("- Next to play: ")
    assert "left the game" not in told[address(reader)].text
    french = [line.replace("\xa0", " ") for line in told[address(french_reader)].text.splitlines()
              if line.startswith("- ")]
    assert french[0].startswith(f"- Le maître du jeu a retiré {active} de la partie (silent)")
    assert french[1].startswith("- Joueur suivant : ")
    assert "a abandonné" not in told[address(french_reader)].text


def test_special_cards_of_a_removed_player_are_out_of_play_in_the_final_structures(
        tmp_path: Path) -> None:
    """rulebook-en: "His Illuminati card is taken out of play." The special cards of a
    player removed stay in their hand, out of play with them (pbem.engine.turn.remove_player):
    the final structures say so."""
    room = three(tmp_path)
    gm.edit_move(room.service, "g2", "Market Manipulation", "hand:ben", "a test", room.now)
    gm.remove_seat(room.service, "g2", "ben", room.now, "moved away")
    room.collect()
    assert room.state().player("ben").hand == ("Market Manipulation",)
    gm.end_game(room.service, "g2", ["ann"], room.now, "only one left")
    last = {m.to: m for m in room.collect() if "Game over" in m.subject}
    text = plain(last[address("ann")].text)
    assert re.search(r"ben \([^)]*, removed by the game master\): 1 card, 1 special card "
                     r"out of play, treasury 0 MB\.", text), text
    assert "1 special card out of play," in plain(last[address("ann")].html or "")


def test_a_status_after_the_end_names_the_winner(tmp_path: Path) -> None:
    """A player's STATUS after ``pbem end`` says who won, and that the game master ended
    the game."""
    room = three(tmp_path)
    room.orders("cam", "SET LANGUAGE FR")
    gm.end_game(room.service, "g2", ["ann", "ben"], room.now, "agreed")
    room.collect()
    (report,) = [m for m in room.orders("ann", "STATUS") if "game over" in m.subject]
    assert ("The game is over: victory for ann and ben (the game master ended the game)."
            in plain(report.text))
    (rapport,) = [m for m in room.orders("cam", "STATUS") if "finie" in m.subject]
    assert ("La partie est finie : victoire d'ann et ben (le maître du jeu a mis fin à la "
            "partie)." in plain(rapport.text))


def test_each_kind_of_mail_closes_with_what_a_reply_does(tmp_path: Path) -> None:
    """The game master's own mail cannot be answered by mail; a player out of the game and a
    finished game take no more orders: their mails do not invite orders."""
    room = three(tmp_path)
    orders = "Orders and questions: reply to this mail."
    gm.remove_seat(room.service, "g2", "ben", room.now, "moved away")
    removal = {m.to: plain(m.text) for m in room.collect()}
    assert removal[address("ann")].endswith(orders)
    assert removal[address("ben")].endswith("It takes no more orders from you in this game, "
                                            "but STATUS and HISTORY still get an answer.")
    gm.remove_seat(room.service, "g2", "cam", room.now, "silent")
    (alert,) = [m for m in room.collect() if m.to == GM]
    assert plain(alert.text).endswith("This mail is for the game master: replies to it are "
                                      "not read; act with the pbem commands.")
    assert "replies to it are not read" in (alert.html or "")
    gm.end_game(room.service, "g2", ["ann"], room.now, "only one left")
    over = "The game is over: it takes no more orders, but STATUS and HISTORY still get an answer."
    for mail in room.collect():
        assert plain(mail.text).endswith(over) and orders not in mail.text
        assert over in (mail.html or "")


def test_the_closings_are_in_french_too(tmp_path: Path) -> None:
    room = three(tmp_path, MailIdentity(address=SERVICE, domain="pbem.example", gm_address=GM,
                                  gm_lang="fr"))
    room.orders("ann", "SET LANGUAGE FR")
    gm.remove_seat(room.service, "g2", "ben", room.now, "parti")
    gm.remove_seat(room.service, "g2", "cam", room.now, "parti")
    (alert,) = [m for m in room.collect() if m.to == GM]
    assert plain(alert.text).endswith("Ce mail est pour le maître du jeu : personne ne lit les "
                                      "réponses ; agissez avec les commandes pbem.")
    assert "\u00a0: personne" in alert.text and "\u00a0; agissez" in alert.text
    gm.end_game(room.service, "g2", ["ann"], room.now, "seule")
    (last,) = [m for m in room.collect() if m.to == address("ann")]
    assert plain(last.text).endswith("La partie est finie : il ne prend plus d'ordres, mais "
                                     "STATUS et HISTORY ont toujours une réponse.")


def acknowledgement(room: Mailroom, mails: list) -> str:
    """The one acknowledgement among ``mails``, its words with blanks as single spaces."""
    (ack,) = [m for m in mails if m.headers.get("In-Reply-To")]
    return plain(ack.text)


def test_a_removed_player_may_only_ask_status_and_history(tmp_path: Path) -> None:
    """docs/service.md: "A player out of the game (removed, left, or eliminated) may still
    ask `STATUS` and `HISTORY`, and change their `SET` settings; every other order is
    refused, saying why": press to all is relayed to nobody, a standing order is not
    kept."""
    room = three(tmp_path)
    gm.remove_seat(room.service, "g2", "ben", room.now, "moved away")
    room.collect()
    mails = room.orders("ben", "PRESS TO ALL", "I am still here.", "END PRESS",
                        "STANDING NEVER INTERFERE", "SET HTML OFF", "STATUS", "HISTORY")
    assert [m.to for m in mails if "I am still here" in m.text] == []
    assert room.record().standing == ()
    text = acknowledgement(room, mails)
    assert text.count("you are out of this game (removed by the game master): only "
                      "STATUS, HISTORY and SET are answered") == 2
    assert not room.record().seat("ben").html  # their mail goes on: settings still count
    assert {m.to for m in mails} == {address("ben")}
    assert len(mails) == 3  # the acknowledgement, the status, the history


def test_a_player_who_left_is_refused_in_french(tmp_path: Path) -> None:
    """The refusal in the seat's language, for a player who left with LEAVE GAME."""
    room = three(tmp_path)
    room.orders("cam", "SET LANGUAGE FR")
    room.orders("cam", "LEAVE GAME")
    mails = room.orders("cam", "PRESS TO ann", "Encore là.", "END PRESS")
    assert [m for m in mails if m.to == address("ann")] == []
    (ack,) = [m for m in mails if m.headers.get("In-Reply-To")]
    assert "vous n'êtes plus dans cette partie (vous l'avez quittée)\xa0: seuls" in ack.text
    assert ("vous n'êtes plus dans cette partie (vous l'avez quittée) : seuls STATUS, "
            "HISTORY et SET reçoivent une réponse") in plain(ack.text)
