"""A new order word touches few files (issue 36, point 3), those docs/layout.md lists: three
modules, the paraphrase template and each translated language's catalogue (issue 42). A copy
of the package gets a ``SHOUT <n>`` order by edits of those files only, and the copy reads
it, writes it back, carries it out and says it in the answer mail."""

from __future__ import annotations

import filecmp
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pbem
from pbem.reports.languages import LANGUAGES, SOURCE_LANGUAGE

ROOT = Path(pbem.__file__).parent
TESTS = Path(__file__).parents[1]
LAYOUT = ROOT.parent / "docs" / "layout.md"

# The files a new order word touches, and the edits each gets here: (text, replaced by), the
# text found once.
_MODEL = '''
@dataclass(frozen=True)
class Shout:
    """Shout, so many times."""

    nature: ClassVar[Nature] = FREE
    times: int

    def written(self) -> str:
        """Gives ``SHOUT <n>``."""
        return f"SHOUT {self.times}"


'''
_READER = '''
def _shout(r: LineReader, pos: int) -> Iterator[tuple[Order, int]]:
    for times, end in r.number(pos, "how many times", minimum=1, money=False):
        yield Shout(times), end


'''
_CARRY = '''
def _shout(table: Table, player: str, located: Located) -> Note:
    return NO_NOTE


'''
_SHOUT_PO = '''msgid "Shout {{n}} time."
msgid_plural "Shout {{n}} times."
msgstr[0] "{}"
msgstr[1] "{}"
'''
EDITS: dict[str, list[tuple[str, str]]] = {
    "orders/model.py": [
        ("Order = (\n", _MODEL + "Order = (\n"),
        ("    | WithdrawVote\n)", "    | WithdrawVote\n    | Shout\n)"),
        ('    WithdrawVote: "withdraw_vote",\n}',
         '    WithdrawVote: "withdraw_vote",\n    Shout: "shout",\n}')],
    "orders/line.py": [
        ("    NoResponse,\n    Order,\n", "    NoResponse,\n    Order,\n    Shout,\n"),
        ("# Every order: its keywords", _READER + "# Every order: its keywords"),
        ('    "status": (', '    "shout": (_shout, "SHOUT <n>"),\n    "status": (')],
    "service/dispatch.py": [
        ("from pbem.orders.model import (\n", "from pbem.orders.model import (\n    Shout,\n"),
        ("# What each kind of order does outside",
         _CARRY + "# What each kind of order does outside"),
        ("    SetMail: _setting, SetReport: _setting,\n",
         "    SetMail: _setting, SetReport: _setting, Shout: _shout,\n")],
    "templates/paraphrase.txt.j2": [
        ("{% macro status(o) %}",
         '{% macro shout(o) %}{{ ngettext("Shout {n} time.", "Shout {n} times.", o.times) }}'
         "{% endmacro %}\n\n{% macro status(o) %}")],
    # Each catalogue gets the sentence's translation, before a message it has once.
    "locale/fr/LC_MESSAGES/pbem.po": [
        ('msgid "Send me my report again."\nmsgstr "',
         _SHOUT_PO.format("Criez {n} fois.", "Criez {n} fois.")
         + '\nmsgid "Send me my report again."\nmsgstr "')],
    "locale/de/LC_MESSAGES/pbem.po": [
        ('msgid "Send me my report again."\nmsgstr "',
         _SHOUT_PO.format("Rufen Sie {n}-mal.", "Rufen Sie {n}-mal.")
         + '\nmsgid "Send me my report again."\nmsgstr "')],
}
# The files that are neither a module nor a template: one catalogue per translated language.
CATALOGUES = {name for name in EDITS if name.startswith("locale/")}

SCRIPT = """
import sys
from pathlib import Path
from pbem.orders import format_order, parse_order
from pbem.orders.model import Shout
from pbem.engine.carddata import load_cardset
from pbem.service import dispatch
from transcripts.harness import Mailroom

order = parse_order("SHOUT 3", load_cardset())
assert order == Shout(3), order
assert format_order(order) == "SHOUT 3"
assert parse_order(format_order(order), load_cardset()) == order

done = []
carry = dispatch.CARRY_OUT[Shout]
def spy(table, player, located):
    done.append((player, located.order))
    return carry(table, player, located)
dispatch.CARRY_OUT[Shout] = spy

room = Mailroom(Path(sys.argv[1]))
room.new_game("illu", [("Alice", ""), ("Bob", "")])
answers = room.orders("Alice", "SHOUT 3")
assert done == [("Alice", Shout(3))], done
assert any("Shout 3 times." in m.text for m in answers), [m.text for m in answers]
room.orders("Bob", "SET LANGUAGE FR")
answers = room.orders("Bob", "SHOUT 2")
assert any("Criez 2 fois." in m.text for m in answers), [m.text for m in answers]
print("shouted")
"""


def _patched(source: str, edits: list[tuple[str, str]], name: str) -> str:
    for old, new in edits:
        assert source.count(old) == 1, f"{name}: {old!r} is not there once"
        source = source.replace(old, new)
    return source


def _different(a: Path, b: Path) -> set[str]:
    """The files under ``a`` and ``b`` (relative) that differ, or are only in one."""
    found: set[str] = set()

    def walk(cmp: filecmp.dircmp[str], at: str) -> None:
        found.update(at + n for n in cmp.left_only + cmp.right_only + cmp.diff_files
                     if n != "__pycache__")
        for name, sub in cmp.subdirs.items():
            if name != "__pycache__":
                walk(sub, f"{at}{name}/")

    walk(filecmp.dircmp(a, b), "")
    return found


def test_the_layout_names_the_files() -> None:
    """Three modules, the one paraphrase template, and a catalogue per language besides
    English (issue 42: the templates are one set, their words in the catalogues)."""
    text = " ".join(LAYOUT.read_text(encoding="utf-8").split())
    listed = text[text.index("**A new order word touches"):]
    listed = listed[:listed.index("Its help")]
    for name in EDITS:
        assert f"pbem/{name}" in listed, name
    assert "pbem/orders/format.py" not in listed
    assert len(EDITS) - len(CATALOGUES) <= 4
    assert {name.split("/")[1] for name in CATALOGUES} == set(LANGUAGES) - {SOURCE_LANGUAGE}


def test_a_new_order_word_by_those_files_is_read_written_back_and_carried_out(
    tmp_path: Path,
) -> None:
    copy = tmp_path / "src" / "pbem"
    shutil.copytree(ROOT, copy, ignore=shutil.ignore_patterns("__pycache__"))
    for name, edits in EDITS.items():
        path = copy / name
        path.write_text(_patched(path.read_text(encoding="utf-8"), edits, name),
                        encoding="utf-8")
    assert _different(ROOT, copy) == set(EDITS)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(copy.parent), str(TESTS)])}
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(SCRIPT), str(tmp_path / "g")],
                          env=env, cwd=tmp_path, capture_output=True, text=True, timeout=600,
                          check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.strip() == "shouted"
