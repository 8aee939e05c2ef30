"""Accounts: sign up, log in (rate-limited), log out, password change.

Log-in uses Django's own views and forms. Failed log-ins are counted by django-axes (its
backend and middleware are configured in settings): after ``LOGIN_FAILURE_LIMIT`` failures for
one username from one address, log-in to that username from that address is refused for
``LOGIN_LOCKOUT_MINUTES``, even with the right password, and :func:`locked_out` answers 429
with the log-in page saying when to try again. An address whose log-ins failed
``LOGIN_ADDRESS_FAILURE_LIMIT`` times in a window of that length, whatever the usernames, may
not log in for ``LOGIN_LOCKOUT_MINUTES`` (a guess or two at each of many accounts): every
failed ``authenticate()`` counts (:func:`log_in_failed`, the admin's log-in too), and the pause
holds on every log-in path (:class:`LoginView`, :func:`admin_login`,
:class:`AddressPauseBackend`). Wrong current passwords at the password change are limited per
account and per address (:class:`PasswordChangeView`). Those failures, sign-ups (accounts
made) and sign-up forms sent are counted per address in Django's cache, in windows that
slide (:class:`Throttle`); while it cannot be reached (Redis is away), sign-up answers 503
and log-in goes on uncounted. All identify the client with
:func:`client_ip`, which believes a forwarded address only from the number of proxies declared
in ``TRUSTED_PROXIES``, and counts an IPv6 address as its /64 (every per-address limit of the
site goes through it).
"""

from __future__ import annotations

import contextlib
import hashlib
import ipaddress
import logging
import math
import time
from dataclasses import dataclass
from datetime import timedelta

from django import forms
from django.conf import settings
from django.contrib import admin, messages
from django.contrib.auth import get_user_model, login
from django.contrib.auth import views as auth_views
from django.contrib.auth.forms import AuthenticationForm, PasswordChangeForm, UserCreationForm
from django.contrib.auth.signals import user_login_failed
from django.core.cache import cache
from django.core.exceptions import PermissionDenied
from django.dispatch import receiver
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import path, reverse_lazy
from django.utils import timezone
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.cache import never_cache
from django.views.decorators.csrf import csrf_protect
from django.views.decorators.debug import sensitive_post_parameters

from bots.names import plain_username
from bots.outages import REDIS_UNREACHABLE

log = logging.getLogger("cardsite.accounts")

#: where a new account goes when no (safe) ``next`` says otherwise
AFTER_SIGNUP_URL = "/my/bots/"
#: what a sign-up asks the person to wait while the counters cannot be reached (Retry-After)
CACHE_RETRY_S = 60


#: what Django's cache raises while Redis is away
CACHE_ERRORS = REDIS_UNREACHABLE


def client_ip(request: HttpRequest) -> str:
    """The client a request came from, as far as it can be trusted, as every per-address
    limit of the site counts it (:func:`network_of`: an IPv6 address stands for its /64).

    With ``TRUSTED_PROXIES = 0`` (the default) that is the connection's own address: an
    X-Forwarded-For header is the client's to write, so it is ignored. With N trusted proxies,
    each appending the address it was reached from, the entry N places from the right is the
    one the outermost of them wrote; anything left of it may be forged by the client.
    """
    remote = request.META.get("REMOTE_ADDR") or ""
    hops = settings.TRUSTED_PROXIES
    if not hops:
        return network_of(remote)
    header = request.META.get("HTTP_X_FORWARDED_FOR", "")
    chain = [part.strip() for part in header.split(",") if part.strip()]
    if len(chain) < hops:
        return network_of(remote)
    try:
        return network_of(str(ipaddress.ip_address(chain[-hops])))
    except ValueError:
        return network_of(remote)


def network_of(address: str) -> str:
    """What one client is at ``address``: an IPv4 address is itself (also written as an
    IPv4-mapped IPv6 address, ``::ffff:192.0.2.1``), an IPv6 address is the /64 it is in, as
    one home or phone is given a whole /64 and may use any address of it. The /64 is written
    as its first address (``2001:db8:1:2::`` for ``2001:db8:1:2::5``): still an address, as
    django-axes keeps it (PostgreSQL's ``inet`` takes no ``/64`` there). Anything else (no
    address known) is left as it is."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return address
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.IPv6Network((int(ip), 64), strict=False).network_address)
    return str(ip)


def safe_next(request: HttpRequest, default: str) -> str:
    """The ``next`` parameter if it is a path of this site, else ``default``."""
    wanted = request.POST.get("next") or request.GET.get("next") or ""
    return wanted if is_site_path(request, wanted) else default


def is_site_path(request: HttpRequest, url: str) -> bool:
    """Whether ``url`` is a path of this site: it starts with one "/" (not "//", another
    host), and Django's check finds no other host or scheme in it. A bare word (``welcome``,
    ``0``) is not one: a redirect to it would go somewhere under the current page."""
    return (
        url.startswith("/")
        and not url.startswith("//")
        and url_has_allowed_host_and_scheme(
            url, allowed_hosts={request.get_host()}, require_https=request.is_secure()
        )
    )


def _minutes(span: timedelta | float) -> int:
    seconds = span.total_seconds() if isinstance(span, timedelta) else span
    return max(1, math.ceil(seconds / 60))


class SaysItsErrors:
    """A form of the account pages that comes back with errors: the focus starts in its first
    field in error (not in the one Django autofocuses, the username, which may be right), and
    ``invalid_fields`` lists the fields in error, in the form's order, for the summary
    templates/accounts/form_errors.html says ("Please fix 1 field: Password confirmation.")."""

    def full_clean(self) -> None:
        super().full_clean()
        wrong = [name for name in self.fields if name in self._errors]
        if wrong:
            for field in self.fields.values():
                field.widget.attrs.pop("autofocus", None)
            self.fields[wrong[0]].widget.attrs["autofocus"] = True

    @property
    def invalid_fields(self) -> list:
        return [self[name] for name in self.fields if name in self.errors]


# Log-in ------------------------------------------------------------------------------------


class LoginForm(SaysItsErrors, AuthenticationForm):
    error_messages = {
        **AuthenticationForm.error_messages,
        "invalid_login": (
            "That username and password do not match an account. Both are case-sensitive."
        ),
    }


def login_address_throttle() -> Throttle:
    """Failed log-ins from one address, whatever the usernames: ``LOGIN_ADDRESS_FAILURE_LIMIT``
    in a window of ``LOGIN_LOCKOUT_MINUTES``."""
    return Throttle(
        "login-address", settings.LOGIN_ADDRESS_FAILURE_LIMIT, settings.AXES_COOLOFF_TIME
    )


def _pause_key(address: str) -> str:
    return "login-paused:" + hashlib.sha256(address.encode()).hexdigest()[:32]


def address_paused_for(request: HttpRequest) -> float | None:
    """Seconds left of the pause of log-ins from the request's address, or None (also
    while the cache cannot be reached: log-in goes on, django-axes' lock of one username at
    one address, kept in the database, still holds)."""
    try:
        until = cache.get(_pause_key(client_ip(request)))
    except CACHE_ERRORS as exc:
        log.warning("event=login.pause_unknown error=%s", type(exc).__name__)
        return None
    left = until - time.time() if until else 0
    return left if left > 0 else None


def count_failed_log_in(request: HttpRequest) -> None:
    """One failed guess from the request's address; the one that reaches the limit pauses
    the address's log-ins for ``LOGIN_LOCKOUT_MINUTES``. Not counted while the cache cannot
    be reached (the person is still told their password was wrong)."""
    address = client_ip(request)
    throttle = login_address_throttle()
    try:
        throttle.hit(address)
        if throttle.over(address) is not None:
            pause = settings.AXES_COOLOFF_TIME.total_seconds()
            cache.set(_pause_key(address), time.time() + pause, math.ceil(pause))
    except CACHE_ERRORS as exc:
        log.warning("event=login.failure_not_counted error=%s", type(exc).__name__)


#: the mark :class:`AddressPauseBackend` leaves on a request it refused: that refusal is no
#: new guess to count (the pause lasts from the failure that reached the limit)
_REFUSED_PAUSED = "_card_arena_address_paused"


@receiver(user_login_failed, dispatch_uid="cardsite.accounts.log_in_failed")
def log_in_failed(sender, credentials=None, request=None, **kwargs) -> None:
    """Every failed ``authenticate()`` with a request (the site's log-in, the admin's, any
    other) counts once towards the address's pause. Django authenticates only a form with
    both a username and a password, so a form sent without a password is no guess."""
    if request is None or getattr(request, _REFUSED_PAUSED, False):
        return
    count_failed_log_in(request)


class AddressPauseBackend:
    """An authentication backend that lets no one in while the request's address is paused
    (:func:`address_paused_for`): it raises PermissionDenied, which stops Django's
    ``authenticate()`` before the password is checked, on every log-in path (the admin's
    too). Otherwise it says nothing and the next backend checks the password. It has no
    ``get_user``: it logs no one in, so no session names it (and ``force_login`` skips it)."""

    def authenticate(self, request, **credentials):
        if request is not None and address_paused_for(request) is not None:
            setattr(request, _REFUSED_PAUSED, True)
            raise PermissionDenied("log-in from this address is paused")
        return None


class LoginView(auth_views.LoginView):
    """Django's log-in, refused (429) to an address paused for too many failures, whatever
    username it tries; django-axes adds the lock on one username at one address. Failures
    are counted by :func:`log_in_failed`."""

    template_name = "accounts/login.html"
    authentication_form = LoginForm
    redirect_authenticated_user = True

    def post(self, request, *args, **kwargs):
        left = address_paused_for(request)
        if left is not None:
            return _paused(request, left, whole_address=True)
        return super().post(request, *args, **kwargs)

    def get_redirect_url(self) -> str:
        """``next`` only if it is a path of this site (:func:`is_site_path`)."""
        url = super().get_redirect_url()
        return url if is_site_path(self.request, url) else ""


@sensitive_post_parameters()
@csrf_protect
@never_cache
def admin_login(request: HttpRequest) -> HttpResponse:
    """The admin's log-in (Django's own page), refused as the site's is (429, the same page)
    while the request's address is paused."""
    if request.method == "POST":
        left = address_paused_for(request)
        if left is not None:
            return _paused(request, left, whole_address=True)
    return admin.site.login(request)


def locked_out(
    request: HttpRequest, original_response: object = None, credentials: object = None
) -> HttpResponse:
    """django-axes' lockout response: the log-in page, status 429, saying when to try again.

    The lock lasts ``LOGIN_LOCKOUT_MINUTES`` from the latest failed attempt, and every attempt
    made while locked (even with the right password) counts as one, so the time shown holds.
    """
    return _paused(request, settings.AXES_COOLOFF_TIME.total_seconds(), whole_address=False)


def _paused(request: HttpRequest, seconds: float, *, whole_address: bool) -> HttpResponse:
    """The log-in page, status 429, saying until when log-in is paused and for whom."""
    username = request.POST.get("username", "")[:150]
    form = LoginForm(request, initial={"username": username})
    context = {
        "form": form,
        "next": safe_next(request, ""),
        "locked_out": True,
        "whole_address": whole_address,
        "retry_minutes": _minutes(seconds),
        "retry_at": timezone.now() + timedelta(seconds=seconds),
    }
    response = render(request, "accounts/login.html", context, status=429)
    response["Retry-After"] = str(math.ceil(seconds))
    return response


# Log-out -----------------------------------------------------------------------------------


class LogoutView(auth_views.LogoutView):
    """Logs out on a POST only, then home with a note. A GET (a bookmark, a typed address)
    logs nobody out: it answers a page that asks, with the button that does."""

    http_method_names = ["get", "head", "post", "options"]

    def get(self, request, *args, **kwargs):
        return render(request, "accounts/logout.html")

    def post(self, request, *args, **kwargs):
        was_logged_in = request.user.is_authenticated
        response = super().post(request, *args, **kwargs)
        if was_logged_in:
            messages.info(request, "You have logged out.")
        return response


# Sign-up -----------------------------------------------------------------------------------


#: the slices a :class:`Throttle`'s window is counted in (a window of an hour: minutes)
SLICES = 60


@dataclass(frozen=True)
class Throttle:
    """At most ``limit`` hits per key in any ``window``, counted in Django's cache.

    The window slides: it is cut in :data:`SLICES` slices, each hit is counted in its slice's
    counter, and a key's hits are those of the slice now and of the :data:`SLICES` before it,
    so a hit counts for at least a whole window (at most one slice more), and none stops
    counting at a clock hour. A hit is counted (``cache.add`` then ``cache.incr``, atomic on
    every shared cache backend) before the slices are summed, so requests at the same moment,
    in one web process or several, cannot slip past the limit together. Keys are hashed: no
    address is stored.
    """

    scope: str
    limit: int
    window: timedelta

    def _slices(self, key: str) -> list[str]:
        """The cache keys of ``key``'s counted slices, oldest first, the last one now's."""
        current = int(time.time() // self._width())
        digest = hashlib.sha256(key.encode()).hexdigest()[:32]
        return [f"throttle:{self.scope}:{digest}:{n}" for n in range(current - SLICES, current + 1)]

    def _width(self) -> float:
        return self.window.total_seconds() / SLICES

    def _wait(self, names: list[str]) -> float | None:
        """None if one more hit fits in the window, else the seconds until it does (as the
        oldest slices stop counting, if nothing more is counted meanwhile)."""
        counts = _counts(names)
        left = sum(counts)
        if left < self.limit:
            return None
        width = self._width()
        oldest = int(names[0].rsplit(":", 1)[1])
        for offset, count in enumerate(counts):
            left -= count
            if left < self.limit:
                # a slice counts until the window has moved one whole window past it
                return max(1.0, (oldest + offset + SLICES + 1) * width - time.time())
        raise AssertionError("unreachable: the slices sum to less than the limit at the end")

    def _count(self, name: str) -> None:
        timeout = math.ceil(self.window.total_seconds() * (SLICES + 2) / SLICES) + 1
        cache.add(name, 0, timeout)
        try:
            cache.incr(name)
        except ValueError:  # expired between add and incr
            cache.set(name, 1, timeout)

    def over(self, key: str) -> float | None:
        """Without counting: None while one more hit fits in the window, else the seconds
        until it does."""
        return self._wait(self._slices(key))

    def hit(self, key: str) -> float | None:
        """Counts one hit, whatever the count (a failed log-in happened); returns None if it
        was within the limit, else the seconds until another would be."""
        names = self._slices(key)
        self._count(names[-1])
        if sum(_counts(names)) <= self.limit:
            return None
        return self._wait(names)

    def take(self, key: str) -> tuple[str, float | None]:
        """Counts one hit if it fits in the window: (its counter, for :meth:`give_back`, and
        None); else counts nothing: ("", the seconds until one fits)."""
        names = self._slices(key)
        self._count(names[-1])
        if sum(_counts(names)) <= self.limit:
            return names[-1], None
        self.give_back(names[-1])
        # (at least a second: the others of the moment may have been given back since)
        return "", self._wait(names) or 1.0

    def give_back(self, counter: str) -> None:
        """Uncounts a hit :meth:`take` counted (what it was for did not happen)."""
        if not counter:
            return
        with contextlib.suppress(ValueError):  # expired meanwhile: nothing left to uncount
            cache.decr(counter)

    def forget(self, key: str) -> None:
        """Uncounts every hit of ``key`` in the window (a fresh start: tests)."""
        cache.delete_many(self._slices(key))


def _counts(names: list[str]) -> list[int]:
    found = cache.get_many(names)
    return [max(0, int(found.get(name) or 0)) for name in names]


def signup_throttle() -> Throttle:
    """Accounts made from one address: ``SIGNUP_LIMIT`` in any ``SIGNUP_WINDOW_MINUTES``."""
    return Throttle("signup", settings.SIGNUP_LIMIT, settings.SIGNUP_WINDOW)


#: sign-up forms sent from one address, whatever came of them (a taken username, passwords
#: that do not match...), in the same window: this many times ``SIGNUP_LIMIT``, so that a few
#: slips do not use up sign-ups, and the form cannot be tried without end
SIGNUP_ATTEMPTS_PER_ACCOUNT = 3


def signup_attempt_throttle() -> Throttle:
    """Sign-up forms sent from one address: :data:`SIGNUP_ATTEMPTS_PER_ACCOUNT` times
    ``SIGNUP_LIMIT`` in any ``SIGNUP_WINDOW_MINUTES``."""
    return Throttle(
        "signup-attempt",
        settings.SIGNUP_LIMIT * SIGNUP_ATTEMPTS_PER_ACCOUNT,
        settings.SIGNUP_WINDOW,
    )


class SignUpForm(SaysItsErrors, UserCreationForm):
    email = forms.EmailField(
        required=False,
        label="Email (optional)",
        help_text="Never shown on the site.",
        widget=forms.EmailInput(attrs={"autocomplete": "email"}),
    )

    class Meta(UserCreationForm.Meta):
        model = get_user_model()
        fields = ("username", "email")

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        # said first and by name: Django's own validator only says which characters may be used
        field = self.fields["username"]
        field.validators = [plain_username, *field.validators]

    def validate_password_for_user(self, user, password_field_name: str = "password2") -> None:
        # What is wrong with the password (too short, too like the username) is said under
        # the password, not under its confirmation (Django's place); once the two agree.
        if password_field_name == "password2" and "password2" in self.cleaned_data:
            password_field_name = "password1"
        super().validate_password_for_user(user, password_field_name=password_field_name)


@sensitive_post_parameters("password1", "password2")
@csrf_protect
@never_cache
def signup(request: HttpRequest) -> HttpResponse:
    next_url = safe_next(request, AFTER_SIGNUP_URL)
    if request.user.is_authenticated:
        return HttpResponseRedirect(next_url)
    context: dict = {"next": safe_next(request, "")}
    if request.method == "POST":
        typed = {name: request.POST.get(name, "")[:150] for name in ("username", "email")}
        address = client_ip(request)
        accounts = signup_throttle()
        try:
            # an address that made its accounts of the window is told so before its form is
            # counted; every form sent counts as an attempt, an account only once it is made
            wait = accounts.over(address)
            attempts = signup_attempt_throttle()
            if wait is None:
                _, wait = attempts.take(address)
            else:  # the time said must be right for both limits
                wait = max(wait, attempts.over(address) or 0)
        except CACHE_ERRORS as exc:
            return _signup_paused(request, context, typed, exc)
        if wait is not None:
            return _signup_throttled(request, context, typed, wait)
        form = SignUpForm(request.POST)
        if form.is_valid():
            try:
                counted, wait = accounts.take(address)
            except CACHE_ERRORS as exc:
                return _signup_paused(request, context, typed, exc)
            if wait is not None:  # another form of the address took the last place meanwhile
                return _signup_throttled(request, context, typed, wait)
            try:
                user = form.save()
            except BaseException:
                _give_back(accounts, counted)
                raise
            login(request, user, backend="django.contrib.auth.backends.ModelBackend")
            messages.success(request, f"Welcome, {user.get_username()}! Your account is ready.")
            return HttpResponseRedirect(next_url)
    else:
        form = SignUpForm()
    return render(request, "accounts/signup.html", context | {"form": form})


def _signup_paused(
    request: HttpRequest, context: dict, typed: dict[str, str], exc: Exception
) -> HttpResponse:
    """The sign-ups of an address cannot be counted (Redis is away): none is made until
    they can, and the form keeps what was typed but the passwords."""
    log.warning("event=signup.paused error=%s", type(exc).__name__)
    form = SignUpForm(initial=typed)
    context = context | {"counting_paused": True, "form": form}
    response = render(request, "accounts/signup.html", context, status=503)
    response["Retry-After"] = str(CACHE_RETRY_S)
    return response


def _signup_throttled(
    request: HttpRequest, context: dict, typed: dict[str, str], wait: float
) -> HttpResponse:
    """429: the address made its sign-ups of the window (or sent its forms); ``wait``
    seconds until it may again."""
    form = SignUpForm(initial={"username": typed["username"]})
    context = context | {"throttled": True, "retry_minutes": _minutes(wait), "form": form}
    response = render(request, "accounts/signup.html", context, status=429)
    response["Retry-After"] = str(math.ceil(wait))
    return response


def _give_back(throttle: Throttle, counted: str) -> None:
    try:
        throttle.give_back(counted)
    except CACHE_ERRORS as exc:  # it stops counting with its window
        log.warning("event=signup.not_given_back error=%s", type(exc).__name__)


# Password change ---------------------------------------------------------------------------


class NewPasswordForm(SaysItsErrors, PasswordChangeForm):
    def validate_password_for_user(self, user, password_field_name: str = "new_password2") -> None:
        # As at sign-up: what is wrong with the new password is said under it, not under its
        # confirmation (Django's place); once the two agree.
        if password_field_name == "new_password2" and "new_password2" in self.cleaned_data:
            password_field_name = "new_password1"
        super().validate_password_for_user(user, password_field_name=password_field_name)


def password_guess_throttles(request: HttpRequest) -> list[tuple[Throttle, str]]:
    """Wrong current passwords at the password change: ``LOGIN_FAILURE_LIMIT`` in a window of
    ``LOGIN_LOCKOUT_MINUTES`` for one account (from anywhere) and as many from one address
    (whatever the account), each with the key it is counted under."""
    limit, window = settings.AXES_FAILURE_LIMIT, settings.AXES_COOLOFF_TIME
    return [
        (Throttle("password-account", limit, window), str(request.user.pk)),
        (Throttle("password-address", limit, window), client_ip(request)),
    ]


class PasswordChangeView(auth_views.PasswordChangeView):
    """Login required (Django's view says so); keeps the user logged in afterwards. Wrong
    current passwords are counted (:func:`password_guess_throttles`): past the limit the
    form is refused (429) until the oldest of them stops counting, the right password too,
    so that someone at a signed-in browser cannot guess it without end."""

    template_name = "accounts/password_change.html"
    form_class = NewPasswordForm
    success_url = reverse_lazy("password_change_done")

    def post(self, request, *args, **kwargs):
        try:
            waits = [throttle.over(key) for throttle, key in password_guess_throttles(request)]
        except CACHE_ERRORS as exc:
            log.warning("event=password_change.guesses_unknown error=%s", type(exc).__name__)
            waits = []
        wait = max((w for w in waits if w is not None), default=None)
        if wait is not None:
            context = self.get_context_data(
                form=self.form_class(user=request.user),
                guesses_paused=True,
                retry_at=timezone.now() + timedelta(seconds=wait),
            )
            response = self.render_to_response(context, status=429)
            response["Retry-After"] = str(math.ceil(wait))
            return response
        return super().post(request, *args, **kwargs)

    def form_invalid(self, form):
        if form.has_error("old_password", "password_incorrect"):
            try:
                for throttle, key in password_guess_throttles(self.request):
                    throttle.hit(key)
            except CACHE_ERRORS as exc:
                log.warning("event=password_change.guess_not_counted error=%s", type(exc).__name__)
        return super().form_invalid(form)


class PasswordChangeDoneView(auth_views.PasswordChangeDoneView):
    template_name = "accounts/password_change_done.html"


urlpatterns = [
    path("signup/", signup, name="signup"),
    path("login/", LoginView.as_view(), name="login"),
    path("logout/", LogoutView.as_view(), name="logout"),
    path("password/", PasswordChangeView.as_view(), name="password_change"),
    path("password/done/", PasswordChangeDoneView.as_view(), name="password_change_done"),
]
