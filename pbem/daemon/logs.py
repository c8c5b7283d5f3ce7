"""The daemon's log: plain lines for a person, or one JSON object a line for a log shipper
(``--log-format json``, ``[daemon] log_format``).

A JSON line holds ``time`` (UTC, ISO 8601), ``level``, ``logger``, ``message`` and ``pid``,
and ``game``, ``seat`` and ``message_id`` where the line is about one (the code that logs
passes them as ``extra``), and ``exception`` with the traceback of a failure. The daemon's
children log the same way (``pbem.daemon.child``).
"""

from __future__ import annotations

import json
import logging
import sys
from datetime import UTC, datetime
from typing import Literal

LogFormat = Literal["text", "json"]
LOG_FORMATS: tuple[LogFormat, ...] = ("text", "json")
TEXT_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
CONTEXT = ("game", "seat", "message_id")
"""What a line may be about, passed as ``extra`` by the code that logs it."""


class JsonFormatter(logging.Formatter):
    """One JSON object a line."""

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, object] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(
                timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
            "pid": record.process,
        }
        for key in CONTEXT:
            value = record.__dict__.get(key)
            if value is not None:
                line[key] = value
        if record.exc_info:
            line["exception"] = self.formatException(record.exc_info)
        return json.dumps(line, ensure_ascii=False, default=str)


def set_up_logging(level: str | int, log_format: LogFormat) -> None:
    """Send the process's log to stderr in ``log_format`` at ``level``."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter() if log_format == "json"
                         else logging.Formatter(TEXT_FORMAT))
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(level)
    if logging.getLevelName(root.level) != "DEBUG":
        # aiosmtpd logs every SMTP command at INFO: our own lines say what matters.
        logging.getLogger("mail.log").setLevel(logging.WARNING)
