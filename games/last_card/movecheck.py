"""Last Card's move checker: is a move legal in a state, and if not, why.

One file, standard library only: copy it next to your bot and ``import movecheck``. The
arena judges every move with this very file, so what it accepts the arena accepts.

    from movecheck import check_move, legal_moves

    reason = check_move(state, {"cards": ["7h"], "suit": None, "last_card": False})
    if reason is None:
        ...  # legal
    for move in legal_moves(state):  # every legal move that plays cards (a pass is legal too)
        ...

``state`` is the dict your bot's ``play(state)`` receives; a move is
``{"cards": [...], "suit": "h" or None, "last_card": bool}`` (an empty ``cards`` list passes).

Like the original kit's checker, it cannot know whether you called last card on your
previous turn: emptying your hand without that call is legal, it only costs two cards.
"""

from itertools import permutations

SUITS = "shdc"
RANKS = "A23456789TJQK"
SUIT_NAMES = {"s": "spades", "h": "hearts", "d": "diamonds", "c": "clubs"}
RANK_NAMES = {"A": "ace", "T": "10", "J": "jack", "Q": "queen", "K": "king"}
#: cards a 2 or a 5 adds to the pending punishment
PUNISHMENT = {"2": 2, "5": 5}
MOVE_KEYS = ("cards", "suit", "last_card")
PASS = {"cards": [], "suit": None, "last_card": False}


def card_name(card):
    """``"Td"`` -> ``"10 of diamonds"``."""
    return f"{RANK_NAMES.get(card[0], card[0])} of {SUIT_NAMES[card[1]]}"


def card_points(card):
    """Penalty points of a card left in hand at the end: ace 5, two or five 2, others 1."""
    if card[0] == "A":
        return 5
    if card[0] in PUNISHMENT:
        return 2
    return 1


def hand_value(cards):
    return sum(card_points(c) for c in cards)


def target_suit(last_played, active_suit):
    """The suit a card must follow: the suit chosen with an ace, else the top card's own."""
    if last_played[0] == "A" and active_suit:
        return active_suit
    return last_played[1]


def problem(hand, last_played, active_suit, punishment, move):
    """Why ``move`` is illegal, or None when it is legal. The engine calls this too."""
    if not isinstance(move, dict):
        return (
            'a move is a dict like {"cards": ["7h"], "suit": None, "last_card": False}, '
            f"not {type(move).__name__}"
        )
    unknown = [k for k in move if k not in MOVE_KEYS]
    if unknown:
        return f"unknown key {unknown[0]!r} in the move (known: cards, suit, last_card)"
    if "cards" not in move:
        return "the move has no 'cards' list (an empty list passes)"
    cards, suit = move["cards"], move.get("suit")
    if not isinstance(cards, list):
        return f"'cards' must be a list of cards like ['7h'], not {type(cards).__name__}"
    if not isinstance(move.get("last_card", False), bool):
        return "'last_card' must be true or false"
    if suit is not None and (not isinstance(suit, str) or len(suit) != 1 or suit not in SUITS):
        return f"the suit must be one of 's', 'h', 'd', 'c' or None, not {suit!r}"
    if not cards:
        return None  # a pass is always allowed
    if len(cards) > 4:
        return f"at most 4 cards may be played in a move, not {len(cards)}"
    for card in cards:
        if not isinstance(card, str) or card not in hand:
            return f"{card!r} is not a card in your hand"
    if len(set(cards)) != len(cards):
        return "the same card is played twice"
    first, last = cards[0], cards[-1]
    if any(card[0] != first[0] for card in cards):
        return "all the cards of a move must have the same value"
    if punishment:
        needed = last_played[0]
        if first[0] != needed:
            if first[0] == "A":
                return (
                    f"an ace cannot cancel a punishment: play a {needed} or pass and pick up "
                    f"{punishment} cards"
                )
            if first[1] == last_played[1]:
                return (
                    f"can't just play the same suit on a {needed} to avoid punishment: "
                    f"play a {needed} or pass and pick up {punishment} cards"
                )
            return (
                f"only a {needed} may be played on a pending punishment: "
                f"play one or pass and pick up {punishment} cards"
            )
    elif first[0] != "A":
        follow = target_suit(last_played, active_suit)
        if last_played[0] == "A":
            if first[1] != follow:
                one = SUIT_NAMES[follow][:-1]  # "spade"
                return (
                    f"the ace on top asks for {SUIT_NAMES[follow]} and the {card_name(first)} "
                    f"is not a {one}: play a {one} or an ace, or pass and draw a card"
                )
        elif first[1] != follow and first[0] != last_played[0]:
            return (
                f"the {card_name(first)} matches neither the suit nor the value of the "
                f"{card_name(last_played)}"
            )
    if last[0] == "A":
        if suit is None:
            return "name a suit ('s', 'h', 'd' or 'c') when your last card played is an ace"
        if len(cards) == len(hand):
            return "you cannot end on an ace"
    return None


def check_move(state, move):
    """Why ``move`` is illegal in ``state`` (the dict a bot receives), or None if legal."""
    return problem(
        state["hand"],
        state["last_played"],
        state.get("active_suit"),
        state.get("punishment", 0),
        move,
    )


def is_legal_move(state, move):
    return check_move(state, move) is None


def legal_moves(state, last_card=False):
    """Every legal move that plays cards, in every order and with every suit for an ace.

    A pass (``PASS``) is always legal besides these. ``last_card`` is copied into each move.
    """
    by_value = {}
    for card in state["hand"]:
        by_value.setdefault(card[0], []).append(card)
    moves = []
    for cards in by_value.values():
        for size in range(1, len(cards) + 1):
            for order in permutations(cards, size):
                suits = SUITS if order[-1][0] == "A" else (None,)
                for suit in suits:
                    move = {"cards": list(order), "suit": suit, "last_card": last_card}
                    if check_move(state, move) is None:
                        moves.append(move)
    return moves
