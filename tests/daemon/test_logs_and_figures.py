"""``pbem run --log-format json`` and ``[daemon] metrics_file``: the log a shipper reads and the
figures node_exporter's textfile collector reads, from a real daemon taking real mail."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest
from daemons import configure, maildir, new_game, order_mail, port_answers, send
from servers import free_port, wait_until
from support import REPO

from pbem.daemon.metrics import Figures
from pbem.errors import ConfigError

# A sample line of the text exposition format: name, optional labels, a number.
SAMPLE = re.compile(r'^[a-zA-Z_:][a-zA-Z0-9_:]*(\{([a-zA-Z_][a-zA-Z0-9_]*="[^"]*",?)*\})? '
                    r'[-+]?(\d+(\.\d+)?([eE][-+]?\d+)?|\+Inf|NaN)$')


def figures_of(path: Path) -> dict[str, float]:
    """Give the samples of a .prom file by their full name; fail on a line out of format."""
    found: dict[str, float] = {}
    for line in path.read_text().splitlines():
        if line.startswith("# HELP ") or line.startswith("# TYPE "):
            continue
        assert SAMPLE.match(line), line
        name, value = line.rsplit(" ", 1)
        found[name] = float(value)
    return found


def test_json_log_lines_and_figures_from_a_real_daemon(tmp_path: Path) -> None:
    port = free_port()
    metrics = tmp_path / "textfile" / "pbem.prom"
    metrics.parent.mkdir()
    config = configure(tmp_path, f'[listener]\nport = {port}\n[daemon]\nmetrics_file = '
                       f'"{metrics}"\n')
    passwords = {g: new_game(config, g, now=datetime.now(UTC)) for g in ("g1", "g2")}
    with (tmp_path / "daemon.log").open("ab") as log:
        daemon = subprocess.Popen(
            [sys.executable, "-m", "pbem.cli.daemon", "run", "--config",
             str(tmp_path / "pbem.toml"), "--log-format", "json"],
            env=dict(os.environ, PYTHONPATH=str(REPO)), stdout=log, stderr=subprocess.STDOUT,
            start_new_session=True)
    try:
        assert wait_until(lambda: port_answers(port), timeout=60)
        for n, game in enumerate(("g1", "g2", "g1")):
            send(port, order_mail(n, "Alice", passwords[game]["Alice"], "STATUS", game=game))
        assert wait_until(lambda: sum(1 for box in maildir(config.maildir).values()
                                      for m in box if m["In-Reply-To"]) >= 3, timeout=60)
        sending = metrics.with_name("pbem-sending.prom")
        assert wait_until(lambda: metrics.is_file() and sending.is_file() and figures_of(
            metrics).get("pbem_mails_processed_total", 0) >= 3 and figures_of(sending).get(
            "pbem_mails_sent_total", 0) >= 3, timeout=60)
        os.killpg(daemon.pid, signal.SIGTERM)
        assert daemon.wait(60) == 0
    finally:
        if daemon.poll() is None:
            os.killpg(daemon.pid, signal.SIGKILL)
            daemon.wait()
    lines = (tmp_path / "daemon.log").read_text().splitlines()
    entries = [json.loads(line) for line in lines]  # every line is one JSON object
    assert all({"time", "level", "logger", "message", "pid"} <= set(e) for e in entries)
    about = [e for e in entries if e.get("game") == "g2" and "seat" in e]
    assert about and about[0]["seat"] == "Alice" and about[0]["message_id"].strip("<>") == \
        "order-1@example.org"
    assert any(e.get("message_id") and e["logger"] == "pbem.daemon.server" for e in entries)
    main, sent = figures_of(metrics), figures_of(metrics.with_name("pbem-sending.prom"))
    assert main["pbem_mails_processed_total"] >= 3
    assert main["pbem_processing_latency_seconds_count"] >= 3
    assert main['pbem_processing_latency_seconds_bucket{le="+Inf"}'] == main[
        "pbem_processing_latency_seconds_count"]
    assert main['pbem_games{state="running"}'] >= 2
    assert 'pbem_outbox_mails{state="waiting"}' in main and "pbem_outbox_held" in main
    assert sent["pbem_mails_sent_total"] >= 3
    assert metrics.stat().st_mode & 0o777 == 0o644  # node_exporter reads it as its own user


def test_a_metrics_file_in_no_folder_is_named_at_start(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="metrics_file"):
        configure(tmp_path, '[daemon]\nmetrics_file = "nowhere/pbem.prom"\n')


def test_warnings_and_errors_are_counted_by_level(tmp_path: Path) -> None:
    import logging

    figures = Figures(tmp_path / "pbem.prom", "main", clock=lambda: 0.0)
    logger = logging.getLogger("pbem.test.figures")
    logger.addHandler(figures)
    try:
        logger.error("one")
        logger.error("two")
        logger.warning("three")
        logger.info("not counted")
    finally:
        logger.removeHandler(figures)
    figures.write()
    found = figures_of(tmp_path / "pbem.prom")
    assert found['pbem_log_messages_total{level="error",process="main"}'] == 2
    assert found['pbem_log_messages_total{level="warning",process="main"}'] == 1
    assert not any("info" in name for name in found)
