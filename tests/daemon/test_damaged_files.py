"""One damaged store file holds up only what needs it: a real daemon (``pbem run``) on a
store with two games, ``hurt`` and ``well``, each with a log of closed segments, mail
queued unsent and (for ``hurt``) a mail waiting, after one file is damaged (cut short,
garbled, deleted; the list below covers every kind of file the store writes).

In every case the daemon sends ``well``'s queued mail and answers a new order mail for it;
a mail of ``hurt`` that needs the damaged file waits in the inbox (it is no mail's fault),
the game master is told once which file and how to restore it, and once the file is
restored from a copy the waiting mail is applied. ``pbem doctor`` names the damaged file in
every case.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import pytest
from robust_kit import (
    CHEAP_PASSWORDS,
    HANG,
    answers,
    config,
    new_game,
    new_port,
    order,
    running_daemon,
    send,
    to_gm,
    write_config,
)
from servers import wait_until

from pbem.daemon.doctor import examine
from pbem.service.service import Service
from pbem.store import Store, mail_id_for

Damage = Callable[[Path], None]


def cut(path: Path) -> None:
    data = path.read_bytes()
    path.write_bytes(data[:len(data) // 2])


def cut_tail(path: Path) -> None:  # the header line whole, the mails' bytes cut short
    data = path.read_bytes()
    path.write_bytes(data[:len(data) - 40])


def garble(path: Path) -> None:
    path.write_bytes(b"\0garbled\xff" * 16)


def delete(path: Path) -> None:
    if path.is_dir():
        shutil.rmtree(path)
    else:
        path.unlink()


def garble_line(path: Path) -> None:
    lines = path.read_bytes().splitlines(keepends=True) if path.exists() else []
    lines.insert(min(1, len(lines)), b"\0\0{not json\n")
    path.write_bytes(b"".join(lines))


def garble_sqlite(path: Path) -> None:
    """The database and its write-ahead log garbled (its rows may be in either)."""
    for each in (path, path.with_name(path.name + "-wal")):
        if each.exists():
            garble(each)
    path.with_name(path.name + "-shm").unlink(missing_ok=True)


def restore(copy: Path, path: Path) -> None:
    if path.exists():
        delete(path)
    if copy.is_dir():
        shutil.copytree(copy, path)
    else:
        shutil.copy2(copy, path)


def not_a_record(path: Path) -> None:
    path.write_text(json.dumps({"game": {"1": {"snapshot": "garbled", "base": 0,
                                               "segment_size": 2}}}))


def unlisted_game(path: Path) -> None:
    path.write_text(json.dumps({"games": {"1": {"name": "hurt"}}}))


# (case, the damaged file (a glob under the store), the damage, whether hurt's waiting mail
# needs that file: it then waits, and the game master is told)
CASES: list[tuple[str, str, Damage, bool]] = [
    ("game record cut short", "games/hurt/hot.json", cut, True),
    ("game record garbled", "games/hurt/hot.json", garble, True),
    ("game record deleted", "games/hurt/hot.json", delete, True),
    ("game record not a record", "games/hurt/hot.json", not_a_record, True),
    ("game folder deleted", "games/hurt", delete, True),
    ("game setup deleted", "games/hurt/setup.json", delete, False),
    ("game setup garbled", "games/hurt/setup.json", garble, False),
    ("log segment deleted", "games/hurt/segments/0000000000.json", delete, False),
    ("log segment cut short", "games/hurt/segments/0000000000.json", cut, False),
    ("applied journal garbled", "games/hurt/applied.log", garble_line, False),
    ("sent journal garbled", "games/hurt/sent.log", garble_line, False),
    ("postmaster record cut short", "games/pbem-postmaster/hot.json", cut, False),
    ("queued mail deleted", "outbox/hurt.*.mails", delete, False),
    ("queued mail cut short", "outbox/hurt.*.mails", cut_tail, False),
    ("waiting mail cut short", "inbox/*.mails", cut_tail, True),
    ("waiting mail garbled", "inbox/*.mails", garble, False),
    ("index of games deleted", "index.json", delete, False),
    ("index of games garbled", "index.json", garble, False),
    ("index of games lists no ids", "index.json", unlisted_game, False),
    ("done journal garbled", "done.log", garble_line, False),
    ("seen index garbled", "seen.sqlite", garble_sqlite, False),
    ("done mail deleted", "mail/*.mails", delete, False),
]


def prepare(tmp_path: Path) -> tuple[Path, int, dict[str, dict[str, str]]]:
    """A store with games hurt and well, three mails of each applied (their answers queued,
    unsent: no daemon ran yet), and one mail of hurt waiting."""
    store = tmp_path / "store"
    port = new_port()
    path = write_config(tmp_path, store, port=port)
    cfg = config(path)
    passwords = {game: new_game(cfg, game, segment_size=2) for game in ("hurt", "well")}
    from dataclasses import replace
    service = Service(Store(store), replace(cfg.service_config(),
                                            password_cost=CHEAP_PASSWORDS))
    now = datetime.now(UTC)
    for n in range(3):  # the player whose turn it is passes: log entries, closed segments
        for game in ("hurt", "well"):
            player = service.state(game).active_player.name
            service.accept(order(f"{game}-{n}", game, player, passwords[game][player],
                                 "PASS"), now)
        service.process(now)
    assert (store / "games" / "hurt" / "segments" / "0000000000.json").exists()
    service.accept(order("hurt-wait", "hurt", "Alice", passwords["hurt"]["Alice"]), now)
    return path, port, passwords


@pytest.mark.parametrize(("case", "where", "damage", "held"), CASES,
                         ids=[case for case, *_ in CASES])
def test_one_damaged_file_holds_up_only_what_needs_it(
        tmp_path: Path, case: str, where: str, damage: Damage, held: bool) -> None:
    path, port, passwords = prepare(tmp_path)
    store = tmp_path / "store"
    backup = tmp_path / "backup"
    shutil.copytree(store, backup)
    targets = sorted(store.glob(where)) or [store / where]
    assert targets[0].exists() or damage is garble_line, f"nothing at {where}"
    target = targets[0]
    damage(target)
    # The doctor names the file (before the daemon runs: what it finds is the damage's).
    problems = [f.text for f in examine(config(path)) if f.level == "problem"]
    assert any(str(target) in text for text in problems), (case, problems)
    maildirs = tmp_path / "maildirs"
    well = {f"<well-{n}@example.org>" for n in range(3)} | {"<well-new@example.org>"}
    with running_daemon(path, port, tmp_path / "daemon.log"):
        assert send(port, order("well-new", "well", "Bob", passwords["well"]["Bob"])) == 250
        # The other game goes on: its queued answers sent, its new mail answered.
        assert wait_until(lambda: well <= answers(maildirs).keys(), timeout=HANG, step=0.1), (
            case, answers(maildirs), (tmp_path / "daemon.log").read_text()[-3000:])
        if held:
            # hurt's mail waits, unanswered and not set aside; the GM is told which file.
            assert wait_until(lambda: any("damaged" in str(m["Subject"])
                                          for m in to_gm(maildirs)), timeout=HANG, step=0.1)
            told = [m for m in to_gm(maildirs) if "damaged" in str(m["Subject"])]
            assert len(told) == 1
            body = told[0].get_body(("plain",))
            assert body is not None
            assert str(target.relative_to(store)) in body.get_content().replace("\n", " ")
            assert mail_id_for("<hurt-wait@example.org>") in {
                item.mail_id for item in Store(store).inbox()}
            assert "<hurt-wait@example.org>" not in answers(maildirs)
            # Restored from the copy, the game goes on by itself with the mail that waited.
            restore(backup / target.relative_to(store), target)
            assert send(port, order("hurt-after", "hurt", "Bob",
                                    passwords["hurt"]["Bob"])) == 250
            assert wait_until(lambda: {"<hurt-wait@example.org>", "<hurt-after@example.org>"}
                              <= answers(maildirs).keys(), timeout=HANG, step=0.1), case
