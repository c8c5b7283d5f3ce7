"""The daemon's figures in Prometheus' text format, written to a file for node_exporter's
textfile collector (``[daemon] metrics_file``).

Each process of the daemon writes a file of its own beside the configured one, since
node_exporter reads every ``*.prom`` file of its folder and one process cannot see another's
counters: the main process ``pbem.prom`` (mail processed, how long mail waited to be
processed, the outbox's depth and held mail, games by state), the sending loop
``pbem-sending.prom`` (mail sent, refused for now, refused for good, and how long a mail
waited to be sent). Each counts its log lines by level (``pbem_log_messages_total``), so a
rise in errors shows without reading the log. A file is replaced whole when its figures
changed (after a pass of the main loop and as it stops; after each mail sent, so the
sending file appears with the first mail), so a scrape never reads half a file.

Written by hand rather than with ``prometheus-client``: the format is a few lines of text,
and the client's multi-process mode (a folder of memory-mapped files and an environment
variable in every process) is more machinery than the few counters a process needs.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable
from datetime import datetime
from pathlib import Path

from pbem.atomicfile import write_atomic
from pbem.store import GameStore
from pbem.transport.sender import PermanentSendError, Sender, TransientSendError

# Seconds: the upper bounds of the latency histograms' buckets.
BUCKETS = (0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 300.0, 3600.0)
# How often the figures read from the store (outbox, games) are read again.
STORE_SECONDS = 60.0

log = logging.getLogger("pbem.daemon.server")


def part_file(configured: Path, part: str) -> Path:
    """Give the file of one part of the daemon: the configured one for the main process,
    ``<name>-<part>.prom`` beside it for the others."""
    return configured if part == "main" else configured.with_name(
        f"{configured.stem}-{part}{configured.suffix}")


class Histogram:
    """Observations counted into the buckets of ``BUCKETS``."""

    def __init__(self) -> None:
        self.counts = [0] * len(BUCKETS)
        self.total = 0.0
        self.count = 0

    def observe(self, seconds: float) -> None:
        self.count += 1
        self.total += seconds
        for i, bound in enumerate(BUCKETS):
            if seconds <= bound:
                self.counts[i] += 1


class Figures(logging.Handler):
    """One process's figures, and the file they go to; a logging handler too, counting the
    process's log lines by level."""

    def __init__(self, path: Path, part: str, *,
                 clock: Callable[[], float] = time.time) -> None:
        super().__init__(level=logging.WARNING)
        self.path = part_file(path, part)
        self.part = part
        self.counters: dict[tuple[str, tuple[tuple[str, str], ...]], float] = {}
        self.gauges: dict[tuple[str, tuple[tuple[str, str], ...]], float] = {}
        self.histograms: dict[str, Histogram] = {}
        self.help: dict[str, str] = {}
        self._changed = True
        self.set("pbem_process_start_time_seconds", "When this process of the daemon "
                 "started (Unix time).", clock(), process=part)

    # ---- counting -----------------------------------------------------------------------

    def count(self, name: str, doc: str, n: float = 1, **labels: str) -> None:
        self.help.setdefault(name, doc)
        key = (name, tuple(sorted(labels.items())))
        self.counters[key] = self.counters.get(key, 0) + n
        self._changed = True

    def set(self, name: str, doc: str, value: float, **labels: str) -> None:
        self.help.setdefault(name, doc)
        self.gauges[(name, tuple(sorted(labels.items())))] = value
        self._changed = True

    def observe(self, name: str, doc: str, seconds: float) -> None:
        self.help.setdefault(name, doc)
        self.histograms.setdefault(name, Histogram()).observe(max(0.0, seconds))
        self._changed = True

    def emit(self, record: logging.LogRecord) -> None:
        self.count("pbem_log_messages_total", "Log lines at warning level and above.",
                   level=record.levelname.lower(), process=self.part)

    # ---- writing ------------------------------------------------------------------------

    def text(self) -> str:
        """Give the figures in Prometheus' text exposition format."""
        lines: list[str] = []
        for kind, values in (("counter", self.counters), ("gauge", self.gauges)):
            for name in sorted({n for n, _ in values}):
                lines += [f"# HELP {name} {self.help[name]}", f"# TYPE {name} {kind}"]
                for (n, labels), value in sorted(values.items()):
                    if n == name:
                        lines.append(f"{name}{_labels(labels)} {_number(value)}")
        for name, histogram in sorted(self.histograms.items()):
            lines += [f"# HELP {name} {self.help[name]}", f"# TYPE {name} histogram"]
            for bound, count in zip(BUCKETS, histogram.counts, strict=True):
                lines.append(f'{name}_bucket{{le="{_number(bound)}"}} {count}')
            lines += [f'{name}_bucket{{le="+Inf"}} {histogram.count}',
                      f"{name}_sum {_number(histogram.total)}", f"{name}_count {histogram.count}"]
        return "\n".join(lines) + "\n"

    def write(self) -> None:
        """Replace the file with the figures, if they changed since it was written."""
        if not self._changed:
            return
        self._changed = False
        try:
            # node_exporter runs as a user of its own; the figures hold no secret.
            write_atomic(self.path, self.text().encode(), mode=0o644)
        except OSError as error:  # the figures must never stop the mail
            log.warning("cannot write the figures to %s: %s", self.path, error)


def read_store_figures(figures: Figures, store: GameStore, hold: tuple[str, str] | None,
                       now: datetime) -> None:
    """Set the gauges read from the store: the outbox's depth, its mail given up and held,
    and the games by state. Reads the store's files; call it every ``STORE_SECONDS``."""
    waiting = given_up = 0
    for item in store.outbox():
        if (item.last_error or "").startswith("given up"):
            given_up += 1
        else:
            waiting += 1
    figures.set("pbem_outbox_mails", "Mails in the outbox: waiting to be sent, or given up.",
                waiting, state="waiting")
    figures.set("pbem_outbox_mails", "", given_up, state="given_up")
    figures.set("pbem_outbox_held", "1 while sending is held (a provider's cap, a refused "
                "login), else 0.", 1 if hold is not None else 0)
    states: dict[str, int] = {"unstarted": 0, "running": 0, "over": 0}
    for game_id in store.games():
        snapshot = store.snapshot(game_id)
        if snapshot is None:
            states["unstarted"] += 1
        else:
            states["over" if snapshot.get("phase") == "over" else "running"] += 1
    for state, n in states.items():
        figures.set("pbem_games", "Games in the store, by state.", n, state=state)
    figures.set("pbem_store_read_time_seconds", "When these store figures were read "
                "(Unix time).", now.timestamp())


class CountedSender:
    """A sender that counts what it sends into ``figures``."""

    def __init__(self, sender: Sender, figures: Figures) -> None:
        self.sender = sender
        self.figures = figures

    def send(self, to: str, raw: bytes, *, envelope_from: str) -> None:
        try:
            self.sender.send(to, raw, envelope_from=envelope_from)
        except TransientSendError:
            self.figures.count("pbem_mails_refused_total", "Mails the mail server refused, "
                               "by for now (retried) or for good.", kind="for_now")
            raise
        except PermanentSendError:
            self.figures.count("pbem_mails_refused_total", "", kind="for_good")
            raise
        self.figures.count("pbem_mails_sent_total", "Mails the mail server took.")
        self.figures.write()

    def close(self) -> None:
        # Nothing written here: the daemon's own outbox object (for ``run_once``) closes
        # too, and must not replace the sending process's file with its empty figures.
        close = getattr(self.sender, "close", None)
        if close is not None:
            close()


def _labels(labels: Iterable[tuple[str, str]]) -> str:
    pairs = [f'{k}="{_escaped(v)}"' for k, v in labels]
    return "{" + ",".join(pairs) + "}" if pairs else ""


def _escaped(value: str) -> str:
    return value.replace("\\", "\\\\").replace("\n", "\\n").replace('"', '\\"')


def _number(value: float) -> str:
    return repr(int(value)) if float(value).is_integer() else repr(float(value))
