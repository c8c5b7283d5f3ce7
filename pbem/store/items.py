"""What the store takes and gives (mail items), and the ids it names files by."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from datetime import datetime

from pbem.errors import StoreError

_GAME_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
_MAIL_ID = re.compile(r"[0-9a-f]{32}")
JSON_HINT = "Store only JSON values: dicts with string keys, lists, strings, numbers, None."


@dataclass(frozen=True)
class InboxItem:
    """A received mail waiting to be processed."""

    mail_id: str
    message_id: str
    received_at: str
    sender: str = ""  # as its From said when it was received ("" in records before)


@dataclass(frozen=True)
class Departure:
    """A game moving out of a store (``gone`` False) or moved out (True); ``to_folder``: the
    IMAP folder its mail is refiled into once it left, if one was given."""

    game_id: str
    gone: bool
    to_folder: str | None = None


@dataclass(frozen=True)
class OutboxItem:
    """A mail to send; ``outbox_id`` is chosen by the caller and stable across a redo.
    ``bundle``: the file its bytes are queued in, as the store gave it (the store's own)."""

    outbox_id: str
    game_id: str
    to: str
    message_id: str
    raw: bytes
    created_at: str
    attempts: int = 0
    retry_at: str | None = None
    last_error: str | None = None
    bundle: str = field(default="", compare=False, repr=False)


def mail_id_for(message_id: str) -> str:
    """Give the store's id for a Message-ID (angle brackets and spaces do not count)."""
    bare = message_id.strip().removeprefix("<").removesuffix(">").strip()
    if not bare:
        raise StoreError(
            "A mail without a Message-ID cannot be received.",
            suggestion="Derive one from a hash of the raw mail.",
        )
    return file_key(bare)


def file_key(text: str) -> str:
    """Give a file-name-safe fixed-length key for any string."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]


def stored_time(value: str | datetime) -> str:
    """Give a time as the ISO string the store keeps."""
    return value.isoformat() if isinstance(value, datetime) else value


def check_game_id(game_id: str) -> None:
    if not _GAME_ID.fullmatch(game_id):
        raise StoreError(
            "A game id is 1-64 letters, digits, '_', '-' or '.', starting with a letter or digit.",
            text=game_id)


def check_mail_id(mail_id: str) -> None:
    if not _MAIL_ID.fullmatch(mail_id):
        raise StoreError("This is not a mail id given by the store.", text=mail_id)
