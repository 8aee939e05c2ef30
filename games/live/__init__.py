"""Live tables: people and bots at one table, played through the one match runner.

``games.live.humans`` is the person's Agent, ``games.live.host`` runs a table's match in a
thread of its own and shows every seat and spectator what it may see. Neither knows about
Django or websockets: the consumers (``games.live.consumers``) connect them to browsers
through the channel layer.
"""
