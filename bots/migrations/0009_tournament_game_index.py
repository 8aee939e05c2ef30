"""An index of the tournaments by game, newest first: /tournaments/?game= and the API's list
filtered by game read a page of it from where the last page stopped, with no sort of all of
that game's tournaments. It serves a lookup by game alone too, so the index of the game
column alone goes."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("bots", "0008_fill_opponent_results"),
    ]

    operations = [
        migrations.AlterField(
            model_name="tournament",
            name="game",
            field=models.SlugField(db_index=False, max_length=40),
        ),
        migrations.AddIndex(
            model_name="tournament",
            index=models.Index(fields=["game", "-id"], name="tournament_game_newest"),
        ),
    ]
