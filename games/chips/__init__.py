"""What the two-player chip games share: Kuhn poker, Leduc hold'em and Blackjack++.

Each is a match of many hands (deals) between two seats who take turns to act first, scored
in chips (points) won. This package holds their common base, and each game's package
(``games/kuhn``, ``games/leduc``, ``games/blackjack_pp``) builds on it:

- ``match``: :class:`~games.chips.match.HandsMatch`, the engine of a match of hands;
- ``botapi``: the one-method contract's ``bot_call`` (``act(obs)``);
- ``tournament``: the chips (points) round robin;
- ``table``: the recent hands a live table shows everyone;
- ``replay``: the replay frames;
- ``cfr_bot``: the generator of a built-in ``cfr`` bot from the solver.
"""
