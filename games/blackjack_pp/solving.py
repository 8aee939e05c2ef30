"""Blackjack++ for the CFR solver: the game it solves, its options (the up cards and the most
hits: flags of ``manage.py solve`` and fields of the strategy explorer), and the bot that
``manage.py solve --bot`` writes (one table per set of up cards and max hits). What
``manage.py solve --out`` writes is games/blackjack_pp/dump.py."""

from __future__ import annotations

from games.blackjack_pp.tree import MAX_HITS, NAMES, BlackjackPP, parse_up_cards
from games.engine.spec import SolverBot, SolverOption


def _up_text(value: str) -> str:
    """``"6,6,T"`` -> ``"6, 6, 10"``."""
    return ", ".join("10" if card == "T" else card for card in value.split(","))


UP = SolverOption(
    name="up",
    label="Up cards",
    help="up cards of player 0, player 1 and the dealer",
    default="6,6,2",
    metavar="CARDS",
    # card values as the keys write them (``T`` is any ten-valued card)
    choices=tuple((NAMES[v], "10 / J / Q / K" if v == 10 else NAMES[v]) for v in range(1, 11)),
    initial="6,6,2",
    parts=("Player 0", "Player 1", "Dealer"),
    missing="Choose an up card.",
    text=_up_text,
)

#: the web solves every max hits; 3 hits runs fewer iterations (each takes 0.1-0.4 s)
WEB_MAX_HITS = MAX_HITS
WEB_ITERATIONS_3_HITS = 300

HITS = SolverOption(
    name="max_hits",
    label="Max hits",
    help=", ".join(str(n) for n in MAX_HITS[:-1]) + f" or {MAX_HITS[-1]}",
    default=2,
    parse=int,
    metavar="K",
    choices=tuple((n, str(n)) for n in WEB_MAX_HITS),
    initial=1,
    web_help="1 solves in about a second and 2 in seconds. 3 has about 475,000 information "
    f"sets: at most {WEB_ITERATIONS_3_HITS} iterations, 0.1 to 0.4 s each (100 bring the "
    "exploitability near 0.001).",
    missing="Choose 1, 2 or 3.",
    web_note=f"max hits 3: at most {WEB_ITERATIONS_3_HITS} iterations",
    file_name="hits{}",
    web_iterations=((3, WEB_ITERATIONS_3_HITS),),
)

OPTIONS = (UP, HITS)


def solver_game(up: str | None = None, max_hits: int | None = None) -> BlackjackPP:
    """The solver's Blackjack++: ``up`` cards of player 0, player 1 and the dealer (e.g.
    ``"6,6,2"``) and at most ``max_hits`` hits (1, 2 or 3); ValueError says what is wrong."""
    hits = HITS.default if max_hits is None else max_hits
    if hits not in MAX_HITS:
        raise ValueError(f"{HITS.flag} must be {HITS.help} (got {hits})")
    return BlackjackPP(parse_up_cards(up if up is not None else UP.default), hits)


def _table_key(settings: dict) -> str:
    """A solve's table in a written bot: its up cards and max hits, ``"6,6,T/1"``."""
    return ",".join(settings["up"]) + "/" + str(settings["max_hits"])


#: a solve covers one set of up cards, which the solver's key (``obs["infoset"]``) leaves out:
#: the bot finds its table by the deal's up cards (``obs["up"]``) and max hits, named as
#: :func:`_table_key` names a solve's, and plays the simple rule on a deal no solve covered
BOT_SOURCE = '''
def setting(obs):
    """The table of this deal's up cards and max hits, like "6,6,T/1" (ten-valued cards
    are T, as in the solver's keys)."""
    up = ["T" if card[0] in "TJQK" else card[0] for card in obs["up"]]
    return ",".join(up) + "/" + str(obs["max_hits"])


def fallback(obs, rng):
    """A deal no table covers: hit below 15, else stand."""
    return "hit" if obs["total"] < 15 else "stand"
'''

BOT = SolverBot(
    answers={"h": "hit", "s": "stand"},
    table_key=_table_key,
    source=BOT_SOURCE,
    fallback_text="the simple rule: hit below 15, else stand",
)
