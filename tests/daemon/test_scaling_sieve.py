"""Several daemons on one IMAP account, Dovecot's Sieve filing each game's mail into the
folder of its daemon (deploy/SCALING.md): two real ``pbem run`` processes reading folders
pbem-a and pbem-b of a real Dovecot, mail delivered over LMTP to ``pbem+GAME@`` and filed by
a real Sieve script (Pigeonhole), and a game moved from A to B mid-game with ``pbem export
--move --to-folder pbem-b`` and ``pbem import``, the game master editing the script after,
while its players keep writing. Nothing is lost or doubled: A leaves the game's mail in its
folder while the game moves and refiles it into B's once it left; B keeps what was refiled
before the import until the game is there; every order is applied once and answered once,
and no folder but the processed ones keeps a mail."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from daemons import configure, imap_section, pbem_run
from scaling import DOMAIN, Players, check_each_order_once, mailboxes, new_game, pbem, writing
from servers import Account, Dovecot, dovecot_binary, wait_until

from pbem.daemon.config import DaemonConfig
from pbem.service.service import Service
from pbem.store import Store
from pbem.transport.imap import HOLD_SECONDS, REFILED

FOLDERS = ("pbem-a", "pbem-b")


def sieve(on_b: list[str]) -> str:
    """The game master's script: the games ``on_b`` into B's folder, the rest into A's."""
    games = ", ".join(f'"{game}"' for game in on_b)
    return ('require ["fileinto", "envelope", "subaddress"];\n'
            + (f'if envelope :detail "to" [{games}] {{ fileinto "pbem-b"; stop; }}\n'
               if on_b else "")
            + 'fileinto "pbem-a";\n')


@pytest.fixture
def dovecot() -> Iterator[Dovecot]:
    """A Dovecot of its own, running the Sieve script on every LMTP delivery."""
    if dovecot_binary() is None:
        pytest.skip("dovecot is not installed (apt-get install dovecot-imapd dovecot-lmtpd)")
    if not Path("/usr/lib/dovecot/modules/lib90_sieve_plugin.so").exists():
        pytest.skip("Pigeonhole is not installed (apt-get install dovecot-sieve)")
    server = Dovecot(tls=False, sieve=sieve([]))
    try:
        server.start()
        yield server
    finally:
        server.remove()


def _configure(folder: Path, dovecot: Dovecot, account: Account, boxes: Path,
               imap_folder: str) -> DaemonConfig:
    folder.mkdir()
    return configure(folder, f"""[store]
path = "store"
[mail]
address = "pbem@{DOMAIN}"
address_per_game = true
mails_per_hour = 1000000
{imap_section(dovecot, account)}folder = "{imap_folder}"
processed_folder = "{imap_folder}-done"
failed_folder = "{imap_folder}-failed"
[maildir]
path = "{boxes}"
""")


def test_a_game_moves_between_daemons_on_sieve_folders_and_nothing_is_lost_or_doubled(
        dovecot: Dovecot, tmp_path: Path) -> None:
    """g1 and g2 start on A (folder pbem-a); g1 moves to B (pbem-b) while its players keep
    writing to both games: the mail A finds for g1 during the move stays in pbem-a, and is
    refiled into pbem-b once g1 left (what reaches B before the import waits there for it);
    the game master then edits the Sieve script, and g1's mail goes to pbem-b directly. A
    copy of an order A applied, delivered again after the move, is ignored by B."""
    account = dovecot.add_user(f"pbem@{DOMAIN}")
    with dovecot.client(account) as client:  # the game master makes the daemons' folders
        for folder in FOLDERS:
            client.create_folder(folder)
    boxes = tmp_path / "mailboxes"
    config_a = _configure(tmp_path / "a", dovecot, account, boxes, "pbem-a")
    a, b = config_a.store, _configure(tmp_path / "b", dovecot, account, boxes, "pbem-b").store
    passwords = {game: new_game(config_a, game) for game in ("g1", "g2")}
    steps_at_start = Service(Store(a)).service_record("g1").steps

    def deliver(sender: str, game: str, raw: bytes) -> None:
        dovecot.deliver(account, raw, envelope_from=sender, recipient=f"pbem+{game}@{DOMAIN}")

    players = Players(deliver, passwords)
    with pbem_run(tmp_path / "a", None), pbem_run(tmp_path / "b", None):
        assert wait_until(lambda: len(mailboxes(boxes)) >= 6 and not Store(a).outbox(),
                          timeout=30)
        for _ in range(4):
            players.write("g1")
            players.write("g2")
        with writing(players, ("g1", "g2")):
            exported = tmp_path / "g1.json"
            moved_out = pbem(tmp_path / "a", "export", "g1", "--move", "--to-folder", "pbem-b",
                             "-o", str(exported))
            assert moved_out.returncode == 0, moved_out.stderr
            # What A refiles now waits in pbem-b until the import: B does not take it.
            assert wait_until(lambda: any(REFILED in flags for _, flags in dovecot.messages(
                account, "pbem-b")), timeout=30, step=0.2)
            time.sleep(HOLD_SECONDS)
            assert all(REFILED in flags for _, flags in dovecot.messages(account, "pbem-b"))
            assert not dovecot.messages(account, "pbem-b-done")
            imported = pbem(tmp_path / "b", "import", str(exported))
            assert imported.returncode == 0, imported.stderr
            dovecot.set_sieve(sieve(["g1"]))
            players.send_again("g1", players.sent["g1"][0])
            for _ in range(3):
                players.write("g1")
        orders = {i for ids in players.sent.values() for i in ids}
        assert wait_until(lambda: orders <= {r for _, r, _ in mailboxes(boxes)}, timeout=90)
        assert wait_until(lambda: not any(dovecot.messages(account, f) for f in FOLDERS),
                          timeout=30)
        assert wait_until(lambda: not Store(a).outbox() and not Store(b).outbox(), timeout=30)
    check_each_order_once(players, boxes, {"g1": b, "g2": a}, steps_at_start)
    # Every mail delivered is in a processed folder, none elsewhere.
    done = {f: dovecot.messages(account, f"{f}-done") for f in FOLDERS}
    assert sum(len(mails) for mails in done.values()) == len(orders) + 1
    for folder in ("INBOX", *FOLDERS, "pbem-a-failed", "pbem-b-failed"):
        assert dovecot.messages(account, folder) == [], folder
    taken_by_b = [raw for raw, _ in done["pbem-b"]]
    assert all(b"GAME g1 " in raw for raw in taken_by_b)
    assert any(players.sent["g1"][0].encode() in raw for raw in taken_by_b)  # the copy
    assert any(REFILED in flags for _, flags in done["pbem-b"])  # A refiled g1's mail
