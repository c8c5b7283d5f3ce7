"""The one check a mail address meets wherever it enters: a seat's (``pbem game create``,
``pbem replace``) and the configuration's.

An address accepted here is one the mail composer takes (``OutgoingMail``) and, with
``deliverable``, one the sender configured can deliver to; a bad one is refused when it is
given, naming it, rather than when a mail to it is composed or sent.
"""

from __future__ import annotations

from pbem.errors import AddressError
from pbem.mail.compose import is_address


def mail_address(text: str) -> str:
    """Give ``text`` as the address mail is written to (stripped, in lower case), or raise
    AddressError naming it: a plain address (name@domain), no display name, no brackets,
    no blanks."""
    address = text.strip()
    if any(c.isspace() or c in "<>,;" or not c.isprintable() for c in address) or (
            not is_address(address)):
        raise AddressError("this is not a mail address", text=text,
                           suggestion="Write a plain address such as ann@example.org.")
    local, _, domain = address.rpartition("@")  # is_address takes only an ASCII local part
    # A domain in another script is sent in its ASCII form (IDNA), as mail servers want it.
    try:
        domain = domain.encode("idna").decode("ascii")
    except UnicodeError:
        raise AddressError("the domain of this address is not a valid domain name", text=text,
                           suggestion="Check the part after the @.") from None
    return f"{local}@{domain}".lower()


def deliverable(address: str, *, maildir: bool) -> str:
    """Give ``address`` checked as ``mail_address`` does, and, when mail goes out into
    Maildirs (``maildir``: no [smtp] configured), as one the Maildir sender can deliver to:
    it files mail in a folder named by the address, so refuses one with a slash or a
    backslash, or starting with a dot."""
    address = mail_address(address)
    if maildir and maildir_folder(address) is None:
        raise AddressError(
            "mail goes into one Maildir folder per address, and this address cannot "
            "name a folder (a slash, a backslash, or a dot first)", text=address,
            suggestion="Give an address without those, or send through SMTP "
            "([smtp] in the configuration).")
    return address


def address_detail(address: str) -> str:
    """Give the detail of an address (``game`` in ``pbem+game@example.org``, in angle
    brackets or not; "" if it has none): where a daemon with ``address_per_game`` names
    the game."""
    local = address.strip().strip("<>").strip().rpartition("@")[0]
    return local.partition("+")[2]


def maildir_folder(address: str) -> str | None:
    """Give the name of the Maildir folder that mail to ``address`` is filed in, or None
    when the address could not name one safely (a slash, a dot first: it could escape the
    folder of Maildirs)."""
    name = address.strip().strip("<>").strip().lower()
    unsafe = any(c in "/\\<>" or c.isspace() or not c.isprintable() for c in name)
    if not name or name.startswith(".") or unsafe or "@" not in name:
        return None
    return name
