"""Every mail of a game threads (issue 19.7): one thread per game and player, the welcome
its root, every later mail to that player under the same subject and referring to the root,
an acknowledgement also to the order mail it answers (docs/service.md, Threads)."""

from __future__ import annotations

import base64
import email
import email.policy
from collections import defaultdict
from datetime import UTC, datetime
from email.message import EmailMessage

from pbem.service.bot_games import play_game
from pbem.service.service import Service, ServiceConfig
from pbem.store.memory import MemoryStore

START = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)


def _ids(value: object) -> list[str]:
    return str(value or "").split()


def test_a_whole_games_mail_threads_per_player_in_every_client() -> None:
    svc = Service(MemoryStore(), ServiceConfig(password_cost=4))
    players = [("ann", "ann@example.org"), ("bob", "bob@example.org"),
               ("cy", "cy@example.org")]
    played = play_game(svc, "thr", players, start=START, seed=f"{3:064x}",
                       options={"victory_groups": 5}, keep_mail=True)
    assert played.outcome == "victory"
    by_reader: dict[str, list[EmailMessage]] = defaultdict(list)
    for raw in played.outbox:
        message = email.message_from_bytes(raw, policy=email.policy.default)
        assert isinstance(message, EmailMessage)
        by_reader[str(message["To"]).split("<")[-1].rstrip(">")].append(message)
    assert set(by_reader) == {a for _, a in players}
    every_id = [str(m["Message-ID"]) for ms in by_reader.values() for m in ms]
    assert len(every_id) == len(set(every_id))  # no two mails a client would take for one
    roots = set()
    for (name, address) in players:
        mails = by_reader[address]
        assert len(mails) > 10
        # Gmail: one subject (Re: aside) and References; Outlook: Thread-Topic, and a
        # Thread-Index whose first 22 bytes are the conversation's.
        assert {str(m["Subject"]) for m in mails} == {f"[thr] Illuminati: {name}"}
        assert {str(m["Thread-Topic"]) for m in mails} == {f"[thr] Illuminati: {name}"}
        heads = {base64.b64decode(str(m["Thread-Index"]))[:22] for m in mails}
        assert len(heads) == 1
        # Apple Mail (and Thunderbird): the welcome is the root, every other mail refers to
        # it; the welcome comes first and is the only one without References.
        (welcome,) = [m for m in mails if m["References"] is None]
        assert welcome is mails[0] and "Welcome" in welcome.get_body(("plain",)).get_content()
        root = str(welcome["Message-ID"])
        roots.add(root)
        assert len(base64.b64decode(str(welcome["Thread-Index"]))) == 22
        for m in mails[1:]:
            assert _ids(m["References"])[0] == root, m["Subject"]
            assert len(base64.b64decode(str(m["Thread-Index"]))) == 27
        # An acknowledgement answers the order mail: In-Reply-To it, References the root
        # then it.
        acks = [m for m in mails if m["In-Reply-To"] is not None]
        assert acks
        for ack in acks:
            assert _ids(ack["References"]) == [root, str(ack["In-Reply-To"])]
            assert "Orders received" in ack.get_body(("plain",)).get_content()
    assert len(roots) == len(players)  # a thread per player, never shared
