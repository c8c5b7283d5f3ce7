"""The game master's command line: one click group (``pbem.cli.main``); each command imports
what it needs when it runs."""
