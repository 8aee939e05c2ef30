"""A starter bot for Kuhn poker (Card Arena). Python 3, standard library only.

Three cards J < Q < K; each player antes 1 chip and gets one card. The first to act checks
("p") or bets 1 ("b"); facing a bet you fold ("p") or call ("b"). Run it on your machine,
from a clone of Card Arena, against the built-in CFR bot:

    .venv/bin/python manage.py arena --game kuhn kuhn_starter.py builtin:cfr --rounds 20

A fresh Bot() is made for each match (100 hands). ``act`` has 1 second a call (plus a
10-second bank per match); anything you print goes to your bot's log, never into the game.
"""

import random


class Bot:
    name = "starter"

    def __init__(self):
        self.rng = random.Random()

    def act(self, obs):
        card, history = obs["card"], obs["history"]  # e.g. "Q" and "pb"
        if history.endswith("b"):  # facing a bet: call with the king, sometimes the queen
            return "b" if card == "K" or (card == "Q" and self.rng.random() < 0.3) else "p"
        if card == "K":
            return "b"
        if card == "J":  # bluff now and then
            return "b" if self.rng.random() < 0.2 else "p"
        return "p"
