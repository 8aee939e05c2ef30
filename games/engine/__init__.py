"""The engine core shared by every game: cards, chance, match records, the runner, agents.

Pure Python: no Django, no I/O, no clock (the runner takes its clock as an argument).
"""
