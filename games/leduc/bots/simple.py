"""Plays its card's strength: raises with a pair or a king, calls with a queen, and folds a
jack that did not pair when facing a raise."""


class Bot:
    name = "simple"
    quick = True  # decides within milliseconds: a live table calls it on its event loop

    def act(self, obs):
        legal = obs["legal"]
        rank = obs["card"][0]
        board = obs["board"]
        if (board is not None and board[0] == rank) or (board is None and rank == "K"):
            return "r" if "r" in legal else "c"
        if rank == "J" or (board is not None and rank == "Q" and board[0] == "K"):
            return "f" if "f" in legal else "c"
        return "c"
