"""Count a tournament's jobs by status from an index (``bots.competition.counts``): the
index on (tournament, status) takes the place of the one on tournament alone, which it
serves too (a tournament's jobs, and those deleted with it). It is made before the other
goes, so that a tournament's jobs are never without an index."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("bots", "0021_results_by_opponent_without_live_tables"),
    ]

    operations = [
        migrations.AddIndex(
            model_name="matchjob",
            index=models.Index(fields=["tournament", "status"], name="job_tournament_status"),
        ),
        migrations.AlterField(
            model_name="matchjob",
            name="tournament",
            field=models.ForeignKey(
                db_index=False,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="jobs",
                to="bots.tournament",
            ),
        ),
    ]
