"""Built-in bots that play more than one game: any whose contract is ``act(obs)`` with the
legal actions in ``obs["legal"]`` (Kuhn, Leduc, Blackjack++)."""
