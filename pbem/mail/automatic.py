"""Tell mail that must never be answered (bounces, auto-replies, lists, our own) apart.

Answering any of these risks a mail loop or mail to a list. The markers are those listed in
notes/mail-servers.md. Only raw header values are read here: the structured header parser of
the standard library can choke on hostile input, and a loop guard must never raise.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

OWN_HEADER = "X-Pbem-Game"
"""Stamped on every mail we send that belongs to a game (its value is the game's name)."""

OWN_MARK_HEADER = "X-Pbem"
"""Stamped (value ``1``) on mail we send that belongs to no game."""

_LIST_PRECEDENCE = frozenset({"bulk", "junk", "list", "auto_reply"})
_DAEMON_NAMES = frozenset({"mailer-daemon", "postmaster"})
# Presence alone marks the mail, whatever the value. X-Auto-Response-Suppress is left out
# on purpose, although notes/mail-servers.md lists it: it asks Exchange not to auto-reply
# *to* a mail and is found on ordinary Outlook mail too (a help-desk vendor lost "tens of
# perfectly good emails" by filtering on it: jitbit.com/maxblog/18). Dropping a player's
# orders silently is worse than answering an out-of-office once.
_MARKER_HEADERS = ("X-Autoreply", "X-Autorespond", "X-Failed-Recipients", "List-Id")
_WHITESPACE = re.compile(r"\s+")


def automatic_reason(
    headers: Mapping[str, str], *, own_header: str = OWN_HEADER
) -> str | None:
    """Give why this mail must never be answered, or None when a reply is allowed.
    ``headers``: the raw value of the first header of each name, by its lower-cased name
    (``envelope.first_headers``)."""

    def _first(name: str) -> str | None:
        """The first header ``name`` unfolded and printable, or None."""
        value = headers.get(name.lower())
        if value is None:
            return None
        # 8-bit bytes arrive as lone surrogates; a reason must be printable and loggable.
        return (_WHITESPACE.sub(" ", str(value)).strip()
                .encode("utf-8", "surrogateescape").decode("utf-8", "replace"))

    for own in (own_header, OWN_MARK_HEADER):
        value = _first(own)
        if value is not None:
            return f"our own mail came back ({own}: {value or 'present'})"

    # Only the topmost Return-Path counts: the receiving server adds it from the SMTP
    # envelope; any lower one was written by the sender and proves nothing.
    return_path = _first("Return-Path")
    if return_path is not None and _WHITESPACE.sub("", return_path) == "<>":
        return "bounce: empty Return-Path <>"

    auto_submitted = _first("Auto-Submitted")
    if auto_submitted is not None:
        keyword = auto_submitted.split(";", 1)[0].strip().lower()
        if keyword != "no":
            return f"Auto-Submitted: {keyword or 'present'}"

    content_type = _first("Content-Type")
    if content_type is not None and content_type.lower().startswith("multipart/report"):
        report = re.search(r"report-type\s*=\s*\"?([\w.-]+)", content_type, re.I)
        kind = report.group(1).lower() if report else "unknown"
        return f"report (bounce or receipt): multipart/report, report-type={kind}"

    for name in ("Precedence", "X-Precedence"):
        precedence = (_first(name) or "").strip().lower()
        if precedence in _LIST_PRECEDENCE:
            return f"{name}: {precedence}"

    for marker in _MARKER_HEADERS:
        if _first(marker) is not None:
            return f"{marker} header present"

    for name in ("From", "Sender"):
        address = _address(_first(name) or "")
        if address.rsplit("@", 1)[0].lower() in _DAEMON_NAMES:
            return f"sent by a mail system ({name}: {address})"
    return None


def _address(value: str) -> str:
    """Give the bare address of a From-like value: inside <>, else the first word."""
    # Not email.utils.parseaddr: it recurses once per nested comment, and a From of
    # 50,000 '(' raised RecursionError.
    angle = re.search(r"<([^<>]*)>", value)
    if angle:
        return angle.group(1).strip()
    words = re.sub(r"\([^()]*\)", " ", value).split()
    return words[0] if words else ""


def null_sender(envelope_from: str) -> bool:
    """Give True when the SMTP envelope sender is the null path ``<>`` (a bounce)."""
    return _WHITESPACE.sub("", envelope_from) in ("", "<>")
