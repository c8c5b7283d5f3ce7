"""The trusted mail server's Authentication-Results header read into a verdict (issue 44,
point 1; RFC 8601): only the topmost header of the trusted authserv-id counts."""

from __future__ import annotations

import pytest

from pbem.mail.authresults import FAIL, NONE, PASS, read_verdict

ID = "mx.pbem.test"


def _head(*values: str) -> bytes:
    return "".join(f"Authentication-Results: {v}\r\n" for v in values).encode() + (
        b"From: Alice <alice@example.org>\r\n\r\nbody\r\n")


@pytest.mark.parametrize(("values", "verdict"), [
    ((f"{ID}; dmarc=pass header.from=example.org",), PASS),
    ((f"{ID}; dmarc=fail (p=reject) header.from=example.org",), FAIL),
    ((f"{ID}; dkim=pass header.d=example.org",), PASS),  # aligned DKIM
    ((f"{ID}; dkim=pass header.d=mail.example.org",), PASS),  # relaxed alignment
    ((f"{ID}; dkim=pass header.d=evil.example",), NONE),  # signed, but not for the From
    ((f"{ID}; dkim=fail header.d=example.org",), FAIL),  # the From's own signature broken
    ((f"{ID}; spf=pass smtp.mailfrom=example.org",), NONE),  # SPF alone says nothing of From
    ((f"{ID}; none",), NONE),
    ((f"{ID} 1; dmarc=pass (comment; with = signs) header.from=example.org",), PASS),
    ((f'{ID}; dmarc="fail" header.from=example.org',), FAIL),
    # Only the topmost of the trusted id: one below is the sender's own writing.
    ((f"{ID}; dmarc=fail", f"{ID}; dmarc=pass"), FAIL),
    ((f"{ID}; dmarc=pass", f"{ID}; dmarc=fail"), PASS),
    # Another server's word counts for nothing, above or below.
    (("mx.forger.example; dmarc=pass", f"{ID}; dmarc=fail"), FAIL),
    (("mx.forger.example; dmarc=fail",), NONE),
    # A header that does not read is no verdict, never a pass.
    ((f"{ID}; dmarc=pass (unclosed",), NONE),
    ((f"{ID.upper()}; dmarc=pass",), PASS),  # the id is compared without case
])
def test_the_topmost_trusted_header_gives_the_verdict(values: tuple[str, ...],
                                                      verdict: str) -> None:
    assert read_verdict(_head(*values), ID, "alice@example.org").value == verdict


def test_no_trusted_id_no_verdict() -> None:
    assert read_verdict(_head(f"{ID}; dmarc=fail"), "", "alice@example.org").value == NONE


def test_the_verdict_keeps_what_it_rests_on_and_the_dkim_alignment() -> None:
    verdict = read_verdict(_head(f"{ID}; dkim=pass header.d=example.org; spf=softfail; "
                                 "dmarc=pass"), ID, "alice@example.org")
    assert (verdict.value, verdict.results, verdict.dkim_aligned) == (
        PASS, "dkim=pass spf=softfail dmarc=pass", True)
    spf_only = read_verdict(_head(f"{ID}; spf=pass; dmarc=pass"), ID, "alice@example.org")
    assert spf_only.authenticated and not spf_only.dkim_aligned
