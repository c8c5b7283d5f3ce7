"""The languages players may read their mail in: a module of its own, so what only checks a
language (the configuration, the CLI's options) need not load the templates."""

LANGUAGES = ("en", "fr")
