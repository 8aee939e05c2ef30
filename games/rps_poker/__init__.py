"""RPS Poker: a tiny Texas Hold'em crossed with rock-paper-scissors and a draft."""
