"""A simple, sound Ultimate Texas Hold'em strategy (standard library only).

Before the flop, bet 4x with any pair but deuces, any ace, a suited king, K5+ offsuit, Q6+
suited, Q8+ offsuit, J8+ suited or JT offsuit. On the flop, bet 2x with two pair or better
that uses a hole card, with a pair that uses a hole card (pocket deuces excepted), or with
four cards to a flush including a hole card of ten or better in that suit. At the river, bet
1x with a pair or better that uses a hole card, or when fewer than 21 of the 45 unseen cards
would give the dealer, on top of the board, a better hand than ours; otherwise fold.
"""

RANKS = "23456789TJQKA"
VALUE = {r: i + 2 for i, r in enumerate(RANKS)}
DECK = [r + s for r in RANKS for s in "cdhs"]

HIGH_CARD, PAIR, TWO_PAIR, TRIPS, STRAIGHT, FLUSH, FULL_HOUSE, QUADS, STRAIGHT_FLUSH = range(9)


def top_straight(values):
    """The top card of the best straight among these card values, or 0."""
    present = 0
    for v in values:
        present |= 1 << v
    if present & (1 << 14):
        present |= 2  # the ace also plays low
    for high in range(14, 4, -1):
        if (present >> (high - 4)) & 31 == 31:
            return high
    return 0


def strength(cards):
    """A tuple that orders hands of five to seven cards: (category, tie-breakers...)."""
    values = sorted((VALUE[c[0]] for c in cards), reverse=True)
    by_suit = {}
    for card in cards:
        by_suit.setdefault(card[1], []).append(VALUE[card[0]])
    flush = next((sorted(v, reverse=True) for v in by_suit.values() if len(v) >= 5), None)
    if flush:
        high = top_straight(flush)
        if high:
            return (STRAIGHT_FLUSH, high)
    counts = {}
    for v in values:
        counts[v] = counts.get(v, 0) + 1
    groups = sorted(((n, v) for v, n in counts.items()), reverse=True)
    size, top = groups[0]
    if size == 4:
        return (QUADS, top, max(v for v in values if v != top))
    if size == 3 and len(groups) > 1 and groups[1][0] >= 2:
        return (FULL_HOUSE, top, groups[1][1])
    if flush:
        return (FLUSH, *flush[:5])
    high = top_straight(values)
    if high:
        return (STRAIGHT, high)
    if size == 3:
        return (TRIPS, top, *[v for v in values if v != top][:2])
    if size == 2 and groups[1][0] == 2:
        second = groups[1][1]
        return (TWO_PAIR, top, second, max(v for v in values if v not in (top, second)))
    if size == 2:
        return (PAIR, top, *[v for v in values if v != top][:3])
    return (HIGH_CARD, *values[:5])


def raise_preflop(hole):
    high, low = sorted((VALUE[c[0]] for c in hole), reverse=True)
    suited = hole[0][1] == hole[1][1]
    if high == low:
        return high >= 3
    if high == 14:
        return True
    if high == 13:
        return suited or low >= 5
    if high == 12:
        return low >= (6 if suited else 8)
    if high == 11:
        return low >= (8 if suited else 10)
    return False


def hole_pairs(hole, board):
    """A pair that uses a hole card: a pocket pair, or a hole card matching the board."""
    board_ranks = {c[0] for c in board}
    return hole[0][0] == hole[1][0] or any(c[0] in board_ranks for c in hole)


def raise_flop(hole, flop):
    mine = strength(hole + flop)
    if mine[0] >= TWO_PAIR and mine[0] > strength_of_board(flop):
        return True
    if hole_pairs(hole, flop) and not (hole[0][0] == hole[1][0] == "2"):
        return True
    for suit in "cdhs":
        if sum(c[1] == suit for c in hole + flop) >= 4 and any(
            c[1] == suit and VALUE[c[0]] >= 10 for c in hole
        ):
            return True
    return False


def strength_of_board(board):
    """The category of the shared cards alone (three to five cards)."""
    counts = sorted((sum(c[0] == r for c in board) for r in {c[0] for c in board}), reverse=True)
    if len(board) == 5:
        return strength(board)[0]
    if counts[0] == 3:
        return TRIPS
    return PAIR if counts[0] == 2 else HIGH_CARD


def dealer_outs(hole, board):
    """How many unseen cards would give the dealer, with the board, a better hand than ours."""
    mine = strength(hole + board)
    seen = set(hole + board)
    return sum(strength([*board, card]) > mine for card in DECK if card not in seen)


def call_river(hole, board):
    mine = strength(hole + board)
    if mine[0] >= PAIR and (hole_pairs(hole, board) or mine[0] > strength_of_board(board)):
        return True
    return dealer_outs(hole, board) < 21


class Bot:
    name = "basic"
    quick = True  # decides within milliseconds: a live table calls it on its event loop

    def act(self, obs):
        legal, hole, board = obs["legal"], obs["hole"], obs["board"]
        if legal == ["[skip]"]:
            return "[skip]"
        if obs["phase"] == "pre_flop":
            return "[4x]" if raise_preflop(hole) else "[check]"
        if obs["phase"] == "flop":
            return "[2x]" if raise_flop(hole, board) else "[check]"
        return "[1x]" if call_river(hole, board) else "[fold]"
