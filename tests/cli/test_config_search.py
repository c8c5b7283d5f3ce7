"""Commands find their store where the daemon finds it, and ask for no secret they do not use
(issue 43, point 7). The configuration is ``--config``, else ``$PBEM_CONFIG``, else the first
found of ``./pbem.toml``, ``$XDG_CONFIG_HOME/pbem/pbem.toml`` (``~/.config/pbem/pbem.toml``)
and ``/etc/pbem/pbem.toml`` (``SYSTEM_CONFIG``, pointed into a temporary folder here), else the
embedded default. The game master's commands log in nowhere, so a password missing from the
environment stops only ``pbem run`` and ``pbem doctor``, which name it."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from pbem.cli.daemon import CONFIG_HELP
from pbem.cli.main import main
from pbem.daemon import config
from pbem.daemon.config import IMAP_PASSWORD_ENV, SEARCH_ORDER, find_config, load_config
from pbem.store import Store

NOW = "2024-05-01T12:00:00+00:00"
PLAYERS = ("--player", "ann=ann@example.org", "--player", "bob=bob@example.org")
# A store beside the file (relative paths are the file's folder's); the listener on any port.
TOML = '[store]\npath = "the-store"\n\n[listener]\nport = 0\n'
IMAP = '\n[imap]\nhost = "imap.example.org"\nusername = "pbem@example.org"\n'


@pytest.fixture
def places(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Path]:
    """Each place a configuration may be, in temporary folders: the command runs in
    ``work``, HOME and XDG_CONFIG_HOME are the test's, the system's file too."""
    folders = {name: tmp_path / name for name in ("work", "home", "xdg", "etc", "named")}
    for folder in folders.values():
        folder.mkdir()
    monkeypatch.chdir(folders["work"])
    monkeypatch.setenv("HOME", str(folders["home"]))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(folders["xdg"]))
    monkeypatch.delenv("PBEM_CONFIG", raising=False)
    monkeypatch.delenv("PBEM_STORE", raising=False)
    monkeypatch.delenv(IMAP_PASSWORD_ENV, raising=False)
    monkeypatch.setattr(config, "SYSTEM_CONFIG", folders["etc"] / "pbem" / "pbem.toml")
    return folders


def pbem(*args: str) -> Result:
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def write(path: Path, text: str = TOML) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_the_search_order(places: dict[str, Path]) -> None:
    """Each place wins over those after it; a file named (--config, $PBEM_CONFIG) is taken
    even when missing, so that loading it says so; with none, the embedded default."""
    work, xdg, home = places["work"], places["xdg"], places["home"]
    system = config.SYSTEM_CONFIG
    env = {"HOME": str(home), "XDG_CONFIG_HOME": str(xdg)}
    assert find_config(None, env) is None
    write(system)
    assert find_config(None, env) == system
    write(home / ".config" / "pbem" / "pbem.toml")
    assert find_config(None, env) == system  # XDG_CONFIG_HOME is set: not ~/.config
    assert find_config(None, {"HOME": str(home)}) == home / ".config" / "pbem" / "pbem.toml"
    assert find_config(None, {"HOME": str(home), "XDG_CONFIG_HOME": "relative"}) == (
        home / ".config" / "pbem" / "pbem.toml")  # the XDG spec: a relative one is ignored
    write(xdg / "pbem" / "pbem.toml")
    assert find_config(None, env) == xdg / "pbem" / "pbem.toml"
    write(work / "pbem.toml")
    assert find_config(None, env) == work / "pbem.toml"
    assert find_config(None, {**env, "PBEM_CONFIG": "/nowhere/x.toml"}) == Path(
        "/nowhere/x.toml")
    assert find_config(Path("given.toml"), {**env, "PBEM_CONFIG": "/nowhere/x.toml"}) == Path(
        "given.toml")
    assert find_config(None, env, cwd=places["named"],
                       system=places["named"] / "none.toml") == xdg / "pbem" / "pbem.toml"


def test_the_help_says_the_order() -> None:
    """`pbem --help`, every command's --config, deploy's and the README say the same order."""
    order = ["$PBEM_CONFIG", "./pbem.toml", "$XDG_CONFIG_HOME/pbem/pbem.toml",
             "~/.config/pbem/pbem.toml", "/etc/pbem/pbem.toml"]
    readme = (Path(__file__).parents[2] / "README.md").read_text(encoding="utf-8")
    texts = [SEARCH_ORDER, CONFIG_HELP, " ".join(pbem("--help").output.split()),
             " ".join(pbem("games", "--help").output.split()),
             " ".join(pbem("run", "--help").output.split()), " ".join(readme.split())]
    for text in texts:
        at = [text.find(place) for place in order]
        assert -1 not in at and at == sorted(at), (text, at)


def located(places: dict[str, Path], where: str) -> Path:
    """A configuration written at ``where``; its store's folder."""
    path = {"env": places["named"] / "site.toml", "cwd": places["work"] / "pbem.toml",
            "xdg": places["xdg"] / "pbem" / "pbem.toml",
            "home": places["home"] / ".config" / "pbem" / "pbem.toml",
            "etc": config.SYSTEM_CONFIG}[where]
    write(path)
    return path.parent / "the-store"


@pytest.mark.parametrize("where", ["env", "cwd", "xdg", "home", "etc"])
def test_a_command_finds_the_store_the_daemon_uses(
        places: dict[str, Path], monkeypatch: pytest.MonkeyPatch, where: str) -> None:
    """`pbem game create` and `game start` run with no --config put the game in the store of
    the configuration found; `pbem run --once`, run the same way, sends its welcome mails
    from that store: the game master and the daemon share it."""
    store = located(places, where)
    if where == "env":
        monkeypatch.setenv("PBEM_CONFIG", str(places["named"] / "site.toml"))
    if where == "home":
        monkeypatch.delenv("XDG_CONFIG_HOME")
    created = pbem("game", "create", "g", *PLAYERS, "--now", NOW)
    assert created.exit_code == 0, created.output
    assert pbem("game", "start", "g", "--now", NOW).exit_code == 0
    assert not (places["work"] / "var").exists()  # not in ./var/pbem
    assert Store(store).games() and "g" in Store(store).games()
    assert Store(store).unsent() > 0  # the welcomes
    ran = pbem("run", "--once")
    assert ran.exit_code == 0, ran.output
    assert Store(store).unsent() == 0
    assert (store / "maildirs").is_dir()
    listed = pbem("games")
    assert listed.exit_code == 0 and "g " in listed.output


def test_the_game_master_s_commands_need_no_password(places: dict[str, Path]) -> None:
    """With [imap] and no PBEM_IMAP_PASSWORD, `game create` and `outbox list` work (they
    log in nowhere); `pbem run` and `pbem doctor`, which log in, name the missing secret."""
    write(places["work"] / "pbem.toml", TOML + IMAP)
    created = pbem("game", "create", "g", *PLAYERS, "--now", NOW)
    assert created.exit_code == 0, created.output
    listed = pbem("outbox", "list")
    assert listed.exit_code == 0, listed.output
    assert "g" in Store(places["work"] / "the-store").games()
    ran = pbem("run", "--once")
    assert ran.exit_code == 2 and IMAP_PASSWORD_ENV in ran.output
    doctor = pbem("doctor")
    assert doctor.exit_code == 1 and IMAP_PASSWORD_ENV in doctor.output


def test_a_secret_missing_is_an_error_only_for_logins(tmp_path: Path) -> None:
    path = write(tmp_path / "pbem.toml", TOML + IMAP + '\n[smtp]\nhost = "smtp.example.org"\n'
                 'username = "pbem@example.org"\n')
    quiet = load_config(path, env={}, logins=False)
    assert quiet.imap is not None and quiet.imap.password == ""
    assert quiet.smtp is not None and quiet.smtp.password is None
    with pytest.raises(config.ConfigError) as raised:
        load_config(path, env={})
    assert IMAP_PASSWORD_ENV in str(raised.value)
    with pytest.raises(config.ConfigError) as raised:
        load_config(path, env={IMAP_PASSWORD_ENV: "secret"})
    assert "PBEM_SMTP_PASSWORD" in str(raised.value)
