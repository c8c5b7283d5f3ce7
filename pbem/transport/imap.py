"""IMAP intake: fetches new mail from one folder, hands it over, and only then files it away.

A mail is acknowledged to the server (moved to the processed folder, or flagged) only after
``deliver(raw)`` returned, that is after the caller stored it durably. The position reached
is kept in a :class:`CursorStore` as (UIDVALIDITY, last UID), so a restart neither skips nor
repeats mail; a crash between storing and filing a mail fetches it once more, which the
store ignores by its Message-ID. Filing is a MOVE, or a COPY then \\Deleted and EXPUNGE where
the server has no MOVE (and Cyrus's MOVE is those steps inside the server): the filing under
way is kept beside the position (:class:`Filing`) from just before the copy, and the next pass
finishes one cut short, so a mail is never filed twice (see ``_finish_filing``).

New mail is noticed with IDLE where the server offers it, by polling otherwise.

Folder names are the configuration's as a mail client shows them; the server's own names
follow its personal namespace (``INBOX.pbem-done`` on Cyrus and Courier: see
``pbem.transport.imap_folders``). The processed and failed folders are made, where missing,
when a session opens: a server refusing them (or refusing to file into them) stops the
intake with :class:`ImapFolderError`, logged as an error each try and told to the game
master once (``folder_refused``), with the mail left waiting on the server.

A ``route`` may set a mail aside instead (a game moving between daemons, deploy/SCALING.md):
left untouched in the folder and looked at again every ``HOLD_SECONDS`` (what the SMTP
listener's 450 is to a sending server), or moved into another folder of the account,
marked with the ``REFILED`` keyword so the intake there knows where it comes from.
"""

from __future__ import annotations

import contextlib
import logging
import random
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, cast

from imapclient.exceptions import IMAPClientAbortError, IMAPClientError

from pbem.errors import ConfigError, PbemError
from pbem.mail.inbound import stand_in
from pbem.transport.backoff import backoff_delay, jittered
from pbem.transport.imap_config import ImapConfig, Security
from pbem.transport.imap_connection import (
    ImapError,
    ImapLoginError,
    ImapTokenError,
    is_loopback,
    open_client,
    open_session,
    quietly_close,
)
from pbem.transport.imap_cursor import CursorStore, Filing, JsonFileCursor
from pbem.transport.imap_folders import FolderLayout, ImapFolderError, learn_layout
from pbem.transport.intake import (
    IntakeHooks,
    IntakeKind,
    Logins,
    SectionValues,
    password_env,
)
from pbem.transport.oauth import REFRESH_MARGIN, TokenRevoked

# The settings, the connection and the cursor have modules of their own; their names stay
# importable from here. The intake itself stays here so its log lines keep this logger's name.
__all__ = [
    "CURSOR_FILE",
    "HOLD_SECONDS",
    "INTAKE",
    "REFILED",
    "Aside",
    "CursorStore",
    "Filing",
    "FolderLayout",
    "GroupDelivery",
    "ImapConfig",
    "ImapError",
    "ImapFolderError",
    "ImapIntake",
    "ImapLoginError",
    "ImapTokenError",
    "JsonFileCursor",
    "Router",
    "Security",
    "UnprocessableMail",
    "is_loopback",
    "make_intake",
    "read_section",
]

log = logging.getLogger(__name__)

_SEEN = b"\\Seen"
_FLAGGED = b"\\Flagged"
_DELETED = b"\\Deleted"
# Fetching in groups saves round trips; the group is small so memory stays bounded.
_FETCH_GROUP = 25
# How often a wait with a stop event looks at that event; IDLE itself stays open.
_STOP_CHECK_SECONDS = 0.5
# How often mail left in the folder (``Aside()``) is looked at again: nothing on the server
# announces that its game's move is over.
HOLD_SECONDS = 2.0
# The keyword on a mail another daemon's intake moved into this folder (``Aside(folder)``).
REFILED = b"$PbemRefiled"


class UnprocessableMail(PbemError):
    """Raised by a ``deliver`` callable: this mail can never be processed, do not retry it."""


def _announces_mail(response: Sequence[Any]) -> bool:
    """Tell whether an IDLE response says a message arrived (EXISTS or RECENT)."""
    return len(response) >= 2 and response[1] in (b"EXISTS", b"RECENT")


@dataclass(frozen=True)
class Aside:
    """A fetched mail the intake does not take: left in the folder (``folder`` None), to be
    looked at again in ``HOLD_SECONDS``, or moved into ``folder`` (of the same account),
    marked ``REFILED``."""

    folder: str | None = None


Router = Callable[[Sequence[tuple[bytes, bool]]], Sequence[Aside | None]]
"""Tells, for the mails of a fetched group (each with whether it carries ``REFILED``), in
order, whether the intake takes each (None) or sets it aside. Asked a group at once, it can
decide alike for the mails of one game, so none overtakes another (one held, a later one
refiled, as a game's move ends between the two)."""

GroupDelivery = Callable[[Sequence[bytes]], Sequence[BaseException | None]]
"""Stores fetched mails together: for each, None (stored) or the exception it met, in order;
a list shorter than the mails means the rest were not tried."""


class ImapIntake:
    """Fetches mail from one IMAP folder into ``deliver`` and files it once delivered.

    ``deliver_group``, when given, takes a whole fetched group at once instead (so a store
    can make them durable together); see ``GroupDelivery``.

    ``rng`` spreads reconnection delays; pass a seeded one for repeatable runs. Reconnection
    waits double from ``retry_base`` seconds up to ``retry_cap``.

    With an OAuth login, a session is ended and opened again with a fresh token before its
    token expires (Microsoft drops a session whose token expired); a session the server
    drops anyway is opened again like any lost connection. ``login_refused`` is told, once
    until a login works again, when the server refuses the password or the provider the kept
    OAuth login for good; ``login_mended`` is told at every login that works (a refusal
    told before it, maybe before a restart, is mended);
    ``folder_refused``, once until a pass works again, when the server refuses to make or
    fill the processed or failed folder (:class:`ImapFolderError`).
    ``route``, when given, is asked about each fetched mail first (see ``Aside``).

    ``max_bytes``, when given, is the size past which a mail is not fetched whole: judged by
    the server's ``RFC822.SIZE`` before its body is read, only its head is fetched, and
    handed over as a stand-in (``pbem.mail.inbound.stand_in``) that says its size, so its
    sender can be answered; the mail itself is then filed in the failed folder. Memory stays
    bounded by the limit whatever size mail comes in (issue 44: 25 mails of 20 MB took 2.1
    GB before they were refused).

    ``earlier``, when given, is told how many mails were in the folder on the intake's first
    start there (no position kept yet: a new daemon on an old mailbox), which it filed
    without delivering them: they were not written to the game (issue 44: a daemon started on
    a mailbox of 5,000 old mails answered their senders). Unless the configuration's
    ``answer_earlier_mail`` asks for them, then ``earlier`` is not used.
    """

    def __init__(
        self,
        config: ImapConfig,
        deliver: Callable[[bytes], None] | None,
        cursor: CursorStore,
        *,
        deliver_group: GroupDelivery | None = None,
        rng: random.Random | None = None,
        retry_base: float = 1.0,
        retry_cap: float = 300.0,
        login_refused: Callable[[ImapError], None] | None = None,
        login_mended: Callable[[], None] | None = None,
        folder_refused: Callable[[ImapFolderError], None] | None = None,
        route: Router | None = None,
        earlier: Callable[[int], None] | None = None,
        max_bytes: int | None = None,
    ) -> None:
        if deliver is None and deliver_group is None:
            raise ValueError("ImapIntake needs deliver or deliver_group")
        self.config = config
        self._deliver = deliver
        self._deliver_group = deliver_group or self._one_by_one
        self._cursor = cursor
        self._rng = rng if rng is not None else random.Random()
        self._retry_base = retry_base
        self._retry_cap = retry_cap
        self._client: Any = None
        self._login_refused = login_refused
        self._refusal_told = False
        self._login_mended = login_mended
        self._folder_refused = folder_refused
        # Tries a folder refused since the last good pass: the first is a warning (a server
        # mending itself after a restart may refuse once: Cyrus's "Unknown code ____ 255"),
        # the others errors, and the second is told to the game master.
        self._folder_refusals = 0
        # The account's folder layout, learned when a session opens.
        self.layout: FolderLayout | None = None
        # When the session's OAuth token ends (seconds since the epoch); None: no end.
        self._session_ends: float | None = None
        self._folders: set[str] = set()
        # UIDVALIDITY of the selected folder; None while no folder is selected.
        self._uidvalidity: int | None = None
        self._route = route
        self._held: set[int] = set()  # the UIDs the last pass left in the folder
        self._earlier = None if config.answer_earlier_mail else earlier
        self._max_bytes = max_bytes

    # -- connection ---------------------------------------------------------------------

    @contextlib.contextmanager
    def _talking(self, doing: str) -> Iterator[None]:
        """Turn socket and protocol failures into ImapError and drop the broken connection."""
        try:
            yield
        except ImapError:
            self.close()
            raise
        except (OSError, IMAPClientError) as error:
            self.close()
            raise ImapError(f"{doing} at {self.config.where} failed: {error}") from error

    def _connected(self) -> Any:
        if self._client is not None and self._renewal_due() <= 0:
            log.info("the OAuth token of the session with %s is about to expire; "
                     "logging in again with a fresh one", self.config.where)
            self.close()
        if self._client is None:
            self._client, token = open_session(self.config)
            self._session_ends = token.expires_at if token is not None else None
            self._folders = set()
            if self._login_mended is not None:  # at every login: a refusal before a restart
                try:
                    self._login_mended()
                except Exception:
                    log.exception("could not clear the alarm of the refused login")
            self._refusal_told = False
            log.info("logged in to %s as %s%s", self.config.where, self.config.username,
                     " with an OAuth token" if token is not None else "")
            known, self.layout = self.layout, learn_layout(self._client)
            # The folders handled mail goes to, made now: a server refusing them is told at
            # start, not after the first mail is stored.
            done = (self._ensure(self._client, self.config.processed_folder)
                    if self.config.processed_folder is not None else None)
            failed = self._ensure(self._client, self.config.failed_folder)
            if self.layout != known:
                log.info("the folders of %s are %s: handled mail is filed in %s, failed "
                         "mail in %r", self.config.username,
                         f"under {self.layout.prefix!r}" if self.layout.prefix else "at the top",
                         repr(done) if done else "place (flagged)", failed)
        return self._client

    def name(self, folder: str) -> str:
        """Give the server's name of a configured folder (see ``FolderLayout.name``)."""
        return folder if self.layout is None else self.layout.name(folder)

    def _ensure(self, client: Any, folder: str) -> str:
        """Make ``folder`` where missing; give its server name. Raise ImapFolderError when
        the server refuses to make it, or has it as a name that holds no mail."""
        name = self.name(folder)
        if name in self._folders:
            return name
        found = client.list_folders("", name)
        if found and b"\\Noselect" in (found[0][0] or ()):
            raise self._folder_error(folder, name, "has it as a folder that holds no mail")
        if not found:
            try:
                client.create_folder(name)
            except IMAPClientAbortError:
                raise
            except IMAPClientError as error:
                # Another client may have made it meanwhile; fail only if it is absent.
                if not client.folder_exists(name):
                    raise self._folder_error(folder, name,
                                             f"refuses to make it ({_reply(error)})") from error
        self._folders.add(name)
        return name

    def _folder_error(self, folder: str, name: str, why: str) -> ImapFolderError:
        layout = self.layout or FolderLayout()
        shown = repr(folder) if name == folder else f"{folder!r} (there {name!r})"
        where = (f"its own folders are under {layout.prefix!r}" if layout.prefix
                 else "its own folders are at the top")
        return ImapFolderError(
            f"the IMAP server {self.config.where} cannot file mail into folder {shown}: it "
            f"{why}; {where}, separated by {layout.separator!r}",
            folder=folder, name=name,
            suggestion="Make that folder in a mail client, or name one this account may "
                       "use in [imap] processed_folder and failed_folder. Mail waits on the "
                       "server meanwhile.")

    def _renewal_due(self) -> float:
        """Give the seconds until the session must be opened again for its token's sake."""
        if self._session_ends is None:
            return float("inf")
        return self._session_ends - REFRESH_MARGIN - time.time()

    def close(self) -> None:
        """Log out, or drop the connection if logging out fails."""
        client, self._client = self._client, None
        self._uidvalidity = self._session_ends = None
        if client is not None:
            quietly_close(client)

    def _select(self, client: Any) -> int:
        """Select the intake folder and give its UIDVALIDITY."""
        try:
            info = client.select_folder(self.name(self.config.folder))
        except IMAPClientError as error:
            raise ImapError(
                f"cannot open folder {self.config.folder!r} on {self.config.where}: {error}",
                suggestion="Check the folder name; it is case sensitive on many servers.",
            ) from error
        self._uidvalidity = int(info[b"UIDVALIDITY"])
        return self._uidvalidity

    # -- intake -------------------------------------------------------------------------

    def _pending_uids(self, client: Any, last_uid: int) -> list[int]:
        """Give the UIDs still to handle, oldest first."""
        criteria: list[str] = ["UID", f"{last_uid + 1}:*", "UNDELETED"]
        if self.config.processed_folder is None:
            # Handled mail stays here, marked \Seen and \Flagged; a person would have to set
            # both flags on a new mail before we saw it for it to be skipped.
            criteria += ["OR", "UNSEEN", "UNFLAGGED"]
        # "n:*" always matches the highest UID, even one below n.
        return sorted(uid for uid in client.search(criteria) if uid > last_uid)

    def fetch_new(self) -> int:
        """Give the number of mails handed to ``deliver`` (and filed) in this pass.

        A mail whose ``deliver`` raised :class:`UnprocessableMail` goes to the failed folder;
        any other exception from ``deliver`` stops the pass and leaves that mail in place to
        be fetched again later.
        """
        with self._talking("reading new mail"):
            client = self._connected()
            uidvalidity = self._select(client)
        self._finish_filing(client, uidvalidity)
        saved_validity, last_uid = self._cursor.load()
        if saved_validity is None and self._earlier is not None:
            return self._file_earlier(client, uidvalidity)
        if saved_validity != uidvalidity:
            if saved_validity is not None:
                log.warning(
                    "folder %r on %s was rebuilt (UIDVALIDITY %s -> %s); "
                    "re-reading every mail still waiting in it",
                    self.config.folder,
                    self.config.where,
                    saved_validity,
                    uidvalidity,
                )
            last_uid = 0
            self._cursor.save(uidvalidity, 0)
        with self._talking("searching for new mail"):
            pending = self._pending_uids(client, last_uid)
            arrival, sizes = self._by_arrival(client, pending)
        handled = 0
        self._held = set()
        filed_uids: set[int] = set()
        saved = last_uid

        def reached() -> int:
            """The highest UID up to which every mail pending is filed."""
            done = last_uid
            for uid in pending:
                if uid not in filed_uids:
                    break
                done = uid
            return done

        try:
            for start in range(0, len(arrival), _FETCH_GROUP):
                group = arrival[start : start + _FETCH_GROUP]
                too_big = {uid for uid in group if self._too_big(sizes.get(uid))}
                with self._talking("fetching mail"):
                    bodies = self._fetch(client, group, too_big, sizes)
                found = [(uid, body) for uid in group
                         if (body := bodies.get(uid, {}).get(b"BODY[]")) is not None]
                if self._route is not None:
                    found = self._set_aside(client, found, bodies, filed_uids)
                outcomes = self._deliver_group([body for _, body in found]) if found else []
                filed: list[tuple[int, BaseException | None]] = []
                broken: BaseException | None = None
                for (uid, _), outcome in zip(found, outcomes, strict=False):
                    if outcome is None and uid in too_big:  # its stand-in was stored
                        outcome = UnprocessableMail(
                            f"the mail is {sizes[uid]} bytes, more than the "
                            f"{self._max_bytes} allowed (only its head was fetched)")
                    if outcome is not None and not isinstance(outcome, UnprocessableMail):
                        broken = outcome  # not the mail's fault: it and the rest stay
                        break
                    if outcome is not None:
                        log.warning("mail UID %d cannot be processed (%s); filing it as failed",
                                    uid, outcome)
                    filed.append((uid, outcome))
                self._file(client, [uid for uid, out in filed if out is None],
                           [uid for uid, out in filed if out is not None])
                handled += len(filed)
                filed_uids.update(uid for uid, _ in filed)
                if len(filed) < len(found):  # a pass cut short keeps what it filed
                    if broken is not None:
                        raise broken
                    break
                filed_uids.update(uid for uid in group if uid not in bodies)  # gone meanwhile
                # Saved once a group, not once a mail (an fsync each): a filed mail is out of
                # the search anyway (moved, or flagged and filtered), so a cursor lagging
                # behind repeats nothing.
                if (done := reached()) != saved:
                    self._cursor.save(uidvalidity, done)
                    saved = done
        finally:
            if (done := reached()) != saved:  # a pass cut short keeps what it filed
                self._cursor.save(uidvalidity, done)
        return handled

    def _file_earlier(self, client: Any, uidvalidity: int) -> int:
        """On the first start on the folder, file the mail already there without delivering
        it, then keep the position past it (a crash before files the rest again); tell
        ``earlier`` how many; give 0 (none delivered)."""
        assert self._earlier is not None
        with self._talking("searching for earlier mail"):
            pending = self._pending_uids(client, 0)
        for start in range(0, len(pending), _FETCH_GROUP):
            with self._talking("filing earlier mail"):
                self._file(client, pending[start:start + _FETCH_GROUP], [])
        self._cursor.save(uidvalidity, max(pending, default=0))
        if pending:
            log.warning("first start on folder %r of %s: %d mail(s) already there filed "
                        "unanswered", self.config.folder, self.config.where, len(pending))
            self._earlier(len(pending))
        return 0

    def _set_aside(self, client: Any, found: list[tuple[int, bytes]],
                   fetched: dict[int, Any], filed_uids: set[int],
                   ) -> list[tuple[int, bytes]]:
        """Give the fetched mails the route takes; leave those it holds (``_held``), and
        move those it refiles (counted filed)."""
        assert self._route is not None
        taken: list[tuple[int, bytes]] = []
        refiled: dict[str, list[int]] = {}
        asides = self._route([(body, REFILED in fetched[uid].get(b"FLAGS", ()))
                              for uid, body in found])
        for (uid, body), aside in zip(found, asides, strict=True):
            if aside is None:
                taken.append((uid, body))
            elif aside.folder is None:
                self._held.add(uid)
            else:
                refiled.setdefault(aside.folder, []).append(uid)
        for folder, uids in refiled.items():
            with self._talking(f"refiling mail into {folder!r}"):
                client.add_flags(uids, [REFILED], silent=True)
                self._move(client, uids, folder)
            log.info("refiled %d mail(s) into %r", len(uids), folder)
            filed_uids.update(uids)
        return taken

    def _by_arrival(self, client: Any, uids: list[int]) -> tuple[list[int], dict[int, int]]:
        """Give the UIDs in the order their mails reached the server (INTERNALDATE, then
        UID), and each mail's size as the server gives it (RFC822.SIZE; only with
        ``max_bytes``). UIDs follow the order mails were filed in, which a server delivering
        several at once (Dovecot's LMTP, one process per connection) does not keep: a game's
        mails are applied in the order they arrived."""
        if not uids or (len(uids) < 2 and self._max_bytes is None):
            return list(uids), {}
        facts = client.fetch(uids, [b"INTERNALDATE"] + (
            [b"RFC822.SIZE"] if self._max_bytes is not None else []))

        def arrived(uid: int) -> tuple[float, int]:
            when = facts.get(uid, {}).get(b"INTERNALDATE")
            return (when.timestamp() if when is not None else float("inf"), uid)

        sizes = {uid: int(size) for uid, data in facts.items()
                 if (size := data.get(b"RFC822.SIZE")) is not None}
        return sorted(uids, key=arrived), sizes

    def _too_big(self, size: int | None) -> bool:
        return self._max_bytes is not None and size is not None and size > self._max_bytes

    def _fetch(self, client: Any, group: list[int], too_big: set[int],
               sizes: dict[int, int]) -> dict[int, Any]:
        """Fetch a group's mails (with their flags); of a mail ``too_big``, its head alone,
        given as its stand-in (``BODY[]``)."""
        whole = [uid for uid in group if uid not in too_big]
        fetched: dict[int, Any] = dict(client.fetch(whole, [b"BODY.PEEK[]", b"FLAGS"])) \
            if whole else {}
        if too_big:
            heads = client.fetch(sorted(too_big), [b"BODY.PEEK[HEADER]", b"FLAGS"])
            for uid, data in heads.items():
                head = data.get(b"BODY[HEADER]")
                if head is None:
                    continue
                log.warning("mail UID %d is %d bytes, more than the %d allowed: only its head "
                            "was fetched", uid, sizes[uid], self._max_bytes)
                fetched[uid] = {b"BODY[]": stand_in(head, sizes[uid]),
                                b"FLAGS": data.get(b"FLAGS", ())}
        return fetched

    def _one_by_one(self, raws: Sequence[bytes]) -> list[BaseException | None]:
        """The group delivery made of ``deliver``: mail after mail, stopping at a failure
        that is not the mail's own fault."""
        assert self._deliver is not None
        outcomes: list[BaseException | None] = []
        for raw in raws:
            try:
                self._deliver(raw)
                outcomes.append(None)
            except UnprocessableMail as error:
                outcomes.append(error)
            except Exception as error:
                outcomes.append(error)
                break
        return outcomes

    def _file(self, client: Any, stored: list[int], failed: list[int]) -> None:
        """File delivered mail away, and mail that can never be processed apart."""
        if failed:
            with self._talking("filing a failed mail"):
                self._move(client, failed, self.config.failed_folder)
        if stored:
            with self._talking("filing a handled mail"):
                if self.config.processed_folder is None:
                    client.add_flags(stored, [_SEEN, _FLAGGED], silent=True)
                else:
                    self._move(client, stored, self.config.processed_folder)

    def _move(self, client: Any, uids: list[int], folder: str) -> None:
        """Move mails of the intake's folder into ``folder``, the filing kept under way
        (:class:`Filing`) from just before the copy until they are gone from here."""
        name = self._ensure(client, folder)
        assert self._uidvalidity is not None
        status = client.folder_status(name, [b"UIDVALIDITY", b"UIDNEXT"])
        self._cursor.save_filing(Filing(self._uidvalidity, tuple(uids), name,
                                        int(status[b"UIDVALIDITY"]), int(status[b"UIDNEXT"])))
        try:
            if client.has_capability("MOVE"):
                client.move(uids, name)
            else:
                client.copy(uids, name)
        except IMAPClientAbortError:
            raise
        except IMAPClientError as error:
            self._cursor.save_filing(None)  # refused: nothing was filed
            raise self._folder_error(folder, name,
                                     f"refuses to file into it ({_reply(error)})") from error
        if not client.has_capability("MOVE"):
            client.add_flags(uids, [_DELETED], silent=True)
            self._expunge(client, uids)
        self._cursor.save_filing(None)

    def _expunge(self, client: Any, uids: list[int]) -> None:
        """Remove the mails ``uids``, marked \\Deleted, from the selected folder."""
        if client.has_capability("UIDPLUS"):
            client.uid_expunge(uids)
        else:
            # Without UIDPLUS, EXPUNGE also removes other mail marked \Deleted in the folder,
            # which is what any mail client would do with it next anyway.
            client.expunge()

    def _finish_filing(self, client: Any, uidvalidity: int) -> None:
        """Finish the filing a pass, a connection, the server or the daemon left cut short
        (:class:`Filing`): of its mails still here, remove those with a copy in the folder
        they were filed into (marked \\Deleted here, or a copy found there), and leave
        the others to be fetched and filed once more.

        A copy is a mail of that folder added since the filing began (from its UIDNEXT then)
        with the same size and header bytes (Received lines and all) as the mail here, each
        copy standing for one mail: a mail sent twice under one Message-ID, or without one,
        is told apart from its twin, and an older mail alike already filed is no copy."""
        filing = self._cursor.filing()
        if filing is None:
            return
        if filing.uidvalidity == uidvalidity:
            with self._talking("finishing a filing cut short"):
                left = client.fetch(list(filing.uids),
                                    [b"FLAGS", b"RFC822.SIZE", b"BODY.PEEK[HEADER]"])
                waiting = {uid: (int(data[b"RFC822.SIZE"]), bytes(data[b"BODY[HEADER]"]))
                           for uid, data in left.items()
                           if _DELETED not in data.get(b"FLAGS", ())}
                # Marked \Deleted after the COPY: copied.
                copied = sorted(uid for uid in left if uid not in waiting)
                if waiting:
                    copied += self._copies(client, filing, waiting)
                if copied:
                    client.add_flags(copied, [_DELETED], silent=True)
                    self._expunge(client, copied)
            log.warning("a filing into %r was cut short: %d mail(s) filed there removed from "
                        "folder %r, %d left to file again", filing.folder, len(copied),
                        self.config.folder, len(left) - len(copied))
        self._cursor.save_filing(None)

    def _copies(self, client: Any, filing: Filing,
                waiting: dict[int, tuple[int, bytes]]) -> list[int]:
        """Give the UIDs of the ``waiting`` mails (each its size and header) of which the
        folder ``filing`` names holds a copy made since the filing began; reselects the
        intake's folder."""
        try:
            try:
                info = client.select_folder(filing.folder, readonly=True)
            except IMAPClientAbortError:
                raise
            except IMAPClientError:  # gone, or never made: no copy there
                return []
            since = (filing.folder_uidnext
                     if int(info[b"UIDVALIDITY"]) == filing.folder_uidvalidity else 1)
            sizes = {size for size, _ in waiting.values()}
            # "n:*" always matches the highest UID, even one below n.
            new = [uid for uid in client.search(["UID", f"{since}:*"]) if uid >= since]
            added = client.fetch(new, [b"RFC822.SIZE"]) if new else {}
            alike = sorted(uid for uid, data in added.items()
                           if int(data[b"RFC822.SIZE"]) in sizes)
            heads = client.fetch(alike, [b"BODY.PEEK[HEADER]"]) if alike else {}
            copies = Counter((int(added[uid][b"RFC822.SIZE"]), bytes(data[b"BODY[HEADER]"]))
                             for uid, data in heads.items())
        finally:
            if self._select(client) != filing.uidvalidity:
                raise ImapError(f"folder {self.config.folder!r} on {self.config.where} was "
                                "rebuilt while a filing was being finished")
        found: list[int] = []
        for uid in sorted(waiting):
            if copies[waiting[uid]] > 0:
                copies[waiting[uid]] -= 1
                found.append(uid)
        return found

    # -- waiting ------------------------------------------------------------------------

    def wait(self, timeout: float, stop: threading.Event | None = None) -> None:
        """Return when new mail may have arrived, at ``timeout`` seconds, or once ``stop`` is set.

        Uses IDLE where the server offers it, re-issuing it every ``idle_seconds``; sleeps
        otherwise (the caller then polls with ``fetch_new``).
        """
        if self._held:  # nothing announces the end of a hold: looked at again soon
            timeout = min(timeout, HOLD_SECONDS)
        with self._talking("waiting for new mail"):
            client = self._connected()
            idle = client.has_capability("IDLE")
        if not idle:
            if stop is None:
                time.sleep(timeout)
            else:
                stop.wait(timeout)
            return
        saved_validity, last_uid = self._cursor.load()
        with self._talking("waiting for new mail with IDLE"):
            if self._uidvalidity is None:
                self._select(client)
            # Mail that came in while the last pass was filing mail was announced in
            # replies to those commands, and IDLE will not announce it again: look for it
            # first. Dovecot reports a mail that arrives during a SEARCH only after the
            # result, so a NOOP after the SEARCH catches that one.
            if saved_validity != self._uidvalidity or (
                    set(self._pending_uids(client, last_uid)) - self._held):
                return
            if any(_announces_mail(response) for response in client.noop()[1]):
                return
            self._idle(client, time.monotonic() + min(timeout, self._renewal_due()), stop)

    def _idle(self, client: Any, deadline: float, stop: threading.Event | None) -> None:
        while True:
            client.idle()
            started = time.monotonic()
            try:
                while True:
                    now = time.monotonic()
                    renew_at = started + self.config.idle_seconds
                    if now >= deadline or (stop is not None and stop.is_set()):
                        return
                    if now >= renew_at:
                        break
                    slice_ = min(deadline, renew_at) - now
                    if stop is not None:
                        slice_ = min(slice_, _STOP_CHECK_SECONDS)
                    responses = client.idle_check(timeout=slice_)
                    if any(_announces_mail(response) for response in responses):
                        return
                    if not responses and time.monotonic() - now < slice_ / 2:
                        # idle_check gives nothing at once when the server hung up; ending
                        # IDLE below then fails and reports the lost connection.
                        return
            finally:
                client.idle_done()

    def run(self, stop: threading.Event) -> None:
        """Fetch and wait until ``stop`` is set, reconnecting with backoff after failures."""
        failures = 0
        while not stop.is_set():
            try:
                handled = self.fetch_new()
                if handled:
                    log.info("took in %d mail(s) from %s", handled, self.config.where)
                failures = 0
                self._folder_refusals = 0
                self.wait(self.config.poll_seconds, stop)
            except Exception as error:  # the intake must outlive any one failure
                failures += 1
                delay = jittered(
                    backoff_delay(failures, base=self._retry_base, cap=self._retry_cap),
                    self._rng,
                )
                if _refused_for_good(error):
                    assert isinstance(error, ImapError)
                    if self._refusal_told:  # said in full the first time
                        log.info("IMAP login still impossible; trying again in %.1f s", delay)
                    else:
                        self._refusal_told = True
                        log.error("IMAP login impossible: %s. %s Mail waits on the server; "
                                  "trying again in %.1f s", error.message, error.suggestion,
                                  delay)
                        if self._login_refused is not None:
                            try:
                                self._login_refused(error)
                            except Exception:
                                log.exception("could not tell the game master")
                elif isinstance(error, ImapFolderError):
                    self._folder_refusals += 1
                    if self._folder_refusals == 1:
                        log.warning("%s; trying again in %.1f s", error.message, delay)
                    else:
                        log.error("IMAP intake stopped: %s. %s Trying again in %.1f s",
                                  error.message, error.suggestion, delay)
                    if self._folder_refusals == 2 and self._folder_refused is not None:
                        try:
                            self._folder_refused(error)
                        except Exception:
                            log.exception("could not tell the game master")
                elif isinstance(error, ImapError):
                    log.warning("%s; trying again in %.1f s", error, delay)
                else:
                    # Most likely the store refused a mail: it stays on the server for then.
                    log.exception("IMAP intake interrupted; trying again in %.1f s", delay)
                self.close()
                stop.wait(delay)
        self.close()

    # -- doctor -------------------------------------------------------------------------

    def check(self) -> list[str]:
        """Give the problems found with the IMAP settings, in plain words; empty when fine."""
        config = self.config
        problems: list[str] = []
        if config.security == "plain" and not is_loopback(config.host):
            problems.append(
                f"the IMAP password for {config.username} would cross the network "
                "unencrypted: use security = tls or starttls"
            )
        try:
            client = open_client(config)
        except ImapError as error:
            return [*problems, str(error)]
        try:
            self.layout = learn_layout(client)
            if not client.folder_exists(self.name(config.folder)):
                problems.append(f"folder {config.folder!r} does not exist on {config.where}")
            for folder in (config.processed_folder, config.failed_folder):
                if folder is not None:
                    try:
                        self._ensure(client, folder)
                    except ImapFolderError as error:
                        problems.append(f"{error.message}. {error.suggestion}")
            if not client.has_capability("IDLE"):
                problems.append(
                    f"{config.where} does not offer IDLE: new mail will be noticed only "
                    f"by looking every {config.poll_seconds:g} s"
                )
        except (OSError, IMAPClientError) as error:
            problems.append(f"the IMAP server {config.where} broke off the check: {error}")
        finally:
            self._folders = set()
            quietly_close(client)
        return problems


def _reply(error: Exception) -> str:
    """Give the server's words from an imaplib error (``b'...'`` unwrapped)."""
    text = str(error)
    for quote in ("'", '"'):
        if text.startswith(f"b{quote}") and text.endswith(quote):
            return text[2:-1]
    return text


def _refused_for_good(error: Exception) -> bool:
    """Tell whether ``error`` is a login the game master must mend: the password refused,
    or the kept OAuth login the provider refuses for good (not a token service out of
    reach for now)."""
    if isinstance(error, ImapTokenError):
        return isinstance(error.cause, TokenRevoked)
    return isinstance(error, ImapLoginError)


_SECURITY = ("tls", "starttls", "plain")


def read_section(values: SectionValues, logins: Logins) -> ImapConfig:
    """The [imap] section: the server, the login (a password, from ``PBEM_IMAP_PASSWORD``
    or the file, or ``auth = "oauth2"``), the folders, the timings."""
    oauth = logins.oauth_for(values)
    password = logins.password(values)
    if oauth is not None or not logins.logins:
        password = password or ""
    if password is None:
        raise ConfigError(f"In {values.origin}, [imap] has no password.",
                          suggestion=f"Set the environment variable {password_env('imap')}, "
                          "or add password = \"...\" under [imap].")
    security = values.choice("security", "tls", _SECURITY)
    processed = values.text("processed_folder", "pbem-done")
    return ImapConfig(
        host=values.required("host"),
        port=values.whole("port", 993 if security == "tls" else 143, 1, 65535),
        username=values.required("username"),
        password=password,
        security=cast(Security, security),
        folder=values.text("folder", "INBOX"),
        # An empty name leaves handled mail in place, flagged, for a shared mailbox.
        processed_folder=processed or None,
        failed_folder=values.text("failed_folder", "pbem-failed"),
        poll_seconds=values.seconds("poll_seconds", 60.0),
        idle_seconds=values.seconds("idle_seconds", 300.0),
        timeout=values.seconds("timeout", 30.0),
        ca_file=values.file("ca_file"),
        oauth=oauth,
        answer_earlier_mail=values.flag("answer_earlier_mail", False),
    )


CURSOR_FILE = "imap-cursor.json"
"""The file, in the intakes' state folder, that keeps the IMAP intake's position."""


def make_intake(config: ImapConfig, hooks: IntakeHooks) -> ImapIntake:
    """The IMAP intake the daemon runs: each fetched group to ``hooks.deliver_group``, each
    mail asked ``hooks.route`` first; a login refused for good or mended, a folder refused
    and the mail filed unanswered at the first start told through the hooks."""

    def login_refused(error: ImapError) -> None:
        hooks.login_refused(error.message, error.suggestion or "")

    def folder_refused(error: ImapFolderError) -> None:
        hooks.folder_refused(error.folder, error.message, error.suggestion or "")

    def earlier(count: int) -> None:
        hooks.earlier(count, config.folder)

    return ImapIntake(config, None, JsonFileCursor(hooks.state / CURSOR_FILE),
                      deliver_group=hooks.deliver_group, login_refused=login_refused,
                      login_mended=hooks.login_mended, folder_refused=folder_refused,
                      route=hooks.route, earlier=earlier, max_bytes=hooks.max_bytes)


INTAKE: IntakeKind[ImapConfig] = IntakeKind(
    "imap",
    ("host", "port", "security", "username", "password", "folder", "processed_folder",
     "failed_folder", "poll_seconds", "idle_seconds", "timeout", "ca_file", "auth",
     "answer_earlier_mail"),
    read_section,
    lambda c: f"IMAP {c.username}@{c.where} folder {c.folder}",
    make_intake)
"""The IMAP intake, ``[imap]`` (``pbem.transport.intake.IntakeKind``)."""
