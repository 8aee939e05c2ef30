"""Pages of a long list by where the last page stopped (keyset pagination), not by a page
number.

A page numbered N is read with ``OFFSET``: the database walks past every row before it, and
the page's "N of M" needs a ``COUNT(*)`` of the whole list, so both grow with the list. A
keyset page asks for the rows after (or before) the last one shown, by the list's own order,
which an index serves directly: the first page and the thousandth cost the same, and rows
stored meanwhile neither repeat nor go missing. The position is the ordering fields' values
of that row (a *cursor*, written ``12`` or ``3_418`` for two fields); the order always ends
with the primary key, so rows that tie on the other fields still have one place each.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.db.models import Q, QuerySet
from django.http import HttpRequest, HttpResponse

from cardsite.errors import error_page
from games.engine.untrusted import whole_number


class BadCursor(ValueError):
    """A cursor that is not one of ours: not whole numbers, or not as many as the order
    has fields. The message says what was expected."""


@dataclass(frozen=True)
class KeysetPage:
    """One page: its items, and the cursors of the pages after and before it (``None`` where
    there is none). ``first`` is true for the page the list starts with."""

    items: list[Any]
    after: str | None
    before: str | None
    first: bool


def parse(text: str, fields: int) -> tuple[int, ...]:
    """A cursor's values: ``fields`` whole numbers joined by ``_``."""
    values = [whole_number(part) for part in text.split("_")]
    if len(values) != fields or None in values:
        shape = "_".join(["<number>"] * fields)
        raise BadCursor(f"{text[:40]!r} is not a position in this list (expected {shape})")
    return tuple(values)  # type: ignore[arg-type]


def _beyond(order: list[str], values: tuple[int, ...], forward: bool) -> Q:
    """Rows strictly past ``values`` in ``order`` (``forward``) or strictly before them:
    (a, b) > (x, y) is a > x, or a = x and b > y."""
    condition = Q()
    for n, field in enumerate(order):
        descending = field.startswith("-")
        name = field.lstrip("-")
        later = forward != descending
        step = Q(**{f"{name}__{'gt' if later else 'lt'}": values[n]})
        for m in range(n):
            step &= Q(**{order[m].lstrip("-"): values[m]})
        condition |= step
    return condition


def page(
    query: QuerySet,
    order: list[str],
    size: int,
    *,
    after: str | None = None,
    before: str | None = None,
    leading: tuple[str, ...] = (),
) -> KeysetPage:
    """The ``size`` rows of ``query`` in ``order`` that come right after the cursor
    ``after``, or right before the cursor ``before``, or the first ones when neither is
    given. ``order``'s fields must be whole numbers and end with ``pk`` (or ``-pk``).
    ``leading``: fields that are the same in every row of ``query``, sorted by before
    ``order`` (and left out of the cursor), so that the order asked is an index's that
    begins with them. Raises :class:`BadCursor` for a cursor that is not well formed; a
    well-formed one past either end gives an empty page. One query of at most ``size + 1``
    rows (two when a step back reaches the start, which then shows the first page whole)."""
    names = [f.lstrip("-") for f in order]
    if after:
        values = parse(after, len(order))
        rows = list(
            query.filter(_beyond(order, values, True)).order_by(*leading, *order)[: size + 1]
        )
        more_after, items, more_before = len(rows) > size, rows[:size], True
    elif before:
        values = parse(before, len(order))
        backwards = [f[1:] if f.startswith("-") else f"-{f}" for f in (*leading, *order)]
        rows = list(query.filter(_beyond(order, values, False)).order_by(*backwards)[: size + 1])
        if len(rows) <= size:  # back at the start: the first page, full
            return page(query, order, size, leading=leading)
        more_before, items, more_after = True, rows[:size][::-1], True
    else:
        rows = list(query.order_by(*leading, *order)[: size + 1])
        more_after, items, more_before = len(rows) > size, rows[:size], False

    def cursor(item: Any) -> str:
        return "_".join(str(_value(item, name)) for name in names)

    return KeysetPage(
        items=items,
        after=cursor(items[-1]) if items and more_after else None,
        before=cursor(items[0]) if items and more_before else None,
        first=not more_before,
    )


def _value(item: Any, name: str) -> Any:
    if isinstance(item, dict):
        return item["id" if name == "pk" and "pk" not in item else name]
    return getattr(item, name)


def bad_request(request: HttpRequest, reason: Exception) -> HttpResponse:
    """A 400 that says what was wrong with the address (a forged page position), on the
    site's error page."""
    return error_page(request, 400, str(reason))
