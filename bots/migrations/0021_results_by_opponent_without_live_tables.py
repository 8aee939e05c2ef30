"""Take the live tables' matches out of the results by opponent (``OpponentResult``): they
count a bot's tournament matches only (``bots.ladder.aggregates``). Until now a live table's
match was added too, its people and built-in bots named as rows of their own.

It works from the live tables' matches (a match without a tournament), which are few, found
through the index of matches by tournament; it never reads a tournament's match. Their seats
are counted as they were added (``aggregates.tally_rows``) and taken off the rows; a row left
with no match goes. Going back adds them again.
"""

from django.db import migrations

from bots.ladder.aggregates import COUNTERS, tally_rows

#: live tables' matches read at a time, and rows changed at a time
BATCH = 2000


def live_table_totals(apps):
    """What the live tables' matches added to the rows: (bot id, key) -> counters."""
    Match = apps.get_model("bots", "Match")
    MatchSeat = apps.get_model("bots", "MatchSeat")
    live = Match.objects.filter(tournament__isnull=True).order_by("pk")
    ids = list(live.values_list("pk", flat=True))
    totals = {}
    for start in range(0, len(ids), BATCH):
        seats = (
            MatchSeat.objects.filter(match_id__in=ids[start : start + BATCH])
            .order_by("match_id", "seat")
            .values_list("match_id", "match__game", "bot_id", "name", "score")
        )
        for key, values in tally_rows(seats).items():
            entry = totals.setdefault(key, [0] * len(COUNTERS))
            for n, value in enumerate(values):
                entry[n] += value
    return totals


def change(apps, sign):
    """Add (``sign`` 1) or take off (-1) the live tables' matches."""
    OpponentResult = apps.get_model("bots", "OpponentResult")
    totals = live_table_totals(apps)
    keys = sorted(totals)
    for start in range(0, len(keys), BATCH):
        batch = keys[start : start + BATCH]
        found = {
            (row.bot_id, row.key): row
            for row in OpponentResult.objects.filter(
                bot_id__in={bot for bot, _ in batch}, key__in={key for _, key in batch}
            )
        }
        changed, gone, new = [], [], []
        for bot_id, key in batch:
            values = totals[(bot_id, key)]
            row = found.get((bot_id, key))
            if row is None:
                if sign < 0:
                    continue  # nothing of it kept
                kind, _, value = key.partition(":")
                row = OpponentResult(
                    bot_id=bot_id,
                    key=key,
                    opponent_id=int(value) if kind == "bot" else None,
                    name="" if kind == "bot" else value,
                )
                new.append(row)
            for counter, value in zip(COUNTERS, values, strict=True):
                left = getattr(row, counter) + sign * value
                setattr(row, counter, left if counter.startswith("points") else max(0, left))
            if row.matches <= 0:
                gone.append(row.pk)
            elif row.pk is not None:
                changed.append(row)
        OpponentResult.objects.filter(pk__in=gone).delete()
        OpponentResult.objects.bulk_update(changed, COUNTERS)
        OpponentResult.objects.bulk_create(new)
    if sign < 0:
        # only a live table seats anyone but an uploaded bot: a row of a name is a table's
        OpponentResult.objects.filter(opponent__isnull=True).delete()


def take_out(apps, schema_editor):
    change(apps, -1)


def put_back(apps, schema_editor):
    change(apps, 1)


class Migration(migrations.Migration):
    dependencies = [("bots", "0020_leaderboard_row_without_head_to_head")]

    operations = [migrations.RunPython(take_out, put_back)]
