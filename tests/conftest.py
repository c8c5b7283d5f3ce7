"""Shared pytest fixtures. Each block is owned by the module that needs it."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import TypeVar

import pytest
from servers import (
    Account,
    Cyrus,
    Dovecot,
    SmtpCatcher,
    TokenServer,
    cyrus_installed,
    dovecot_binary,
    route_providers_to,
)

import pbem.reports.refusals  # noqa: F401  (installs the English wording of keyed errors)

# --- where commands find their configuration (pbem.daemon.config.find_config) ----------


@pytest.fixture(scope="session", autouse=True)
def no_configuration_of_this_machine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Commands never read the machine's own configuration (``~/.config/pbem/pbem.toml``,
    ``/etc/pbem/pbem.toml``, ``$PBEM_CONFIG``): the user's folder is an empty one of the
    tests', the system's file one that does not exist. (A test of the search sets its own.)"""
    from pbem.daemon import config

    with pytest.MonkeyPatch.context() as patch:
        empty = tmp_path_factory.mktemp("no-configuration")
        patch.setenv("XDG_CONFIG_HOME", str(empty))
        patch.delenv("PBEM_CONFIG", raising=False)
        patch.setattr(config, "SYSTEM_CONFIG", empty / "etc" / "pbem.toml")
        yield


# --- mail servers (tests/servers.py): Dovecot IMAP/LMTP and an SMTP catcher -------------

# Announced instead of Dovecot's own list, to test the paths for servers without IDLE,
# MOVE or UIDPLUS.
BARE_CAPABILITIES = "IMAP4rev1 LITERAL+ SASL-IR LOGIN-REFERRALS ID ENABLE UNSELECT NAMESPACE"


S = TypeVar("S", Dovecot, Cyrus)


def _started(server: S) -> Iterator[S]:
    """Give the server started; stop it and delete its folder afterwards."""
    try:
        server.start()
        yield server
    finally:
        server.remove()


def _dovecot_or_skip(**kwargs: object) -> Iterator[Dovecot]:
    if dovecot_binary() is None:
        pytest.skip("dovecot is not installed (apt-get install dovecot-imapd dovecot-lmtpd)")
    yield from _started(Dovecot(**kwargs))  # type: ignore[arg-type]


@pytest.fixture(scope="session")
def dovecot() -> Iterator[Dovecot]:
    """A private Dovecot for the whole session (one per xdist worker)."""
    yield from _dovecot_or_skip()


@pytest.fixture(scope="session")
def bare_dovecot() -> Iterator[Dovecot]:
    """A Dovecot announcing neither IDLE nor MOVE nor UIDPLUS, and no TLS."""
    yield from _dovecot_or_skip(capabilities=BARE_CAPABILITIES, tls=False)


@pytest.fixture(scope="session")
def inbox_dovecot() -> Iterator[Dovecot]:
    """A Dovecot whose personal folders sit under ``INBOX.`` (as on Courier)."""
    yield from _dovecot_or_skip(inbox_prefix="INBOX.", tls=False)


@pytest.fixture(scope="session")
def inbox_slash_dovecot() -> Iterator[Dovecot]:
    """A Dovecot whose personal folders sit under ``INBOX/``, separated by ``/``."""
    yield from _dovecot_or_skip(inbox_prefix="INBOX/", tls=False)


def _cyrus_or_skip(suppress: str = "") -> Iterator[Cyrus]:
    if not cyrus_installed():
        pytest.skip("Cyrus is not here (scripts/test.sh, as root, installs cyrus-common and "
                    "sasl2-bin and unpacks cyrus-imapd's imapd beside dovecot-imapd)")
    if os.geteuid() != 0:
        pytest.skip("the test Cyrus is started as root (its master becomes the cyrus user)")
    yield from _started(Cyrus(suppress=suppress))


@pytest.fixture(scope="session")
def cyrus() -> Iterator[Cyrus]:
    """A private Cyrus IMAP for the whole session, folders under ``INBOX.``."""
    yield from _cyrus_or_skip()


@pytest.fixture(scope="session")
def cyrus_without_move() -> Iterator[Cyrus]:
    """A Cyrus announcing no MOVE (but UIDPLUS): mail is filed with COPY and EXPUNGE."""
    yield from _cyrus_or_skip("MOVE")


@pytest.fixture(scope="session")
def bare_cyrus() -> Iterator[Cyrus]:
    """A Cyrus announcing neither IDLE nor MOVE nor UIDPLUS."""
    yield from _cyrus_or_skip("IDLE MOVE UIDPLUS")


@pytest.fixture
def account(dovecot: Dovecot) -> Account:
    """A fresh user with an empty mailbox on the session's Dovecot."""
    return dovecot.add_user()


@pytest.fixture
def smtp_catcher() -> Iterator[SmtpCatcher]:
    """An SMTP server on loopback that keeps what it receives (``.mails``)."""
    catcher = SmtpCatcher().start()
    try:
        yield catcher
    finally:
        catcher.stop()


# --- OAuth2 (tests/transport/test_oauth_logins.py, tests/daemon/test_oauth_daemon.py) --


@pytest.fixture(scope="session")
def token_server() -> Iterator[TokenServer]:
    """A provider's token service on loopback (Google's and Microsoft's endpoints, and the
    introspection the test servers check tokens at)."""
    server = TokenServer().start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def provider(token_server: TokenServer, monkeypatch: pytest.MonkeyPatch) -> TokenServer:
    """The token service, with the token libraries' requests to Google and Microsoft led to
    it; tokens live an hour, with every scope asked for."""
    route_providers_to(monkeypatch, token_server)
    token_server.lifetime, token_server.scope = 3600, ""
    return token_server


@pytest.fixture(scope="session")
def oauth_dovecot(token_server: TokenServer) -> Iterator[Dovecot]:
    """A Dovecot taking XOAUTH2 and OAUTHBEARER, each token checked at the token service."""
    yield from _dovecot_or_skip(tls=False, introspection_url=token_server.url + "/introspect")


@pytest.fixture
def oauth_smtp(token_server: TokenServer) -> Iterator[SmtpCatcher]:
    """An SMTP server taking XOAUTH2, each token checked at the token service."""
    catcher = SmtpCatcher(bearer=token_server.valid).start()
    try:
        yield catcher
    finally:
        catcher.stop()


# --- end of mail servers block ---------------------------------------------------------


# ---- test_cli_gm and the other game master tests -------------------------------------------


@pytest.fixture(scope="module")
def gm_game(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A store holding game g, started, its players ann, bob and cy; made once per module,
    each test works on a copy (test_cli_gm's ``store``)."""
    from gm_cli import started_game

    return started_game(tmp_path_factory)


@pytest.fixture
def gm_store(gm_game: Path, tmp_path: Path) -> Path:
    """A copy of gm_game for one test to change."""
    shutil.copytree(gm_game, tmp_path / "store")
    return tmp_path / "store"
