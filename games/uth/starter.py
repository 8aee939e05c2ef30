"""A starter bot for Ultimate Texas Hold'em (Card Arena). Python 3, standard library only.

Cards are two characters, rank then suit: "As", "Td", "7h" (ranks 23456789TJQKA, suits
cdhs). Run it on your machine, from a clone of Card Arena, next to the built-in basic bot:

    .venv/bin/python manage.py arena --game uth uth_starter.py builtin:basic --sessions 5

A fresh Bot() is made for each session. ``act`` has 1 second a call (plus a 10-second bank
per session) and returns action text such as "[4x]"; anything you print goes to your bot's
log, never into the game.
"""

RANKS = "23456789TJQKA"


class Bot:
    name = "starter"

    def act(self, obs):
        legal = obs["legal"]
        if legal == ["[skip]"]:
            return "[skip]"  # we already bet this round
        hole, board = obs["hole"], obs["board"]
        high = max(RANKS.index(c[0]) for c in hole)
        pocket_pair = hole[0][0] == hole[1][0]
        paired = pocket_pair or any(c[0] in {b[0] for b in board} for c in hole)
        if obs["phase"] == "pre_flop":
            # bet big with a pocket pair or an ace; otherwise wait for the flop
            return "[4x]" if pocket_pair or high == RANKS.index("A") else "[check]"
        if obs["phase"] == "flop":
            return "[2x]" if paired else "[check]"
        # river: bet with a pair using one of our cards, or a king or better; fold otherwise
        return "[1x]" if paired or high >= RANKS.index("K") else "[fold]"
