"""A starter bot for Goofspiel (Card Arena). Python 3, standard library only.

Each player holds cards 1..13; the prizes 1..13 are shuffled and turned up one at a time.
Both players bid one of their cards at once; the higher bid takes the prize's points, equal
bids discard it, and bid cards are gone. Most prize points wins the deal. Run it on your
machine, from a clone of Card Arena, against the built-in bot:

    .venv/bin/python manage.py arena --game goofspiel goofspiel_starter.py \
        builtin:matching --rounds 20

A fresh Bot() is made for each match (3 deals). ``act`` has 1 second a call (plus a
10-second bank per match); anything you print goes to your bot's log, never into the game.
"""


class Bot:
    name = "starter"

    def act(self, obs):
        prize, hand = obs["prize"], obs["hand"]  # e.g. 9 and [1, 4, 9, 12]
        theirs = obs["opponent_hand"]
        # a big prize: the smallest card that beats every card they still hold, if we have one
        if prize >= 10:
            winners = [card for card in hand if card > max(theirs)]
            if winners:
                return min(winners)
        # a small prize: not worth a good card, so give up our smallest
        if prize <= 3:
            return min(hand)
        # otherwise bid the card closest to the prize's value
        return min(hand, key=lambda card: abs(card - prize))
