"""How fast order lines are read: ``python bench/orders.py`` prints lines per second.

The mail mixes short orders with the longest the grammar has (attacks with every part,
White Collar Crime with several moves, names that hold keywords), with the players given,
as the service reads it.
"""

from __future__ import annotations

import json
import time

from pbem.engine.carddata import load_cardset
from pbem.orders import parse_orders

PLAYERS = ("Alice", "Bob", "Carol", "Dan")
LINES = (
    "ATTACK Mafia CONTROL Boy Sprouts WITH CIA, Pentagon SPEND 3 FROM Mafia UPTO 10 THEN MOVE 2",
    "ATTACK Orbital Mind Control Lasers DESTROY Hackers PRIVILEGE Bribery",
    "TRANSFER 3 FROM CIA TO Mafia",
    "MOVE Boy Sprouts TO Mafia LEFT",
    "GIVE CARD Secrets Man Was Not Meant To Know TO Bob",
    "GIVE 5 MB TO carol",
    "PLAY White Collar Crime MOVE 3 FROM CIA TO Mafia, 2 FROM Pentagon TO CIA BONUS TO Mafia",
    "DEFEND 2 FROM Hackers UPTO 6",
    "STANDING IF ANYONE ATTACKS Hackers AND SUCCEEDS PLAY Murphy's Law",
    "ATTACK Mafia CONTROL Boy Sprots",  # an error: costs a "did you mean"
    "PASS",
)


def run(repeat: int = 40) -> dict[str, float]:
    """Gives the order lines read per second over one mail of ``repeat`` rounds of LINES."""
    cards = load_cardset()
    body = "\n".join(LINES * repeat)
    text = f"GAME bench PLAYER Alice PASSWORD x\n{body}\nEND\n"
    parse_orders(text, cards, PLAYERS)  # warm the name matchers, as a running service has
    start = time.perf_counter()
    parsed = parse_orders(text, cards, PLAYERS)
    seconds = time.perf_counter() - start
    lines = len(LINES) * repeat
    assert len(parsed.orders) + len(parsed.errors) == lines
    return {"lines": lines, "seconds": round(seconds, 4),
            "lines_per_second": round(lines / seconds, 1)}


if __name__ == "__main__":
    print(json.dumps(run(), indent=2))
