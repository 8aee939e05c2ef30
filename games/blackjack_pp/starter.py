"""A starter bot for Blackjack++ (Card Arena). Python 3, standard library only.

You, the other player and the dealer each have an up card and a down card; you see the up
cards and your own down card. Players act in turn: "hit" (draw a card, face up) or "stand";
you are done when you stand, bust (over 21) or have hit max_hits times. The dealer then
draws to 17. The three hands are ranked (a bust hand below any other) for 2, 1 and 0
points; your payoff is your points minus the other player's. Run it on your machine, from
a clone of Card Arena, against a built-in bot:

    .venv/bin/python manage.py arena --game blackjack-pp blackjack_pp_starter.py \
        builtin:simple --rounds 10

A fresh Bot() is made for each match (50 deals). ``act`` has 1 second a call (plus a
10-second bank per match); anything you print goes to your bot's log, never into the game.
"""


def value(card):
    """A card's value: "As" is 1 (an ace may count 11), "Td", "Jh", "Qc", "Ks" are 10."""
    return 1 if card[0] == "A" else 10 if card[0] in "TJQK" else int(card[0])


class Bot:
    name = "starter"

    def act(self, obs):
        total = obs["total"]  # your total, an ace counted 11 where that does not bust
        if total <= 11:
            return "hit"  # no card can bust you
        # the other player's visible cards: its up card and what it drew
        other = 1 - obs["position"]
        shown = value(obs["up"][other]) + sum(value(c) for c in obs["hits"][other])
        # stand on 17 or more; on 12-16 hit if the other player shows a strong hand
        if total >= 17:
            return "stand"
        return "hit" if shown + 6 > total else "stand"
