"""STARTTLS on the daemon's SMTP listener, and the doctor's word when mail may come from
beyond this machine in clear (issue 21, point 8): order mails carry the passwords."""

from __future__ import annotations

import smtplib
import ssl
from pathlib import Path

import pytest
from daemon_game import GameDaemon
from servers import make_certificate, wait_until

from pbem.daemon.config import load_config
from pbem.daemon.doctor import examine


def _certificate(folder: Path) -> tuple[Path, Path]:
    made = make_certificate(folder)
    if made is None:
        pytest.skip("openssl is not installed: no certificate to test STARTTLS with")
    return made


def test_the_listener_offers_starttls_with_a_certificate_and_takes_mail_over_it(
        tmp_path: Path) -> None:
    cert, key = _certificate(tmp_path)
    game = GameDaemon(tmp_path, listener=f'tls_cert = "{cert}"\ntls_key = "{key}"\n')
    trusted = ssl.create_default_context(cafile=str(cert))
    with game.listening() as port, smtplib.SMTP("127.0.0.1", port, timeout=30) as smtp:
        smtp.ehlo()
        assert smtp.has_extn("starttls")
        smtp.starttls(context=trusted)  # the certificate checked against the one we made
        smtp.ehlo()
        assert not smtp.has_extn("starttls")  # (once in TLS, not offered again)
        smtp.sendmail("alice@example.org", ["pbem@localhost"],
                      game.orders(1, "Alice", "STANDING LIST"))
        assert wait_until(lambda: any(m["In-Reply-To"] == "<order-1@example.org>"
                                      for m in game.mails().get("alice@example.org", [])),
                          timeout=30)


def test_without_a_certificate_no_starttls_is_offered(tmp_path: Path) -> None:
    game = GameDaemon(tmp_path)
    with game.listening() as port, smtplib.SMTP("127.0.0.1", port, timeout=30) as smtp:
        smtp.ehlo()
        assert not smtp.has_extn("starttls")


def test_the_doctor_warns_of_a_listener_beyond_loopback_without_tls(tmp_path: Path) -> None:
    def warnings(listener: str) -> list[str]:
        path = tmp_path / "pbem.toml"
        path.write_text(f'[store]\npath = "store"\n[listener]\nport = 0\n{listener}')
        return [f.text for f in examine(load_config(path, env={}))
                if f.level != "ok" and "TLS" in f.text]

    assert warnings('host = "127.0.0.1"\n') == []
    (said,) = warnings('host = "0.0.0.0"\n')
    assert "listens on 0.0.0.0, beyond this machine, without TLS" in said
    cert, key = _certificate(tmp_path)
    assert warnings(f'host = "0.0.0.0"\ntls_cert = "{cert}"\ntls_key = "{key}"\n') == []
    (broken,) = warnings(f'host = "0.0.0.0"\ntls_cert = "{key}"\ntls_key = "{cert}"\n')
    assert "cannot use the TLS certificate" in broken
