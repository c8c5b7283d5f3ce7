"""Mail that belongs to no game, or that no game accepts: short replies, within limits
(``Postmaster.reply``), and the game master told of mail whose processing broke.

Strangers, unreadable mail, unknown games and failed authentication all end here. Nothing in
any game changes; the reply (if any) is queued in the store's postmaster record, beside the
times of the last replies, in one commit with the mail marked done. Each mail leaves an entry
in the record's log (the mail and what it got), so the record stays small however much mail
strays: the store moves applied mails out of the hot file with each closed log segment.
"""

from __future__ import annotations

import email.policy
import logging
from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime, timedelta
from email.parser import BytesHeaderParser
from typing import Any

from pbem.errors import AddressError
from pbem.mail.address import mail_address, maildir_folder
from pbem.mail.authresults import Verdict
from pbem.reports import mails as reports
from pbem.reports.context import moment_facts
from pbem.service.gate import Gate
from pbem.service.model import Seat, iso, parse_iso
from pbem.service.notice_mails import outbox_item
from pbem.service.settings import STRANGER_REPLIES, MailIdentity
from pbem.store import GameStore, OutboxItem

POSTMASTER = "pbem-postmaster"  # the store's record of mail that belongs to no game
REPLY_INTERVAL = timedelta(hours=1)  # at most one reply an hour to a stranger or a failure
FAILED_KEPT = 100  # mails whose processing broke, remembered for the GM
ALERT_INTERVAL = timedelta(minutes=30)  # at most one notice of broken mails to the GM
FLOOD_SENDERS = 20_000  # senders the flood counter keeps at most
SWEEP_INTERVAL = timedelta(minutes=1)  # how often the flood counter forgets old senders
DAMAGE_KEPT = 100  # damaged store files the GM was told of, remembered to tell them once
FLOODED_KEPT = 100  # addresses whose order mails were dropped, kept for the GM's next notice
ALERTS_KEPT = 20  # alerts told in full in one grouped notice (the others only counted)

log = logging.getLogger(__name__)


class Postmaster:
    """Answers mail no game takes: one reply an hour per address, then once a short word that
    more go unanswered, then silence; to addresses that are no player's, ``stranger_replies``
    an hour in all."""

    def __init__(self, store: GameStore, sender: MailIdentity, mails_per_hour: int,
                 stranger_replies: int = STRANGER_REPLIES, *, gate: Gate | None = None) -> None:
        self.store = store
        self.sender = sender
        self.mails_per_hour = mails_per_hour
        # The replies to strangers are counted with the lobby's and the games' (one budget).
        self.gate = gate if gate is not None else Gate(stranger_replies)
        self.stranger_replies = self.gate.stranger_replies
        self.counter = FloodCounter(mails_per_hour)

    def ensure(self) -> None:
        """The postmaster record exists (held lock required)."""
        if POSTMASTER not in self.store.games():
            self.store.create_game(POSTMASTER, {"postmaster": True})

    def due(self, to: str, problem: reports.Problem, now: datetime) -> bool:
        """True when a reply about ``problem`` to ``to`` could be sent now (by the limits of
        its address: the hourly budget of replies to strangers aside)."""
        return bool(to) and _kind(self._meta(now), to, problem, now) != ""

    def reply(self, mail_id: str, to: str, problem: reports.Problem, now: datetime, *,
              game: str = "", games: Sequence[str] = (), message: str = "",
              suggestion: str = "", reply_to: str | None = None,
              until: datetime | None = None, reader: Seat | None = None,
              tell_gm: tuple[str, dict[str, Any]] | None = None,
              own_suggestion: bool = False, mail_game: str = "",
              flooded: str | None = None,
              alert: tuple[str, dict[str, Any]] | None = None) -> None:
        """Answer a stranger or a failure, as the ``reader`` (a known player's seat) wants
        their mail (language, time zone, HTML), in English and UTC for a stranger (``reader``
        None); change nothing. ``tell_gm`` (a template and its words) goes to the game master
        with the answer.

        Per address: one reply an hour (the flood notice counts apart), then one short word
        that more mails go unanswered until the hour is out, then silence. A reply to no
        player's address (backscatter, when the From is forged) is one of at most
        ``stranger_replies`` an hour in all, and carries nothing of the mail back (no text,
        no game name it gave; ``own_suggestion``: the suggestion is the game's own words, such
        as an order's right form, and a stranger reads it too). A mail that gets no answer
        leaves a line in the log. ``mail_game``: the game of the store the mail was for (a
        wrong password), kept in the record's entry so the mail's id moves with the game
        (``mails_of``). ``flooded``: the mail, dropped unread past the hourly limit of its
        address, carried orders for that game (its start line's name, "" if none reads):
        the game master is told, the mails of every address grouped in one notice at most
        every ``ALERT_INTERVAL``. ``alert`` (a template and its words) goes to the game
        master whether the mail is answered or not."""
        meta = self._meta(now)
        answer, items = self._answer(meta, mail_id, to, problem, now, game=game, games=games,
                                     message=message, suggestion=suggestion,
                                     reply_to=reply_to, until=until, reader=reader,
                                     own_suggestion=own_suggestion)
        if items and tell_gm is not None:
            items += self._alert(meta, tell_gm, now, mail_id)
        if flooded is not None:
            count, games_named = meta["flooded"].get(to, (0, []))
            named = [*games_named, flooded] if flooded and flooded not in games_named \
                else games_named
            meta["flooded"] = dict(list({**meta["flooded"], to: (count + 1, named)}.items())
                                   [-FLOODED_KEPT:])
            items += self._floods_told(meta, now, mail_id)
        if alert is not None:
            items += self._alert(meta, alert, now, mail_id)
        self._commit(mail_id, answer, meta, items, mail_game)

    def _alert(self, meta: dict[str, Any], alert: tuple[str, dict[str, Any]], now: datetime,
               key: str) -> list[OutboxItem]:
        """Count an alert to the game master (a template and its words, JSON values), and
        give the notice due now, if any (``meta`` updated): the alerts are told at once,
        then at most once every ``ALERT_INTERVAL``, grouped in one notice with their
        counts by kind (``_alerts_told``)."""
        if not self.sender.gm_address:
            return []
        alerts = meta["alerts"]
        alerts["counts"][alert[0]] = alerts["counts"].get(alert[0], 0) + 1
        if len(alerts["pending"]) < ALERTS_KEPT:
            alerts["pending"].append({"template": alert[0], "words": alert[1], "at": iso(now)})
        return self._alerts_told(meta, now, key)

    def _alerts_told(self, meta: dict[str, Any], now: datetime,
                     key: str) -> list[OutboxItem]:
        """The notice of the alerts not told yet, if one is due (``meta`` updated): one
        alert alone is its own mail; more are one mail (``gm_alerts``) that counts them by
        kind and tells the first ``ALERTS_KEPT`` of them in full."""
        alerts = meta["alerts"]
        last = alerts["sent"]
        if not self.sender.gm_address or not alerts["counts"] or (
                last is not None and now - parse_iso(last) < ALERT_INTERVAL):
            return []
        pending, counts = alerts["pending"], alerts["counts"]
        meta["alerts"] = {"sent": iso(now), "pending": [], "counts": {}}
        count = sum(counts.values())
        if count == 1:
            return [self._to_gm(f"{POSTMASTER}-alert-{key}", pending[0]["template"], now,
                                **pending[0]["words"])]
        sections = []
        for alert in pending:
            told = reports.mail(alert["template"], self.sender.gm_lang, self.sender.site_dir,
                                game="", html=False,
                                at=moment_facts(parse_iso(alert["at"]), self.sender.gm_tz),
                                **alert["words"])
            sections.append((told.subject, told.text.strip()))
        return [self._to_gm(f"{POSTMASTER}-alerts-{key}", "gm_alerts", now, count=count,
                            kinds=sorted(counts.items()), sections=sections,
                            more=count - len(sections),
                            minutes=ALERT_INTERVAL // timedelta(minutes=1))]

    def forged(self, mail_id: str, sender: str, verdict: Verdict, now: datetime,
               game: str = "") -> None:
        """Set aside, unanswered and unread, a mail the trusted mail server says is not from
        its From (``verdict``): the log says so, and the postmaster's record keeps the
        verdict, with the game the mail names (``game``, if any) for ``pbem history``."""
        log.warning("mail %s from %r is forged by the word of the trusted mail server (%s): "
                    "not read, not answered%s", mail_id, sender, verdict,
                    f"; it names game {game}" if game else "")
        entry = {"mail_id": mail_id, "answer": "", "forged": str(verdict), "sender": sender,
                 "at": iso(now)}
        self.store.commit(POSTMASTER, log_entries=[entry | ({"game": game} if game else {})],
                          snapshot=None, mail_ids=[mail_id])

    def may_try_password(self, sender: str, now: datetime) -> bool:
        """Give whether the password of a mail from ``sender``, past the hourly limit, may be
        checked in full now: once an hour per address (scrypt is slow on purpose)."""
        return self.counter.may_try(sender, now)

    def _floods_told(self, meta: dict[str, Any], now: datetime,
                     mail_id: str) -> list[OutboxItem]:
        """The notice to the game master of the order mails dropped unread past the hourly
        limit and not told of yet, if one is due (``meta`` updated); else nothing."""
        flooded = meta["flooded"]
        last = meta["flood_alerted"]
        if not self.sender.gm_address or not flooded or (
                last is not None and now - parse_iso(last) < ALERT_INTERVAL):
            return []
        meta["flood_alerted"], meta["flooded"] = iso(now), {}
        return [self._to_gm(f"{POSTMASTER}-flooded-{mail_id}", "mail_flooded", now,
                            senders=[(address, count, ", ".join(games) or "?")
                                     for address, (count, games) in flooded.items()],
                            count=sum(count for count, _ in flooded.values()),
                            limit=self.mails_per_hour,
                            minutes=ALERT_INTERVAL // timedelta(minutes=1))]

    def _answer(self, meta: dict[str, Any], mail_id: str, to: str,
                problem: reports.Problem, now: datetime, *, game: str = "",
                games: Sequence[str] = (), message: str = "", suggestion: str = "",
                reply_to: str | None = None, until: datetime | None = None,
                reader: Seat | None = None,
                own_suggestion: bool = False) -> tuple[str, list[OutboxItem]]:
        """The reply ``reply`` describes, if the limits allow one (``meta`` updated): the
        problem it tells ("hushed" for the short word) and the mail; else ("", [])."""
        if not to:
            log.info("mail %s gets no answer: no sender address could be read", mail_id)
            return "", []
        kind = _kind(meta, to, problem, now)
        if not kind:
            log.info("mail %s from %r gets no answer: its address was answered this hour",
                     mail_id, to)
            return "", []
        address = answerable(to)
        if address is None:
            log.warning("mail %s gets no answer: its sender %r is no address to write to",
                        mail_id, to)
            return "", []
        if reader is None and not self.gate.may_answer_stranger(now):
            log.warning("mail %s from %r (no player) gets no answer: the %d replies an hour "
                        "to strangers are spent", mail_id, to, self.stranger_replies)
            return "", []
        key = _key(to, problem)
        if kind == "hushed":
            meta["hushed"][key] = iso(now)
            problem, until = "hushed", parse_iso(meta["replied"][key]) + REPLY_INTERVAL
        else:
            meta["replied"][key] = iso(now)
        if reader is None:
            message = ""
            suggestion = suggestion if own_suggestion else ""
            game = "" if problem == "unknown_game" else game
        seat = reader or Seat(name="", address=address)
        rendered = reports.error_reply(problem, game=game, games=games, message=message,
                                       suggestion=suggestion, limit=self.mails_per_hour,
                                       until=until, tz=seat.tz, lang=seat.lang,
                                       site_dir=self.sender.site_dir, html=seat.html,
                                       minutes=_minutes(until - now) if until else 0)
        # Composed as mail of no game (X-Pbem: 1), but queued in the postmaster's record.
        item = outbox_item(f"{POSTMASTER}-{mail_id}", "", address, "", rendered, now=now,
                           sender=self.sender, in_reply_to=reply_to)
        return problem, [replace(item, game_id=POSTMASTER)]

    def note(self, mail_id: str, now: datetime, why: str) -> None:
        """Mark a mail done without answering it (automatic mail, no sender), ``why`` said
        in the log."""
        log.info("mail %s gets no answer: %s", mail_id, why)
        self._commit(mail_id, "", self._meta(now), [])

    def failed(self, mail_id: str, now: datetime, error: str, *, to: str = "",
               reply_to: str | None = None, reader: Seat | None = None) -> None:
        """Set aside a mail whose processing broke (a bug, not the player's mistake): it is
        marked done so later mail goes on, kept in the store, and the GM is told: at once if
        no such notice went in the last ``ALERT_INTERVAL``, else in the next one, which
        counts the mails that broke since and names their errors' kinds. Its sender ``to``
        is told that nothing was done, within the limits of any reply."""
        meta = self._meta(now)
        _, told = self._answer(meta, mail_id, to, "failed", now, reply_to=reply_to,
                               reader=reader)
        meta["failed"] = [*meta["failed"], {"mail_id": mail_id, "at": iso(now),
                                             "error": error}][-FAILED_KEPT:]
        kind = error.split(":", 1)[0]
        meta["unreported"][kind] = meta["unreported"].get(kind, 0) + 1
        self._commit(mail_id, "failed", meta, told + self._failures_told(meta, now, mail_id))

    def tell_failures(self, now: datetime) -> None:
        """Send the game master the notices of mails that broke and of order mails dropped
        since the last ones, once the ``ALERT_INTERVAL`` since those is out (held lock
        required; the deadline tick calls it)."""
        meta = self._meta(now)
        entry = self.store.log_length(POSTMASTER)
        items = self._failures_told(meta, now, f"summary-{entry}") if meta["unreported"] \
            else []
        floods = self._floods_told(meta, now, f"summary-{entry}")
        alerts = self._alerts_told(meta, now, f"summary-{entry}")
        if items or floods or alerts:
            self.store.commit(POSTMASTER, log_entries=[{"failures_told": len(items),
                                                        "floods_told": len(floods),
                                                        "alerts_told": len(alerts)}],
                              snapshot=None, meta=meta, outbox=items + floods + alerts)

    def _failures_told(self, meta: dict[str, Any], now: datetime,
                       mail_id: str) -> list[OutboxItem]:
        """The notice to the game master of the mails that broke and were not told of yet,
        if one is due (``meta`` updated); else nothing."""
        if not self.sender.gm_address or not _alert_due(meta, now):
            return []
        unreported = meta["unreported"]
        last = meta["failed"][-1]
        meta["alerted"], meta["unreported"] = iso(now), {}
        return [self._to_gm(f"{POSTMASTER}-failed-{mail_id}", "mail_failed", now,
                            mail_id=last["mail_id"], error=last["error"],
                            count=sum(unreported.values()), kinds=sorted(unreported.items()),
                            minutes=ALERT_INTERVAL // timedelta(minutes=1))]

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
        # Each give-up an alert of its own (a mail queued again may be given up again),
        # grouped with the others (``_alert``).
        entry = self.store.log_length(POSTMASTER)
        meta = self._meta(now)
        notices = self._alert(meta, ("mail_given_up", {
            "to": item.to, "subject": subject, "error": error,
            "mail_game": "" if item.game_id == POSTMASTER else item.game_id}), now,
            f"given-up-{entry}")
        self.store.commit(POSTMASTER, log_entries=[{"given_up": item.outbox_id, "to": item.to,
                                                    "error": error}],
                          snapshot=None, meta=meta, outbox=notices)

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

    def earlier_mail_filed(self, count: int, folder: str, now: datetime) -> None:
        """Tell the game master that the daemon's first start on the IMAP ``folder`` found
        ``count`` mails there, filed unanswered (held lock required)."""
        self.ensure()
        entry = self.store.log_length(POSTMASTER)
        items = [self._to_gm(f"{POSTMASTER}-earlier-{entry}", "earlier_mail_filed", now,
                             count=count, folder=folder)] if self.sender.gm_address else []
        self.store.commit(POSTMASTER, log_entries=[{"earlier_mail_filed": count,
                                                    "folder": folder}],
                          snapshot=None, outbox=items)

    def folder_refused(self, folder: str, error: str, steps: str, now: datetime) -> None:
        """Tell the game master that the mail server refuses to make, or file mail into,
        the IMAP ``folder`` the daemon files handled mail in (held lock required): the
        intake takes no mail until they act. Told once each time it starts failing."""
        if not self.sender.gm_address:
            return
        self.ensure()
        entry = self.store.log_length(POSTMASTER)
        notice = self._to_gm(f"{POSTMASTER}-folder-{entry}", "folder_refused", now,
                             folder=folder, error=error, steps=steps)
        self.store.commit(POSTMASTER, log_entries=[{"folder_refused": folder,
                                                    "error": error}],
                          snapshot=None, outbox=[notice])

    def _to_gm(self, outbox_id: str, template: str, now: datetime,
               **words: Any) -> OutboxItem:
        """The mail ``template`` to the game master, in their language and time zone, queued
        in the postmaster's record."""
        return gm_mail(self.sender, outbox_id, template, now, **words)

    def _commit(self, mail_id: str, answer: str, meta: dict[str, Any],
                items: list[OutboxItem], game: str = "") -> None:
        """The mail done, with its log entry (``answer``: the reply sent, if any; ``game``:
        the game it was for, if any)."""
        entry = {"mail_id": mail_id, "answer": answer} | ({"game": game} if game else {})
        self.store.commit(POSTMASTER, log_entries=[entry], snapshot=None, meta=meta,
                          mail_ids=[mail_id], outbox=items)

    def _meta(self, now: datetime) -> dict[str, Any]:
        meta = self.store.meta(POSTMASTER)
        horizon = now - REPLY_INTERVAL
        alerts = meta.get("alerts", {})
        replied = {a: t for a, t in meta.get("replied", {}).items() if parse_iso(t) > horizon}
        return {"replied": replied,
                "hushed": {a: t for a, t in meta.get("hushed", {}).items() if a in replied},
                "failed": list(meta.get("failed", [])),
                "alerted": meta.get("alerted"), "unreported": dict(meta.get("unreported", {})),
                "damaged": dict(meta.get("damaged", {})),
                # Order mails dropped past the hourly limit, not told yet: address ->
                # (how many, the games they named).
                "flooded": {a: (int(n), list(g)) for a, (n, g) in
                            meta.get("flooded", {}).items()},
                "flood_alerted": meta.get("flood_alerted"),
                # Alerts to the game master not told yet, and when the last were
                # (``_alert``): the first ``ALERTS_KEPT`` in full, all counted by kind.
                "alerts": {"sent": alerts.get("sent"), "pending": list(alerts.get("pending", [])),
                           "counts": dict(alerts.get("counts", {}))}}

    def flooding(self, sender: str, now: datetime) -> bool:
        """Count this mail; True when the sender passed the hourly limit."""
        return self.counter.count(sender, now)

    def read_again_at(self, sender: str) -> datetime:
        """When mail from a flooding sender is read again: once fewer than the limit of
        their mails fall in the hour before."""
        return self.counter.read_again_at(sender)


def gm_mail(sender: MailIdentity, outbox_id: str, template: str, now: datetime,
            address: str | None = None, /, **words: Any) -> OutboxItem:
    """The mail ``template`` to the game master (or ``address``), in their language and time
    zone, as the postmaster's record would queue it; the daemon's alarms send it another
    way (``pbem.daemon.alarms``). Its own parameters are positional: a template's words
    may have their names (``sender``, ``to``, ``address``)."""
    rendered = reports.mail(template, sender.gm_lang, sender.site_dir, game="",
                            at=moment_facts(now, sender.gm_tz), **words)
    item = outbox_item(outbox_id, "", address or sender.gm_address, "", rendered, now=now,
                       sender=sender)
    return replace(item, game_id=POSTMASTER)


class FloodCounter:
    """Each sender's mails of the last hour, counted against the hourly limit.

    Kept in memory: a limit against floods needs no durability, and a restart forgetting
    the counts lets at most one more hour's worth through. A sender is forgotten once their
    last mail is an hour old (the whole table is swept at most once a minute), and the table
    never holds more than ``most`` senders: past that, those heard from longest ago go
    first, so a flood from ever new addresses costs bounded memory.
    """

    def __init__(self, limit: int, most: int = FLOOD_SENDERS) -> None:
        self.limit = limit
        self.most = most
        self._times: dict[str, list[datetime]] = {}  # oldest last mail first
        self._swept: datetime | None = None
        self._tried: dict[str, datetime] = {}  # a full password check past the limit, when

    def count(self, sender: str, now: datetime) -> bool:
        """Count this mail; True when the sender passed the hourly limit."""
        horizon = now - REPLY_INTERVAL
        times = [t for t in self._times.pop(sender, []) if t > horizon][-self.limit:]
        times.append(now)
        self._times[sender] = times
        if self._swept is None or now - self._swept >= SWEEP_INTERVAL:
            self._swept = now
            for old in [s for s, kept in self._times.items() if kept[-1] <= horizon]:
                del self._times[old]
        while len(self._times) > self.most:
            del self._times[next(iter(self._times))]
        return len(times) > self.limit

    def read_again_at(self, sender: str) -> datetime:
        """When mail from a flooding sender is read again."""
        return self._times[sender][-self.limit] + REPLY_INTERVAL

    def may_try(self, sender: str, now: datetime) -> bool:
        """Give whether a password of ``sender``, past the limit, may be checked in full now
        (once an hour); counts the try. Kept as bounded as the counts."""
        last = self._tried.get(sender)
        if last is not None and now - last < REPLY_INTERVAL:
            return False
        self._tried.pop(sender, None)
        self._tried[sender] = now
        while len(self._tried) > self.most:
            del self._tried[next(iter(self._tried))]
        return True


def answerable(to: str) -> str | None:
    """Give the address a reply to ``to`` goes to, or None if none can: it is no mail
    address (NUL, controls, no domain...), or one no folder of the Maildir sender can
    hold."""
    try:
        address = mail_address(to)
    except AddressError:
        return None
    return address if maildir_folder(address) is not None else None


def _kind(meta: dict[str, Any], to: str, problem: reports.Problem, now: datetime) -> str:
    """What the limits of its address allow a reply about ``problem`` to ``to`` to be: the
    "full" reply, the short word that more are "hushed", or nothing ("")."""
    key = _key(to, problem)
    last = meta["replied"].get(key)
    if last is None or now - parse_iso(last) >= REPLY_INTERVAL:
        return "full"
    return "" if problem == "flooding" or key in meta["hushed"] else "hushed"


def _minutes(span: timedelta) -> int:
    return -(span // -timedelta(minutes=1))  # rounded up


def _alert_due(meta: dict[str, Any], now: datetime) -> bool:
    last = meta["alerted"]
    return last is None or now - parse_iso(last) >= ALERT_INTERVAL


def _key(to: str, problem: reports.Problem) -> str:
    """What the once-an-hour limit counts by. The flood notice counts apart: a sender told of
    a mistake this hour must still learn that their mail now goes unread."""
    return f"{problem} {to}" if problem == "flooding" else to


def forged_for(store: GameStore, game_id: str) -> list[dict[str, Any]]:
    """The mails naming ``game_id`` set aside as forged by the trusted mail server's word
    (``Postmaster.forged``): when, the From, the verdict. Reads the record's whole log: for
    ``pbem history``, not for the mail flow."""
    if POSTMASTER not in store.games():
        return []
    return [{"at": e.get("at", ""), "sender": e.get("sender", ""), "verdict": e["forged"]}
            for e in store.log(POSTMASTER) if "forged" in e and e.get("game") == game_id]


def mails_of(store: GameStore, game_id: str) -> set[str]:
    """Give the mails the postmaster answered for ``game_id`` (``reply``'s ``mail_game``;
    entries written before it was kept name no game). Reads the record's whole log: for a
    game leaving the store, not for the mail flow."""
    if POSTMASTER not in store.games():
        return set()
    return {entry["mail_id"] for entry in store.log(POSTMASTER)
            if entry.get("game") == game_id and "mail_id" in entry}
