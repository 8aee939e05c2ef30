"""Last Card: a shedding game for 2-4 players, with the original kit's statistics and logs."""
