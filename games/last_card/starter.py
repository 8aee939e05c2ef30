"""A starter bot for Last Card (Card Arena). Python 3, standard library only.

Cards are two characters, rank then suit: "As", "Td" (ten of diamonds), "7h". Run it at a
table of four on your machine, from a clone of Card Arena:

    .venv/bin/python manage.py arena --game last-card last_card_starter.py \
        --fill builtin:naive --games 100

In the arena (``--no-sandbox`` too) and on the site the move checker ``movecheck.py`` sits
beside this file, so ``import movecheck`` works; without it, the simple rules below are used.

A fresh Bot() is made for every game. ``play`` has 1 second a call (plus a 10-second bank per
game), and anything you print goes to your bot's log, never into the game.
"""

try:
    from movecheck import legal_moves
except ImportError:  # no checker beside the bot: fall back on single cards
    legal_moves = None

PASS = {"cards": [], "suit": None, "last_card": False}
POINTS = {"A": 5, "2": 2, "5": 2}  # what a card left in hand costs; others cost 1


def playable_alone(card, state):
    """Whether ``card`` may be played on its own now (the rules, simplified)."""
    top = state["last_played"]
    if state["punishment"]:
        return card[0] == top[0]  # only a 2 on a 2, a 5 on a 5
    if card[0] == "A":
        return len(state["hand"]) > 1  # an ace goes on anything, but you cannot end on one
    if top[0] == "A":
        return card[1] == (state["active_suit"] or top[1])
    return card[0] == top[0] or card[1] == top[1]


def best_suit(cards):
    """The suit we hold most of: the one to name after an ace."""
    suits = [c[1] for c in cards if c[0] != "A"] or ["s"]
    return max(set(suits), key=suits.count)


class Bot:
    name = "starter"

    def play(self, state):
        hand = state["hand"]
        if legal_moves is not None:
            moves = legal_moves(state)
        else:
            moves = [{"cards": [c], "suit": None, "last_card": False}
                     for c in hand if playable_alone(c, state)]  # fmt: skip
        if not moves:
            return PASS  # draw one card (or take the punishment)

        def value(move):
            # shed the most penalty points, keep aces for later
            shed = sum(POINTS.get(c[0], 1) for c in move["cards"])
            return (move["cards"][0][0] != "A", shed, len(move["cards"]))

        move = dict(max(moves, key=value))
        left = [c for c in hand if c not in move["cards"]]
        if move["cards"][-1][0] == "A":
            move["suit"] = best_suit(left)
        # Call last card when what is left can go out in one move: a single value, no ace.
        move["last_card"] = bool(left) and len({c[0] for c in left}) == 1 and left[0][0] != "A"
        return move
