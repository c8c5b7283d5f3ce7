"""The daemon: the processes that take mail in, work it off through the service and send
the answers (``pbem.daemon.server`` holds the layout and who holds which lock)."""
