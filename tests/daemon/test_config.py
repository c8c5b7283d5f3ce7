"""The daemon's configuration: the embedded default, every section, and plain errors."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
from click.testing import CliRunner
from support import REPO

from pbem.cli.daemon import run
from pbem.daemon.config import ListenerSettings, load_config
from pbem.errors import ConfigError


def write(folder: Path, text: str) -> Path:
    path = folder / "pbem.toml"
    path.write_text(text)
    return path


def test_the_embedded_default(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    config = load_config(None, env={})
    assert config.source is None
    assert config.store == tmp_path / "var" / "pbem"
    assert config.maildir == tmp_path / "var" / "pbem" / "maildirs"
    assert config.listener == ListenerSettings("127.0.0.1", 2525,
                                               ("pbem@localhost", "@localhost"))
    assert config.imap is None and config.smtp is None
    assert (config.sender.address, config.sender.domain) == ("pbem@localhost", "localhost")
    assert config.envelope_from == "pbem@localhost"
    assert (config.max_mail_bytes, config.mails_per_hour) == (256 * 1024, 60)
    assert (config.tick_seconds, config.queue_lifetime, config.log_level) == (
        60.0, timedelta(days=5), "INFO")


def test_the_documented_default_file_is_the_embedded_default(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """deploy/pbem.toml sets every key to its default: read from its own folder, it gives
    what no file at all gives from that folder."""
    monkeypatch.chdir(REPO / "deploy")
    documented = load_config(REPO / "deploy" / "pbem.toml", env={})
    default = load_config(None, env={})
    assert documented.source is not None
    assert documented.__dict__ | {"source": None} == default.__dict__


@pytest.mark.parametrize("name", ["imap-provider.toml", "dovecot-postfix.toml"])
def test_the_deploy_examples_load(name: str) -> None:
    config = load_config(REPO / "deploy" / name,
                         env={"PBEM_IMAP_PASSWORD": "i", "PBEM_SMTP_PASSWORD": "s"})
    assert config.imap is not None and config.imap.password == "i"
    assert config.smtp is not None
    assert config.store == Path("/var/lib/pbem/store")


def test_every_section(tmp_path: Path) -> None:
    (tmp_path / "site").mkdir()
    (tmp_path / "ca.pem").write_text("not checked here")
    path = write(tmp_path, """
[store]
path = "games"
[mail]
address = "Illuminati@Games.Example.org"
name = "The Game"
gm_address = "gm@example.org"
gm_language = "fr"
gm_timezone = "Europe/Paris"
templates = "site"
max_kib = 64
mails_per_hour = 5
envelope_from = ""
[listener]
enabled = true
host = "0.0.0.0"
port = 2626
accept = ["@games.example.org"]
[imap]
host = "imap.example.org"
security = "starttls"
username = "illuminati"
password = "from-file"
processed_folder = ""
poll_seconds = 30
ca_file = "ca.pem"
[smtp]
host = "smtp.example.org"
security = "tls"
username = "illuminati"
password = "smtp-from-file"
[maildir]
path = "/srv/mail"
[daemon]
tick_seconds = 15
queue_lifetime_days = 2.5
log_level = "DEBUG"
""")
    config = load_config(path, env={"PBEM_IMAP_PASSWORD": "from-env"})
    assert config.store == tmp_path / "games"
    assert config.sender.address == "illuminati@games.example.org"
    assert config.sender.domain == "games.example.org"
    assert config.sender.site_dir == tmp_path / "site"
    assert (config.sender.gm_lang, config.sender.gm_tz) == ("fr", "Europe/Paris")
    assert config.envelope_from == ""
    assert (config.max_mail_bytes, config.mails_per_hour) == (64 * 1024, 5)
    assert config.listener is not None
    assert config.listener.accepts("anyone@GAMES.example.org")
    assert not config.listener.accepts("illuminati@example.org")
    imap = config.imap
    assert imap is not None
    assert (imap.port, imap.password, imap.processed_folder) == (143, "from-env", None)
    assert imap.ca_file == str(tmp_path / "ca.pem")
    smtp = config.smtp
    assert smtp is not None
    assert (smtp.port, smtp.password) == (465, "smtp-from-file")
    assert config.maildir == Path("/srv/mail")
    assert config.imap_cursor == tmp_path / "games" / "daemon" / "imap-cursor.json"
    assert (config.tick_seconds, config.queue_lifetime, config.log_level) == (
        15.0, timedelta(hours=60), "DEBUG")
    assert config.service_config().mails_per_hour == 5


def test_imap_turns_the_listener_off_unless_asked(tmp_path: Path) -> None:
    imap = '[imap]\nhost = "h"\nusername = "u"\n'
    config = load_config(write(tmp_path, imap), env={"PBEM_IMAP_PASSWORD": "p"})
    assert config.listener is None
    config = load_config(write(tmp_path, imap + "[listener]\nenabled = true\n"),
                         env={"PBEM_IMAP_PASSWORD": "p"})
    assert config.listener is not None and config.listener.port == 2525


@pytest.mark.parametrize(("text", "message"), [
    ("[imap]\nhost = 'h'\nusername = 'u'\n",
     "In {file}, [imap] has no password. Set the environment variable PBEM_IMAP_PASSWORD, "
     "or add password = \"...\" under [imap]."),
    ("[smtp]\nhost = 'h'\nusername = 'u'\n",
     "In {file}, [smtp] has a username but no password."),
    ("[listener]\nprot = 25\n",
     "In {file}, [listener] has an unknown key 'prot'. Did you mean port?"),
    ("[listner]\nport = 25\n",
     "In {file}, there is an unknown section [listner]. Did you mean [listener]?"),
    ("[listener]\nport = 'smtp'\n",
     "In {file}, [listener] port must be a whole number from 0 to 65535, not 'smtp'."),
    ("[listener]\nport = 70000\n",
     "In {file}, [listener] port must be a whole number from 0 to 65535, not 70000."),
    ("[listener]\nport = true\n",
     "In {file}, [listener] port must be a whole number from 0 to 65535, not True."),
    ("[listener]\nenabled = false\n",
     "In {file}, no mail comes in: the listener is off and there is no [imap] section."),
    ("[mail]\naddress = 'nobody'\n",
     "In {file}, [mail] address must be a plain mail address like pbem@example.org, "
     "not 'nobody'."),
    ("[mail]\ngm_address = '.gm@example.org'\n",
     "In {file}, [mail] gm_address must be a plain mail address like pbem@example.org, "
     "not '.gm@example.org'."),
    ("[mail]\ngm_address = 'gm/x@example.org'\n",
     "In {file}, [mail] gm_address must be a plain mail address like pbem@example.org, "
     "not 'gm/x@example.org'. Mail goes into one Maildir folder per address"),
    ("[mail]\ntemplates = 'missing'\n", "In {file}, [mail] templates names {dir}/missing, "
     "which is not a folder."),
    ("[smtp]\nhost = 'h'\nsecurity = 'ssl'\n",
     "In {file}, [smtp] security must be 'tls' or 'starttls' or 'plain', not 'ssl'."),
    ("[mail]\ngm_language = 'klingon'\n",
     "In {file}, [mail] gm_language must be 'en' or 'de' or 'fr', not 'klingon'."),
    ("[mail]\ngm_timezone = 'Paris'\n",
     "In {file}, [mail] gm_timezone must be an IANA time zone such as Europe/Paris or UTC, "
     "not 'Paris'."),
    ("[daemon]\ntick_seconds = 0\n",
     "In {file}, [daemon] tick_seconds must be a number of seconds above 0, not 0."),
    ("[daemon]\nlog_level = 'loud'\n", "In {file}, [daemon] log_level must be 'DEBUG' or "
     "'INFO' or 'WARNING' or 'ERROR', not 'loud'."),
    ("store = 'x'\n", "In {file}, [store] must be a table of keys."),
    ("[imap]\nusername = 'u'\npassword = 'p'\n", "In {file}, [imap] needs host."),
    ("[mail\naddress = 'x'\n", "The configuration file {file} is not valid TOML: "),
])
def test_mistakes_name_the_key_and_the_file(tmp_path: Path, text: str, message: str) -> None:
    path = write(tmp_path, text)
    with pytest.raises(ConfigError) as caught:
        load_config(path, env={})
    assert str(caught.value).startswith(message.format(file=path, dir=tmp_path))


def test_the_game_master_may_read_german(tmp_path: Path) -> None:
    """Every language the package has a catalogue for is a gm_language (German since issue
    42)."""
    config = load_config(write(tmp_path, "[mail]\ngm_language = 'de'\n"), env={})
    assert config.sender.gm_lang == "de"


def test_an_invalid_toml_file_names_the_line(tmp_path: Path) -> None:
    path = write(tmp_path, "[mail]\naddress = 'a@b'\nname = \n")
    with pytest.raises(ConfigError, match=r"line 3"):
        load_config(path, env={})


def test_a_missing_file(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="does not exist"):
        load_config(tmp_path / "nope.toml", env={})


def test_the_environment_wins_over_the_file(tmp_path: Path) -> None:
    path = write(tmp_path, "[smtp]\nhost = 'h'\nusername = 'u'\npassword = 'file'\n")
    assert load_config(path, env={"PBEM_SMTP_PASSWORD": "env"}).smtp.password == "env"  # type: ignore[union-attr]
    assert load_config(path, env={}).smtp.password == "file"  # type: ignore[union-attr]


def test_pbem_run_with_a_bad_file_exits_2_with_the_sentence(tmp_path: Path) -> None:
    path = write(tmp_path, "[listener]\nport = 'smtp'\n")
    result = CliRunner().invoke(run, ["--config", str(path), "--once"])
    assert result.exit_code == 2
    assert result.output == (f"pbem: In {path}, [listener] port must be a whole number from "
                             "0 to 65535, not 'smtp'.\n")
