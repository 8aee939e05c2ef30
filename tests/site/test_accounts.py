"""Accounts: sign up, log in with a lockout after repeated failures, log out, password change."""

from __future__ import annotations

import gc
import html
import re

import pytest
from django.conf import settings
from django.contrib.auth.models import User
from django.test import AsyncClient, Client

from cardsite.accounts import SIGNUP_ATTEMPTS_PER_ACCOUNT, signup_throttle

PASSWORD = "correct-Horse-battery-9"
NEW_PASSWORD = "another-Staple-42-long"
EVIL = "https://evil.example/"


pytestmark = pytest.mark.usefixtures("fresh_counters")


@pytest.fixture
def alice(db) -> User:
    return User.objects.create_user("alice", "alice@example.org", PASSWORD)


def signup_data(username: str = "bob", **extra: str) -> dict[str, str]:
    return {"username": username, "email": "", "password1": PASSWORD, "password2": PASSWORD} | extra


def logged_in_as(client: Client) -> str | None:
    user_id = client.session.get("_auth_user_id")
    return User.objects.get(pk=user_id).username if user_id else None


def good_login(client: Client, username: str = "alice"):
    return client.post("/accounts/login/", {"username": username, "password": PASSWORD})


def fail_login(client: Client, username: str = "alice", **extra):
    return client.post("/accounts/login/", {"username": username, "password": "wrong"}, **extra)


# Sign up ------------------------------------------------------------------------------------


@pytest.mark.django_db
def test_it_signs_you_up_logs_you_in_and_sends_you_to_your_bots(client):
    response = client.post("/accounts/signup/", signup_data(email="bob@example.org"))
    assert response.status_code == 302
    assert response["Location"] == "/my/bots/"
    bob = User.objects.get(username="bob")
    assert bob.email == "bob@example.org"
    assert bob.check_password(PASSWORD)
    assert logged_in_as(client) == "bob"
    home = client.get("/").content.decode()
    assert "Welcome, bob! Your account is ready." in home
    assert "Log out" in home


@pytest.mark.django_db
def test_it_sends_a_new_account_to_a_safe_next_only(client):
    wanted = "/games/rps-poker/leaderboard/"
    response = client.post(f"/accounts/signup/?next={wanted}", signup_data("carol"))
    assert response["Location"] == wanted
    other = Client()
    response = other.post("/accounts/signup/", signup_data("dave", next=EVIL))
    assert response["Location"] == "/my/bots/"


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("username", "said"),
    [("bob\u202enimda", "U+202E RIGHT-TO-LEFT OVERRIDE"), ("b\u200do", "U+200D ZERO WIDTH JOINER")],
)
def test_it_refuses_a_username_with_a_control_or_format_character(client, username, said):
    response = client.post("/accounts/signup/", signup_data(username))
    assert response.status_code == 200
    page = response.content.decode()
    assert f"The username holds {said}; names are plain text." in page
    assert not User.objects.exists()


@pytest.mark.django_db
@pytest.mark.parametrize("username", [".", "..", "..."])
def test_it_refuses_a_username_of_dots_only_whose_profile_address_would_not_work(client, username):
    response = client.post("/accounts/signup/", signup_data(username))
    assert response.status_code == 200
    page = html.unescape(response.content.decode())
    assert "A username cannot be only dots: your page's address would not work." in page
    assert not User.objects.exists()
    # dots among other characters are a name like any other
    assert client.post("/accounts/signup/", signup_data(f"a{username}b")).status_code == 302


@pytest.mark.django_db
def test_it_refuses_a_username_that_is_taken_in_any_case(client, alice):
    for taken in ("alice", "ALICE"):
        response = client.post("/accounts/signup/", signup_data(taken))
        assert response.status_code == 200
        page = response.content.decode()
        assert "A user with that username already exists." in page
        # the error sits with its field, and the field points at it
        assert 'id="id_username_error"' in page
        assert re.search(r'<input[^>]*name="username"[^>]*aria-invalid="true"', page)
    assert User.objects.count() == 1
    assert logged_in_as(client) is None


@pytest.mark.django_db
def test_it_explains_weak_and_mismatched_passwords(client):
    weak = client.post(
        "/accounts/signup/", signup_data(password1="password", password2="password")
    ).content.decode()
    assert "This password is too common." in weak
    mismatched = client.post(
        "/accounts/signup/", signup_data(password2=PASSWORD + "x")
    ).content.decode()
    assert "The two password fields didn\u2019t match." in mismatched
    assert 'id="id_password2_error"' in mismatched
    assert not User.objects.exists()


def autofocused(page: str) -> list[str]:
    """The names of the page's inputs that take the focus as it loads."""
    inputs = re.findall(r"<input\b[^>]*>", page)
    return [re.search(r'name="([^"]+)"', tag).group(1) for tag in inputs if " autofocus" in tag]


def page_title(page: str) -> str:
    return html.unescape(re.search(r"<title>(.*?)</title>", page, re.S).group(1))


def alerts(page: str) -> list[str]:
    """The text of each role="alert" box."""
    boxes = re.findall(r'role="alert">(.*?)</div>', page, re.S)
    return [" ".join(html.unescape(re.sub(r"<[^>]+>", " ", box)).split()) for box in boxes]


@pytest.mark.django_db
def test_a_sign_up_sent_back_says_what_to_fix_and_starts_at_its_first_wrong_field(client):
    """A screen reader hears the error as the page comes back: its title says so, an alert
    names the fields to fix, and the focus starts in the first of them (not the username,
    Django's autofocus, which was right)."""
    fresh = client.get("/accounts/signup/").content.decode()
    assert page_title(fresh) == "Sign up · Card Arena"
    assert autofocused(fresh) == ["username"]
    assert alerts(fresh) == []

    page = client.post("/accounts/signup/", signup_data(password2=PASSWORD + "x")).content.decode()
    assert page_title(page) == "Error: Sign up · Card Arena"
    assert alerts(page) == ["Please fix 1 field: Password confirmation."]
    assert autofocused(page) == ["password2"]

    page = client.post(
        "/accounts/signup/", signup_data("al ice", email="not an address", password2="x")
    ).content.decode()
    assert alerts(page) == [
        "Please fix 3 fields: Username, Email (optional), Password confirmation."
    ]
    assert autofocused(page) == ["username"]


@pytest.mark.django_db
def test_a_failed_log_in_and_password_change_say_so_in_their_title(client, alice):
    page = fail_login(client).content.decode()
    assert page_title(page) == "Error: Log in · Card Arena"
    # the form's own error, no field named: the focus stays in the username
    assert alerts(page) == [
        "That username and password do not match an account. Both are case-sensitive."
    ]
    assert autofocused(page) == ["username"]
    assert page_title(client.get("/accounts/login/").content.decode()) == "Log in · Card Arena"

    client.force_login(alice)
    page = client.post(
        "/accounts/password/",
        {"old_password": PASSWORD, "new_password1": NEW_PASSWORD, "new_password2": "other"},
    ).content.decode()
    assert page_title(page) == "Error: Change your password · Card Arena"
    assert alerts(page) == ["Please fix 1 field: New password confirmation."]
    assert autofocused(page) == ["new_password2"]


@pytest.mark.django_db
def test_it_limits_sign_ups_from_one_address(client, settings):
    settings.SIGNUP_LIMIT = 2
    for name in ("u1", "u2"):
        assert Client().post("/accounts/signup/", signup_data(name)).status_code == 302
    refused = client.post("/accounts/signup/", signup_data("u3"))
    assert refused.status_code == 429
    page = refused.content.decode()
    assert "Too many sign-up attempts from your network." in page
    assert re.search(r"try again in \d+ minutes?", page)
    # a sign-up counts for an hour (to within the minute it was made in)
    assert 3600 < int(refused["Retry-After"]) <= 3660
    assert not User.objects.filter(username="u3").exists()
    # another address is not held back
    elsewhere = Client(REMOTE_ADDR="203.0.113.9")
    assert elsewhere.post("/accounts/signup/", signup_data("u3")).status_code == 302


class Clock:
    """The time the accounts' counters read, set by the test."""

    def __init__(self, now: float) -> None:
        self.now = now

    def time(self) -> float:
        return self.now


@pytest.fixture
def clock(monkeypatch) -> Clock:
    from cardsite import accounts

    at = Clock(1_800_000_000.0)  # a clock hour: 3600 divides it
    monkeypatch.setattr(accounts, "time", at)
    return at


@pytest.mark.django_db
def test_the_sign_up_limit_does_not_start_again_at_the_clock_hour(client, settings, clock):
    settings.SIGNUP_LIMIT = 2
    hour = clock.now
    clock.now = hour - 90  # 10:58:30
    for name in ("u1", "u2"):
        assert Client().post("/accounts/signup/", signup_data(name)).status_code == 302
    clock.now = hour + 30  # 11:00:30, two minutes later: a new clock hour, the same hour
    refused = client.post("/accounts/signup/", signup_data("u3"))
    assert refused.status_code == 429
    page = " ".join(html.unescape(refused.content.decode()).split())
    # the sign-ups of 10:58 count until 11:59 (the minute they were made in, an hour on)
    assert "Please try again in 59 minutes." in page
    assert refused["Retry-After"] == str(59 * 60 - 30)
    clock.now = hour + 59 * 60 - 1  # a second early: still refused
    assert client.post("/accounts/signup/", signup_data("u3")).status_code == 429
    clock.now = hour + 59 * 60  # when it said
    assert client.post("/accounts/signup/", signup_data("u3")).status_code == 302
    assert User.objects.filter(username__in=["u1", "u2", "u3"]).count() == 3


@pytest.mark.django_db
def test_forms_that_make_no_account_do_not_use_up_the_sign_ups(settings, clock):
    settings.SIGNUP_LIMIT = 2
    slips = signup_data("u1", password2=PASSWORD + "x")
    for _ in range(4):  # passwords that do not match, a taken username...
        answer = Client().post("/accounts/signup/", slips)
        assert answer.status_code == 200
        assert "didn\u2019t match" in answer.content.decode()
    for name in ("u1", "u2"):  # the two accounts of the hour are still there to make
        assert Client().post("/accounts/signup/", signup_data(name)).status_code == 302
    assert Client().post("/accounts/signup/", signup_data("u3")).status_code == 429


@pytest.mark.django_db
def test_the_sign_up_form_cannot_be_tried_without_end(settings, clock):
    settings.SIGNUP_LIMIT = 2
    taken = User.objects.create_user("taken", password=PASSWORD)
    for _ in range(2 * SIGNUP_ATTEMPTS_PER_ACCOUNT):  # three forms an account of the hour
        assert Client().post("/accounts/signup/", signup_data(taken.username)).status_code == 200
    refused = Client().post("/accounts/signup/", signup_data("fresh"))
    assert refused.status_code == 429
    page = " ".join(html.unescape(refused.content.decode()).split())
    assert "Too many sign-up attempts from your network." in page
    assert "Please try again in 61 minutes." in page  # (the forms were sent at 10:00:00)
    assert not User.objects.filter(username="fresh").exists()
    clock.now += 61 * 60
    assert Client().post("/accounts/signup/", signup_data("fresh")).status_code == 302


@pytest.mark.django_db
def test_two_sign_ups_at_once_cannot_both_take_the_last_place(settings):
    """The account is counted before the sum is read: of two forms at the same moment, in
    one web process or two, only one gets the last place; the one refused gives it back."""
    settings.SIGNUP_LIMIT = 1
    throttle = signup_throttle()
    first, wait = throttle.take("192.0.2.1")
    assert first and wait is None
    second, wait = throttle.take("192.0.2.1")
    assert second == "" and wait is not None and wait > 3600
    throttle.give_back(first)  # the account was not made after all
    assert throttle.over("192.0.2.1") is None


class UnreachableCache:
    """Django's cache while its Redis is away: every call raises as redis-py does."""

    def __getattr__(self, name: str):
        from redis.exceptions import ConnectionError

        def call(*args, **kwargs):
            raise ConnectionError("Error 111 connecting to 127.0.0.1:6379. Connection refused.")

        return call


@pytest.fixture
def cache_away(monkeypatch):
    from cardsite import accounts

    monkeypatch.setattr(accounts, "cache", UnreachableCache())


@pytest.mark.django_db
def test_sign_up_while_its_counter_cannot_be_reached_is_paused_and_keeps_the_form(
    client, cache_away
):
    typed = signup_data("carol", email="carol@example.org")
    response = client.post("/accounts/signup/", typed)
    assert response.status_code == 503
    assert response["Retry-After"] == "60"
    page = html.unescape(response.content.decode())
    assert "Sign-up is paused for a moment: the site cannot count sign-ups right now." in page
    assert "Try again in a minute" in page
    assert "Something went wrong" not in page
    assert 'value="carol"' in page and 'value="carol@example.org"' in page
    assert PASSWORD not in page  # the passwords are typed again
    assert not User.objects.filter(username="carol").exists()


@pytest.mark.django_db
def test_log_in_goes_on_while_the_address_counter_cannot_be_reached(client, alice, cache_away):
    """The count of an address's failures is in the cache: while it is away log-in works,
    a wrong password is said as ever, and django-axes' lock (in the database) still holds."""
    wrong = fail_login(client)
    assert wrong.status_code == 200
    assert "That username and password do not match an account." in wrong.content.decode()
    for _ in range(settings.AXES_FAILURE_LIMIT - 2):
        assert fail_login(client).status_code == 200
    assert fail_login(client).status_code == 429
    elsewhere = Client(REMOTE_ADDR="198.51.100.20")
    assert good_login(elsewhere).status_code == 302
    assert logged_in_as(elsewhere) == "alice"


# Log in -------------------------------------------------------------------------------------


@pytest.mark.django_db
def test_it_logs_in_and_goes_to_a_safe_next(client, alice):
    wanted = "/games/rps-poker/leaderboard/"
    response = client.post(
        "/accounts/login/", {"username": "alice", "password": PASSWORD, "next": wanted}
    )
    assert response.status_code == 302
    assert response["Location"] == wanted
    assert logged_in_as(client) == "alice"


@pytest.mark.django_db
def test_it_shows_an_error_for_a_bad_password(client, alice):
    response = fail_login(client)
    assert response.status_code == 200
    page = response.content.decode()
    assert "That username and password do not match an account." in page
    assert 'role="alert"' in page
    assert logged_in_as(client) is None


@pytest.mark.django_db
@pytest.mark.parametrize("target", [EVIL, "//evil.example/", "https:///evil.example/"])
def test_it_refuses_an_open_redirect_after_log_in(client, alice, target):
    page = client.get("/accounts/login/", {"next": target}).content.decode()
    assert "evil.example" not in page
    response = client.post(
        "/accounts/login/", {"username": "alice", "password": PASSWORD, "next": target}
    )
    assert response.status_code == 302
    assert response["Location"] == settings.LOGIN_REDIRECT_URL == "/my/bots/"


@pytest.mark.django_db
def test_it_locks_a_username_out_at_one_address_and_says_when_to_retry(client, alice):
    limit = settings.AXES_FAILURE_LIMIT
    assert limit == 5
    for _ in range(limit - 1):
        assert fail_login(client).status_code == 200
    tripped = fail_login(client)
    assert tripped.status_code == 429
    page = tripped.content.decode()
    assert "Too many failed log-in attempts." in page
    assert "Logging in is paused for 15 minutes: try again after" in page
    assert tripped["Retry-After"] == "900"
    # the right password is refused too while the lock lasts, from that address
    locked = good_login(client)
    assert locked.status_code == 429
    assert "Too many failed log-in attempts." in locked.content.decode()
    assert logged_in_as(client) is None


@pytest.mark.django_db
def test_wrong_guesses_from_one_address_do_not_lock_the_owner_out_elsewhere(alice):
    attacker = Client(REMOTE_ADDR="192.0.2.66")
    for _ in range(settings.AXES_FAILURE_LIMIT):
        last = fail_login(attacker)
    assert last.status_code == 429
    # alice, from her own address, logs in
    own = Client(REMOTE_ADDR="198.51.100.20")
    assert good_login(own).status_code == 302
    assert logged_in_as(own) == "alice"
    # and the guessing address stays locked, for her username, even with the password
    assert good_login(attacker).status_code == 429
    assert fail_login(attacker).status_code == 429
    assert logged_in_as(attacker) is None


@pytest.mark.django_db
def test_one_address_guessing_at_many_usernames_gets_limit_guesses_at_each(alice):
    attacker = Client(REMOTE_ADDR="192.0.2.66")
    for n in range(settings.AXES_FAILURE_LIMIT):
        assert fail_login(attacker, f"guess{n}").status_code == 200
    # failures at other usernames do not count towards guess0's: it has had one of five
    for _ in range(settings.AXES_FAILURE_LIMIT - 2):
        assert fail_login(attacker, "guess0").status_code == 200
    assert fail_login(attacker, "guess0").status_code == 429
    assert fail_login(attacker, "guess1").status_code == 200


@pytest.mark.django_db
def test_one_guess_at_each_of_many_accounts_pauses_the_address_for_every_account(alice):
    limit = settings.LOGIN_ADDRESS_FAILURE_LIMIT
    assert limit == 20 > settings.AXES_FAILURE_LIMIT
    sprayer = Client(REMOTE_ADDR="192.0.2.66")
    for n in range(limit):  # one guess at each of twenty usernames: answered
        assert fail_login(sprayer, f"user{n}").status_code == 200
    paused = fail_login(sprayer, "user99")
    assert paused.status_code == 429
    page = paused.content.decode()
    assert "Too many failed log-in attempts from your address." in page
    assert "Logging in from here is paused for 15 minutes, for every account" in page
    assert paused["Retry-After"] == "900"  # the whole pause, from the guess that tripped it
    # the right password too, to an account never guessed at, from that address
    assert good_login(sprayer).status_code == 429
    assert logged_in_as(sprayer) is None
    # alice, from her own address, logs in
    own = Client(REMOTE_ADDR="198.51.100.20")
    assert good_login(own).status_code == 302
    assert logged_in_as(own) == "alice"


@pytest.mark.django_db
def test_a_forged_forwarded_address_does_not_escape_the_address_pause(alice):
    sprayer = Client(REMOTE_ADDR="192.0.2.68")
    for n in range(settings.LOGIN_ADDRESS_FAILURE_LIMIT):
        forged = f"10.1.{n}.1"
        assert fail_login(sprayer, f"user{n}", HTTP_X_FORWARDED_FOR=forged).status_code == 200
    assert fail_login(sprayer, "user99", HTTP_X_FORWARDED_FOR="10.9.9.9").status_code == 429


@pytest.mark.django_db
def test_a_form_sent_without_a_password_is_no_guess(alice):
    someone = Client(REMOTE_ADDR="192.0.2.67")
    for _ in range(settings.LOGIN_ADDRESS_FAILURE_LIMIT + 5):
        answer = someone.post("/accounts/login/", {"username": "alice", "password": ""})
        assert answer.status_code == 200
    assert good_login(someone).status_code == 302


@pytest.mark.django_db
def test_a_forged_forwarded_address_does_not_escape_the_lock(alice):
    attacker = Client(REMOTE_ADDR="192.0.2.66")
    statuses = [
        fail_login(attacker, HTTP_X_FORWARDED_FOR=f"10.0.0.{n}").status_code
        for n in range(settings.AXES_FAILURE_LIMIT + 1)
    ]
    assert statuses[-2:] == [429, 429]


@pytest.mark.django_db
def test_logging_in_to_ones_own_account_does_not_wipe_the_failures(client, alice):
    # otherwise an attacker with an account could interleave its own log-ins with guesses
    User.objects.create_user("victim", password=PASSWORD)
    for _ in range(settings.AXES_FAILURE_LIMIT - 1):
        assert fail_login(client, "victim").status_code == 200
    assert good_login(client).status_code == 302
    client.post("/accounts/logout/")
    assert fail_login(client, "victim").status_code == 429


# Django's AsyncClient runs each request's sync code in a thread of its own and, as every test
# client does, keeps Django from closing that thread's database connection at the end of the
# request; psycopg then warns when the dead thread's connection is collected. That is the test
# client's doing (the site itself closes them), so this test collects them itself.
@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
@pytest.mark.filterwarnings(
    "ignore::ResourceWarning", "ignore::pytest.PytestUnraisableExceptionWarning"
)
async def test_the_lockout_works_through_the_asgi_handler():
    await User.objects.acreate_user("erin", password=PASSWORD)
    client = AsyncClient()
    for _ in range(settings.AXES_FAILURE_LIMIT):
        last = await client.post("/accounts/login/", {"username": "erin", "password": "wrong"})
    assert last.status_code == 429
    locked = await client.post("/accounts/login/", {"username": "erin", "password": PASSWORD})
    assert locked.status_code == 429
    assert "Too many failed log-in attempts." in locked.content.decode()
    gc.collect()  # the requests' threads are gone: their connections go now, not in a later test


# Log out and password change ------------------------------------------------------------------


@pytest.mark.django_db
def test_it_logs_out_on_post_only(client, alice):
    client.force_login(alice)
    # a GET (a bookmark) logs nobody out: it asks, in the site's frame, with the button
    asked = client.get("/accounts/logout/")
    assert asked.status_code == 200
    page = asked.content.decode()
    assert '<h1 id="page-title">Log out of Card Arena?</h1>' in page
    form = re.search(r'<form method="post" action="/accounts/logout/" class="form">(.*?)</form>',
                     page, re.S)  # fmt: skip
    assert form and 'name="csrfmiddlewaretoken"' in form.group(1)
    assert '<button type="submit" class="btn">Log out</button>' in form.group(1)
    assert logged_in_as(client) == "alice"
    response = client.post("/accounts/logout/")
    assert response.status_code == 302
    assert response["Location"] == "/"
    assert logged_in_as(client) is None
    assert "You have logged out." in client.get("/").content.decode()


@pytest.mark.django_db
def test_the_password_page_needs_a_log_in(client):
    response = client.get("/accounts/password/")
    assert response.status_code == 302
    assert response["Location"] == "/accounts/login/?next=/accounts/password/"
    assert client.post("/accounts/password/", {}).status_code == 302


@pytest.mark.django_db
def test_it_changes_the_password_and_keeps_you_logged_in(client, alice):
    client.force_login(alice)
    wrong_old = client.post(
        "/accounts/password/",
        {"old_password": "nope", "new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD},
    )
    assert wrong_old.status_code == 200
    assert "Your old password was entered incorrectly." in wrong_old.content.decode()
    response = client.post(
        "/accounts/password/",
        {"old_password": PASSWORD, "new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD},
    )
    assert response.status_code == 302
    assert response["Location"] == "/accounts/password/done/"
    done = client.get(response["Location"])
    assert done.status_code == 200
    assert "Password changed" in done.content.decode()
    assert logged_in_as(client) == "alice"
    alice.refresh_from_db()
    assert alice.check_password(NEW_PASSWORD)
    assert not alice.check_password(PASSWORD)


# Getting to one's own pages -----------------------------------------------------------------


def nav_links(page: str) -> dict[str, str]:
    """The top bar's links: their words to their addresses."""
    bar = page[page.index('<nav class="nav"') : page.index("</nav>")]
    found = re.findall(r'<a [^>]*href="([^"]+)"[^>]*>([^<]+)</a>', bar)
    return {html.unescape(words): html.unescape(href) for href, words in found}


@pytest.mark.django_db
def test_the_nav_name_leads_to_ones_profile_which_offers_the_password_change(client):
    odd = User.objects.create_user("al.ice+1", password=PASSWORD)
    client.force_login(odd)
    assert nav_links(client.get("/").content.decode())["al.ice+1"] == "/people/al.ice%2B1/"
    mine = client.get("/people/al.ice%2B1/").content.decode()
    assert '<a href="/accounts/password/">Change password</a>' in mine
    others = Client().get("/people/al.ice%2B1/").content.decode()
    assert "Change password" not in others
    bots = client.get("/my/bots/").content.decode()
    assert '<a href="/people/al.ice%2B1/">Your public profile</a>' in bots


@pytest.mark.django_db
def test_the_sign_up_page_says_the_username_is_public(client):
    page = " ".join(client.get("/accounts/signup/").content.decode().split())
    assert (
        "Your username is public: it shows at your tables, on your profile and, after rated "
        "tables, on the leaderboards; you can hide your profile" in page
    )


@pytest.mark.django_db
def test_log_in_and_sign_up_in_the_nav_come_back_to_the_page_they_left(client, alice):
    here = "/games/rps-poker/leaderboard/?show=people&after=1_1"
    links = nav_links(client.get(here).content.decode())
    back = "?next=%2Fgames%2Frps-poker%2Fleaderboard%2F%3Fshow%3Dpeople%26after%3D1_1"
    assert links["Log in"] == "/accounts/login/" + back
    assert links["Sign up"] == "/accounts/signup/" + back
    # from the log-in page, the sign-up link keeps where to go back to (not the log-in page)
    login_page = client.get(links["Log in"]).content.decode()
    assert nav_links(login_page)["Sign up"] == "/accounts/signup/" + back
    response = client.post(links["Log in"], {"username": "alice", "password": PASSWORD})
    assert response.status_code == 302 and response["Location"] == here
    other = Client()
    response = other.post(links["Sign up"], signup_data("carol"))
    assert response.status_code == 302 and response["Location"] == here
    assert logged_in_as(other) == "carol"
    # the log-out page is not a page to come back to
    assert nav_links(Client().get("/accounts/logout/").content.decode())["Log in"] == (
        "/accounts/login/"
    )


@pytest.mark.django_db
def test_a_weak_new_password_is_explained_under_the_new_password(client, alice):
    client.force_login(alice)
    weak = {"old_password": PASSWORD, "new_password1": "password", "new_password2": "password"}
    page = client.post("/accounts/password/", weak).content.decode()
    under = re.search(r'<ul class="field-errors" id="id_new_password1_error">(.*?)</ul>', page)
    assert under and "This password is too common." in under.group(1)
    assert 'id="id_new_password2_error"' not in page
    # two passwords that differ: said under the confirmation, as before
    mismatched = weak | {"new_password2": "password-other"}
    page = client.post("/accounts/password/", mismatched).content.decode()
    under = re.search(r'<ul class="field-errors" id="id_new_password2_error">(.*?)</ul>', page)
    assert under and "The two password fields didn\u2019t match." in under.group(1)
    alice.refresh_from_db()
    assert alice.check_password(PASSWORD)


# CSRF ---------------------------------------------------------------------------------------


@pytest.mark.django_db
def test_every_form_page_carries_a_csrf_token(client, alice):
    for url in ("/accounts/signup/", "/accounts/login/"):
        page = client.get(url).content.decode()
        assert 'name="csrfmiddlewaretoken"' in page, url
        assert "<label" in page and 'method="post"' in page
    client.force_login(alice)
    page = client.get("/accounts/password/").content.decode()
    assert 'name="csrfmiddlewaretoken"' in page
    # the log-out button in the navigation is a form too
    assert re.search(r'action="/accounts/logout/"[^>]*>\s*<input[^>]*csrfmiddlewaretoken', page)


@pytest.mark.django_db
def test_it_refuses_posts_without_a_csrf_token(alice):
    strict = Client(enforce_csrf_checks=True)
    assert strict.post("/accounts/signup/", signup_data()).status_code == 403
    assert (
        strict.post("/accounts/login/", {"username": "alice", "password": PASSWORD}).status_code
        == 403
    )
    assert logged_in_as(strict) is None
    assert not User.objects.filter(username="bob").exists()
    strict.force_login(alice)
    assert strict.post("/accounts/logout/").status_code == 403
    assert logged_in_as(strict) == "alice"
    change = {
        "old_password": PASSWORD,
        "new_password1": NEW_PASSWORD,
        "new_password2": NEW_PASSWORD,
    }
    assert strict.post("/accounts/password/", change).status_code == 403
    alice.refresh_from_db()
    assert alice.check_password(PASSWORD)


@pytest.mark.django_db
def test_a_post_with_the_token_from_the_page_goes_through(alice):
    strict = Client(enforce_csrf_checks=True)
    page = strict.get("/accounts/login/").content.decode()
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1)
    response = strict.post(
        "/accounts/login/",
        {"username": "alice", "password": PASSWORD, "csrfmiddlewaretoken": token},
    )
    assert response.status_code == 302
    assert logged_in_as(strict) == "alice"
