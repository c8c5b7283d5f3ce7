"""``pbem catalogue update|check`` (README "Adding a language"): the translator's two
commands, run as a translator runs them, in a process of their own. Issue 42's checks: every
message translated in every shipped language, placeholders identical."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from pbem.reports.catalogues import catalogue_path, read_catalogue
from pbem.reports.languages import LANGUAGES, LOCALE, SOURCE_LANGUAGE
from pbem.reports.translating import template_messages, texts, write_catalogue


def pbem(*args: str) -> subprocess.CompletedProcess[str]:
    command = "import sys; from pbem.cli.main import main; main(sys.argv[1:])"
    return subprocess.run([sys.executable, "-c", command, "catalogue", *args],
                          capture_output=True, text=True, timeout=300, env=os.environ)


def test_every_shipped_catalogue_passes_the_check() -> None:
    """Every message of the templates translated in every shipped language, none fuzzy,
    the original's placeholders in each translation."""
    done = pbem("check")
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    translated = [lang for lang in LANGUAGES if lang != SOURCE_LANGUAGE]
    assert len(translated) >= 2
    assert done.stdout.count("nothing wrong") == len(translated)


def test_a_new_language_begins_empty_and_fails_until_translated(tmp_path: Path) -> None:
    locale = tmp_path / "locale"
    begun = pbem("update", "pt_BR", "--locale", str(locale))
    assert begun.returncode == 0, begun.stderr
    po = catalogue_path(locale, "pt_BR")
    catalogue = read_catalogue(po)
    ids = {(m.id if isinstance(m.id, str) else m.id[0], m.context) for m in catalogue if m.id}
    wanted = {(m.id if isinstance(m.id, str) else m.id[0], m.context)
              for m in template_messages() if m.id}
    assert ids == wanted and not any(any(texts(m.string)) for m in catalogue if m.id)
    failed = pbem("check", "pt_BR", "--locale", str(locale))
    assert failed.returncode == 1
    assert failed.stdout.count(": untranslated: ") == len(wanted)


def test_a_translation_with_other_placeholders_or_an_unknown_form_fails(tmp_path: Path) -> None:
    locale = tmp_path / "locale"
    po = catalogue_path(locale, "fr")
    po.parent.mkdir(parents=True)
    shutil.copy(catalogue_path(LOCALE, "fr"), po)
    catalogue = read_catalogue(po)
    renamed = catalogue.get("It is your move. Deadline: {deadline}.")
    formed = catalogue.get("The game master robot of {game}.")
    assert renamed is not None and formed is not None
    renamed.string = "C'est à vous de jouer. Date limite\u00a0: {date}."
    formed.string = "Le robot maître du jeu {game:du}."
    write_catalogue(catalogue, po)
    done = pbem("check", "fr", "--locale", str(locale))
    assert done.returncode == 1
    wrong = [line.split(": ")[1] for line in done.stdout.splitlines() if ": " in line
             and "messages ready" not in line]
    assert sorted(wrong) == ["form", "placeholders"], done.stdout
