"""Built-in RPS Poker bots. Each file is a standalone bot (standard library only, a top-level
``class Bot``), so it runs in-process or in a child process exactly like an uploaded bot."""
