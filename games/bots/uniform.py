"""Plays a legal action uniformly at random.

It carries its own small generator (a linear congruential one, seeded, so a match replays
the same) instead of importing ``random``: the site saves an uploaded bot under its name,
and a file called ``random.py`` importing ``random`` would import itself.
"""


class Bot:
    name = "random"
    quick = True  # decides within milliseconds: a live table calls it on its event loop

    def __init__(self):
        self.state = 20261122

    def act(self, obs):
        self.state = (self.state * 6364136223846793005 + 1442695040888963407) % 2**64
        legal = obs["legal"]
        return legal[(self.state >> 33) % len(legal)]
