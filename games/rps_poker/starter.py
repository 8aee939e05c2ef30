"""A starter bot for RPS Poker (Card Arena). Python 3, standard library only.

Cards are two-character strings, symbol then number: "R3" is rock 3, "S9" scissors 9.
Run it against a built-in bot on your machine, from a clone of Card Arena:

    .venv/bin/python manage.py arena --game rps-poker rps_poker_starter.py \
        builtin:simple --rounds 20

A fresh Bot() is made for every match. Each call has 1 second (plus a 10-second bank per
match), and anything you print goes to your bot's log, never into the game.
"""

BEATS = {"R": "S", "S": "P", "P": "R"}  # rock beats scissors, scissors paper, paper rock


def wins(mine, theirs, base):
    """Whether card ``mine`` beats ``theirs`` with ``base`` turned up."""
    my_pair, their_pair = mine[1] == base[1], theirs[1] == base[1]
    if my_pair != their_pair:
        return my_pair
    if mine[1] != theirs[1]:
        return mine[1] > theirs[1]
    return BEATS[mine[0]] == theirs[0]


class Bot:
    name = "starter"

    def __init__(self):
        self.theirs = []  # cards we know the opponent holds (we passed them over)

    def draft_pick(self, cards):
        """Two cards are offered: return 0 or 1, the one to keep (the other goes across)."""
        self.theirs.append(cards[1] if cards[0][1] >= cards[1][1] else cards[0])
        return 0 if cards[0][1] >= cards[1][1] else 1

    def draft_receive(self, card):
        """The card the opponent passed to us. Nothing to answer."""

    def main_play(self, hand, base):
        """Return the index in ``hand`` of the card to play against the ``base`` card."""
        pairs = [i for i, card in enumerate(hand) if card[1] == base[1]]
        if pairs:
            return pairs[0]
        # Beat as many of the opponent's known cards as we can; else throw our lowest card.
        best = max(range(len(hand)), key=lambda i: sum(wins(hand[i], t, base) for t in self.theirs))
        if self.theirs and any(wins(hand[best], t, base) for t in self.theirs):
            return best
        return min(range(len(hand)), key=lambda i: hand[i][1])

    def main_postprocess(self, card):
        """The card the opponent just played: it is no longer in their hand."""
        if card in self.theirs:
            self.theirs.remove(card)
