"""Built-in Leduc hold'em bots: standalone files (standard library only, a top-level ``class
Bot``), run in-process or in the sandbox exactly like uploaded bots."""
