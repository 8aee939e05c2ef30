"""The original kit's naive bot: plays the first card of its hand that may be played, alone,
and calls last card when it will then hold one card. Standard library only.
"""


def _may_play(card, state):
    """Whether ``card`` alone is a legal move (the rules of games/last_card/movecheck.py)."""
    top = state["last_played"]
    if state["punishment"]:
        return card[0] == top[0]
    if card[0] == "A":
        return len(state["hand"]) > 1  # you cannot end on an ace
    if top[0] == "A":
        return card[1] == (state["active_suit"] or top[1])
    return card[0] == top[0] or card[1] == top[1]


class Bot:
    name = "naive"
    quick = True  # decides within milliseconds: a live table calls it on its event loop

    def play(self, state):
        for card in state["hand"]:
            if _may_play(card, state):
                return {
                    "cards": [card],
                    "suit": card[1] if card[0] == "A" else None,
                    "last_card": len(state["hand"]) == 2,
                }
        return {"cards": [], "suit": None, "last_card": False}
