"""The card a COUNTER plays is named by whoever builds the command, from the card data
(``pbem.engine.behaviour.counter_in``): ``Counter`` has no default card. A log written
when it had one (the shipped set's Secrets Man Was Not Meant To Know) reads as it meant."""

from __future__ import annotations

import pytest

from pbem.engine.codec import from_json, to_json
from pbem.engine.commands import OLD_LOG_COUNTER_CARD, Command, Counter


def test_a_counter_is_built_with_its_card() -> None:
    """specials.csv: Secrets Man Was Not Meant To Know, "when any other special card is
    played, that card has no effect": whichever card of the set does that is named."""
    with pytest.raises(TypeError):
        Counter("ann")  # type: ignore[call-arg]
    assert Counter("ann", "Hush Money").card == "Hush Money"


def test_logged_counters_read_back_and_are_written_as_before() -> None:
    """A logged COUNTER keeps its form byte for byte; one logged without a card (the old
    default) reads as the card it meant."""
    played = Counter("ann", "Secrets Man Was Not Meant To Know")
    assert to_json(played) == {"type": "Counter", "player": "ann",
                               "card": "Secrets Man Was Not Meant To Know"}
    assert from_json(Command, to_json(played)) == played
    assert from_json(Command, {"type": "Counter", "player": "ann"}) == Counter(
        "ann", OLD_LOG_COUNTER_CARD)
    assert OLD_LOG_COUNTER_CARD == "Secrets Man Was Not Meant To Know"
