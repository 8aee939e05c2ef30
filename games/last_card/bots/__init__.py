"""Last Card's built-in bots: standalone files (standard library only), like uploaded bots."""
