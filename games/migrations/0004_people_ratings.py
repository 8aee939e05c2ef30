"""People on the ladder (docs/people.md): a signed-in person's rating per game, its history,
the per-game lock of rating people, and a table's choice of being rated."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("bots", "0008_fill_opponent_results"),
        ("games", "0003_table_steps"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="PeopleLedger",
            fields=[
                ("game", models.SlugField(max_length=40, primary_key=True, serialize=False)),
            ],
        ),
        migrations.AddField(
            model_name="table",
            name="rated",
            field=models.BooleanField(default=True),
        ),
        migrations.CreateModel(
            name="PersonRating",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("game", models.SlugField(max_length=40)),
                ("mu", models.FloatField()),
                ("sigma", models.FloatField()),
                ("conservative", models.FloatField()),
                ("rank", models.PositiveIntegerField(default=0)),
                ("matches", models.PositiveIntegerField(default=0)),
                ("wins", models.PositiveIntegerField(default=0)),
                ("draws", models.PositiveIntegerField(default=0)),
                ("losses", models.PositiveIntegerField(default=0)),
                ("last_played", models.DateTimeField(blank=True, null=True)),
                (
                    "user",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="person_ratings",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
            ],
        ),
        migrations.CreateModel(
            name="PersonRatingHistory",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("number", models.PositiveIntegerField()),
                ("mu", models.FloatField()),
                ("sigma", models.FloatField()),
                ("mu_before", models.FloatField()),
                ("sigma_before", models.FloatField()),
                ("outcome", models.CharField(max_length=4)),
                ("created", models.DateTimeField(auto_now_add=True)),
                (
                    "match",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="+",
                        to="bots.match",
                    ),
                ),
                (
                    "rating",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="history",
                        to="games.personrating",
                    ),
                ),
            ],
            options={
                "verbose_name_plural": "person rating history",
            },
        ),
        migrations.AddIndex(
            model_name="personrating",
            index=models.Index(fields=["game", "rank"], name="people_board_order"),
        ),
        migrations.AddConstraint(
            model_name="personrating",
            constraint=models.UniqueConstraint(
                fields=("user", "game"), name="one_rating_per_person_game"
            ),
        ),
        migrations.AddConstraint(
            model_name="personratinghistory",
            constraint=models.UniqueConstraint(
                fields=("rating", "number"), name="one_update_per_place"
            ),
        ),
        migrations.AddConstraint(
            model_name="personratinghistory",
            constraint=models.UniqueConstraint(
                fields=("rating", "match"), name="one_update_per_match"
            ),
        ),
    ]
