"""``manage.py seed_builtins``: enter every game's built-in bots into the competition.

They belong to the user ``house`` (who cannot log in) and go through the same pipeline as any
upload: a worker validates them in the sandbox, then they play placement matches and join
the leaderboard, so a fresh site has opponents from the start. Running it again adds only
what changed (a built-in whose code is new gets a new version).
"""

from __future__ import annotations

from django.contrib.auth import get_user_model

from bots.competition.uploads import upload
from bots.models import HOUSE, BotVersion
from games.management.database import DatabaseCommand
from games.registry import game_slugs, get_game

__all__ = ["Command"]


class Command(DatabaseCommand):
    help = "Enter the built-in bots of every game as bots of the user 'house'."

    def handle(self, *args, **opts) -> None:
        users = get_user_model()
        owner, created = users.objects.get_or_create(username=HOUSE)
        if created:
            owner.set_unusable_password()
            owner.save()
        added = 0
        for slug in game_slugs():
            game = get_game(slug)
            for name in game.builtin_names:
                path = game.builtin_path(name)
                code = path.read_text()
                known = BotVersion.objects.filter(
                    bot__owner=owner, bot__game=slug, bot__name=name,
                    checksum=BotVersion.checksum_of(code),
                ).exclude(status=BotVersion.REJECTED)  # fmt: skip
                if known.exists():
                    continue
                version = upload(owner, slug, name, path.name, code.encode())
                added += 1
                self.stdout.write(f"{slug}: {name} v{version.number} queued for validation")
        self.stdout.write(f"built-in bots: {added} new version(s)")
