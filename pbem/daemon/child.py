"""A child process of the daemon: the sending loop, or the polled intakes (IMAP, Maildir: see
``pbem.daemon.children`` for how it is started and spoken to).

It ends cleanly, after the step in progress, when the daemon closes the control pipe, when
the daemon dies (the pipe closes; the kernel also sends SIGTERM), and on SIGTERM or SIGINT
(systemd, or Ctrl-C, signal the daemon's whole process group).
"""

from __future__ import annotations

import ctypes
import logging
import os
import pickle
import signal
import sys
import threading
from types import FrameType

from pbem.daemon.children import READY, STORED, ChildOrders
from pbem.daemon.logs import set_up_logging

log = logging.getLogger("pbem.daemon.server")

_PR_SET_PDEATHSIG = 1
CHAT_GRACE = 2.0
"""Seconds the sending process, told to stop, waits for a chat post under way."""


def _die_with_parent(parent: int) -> None:
    """Have the kernel send SIGTERM when the daemon dies; end now if it died already."""
    if sys.platform.startswith("linux"):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
    if os.getppid() != parent:
        sys.exit(0)


def _listen(orders: ChildOrders, wake: threading.Event, stop: threading.Event) -> None:
    """Set ``wake`` on every byte of the control pipe; ``stop`` too at its end."""
    def ended(signum: int, frame: FrameType | None) -> None:
        log.info("%s process: %s received", orders.role, signal.Signals(signum).name)
        stop.set()
        wake.set()

    signal.signal(signal.SIGTERM, ended)
    signal.signal(signal.SIGINT, ended)

    def read() -> None:
        while os.read(orders.control, 512):
            wake.set()
        stop.set()
        wake.set()

    threading.Thread(target=read, name="control", daemon=True).start()


def _tell(orders: ChildOrders, what: bytes) -> bool:
    """Write ``what`` on the notify pipe; give False if the daemon is gone."""
    try:
        os.write(orders.notify, what)
    except BrokenPipeError:
        return False
    return True


def _send(orders: ChildOrders, wake: threading.Event, stop: threading.Event) -> None:
    from pbem.daemon.loop import run_loop
    from pbem.daemon.metrics import CountedSender
    from pbem.daemon.outbox import make_outbox, make_sender

    outbox = make_outbox(orders.config, make_sender(orders.config), orders.clock)
    if isinstance(outbox.sender, CountedSender):  # its log lines counted too
        logging.getLogger().addHandler(outbox.sender.figures)
    _tell(orders, READY)
    try:
        run_loop(outbox.send_pass, wake, stop, "sending")
    finally:
        outbox.close()
    if not outbox.wait_chat(CHAT_GRACE):
        # Its thread holds up no end of the process. The post is marked posted only once the
        # webhook took it: it stays queued and goes at the next start, as after a crash.
        log.warning("sending process: a chat post still waits for its webhook; it stays "
                    "queued and is posted at the next start")


def _take_in(orders: ChildOrders, stop: threading.Event) -> None:
    from pbem.daemon.intake import make_mail_intake, make_polled_intakes, run_intakes

    def stored() -> None:
        if not _tell(orders, STORED):  # the daemon is gone: the mail is stored, that is all
            stop.set()

    intake = make_mail_intake(orders.config, orders.clock, stored)
    _tell(orders, READY)
    run_intakes(make_polled_intakes(orders.config, intake, orders.clock), stop)


def main() -> None:
    """Do what the daemon asks on stdin until told to stop."""
    path, pickled = pickle.load(sys.stdin.buffer)
    sys.path[:] = path  # where the daemon found the clock's module
    orders: ChildOrders = pickle.loads(pickled)
    sys.stdin.close()
    _die_with_parent(orders.parent)
    set_up_logging(orders.log_level, orders.config.log_format)
    wake, stop = threading.Event(), threading.Event()
    _listen(orders, wake, stop)
    if orders.role == "sending":
        _send(orders, wake, stop)
    else:
        _take_in(orders, stop)


if __name__ == "__main__":
    main()
