"""``pbem catalogue``: a translator's two commands. ``update`` brings a language's catalogue
(begun when missing) up to date with the templates; ``check`` says what a catalogue lacks
or gets wrong, and fails when anything is."""

from __future__ import annotations

from pathlib import Path

import click

__all__ = ["catalogue"]


@click.group("catalogue")
def catalogue() -> None:
    """Translate pbem's mails: update a language's catalogue, check it."""


def _locale_option(command: click.decorators.FC) -> click.decorators.FC:
    return click.option(
        "--locale", "locale", type=click.Path(file_okay=False, path_type=Path), default=None,
        help="The locale folder the catalogues are in: a site's (<site>/locale) or a "
        "checkout's (pbem/locale, the default).")(command)


@catalogue.command("update")
@click.argument("languages", nargs=-1, required=True)
@_locale_option
def update_command(languages: tuple[str, ...], locale: Path | None) -> None:
    """Add the templates' new messages to each LANGUAGE's catalogue (a code: de, it, pt-BR),
    begun if missing; drop those no template has."""
    from pbem.reports.languages import LOCALE
    from pbem.reports.translating import update

    for lang in languages:
        try:
            po = update(lang, locale or LOCALE)
        except ValueError as error:
            raise click.ClickException(str(error)) from error
        click.echo(f"{po}: up to date with the templates; translate its empty messages, then "
                   f"run: pbem catalogue check {lang}" + (f" --locale {locale}" if locale else ""))


@catalogue.command("check")
@click.argument("languages", nargs=-1)
@_locale_option
def check_command(languages: tuple[str, ...], locale: Path | None) -> None:
    """Check each LANGUAGE's catalogue (every shipped one when none is named): every message
    of the templates translated, not fuzzy, with the original's placeholders."""
    from pbem.reports.catalogues import catalogue_path, read_catalogue
    from pbem.reports.languages import LANGUAGES, LOCALE, SOURCE_LANGUAGE
    from pbem.reports.translating import problems, template_messages

    root = locale or LOCALE
    messages = template_messages()
    failed = False
    for lang in languages or tuple(lang for lang in LANGUAGES if lang != SOURCE_LANGUAGE):
        po = catalogue_path(root, lang)
        try:
            found = list(problems(read_catalogue(po), messages))
        except ValueError as error:
            raise click.ClickException(f"{error}; to begin it: pbem catalogue update {lang}"
                                       ) from error
        for problem in found:
            detail = f": {problem.detail}" if problem.detail else ""
            click.echo(f"{po}: {problem.wrong.value}: {problem.message!r}{detail}")
        total = sum(1 for m in messages if m.id)
        click.echo(f"{po}: {total - len({p.message for p in found})} of {total} messages "
                   f"ready" + ("" if found else ", nothing wrong"))
        failed = failed or bool(found)
    if failed:
        raise SystemExit(1)
