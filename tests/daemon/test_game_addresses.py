"""``[mail] address_per_game``: each game's mail comes from the game's own address, which
the listener takes as the site's (deploy/SCALING.md)."""

from __future__ import annotations

from pathlib import Path

from pbem.daemon.config import load_config


def _config(tmp_path: Path, mail: str, listener: str = "") -> Path:
    path = tmp_path / "pbem.toml"
    path.write_text(f'[store]\npath = "store"\n[mail]\naddress = "pbem@example.org"\n{mail}\n'
                    f"[listener]\n{listener}\n")
    return path


def test_a_game_mails_from_its_own_address_when_asked(tmp_path: Path) -> None:
    sender = load_config(_config(tmp_path, "address_per_game = true"), env={}).sender
    assert sender.address_of("Club-7") == "pbem+club-7@example.org"
    assert sender.address_of("") == "pbem@example.org"  # the postmaster's mail
    plain = load_config(_config(tmp_path, ""), env={}).sender
    assert plain.address_of("Club-7") == "pbem@example.org"


def test_the_listener_takes_a_game_address_as_the_site_address(tmp_path: Path) -> None:
    config = load_config(_config(tmp_path, "address_per_game = true",
                                 'accept = ["pbem@example.org"]'), env={})
    assert config.listener is not None
    assert config.listener.accepts("<pbem+club-7@example.org>")
    assert config.listener.accepts("pbem@example.org")
    assert not config.listener.accepts("other+club-7@example.org")
    assert not config.listener.accepts("pbem+club-7@example.com")
