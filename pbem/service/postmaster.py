"""Mail that belongs to no game, or that no game accepts: short replies, at most one an hour.

Strangers, unreadable mail, unknown games and failed authentication all end here. Nothing in
any game changes; the reply (if any) is queued in the store's postmaster record, beside the
times of the last replies, in one commit with the mail marked done. Each mail leaves an entry
in the record's log (the mail and what it got), so the record stays small however much mail
strays: the store moves applied mails out of the hot file with each closed log segment.
"""

from __future__ import annotations

import email.policy
from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime, timedelta
from email.parser import BytesHeaderParser
from typing import Any

from pbem.reports import mails as reports
from pbem.reports.context import moment_facts
from pbem.service.mails import outbox_item
from pbem.service.model import Seat, iso, parse_iso
from pbem.service.settings import Sender
from pbem.store import GameStore, OutboxItem

POSTMASTER = "pbem-postmaster"  # the store's record of mail that belongs to no game
REPLY_INTERVAL = timedelta(hours=1)  # at most one reply an hour to a stranger or a failure
FAILED_KEPT = 100  # mails whose processing broke, remembered for the GM
DAMAGE_KEPT = 100  # damaged store files the GM was told of, remembered to tell them once


class Postmaster:
    """Answers mail no game takes, never more than once an hour per address."""

    def __init__(self, store: GameStore, sender: Sender, mails_per_hour: int) -> None:
        self.store = store
        self.sender = sender
        self.mails_per_hour = mails_per_hour
        self._seen: dict[str, list[datetime]] = {}

    def ensure(self) -> None:
        """The postmaster record exists (held lock required)."""
        if POSTMASTER not in self.store.games():
            self.store.create_game(POSTMASTER, {"postmaster": True})

    def due(self, to: str, problem: reports.Problem, now: datetime) -> bool:
        """True when a reply about ``problem`` to ``to`` would be sent now (none this hour)."""
        return bool(to) and self._due(self._meta(now), to, problem, now)

    def reply(self, mail_id: str, to: str, problem: reports.Problem, now: datetime, *,
              game: str = "", games: Sequence[str] = (), message: str = "",
              suggestion: str = "", reply_to: str | None = None,
              until: datetime | None = None, reader: Seat | None = None,
              tell_gm: tuple[str, dict[str, Any]] | None = None) -> None:
        """Answer a stranger or a failure, at most once an hour per sender (and the flood
        notice once an hour besides), as the ``reader`` (a known player's seat) wants their
        mail (language, time zone, HTML), in English and UTC for a stranger; change nothing.
        ``tell_gm`` (a template and its words) goes to the game master with the answer."""
        meta = self._meta(now)
        items: list[OutboxItem] = []
        if to and self._due(meta, to, problem, now):
            meta["replied"][_key(to, problem)] = iso(now)
            seat = reader or Seat(name="", address=to)
            rendered = reports.error_reply(problem, game=game, games=games, message=message,
                                           suggestion=suggestion, limit=self.mails_per_hour,
                                           until=until, tz=seat.tz, lang=seat.lang,
                                           site_dir=self.sender.site_dir, html=seat.html)
            # Composed as mail of no game (X-Pbem: 1), but queued in the postmaster's record.
            item = outbox_item(f"{POSTMASTER}-{mail_id}", "", to, "", rendered, now=now,
                               sender=self.sender, in_reply_to=reply_to)
            items.append(replace(item, game_id=POSTMASTER))
            if tell_gm is not None and self.sender.gm_address:
                items.append(self._to_gm(f"{POSTMASTER}-gm-{mail_id}", tell_gm[0], now,
                                         **tell_gm[1]))
        self._commit(mail_id, problem if items else "", meta, items)

    def note(self, mail_id: str, now: datetime) -> None:
        """Mark a mail done without answering it (automatic mail, floods)."""
        self._commit(mail_id, "", self._meta(now), [])

    def failed(self, mail_id: str, now: datetime, error: str) -> None:
        """Set aside a mail whose processing broke (a bug, not the player's mistake): it is
        marked done so later mail goes on, kept in the store, and the GM is told."""
        meta = self._meta(now)
        meta["failed"] = [*meta["failed"], {"mail_id": mail_id, "at": iso(now),
                                             "error": error}][-FAILED_KEPT:]
        items: list[OutboxItem] = []
        if self.sender.gm_address:
            items.append(self._to_gm(f"{POSTMASTER}-failed-{mail_id}", "mail_failed", now,
                                     mail_id=mail_id, error=error))
        self._commit(mail_id, "failed", meta, items)

    def damaged(self, problem: str, now: datetime) -> bool:
        """Tell the game master, once, that a store file is damaged (``problem`` names it and
        how to mend it): the mails that need it wait in the inbox meanwhile. Give whether
        this was news (else it was told before)."""
        meta = self._meta(now)
        if problem in meta["damaged"]:
            return False
        meta["damaged"] = dict(list(meta["damaged"].items())[-(DAMAGE_KEPT - 1):])
        meta["damaged"][problem] = iso(now)
        items = [self._to_gm(f"{POSTMASTER}-damaged-{self.store.log_length(POSTMASTER)}",
                             "store_damaged", now, problem=problem)
                 ] if self.sender.gm_address else []
        self.store.commit(POSTMASTER, log_entries=[{"damaged": problem}], snapshot=None,
                          meta=meta, outbox=items)
        return True

    def disk_mended(self, since: datetime, error: str, now: datetime) -> None:
        """Tell the game master that the store could not be written from ``since`` until now
        (``error``), and that the mail which waited meanwhile is being applied (held lock
        required)."""
        entry = self.store.log_length(POSTMASTER)
        items = [self._to_gm(f"{POSTMASTER}-disk-{entry}", "store_unwritable", now,
                             since=moment_facts(since, self.sender.gm_tz), error=error)
                 ] if self.sender.gm_address else []
        self.store.commit(POSTMASTER, log_entries=[{"unwritable_since": iso(since),
                                                    "error": error}],
                          snapshot=None, outbox=items)

    def given_up(self, item: OutboxItem, error: str, now: datetime) -> None:
        """Tell the game master that the daemon gave up a mail (refused for good, or too
        often): it stays in the store, unsent, for ``pbem outbox retry``. Not for mail to
        the game master's own address, which would only be given up in turn."""
        if not self.sender.gm_address or item.to == self.sender.gm_address:
            return
        subject = str(BytesHeaderParser(policy=email.policy.default).parsebytes(item.raw)[
            "Subject"] or "")
        # Each give-up its own notice: a mail queued again may be given up again.
        entry = self.store.log_length(POSTMASTER)
        notice = self._to_gm(f"{POSTMASTER}-given-up-{entry}", "mail_given_up", now,
                             to=item.to, subject=subject, error=error,
                             mail_game="" if item.game_id == POSTMASTER else item.game_id)
        self.store.commit(POSTMASTER, log_entries=[{"given_up": item.outbox_id, "to": item.to,
                                                    "error": error}],
                          snapshot=None, outbox=[notice])

    def login_refused(self, what: str, error: str, steps: str, now: datetime) -> None:
        """Tell the game master that the mail provider refuses the daemon's ``what`` login
        (IMAP, SMTP) until they act (held lock required). The notice is queued like any
        mail: it goes once a way out works (at once when only the IMAP login is refused)."""
        if not self.sender.gm_address:
            return
        self.ensure()
        entry = self.store.log_length(POSTMASTER)
        notice = self._to_gm(f"{POSTMASTER}-login-{entry}", "login_refused", now,
                             what=what, error=error, steps=steps)
        self.store.commit(POSTMASTER, log_entries=[{"login_refused": what, "error": error}],
                          snapshot=None, outbox=[notice])

    def _to_gm(self, outbox_id: str, template: str, now: datetime,
               **words: Any) -> OutboxItem:
        """The mail ``template`` to the game master, in their language and time zone, queued
        in the postmaster's record."""
        rendered = reports.mail(template, self.sender.gm_lang, self.sender.site_dir, game="",
                                at=moment_facts(now, self.sender.gm_tz), **words)
        item = outbox_item(outbox_id, "", self.sender.gm_address, "", rendered, now=now,
                           sender=self.sender)
        return replace(item, game_id=POSTMASTER)

    def _commit(self, mail_id: str, answer: str, meta: dict[str, Any],
                items: list[OutboxItem]) -> None:
        """The mail done, with its log entry (``answer``: the reply sent, if any)."""
        self.store.commit(POSTMASTER, log_entries=[{"mail_id": mail_id, "answer": answer}],
                          snapshot=None, meta=meta, mail_ids=[mail_id], outbox=items)

    @staticmethod
    def _due(meta: dict[str, Any], to: str, problem: reports.Problem, now: datetime) -> bool:
        last = meta["replied"].get(_key(to, problem))
        return last is None or now - parse_iso(last) >= REPLY_INTERVAL

    def _meta(self, now: datetime) -> dict[str, Any]:
        meta = self.store.meta(POSTMASTER)
        horizon = now - REPLY_INTERVAL
        replied = {a: t for a, t in meta.get("replied", {}).items() if parse_iso(t) > horizon}
        return {"replied": replied, "failed": list(meta.get("failed", [])),
                "damaged": dict(meta.get("damaged", {}))}

    def flooding(self, sender: str, now: datetime) -> bool:
        """Count this mail; True when the sender passed the hourly limit.

        Kept in memory: a limit against floods needs no durability, and a restart forgetting
        the counts lets at most one more hour's worth through.
        """
        horizon = now - REPLY_INTERVAL
        times = [t for t in self._seen.get(sender, []) if t > horizon]
        times.append(now)
        self._seen[sender] = times
        return len(times) > self.mails_per_hour

    def read_again_at(self, sender: str) -> datetime:
        """When mail from a flooding sender is read again: once fewer than the limit of
        their mails fall in the hour before."""
        times = self._seen[sender]
        return times[-self.mails_per_hour] + REPLY_INTERVAL


def _key(to: str, problem: reports.Problem) -> str:
    """What the once-an-hour limit counts by. The flood notice counts apart: a sender told of
    a mistake this hour must still learn that their mail now goes unread."""
    return f"{problem} {to}" if problem == "flooding" else to
