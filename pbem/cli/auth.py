"""``pbem auth login``: the game master logs the daemon in to an OAuth2 mailbox, once.

The login the provider gives (a refresh token) is kept in the [oauth] token_file, beside the
store by default, readable by its owner alone; the daemon refreshes its access tokens from
it. Works on a machine without a browser: Microsoft's device code (and a custom provider's,
RFC 8628) is entered in any browser; Google's consent page (and a custom provider's
authorization address, auth_url) is opened in any browser and the address it ends on is
pasted back.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from pbem.cli.daemon import config_option, configured
from pbem.errors import PbemError

__all__ = ["auth"]


@click.group("auth")
def auth() -> None:
    """The OAuth2 login to the mailbox (Gmail, Google Workspace, Outlook.com, Microsoft 365,
    or any provider with a device code or authorization code login: provider = "custom")."""


@auth.command("login")
@config_option
@click.option("--port", default=8765, show_default=True, type=click.IntRange(1, 65535),
              help="Google, or a pasted address: the localhost port in the address the "
              "browser is sent to.")
@click.option("--paste", is_flag=True,
              help="A custom provider with both device_url and auth_url: log in by pasting "
              "the address the browser went to rather than by a code.")
def login(config_path: Path | None, port: int, paste: bool) -> None:
    """Log in once as the mailbox's owner; the daemon then refreshes the token itself."""
    from pbem.transport.oauth import (
        Tokens,
        login_device,
        login_google,
        login_microsoft,
        login_paste,
    )

    try:
        config = configured(config_path)
        oauth = next((s.oauth for s in (config.imap, config.smtp)
                      if s is not None and s.oauth is not None), None)
        if oauth is None:
            raise click.ClickException("no [imap] or [smtp] section has auth = \"oauth2\"; "
                                       "see deploy/PROVIDERS.md")
        username = next(s.username for s in (config.imap, config.smtp)
                        if s is not None and s.oauth is not None and s.username)
        if oauth.provider == "google":
            login_google(oauth, username, ask=lambda text: click.prompt(text), say=click.echo,
                         port=port)
        elif oauth.provider == "microsoft":
            login_microsoft(oauth, username, say=click.echo)
        elif oauth.provider == "custom" and (paste or not oauth.device_url) and oauth.auth_url:
            login_paste(oauth, username, ask=lambda text: click.prompt(text), say=click.echo,
                        port=port)
        elif oauth.provider == "custom":
            login_device(oauth, username, say=click.echo)
        token, problems = Tokens(oauth).check()
    except PbemError as error:
        click.echo(f"pbem: {error}" + (f"\n{error.suggestion}" if error.suggestion else ""),
                   err=True)
        sys.exit(1)
    for problem in problems:
        click.echo(f"problem: {problem}", err=True)
    if token is None:
        sys.exit(1)
    if oauth.provider != "microsoft-app":
        click.echo(f"Logged in as {username}; the login is kept in {oauth.token_file}.")
    click.echo("The token works; `pbem doctor` checks the mail servers with it.")
    sys.exit(1 if problems else 0)
