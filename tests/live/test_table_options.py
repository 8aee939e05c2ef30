"""A live table's form offers the game's options (Goofspiel's cards, deals and what a deal
pays; a chip game's hands; Blackjack++'s hits), which its match is played with; a value
refused is named, as the arena's --option names it."""

from __future__ import annotations

import pytest
from django.test import Client

from games.live.views import TableForm
from games.models import Table
from games.registry import get_game
from tests.live.test_table_pages import form_data, text_of

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("game", "names"),
    [
        ("goofspiel", ["num_cards", "deals", "returns_type"]),
        ("kuhn", ["hands"]),
        ("leduc", ["hands"]),
        ("blackjack-pp", ["hands", "max_hits"]),
    ],
)
def test_the_form_offers_the_games_options(game, names):
    form = TableForm(get_game(game), [])
    assert [f.name for f in form.setting_fields] == ["turn_timer", *names, "rated"]
    page = text_of(Client().get(f"/games/{game}/tables/"))
    for name in names:
        assert f'name="{name}"' in page


def test_a_goofspiel_table_plays_with_the_options_chosen():
    response = Client().post(
        "/games/goofspiel/tables/",
        form_data("goofspiel", ["me", "builtin:matching"], num_cards=5, deals=1,
                  returns_type="point_difference"),
    )  # fmt: skip
    assert response.status_code == 302
    table = Table.objects.get()
    assert table.config == {"num_cards": 5, "deals": 1, "returns_type": "point_difference"}
    state = get_game("goofspiel").state_class.new(1, config=table.config)
    assert state.hands == [[1, 2, 3, 4, 5], [1, 2, 3, 4, 5]]


def test_a_table_option_refused_is_named():
    response = Client().post(
        "/games/goofspiel/tables/",
        form_data("goofspiel", ["me", "open"], num_cards=7, deals=1, returns_type="win_loss"),
    )
    assert response.status_code == 400
    assert "cards: choose one of 5, 8, 10, 13" in text_of(response)
    assert not Table.objects.exists()


def test_every_table_option_is_an_option_of_its_game_and_takes_its_choices():
    # the table's menus offer only what the game's options (games.engine.options) take
    from games.engine.options import check_options
    from games.registry import games

    for spec in games():
        if spec.table is None:
            continue
        declared = {option.name for option in spec.options}
        for option in spec.table().options:
            if option.name == "max_rounds":  # UTH's rounds: the arena's --rounds-per-session
                continue
            assert option.name in declared, f"{spec.slug}: {option.name}"
            for value, _ in option.choices:
                check_options(spec, {option.name: value})
