"""Hits while its total is below 15 (never busting on a total of 11 or less), else stands."""


class Bot:
    name = "simple"
    quick = True  # decides within milliseconds: a live table calls it on its event loop

    def act(self, obs):
        return "hit" if obs["total"] < 15 else "stand"
