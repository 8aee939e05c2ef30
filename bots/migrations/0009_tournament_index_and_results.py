"""Two things for the tournament pages at scale:

- an index of the tournaments by game, newest first: /tournaments/?game= and the API's list
  filtered by game read a page of it from where the last page stopped, with no sort of all
  of that game's tournaments; it serves a lookup by game alone too, so the game column's own
  index goes;
- ``TournamentResult``, each bot's totals in a tournament and its results against each other
  bot there, kept as matches are stored (``bots.ladder.aggregates``), filled here from the stored
  seats: the standings and cross table read these instead of every seat.
"""

import django.db.models.deletion
from django.db import migrations, models

from bots.ladder.aggregates import TOURNAMENT_COUNTERS, tournament_rows

BATCH = 5000


def fill(apps, schema_editor):
    MatchSeat = apps.get_model("bots", "MatchSeat")
    TournamentResult = apps.get_model("bots", "TournamentResult")
    TournamentResult.objects.all().delete()
    seats = (
        MatchSeat.objects.filter(match__tournament__isnull=False)
        .order_by("match_id", "seat")
        .values_list("match_id", "match__tournament_id", "match__game", "bot_id", "score",
                     "fault_kind")
    )  # fmt: skip
    totals = tournament_rows(seats.iterator(chunk_size=BATCH))
    rows = [
        TournamentResult(
            tournament_id=tournament_id,
            bot_id=bot_id,
            opponent=opponent,
            # (the counters of that time: the worker time, counted later, is 0 here)
            **dict(zip(TOURNAMENT_COUNTERS, values[: len(TOURNAMENT_COUNTERS)], strict=True)),
        )
        for (tournament_id, bot_id, opponent), values in sorted(totals.items())
    ]
    TournamentResult.objects.bulk_create(rows, batch_size=BATCH)


class Migration(migrations.Migration):
    dependencies = [
        ("bots", "0008_fill_opponent_results"),
    ]

    operations = [
        migrations.CreateModel(
            name="TournamentResult",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("opponent", models.PositiveBigIntegerField(default=0)),
                ("matches", models.PositiveIntegerField(default=0)),
                ("points_for", models.FloatField(default=0)),
                ("points_against", models.FloatField(default=0)),
                ("faults", models.PositiveIntegerField(default=0)),
            ],
        ),
        migrations.AlterField(
            model_name="tournament",
            name="game",
            field=models.SlugField(db_index=False, max_length=40),
        ),
        migrations.AddIndex(
            model_name="tournament",
            index=models.Index(fields=["game", "-id"], name="tournament_game_newest"),
        ),
        migrations.AddField(
            model_name="tournamentresult",
            name="bot",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.CASCADE, related_name="+", to="bots.bot"
            ),
        ),
        migrations.AddField(
            model_name="tournamentresult",
            name="tournament",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.CASCADE,
                related_name="kept_results",
                to="bots.tournament",
            ),
        ),
        migrations.AddIndex(
            model_name="tournamentresult",
            index=models.Index(fields=["tournament", "opponent"], name="tournament_totals"),
        ),
        migrations.AddConstraint(
            model_name="tournamentresult",
            constraint=models.UniqueConstraint(
                fields=("tournament", "bot", "opponent"), name="one_tournament_result_per_pair"
            ),
        ),
        migrations.RunPython(fill, migrations.RunPython.noop),
    ]
