"""Ultimate Texas Hold'em: one seat against the dealer, as in TextArena's UltimateTexasHoldem-v0."""
