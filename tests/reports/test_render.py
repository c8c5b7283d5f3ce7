"""Rendering made cheaper, never different: the ``hang`` filter wraps exactly as the Jinja
macro it replaced did, and a reader of plain text gets the same mail without its HTML part."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import jinja2
import jinja2.runtime
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from markupsafe import Markup
from scripted_game import CARDS, DEADLINE, NOW, first, steps, turn_of

from pbem.engine.events import event_of
from pbem.reports import mails as reports
from pbem.reports import templating as render
from pbem.reports.templating import environment, hang, template

# The macro on Jinja's own ``wordwrap``: the reference for every byte. A word longer than
# the line (a file's path, an address) stays whole: a reader copies it.
REFERENCE = jinja2.Environment(keep_trailing_newline=True).from_string(
    '{% for line in (text | wordwrap(width - ([first | length, rest | length] | max), '
    'break_long_words=False, break_on_hyphens=False)).split("\\n") %}{{ "\\n" if not loop.first }}'
    '{{ ((first if loop.first else rest) ~ line) | trim("\\n") }}{% endfor %}')

# Words, hyphens, every kind of blank and line break, French no-break spaces.
TEXT = st.lists(st.sampled_from([
    "a", "b", "-", "é", ".", " ", "  ", "\t", "\n", "\r", "\r\n", "\x0b", "\x0c", "\x1c", "\x85",
    "\u2028", "\xa0", "\u202f", "x" * 30]), max_size=40).map("".join)
LEAD = st.sampled_from(["", "- ", "  ", "    OK: ", "Line 12: ", "\n", "# "])


@settings(max_examples=600, deadline=None)
@given(TEXT, LEAD, LEAD, st.sampled_from([78, 30, 12]))
def test_hang_gives_what_wordwrap_gave(text: str, first: str, rest: str, width: int) -> None:
    expected = REFERENCE.render(text=text, first=first, rest=rest, width=width)
    assert hang(text, first, rest, width) == expected


def test_the_macros_wrap_through_the_filter() -> None:
    """``hang``, ``para`` and ``item`` of the text blocks, as other templates call them."""
    text = "word " * 30
    for lang in ("en", "fr"):
        blocks = template("_blocks.txt.j2", lang).module
        assert blocks.hang("Line 1: ", "    ", text) == hang(text, "Line 1: ", "    ")
        assert blocks.para(text) == REFERENCE.render(text=text, first="", rest="", width=78)
        assert blocks.item(text) == REFERENCE.render(text=text, first="- ", rest="  ",
                                                     width=78)


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_a_plain_text_reader_gets_the_same_mail_without_html(lang: str) -> None:
    state = steps()[first("report")].state
    for role in ("active", "other"):
        who = turn_of(state, role)
        full = reports.turn_report(CARDS, state, who, (), now=NOW, deadline=DEADLINE, lang=lang)
        plain = reports.turn_report(CARDS, state, who, (), now=NOW, deadline=DEADLINE,
                                    lang=lang, html=False)
        assert full.html and plain.html == ""
        assert (plain.subject, plain.text, plain.attachments) == (
            full.subject, full.text, full.attachments)


def test_compiled_templates_are_kept_and_a_cache_that_fails_costs_nothing(
        tmp_path: Path) -> None:
    """A template compiled once is kept for the next process; a cache folder that cannot
    be written (gone, or a full disk) does not stop a mail being rendered."""
    source = {"t.txt.j2": "{{ x }}!"}
    kept = jinja2.Environment(loader=jinja2.DictLoader(source),
                              bytecode_cache=render._CompiledTemplates(str(tmp_path)))
    assert kept.get_template("t.txt.j2").render(x=1) == "1!"
    # Compiled code depends on the filters too: the name carries the digest of their module.
    digest = hashlib.sha256(Path(render.__file__).read_bytes()).hexdigest()[:16]
    assert [p.name.startswith(f"__pbem_{digest}_") for p in tmp_path.iterdir()] == [True]
    broken = jinja2.Environment(
        loader=jinja2.DictLoader(source),
        bytecode_cache=render._CompiledTemplates(str(tmp_path / "gone")))
    assert broken.get_template("t.txt.j2").render(x=2) == "2!"
    assert environment().bytecode_cache is not None


# ``one_stop`` as it was written first, its pattern led by the look-behind: the reference.
ONE_STOP_REFERENCE = re.compile(r"(?<=\b[A-Z]\.)((?:</[a-z]+>)*)\.(?!\.)")
STOPS = st.lists(st.sampled_from(["A", "B", "a", "É", "1", "_", ".", "..", " ", "\n", "<b>",
                                  "</b>", "</strong>", "C.I.A."]), max_size=16).map("".join)


@pytest.mark.parametrize(("text", "fixed"), [
    ("to C.I.A..", "to C.I.A."), ("<strong>C.I.A.</strong>.", "<strong>C.I.A.</strong>"),
    ("A.</b></i>. Next", "A.</b></i> Next"), ("Plan B...", "Plan B..."), ("e.g.. x", "e.g.. x"),
    ("XA.. B.", "XA.. B."), ("S.M.O.F.. C.I.A..", "S.M.O.F. C.I.A.")])
def test_one_full_stop_is_dropped_after_an_abbreviation_only(text: str, fixed: str) -> None:
    assert render.one_stop(text) == fixed
    assert isinstance(render.one_stop(Markup(text)), Markup)


@given(STOPS)
@settings(max_examples=400, deadline=None)
def test_one_stop_drops_what_the_reference_drops(text: str) -> None:
    """The pattern led by the full stop (so the regex engine skips from one "." to the next)
    drops the very full stops the look-behind-led one did."""
    assert render.one_stop(text) == ONE_STOP_REFERENCE.sub(r"\1", text)


def test_a_render_s_fixed_costs_are_paid_once(tmp_path: Path) -> None:
    """A site's template may still call Jinja's globals (range, namespace...); each template
    holds them in a dictionary of its own, not the ChainMap each render would copy. A
    template loaded is kept by its name; a site's template still wins over ours."""
    ranges = environment().from_string("{{ range(3) | list }} {{ namespace(a=1).a }}")
    assert ranges.render() == "[0, 1, 2] 1"
    help_template = template("help.txt.j2")
    assert type(help_template.globals) is dict
    assert environment().get_template("help.txt.j2", "error.txt.j2") is help_template
    (tmp_path / "en").mkdir()
    (tmp_path / "en" / "help.txt.j2").write_text("site help")
    site = environment(str(tmp_path))
    assert site.get_template("help.txt.j2").render() == "site help"
    kept = site.get_template("help.txt.j2")
    assert site.cache is not None
    site.cache.clear()  # Jinja's own cache, where it would look first
    assert site.get_template("help.txt.j2") is kept


@pytest.mark.parametrize(("lang", "ends"), [("en", "to C.I.A."), ("fr", "à C.I.A.")])
def test_a_sentence_ending_in_an_abbreviation_has_one_full_stop(lang: str, ends: str) -> None:
    module = template("_events.txt.j2", lang).module
    text = module.event(event_of("transfer", {"player": "carol", "amount": 4,  # type: ignore[attr-defined]
                                           "from": "The UFOs", "to": "C.I.A."}))
    assert text.endswith(ends), text


def test_the_press_form_is_worded_in_french_for_a_french_reader() -> None:
    """The PRESS TO form's prose (the message, then END PRESS) follows the reader's
    language; the order words stay English, and the English form is unchanged."""
    from pbem.orders.line import ORDER_FORMS

    (form,) = ORDER_FORMS["press to"]
    assert form.endswith(", then the message, then END PRESS")
    refusals = template("_parser_refusals.txt.j2", "fr").module
    said = [str(refusals.suggestion("write_as", {"usage": form})),  # type: ignore[attr-defined]
            str(refusals.suggestion("write_as_forms",  # type: ignore[attr-defined]
                                    {"forms": [form, "STATUS"]}))]
    for text in said:
        assert "PRESS TO <player>[, <player>...]|ALL, puis le message, puis END PRESS" in text
        assert "then" not in text
