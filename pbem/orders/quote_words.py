"""The words mail clients write where a reply ends and the mail it answers begins, one table
per language: the knowledge ``pbem.orders.pasted`` reads, as data.

Gathered from what the clients write (Outlook desktop and web, Gmail, Apple Mail and iOS,
Thunderbird, Android mail apps, Yandex, Mail.ru, Zoho, Windows Mail, Polymail) and from the
lists of the public reply parsers (mailgun/talon's ``quotations.py``,
alfonsrv/mail-parser-reply's ``constants.py``, crisp-oss/email-reply-parser's), measured on
their test data (tests/mail/corpus, bench/quotes.py). A new language is a new entry; no
code changes.

Every word is matched case-insensitively, and none of them begins an order: a line of
orders is never taken for one of these.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["LANGUAGES", "QuoteWords"]


@dataclass(frozen=True)
class QuoteWords:
    """What one language's mail clients write between a reply and the mail it quotes.

    ``separators``: the words of a dashed line (``-----Original Message-----``);
    ``forwarded``: a line ending in ``:`` that opens a forwarded mail;
    ``fields``: the field names of a pasted header block (``From:``, ``Sent:``...);
    ``opens``: the first word of an attribution a client may wrap over lines (``On``);
    ``wrote``: the verb of an attribution line (``On <date>, <name> wrote:``);
    ``sign_offs``: a closing a person writes on a line of its own (``Regards,``);
    ``sent_from``: the start of a phone's or an app's signature (``Sent from my``).
    """

    separators: tuple[str, ...] = ()
    forwarded: tuple[str, ...] = ()
    fields: tuple[str, ...] = ()
    opens: tuple[str, ...] = ()
    wrote: tuple[str, ...] = ()
    sign_offs: tuple[str, ...] = ()
    sent_from: tuple[str, ...] = ()


LANGUAGES: dict[str, QuoteWords] = {
    "en": QuoteWords(
        separators=("original message", "forwarded message", "reply message",
                    "original mail", "forwarded mail"),
        forwarded=("begin forwarded message",),
        fields=("from", "sent", "date", "to", "cc", "bcc", "subject", "reply-to",
                "organization", "sent by"),
        opens=("on", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday",
               "sunday"),
        wrote=("wrote", "has written", "sent"),
        sign_offs=("regards", "best regards", "kind regards", "warm regards", "best wishes",
                   "best", "cheers", "thanks", "thank you", "many thanks", "thanks a lot",
                   "all the best", "yours", "sincerely", "yours sincerely", "cordially",
                   "take care", "thx"),
        sent_from=("sent from my", "sent from outlook", "sent from mail for windows",
                   "sent from yahoo mail", "sent from aol", "sent from samsung",
                   "sent via", "sent using", "sent with", "get outlook for",
                   "get outlook for ios", "get outlook for android"),
    ),
    "fr": QuoteWords(
        separators=("message d'origine", "message original", "message transféré",
                    "message réexpédié", "courriel original", "message d’origine"),
        forwarded=("début du message réexpédié", "début du message transféré"),
        fields=("de", "envoyé", "envoyé le", "date", "à", "a", "cc", "objet", "répondre à"),
        opens=("le",),
        wrote=("a écrit", "a ecrit", "écrit"),
        sign_offs=("cordialement", "bien cordialement", "salutations", "amicalement",
                   "bien à vous", "bien à toi", "merci", "bonne journée", "bonne soirée",
                   "à bientôt", "amitiés", "bises", "sincères salutations"),
        sent_from=("envoyé de mon", "envoyé depuis", "envoyé à partir de",
                   "obtenir outlook pour"),
    ),
    "de": QuoteWords(
        separators=("ursprüngliche nachricht", "originalnachricht", "original nachricht",
                    "weitergeleitete nachricht", "antwort nachricht", "ursprüngliche mail"),
        forwarded=("anfang der weitergeleiteten nachricht", "anfang der weitergeleiteten e-mail"),
        fields=("von", "gesendet", "datum", "an", "cc", "betreff", "antwort an", "organisation"),
        opens=("am",),
        wrote=("schrieb", "hat geschrieben", "geschrieben"),
        sign_offs=("mit freundlichen grüßen", "mit freundlichen grüssen", "freundliche grüße",
                   "freundliche grüsse", "viele grüße", "viele grüsse", "beste grüße",
                   "beste grüsse", "liebe grüße", "liebe grüsse", "grüße", "grüsse", "gruß",
                   "gruss", "lg", "mfg", "vg", "danke", "bis bald"),
        sent_from=("gesendet von", "von meinem", "gesendet mit", "outlook für android",
                   "outlook für ios herunterladen"),
    ),
    "es": QuoteWords(
        separators=("mensaje original", "mensaje reenviado", "correo original"),
        forwarded=("inicio del mensaje reenviado", "comienzo del mensaje reenviado"),
        fields=("de", "enviado", "enviado el", "fecha", "para", "cc", "asunto", "responder a"),
        opens=("el",),
        wrote=("escribió", "escribio", "ha escrito"),
        sign_offs=("saludos", "un saludo", "atentamente", "cordialmente", "gracias",
                   "muchas gracias", "un abrazo", "abrazos", "saludos cordiales"),
        sent_from=("enviado desde mi", "enviado desde", "obtener outlook para"),
    ),
    "it": QuoteWords(
        separators=("messaggio originale", "messaggio inoltrato"),
        forwarded=("inizio messaggio inoltrato",),
        fields=("da", "inviato", "data", "a", "cc", "oggetto", "rispondi a"),
        opens=("il", "in data"),
        wrote=("ha scritto", "scritto"),
        sign_offs=("cordiali saluti", "distinti saluti", "saluti", "un saluto", "grazie",
                   "a presto", "ciao"),
        sent_from=("inviato da", "inviato dal mio", "scarica outlook per"),
    ),
    "pt": QuoteWords(
        separators=("mensagem original", "mensagem encaminhada"),
        forwarded=("início da mensagem reencaminhada", "início da mensagem encaminhada"),
        fields=("de", "enviado", "enviada", "data", "para", "cc", "assunto", "responder a"),
        opens=("em", "no dia", "às"),
        wrote=("escreveu", "escreveu:"),
        sign_offs=("atenciosamente", "cumprimentos", "abraços", "abraço", "obrigado",
                   "obrigada", "saudações"),
        sent_from=("enviado do meu", "enviado de meu", "enviado do", "obter o outlook para"),
    ),
    "nl": QuoteWords(
        separators=("oorspronkelijk bericht", "origineel bericht", "doorgestuurd bericht"),
        forwarded=("begin doorgestuurd bericht",),
        fields=("van", "verzonden", "datum", "aan", "cc", "onderwerp", "beantwoorden aan"),
        opens=("op",),
        wrote=("schreef", "geschreven", "verzond", "heeft geschreven"),
        sign_offs=("met vriendelijke groet", "met vriendelijke groeten", "vriendelijke groet",
                   "groet", "groeten", "hartelijke groeten", "bedankt", "dank u", "mvg"),
        sent_from=("verzonden vanaf mijn", "verstuurd vanaf mijn", "verzonden met",
                   "outlook voor android downloaden"),
    ),
    "da": QuoteWords(
        separators=("oprindelig meddelelse", "videresendt meddelelse", "original meddelelse"),
        forwarded=("start på videresendt besked", "videresendt besked"),
        fields=("fra", "sendt", "dato", "til", "cc", "kopi", "emne", "vedhæftet"),
        opens=("den", "d."),
        wrote=("skrev",),
        sign_offs=("med venlig hilsen", "venlig hilsen", "venlige hilsner", "hilsen",
                   "hilsner", "mvh", "vh", "dbh", "bedste hilsner", "de bedste hilsner",
                   "kh", "knus", "tak", "på forhånd tak"),
        sent_from=("sendt fra min", "sendt fra", "hent outlook til"),
    ),
    "sv": QuoteWords(
        separators=("ursprungligt meddelande", "vidarebefordrat meddelande"),
        forwarded=("vidarebefordrat mejl", "början på vidarebefordrat meddelande"),
        fields=("från", "skickat", "skickades", "datum", "till", "kopia", "cc", "ämne"),
        opens=("den", "på"),
        wrote=("skrev",),
        sign_offs=("med vänliga hälsningar", "vänliga hälsningar", "hälsningar",
                   "bästa hälsningar", "mvh", "hälsning", "tack"),
        sent_from=("skickat från min", "skickades från min", "skickat från"),
    ),
    "no": QuoteWords(
        separators=("opprinnelig melding", "videresendt melding"),
        forwarded=("videresendt melding",),
        fields=("fra", "sendt", "dato", "til", "kopi", "emne"),
        opens=("den", "på"),
        wrote=("skrev",),
        sign_offs=("med vennlig hilsen", "vennlig hilsen", "hilsen", "mvh", "takk"),
        sent_from=("sendt fra min", "sendt fra"),
    ),
    "fi": QuoteWords(
        separators=("alkuperäinen viesti", "välitetty viesti"),
        forwarded=("välitetty viesti alkaa",),
        fields=("lähettäjä", "lähetetty", "päivämäärä", "vastaanottaja", "kopio", "aihe"),
        opens=("ma", "ti", "ke", "to", "pe", "la", "su"),
        wrote=("kirjoitti",),
        sign_offs=("ystävällisin terveisin", "terveisin", "kiitos"),
        sent_from=("lähetetty iphonesta", "lähetetty", "lähetetty laitteesta"),
    ),
    "pl": QuoteWords(
        separators=("oryginalna wiadomość", "wiadomość oryginalna", "przekazana wiadomość"),
        forwarded=("początek przekazanej wiadomości",),
        fields=("od", "wysłano", "wysłane", "data", "do", "dw", "temat"),
        opens=("w dniu", "dnia", "użytkownik"),
        wrote=("napisał", "napisała", "napisał(a)", "nadesłał", "pisze"),
        sign_offs=("pozdrawiam", "z poważaniem", "z powazaniem", "pozdrowienia",
                   "serdecznie pozdrawiam", "dziękuję", "dzięki"),
        sent_from=("wysłano z", "wysłane z"),
    ),
    "ru": QuoteWords(
        separators=("исходное сообщение", "пересылаемое сообщение", "пересланное сообщение"),
        forwarded=("начало переадресованного сообщения",),
        fields=("от", "отправлено", "дата", "кому", "копия", "тема"),
        opens=("в", "от", "понедельник", "вторник", "среда", "четверг", "пятница",
               "суббота", "воскресенье"),
        wrote=("написал", "написала", "написал(а)", "пишет"),
        sign_offs=("с уважением", "спасибо", "всего доброго", "с наилучшими пожеланиями"),
        sent_from=("отправлено с", "отправлено из"),
    ),
    "uk": QuoteWords(
        separators=("оригінальне повідомлення", "переслане повідомлення",
                    "початкове повідомлення"),
        forwarded=("початок пересланого повідомлення",),
        fields=("від", "надіслано", "дата", "кому", "копія", "тема"),
        opens=("в", "від"),
        wrote=("написав", "написала", "написав(ла)", "пише"),
        sign_offs=("з повагою", "дякую", "щиро"),
        sent_from=("надіслано з",),
    ),
    "zh": QuoteWords(
        separators=("原始邮件", "原始郵件", "转发的邮件", "轉寄的郵件"),
        forwarded=("转发的邮件", "以下是转发的邮件"),
        fields=("发件人", "發件人", "寄件者", "发送时间", "發送時間", "日期", "收件人", "抄送",
                "副本", "主题", "主題", "时间"),
        opens=("在",),
        wrote=("写道", "寫道"),
        sign_offs=("此致", "谢谢", "謝謝", "祝好"),
        sent_from=("发自我的", "從我的", "发自"),
    ),
    "ja": QuoteWords(
        separators=("元のメッセージ", "転送メッセージ"),
        forwarded=("転送されたメッセージ",),
        fields=("差出人", "送信日時", "日付", "宛先", "件名", "送信者"),
        opens=("差出人",),
        wrote=("書きました", "のメッセージ", "wrote"),
        sign_offs=("よろしくお願いします", "よろしくお願いいたします", "以上"),
        sent_from=("iphoneから送信", "から送信"),
    ),
    "hu": QuoteWords(
        separators=("eredeti üzenet", "továbbított üzenet"),
        fields=("feladó", "küldve", "címzett", "tárgy", "dátum"),
        opens=("dátum",),
        wrote=("írta",),
        sign_offs=("üdvözlettel", "üdv", "köszönöm"),
        sent_from=("iphone-ról küldve", "küldve az iphone-omról"),
    ),
}
