"""SET LANGUAGE (docs/orders.md) names a language the server has words for: one of the
package's catalogues. A fourth language is one ``.po`` file: with it in ``pbem/locale``, a
player may choose it and reads their mail in it (issue 42)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from support import TESTS
from tables import mail, position, refused, table

import pbem
from pbem.reports.languages import LANGUAGES
from pbem.reports.refusals import worded
from pbem.service.order_refusals import refused as refusal


def test_a_language_without_words_is_refused_and_the_seat_keeps_its_own() -> None:
    t = table(position())
    assert "it" not in LANGUAGES
    no = refused(mail(t, "ann", "SET LANGUAGE IT"))
    assert (no.note, no.suggestion) == worded(refusal("language_unknown", language="it"), "en")
    assert t.service.seat("ann").lang == "en"
    assert all(r.accepted for r in mail(t, "ann", "SET LANGUAGE DE"))
    assert t.service.seat("ann").lang == "de"


CHECK = """
import sys
sys.path.insert(0, {tests!r})
from tables import mail, position, table
from pbem.reports.languages import LANGUAGES
from pbem.reports import mails as reports
from pbem.cli.main import main
t = table(position())
results = mail(t, "ann", "SET LANGUAGE PT-BR", "STATUS")
assert all(r.accepted for r in results), [r.note for r in results]
assert t.service.seat("ann").lang == "pt_BR"
print("languages", *LANGUAGES)
print("status", reports.mail("help", "pt_BR", None, game="g", player="ann", data={{}}).subject)
main(["catalogue", "check", "pt_BR"], standalone_mode=False)
"""


def test_a_fourth_language_is_one_po_file(tmp_path: Path) -> None:
    """A copy of the package with one more catalogue, ``pt_BR`` (the French one, its help
    mail's subject reworded): the language is offered, chosen by SET LANGUAGE (as PT-BR),
    written in, and ``pbem catalogue check`` passes it."""
    package = tmp_path / "pbem"
    shutil.copytree(Path(pbem.__file__).parent, package,
                    ignore=shutil.ignore_patterns("__pycache__", "*.mo"))
    po = package / "locale" / "pt_BR" / "LC_MESSAGES" / "pbem.po"
    po.parent.mkdir(parents=True)
    french = (package / "locale" / "fr" / "LC_MESSAGES" / "pbem.po").read_text(encoding="utf-8")
    po.write_text(french.replace("Comment écrire vos ordres", "Como escrever as ordens")
                  .replace("Language: fr", "Language: pt_BR"), encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    done = subprocess.run([sys.executable, "-c", CHECK.format(tests=str(TESTS))], env=env,
                          capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    lines = done.stdout.splitlines()
    assert "languages en de fr pt_BR" in lines
    assert "status [g] Como escrever as ordens (ann)" in lines
