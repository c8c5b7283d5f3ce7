"""Mail bots of every level play a whole game through the service, orders accepted."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

from click.testing import CliRunner

from pbem.cli.main import main
from pbem.service.bot_games import play_game
from pbem.service.service import Service, ServiceConfig
from pbem.store import Store

START = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)


def test_mail_bots_at_mixed_levels_play_a_game_the_service_accepts(tmp_path: Path) -> None:
    """A strong, a normal and an easy bot write every order by mail from their views; the
    service refuses none of them, the game is decided and the log replays."""
    svc = Service(Store(tmp_path), ServiceConfig(password_cost=4))
    players = [(f"bot{i}", f"bot{i}@example.org") for i in range(3)]
    played = play_game(svc, "levels", players, start=START, seed=f"{9:064x}",
                       options={"victory_groups": 5}, keep_mail=True,
                       levels=("strong", "normal", "easy"))
    assert played.outcome == "victory" and played.winners
    assert svc.replay_check("levels")
    acks = [m for m in played.outbox if b"Orders received" in m]
    assert acks and not [m for m in acks if b" 0 refused" not in m]


def test_pbem_simulate_plays_seats_at_the_levels_given() -> None:
    """`pbem simulate --level strong --level easy`: seat 1 strong, seat 2 easy, the rest
    normal; the games hold every invariant."""
    result = CliRunner().invoke(main, ["simulate", "--games", "2", "--players", "3",
                                       "--seed", "4", "--level", "strong", "--level", "easy",
                                       "--json"])
    assert result.exit_code == 0, result.output
    summary = json.loads(result.output)
    assert summary["finished"] == 2 and summary["invariant_violations"] == 0
    bad = CliRunner().invoke(main, ["simulate", "--games", "1", "--level", "genius"])
    assert bad.exit_code == 2 and "genius" in bad.output
