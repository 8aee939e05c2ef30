"""The steps of live tables' matches in play, for resuming a table whose process died
(docs/live-tables.md), and an index for the sweep that finds such tables."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0002_solve_jobs"),
    ]

    operations = [
        migrations.CreateModel(
            name="TableStep",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("index", models.PositiveIntegerField()),
                ("step", models.JSONField()),
                (
                    "table",
                    models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="+",
                        to="games.table",
                    ),
                ),
            ],
            options={
                "constraints": [
                    models.UniqueConstraint(
                        fields=("table", "index"), name="one_step_per_table_call"
                    )
                ],
            },
        ),
        migrations.AddIndex(
            model_name="table",
            index=models.Index(
                fields=["state", "host_heartbeat"], name="games_table_state_39ac26_idx"
            ),
        ),
    ]
