"""Every word a player reads: the templates' environment (``templating``), the mails the
service sends (``mails``), what they show of a position (``context``, ``position``,
``forms``, ``svg``, ``tree``, ``json_text``) and orders said back in plain words
(``paraphrase``). Pure: values in, text out; no I/O beyond reading templates."""
