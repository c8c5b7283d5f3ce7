"""No English of ours in a mail of another language (issue 42): every golden mail of each
language with a catalogue is read for the English of the templates' messages
(``english_left``)."""

from __future__ import annotations

import pytest
from english_left import english, english_left
from support import TESTS

from pbem.reports.languages import LANGUAGES, SOURCE_LANGUAGE

GOLDEN = TESTS / "golden" / "reports"
TRANSLATED = sorted(lang for lang in LANGUAGES if lang != SOURCE_LANGUAGE)


def test_the_english_runs_are_found() -> None:
    """The check finds the English it looks for, and an English golden fails it: a check
    that found nothing would pass every mail."""
    for lang in TRANSLATED:
        assert "No order lines were found" in english(lang)
        assert len(english(lang)) > 500
        english_golden = GOLDEN / "turn_report-offered-Chloé.en.txt"
        assert len(english_left(english_golden.read_text(encoding="utf-8"), lang)) > 20


@pytest.mark.parametrize("lang", TRANSLATED)
def test_no_golden_mail_of_a_translated_language_holds_our_english(lang: str) -> None:
    goldens = sorted(GOLDEN.glob(f"*.{lang}.*"))
    assert len(goldens) >= 40, f"the golden mails in {lang}"
    left = {path.name: found for path in goldens
            if (found := english_left(path.read_text(encoding="utf-8"), lang,
                                      is_html=path.suffix == ".html"))}
    assert left == {}
