"""Every file the store writes, read back and checked: what ``pbem doctor`` reports.

Nothing here changes the store. Each damage found names its file, what is wrong and how to
mend it; the daemon meanwhile holds up only what needs that file (the game whose record it
is, the mails it holds), see docs/store.md.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pbem.store.lock import FORMAT, VERSION

_BACKUP = "Restore it from a backup (deploy/BACKUPS.md)."
_MAILS = ".mails"


@dataclass(frozen=True)
class Damage:
    """One damaged or missing store file."""

    path: Path
    problem: str
    remedy: str = _BACKUP

    def __str__(self) -> str:
        return f"{self.path}: {self.problem}. {self.remedy}"


def examine(root: Path) -> list[Damage]:
    """Give every damage found in the store under ``root`` (none for a store not made yet)."""
    root = Path(root)
    if not root.is_dir():
        return []
    found = list(_format(root))
    listed = _split(_index(root), found)
    folders = sorted(p.name for p in (root / "games").iterdir()) if (
        root / "games").is_dir() else []
    for game_id in sorted(set(listed) | set(folders)):
        found += _game(root, game_id, listed=game_id in listed)
    for folder in ("inbox", "mail", "outbox"):
        found += _group_files(root / folder)
    found += _journal(root / "done.log")
    found += _seen(root)
    found += _json_file(root / "daemon" / "imap-cursor.json", required=False,
                        remedy="Remove it: the IMAP intake then reads every mail still in its "
                               "folder again, and the store ignores those it has.")
    return found


def _split(items: Iterator[Damage | str], damages: list[Damage]) -> list[str]:
    """Split what a check gives into the damages (added to ``damages``) and the rest."""
    rest: list[str] = []
    for item in items:
        if isinstance(item, Damage):
            damages.append(item)
        else:
            rest.append(item)
    return rest


def _format(root: Path) -> Iterator[Damage]:
    path = root / "format"
    try:
        found = path.read_bytes()
    except FileNotFoundError:
        if (root / "index.json").exists() or (root / "games").is_dir():
            yield Damage(path, "missing", f"Write {FORMAT.decode().strip()!r} and a new line "
                         "into it, or restore it from a backup.")
        return
    first = found.split()[:1]
    if first and first[0].isdigit() and int(first[0]) > VERSION:
        yield Damage(path, f"says format version {int(first[0])}, written by a newer pbem "
                     f"(this one reads up to {VERSION})",
                     "Run the pbem that wrote the store (or a newer one).")
    elif not (first and first[0].isdigit() and 2 <= int(first[0]) <= VERSION):
        yield Damage(path, f"holds {found[:20]!r}, no layout pbem knows",
                     f"Write {FORMAT.decode().strip()!r} and a new line into it, or restore it "
                     "from a backup.")


def _index(root: Path) -> Iterator[Damage | str]:
    """Give the damage of the index of games, and the ids it lists."""
    path = root / "index.json"
    remedy = ("Restore it from a backup; meanwhile the daemon takes the games from the "
              "folders in games/, and writes the index again when a game is created.")
    if not path.exists():
        if (root / "games").is_dir() and any((root / "games").iterdir()):
            yield Damage(path, "missing while games/ holds games", remedy)
        return
    try:
        value = json.loads(path.read_bytes())
        ids = [doc["game_id"] for doc in value.get("games", {}).values()]
    except (ValueError, KeyError, TypeError, AttributeError) as error:
        yield Damage(path, f"damaged ({_said(error)})", remedy)
        return
    yield from (str(game_id) for game_id in ids)


def _game(root: Path, game_id: str, *, listed: bool) -> Iterator[Damage]:
    folder = root / "games" / game_id
    hot_path = folder / "hot.json"
    if not folder.is_dir():
        yield Damage(folder, "missing: the index of games lists this game",
                     "Restore the folder from a backup.")
        return
    yield from _json_file(folder / "setup.json")
    hot = None
    try:
        hot = json.loads(hot_path.read_bytes())
        state = hot["game"]["1"]
        base, size = int(state["base"]), int(state["segment_size"])
        snapshot = state["snapshot"]
        if snapshot is not None and not isinstance(snapshot, dict):
            raise ValueError("its snapshot is not a record")
    except FileNotFoundError:
        if listed:
            yield Damage(hot_path, "missing: the game's record (its state and open log)")
        return
    except (ValueError, KeyError, TypeError, AttributeError) as error:
        if listed or not isinstance(hot, dict):
            yield Damage(hot_path, f"damaged ({_said(error)}): the game's record",
                         _BACKUP + " Its mails wait meanwhile; the other games go on.")
        return
    if not listed and not state.get("fresh") and (root / "index.json").exists():
        yield Damage(root / "index.json", f"does not list game {game_id}, whose folder holds "
                     "its record", _BACKUP + " Meanwhile its players' mail is answered as "
                     "for an unknown game.")
    for start in range(0, base, size):
        yield from _json_file(folder / "segments" / f"{start:010d}.json",
                              keys=("entries", "applied"))
    yield from _journal(folder / "applied.log")
    yield from _journal(folder / "sent.log")
    for doc in hot.get("outbox", {}).values():
        bundle = root / "outbox" / str(doc.get("bundle"))
        if not bundle.exists() and not _sent(folder / "sent.log", doc.get("outbox_id")):
            yield Damage(bundle, f"missing: it holds mail {doc.get('outbox_id')} game "
                         f"{game_id} queued", "Restore it from a backup, or drop the mail "
                         "(`pbem outbox drop`); the game's other mail waits meanwhile.")
            break


def _sent(journal: Path, outbox_id: Any) -> bool:
    with contextlib.suppress(OSError):
        for line in journal.read_bytes().splitlines():
            with contextlib.suppress(ValueError, TypeError, KeyError):
                if json.loads(line)["outbox_id"] == outbox_id:
                    return True
    return False


def _json_file(path: Path, *, required: bool = True, keys: tuple[str, ...] = (),
               remedy: str = _BACKUP) -> Iterator[Damage]:
    try:
        value = json.loads(path.read_bytes())
    except FileNotFoundError:
        if required:
            yield Damage(path, "missing", remedy)
        return
    except ValueError as error:
        yield Damage(path, f"damaged ({_said(error)})", remedy)
        return
    if keys and not (isinstance(value, dict) and set(keys) <= value.keys()):
        yield Damage(path, f"damaged (it lacks {', '.join(keys)})", remedy)


def _journal(path: Path) -> Iterator[Damage]:
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return
    whole = data[:data.rfind(b"\n") + 1]  # a partial last line is a killed writer's, cut off
    bad = 0
    for line in whole.splitlines():
        try:
            bad += not isinstance(json.loads(line), dict)
        except ValueError:
            bad += 1
    if bad:
        yield Damage(path, f"{bad} damaged line(s), skipped when read",
                     "Restore it from a backup if a line is wanted; it is only ever added "
                     "to, so a copy's lines are all good ones.")


def _group_files(folder: Path) -> Iterator[Damage]:
    """The files of mails received together (inbox/, mail/) or queued (outbox/): a header
    line naming each mail's size, then their bytes."""
    if not folder.is_dir():
        return
    for path in sorted(folder.iterdir()):
        if not path.name.endswith(_MAILS) or path.name.startswith("."):
            continue
        try:
            with open(path, "rb") as handle:
                header = json.loads(handle.readline())
                body = os.fstat(handle.fileno()).st_size - handle.tell()
            sizes = ([m["size"] for m in header["mails"]] if "mails" in header
                     else list(header["sizes"]))
        except (ValueError, KeyError, TypeError) as error:
            yield Damage(path, f"damaged ({_said(error)}): the mails in it cannot be told "
                         "apart", _BACKUP + " The mails in it wait meanwhile.")
            continue
        if body < sum(sizes):
            yield Damage(path, f"cut short ({body} of {sum(sizes)} bytes of mail)",
                         _BACKUP + " The mails in it wait meanwhile.")


def _seen(root: Path) -> Iterator[Damage]:
    path = root / "seen.sqlite"
    if not path.exists():
        if any((root / "mail").glob(f"*{_MAILS}")):
            yield Damage(path, "missing while mail/ holds mail taken in",
                         _BACKUP + " Without it a mail sent again is taken for a new one.")
        return
    try:
        with contextlib.closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as db:
            verdict = db.execute("PRAGMA quick_check").fetchone()[0]
            groups = [row[0] for row in db.execute("SELECT DISTINCT grp FROM seen")]
    except sqlite3.Error as error:
        yield Damage(path, f"damaged ({error})", _BACKUP)
        return
    if verdict != "ok":
        yield Damage(path, f"damaged ({verdict})", _BACKUP)
    missing = [g for g in groups if not (root / "mail" / g).exists()
               and not (root / "inbox" / g).exists()]
    if missing:
        yield Damage(root / "mail" / missing[0], f"missing ({len(missing)} file(s) of mail "
                     "taken in and done)", "Restore them from a backup; only the mails' "
                     "bytes are lost, the games are whole.")


def _said(error: BaseException) -> str:
    return f"{type(error).__name__}: {error}"
