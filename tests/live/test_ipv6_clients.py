"""The guests of one IPv6 /64 are one network for live tables, tables with uploaded bots and
websockets, as for every per-address limit (``cardsite.accounts.client_ip``): a home or a
phone is given a whole /64 and may use any address of it."""

from __future__ import annotations

import pytest
from asgiref.sync import sync_to_async
from django.test import Client

from games.live import tables
from games.live.sockets import TOO_MANY_SOCKETS, socket_address
from tests.live.test_bot_table_limits import uploaded  # noqa: F401 (a fixture)
from tests.live.test_socket_limits import first_frame, spectator
from tests.people.helpers import GAME

#: five addresses of one /64, and one of the /64 next to it
ONE_64 = [f"2001:db8:1:2::{n}" for n in range(1, 6)]
OTHER_64 = "2001:db8:1:3::1"
TABLE = {"players": "2", "turn_timer": "30", "seat_0": "me", "seat_1": "open"}


def open_from(address: str, data: dict[str, str]):
    """The create form, sent by a new guest (a new session) at ``address``."""
    return Client(REMOTE_ADDR=address).post(f"/games/{GAME}/tables/", data)


@pytest.mark.django_db
def test_guests_of_one_64_share_its_tables(settings):
    settings.LIVE_TABLES_PER_GUEST_ADDRESS = 2
    for address in ONE_64[:2]:
        assert open_from(address, TABLE).status_code == 302
    for address in ONE_64[2:]:
        refused = open_from(address, TABLE)
        assert refused.status_code == 429
        assert "guests from your network already have 2 tables open or being played" in (
            refused.content.decode()
        )
    assert open_from(OTHER_64, TABLE).status_code == 302


def test_guests_of_one_64_share_its_tables_with_uploaded_bots(uploaded, settings):  # noqa: F811
    settings.LIVE_BOT_TABLES_PER_GUEST_ADDRESS = 1
    data = TABLE | {"seat_1": uploaded}
    assert open_from(ONE_64[0], data).status_code == 302
    refused = open_from(ONE_64[1], data)
    assert refused.status_code == 429
    assert "guests from your address already have 1 table with uploaded bots" in (
        refused.content.decode()
    )
    assert open_from(OTHER_64, data).status_code == 302


def test_a_sockets_address_is_its_64(settings):
    settings.TRUSTED_PROXIES = 0
    ours = {socket_address({"client": (address, 1), "headers": []}) for address in ONE_64}
    assert ours == {tables.address_key("2001:db8:1:2::")}
    assert socket_address({"client": (OTHER_64, 1), "headers": []}) not in ours
    mapped = socket_address({"client": ("::ffff:203.0.113.9", 1), "headers": []})
    assert mapped == tables.address_key("203.0.113.9")
    settings.TRUSTED_PROXIES = 1  # behind one proxy: the address it appended
    forwarded = {"client": ("10.0.0.2", 1), "headers": [(b"x-forwarded-for", b"2001:db8:1:2::9")]}
    assert socket_address(forwarded) in ours


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_sockets_from_one_64_share_its_places(settings):
    settings.LIVE_SOCKETS_PER_ADDRESS = 2
    table, _ = await sync_to_async(tables.guest_table)(GAME, ["me", "open"])
    held = []
    for address in ONE_64[:2]:
        comm = await spectator(table.token, address)
        assert (await comm.connect())[0]
        assert (await first_frame(comm))["type"] == "hello"
        held.append(comm)
    refused = await spectator(table.token, ONE_64[2])
    assert (await refused.connect())[0]  # accepted only to be told why
    assert (await first_frame(refused))["type"] == "refused"
    closed = await refused.receive_output(timeout=10)
    assert closed["code"] == TOO_MANY_SOCKETS
    await refused.wait()
    other = await spectator(table.token, OTHER_64)  # another /64 has places of its own
    assert (await other.connect())[0]
    assert (await first_frame(other))["type"] == "hello"
    for comm in [*held, other]:
        await comm.disconnect()
