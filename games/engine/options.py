"""A game's options: the settings of its matches a person may choose (Goofspiel's cards and
deals, a chip game's hands...), declared in the game's package (its spec's ``options``) and
checked here the same way wherever a match is started: ``manage.py arena --option``,
``manage.py start_tournament --option``, the live table form. An option refused is named,
with the values it takes::

    goofspiel: num_cards takes a whole number from 2 to 13, not 20
    goofspiel has no option 'cards' (its options: num_cards, deals, returns_type)

The options are keys of the match's config (``GameState.config``); the game's own rules
check the whole config once more as a match starts, and what they refuse is said the same
way.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

#: a games.engine.spec.GameSpec (which imports this module)
GameSpec = Any


class OptionError(ValueError):
    """An option a game does not take, or a value it refuses, in one line naming both."""


@dataclass(frozen=True)
class GameOption:
    """One setting of a game's matches: a whole number in ``low``..``high`` (``even``:
    even numbers only), or one of ``choices``."""

    name: str
    help: str
    default: Any
    low: int | None = None
    high: int | None = None
    even: bool = False
    choices: tuple[str, ...] = ()

    @property
    def allowed(self) -> str:
        """The values it takes, in words."""
        if self.choices:
            return "one of " + ", ".join(self.choices)
        kind = "an even number" if self.even else "a whole number"
        if self.low is not None and self.high is not None:
            return f"{kind} from {self.low} to {self.high}"
        return f"{kind} of at least {self.low}" if self.low is not None else kind

    def check(self, value: Any) -> Any:
        """``value`` if the option takes it, else ValueError (without the game's name)."""
        if self.choices:
            if isinstance(value, str) and value in self.choices:
                return value
        elif type(value) is int:
            low = self.low if self.low is not None else value
            high = self.high if self.high is not None else value
            if low <= value <= high and not (self.even and value % 2):
                return value
        raise ValueError(f"{self.name} takes {self.allowed}, not {value}")

    def parse(self, text: str) -> Any:
        """A value given as text (a command line's): a number for a number option."""
        if self.choices:
            return self.check(text)
        try:
            return self.check(int(text.strip()))
        except ValueError:
            raise ValueError(f"{self.name} takes {self.allowed}, not {text}") from None


def _option(spec: GameSpec, name: str) -> GameOption:
    for option in spec.options:
        if option.name == name:
            return option
    if not spec.options:
        raise OptionError(f"{spec.slug} has no options to set")
    names = ", ".join(o.name for o in spec.options)
    raise OptionError(f"{spec.slug} has no option {name!r} (its options: {names})")


def parse_options(spec: GameSpec, given: Iterable[str]) -> dict[str, Any]:
    """``NAME=VALUE`` texts (``--option num_cards=6``) as a config, each checked."""
    config: dict[str, Any] = {}
    for text in given:
        name, sep, value = text.partition("=")
        if not sep or not name.strip():
            raise OptionError(f"an option is NAME=VALUE, such as num_cards=6, not {text!r}")
        option = _option(spec, name.strip())
        if option.name in config:
            raise OptionError(f"{spec.slug}: {option.name} is given twice")
        try:
            config[option.name] = option.parse(value)
        except ValueError as exc:
            raise OptionError(f"{spec.slug}: {exc}") from None
    return check_options(spec, config)


def check_options(spec: GameSpec, config: dict[str, Any]) -> dict[str, Any]:
    """A config of options (typed values: a tournament's settings, a form's) checked: each
    option, then the whole config by the game's rules, as a match would start with it."""
    for name, value in config.items():
        try:
            _option(spec, name).check(value)
        except ValueError as exc:
            if isinstance(exc, OptionError):
                raise
            raise OptionError(f"{spec.slug}: {exc}") from None
    try:
        spec.state_class.new(0, num_seats=spec.state_class.min_seats, config=config)
    except ValueError as exc:
        raise OptionError(f"{spec.slug}: {exc}") from None
    return dict(config)


def describe(spec: GameSpec) -> list[str]:
    """Each option of the game in a line: name, what it takes, its default and meaning."""
    return [f"{o.name}: {o.allowed} (default {o.default}): {o.help}" for o in spec.options]


def add_option_argument(parser: Any) -> None:
    """A command's ``--option NAME=VALUE`` (argparse), repeatable: see :func:`parse_options`."""
    parser.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a setting of the game's matches, such as num_cards=6 for goofspiel "
        "(repeat it for more; the game's doc lists its options)",
    )
