"""Fill the results by opponent from the matches stored before they were kept."""

from django.db import migrations

from bots.aggregates import COUNTERS, tally_rows

BATCH = 5000


def fill(apps, schema_editor):
    MatchSeat = apps.get_model("bots", "MatchSeat")
    OpponentResult = apps.get_model("bots", "OpponentResult")
    OpponentResult.objects.all().delete()
    seats = MatchSeat.objects.order_by("match_id", "seat").values_list(
        "match_id", "match__game", "bot_id", "name", "score"
    )
    totals = tally_rows(seats.iterator(chunk_size=BATCH))
    rows = []
    for (bot_id, key), values in sorted(totals.items()):
        kind, _, value = key.partition(":")
        rows.append(
            OpponentResult(
                bot_id=bot_id,
                key=key,
                opponent_id=int(value) if kind == "bot" else None,
                name="" if kind == "bot" else value,
                **dict(zip(COUNTERS, values, strict=True)),
            )
        )
    OpponentResult.objects.bulk_create(rows, batch_size=BATCH)


class Migration(migrations.Migration):
    dependencies = [("bots", "0007_opponent_results")]

    operations = [migrations.RunPython(fill, migrations.RunPython.noop)]
