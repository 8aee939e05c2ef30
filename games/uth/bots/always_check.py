"""Never raises early: checks before the flop and on the flop, then bets 1x at the river."""


class Bot:
    name = "always-check"
    quick = True  # decides within milliseconds: a live table calls it on its event loop

    def act(self, obs):
        legal = obs["legal"]
        for choice in ("[check]", "[1x]"):
            if choice in legal:
                return choice
        return legal[0]
