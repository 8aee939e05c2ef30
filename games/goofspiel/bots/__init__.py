"""Built-in Goofspiel bots: standalone files (standard library only, a top-level ``class
Bot``), run in-process or in the sandbox exactly like uploaded bots. The random bot is the
shared one, ``games/bots/uniform.py``."""
