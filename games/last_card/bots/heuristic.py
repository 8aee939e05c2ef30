"""A heuristic Last Card bot. Standard library only.

Each turn it looks at every value it could play and plays all the cards of that value at
once (aces one at a time), scored by:
- penalty points shed (aces 5, twos and fives 2, others 1) and cards shed;
- attacking a player close to going out: a 2 or 5 to punish it, a 10 to skip it, a jack to
  turn play away from it;
- what the rest of the hand can do next: one value left means it can go out next turn; a
  hand of only aces is a trap (you cannot end on an ace), so the last ace goes before the
  last ordinary card, naming that card's suit;
- how many of the remaining cards follow the card it leaves on top;
- a small cost for giving up an ace (a wild card), outweighed by the 5 points it sheds.
The last card played is the one whose suit the rest of the hand follows best. It calls last
card when what is left can be played in one move (and, while its ten free calls last, when it
passes holding one card).
"""

SUITS = "shdc"


def points(card):
    if card[0] == "A":
        return 5
    if card[0] in "25":
        return 2
    return 1


def may_lead(card, state):
    """Whether ``card`` may be the first card of a move (the rules of movecheck.py)."""
    top = state["last_played"]
    if state["punishment"]:
        return card[0] == top[0]
    if card[0] == "A":
        return True
    if top[0] == "A":
        return card[1] == (state["active_suit"] or top[1])
    return card[0] == top[0] or card[1] == top[1]


def finishable(rest):
    """Whether ``rest`` can be played out in one move (same value, not ending on an ace)."""
    return 0 < len(rest) <= 4 and len({c[0] for c in rest}) == 1 and rest[0][0] != "A"


def best_suit(rest):
    """The suit the rest of the hand holds most points of (aces do not count: they follow)."""
    score = {s: 0.0 for s in SUITS}
    for card in rest:
        if card[0] != "A":
            score[card[1]] += 1 + 0.1 * points(card)
    return max(SUITS, key=lambda s: score[s])


class Bot:
    name = "heuristic"
    quick = True  # decides within milliseconds: a live table calls it on its event loop

    def __init__(self):
        self.calls = 0

    def play(self, state):
        hand = state["hand"]
        best, best_score = None, None
        groups = {}
        for card in hand:
            groups.setdefault(card[0], []).append(card)
        for value, cards in groups.items():
            leads = [c for c in cards if may_lead(c, state)]
            if not leads:
                continue
            options = [cards] if value != "A" else [[c] for c in leads]
            for chosen in options:
                move = self._order(chosen, leads, hand)
                if move is None:
                    continue
                score = self._score(move, state)
                if best_score is None or score > best_score:
                    best, best_score = move, score
        if best is None:
            call = len(hand) == 1 and self.calls < 10 and not state["punishment"]
            return self._call({"cards": [], "suit": None, "last_card": call})
        return self._call(best)

    def _call(self, move):
        if move["last_card"]:
            self.calls += 1
        return move

    def _order(self, chosen, leads, hand):
        rest = [c for c in hand if c not in chosen]
        if not rest and chosen[-1][0] == "A":
            return None  # you cannot end on an ace
        want = best_suit(rest) if rest else None
        first = next((c for c in leads if c in chosen and c[1] != want), None)
        first = first or next(c for c in leads if c in chosen)
        others = [c for c in chosen if c != first]
        others.sort(key=lambda c: c[1] == want)  # the wanted suit goes last
        cards = [first, *others]
        suit = want if cards[-1][0] == "A" else None
        if suit is None and cards[-1][0] == "A":
            suit = cards[-1][1]
        return {"cards": cards, "suit": suit, "last_card": finishable(rest)}

    def _score(self, move, state):
        cards = move["cards"]
        value, k = cards[0][0], len(cards)
        hand = state["hand"]
        rest = [c for c in hand if c not in cards]
        sizes = state["hand_sizes"]
        n, seat, direction = len(sizes), state["seat"], state["direction"]
        score = sum(points(c) for c in cards) + 1.5 * k
        if not rest:
            return 1000.0  # going out (legal only after a call; otherwise still shedding)
        if value == "A":
            score -= 2.0 if len(rest) <= 2 else 1.0  # a wild card has some worth in hand
        if value in "25" and state["punishment"]:
            score += 10.0  # pass the punishment on instead of drawing it
        if value == "J" and k % 2:
            direction = -direction
        following = (seat + direction) % n
        threat = sizes[following] <= 2 and following != seat
        if threat:
            if value in "25":
                score += 6.0
            if value == "T":
                score += 5.0
        if value == "J" and k % 2:
            before = (seat - direction) % n  # who would have played next without the jack
            if sizes[before] <= 2 and sizes[following] > sizes[before]:
                score += 5.0
        if finishable(rest):
            score += 4.0
        if all(c[0] == "A" for c in rest):
            score -= 8.0
        top_suit = move["suit"] or cards[-1][1]
        score += 1.0 * sum(1 for c in rest if c[1] == top_suit or c[0] == value)
        return score
