"""A starter bot for Leduc hold'em (Card Arena). Python 3, standard library only.

Six cards, J, Q and K in two suits ("Js", "Qh"...). Each player antes 1 and gets one card;
a betting round; a public card is turned; a second betting round. Actions: "f" folds (only
facing a raise), "c" checks or calls, "r" raises (2 in the first round, 4 in the second, at
most two raises a round). A pair with the public card wins, else the higher card. Run it on
your machine, from a clone of Card Arena, against the built-in CFR bot:

    .venv/bin/python manage.py arena --game leduc leduc_starter.py builtin:cfr --rounds 20

A fresh Bot() is made for each match (100 hands). ``act`` has 1 second a call (plus a
10-second bank per match); anything you print goes to your bot's log, never into the game.
"""

STRENGTH = {"J": 0, "Q": 1, "K": 2}


class Bot:
    name = "starter"

    def act(self, obs):
        legal = obs["legal"]  # e.g. ["f", "c", "r"]
        rank = obs["card"][0]
        board = obs["board"]  # None before the public card is turned
        paired = board is not None and board[0] == rank
        strong = paired or (board is None and rank == "K")
        if strong:
            return "r" if "r" in legal else "c"
        weak = STRENGTH[rank] == 0 or (board is not None and STRENGTH[board[0]] > STRENGTH[rank])
        if weak and "f" in legal:
            return "f"
        return "c"
