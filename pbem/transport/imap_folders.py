"""IMAP folder layout: where the server keeps an account's folders, and what its names are.

Servers differ: Dovecot and most hosted ones keep personal folders at the top (``pbem-done``),
Cyrus (``altnamespace: no``), Courier and several hosted providers keep them under the inbox
(``INBOX.pbem-done`` or ``INBOX/pbem-done``) and refuse to make a folder at the top. The
server says which in its NAMESPACE reply (RFC 2342), and its hierarchy separator in the
reply to ``LIST "" ""`` (RFC 3501); a folder named in the configuration is put where the
server wants it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pbem.transport.imap_connection import ImapError


class ImapFolderError(ImapError):
    """The server refuses to make a folder the intake files mail into, or to file into it.

    ``folder`` is the name in the configuration, ``name`` the one on the server."""

    def __init__(self, message: str, *, folder: str, name: str, suggestion: str) -> None:
        super().__init__(message, suggestion=suggestion)
        self.folder = folder
        self.name = name


@dataclass(frozen=True)
class FolderLayout:
    """The account's personal namespace: its ``prefix`` ("" at the top, ``INBOX.`` under
    the inbox), the hierarchy ``separator``, and the prefixes of the other namespaces (other
    users', shared), whose folders are named as they are."""

    prefix: str = ""
    separator: str = "/"
    others: tuple[str, ...] = ()

    def name(self, folder: str) -> str:
        """Give the server's name of a configured folder: INBOX and a name already in a
        namespace as they are; any other under the personal prefix, each ``/`` of it made
        the server's separator (``Games/done`` is ``INBOX.Games.done`` on Cyrus)."""
        if folder.upper() == "INBOX" or any(
                p and folder.startswith(p) for p in (self.prefix, *self.others)):
            return folder
        return self.prefix + folder.replace("/", self.separator)


def learn_layout(client: Any) -> FolderLayout:
    """Ask the server for the account's folder layout (NAMESPACE where offered, else the
    separator from ``LIST "" ""`` and folders at the top)."""
    if client.has_capability("NAMESPACE"):
        spaces = client.namespace()
        personal = spaces.personal[0] if spaces.personal else ("", None)
        prefix, separator = personal[0], personal[1]
        others = tuple(space[0] for group in (spaces.other, spaces.shared)
                       for space in (group or ()))
        if separator:
            return FolderLayout(_text(prefix), _text(separator), tuple(map(_text, others)))
        return FolderLayout(_text(prefix), _list_separator(client), tuple(map(_text, others)))
    return FolderLayout("", _list_separator(client))


def _list_separator(client: Any) -> str:
    """Give the hierarchy separator from ``LIST "" ""`` ("/" when the server has none)."""
    found = client.list_folders("", "")
    separator = found[0][1] if found else None
    return _text(separator) if separator else "/"


def _text(value: str | bytes) -> str:
    return value.decode() if isinstance(value, bytes) else value
