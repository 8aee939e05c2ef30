"""Counts cards and wins cheaply.

It remembers every card it has seen: its own deck, the five cards it passed to the opponent,
the base cards and the opponent's plays. Each game it estimates, for every card in hand, the
chance of beating the opponent's reply (known opponent cards count fully, unseen cards by the
chance that they sit in the opponent's deck rather than in the remaining deck), and plays the
card that best trades that chance against the card's worth in the games still to come: it wins
with the cheapest card that is likely to win and throws its weakest card at games it would
lose anyway.
"""

SYMBOLS = "RPS"
BEATS = {"R": "S", "S": "P", "P": "R"}
FULL_DECK = [s + str(n) for s in SYMBOLS for n in range(10)]


def beats(card, other, base):
    card_pair, other_pair = card[1] == base[1], other[1] == base[1]
    if card_pair != other_pair:
        return card_pair
    if card[1] != other[1]:
        return card[1] > other[1]
    return BEATS[card[0]] == other[0]


def _strength(card):
    """Chance of beating a random other card over a random base: the card's general worth."""
    wins = total = 0
    for base in FULL_DECK:
        if base == card:
            continue
        for other in FULL_DECK:
            if other in (card, base):
                continue
            total += 1
            wins += beats(card, other, base)
    return wins / total


STRENGTH = {card: _strength(card) for card in FULL_DECK}


class Bot:
    name = "strong"
    #: how much a card's worth in later games counts against spending it now
    thrift = 0.9

    def __init__(self):
        self.mine = []  # my 10-card deck as it builds up
        self.given = []  # cards I passed: known to be in the opponent's deck
        self.received = 0
        self.bases = []  # base cards revealed so far
        self.opponent_played = []
        self.games_played = 0

    # ---- draft --------------------------------------------------------------------------
    def draft_pick(self, cards):
        pick = 0 if STRENGTH[cards[0]] >= STRENGTH[cards[1]] else 1
        self.mine.append(cards[pick])
        self.given.append(cards[1 - pick])
        return pick

    def draft_receive(self, card):
        self.mine.append(card)

    # ---- main ---------------------------------------------------------------------------
    def main_play(self, hand, base):
        self.bases.append(base)
        weights = self._opponent_cards(hand)
        games_left_after = 10 - self.games_played - 1
        thrift = self.thrift * games_left_after / 9
        best, best_value = 0, None
        total = sum(weights.values()) or 1.0
        for i, card in enumerate(hand):
            p_win = sum(w for o, w in weights.items() if beats(card, o, base)) / total
            value = p_win - thrift * STRENGTH[card]
            if best_value is None or value > best_value:
                best, best_value = i, value
        return best

    def main_postprocess(self, card):
        self.opponent_played.append(card)
        self.games_played += 1

    def _opponent_cards(self, hand):
        """Each card the opponent may still hold, weighted by the chance it does."""
        known = [c for c in self.given if c not in self.opponent_played]
        unknown_left = 5 - sum(1 for c in self.opponent_played if c not in self.given)
        seen = set(self.mine) | set(self.given) | set(self.bases) | set(self.opponent_played)
        pool = [c for c in FULL_DECK if c not in seen]
        weights = dict.fromkeys(known, 1.0)
        if pool and unknown_left > 0:
            share = unknown_left / len(pool)
            for card in pool:
                weights[card] = share
        return weights
