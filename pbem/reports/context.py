"""The values templates are given: plain facts about cards, deadlines, goals and answers.

Everything here is derived from a player's ``View`` (or from printed card data, which is
public) so nothing secret can reach a template by this road. Words stay in the templates:
these values carry names, numbers and keys the templates translate.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pbem.engine import behaviour
from pbem.engine import events as ev
from pbem.engine.cards import CardSet, Group, Illuminati, Special, SpecialCondition
from pbem.engine.events import Event
from pbem.engine.view import AttackView, PlayerView, View, visible_events
from pbem.errors import PbemError

# Events that repeat, for the one who may see more, what a detailed event already says.
_MONEY_TERMS = {"attacker_money", "defender_money", "assist", "interfere"}
_PUBLIC_TWIN = {"drew_special_count": "drew_special", "gift_card_count": "gift_card",
               "gm_money_count": "gm_money", "gm_move_count": "gm_move"}


@dataclass(frozen=True)
class Deadline:
    """A deadline in UTC and in the reader's zone, and the time left (never negative)."""

    utc: str
    local: str
    tz: str
    days: int
    hours: int
    minutes: int
    passed: bool


@dataclass(frozen=True)
class Moment:
    """A time in UTC and in the reader's zone, as ``w.moment`` writes it."""

    utc: str
    local: str
    tz: str


@dataclass(frozen=True)
class ServiceSettings:
    """The service's own options as the welcome mail lists them: numbers only, the templates
    say what each one is in the reader's language."""

    orders_hours: float  # from the start of a turn to its orders deadline
    response_hours: float  # from an attack (or a group offer) to its response deadline
    # The house rules (pbem.service.model.HouseRules), listed when the game changed any.
    house_changed: bool = False
    press: str = "white"
    press_in_attack: bool = True
    absence_days: int = 14
    absence_days_per_game: int = 28
    stand_in: str = "wait"


@dataclass(frozen=True)
class GroupFacts:
    """A group as printed: what the uncontrolled area and the dead pile show."""

    name: str
    power: int
    transferable: int
    resistance: int
    income: int
    alignments: tuple[str, ...]
    ability: str


@dataclass(frozen=True)
class SpecialFacts:
    name: str
    effect: str  # the key the templates translate
    text: str  # the card data's English paraphrase
    conditional: SpecialCondition = ""  # "succeeds"/"fails": IF SUCCEEDS|FAILS PLAY it


@dataclass(frozen=True)
class IlluminatiFacts:
    name: str
    power: int
    transferable: int
    income: int
    ability: str


@dataclass(frozen=True)
class GoalLine:
    """Progress toward a goal: ``goal`` is "basic" or the Illuminati whose goal it is."""

    goal: str
    kind: str
    have: int | None  # None: hidden from this reader (see ``pbem.engine.view``)
    need: int | None
    alignment: str  # for the goals that count groups of one alignment

    @property
    def met(self) -> bool:
        return self.have is not None and self.need is not None and self.have >= self.need


@dataclass(frozen=True)
class Answers:
    """What one player may do about the open attack."""

    role: str  # "attacker", "defender" or "other"
    defender: str  # the owner of the target, "" if uncontrolled
    sources: tuple[tuple[str, int, int], ...]  # (card, MB on it, points per MB)
    may_interfere: bool  # interfere or assist from the Illuminati treasury
    privileged: bool  # only an Interference card lets another player spend
    may_abolish: bool
    pair: tuple[str, str]  # two cards of the hand that would abolish the privilege
    may_call_off: bool
    reactions: tuple[SpecialFacts, ...]  # special cards of the hand that answer this attack


@dataclass(frozen=True)
class OfferFacts:
    """A group one player offers another, waiting for the receiver's answer."""

    giver: str
    receiver: str
    group: str
    puppets: tuple[str, ...]  # the group's puppets, and theirs: they go with it
    first_arrow: tuple[str, str]  # (card, side) where ACCEPT alone hangs it; ("", "") if none
    deadline: Deadline | None  # when silence declines the offer


def zone(tz: str) -> ZoneInfo:
    """The IANA time zone ``tz``; a PbemError naming it when it is unknown."""
    try:
        return ZoneInfo(tz)
    except (ZoneInfoNotFoundError, ValueError):
        raise PbemError(f"unknown time zone {tz!r}",
                        suggestion="use an IANA name such as Europe/Paris or UTC") from None


def deadline_facts(deadline: datetime | None, now: datetime, tz: str) -> Deadline | None:
    """The deadline as the templates show it, or None when there is none."""
    if deadline is None:
        return None
    for value in (deadline, now):
        if value.tzinfo is None or value.utcoffset() is None:
            raise ValueError(f"{value!r} must be timezone-aware")
    left = max(0, int((deadline - now).total_seconds()) // 60)
    at = moment_facts(deadline, tz)
    return Deadline(
        utc=at.utc,
        local=at.local,
        tz=tz,
        days=left // (24 * 60),
        hours=left // 60 % 24,
        minutes=left % 60,
        passed=deadline <= now,
    )


def moment_facts(moment: datetime, tz: str) -> Moment:
    """``moment`` as the templates show it: to the minute, in UTC and in the zone ``tz``."""
    return Moment(utc=utc_minute(moment),
                  local=_minute(moment.astimezone(zone(tz))), tz=tz)


def offer_facts(v: View, deadline: Deadline | None) -> OfferFacts | None:
    """The group offered and waiting for an answer, as the view shows it, or None."""
    if v.offer is None:
        return None
    giver, receiver, group = v.offer
    structure = next(p.structure for p in v.players if p.name == giver)
    moving = [group]
    for master in moving:  # grows as it goes: each card's puppets after it
        moving += [c.card for c in structure if c.master == master]
    first = next(((c.card, c.open_arrows[0])
                  for p in v.players if p.name == receiver
                  for c in p.structure if c.open_arrows), ("", ""))
    return OfferFacts(giver, receiver, group, tuple(moving[1:]), first, deadline)


def report_events(events: Iterable[Event], viewer: str | None, tz: str = "UTC") -> list[Event]:
    """The events ``viewer`` (None: the game master) may see, each said once, a deadline a
    GM entry sets shown in the reader's zone ``tz`` too.

    Dropped: public twins of what the viewer sees in detail (a special card drawn), and a
    roll whose attack result follows, since the result shows the same dice.
    """
    seen = visible_events(events, viewer)
    out = []
    draw: int | None = None
    for i, e in enumerate(seen):
        twin = _PUBLIC_TWIN.get(e.kind)
        if twin and any(o.kind == twin and e.data.items() <= o.data.items()
                        for o in seen[max(0, i - 1):i]):
            continue
        if isinstance(e, ev.Rolled) and _result_follows(seen[i + 1:]):
            draw = e.draw
            continue
        if isinstance(e, ev.AttackResult) and draw is not None and e.draw is None:
            # The dropped roll's draw number lets a reader check the dice after the game.
            e = replace(e, draw=draw)
            draw = None
        out.append(_for_reader(e, viewer, tz))
    return out


def _for_reader(e: Event, viewer: str | None, tz: str) -> Event:
    """A GM entry's event (extend, resume) as ``viewer`` reads it: each deadline it sets in
    zone ``tz`` as well (``deadline_local`` and ``tz`` beside the UTC time the entry
    records, in the entry and in its group ``offer``), and, with an offer, the ``reader``
    (so its receiver reads of their own answer)."""
    if not isinstance(e, ev.GmNote) or not isinstance(e.entry, dict):
        return e
    entry = e.entry
    entry = _in_zone(entry, tz)
    if isinstance(entry.get("offer"), dict):
        entry = {**entry, "offer": _in_zone(entry["offer"], tz), "reader": viewer or ""}
    return replace(e, entry=entry)


def _in_zone(facts: dict[str, Any], tz: str) -> dict[str, Any]:
    """``facts`` with their ``deadline`` in zone ``tz`` as well; as they are without one."""
    if "deadline" not in facts:
        return facts
    local = moment_facts(datetime.fromisoformat(facts["deadline"]), tz).local
    return {**facts, "deadline_local": local, "tz": tz}


def utc_minute(moment: datetime) -> str:
    """``moment`` as the mails and the game master's texts write it: to the minute, in UTC."""
    return _minute(moment.astimezone(UTC))


def _minute(moment: datetime) -> str:
    """A time as every mail writes it, to the minute, in the zone it is given in."""
    return moment.strftime("%Y-%m-%d %H:%M")


def _result_follows(rest: Sequence[Event]) -> bool:
    for e in rest:
        if isinstance(e, ev.AttackResult):
            return True
        if isinstance(e, ev.AttackAnnounced | ev.Rolled):
            return False
    return False


def group_facts(cards: CardSet, names: Iterable[str]) -> tuple[GroupFacts, ...]:
    """Printed facts of the named groups (any other card is skipped)."""
    out = []
    for name in names:
        card = cards.card(name) if name in cards.names() else None
        if isinstance(card, Group):
            out.append(GroupFacts(card.name, card.power, card.transferable, card.resistance,
                                  card.income, card.alignments, card.ability_text))
    return tuple(out)


def special_facts(cards: CardSet, names: Iterable[str]) -> tuple[SpecialFacts, ...]:
    out = []
    for name in names:
        card = cards.card(name) if name in cards.names() else None
        if isinstance(card, Special):
            out.append(SpecialFacts(card.name, card.effect, card.text, card.conditional))
    return tuple(out)


def illuminati_facts(cards: CardSet, name: str) -> IlluminatiFacts:
    card = cards.illuminati_card(name)
    return IlluminatiFacts(card.name, card.power, card.transferable, card.income,
                           card.ability_text)


def goal_lines(cards: CardSet, player: PlayerView) -> tuple[GoalLine, ...]:
    """The goals the view shows for ``player``, with the alignment they count if any."""
    out = []
    for g in player.goals:
        alignment = ""
        if g.goal in cards.names():
            card = cards.card(g.goal)
            if isinstance(card, Illuminati) and card.goal.alignment:
                alignment = card.goal.alignment
        out.append(GoalLine(g.goal, g.kind, g.have, g.need, alignment))
    return tuple(out)


def me(v: View) -> PlayerView:
    """The viewer's own player view."""
    for p in v.players:
        if p.name == v.viewer:
            return p
    raise PbemError(f"{v.viewer!r} is not a player of {v.game}")


def owner_of(v: View, card: str) -> str:
    """The player whose structure holds ``card``, or ""."""
    for p in v.players:
        if any(c.card == card for c in p.structure):
            return p.name
    return ""


def answers(cards: CardSet, v: View, attack: AttackView) -> Answers:
    """What the viewer may do about ``attack``, from their own view only."""
    mine = me(v)
    defender = owner_of(v, attack.target)
    hand = mine.hand or ()
    role: behaviour.Role = ("attacker" if attack.player == mine.name
                            else "defender" if defender == mine.name else "other")
    treasury = {c.card: c.treasury or 0 for c in mine.structure}
    sources: tuple[tuple[str, int, int], ...] = ()
    if role == "attacker":
        sources = tuple((c, treasury.get(c, 0), 1)
                        for c in dict.fromkeys((attack.attacker, mine.illuminati)))
    elif role == "defender":
        sources = ((attack.target, treasury.get(attack.target, 0), 2),
                   (mine.illuminati, treasury.get(mine.illuminati, 0), 1))
    # A card is offered only to a player it can help (its card data says which side it
    # helps, and whether it answers a privilege: pbem.engine.behaviour).
    held = behaviour.held(cards, dict.fromkeys(hand))
    wanted = {s.name for s in held if behaviour.offered(s, role, attack.privileged)}
    has_interference = any(behaviour.lets_interfere(s) for s in held)
    abolish_pair = tuple(hand[:2]) if len(hand) >= 2 else ("", "")
    return Answers(
        role=role,
        defender=defender,
        sources=sources,
        may_interfere=role == "other" and (not attack.privileged or has_interference),
        privileged=attack.privileged,
        may_abolish=attack.privileged and role != "attacker" and len(hand) >= 2,
        pair=(abolish_pair[0], abolish_pair[1]),
        may_call_off=role == "attacker" and attack.roll is None
        and not any(kind in _MONEY_TERMS for kind, _, _ in attack.terms),
        reactions=tuple(s for s in special_facts(cards, dict.fromkeys(hand))
                        if s.name in wanted),
    )


def others(v: View) -> Sequence[PlayerView]:
    """Every player but the viewer, in turn order."""
    return [p for p in v.players if p.name != v.viewer]
