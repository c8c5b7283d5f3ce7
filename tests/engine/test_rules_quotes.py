"""Every rule-case test quotes the rules text it checks, and the quote is really there.

A rule-case docstring names its source and quotes it: ``rulebook-en: "..."`` (or
summary-en, endgame-en, rules-fr, or one of the reference card files: specials.csv,
groups.csv, illuminati.csv). ``...`` inside a quote skips words. The comparison ignores
white space, case and typographic quotes and dashes, because the rulebook text was
extracted from a two-column layout.
"""

from __future__ import annotations

import ast
import fnmatch
import re
from functools import cache
from pathlib import Path

import pytest
from support import REFERENCE, TESTS

SOURCES = {
    "rulebook-en": REFERENCE / "rules" / "rulebook-en.txt",
    "summary-en": REFERENCE / "rules" / "summary-en.txt",
    "endgame-en": REFERENCE / "rules" / "endgame-en.txt",
    "rules-fr": REFERENCE / "rules" / "rules-fr.txt",
    "specials.csv": REFERENCE / "specials.csv",
    "groups.csv": REFERENCE / "groups.csv",
    "illuminati.csv": REFERENCE / "illuminati.csv",
    "DESIGN.md": REFERENCE.parent / "DESIGN.md",
}
QUOTE = re.compile(r"(rulebook-en|summary-en|endgame-en|rules-fr|specials\.csv|groups\.csv|"
                   r"illuminati\.csv|DESIGN\.md): \"(.+?)\"(?=\s|$|[),;])", re.S)
TRANSLATE = str.maketrans({"’": "'", "‘": "'", "“": '"', "”": '"', "–": "-", "—": "-",
                           "«": '"', "»": '"', "\u00a0": " "})


def normal(text: str) -> str:
    """The text without white space, in lower case, with plain quotes and dashes."""
    return re.sub(r"\s+", "", text.translate(TRANSLATE)).lower()


@cache
def source_text(name: str) -> str:
    return normal(SOURCES[name].read_text(encoding="utf-8"))


def quoted(source: str, quote: str) -> bool:
    """The quote's pieces (split at ``...``) appear in the source, in order."""
    text = source_text(source)
    at = 0
    for piece in quote.split("..."):
        piece = normal(piece)
        if not piece:
            continue
        found = text.find(piece, at)
        if found < 0:
            return False
        at = found + len(piece)
    return True


def rule_tests() -> list[tuple[str, str]]:
    """(test id, docstring) of every test function in the rule-case files."""
    out = []
    for path in sorted(TESTS.rglob("test_rules_*.py")):
        if path.name == Path(__file__).name:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in tree.body:
            if isinstance(node, ast.FunctionDef) and node.name.startswith("test_"):
                out.append((f"{path.stem}::{node.name}", ast.get_docstring(node) or ""))
    return out


RULE_TESTS = rule_tests()
needs_texts = pytest.mark.skipif(not REFERENCE.exists(),
                                 reason="the reference rules texts are not here")


@needs_texts
@pytest.mark.parametrize(("test", "doc"), RULE_TESTS, ids=[t for t, _ in RULE_TESTS])
def test_rule_case_quotes_its_rule(test: str, doc: str) -> None:
    """Each rule-case test quotes at least one rules sentence, and every quote is found."""
    quotes = QUOTE.findall(doc)
    assert quotes, f"{test} quotes no rule (write: rulebook-en: \"...\")"
    for source, quote in quotes:
        assert len(normal(quote)) >= 20, f"{test}: quote a whole sentence, not {quote!r}"
        assert quoted(source, quote), f"{test}: not found in {source}: {quote!r}"


@needs_texts
def test_the_quote_check_refuses_a_misquote() -> None:
    """A sentence the rulebook does not hold is refused; a real one, reflowed, is found."""
    assert not quoted("rulebook-en", "A roll of 10 results in automatic failure")
    assert quoted("rulebook-en", "A roll of 11 or 12 results in\n   automatic failure")
    assert quoted("rulebook-en", "Automatic Failure. ... no matter how much Power was involved")
    assert not quoted("rulebook-en", "Whispering Campaign ... A card with no Power cannot attack")
    # A quote may open quotation marks of its own: it ends only at a mark followed by a
    # space, the end, or ")", "," or ";".
    doc = 'rulebook-en: "which becomes its new "master." ' + '"""'
    assert QUOTE.findall(doc) == [("rulebook-en", 'which becomes its new "master.')]
    assert quoted("rulebook-en", 'which becomes its new "master.')


COVERAGE = TESTS.parent / "docs" / "rules-coverage.md"


def test_the_coverage_map_and_the_rule_cases_agree() -> None:
    """docs/rules-coverage.md names only rule cases that exist (``topic::test``, ``*``
    allowed), and every rule case is named there at least once."""
    refs = re.findall(r"`([a-z]+)::([a-z0-9_*]+)(?:\[[^\]]*\])?`", COVERAGE.read_text())
    cases: dict[str, list[str]] = {}
    for test, _ in RULE_TESTS:
        module, name = test.split("::")
        cases.setdefault(module.removeprefix("test_rules_"), []).append(name)
    unknown = [f"{t}::{n}" for t, n in refs if not fnmatch.filter(cases.get(t, []), n)]
    assert not unknown, f"the coverage map names tests that do not exist: {unknown}"
    named = {(t, m) for t, n in refs for m in fnmatch.filter(cases.get(t, []), n)}
    missing = [f"{t}::{n}" for t, names in cases.items() for n in names if (t, n) not in named]
    assert not missing, f"rule cases missing from the coverage map: {missing}"


def test_there_are_enough_rule_cases() -> None:
    """The rule cases cover the rules broadly: at least 150 of them."""
    assert len(RULE_TESTS) >= 150
