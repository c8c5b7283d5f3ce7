"""The languages players may read their mail in: a module of its own, so what only checks a
language (the configuration, the CLI's options) need not load the templates. English (the
templates' own), and each language the package has a catalogue for
(``pbem/locale/<lang>/LC_MESSAGES/pbem.po``)."""

from pathlib import Path

LOCALE = Path(__file__).resolve().parent.parent / "locale"
DOMAIN = "pbem"
SOURCE_LANGUAGE = "en"


def shipped_languages() -> tuple[str, ...]:
    """English, then each language with a catalogue under ``pbem/locale``, by code."""
    found = sorted(p.parent.parent.name for p in LOCALE.glob(f"*/LC_MESSAGES/{DOMAIN}.po"))
    return (SOURCE_LANGUAGE, *(lang for lang in found if lang != SOURCE_LANGUAGE))


LANGUAGES = shipped_languages()
