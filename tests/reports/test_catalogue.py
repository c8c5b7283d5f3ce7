"""One catalogue of player words per language: every key the code raises has its wording in
English and in French, each language words exactly the keys the code raises, and a key no
catalogue has is an error, never a silent fallback to another language.

The keys are read from the code (``ast``), where the errors are raised: the rules engine's
``IllegalCommandError(key=...)`` (``_engine_refusals``), the service's ``refused(key, ...)``
(``_refusals``), the order parser's errors, failures and hints (``_parser_refusals``:
messages by ``key``, suggestions by ``hint`` or ``Hint``'s key), and an unreadable mail's
``MailFormatError(key=...)`` (``_mail_refusals``).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any, get_args

import pytest
from babel.messages.catalog import Catalog

import pbem
from pbem.errors import IllegalCommandError, OrderSyntaxError, UnknownNameError
from pbem.refusal_keys import EngineKey, MailKey, ParserHint, ParserKey, ServiceKey
from pbem.reports.catalogues import catalogue_path, read_catalogue
from pbem.reports.languages import LANGUAGES, LOCALE, SOURCE_LANGUAGE
from pbem.reports.mails import mail
from pbem.reports.refusals import UnknownRefusal, worded, wording
from pbem.reports.templating import environment, template
from pbem.reports.translating import problems, template_messages
from pbem.service.order_refusals import refused

PACKAGE = Path(pbem.__file__).parent
SOURCES = sorted(PACKAGE.rglob("*.py"))

ENGINE, PARSER, SERVICE = "_engine_refusals", "_parser_refusals", "_refusals"
MAIL = "_mail_refusals"
PARSER_ERRORS = {"fail", "OrderSyntaxError", "UnknownNameError", "AmbiguousNameError",
                 "AmbiguousOrderError", "kind_of"}
NOT_WORDS = {"key", "hint", "line", "text", "suggestion", "ambiguous", "unknown", "hinted",
             "weak", "words"}
CLASSES = {"IllegalCommandError": ENGINE, "ServiceRefusal": SERVICE, "MailFormatError": MAIL}
ALL = "*"  # a site whose words are given as a mapping: any sample word may be in it

# A value for every word a raise site gives (a new word needs a sample here).
SAMPLES: dict[str, Any] = {
    "active": "Alice", "aid": "Junk Mail", "another": True, "alignment": "Weird", "amount": 9,
    "arrow": 1, "arrows": (0, 2), "attacker": "The Mafia", "card": "Bribery",
    "cards": ["Assassination", "Murphy's Law"], "dest": "Empty Vee", "expected": ["CONTROL"],
    "first": "PLAY", "first_line": 1, "form": "GAME <game> PLAYER <name> PASSWORD <password>",
    "forms": ["STANDING LIST", "STANDING CLEAR"], "found": "Bribery", "found_kind": "special",
    "giver": "Bob", "goal": "The Network", "goals": ("The Network", "The Gnomes of Zurich"),
    "group": "Feminists", "have": 3, "illuminati": "The Network",
    "instead": "ATTACK Feminists WITH The Network SPEND 3", "keyword": "SPEND",
    "keywords": ["PASS"], "least": 1, "length": 240, "master": "The Network", "missing":
    ["ON <group>"], "more": 0, "most": 32, "next_line": 2, "name": "Carol",
    "names": ["The Mafia"], "number": 2,
    "order": "PASS", "other": "Dee", "other_have": 4, "owner": "Bob", "phase": "actions",
    "player": "Bob", "purpose": "wait for the roll", "query": "'Mafai'", "quote": "»",
    "receiver": "Bob", "shield": "The Discordian Society", "shown": "'x'", "side": "ASSIST",
    "source": "The Network", "sources": ("The Mafia", "The Network"), "status": "left",
    "target": "Feminists", "typed": "'spnd'", "usage": "PASS", "value": 0,
    "size": 5121, "limit": 5120, "parts": 152, "lines": 10000, "damage": ["mime-base64"],
    "quoted": True, "left": 1, "groups": 2, "playing": ["Alice", "Bob"],
    "example": "GAME <game> PLAYER <name> PASSWORD <password>", "ended_at": 3,
    "what": "the MB to spend", "where": "after the attacking group", "days": 10, "used": 6,
    "game": "illu", "language": "it",
}


def _strings(node: ast.expr) -> list[str]:
    return [n.value for n in ast.walk(node) if isinstance(n, ast.Constant)
            and isinstance(n.value, str) and re.fullmatch(r"[a-z_]+", n.value)]


def _words(call: ast.Call) -> set[str]:
    """The words a call gives: its keyword arguments, or a ``words`` mapping's keys."""
    given = {k.arg for k in call.keywords if k.arg is not None} - NOT_WORDS
    for k in call.keywords:
        if k.arg is None:
            given.add(ALL)
        elif k.arg == "words":
            if isinstance(k.value, ast.Dict) and all(key is not None for key in k.value.keys):
                given.update(key.value for key in k.value.keys
                             if isinstance(key, ast.Constant))
            else:
                given.add(ALL)
    return given


def _name(call: ast.Call) -> str:
    func = call.func
    return func.id if isinstance(func, ast.Name) else (
        func.attr if isinstance(func, ast.Attribute) else "")


Raised = dict[tuple[str, str], dict[str, set[str]]]


def _raised() -> Raised:
    """For each catalogue and macro (``message`` or ``suggestion``), the keys raised, each
    with the words its sites give. A suggestion has its own key only in the order parser's
    catalogue; the others suggest by the message's key."""
    found: Raised = {}

    def add(catalogue: str, macro: str, key: str, words: set[str]) -> None:
        found.setdefault((catalogue, macro), {}).setdefault(key, set()).update(words)

    for path in SOURCES:
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.Call):
                name, given = _name(node), _words(node)
                kw = {k.arg: k.value for k in node.keywords}
                if name in CLASSES and "key" in kw:
                    catalogue = CLASSES[name]
                    for key in _strings(kw["key"]):
                        add(catalogue, "message", key, given)
                elif name == "refused" and node.args:
                    for key in _strings(node.args[0]):
                        add(SERVICE, "message", key, given)
                elif name in PARSER_ERRORS and path.parent.name == "orders":
                    # (``Reader.fail(pos, key, hint, words=...)``; the errors by keywords)
                    keys = node.args[1] if name == "fail" and len(node.args) > 1 else kw.get("key")
                    for key in _strings(keys) if keys is not None else ():
                        add(PARSER, "message", key, given)
                    for key in _strings(kw["hint"]) if "hint" in kw else ():
                        add(PARSER, "suggestion", key, given)
                elif name == "Hint" and node.args and path.parent.name == "orders":
                    words = node.args[1] if len(node.args) > 1 else None
                    for key in _strings(node.args[0]):
                        add(PARSER, "suggestion", key, {
                            k.value for k in (words.keys if isinstance(words, ast.Dict) else [])
                            if isinstance(k, ast.Constant)})
            elif isinstance(node, ast.Assign) and path.parent.name == "orders":
                # ``key = "name_not_here"``, ``suggestion, hint = ..., "write_as"``
                for target in node.targets:
                    pairs = (zip(target.elts, node.value.elts, strict=False)
                             if isinstance(target, ast.Tuple)
                             and isinstance(node.value, ast.Tuple)
                             else [(target, node.value)])
                    for var, value in pairs:
                        if isinstance(var, ast.Name) and var.id in ("key", "hint"):
                            macro = "message" if var.id == "key" else "suggestion"
                            for key in _strings(value):
                                add(PARSER, macro, key, set())
    return found


RAISED = _raised()
# The order parser words a name's errors with what it read (``what``) and the query.
COMPOSED = {PARSER: {"what", "query"}}


def _source(lang: str, catalogue: str) -> str:
    env = environment(None, lang)
    assert env.loader is not None
    return env.loader.get_source(env, f"{catalogue}.txt.j2")[0]


def _worded_keys(lang: str, catalogue: str, macro: str) -> set[str]:
    """The keys a catalogue's ``macro`` words, as its template names them."""
    text = _source(lang, catalogue)
    start = text.index(f"{{% macro {macro}(key, d)")
    body = text[start:text.index("{%- endmacro %}", start)]
    return set(re.findall(r'key == "(\w+)"', body))


def _samples(catalogue: str, words: set[str]) -> dict[str, Any]:
    if ALL in words:
        return dict(SAMPLES)
    return {w: SAMPLES[w] for w in words | COMPOSED.get(catalogue, set())}


def _cases(macro: str) -> Iterator[Any]:
    for (catalogue, kind), keys in sorted(RAISED.items()):
        if kind == macro:
            for key in sorted(keys):
                for lang in LANGUAGES:
                    yield pytest.param(lang, catalogue, key, id=f"{lang}{catalogue}:{key}")


def test_the_scan_finds_the_raise_sites() -> None:
    """The keys are found where the errors are raised (a scan that found none would pass
    everything below)."""
    assert len(RAISED[ENGINE, "message"]) > 80
    assert {"not_in_structure", "money_short"} <= set(RAISED[ENGINE, "message"])
    assert RAISED[ENGINE, "message"]["not_in_structure"] == {"card", "player"}
    assert {"no_window", "not_held", "defence_short"} <= set(RAISED[SERVICE, "message"])
    assert {"unknown_name", "expected", "unknown_order", "unreadable"} <= set(
        RAISED[PARSER, "message"])
    assert {"did_you_mean", "write_as", "keyword_instead"} <= set(RAISED[PARSER, "suggestion"])
    assert RAISED[MAIL, "message"]["damaged"] == {"damage", "example"}


# The closed set of keys of each catalogue (``pbem.refusal_keys``): mypy checks every raise
# site against it, this file checks it against the catalogues.
CLOSED: dict[tuple[str, str], set[str]] = {
    (ENGINE, "message"): set(get_args(EngineKey)),
    (SERVICE, "message"): set(get_args(ServiceKey)),
    (PARSER, "message"): set(get_args(ParserKey)),
    (PARSER, "suggestion"): set(get_args(ParserHint)),
    (MAIL, "message"): set(get_args(MailKey)),
}


@pytest.mark.parametrize("catalogue", [ENGINE, SERVICE, PARSER, MAIL])
@pytest.mark.parametrize("lang", LANGUAGES)
def test_each_language_words_exactly_the_closed_set_of_keys(lang: str, catalogue: str) -> None:
    """No key of the closed set lacks its reason in a language, and no reason waits for a
    key outside it (a key renamed on one side only fails here, or in mypy)."""
    keys = CLOSED[catalogue, "message"]
    assert _worded_keys(lang, catalogue, "message") == keys
    suggested = _worded_keys(lang, catalogue, "suggestion")
    assert suggested <= keys | CLOSED.get((catalogue, "suggestion"), set())


@pytest.mark.parametrize("known", sorted(CLOSED))
def test_every_key_of_the_closed_set_is_raised_somewhere(known: tuple[str, str]) -> None:
    """A key no code raises is dead wording: the closed set is exactly what the raise sites
    use (the scan above finds them, with the words each gives)."""
    assert set(RAISED.get(known, {})) == CLOSED[known]


@pytest.mark.parametrize(("lang", "catalogue", "key"), list(_cases("message")))
def test_every_key_raised_renders_with_the_words_its_sites_give(lang: str, catalogue: str,
                                                                 key: str) -> None:
    """Rendered with the words its raise sites give (the environment is strict: a word the
    site does not give is an error), each key has a reason; where one language suggests
    what to write instead, so does the other."""
    words = _samples(catalogue, RAISED[catalogue, "message"][key])
    message, suggestion = wording(lang, catalogue, key, words)
    assert message
    other = next(other for other in LANGUAGES if other != lang)
    assert bool(suggestion) == bool(wording(other, catalogue, key, words)[1])


@pytest.mark.parametrize(("lang", "catalogue", "key"), list(_cases("suggestion")))
def test_every_suggestion_the_parser_makes_renders(lang: str, catalogue: str,
                                                   key: str) -> None:
    words = _samples(catalogue, RAISED[catalogue, "suggestion"][key])
    module: Any = template(f"{catalogue}.txt.j2", lang).module
    assert str(module.suggestion(key, words)).strip(), key


@pytest.mark.parametrize("lang", LANGUAGES)
def test_a_key_no_catalogue_has_is_an_error_in_every_language(lang: str) -> None:
    """A mistyped key is found when it is first worded, in English as in French, not sent
    to a player as another language's words or as a blank."""
    for error in (IllegalCommandError(key="no_such_key", card="Bribery"),
                  refused("no_such_key")):
        with pytest.raises(UnknownRefusal, match="no_such_key"):
            worded(error, lang)
    with pytest.raises(UnknownRefusal):
        worded(UnknownNameError(key="no_such_key", what="group"), "fr")


def test_an_error_with_no_key_is_the_game_masters_and_keeps_its_english() -> None:
    plain = OrderSyntaxError("no key at all", suggestion="ask")
    assert worded(plain, "fr") == ("no key at all", "ask")


def test_a_keyed_error_takes_values_not_english() -> None:
    """A key and an English message in one error would be two wordings that can drift."""
    with pytest.raises(TypeError, match="catalogue"):
        IllegalCommandError("you cannot give money to yourself", key="gift_to_self")


def test_the_english_of_an_engine_refusal_is_its_catalogues() -> None:
    """The engine raises a key and values only; its ``str`` (for a log, the game master, a
    test) is the English catalogue's words."""
    error = IllegalCommandError(key="money_short", card="The Network", have=18, amount=99)
    assert error.message == "The Network has only 18 MB, not 99"
    assert error.suggestion == "spend at most 18 MB"
    assert str(error) == "The Network has only 18 MB, not 99 spend at most 18 MB"
    assert worded(error, "fr")[0] == "The Network n'a que 18\xa0MB, pas 99"


def test_an_amount_of_money_keeps_its_unit_on_its_line() -> None:
    """French typography puts a no-break space between a number and its unit, as the
    reports write money ("3\xa0MB"): every refusal of the rules and of the parser, and every
    thing the parser names."""
    said: list[str] = []
    for catalogue in (ENGINE, PARSER):
        module: Any = template(f"{catalogue}.txt.j2", "fr").module
        for macro in ("message", "suggestion"):
            keys = RAISED[catalogue, macro if catalogue == PARSER else "message"]
            for key, words in keys.items():
                said.append(str(getattr(module, macro)(key, _samples(catalogue, words))))
        if catalogue == PARSER:
            said.extend(module.things.values())
    assert sum(bool(re.search(r"\d\sMB", text)) for text in said) >= 5
    assert [text for text in said if re.search(r"[\d?] MB", text)] == []


# The templates that word refusals: the four catalogues, and the mails that carry a refusal.
REFUSAL_TEMPLATES = {f"{c}.txt.j2" for c in (ENGINE, PARSER, SERVICE, MAIL)} | {
    f"{mail}{kind}" for mail in ("error", "order_failed")
    for kind in (".txt.j2", ".html.j2", ".subject.txt.j2")}
TRANSLATED = [lang for lang in LANGUAGES if lang != SOURCE_LANGUAGE]


def _refusal_messages() -> Catalog:
    """The messages of the refusal templates, as the translators' catalogues hold them."""
    ours = Catalog()
    for message in template_messages():
        if any(Path(where).name in REFUSAL_TEMPLATES for where, _line in message.locations):
            ours.add(message.id, locations=message.locations, context=message.context)
    return ours


def test_the_refusal_templates_are_found_in_the_catalogues() -> None:
    """The scan below reads the refusal templates' messages (one that found none would pass
    everything): each key's reason and suggestion is a message."""
    ours = _refusal_messages()
    assert len(ours) > 300
    assert ("{card} has only {have} MB, not {amount}", None) in {(m.id, m.context)
                                                                  for m in ours}


@pytest.mark.parametrize("lang", TRANSLATED)
def test_every_message_of_the_refusals_is_translated_in_every_shipped_language(
        lang: str) -> None:
    """What ``pbem catalogue check`` finds, for the refusals: a message a language lacks
    (a reason left in English in its mail), leaves fuzzy, or whose placeholders are not the
    original's."""
    catalogue = read_catalogue(catalogue_path(LOCALE, lang))
    assert [(p.message, p.wrong.value, p.detail)
            for p in problems(catalogue, _refusal_messages())] == []


# The words a key's suggestion gives that are order words only: the same in every language.
ORDER_WORDS_ONLY = {(ENGINE, "pass_late"), (SERVICE, "attack_short"),
                    (SERVICE, "defence_short_both")}


@pytest.mark.parametrize(("lang", "catalogue", "key"),
                         [c for c in _cases("message") if c.values[0] in TRANSLATED])
def test_no_refusal_keeps_its_english_in_another_language(lang: str, catalogue: str,
                                                          key: str) -> None:
    """Each key's reason, and its suggestion where it has words and not only order words,
    reads in the reader's language, not in English."""
    words = _samples(catalogue, RAISED[catalogue, "message"][key])
    message, suggestion = wording(lang, catalogue, key, words)
    english = wording(SOURCE_LANGUAGE, catalogue, key, words)
    assert message != english[0]
    if suggestion and (catalogue, key) not in ORDER_WORDS_ONLY:
        assert suggestion != english[1]


@pytest.mark.parametrize("lang", TRANSLATED)
def test_every_suggestion_of_the_parser_reads_in_the_readers_language(lang: str) -> None:
    module: Any = template(f"{PARSER}.txt.j2", lang).module
    english: Any = template(f"{PARSER}.txt.j2", SOURCE_LANGUAGE).module
    same = [key for key, words in RAISED[PARSER, "suggestion"].items()
            if str(module.suggestion(key, _samples(PARSER, words)))
            == str(english.suggestion(key, _samples(PARSER, words)))]
    assert same == []


def _refusal_mails(lang: str) -> Iterator[Any]:
    """The error mail for each problem, and an order refused when its moment came."""
    until = {"utc": "2026-12-04T18:00:00+00:00", "local": "2026-12-04 19:00",
             "tz": "Europe/Paris"}
    for problem in ("unknown_game", "flooding", "hushed", "failed", "auth_failed", "unread"):
        yield mail("error", lang, None, html=True, problem=problem, game="illu",
                   games=["illu"], limit=20, minutes=60, until=until, message="",
                   suggestion="", start_game="")
    yield mail("order_failed", lang, None, html=True, game="illu", player="Carol",
               data={"reason": "r", "line": 3, "order": "PASS", "suggestion": "END TURN",
                     "skipped": [(4, "END TURN")]}, goes_on=None)


@pytest.mark.parametrize("lang", TRANSLATED)
def test_the_mails_that_carry_a_refusal_keep_no_english(lang: str) -> None:
    """No sentence of the English error and order-failed mails is left in another
    language's (subject, text and HTML)."""
    for english, other in zip(_refusal_mails(SOURCE_LANGUAGE), _refusal_mails(lang),
                              strict=True):
        sentences = [s.strip() for s in re.split(r"[.:]\s", " ".join(english.text.split()))
                     if re.search(r"\b(the|your|you|not|was|is|are)\b", s)]
        assert sentences
        said = " ".join(other.text.split()) + " ".join((other.html or "").split())
        assert [s for s in sentences if s in said] == [], english.subject
        assert other.subject != english.subject
