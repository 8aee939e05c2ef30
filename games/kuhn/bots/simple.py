"""Plays its card: bets or calls with the king, checks or folds with the jack, and with the
queen checks, and calls a bet only as the first to act (after checking)."""


class Bot:
    name = "simple"
    quick = True  # decides within milliseconds: a live table calls it on its event loop

    def act(self, obs):
        card, history = obs["card"], obs["history"]
        if card == "K":
            return "b"
        if card == "J":
            return "p"
        return "b" if history == "pb" else "p"
