"""The 95% interval of a mean (``games.engine.tournament.mean_interval``): Student's t for
small samples, never of no width where every value was the same, cut to the statistic's
range; and the cells that show it."""

from __future__ import annotations

import math
import statistics

import pytest
from scipy.special import stdtrit

from games.engine.tournament import (
    interval_column,
    mean_interval,
    mean_sd_se,
    t95,
    wilson_interval,
)


@pytest.mark.parametrize("df", [*range(1, 40), 50, 99, 100, 250, 1000, 10_000])
def test_t95_is_students_quantile(df):
    assert t95(df) == pytest.approx(float(stdtrit(df, 0.975)), abs=1e-6)


def interval_of(values, **bounds):
    mean, sd, _ = mean_sd_se(sum(values), sum(v * v for v in values), len(values))
    return mean_interval(mean, sd, len(values), **bounds)


def test_a_few_values_get_students_t_not_the_normals_196():
    values = [0.2, 0.6, 1.0]
    low, high = interval_of(values)
    half = 4.3027 * statistics.stdev(values) / math.sqrt(3)
    assert (low, high) == pytest.approx((0.6 - half, 0.6 + half), abs=1e-4)
    # the normal's 1.96 would claim half the width from three matches
    assert high - low > 2 * (2 * 1.96 * statistics.stdev(values) / math.sqrt(3))


def test_one_value_has_no_interval():
    assert mean_interval(1.0, 0.0, 1, low=-1, high=1) is None
    assert mean_interval(1.0, 0.0, 0) is None


def test_the_same_score_every_match_is_not_certainty():
    # Goofspiel after three matches won on every deal: "+1.000 (+1.000 to +1.000)" before
    low, high = interval_of([1.0, 1.0, 1.0], low=-1, high=1)
    assert high == 1.0
    # as wide as three wins out of three: the widest spread a mean in -1..+1 can have
    share_low, _ = wilson_interval(3, 3)
    assert low == pytest.approx(-1 + 2 * share_low) and low == pytest.approx(-0.123, abs=1e-3)
    # more matches of the same narrow it, never to nothing
    many_low, many_high = interval_of([1.0] * 40, low=-1, high=1)
    assert low < many_low < 1.0 and many_high == 1.0
    # a level score in the middle of the range: wide both ways, within the range
    low, high = interval_of([0.25] * 4, low=-1, high=1)
    assert -1 < low < 0.25 < high < 1 and high - low > 1


def test_the_same_score_with_no_known_range_has_no_interval_yet():
    # the sum of squares leaves a rounding error, not a spread, in these
    assert interval_of([1 / 3] * 5) is None
    assert interval_of([0.0] * 8, low=0.0) is None  # Last Card: points from 0, no top


def test_intervals_stay_within_what_the_statistic_can_take():
    low, high = interval_of([1.0, 1.0, 1.0, 1 / 3], low=-1, high=1)
    assert high == 1 and -1 < low < 1
    low, high = interval_of([0.0] * 9 + [31.0], low=0.0)
    assert low == 0.0 and high > 3.1


@pytest.mark.parametrize(
    ("interval", "text"),
    [
        ([-0.123, 1.0], "+1.000 (-0.123 to +1.000)"),
        (None, "+1.000 (too few matches)"),
        # a stored row from before: an interval of no width is no interval
        ([1.0, 1.0], "+1.000 (too few matches)"),
    ],
)
def test_the_cell_shows_the_interval_or_that_there_is_none_yet(interval, text):
    column = interval_column("score/deal (95% CI)", "score", "ci")
    assert column.show({"score": 1.0, "ci": interval}) == text
    assert column.cell({"score": 1.0, "ci": interval})["value"] == 1.0
