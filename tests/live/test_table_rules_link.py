"""A person at a live table (a phone's first visit) can read the game's rules from the table's
page without leaving it: a link to the rules of the game's page, in a new tab; the lobby's
"Read the rules first" leads to the rules themselves, not to the top of the bot authors' page."""

from __future__ import annotations

import pytest
from django.test import Client

from games.models import Table
from games.registry import games

pytestmark = pytest.mark.django_db

TABLE_GAMES = [spec.slug for spec in games() if spec.table is not None]


@pytest.mark.parametrize("game", TABLE_GAMES)
def test_the_table_page_links_to_the_rules_in_a_new_tab(game):
    guest = Client()
    lobby = guest.get(f"/games/{game}/tables/").content.decode()
    assert f'href="/games/{game}/#rules">Read the rules first</a>' in lobby
    assert guest.post(f"/games/{game}/tables/quick/").status_code == 302
    table = Table.objects.get()
    page = guest.get(f"/tables/{table.token}/").content.decode()
    link = page[page.index('id="table-rules"') - 200 : page.index('id="table-rules"') + 200]
    assert f'href="/games/{game}/#rules"' in link
    assert 'target="_blank"' in link and 'rel="noopener"' in link
    assert "in a new tab" in link
    rules = guest.get(f"/games/{game}/").content.decode()
    assert 'id="rules"' in rules


def test_the_rules_link_of_an_ended_table_says_nothing_of_a_table_going_on():
    guest = Client()
    assert guest.post("/games/kuhn/tables/quick/").status_code == 302
    table = Table.objects.get()
    playing = guest.get(f"/tables/{table.token}/").content.decode()
    assert "the table goes on here" in playing
    Table.objects.filter(pk=table.pk).update(state=Table.ABANDONED, error="it stopped")
    ended = guest.get(f"/tables/{table.token}/").content.decode()
    assert 'id="table-rules"' in ended
    assert "the table goes on here" not in ended
