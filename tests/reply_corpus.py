"""Order mails built from the test data of public reply parsers (tests/mail/corpus), and
from the shapes their clients write in each language (issue 35).

Each fixture of tests/mail/corpus/<project>/fixtures is a reply as a mail client wrote it:
the person's text, maybe a signature, then the mail it answers (quote header, quote marks,
disclaimer, in its language, charset and HTML). ``tests/mail/corpus/replies.json`` says,
for each, where the quoted original begins (``quote``, a line index, reviewed by hand) and,
where the signature's start is not the first line of the last short paragraph before it,
where the person's own closing words begin (``own``); for an HTML fixture, the text of the
reply (``reply``) and the first words of the quoted mail (``quoted``).

A built reply keeps that structure and changes two things: the person's text becomes a
player's orders (a start line and a few orders, with END or not), and lines of the game's own
mails (the report's lines to copy, its odds lines, its form) go into the quoted part, below
its header and at its end. Variations, each from a seed: the quoted part as written,
stripped of its ">" marks, rewrapped at 72 columns, re-indented, flattened (no marks, no
indentation), or trimmed to its header and the game's lines; the player's closing words
in a language's sign-off or phone signature; plain text in the fixture's charset (8bit or
quoted-printable) or HTML only. Beside the
fixtures, ``generated`` builds replies from the attribution, header-block and separator
shapes of the clients of each language (``CLIENTS``), written from what those clients send,
not from the reader's tables.

A reply is read as meant when the orders read are exactly the player's, and every line
refused is the player's own words (or the line where the reading stopped, saying that END
was missing); a quoted line run is an order read that the player did not write.
"""

from __future__ import annotations

import email.message
import email.policy
import html
import json
import quopri
import random
import re
import textwrap
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

CORPUS = Path(__file__).parent / "mail" / "corpus"
PLAYERS = ("Alice", "Bob", "Chloé")
START = "GAME illu1 PLAYER Bob PASSWORD reed-55"

# The player's orders, none of them a line the game's mails suggest.
ORDERS = (
    "PASS",
    "TRANSFER 2 FROM The Gnomes of Zurich TO Hollywood",
    "GIVE 2 MB TO Alice",
    "MOVE Hollywood TO The Gnomes of Zurich RIGHT",
    "ATTACK The Gnomes of Zurich CONTROL Hackers",
    "DROP Hackers",
)
# Lines of the game's own mails (tests/golden/reports, checked by tests/mail/test_corpus.py),
# as a reply quotes them: a few lines of prose, then lines that read as orders (the odds
# lines keep the no-break space the mails put before "MB").
GAME_LINES: tuple[tuple[str, ...], ...] = (
    ("- Phone Phreaks, to control: need 5 or less (28%); 2\u00a0MB more for 7 (58%); 5\u00a0MB",
     "  more for 10 (92%).",
     "    ATTACK The UFOs CONTROL Phone Phreaks"),
    ("- California, to control: need 2 or less (3%); 5\u00a0MB more for 7 (58%); 8\u00a0MB",
     "  more for 10 (92%).",
     "    ATTACK The UFOs CONTROL California"),
    ("GAME illu1 PLAYER Bob PASSWORD ______ STEP 32",
     "    ATTACK The UFOs DESTROY Fraternal Orders"),
    ("    DEFEND 1 FROM The UFOs",
     "    NO RESPONSE"),
    ("    ATTACK The UFOs DESTROY TV Preachers",),
)
GAME_ORDERS = frozenset(line.strip() for lines in GAME_LINES for line in lines
                        if line.startswith("    "))

# What a player writes after the orders, by language: sign-offs and phones' signatures.
CLOSINGS: dict[str, tuple[str, ...]] = {
    "en": ("Thanks,\nBob", "Best regards,\nBob Meyer", "Cheers", "Sent from my iPhone",
           "Sent from my Wiko", "Get Outlook for Android"),
    "fr": ("Cordialement,\nChloé", "Bien à vous", "Envoyé de mon iPhone"),
    "de": ("Viele Grüße\nBernd", "Mit freundlichen Grüßen", "Gesendet von Outlook für Android",
           "Von meinem iPhone gesendet"),
    "es": ("Saludos,\nLucía", "Un saludo", "Enviado desde mi iPhone"),
    "it": ("Cordiali saluti", "Inviato da iPhone"),
    "pt": ("Abraços,\nJoão", "Enviado do meu iPhone"),
    "nl": ("Met vriendelijke groet,\nJan", "Verzonden vanaf mijn iPhone"),
    "da": ("Hilsen\nOle", "Mvh\nOle", "Med venlig hilsen\nOle Hansen", "Sendt fra min iPhone"),
    "sv": ("Med vänliga hälsningar\nAnna", "Mvh Anna", "Skickat från min iPhone"),
    "no": ("Hilsen\nKari", "Mvh\nKari", "Sendt fra min iPhone"),
    "fi": ("Terveisin\nMatti", "Lähetetty iPhonesta"),
    "pl": ("Pozdrawiam\nJan", "Z poważaniem\nJan Kowalski", "Wysłano z iPhone'a"),
    "ru": ("С уважением,\nИван", "Отправлено с iPhone"),
    "uk": ("З повагою,\nОлена", "Надіслано з iPhone"),
    "zh": ("谢谢", "发自我的iPhone"),
    "ja": ("よろしくお願いします", "iPhoneから送信"),
}

# The quote headers the clients of each language write, as they write them ({n}: a name,
# {a}: an address). Each line of a value is a line of the header.
CLIENTS: dict[str, dict[str, tuple[str, ...]]] = {
    "en": {
        "gmail": ("On Mon, Jun 2, 2025 at 9:00 PM {n} <{a}> wrote:",
                  "On Mon, Jun 2, 2025 at 9:00 PM {n} <\n{a}> wrote:"),
        "apple": ("On 2 Jun 2025, at 21:00, {n} <{a}> wrote:",
                  "On Jun 2, 2025, at 9:00 PM, {n}\n<{a}>\nwrote:"),
        "polymail": ("On Mon, Jun 2, 2025 at 9:00 PM {n}\n<\nmailto:{a}\n> wrote:",),
        "thunderbird": ("On 02/06/2025 21:00, {n} wrote:",),
        "outlook": ("-----Original Message-----\nFrom: {n} <{a}>\nSent: Monday, June 2, 2025 "
                    "9:00 PM\nTo: Bob <bob@example.org>\nSubject: Turn 3",
                    "________________________________\nFrom: {n} <{a}>\nSent: Monday, June 2, "
                    "2025 9:00 PM\nTo: Bob\nSubject: Turn 3",
                    "From: {n} [mailto:{a}]\nSent: Monday, June 2, 2025 9:00 PM\nTo: Bob\n"
                    "Subject: Turn 3"),
        "yahoo": ("----- Original Message -----\nFrom: {n} <{a}>\nTo: Bob\n"
                  "Sent: Monday, June 2, 2025 9:00 PM\nSubject: Turn 3",),
        "zoho": ("---- On Mon, 02 Jun 2025 21:00:00 +0200 {n} <{a}> wrote ----",),
        "android": ("-------- Original message --------\nFrom: {n} <{a}>\n"
                    "Date: 02/06/2025 21:00 (GMT+01:00)\nTo: Bob\nSubject: Turn 3",),
        "reply-message": ("-----Reply Message-----\nFrom: {n} <{a}>\nTo: Bob\n"
                          "Sent: 2025-06-02 21:00\nSubject: Turn 3",),
        "gmail-iso": ("2025-06-02 21:00 GMT+02:00 {n} <{a}>:",),
        "wrote-no-colon": ("On Mon, 2 Jun 2025 21:00:00 +0200 {n} <{a}> wrote",),
    },
    "fr": {
        "gmail": ("Le lun. 2 juin 2025 à 21:00, {n} <{a}> a écrit :",
                  "Le lun. 2 juin 2025 à 21:00, {n} <\n{a}> a écrit :"),
        "apple": ("Le 2 juin 2025 à 21:00, {n} <{a}> a écrit :",),
        "outlook": ("De : {n} <{a}>\nEnvoyé : lundi 2 juin 2025 21:00\nÀ : Bob\nObjet : Tour 3",
                    "-----Message d'origine-----\nDe : {n} [mailto:{a}]\nEnvoyé : lundi 2 juin "
                    "2025 21:00\nÀ : Bob\nObjet : Tour 3"),
        "zimbra": ("- Le 2025-06-02 21:00, {n} a écrit :",),
        "android": ("-------- Message d'origine --------\nDe : {n} <{a}>\n"
                    "Date : 02/06/2025 21:00 (GMT+01:00)\nÀ : Bob\nObjet : Tour 3",),
    },
    "de": {
        "gmail": ("Am Mo., 2. Juni 2025 um 21:00 Uhr schrieb {n} <{a}>:",
                  "Am Mo., 2. Juni 2025 um 21:00 Uhr schrieb {n} <\n{a}>:"),
        "apple": ("Am 02.06.2025 um 21:00 schrieb {n} <{a}>:",),
        "thunderbird": ("Am 02.06.25 um 21:00 schrieb {n}:",),
        "outlook": ("Von: {n} <{a}>\nGesendet: Montag, 2. Juni 2025 21:00\nAn: Bob\n"
                    "Betreff: Zug 3",
                    "-----Ursprüngliche Nachricht-----\nVon: {n} [mailto:{a}]\n"
                    "Gesendet: Montag, 2. Juni 2025 21:00\nAn: Bob\nBetreff: Zug 3"),
        "antwort": ("-----Antwort Nachricht-----\nVon: {n} <{a}>\nAn: Bob\n"
                    "Datum: 02.06.2025 21:00\nBetreff: Zug 3",),
    },
    "es": {
        "gmail": ("El lun, 2 jun 2025 a las 21:00, {n} (<{a}>) escribió:",),
        "apple": ("El 2 jun 2025, a las 21:00, {n} <{a}> escribió:",),
        "outlook": ("De: {n} <{a}>\nEnviado el: lunes, 2 de junio de 2025 21:00\nPara: Bob\n"
                    "Asunto: Turno 3",
                    "-----Mensaje original-----\nDe: {n} [mailto:{a}]\nEnviado: lunes, 2 de "
                    "junio de 2025 21:00\nPara: Bob\nAsunto: Turno 3"),
    },
    "it": {
        "gmail": ("Il giorno lun 2 giu 2025 alle ore 21:00 {n} <{a}> ha scritto:",),
        "apple": ("Il giorno 2 giu 2025, alle ore 21:00, {n} <{a}> ha scritto:",),
        "mobile": ("Il lunedì 2 giugno 2025, {n} <{a}>\nha scritto:",),
        "outlook": ("Da: {n} <{a}>\nInviato: lunedì 2 giugno 2025 21:00\nA: Bob\n"
                    "Oggetto: Turno 3",
                    "-----Messaggio originale-----\nDa: {n} [mailto:{a}]\nInviato: lunedì 2 "
                    "giugno 2025 21:00\nA: Bob\nOggetto: Turno 3"),
    },
    "pt": {
        "gmail": ("Em seg., 2 de jun. de 2025 às 21:00, {n} <{a}> escreveu:",),
        "airmail": ("Em 2 de junho de 2025 às 21:00:00, {n} (\n{a}) escreveu:",),
        "outlook": ("De: {n} <{a}>\nEnviado: segunda-feira, 2 de junho de 2025 21:00\n"
                    "Para: Bob\nAssunto: Turno 3",),
    },
    "nl": {
        "gmail": ("Op ma 2 jun 2025 om 21:00 schreef {n} <{a}>:",
                  "Op ma 2 jun 2025 om 21:00 schreef {n} <\n{a}>:"),
        "apple": ("Op 2 jun. 2025 om 21:00 heeft {n} <{a}> het volgende geschreven:",),
        "outlook": ("Van: {n} <{a}>\nVerzonden: maandag 2 juni 2025 21:00\nAan: Bob\n"
                    "Onderwerp: Beurt 3",),
    },
    "da": {
        "gmail": ("Den man. 2. jun. 2025 kl. 21.00 skrev {n} <{a}>:",),
        "apple": ("Den 2. jun. 2025 kl. 21.00 skrev {n} <{a}>:",),
        "outlook": ("Fra: {n} <{a}>\nSendt: 2. juni 2025 21:00\nTil: Bob\nEmne: Tur 3",
                    "-----Oprindelig meddelelse-----\nFra: {n} [mailto:{a}]\n"
                    "Sendt: 2. juni 2025 21:00\nTil: Bob\nEmne: Tur 3"),
    },
    "sv": {
        "gmail": ("Den mån 2 juni 2025 kl 21:00 skrev {n} <{a}>:",),
        "apple": ("2 juni 2025 kl. 21:00 skrev {n} <{a}>:",),
        "outlook": ("Från: {n} <{a}>\nSkickat: den 2 juni 2025 21:00\nTill: Bob\nÄmne: Tur 3",),
    },
    "no": {
        "gmail": ("man. 2. jun. 2025 kl. 21:00 skrev {n} <{a}>:",
                  "man. 2. jun. 2025 kl. 21:00 skrev {n} <{a}\n>:"),
        "apple": ("2. jun. 2025 kl. 21:00 skrev {n} <{a}>:",),
        "outlook": ("Fra: {n} <{a}>\nSendt: mandag 2. juni 2025 21:00\nTil: Bob\nEmne: Tur 3",),
    },
    "fi": {
        "gmail": ("ma 2.6.2025 klo 21.00 {n} (<{a}>) kirjoitti:",
                  "ma 2. kesäk. 2025 klo 21.00 {n}\n<{a}> kirjoitti:"),
        "outlook": ("Lähettäjä: {n} <{a}>\nLähetetty: maanantai 2. kesäkuuta 2025 21.00\n"
                    "Vastaanottaja: Bob\nAihe: Vuoro 3",),
    },
    "pl": {
        "gmail": ("pon., 2 cze 2025 o 21:00 {n} <{a}> napisał(a):",),
        "thunderbird": ("W dniu 2.06.2025 o 21:00, {n} pisze:",),
        "wp": ("Dnia 2 czerwca 2025 21:00 {n} <{a}> napisał(a):",),
        "onet": ("W dniu 2025-06-02 21:00:00 użytkownik {n} <{a}> napisał:",),
        "outlook": ("Od: {n} <{a}>\nWysłano: poniedziałek, 2 czerwca 2025 21:00\nDo: Bob\n"
                    "Temat: Tura 3",),
    },
    "ru": {
        "gmail": ("пн, 2 июн. 2025 г. в 21:00, {n} <{a}>:",),
        "yandex": ('02.06.2025, 21:00, "{n}" <{a}>:',),
        "mailru": ("Понедельник, 2 июня 2025, 21:00 +03:00 от {n} <{a}>:",),
        "thunderbird": ("02.06.2025 21:00, {n} пишет:",),
        "windows-mail": ("От: {n}\nОтправлено: понедельник, 2 июня 2025 г. 21:00\nКому: Bob",),
        "outlook": ("От: {n} <{a}>\nОтправлено: 2 июня 2025 г. 21:00\nКому: Bob\nТема: Ход 3",
                    "-----Исходное сообщение-----\nОт: {n} [mailto:{a}]\n"
                    "Отправлено: 2 июня 2025 г. 21:00\nКому: Bob\nТема: Ход 3"),
    },
    "uk": {
        "gmail": ("пн, 2 черв. 2025 р. о 21:00 {n} <{a}> пише:",),
        "mobile": ("2 червня 2025 р. о 21:00 <{a}> написав:",),
        "outlook": ("Від: {n} <{a}>\nНадіслано: 2 червня 2025 р. 21:00\nКому: Bob\n"
                    "Тема: Хід 3",),
    },
    "zh": {
        "gmail": ("{n} <{a}> 于2025年6月2日周一 21:00写道：",),
        "outlook": ("发件人: {n} <{a}>\n发送时间: 2025年6月2日 21:00\n收件人: Bob\n主题: 第3轮",),
        "foxmail": ("------------------ 原始邮件 ------------------\n发件人: \"{n}\"<{a}>;\n"
                    "发送时间: 2025年6月2日(星期一) 晚上9:00\n收件人: \"Bob\";\n主题: 第3轮",),
    },
    "ja": {
        "gmail": ("2025年6月2日(月) 21:00 {n} <{a}>:",),
        "outlook": ("差出人: {n} <{a}>\n送信日時: 2025年6月2日 21:00\n宛先: Bob\n件名: ターン3",),
    },
}
SENDER = ("Illuminati PBEM", "illuminati@pbem.example.org")
QUOTED_PROSE = ("Illuminati game illu1, turn 3: report for Bob.", "",
                "It is your turn. Your orders are due by Friday 21:00 UTC.")


@dataclass(frozen=True)
class Fixture:
    """One reply of the corpus: its lines, where the player's own closing words and the
    quoted original begin, and how its mail was written."""

    name: str  # project/fixtures/path, or generated/<language>/<client>/<n>
    project: str
    lines: tuple[str, ...]
    own: int
    quote: int
    charset: str = "utf-8"
    html: str | None = None  # an HTML fixture's source
    html_reply: str = ""
    html_quoted: str = ""
    html_own: tuple[str, ...] = ()  # the person's closing words in an HTML fixture
    language: str = ""
    family: str = ""
    inline: tuple[str, ...] = ()  # the person's words between quoted lines below the quote


@dataclass(frozen=True)
class Reply:
    """One built order mail, and what reading it must give."""

    name: str
    fixture: Fixture
    raw: bytes
    body: str  # the chosen body as sent (text, or HTML when html_only), for other readers
    html_only: bool
    orders: tuple[str, ...]
    own_words: frozenset[str] = field(default=frozenset())
    with_end: bool = False
    shape: str = ""


# --- the fixtures -----------------------------------------------------------------------

_QP = re.compile(r"=[0-9A-F]{2}|=\n")


def _fixture_text(path: Path) -> tuple[str, str, str | None]:
    """The text of a fixture file, its charset, and its HTML source for an HTML reply."""
    data = path.read_bytes()
    if path.suffix == ".eml":
        msg = email.message_from_bytes(data, policy=email.policy.default)
        assert isinstance(msg, email.message.EmailMessage)
        part = msg.get_body(("plain",))
        charset = "utf-8"
        if part is not None:
            charset = part.get_content_charset() or "us-ascii"
            return str(part.get_content()), charset, None
        part = msg.get_body(("html",))
        assert part is not None
        return "", charset, str(part.get_content())
    text = data.decode("utf-8", "replace")
    if path.suffix == ".html":
        return "", "utf-8", text
    if "=\n" in text and re.search(r"=[0-9A-F]{2}", text):  # kept quoted-printable
        text = quopri.decodestring(data).decode("utf-8", "replace")
    return text, "utf-8", None


def fixtures() -> list[Fixture]:
    """Every fixture the manifest does not set aside, read."""
    manifest: dict[str, dict[str, object]] = json.loads(
        (CORPUS / "replies.json").read_text(encoding="utf-8"))
    found: list[Fixture] = []
    for name, entry in sorted(manifest.items()):
        if "skip" in entry:
            continue
        text, charset, source = _fixture_text(CORPUS / name)
        project = name.split("/")[0]
        if source is not None:
            own_words = entry.get("own", [])
            assert isinstance(own_words, list)
            found.append(Fixture(name, project, (), 0, 0, charset, source,
                                 str(entry["reply"]), str(entry["quoted"]),
                                 tuple(own_words), _language(source), "html"))
            continue
        lines = tuple(text.replace("\r\n", "\n").rstrip("\n").split("\n"))
        quote = min(int(str(entry["quote"])), len(lines))
        own = int(str(entry["own"])) if "own" in entry else _own_start(lines, quote)
        head = "\n".join(lines[quote:quote + 6])
        found.append(Fixture(name, project, lines, own, quote, charset,
                             language=_language(head), family=_family(lines, quote),
                             inline=_inline(lines, quote)))
    return found


def _inline(lines: tuple[str, ...], quote: int) -> tuple[str, ...]:
    """The person's words written between the quoted lines (an inline reply): the lines
    without ">" below the first quoted one, when the quote is marked."""
    first = next((n for n in range(quote, len(lines)) if lines[n].startswith(">")), None)
    if first is None:
        return ()
    return tuple(line.strip() for line in lines[first:] if line.strip()
                 and not line.startswith(">"))


def _own_start(lines: tuple[str, ...], quote: int) -> int:
    """Where the person's closing words begin above the quote: the last paragraph before
    it when it is short and not the only one, else the quote itself."""
    end = quote
    while end > 0 and not lines[end - 1].strip():
        end -= 1
    start = end
    while start > 0 and lines[start - 1].strip():
        start -= 1
    if start == 0 or end - start > 4:
        return quote
    return start


# Labels for the figures only: which language and which kind of client wrote a quote.
_LANGUAGE_HINTS = (
    ("zh", "写道|发件人|發件人|原始邮件"), ("ja", "差出人|年.*月.*日\\(.\\)"),
    ("uk", "написав|пише|Від:|грудня"), ("ru", "[А-Яа-я]"), ("pl", "napisał|użytkownik|Od:|Dnia"),
    ("fi", "kirjoitti"), ("da", "Fra:|Oprindelig|skrev.*kl\\. \\d+\\.\\d+|Den \\d+\\. "),
    ("sv", "skrev|Från:|Skickat"), ("no", "skrev"), ("nl", "schreef|Van:|geschreven"),
    ("it", "ha scritto|Da:|Inviato"), ("pt", "escreveu"), ("es", "escribió|Enviado el"),
    ("de", "schrieb|Von:|Ursprüngliche|Gesendet"), ("fr", "a écrit|De :|Envoyé|Le "),
    ("hu", "írta"),
)


def _language(text: str) -> str:
    for language, hint in _LANGUAGE_HINTS:
        if re.search(hint, text):
            return language
    return "en"


def _family(lines: tuple[str, ...], quote: int) -> str:
    if quote >= len(lines):
        return "no quote"
    head = lines[quote].strip()
    if head.startswith(">"):
        return "quote marks"
    if re.match(r"[-_=* ]{5,}|.*-{3,}.*(message|nachricht|meddelelse|mensaje|messaggio)", head,
                re.I):
        return "separator"
    if re.match(r"\*?\w+ ?:", head) and not re.search(r"wrote|schrieb|écrit|napisał", head):
        return "header block"
    return "attribution"


def generated(seed: int = 35) -> list[Fixture]:
    """Replies written from the clients' shapes of every language (``CLIENTS``): a reply,
    a closing or not, the quote header, and the quoted mail as ">" lines or bare."""
    rng = random.Random(seed)
    found: list[Fixture] = []
    for language, clients in CLIENTS.items():
        for client, headers in clients.items():
            for number, header in enumerate(headers):
                # Half of them closed by the player (a sign-off ends the reading by itself,
                # so the other half test the quote header alone).
                closing = rng.choice(CLOSINGS[language]).split("\n") if number % 2 else []
                head = header.format(n=SENDER[0], a=SENDER[1]).split("\n")
                bare = client in ("outlook", "yahoo", "android", "windows-mail", "foxmail",
                                  "reply-message", "antwort")
                body = list(QUOTED_PROSE) if bare else [f"> {x}".rstrip() for x in QUOTED_PROSE]
                lines = ("Reply text.", "", *closing, *([""] if closing else []), *head, "",
                         *body)
                own = 2
                quote = 2 + len(closing) + bool(closing)
                found.append(Fixture(f"generated/{language}/{client}/{number}", "generated",
                                     lines, own, quote, language=language,
                                     family=f"{client}"))
    return found


# --- building a reply -------------------------------------------------------------------

Shape = Callable[[list[str], random.Random], list[str]]


def _as_written(tail: list[str], rng: random.Random) -> list[str]:
    return tail


def _stripped(tail: list[str], rng: random.Random) -> list[str]:
    """As a client that drops the ">" marks of the quote (and their space)."""
    return [re.sub(r"^(?:> ?)+", "", line) for line in tail]


def _rewrapped(tail: list[str], rng: random.Random) -> list[str]:
    """As a client that rewraps the quote at 72 columns, marks kept."""
    out: list[str] = []
    for line in tail:
        mark = re.match(r"^(?:> ?)*", line)
        prefix = mark.group(0) if mark else ""
        out += textwrap.wrap(line, 72, subsequent_indent=prefix,
                             break_on_hyphens=False) or [line]
    return out


def _reindented(tail: list[str], rng: random.Random) -> list[str]:
    """As a client that indents the quote instead of marking it."""
    return ["    " + re.sub(r"^(?:> ?)+", "", line) if line.strip() else "" for line in tail]


def _flattened(tail: list[str], rng: random.Random) -> list[str]:
    """As a client that pastes the quote as bare paragraphs: no marks, no indentation."""
    return [re.sub(r"^(?:> ?)+", "", line).strip() for line in tail]


SHAPES: dict[str, Shape] = {"as-written": _as_written, "stripped": _stripped,
                            "rewrapped-72": _rewrapped, "reindented": _reindented,
                            "flattened": _flattened}


def _with_game_lines(quoted: list[str], rng: random.Random, trimmed: bool) -> list[str]:
    """The quoted part with lines of the game's mails below its header and at its end, in
    the quote's marks; trimmed, only the header and the game's lines are kept."""
    header = 1  # below the header's paragraph (an attribution, a header block)
    while header < min(len(quoted), 8) and re.sub(r"^(?:> ?)+", "", quoted[header]).strip():
        header += 1
    block = list(rng.choice(GAME_LINES))
    mark = next((re.match(r"^(?:> ?)+", line).group(0)  # type: ignore[union-attr]
                 for line in quoted if re.match(r"^>", line)), "")
    marked = [f"{mark}{line}".rstrip() for line in block]
    if trimmed:
        return [*quoted[:header], *marked]
    last = [f"{mark}{line}".rstrip() for line in rng.choice(GAME_LINES)]
    return [*quoted[:header], *marked, *quoted[header:], "", *last]


def _orders(rng: random.Random) -> list[str]:
    return rng.sample(ORDERS, rng.randint(1, 3))


def build(fixture: Fixture, seed: int, *, shape: str = "as-written", trimmed: bool = False,
          html_only: bool = False, with_end: bool = False,
          closing: str | None = None) -> Reply:
    """The order mail ``fixture`` becomes: the player's orders in place of the person's
    text, the game's lines in the quoted part, shaped by ``shape``."""
    rng = random.Random(f"{fixture.name}/{seed}")
    orders = _orders(rng)
    written = [START, *orders, *(["END"] if with_end else [])]
    if fixture.html is not None:
        return _build_html(fixture, seed, rng, written, orders, with_end)
    own = list(fixture.lines[fixture.own:fixture.quote])
    if closing is not None:
        own = ["", *closing.split("\n"), "", *own]
    quoted = _with_game_lines(list(fixture.lines[fixture.quote:]), rng, trimmed) \
        if fixture.quote < len(fixture.lines) else []
    if quoted:
        quoted = SHAPES[shape](quoted, rng)
    lines = [*written, "", *own, *quoted]
    own_words = frozenset(line.strip() for line in own if line.strip()) | {
        piece for line in fixture.inline for piece in _pieces(line, shape)}
    text = "\n".join(lines) + "\n"
    name = f"{fixture.name}#{seed}:{shape}{'+trimmed' if trimmed else ''}" \
           f"{'+html' if html_only else ''}{'+end' if with_end else ''}"
    if html_only:
        body = _as_html(lines)
        raw = _mail(body, "html", "utf-8", rng)
    else:
        body = text
        raw = _mail(text, "plain", fixture.charset, rng)
    return Reply(name, fixture, raw, body, html_only, tuple(orders), own_words, with_end, shape)


def _pieces(line: str, shape: str) -> list[str]:
    """A line of the person's as it reads once the quote is shaped (rewrapping cuts it)."""
    return [p.strip() for p in textwrap.wrap(line, 72)] if shape == "rewrapped-72" else [line]


def _build_html(fixture: Fixture, seed: int, rng: random.Random, written: list[str],
                orders: list[str], with_end: bool) -> Reply:
    source = fixture.html or ""
    at = source.index(fixture.html_reply)
    quoted_at = source.rindex(fixture.html_quoted)
    game = "".join(f"<div>{html.escape(line).replace('  ', '&nbsp; ')}</div>"
                   for line in rng.choice(GAME_LINES))
    mine = "<br>".join(html.escape(line) for line in written)
    built = (source[:at] + mine + source[at + len(fixture.html_reply):quoted_at] + game
             + source[quoted_at:])
    raw = _mail(built, "html", "utf-8", rng)
    own = frozenset(fixture.html_own)
    return Reply(f"{fixture.name}#{seed}:html{'+end' if with_end else ''}", fixture, raw, built,
                 True, tuple(orders), own, with_end, "html")


def _as_html(lines: list[str]) -> str:
    """The lines as an HTML-only client sends them: a div a line, ">" runs as blockquotes."""
    out: list[str] = ["<html><body>"]
    depth = 0
    for line in lines:
        marks = re.match(r"^(?:> ?)*", line)
        level = marks.group(0).count(">") if marks else 0
        while depth < level:
            out.append('<blockquote type="cite">')
            depth += 1
        while depth > level:
            out.append("</blockquote>")
            depth -= 1
        content = line[marks.end() if marks else 0:]
        out.append(f"<div>{html.escape(content) or '<br>'}</div>")
    out.append("</blockquote>" * depth + "</body></html>")
    return "\n".join(out)


def _mail(body: str, subtype: str, charset: str, rng: random.Random) -> bytes:
    """A mail with ``body`` as its one part, in ``charset`` when it can say it, 8bit or
    quoted-printable."""
    try:
        data = body.encode(charset)
    except (UnicodeEncodeError, LookupError):
        charset, data = "utf-8", body.encode("utf-8")
    qp = rng.random() < 0.5
    encoding = "quoted-printable" if qp else "8bit"
    payload = quopri.encodestring(data) if qp else data
    head = (f"From: Bob Meyer <bob@example.org>\nTo: illuminati@pbem.example.org\n"
            f"Subject: Re: [illu1] Turn 3\nMessage-ID: <{rng.getrandbits(64):x}@example.org>\n"
            f"Date: Mon, 02 Jun 2025 21:30:00 +0200\nMIME-Version: 1.0\n"
            f"Content-Type: text/{subtype}; charset={charset}\n"
            f"Content-Transfer-Encoding: {encoding}\n\n")
    return head.encode("ascii") + payload


def replies(seeds: int = 2) -> Iterator[Reply]:
    """Every reply of the corpus: each fixture and each generated reply, built in each shape,
    trimmed, HTML-only, with a player's closing, with END, over ``seeds`` seeds."""
    for fixture in [*fixtures(), *generated()]:
        for seed in range(seeds):
            if fixture.html is not None:
                yield build(fixture, seed)
                continue
            rng = random.Random(f"{fixture.name}/closing/{seed}")
            language = fixture.language if fixture.language in CLOSINGS else "en"
            for shape in SHAPES:
                yield build(fixture, seed, shape=shape)
            yield build(fixture, seed, trimmed=True)
            yield build(fixture, seed, shape="stripped", trimmed=True)
            yield build(fixture, seed, shape="flattened", trimmed=True)
            yield build(fixture, seed, html_only=True)
            yield build(fixture, seed, closing=rng.choice(CLOSINGS[language]))
            yield build(fixture, seed, with_end=True, shape="stripped")


# --- judging a reading ------------------------------------------------------------------

# Refusals that only say where the reading stopped (END was missing): the player is told.
STOPS = frozenset({"pasted", "rule_line", "second_start"})


@dataclass(frozen=True)
class Reading:
    """What reading one reply gave, judged."""

    as_meant: bool
    quoted_run: tuple[str, ...]  # orders read that the player did not write
    refused_quoted: tuple[str, ...]  # lines refused that are not the player's own words


def judge(reply: Reply, text: str,
          read: Callable[[str], tuple[list[str], list[tuple[str, str]]]]) -> Reading:
    """Judge the orders and refusals ``read`` gives for ``text`` (the orders' lines as read,
    and each refusal's key and line)."""
    orders, refused = read(text)
    mine = set(reply.orders)
    quoted_run = tuple(o for o in orders if o not in mine)
    others = tuple(line for key, line in refused
                   if key not in STOPS and line.strip() not in reply.own_words)
    return Reading(orders == list(reply.orders) and not others, quoted_run, others)
