"""IMAP intake against a real Dovecot and a real Cyrus IMAP on loopback."""

from __future__ import annotations

import json
import logging
import random
import re
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path

import pytest
from servers import Account, Cyrus, MailServer, wait_until

from pbem.errors import ConfigError, StoreError
from pbem.transport.imap import (
    Filing,
    FolderLayout,
    ImapConfig,
    ImapError,
    ImapFolderError,
    ImapIntake,
    ImapLoginError,
    JsonFileCursor,
    UnprocessableMail,
)


@pytest.fixture(params=["dovecot", "cyrus", "inbox_dovecot", "inbox_slash_dovecot"])
def server(request: pytest.FixtureRequest) -> MailServer:
    """Each test on Dovecot (folders at the top), on Cyrus and on Dovecots with folders
    under ``INBOX.`` and under ``INBOX/`` (where a folder at the top cannot be made)."""
    found: MailServer = request.getfixturevalue(request.param)
    return found


@pytest.fixture
def account(server: MailServer) -> Account:
    """A fresh user with an empty mailbox on the test's server."""
    return server.add_user()


def mail(tag: str) -> bytes:
    return (
        f"From: alice@example.org\r\nTo: game@pbem.test\r\nSubject: {tag}\r\n"
        f"Message-ID: <{tag}@example.org>\r\n\r\norders for {tag}\r\n"
    ).encode()


def tag_of(raw: bytes) -> str:
    found = re.search(rb"Message-ID: <([^@]+)@", raw)
    assert found, raw
    return found.group(1).decode()


def config_for(server: MailServer, account: Account, **changes: object) -> ImapConfig:
    base = ImapConfig(
        "127.0.0.1",
        server.imap_port,
        account.username,
        account.password,
        "plain",
        poll_seconds=1,
        timeout=10,
    )
    return replace(base, **changes)  # type: ignore[arg-type]


class Inbox:
    """A deliver callable: records tags, can fail on chosen ones."""

    def __init__(self) -> None:
        self.tags: list[str] = []
        self.fail: dict[str, Exception] = {}
        self.lock = threading.Lock()

    def __call__(self, raw: bytes) -> None:
        tag = tag_of(raw)
        if tag in self.fail:
            raise self.fail[tag]
        with self.lock:
            self.tags.append(tag)


def intake_for(
    server: MailServer,
    account: Account,
    tmp_path: Path,
    inbox: Callable[[bytes], None],
    **changes: object,
) -> ImapIntake:
    return ImapIntake(
        config_for(server, account, **changes),
        inbox,
        JsonFileCursor(tmp_path / "cursor.json"),
        rng=random.Random(7),
        retry_base=0.2,
        retry_cap=1.0,
    )


def tags_in(server: MailServer, account: Account, folder: str) -> list[str]:
    return [tag_of(raw) for raw, _ in server.messages(account, folder)]


def test_new_mail_is_delivered_then_moved_to_the_processed_folder(
    server: MailServer, account: Account, tmp_path: Path
) -> None:
    for tag in ("a", "b", "c"):
        server.deliver(account, mail(tag))
    inbox = Inbox()
    intake = intake_for(server, account, tmp_path, inbox)
    try:
        assert intake.fetch_new() == 3
        assert intake.fetch_new() == 0
    finally:
        intake.close()
    assert inbox.tags == ["a", "b", "c"]
    assert tags_in(server, account, "INBOX") == []
    done = server.messages(account, "pbem-done")
    assert [tag_of(raw) for raw, _ in done] == ["a", "b", "c"]
    # Fetched with BODY.PEEK[]: a person looking at the folder still sees them unread.
    assert all(b"\\Seen" not in flags for _, flags in done)


def test_mail_stays_in_place_when_deliver_raises(
    server: MailServer, account: Account, tmp_path: Path
) -> None:
    for tag in ("a", "b", "c"):
        server.deliver(account, mail(tag))
    inbox = Inbox()
    inbox.fail["b"] = OSError("store is locked")
    intake = intake_for(server, account, tmp_path, inbox)
    try:
        with pytest.raises(OSError, match="store is locked"):
            intake.fetch_new()
        assert inbox.tags == ["a"]
        assert tags_in(server, account, "INBOX") == ["b", "c"]
        assert tags_in(server, account, "pbem-done") == ["a"]
        del inbox.fail["b"]
        assert intake.fetch_new() == 2
    finally:
        intake.close()
    assert inbox.tags == ["a", "b", "c"]
    assert tags_in(server, account, "INBOX") == []


def test_unprocessable_mail_goes_to_the_failed_folder(
    server: MailServer, account: Account, tmp_path: Path
) -> None:
    for tag in ("a", "junk", "c"):
        server.deliver(account, mail(tag))
    inbox = Inbox()
    inbox.fail["junk"] = UnprocessableMail("no text part")
    intake = intake_for(server, account, tmp_path, inbox)
    try:
        assert intake.fetch_new() == 3
    finally:
        intake.close()
    assert inbox.tags == ["a", "c"]
    assert tags_in(server, account, "pbem-failed") == ["junk"]
    assert tags_in(server, account, "pbem-done") == ["a", "c"]
    assert tags_in(server, account, "INBOX") == []


def test_a_group_delivery_files_what_it_stored_and_leaves_the_rest(
    server: MailServer, account: Account, tmp_path: Path
) -> None:
    """With ``deliver_group`` the fetched mails are stored together; a failure that is not
    the mail's fault stops the pass there: what came before is filed (the junk apart), that
    mail and the ones after it stay in the INBOX for the next pass, which takes them."""
    for tag in ("a", "junk", "b", "c", "d"):
        server.deliver(account, mail(tag))
    groups: list[list[str]] = []
    store_down = True

    def deliver_group(raws: Sequence[bytes]) -> list[BaseException | None]:
        tags = [tag_of(raw) for raw in raws]
        groups.append(tags)
        if store_down:
            return [UnprocessableMail("no text") if t == "junk" else None for t in tags[:3]] + [
                OSError("store is locked")]
        return [None] * len(tags)

    intake = ImapIntake(config_for(server, account), Inbox(),
                        JsonFileCursor(tmp_path / "cursor.json"), deliver_group=deliver_group)
    try:
        with pytest.raises(OSError, match="store is locked"):
            intake.fetch_new()
        assert tags_in(server, account, "pbem-done") == ["a", "b"]
        assert tags_in(server, account, "pbem-failed") == ["junk"]
        assert tags_in(server, account, "INBOX") == ["c", "d"]
        store_down = False
        assert intake.fetch_new() == 2
    finally:
        intake.close()
    assert groups == [["a", "junk", "b", "c", "d"], ["c", "d"]]
    assert tags_in(server, account, "pbem-done") == ["a", "b", "c", "d"]
    assert tags_in(server, account, "INBOX") == []


def test_flag_mode_marks_mail_and_the_cursor_survives_a_restart(
    server: MailServer, account: Account, tmp_path: Path
) -> None:
    server.deliver(account, mail("a"))
    server.deliver(account, mail("b"))
    inbox = Inbox()
    first = intake_for(server, account, tmp_path, inbox, processed_folder=None)
    try:
        assert first.fetch_new() == 2
    finally:
        first.close()
    saved = json.loads((tmp_path / "cursor.json").read_text())
    assert saved["last_uid"] == 2 and saved["uidvalidity"] > 0
    kept = server.messages(account, "INBOX")
    assert [tag_of(raw) for raw, _ in kept] == ["a", "b"]
    assert all({b"\\Seen", b"\\Flagged"} <= set(flags) for _, flags in kept)

    server.deliver(account, mail("c"))
    second = intake_for(server, account, tmp_path, inbox, processed_folder=None)
    try:
        assert second.fetch_new() == 1
    finally:
        second.close()
    assert inbox.tags == ["a", "b", "c"]


def test_a_rebuilt_folder_is_reread_from_the_start(
    server: MailServer, account: Account, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    for tag in ("a", "b", "c"):
        server.append(account, mail(tag), folder="orders")
    inbox = Inbox()
    intake = intake_for(server, account, tmp_path, inbox, folder="orders")
    try:
        assert intake.fetch_new() == 3
        old_validity, old_last = JsonFileCursor(tmp_path / "cursor.json").load()
        assert old_last == 3
        with server.client(account) as client:
            client.delete_folder(server.full("orders"))
            client.create_folder(server.full("orders"))
        server.append(account, mail("d"), folder="orders")  # UID 1 in the new folder
        with caplog.at_level(logging.WARNING, logger="pbem.transport.imap"):
            assert intake.fetch_new() == 1
    finally:
        intake.close()
    assert inbox.tags == ["a", "b", "c", "d"]
    new_validity, new_last = JsonFileCursor(tmp_path / "cursor.json").load()
    assert new_validity != old_validity and new_last == 1
    assert "rebuilt" in caplog.text


def test_a_rebuilt_folder_in_flag_mode_skips_mail_already_handled(
    server: MailServer, account: Account, tmp_path: Path
) -> None:
    inbox = Inbox()
    intake = intake_for(server, account, tmp_path, inbox, folder="orders", processed_folder=None)
    server.append(account, mail("old"), folder="orders")
    try:
        assert intake.fetch_new() == 1
        with server.client(account) as client:
            client.rename_folder(server.full("orders"), server.full("orders-old"))
            client.create_folder(server.full("orders"))
            client.select_folder(server.full("orders-old"))
            client.copy(client.search("ALL"), server.full("orders"))  # keeps \Seen \Flagged
        server.append(account, mail("new"), folder="orders")
        assert intake.fetch_new() == 1
    finally:
        intake.close()
    assert inbox.tags == ["old", "new"]


def test_idle_wakes_up_when_mail_arrives(
    server: MailServer, account: Account, tmp_path: Path
) -> None:
    intake = intake_for(server, account, tmp_path, Inbox())
    try:
        assert intake.fetch_new() == 0
        started = time.monotonic()
        intake.wait(0.5)
        assert 0.4 < time.monotonic() - started < 3, "wait should end at its timeout"

        timer = threading.Timer(0.3, server.deliver, (account, mail("a")))
        timer.start()
        started = time.monotonic()
        intake.wait(20)
        woke = time.monotonic() - started
        timer.join()
        assert 0.3 <= woke < 5, f"IDLE did not report the new mail ({woke:.1f} s)"
        assert intake.fetch_new() == 1
    finally:
        intake.close()


def test_wait_returns_at_once_when_mail_is_already_waiting(
    server: MailServer, account: Account, tmp_path: Path
) -> None:
    intake = intake_for(server, account, tmp_path, Inbox())
    try:
        intake.fetch_new()
        server.deliver(account, mail("a"))
        started = time.monotonic()
        intake.wait(20)
        assert time.monotonic() - started < 2
    finally:
        intake.close()


def test_wait_ends_when_stop_is_set(server: MailServer, account: Account, tmp_path: Path) -> None:
    intake = intake_for(server, account, tmp_path, Inbox())
    stop = threading.Event()
    try:
        intake.fetch_new()
        threading.Timer(0.3, stop.set).start()
        started = time.monotonic()
        intake.wait(30, stop)
        assert time.monotonic() - started < 3
    finally:
        intake.close()


def idle_commands(caplog: pytest.LogCaptureFixture) -> int:
    """Count the IDLE commands imaplib logged as sent."""
    return sum(1 for record in caplog.records if re.search(r"> b'\w+ IDLE", record.getMessage()))


def test_idle_is_renewed_before_idle_seconds(
    server: MailServer, account: Account, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    renewing = intake_for(server, account, tmp_path, Inbox(), idle_seconds=0.3)
    steady = intake_for(server, account, tmp_path, Inbox())
    try:
        renewing.fetch_new()
        steady.fetch_new()
        with caplog.at_level(logging.DEBUG, logger="imapclient"):
            started = time.monotonic()
            renewing.wait(1.2)
            assert time.monotonic() - started >= 1.1
            assert idle_commands(caplog) >= 3
            caplog.clear()
            steady.wait(0.6)
            assert idle_commands(caplog) == 1
        server.deliver(account, mail("late"))
        assert renewing.fetch_new() == 1  # the connection is still in a usable state
    finally:
        renewing.close()
        steady.close()


def test_run_survives_a_server_restart_losing_and_doubling_nothing(
    server: MailServer, account: Account, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    inbox = Inbox()
    intake = intake_for(server, account, tmp_path, inbox)
    stop = threading.Event()
    runner = threading.Thread(target=intake.run, args=(stop,))
    with caplog.at_level(logging.INFO, logger="pbem.transport.imap"):
        runner.start()
        try:
            for tag in ("a", "b", "c"):
                server.deliver(account, mail(tag))
            assert wait_until(lambda: len(inbox.tags) == 3, timeout=10)
            server.stop()
            time.sleep(0.5)  # let run() notice and back off
            server.start()
            for tag in ("d", "e", "f"):
                server.deliver(account, mail(tag))
            # Filed, not only stored: a server mending itself after the restart may refuse
            # a filing once (Cyrus), and the next try files.
            assert wait_until(lambda: len(tags_in(server, account, "pbem-done")) >= 6,
                              timeout=30), caplog.text
        finally:
            stop.set()
            runner.join(10)
    assert not runner.is_alive()
    # None lost. A stop between storing a group and filing it hands that group over once
    # more (the store ignores it by Message-ID); each mail is filed once either way. (The
    # order is the server's UID order, which LMTP does not promise.)
    assert sorted(set(inbox.tags)) == ["a", "b", "c", "d", "e", "f"]
    assert sorted(tags_in(server, account, "pbem-done")) == ["a", "b", "c", "d", "e", "f"]
    assert tags_in(server, account, "INBOX") == []
    assert "trying again in" in caplog.text


def test_run_retries_a_mail_the_store_could_not_take(
    server: MailServer, account: Account, tmp_path: Path
) -> None:
    inbox = Inbox()
    inbox.fail["a"] = OSError("store is locked")
    intake = intake_for(server, account, tmp_path, inbox)
    server.deliver(account, mail("a"))
    stop = threading.Event()
    runner = threading.Thread(target=intake.run, args=(stop,))
    runner.start()
    try:
        time.sleep(0.5)
        assert inbox.tags == []
        del inbox.fail["a"]
        assert wait_until(lambda: inbox.tags == ["a"], timeout=10)
    finally:
        stop.set()
        runner.join(10)
    assert tags_in(server, account, "pbem-done") == ["a"]


def test_login_failure_names_host_and_user(
    server: MailServer, account: Account, tmp_path: Path
) -> None:
    intake = intake_for(server, account, tmp_path, Inbox(), password="wrong")
    with pytest.raises(
        ImapLoginError, match=re.escape(f"login refused by 127.0.0.1 for {account.username}")
    ):
        intake.fetch_new()
    problems = intake.check()
    assert len(problems) == 1
    assert f"login refused by 127.0.0.1 for {account.username}" in problems[0]


def test_check_is_empty_for_a_good_setup(
    server: MailServer, account: Account, tmp_path: Path
) -> None:
    assert intake_for(server, account, tmp_path, Inbox()).check() == []


def test_check_names_a_missing_folder_and_an_unreachable_server(
    server: MailServer, account: Account, tmp_path: Path
) -> None:
    problems = intake_for(server, account, tmp_path, Inbox(), folder="Orders").check()
    assert problems == [f"folder 'Orders' does not exist on 127.0.0.1:{server.imap_port}"]
    closed = intake_for(server, account, tmp_path, Inbox(), port=1).check()
    assert len(closed) == 1 and "cannot connect to the IMAP server 127.0.0.1:1" in closed[0]
    with pytest.raises(ImapError, match="cannot connect"):
        intake_for(server, account, tmp_path, Inbox(), port=1).fetch_new()


def test_check_warns_of_a_clear_text_password_off_loopback(
    server: MailServer, account: Account, tmp_path: Path
) -> None:
    config = config_for(server, account, host="192.0.2.1", timeout=0.2)
    problems = ImapIntake(config, Inbox(), JsonFileCursor(tmp_path / "c.json")).check()
    assert "unencrypted" in problems[0]


@pytest.mark.parametrize("security", ["tls", "starttls"])
def test_tls_and_starttls_with_a_trusted_certificate(
    server: MailServer, account: Account, tmp_path: Path, security: str
) -> None:
    if not server.tls:
        pytest.skip("this test server has no TLS (the default Dovecot's is tested; without "
                    "openssl it has none either)")
    port = server.imaps_port if security == "tls" else server.imap_port
    trusted = dict(security=security, port=port, ca_file=str(server.cert))
    assert intake_for(server, account, tmp_path, Inbox(), **trusted).check() == []
    server.deliver(account, mail("secret"))
    inbox = Inbox()
    intake = intake_for(server, account, tmp_path, inbox, **trusted)
    try:
        assert intake.fetch_new() == 1
    finally:
        intake.close()
    untrusted = intake_for(server, account, tmp_path, Inbox(), security=security, port=port)
    problems = untrusted.check()
    assert len(problems) == 1 and "certificate" in problems[0].lower()


@pytest.mark.parametrize("bare", ["bare_dovecot", "bare_cyrus"])
def test_server_without_idle_move_or_uidplus(
    bare: str, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    """Polling, and COPY + EXPUNGE in place of MOVE (without UIDPLUS: a plain EXPUNGE).
    Cyrus announces IDLE whatever ``suppress_capabilities`` says: there it is MOVE and
    UIDPLUS only."""
    bare_dovecot: MailServer = request.getfixturevalue(bare)
    account = bare_dovecot.add_user()
    for tag in ("a", "b"):
        bare_dovecot.deliver(account, mail(tag))
    inbox = Inbox()
    intake = intake_for(bare_dovecot, account, tmp_path, inbox)
    try:
        assert intake.fetch_new() == 2
        started = time.monotonic()
        intake.wait(0.5)  # no IDLE (Dovecot): a plain sleep
        assert time.monotonic() - started >= 0.5
    finally:
        intake.close()
    assert inbox.tags == ["a", "b"]
    assert tags_in(bare_dovecot, account, "INBOX") == []
    assert tags_in(bare_dovecot, account, "pbem-done") == ["a", "b"]
    problems = intake_for(bare_dovecot, account, tmp_path, inbox).check()
    if isinstance(bare_dovecot, Cyrus):
        assert problems == []
    else:
        assert len(problems) == 1 and "does not offer IDLE" in problems[0]


def refused_folder(server: MailServer) -> str:
    """A folder name the server refuses to make: in another user's namespace on Cyrus,
    too long for Dovecot."""
    return "user.nobody-here.done" if isinstance(server, Cyrus) else "x" * 300


def test_the_folder_layout_is_learned_and_mail_filed_where_the_server_allows(
    server: MailServer, account: Account, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Folders at the top on Dovecot, under INBOX. on Cyrus and Courier-like Dovecot:
    handled mail is filed there, a ``/`` in a configured name is the server's separator;
    the log says where at the first login."""
    server.deliver(account, mail("a"))
    inbox = Inbox()
    intake = intake_for(server, account, tmp_path, inbox, processed_folder="Games/done")
    try:
        with caplog.at_level(logging.INFO, logger="pbem.transport.imap"):
            assert intake.fetch_new() == 1
    finally:
        intake.close()
    assert (f"handled mail is filed in {server.full('Games/done')!r}, failed mail in "
            f"{server.full('pbem-failed')!r}") in caplog.text
    assert intake.layout is not None
    assert intake.layout == FolderLayout(server.personal_prefix, server.separator,
                                         intake.layout.others)
    assert inbox.tags == ["a"]
    assert tags_in(server, account, "Games/done") == ["a"]
    with server.client(account) as client:
        names = {name for _, _, name in client.list_folders()}
    assert {server.full("Games/done"), server.full("pbem-failed")} <= names


def test_a_folder_the_server_refuses_stops_the_intake_loudly_and_is_told_once(
    server: MailServer, account: Account, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The processed folder cannot be made: an error when the session opens (before any
    mail is taken), logged as an error at each try from the second on, told once, and
    named by the check."""
    refused = refused_folder(server)
    server.deliver(account, mail("a"))
    inbox = Inbox()
    told: list[ImapFolderError] = []
    intake = ImapIntake(config_for(server, account, processed_folder=refused), inbox,
                        JsonFileCursor(tmp_path / "cursor.json"), rng=random.Random(7),
                        retry_base=0.1, retry_cap=0.2, folder_refused=told.append)
    with pytest.raises(ImapFolderError) as raised:
        intake.fetch_new()
    assert raised.value.folder == refused and raised.value.name.endswith(refused)
    stop = threading.Event()
    runner = threading.Thread(target=intake.run, args=(stop,))
    with caplog.at_level(logging.INFO, logger="pbem.transport.imap"):
        runner.start()
        try:
            assert wait_until(lambda: sum(r.levelno == logging.ERROR
                                          for r in caplog.records) >= 3, timeout=20)
        finally:
            stop.set()
            runner.join(10)
    assert [error.folder for error in told] == [refused]
    assert inbox.tags == []
    assert tags_in(server, account, "INBOX") == ["a"]  # waits on the server
    problems = intake.check()
    assert len(problems) == 1 and refused in problems[0]
    assert problems[0].count("Make that folder") == 1


def refusing_done_folder(
    cyrus: Cyrus, tmp_path: Path
) -> tuple[Account, Inbox, list[ImapFolderError], ImapIntake]:
    """A Cyrus account whose pbem-done folder exists without the right to file into it, one
    mail "a" in its INBOX, and an intake for it that keeps what it tells the game master."""
    account = cyrus.add_user()
    with cyrus.client(account) as client:
        client.create_folder("INBOX.pbem-done")
    with cyrus.admin() as admin:  # no "i" (insert) right; the owner cannot take it away
        admin.setacl(f"user.{account.username}.pbem-done", account.username, "lrs")
    cyrus.deliver(account, mail("a"))
    inbox = Inbox()
    told: list[ImapFolderError] = []
    intake = ImapIntake(config_for(cyrus, account), inbox,
                        JsonFileCursor(tmp_path / "cursor.json"), rng=random.Random(7),
                        retry_base=0.1, retry_cap=0.2, folder_refused=told.append)
    return account, inbox, told, intake


def test_a_folder_the_server_will_not_file_into_is_told_once(
    cyrus: Cyrus, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The processed folder exists but its ACL lets the account not file into it (Cyrus):
    the mail stays in the INBOX, each try from the second on is an error in the log, the game
    master is told once."""
    account, inbox, told, intake = refusing_done_folder(cyrus, tmp_path)
    stop = threading.Event()
    runner = threading.Thread(target=intake.run, args=(stop,))
    with caplog.at_level(logging.INFO, logger="pbem.transport.imap"):
        runner.start()
        try:
            assert wait_until(lambda: sum(r.levelno == logging.ERROR
                                          for r in caplog.records) >= 3, timeout=20)
        finally:
            stop.set()
            runner.join(10)
    assert [(error.folder, error.name) for error in told] == [("pbem-done", "INBOX.pbem-done")]
    assert set(inbox.tags) == {"a"}  # stored (again at each try: the store ignores repeats)
    assert tags_in(cyrus, account, "INBOX") == ["a"]
    assert "refuses to file into it" in caplog.text


def test_a_folder_refusing_once_is_tried_again_and_not_told(
    cyrus: Cyrus, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A filing refused once (a server mending itself after a restart) is a warning, and
    the next try files the mail: the game master is told only of a refusal that repeats."""
    account, inbox, told, intake = refusing_done_folder(cyrus, tmp_path)
    folder = f"user.{account.username}.pbem-done"

    class Mender(logging.Handler):
        """Gives the right back as the refusal is logged, before the intake tries again."""

        def emit(self, record: logging.LogRecord) -> None:
            if "refuses to file into it" in record.getMessage():
                with cyrus.admin() as admin:
                    admin.setacl(folder, account.username, "lrswipkxtecda")

    mender = Mender()
    logger = logging.getLogger("pbem.transport.imap")
    logger.addHandler(mender)
    stop = threading.Event()
    runner = threading.Thread(target=intake.run, args=(stop,))
    with caplog.at_level(logging.INFO, logger="pbem.transport.imap"):
        runner.start()
        try:
            assert wait_until(lambda: tags_in(cyrus, account, "pbem-done") == ["a"],
                              timeout=20), caplog.text
        finally:
            stop.set()
            runner.join(10)
            logger.removeHandler(mender)
    assert "refuses to file into it" in caplog.text
    assert told == []
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert set(inbox.tags) == {"a"}
    assert tags_in(cyrus, account, "INBOX") == []


def test_json_cursor_round_trips_and_reports_damage(tmp_path: Path) -> None:
    cursor = JsonFileCursor(tmp_path / "state" / "cursor.json")
    assert cursor.load() == (None, 0)
    cursor.save(1234, 56)
    assert cursor.load() == (1234, 56)
    cursor.save(1234, 57)
    assert JsonFileCursor(tmp_path / "state" / "cursor.json").load() == (1234, 57)
    assert sorted(p.name for p in (tmp_path / "state").iterdir()) == ["cursor.json"]
    (tmp_path / "state" / "cursor.json").write_text("{not json")
    with pytest.raises(StoreError, match="damaged"):
        cursor.load()


def test_json_cursor_keeps_the_filing_under_way_beside_the_position(tmp_path: Path) -> None:
    path = tmp_path / "state" / "cursor.json"
    cursor = JsonFileCursor(path)
    assert cursor.filing() is None
    filing = Filing(1234, (7, 9), "INBOX.pbem-done", 55, 12)
    cursor.save_filing(filing)  # before any position: the first pass's first filing
    assert cursor.load() == (None, 0)
    cursor.save(1234, 6)
    assert JsonFileCursor(path).filing() == filing
    cursor.save_filing(None)
    assert cursor.filing() is None and cursor.load() == (1234, 6)
    assert sorted(p.name for p in path.parent.iterdir()) == ["cursor.json"]
    # A filing file a power cut damaged (it is not fsynced) is no filing: at worst a mail
    # is filed twice, as before it was kept.
    cursor.save_filing(filing)
    cursor.filing_path.write_text('{"uids": [1]}')
    assert cursor.filing() is None


def test_config_refuses_nonsense() -> None:
    with pytest.raises(ConfigError, match="security"):
        ImapConfig("h", 1, "u", "p", "ssl")  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="must differ"):
        ImapConfig("h", 1, "u", "p", "tls", folder="x", processed_folder="x")
    assert "hunter2" not in repr(ImapConfig("h", 1, "u", "hunter2", "tls"))
