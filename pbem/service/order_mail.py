"""One authenticated order mail carried out for its seat: each line's result for the answer.

Lines are carried out in the order written. Orders that act on the position (actions and
answers) are refused when the mail's STEP shows it was written against a position already
gone; press, queries, settings and standing orders never are (see docs/service.md).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pbem.engine.commands import EndTurn, Pass
from pbem.errors import PbemError
from pbem.orders.model import Located, Odds, ParsedOrders
from pbem.orders.parse import blank_password
from pbem.reports.mails import OrderResult
from pbem.reports.paraphrase import paraphrase
from pbem.reports.refusals import worded
from pbem.reports.templating import render
from pbem.service.dispatch import advance, carry_out, is_answer, is_move, upto_reach
from pbem.service.model import Seat
from pbem.service.notices import StatusReport
from pbem.service.order_refusals import refused
from pbem.service.table import Table


def carry_out_mail(table: Table, seat: Seat, parsed: ParsedOrders, *,
                   site_dir: Path | None) -> tuple[list[OrderResult], list[str]]:
    """Every line of the mail carried out (or refused), in line order, for the answer; and
    the warnings the answer gives besides (no END line), in the reader's language.

    The game is carried on between lines, except while the writer is answering the open
    window: all their answer lines count, and only then may it close.
    """
    results: list[OrderResult] = []
    turn = parsed.header.turn
    # Judged against the game as the mail found it: the mail's own steps make nothing stale.
    oldest_action, oldest_answer = _oldest(table)
    stale: list[tuple[int, str]] = []  # (line, text) of the lines refused as stale
    # (order, text, note, its context, what its UPTO may draw on, an answer to the window)
    done: list[tuple[Located, str, str, dict[str, Any], dict[str, Any] | None, bool]] = []
    refusals: list[tuple[int, str, PbemError]] = []  # (line, text, why) of the lines refused
    ended_at = 0  # the line of the writer's END TURN or PASS, once carried out or waiting
    for index, located in enumerate(parsed.orders):
        text = blank_password(located.text)
        order = located.order
        if (ended_at and (is_move(order) or isinstance(order, Odds))
                and not is_answer(table, order)):
            # The turn ends at that line (now, or when the attack it waits behind is
            # settled): a move after it would never run, so it is refused now, not dropped.
            refusals.append((located.line, text,
                             refused("after_end_turn", ended_at=ended_at)))
            continue
        answering = is_answer(table, order)
        oldest = oldest_answer if answering else oldest_action
        # A seat out of the game is told that, not that its orders are stale.
        if (turn is not None and is_move(order) and turn < oldest
                and table.state.player(seat.name).playing):
            stale.append((located.line, text))
            continue
        reach = upto_reach(table, seat.name, order)  # what its UPTO may draw on, before
        try:
            note, context = carry_out(table, seat.name, located)
        except PbemError as error:
            refusals.append((located.line, text, error))
            continue
        if isinstance(order, EndTurn | Pass):
            ended_at = located.line
        following = parsed.orders[index + 1:index + 2]
        if not _still_answering(table, seat.name, [o.order for o in following]):
            advance(table)
        done.append((located, text, note, context, reach, answering))
    advance(table)
    # The acknowledgement is written in the seat's language once the mail is carried out
    # (a SET LANGUAGE line changes it), so every line's words are too.
    lang = table.service.seat(seat.name).lang
    for located, text, note, context, reach, answering in done:
        said = paraphrase(located.order, lang, site_dir)
        if note:
            said = f"{said} {words(lang, site_dir, note, **context)}"
        if reach:
            said = f"{said} {words(lang, site_dir, 'upto', **reach)}"
        # ODDS answered at once shows how its number is made up, as an attack's mail does.
        detail = (render("breakdown.txt.j2", lang, site_dir, **context).rstrip()
                  if note == "odds" else "")
        # An answer with a note (a privileged attack's warning) or an UPTO its treasuries
        # cannot cover is acknowledged at once: the player may want to change it.
        quiet = answering and not note and (reach is None or reach["left"] >= reach["upto"])
        results.append(OrderResult(located.line, text, True, said, detail=detail,
                                   quiet=quiet))
    for line, text in stale:  # the acknowledgement says once where the game is now
        results.append(OrderResult(line, text, False,
                                   words(lang, site_dir, "stale", written=turn), stale=True))
    refusals += [(bad.line or 0, blank_password(bad.text or ""), bad) for bad in parsed.errors]
    for line, text, why in refusals:
        results.append(OrderResult(line, text, False, *worded(why, lang, site_dir)))
    if parsed.orders:
        table.reset_misses(seat.name)  # whoever writes has not dropped out
    if stale:
        # "If the game has moved on since, your orders are refused ... and you get the new
        # report" (docs/orders.md): one report, as the game stands after the whole mail,
        # even if the mail also asked for STATUS.
        table.notices = [n for n in table.notices
                         if not (isinstance(n, StatusReport) and n.to == seat.name)]
        table.notify(StatusReport(seat.name))
    warnings = [words(lang, site_dir, w.key, line=w.line) for w in parsed.warnings]
    return sorted(results, key=lambda r: r.line), warnings


def _still_answering(table: Table, player: str, following: list[Any]) -> bool:
    """True while the writer's lines still answer the open window: they are asked in it, or
    they made the attack and the next line adds a card to play after its roll."""
    window = table.service.window
    if window is None:
        return False
    if player in window.asked:
        return True
    attacker = window.attacker is not None and window.attacker.player == player
    return attacker and bool(following) and is_answer(table, following[0])


def _oldest(table: Table) -> tuple[int, int]:
    """The oldest STEP an action, and an answer, may carry as the game stands.

    An action written before the turn began was meant for another turn. An answer is
    stale only if an attack was settled (or called off) after it was written, as it may
    have been meant for that one: a player who answers the attack with the number of the
    last report they had, from before the attack, is answering this attack."""
    window = table.service.window
    turn_seq = table.service.turn_seq
    return turn_seq, turn_seq if window is None else table.service.settled_seq


def words(lang: str, site_dir: Path | None, key: str, **context: Any) -> str:
    """A short note of the acknowledgement, in ``lang``."""
    return render("note.txt.j2", lang, site_dir, key=key, **context).strip()
