"""What a socket reads of its table from the database: every socket of every player does it,
so each read is made once."""

from __future__ import annotations

import pytest

from games.live import tables
from games.live.consumers import _look


@pytest.mark.django_db
def test_a_socket_sees_an_open_table_in_two_queries(django_assert_num_queries):
    """A socket's look at an open table (its lobby, and whether it is full) is the table and
    its seats, and no seat is read twice."""
    made = tables.create_table("rps-poker", tables.Person(None, "guest"), ["me", "open"])
    with django_assert_num_queries(2):
        sight = _look(0, pk=made.pk)
    assert sight is not None and sight.lobby is not None and not sight.full
    assert [seat["open"] for seat in sight.lobby["seats"]] == [False, True]
    assert [seat["kind"] for seat in sight.lobby["seats"]] == ["person", "open"]
