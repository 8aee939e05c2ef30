"""Reading what an untrusted party wrote: a bot's answers and stderr, a browser's messages.

Two dangers, each handled here once for every caller:

- **Nesting.** Python's ``json`` recurses once per ``[`` or ``{``: a line of a few thousand
  brackets raises ``RecursionError`` (not ``ValueError``), and so would ``repr``, ``str`` and
  ``json.dumps`` of the value later on. :func:`loads` refuses a document nested deeper than
  ``max_depth`` *before* parsing it, with :class:`Untrusted` (a ``ValueError``), so a caller
  that handles malformed JSON handles this too.
- **Text a database cannot hold.** PostgreSQL text and ``jsonb`` refuse NUL (``\\u0000``), and
  neither PostgreSQL nor SQLite can encode a lone surrogate (``"\\ud800"`` in JSON decodes to
  one). :func:`clean_text` and :func:`clean_value` replace each with U+FFFD, the replacement
  character, so what is shown and stored still says that something was there.

Pure Python, no Django: the engine, the sandbox and the web all use it.
"""

from __future__ import annotations

import json
import math
import re
import unicodedata
from typing import Any

#: deepest nesting a bot's answer or a browser's message may have (the deepest any game's
#: action or prompt needs is 3)
MAX_DEPTH = 32
REPLACEMENT = "\ufffd"

#: one JSON string (escapes included, unrolled so that it never backtracks) or one bracket
_TOKEN = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{}]')
#: NUL and the surrogate code points (only a lone one can be in a str)
_UNSAFE = re.compile("[\x00\ud800-\udfff]")
#: what a terminal acts on instead of showing: control characters (but tab and newline),
#: and the marks that reorder text (bidirectional overrides, embeddings and isolates)
_INVISIBLE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


class Untrusted(ValueError):
    """Input refused before it was parsed (nested too deep); the message says why."""


def loads(data: bytes | str, *, max_depth: int = MAX_DEPTH) -> Any:
    """``json.loads`` that cannot recurse without bound, and whose strings are safe to store.

    Raises ``ValueError`` (:class:`Untrusted` for nesting, ``json.JSONDecodeError`` for
    malformed text, ``UnicodeDecodeError`` for bytes that are not UTF-8), never anything else.
    """
    from_bytes = isinstance(data, bytes)
    if from_bytes:
        # Strict UTF-8 (``json.loads`` would guess UTF-16 or 32, and let encoded surrogates
        # through).
        data = data.decode("utf-8")
    check_depth(data, max_depth)
    value = _decode(data)
    # Only an escape (\\u0000, \\ud800) can put NUL or a lone surrogate into a string of a
    # document that decoded as UTF-8: JSON forbids raw control characters in strings, and
    # strict UTF-8 holds no surrogate. (A str given as it is may hold one of its own.)
    if "\\u" in data or (not from_bytes and _UNSAFE.search(data) is not None):
        value = clean_value(value)
    return value


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _finite(text: str) -> float:
    number = float(text)
    if math.isinf(number):  # 1e999: databases store no infinity in JSON
        raise ValueError(f"{text[:40]} is too large a number")
    return number


#: one decoder for every call (``json.loads`` with options builds a new one each time)
_DECODER = json.JSONDecoder(parse_constant=_no_constant, parse_float=_finite)
#: its scanner: one JSON value from an index, in C where Python has it
_SCAN = _DECODER.scan_once


def _decode(data: str) -> Any:
    """``_DECODER.decode(data)``: the same value, or the same error. A document that starts
    with its value and ends with it or with one newline (a bot's line, a browser's message)
    is scanned directly, without the decoder's whitespace matching around it; any other
    goes through ``decode``, which says what is wrong."""
    if data and data[0] not in _BLANK:
        try:
            value, end = _SCAN(data, 0)
        except StopIteration:  # no value at the start: decode's error names it
            pass
        else:
            if end == len(data) or (end == len(data) - 1 and data[end] == "\n"):
                return value
    return _DECODER.decode(data)


#: what JSON allows around a value
_BLANK = " \t\n\r"


def depth(data: str) -> int:
    """How deep the arrays and objects of a JSON text nest (brackets inside strings do not
    count). Exact for every valid document, and for an invalid one up to where a parser
    would stop, so it bounds the recursion ``json.loads`` would need."""
    deepest = level = 0
    for match in _TOKEN.finditer(data):
        char = match.group()[0]
        if char in "[{":
            level += 1
            deepest = max(deepest, level)
        elif char in "]}":
            level -= 1
    return deepest


def check_depth(data: str, max_depth: int = MAX_DEPTH) -> None:
    """Raise :class:`Untrusted` if ``data`` nests deeper than ``max_depth``."""
    if data.count("[") + data.count("{") <= max_depth:  # the usual case, decided in C
        return
    found = depth(data)
    if found > max_depth:
        raise Untrusted(f"JSON nested {found} deep (at most {max_depth} allowed)")


def clean_text(text: str) -> str:
    """``text`` with NUL and lone surrogates replaced by U+FFFD: storable anywhere."""
    if _UNSAFE.search(text) is None:
        return text
    return _UNSAFE.sub(REPLACEMENT, text)


def clean_value(value: Any) -> Any:
    """A JSON value with every string (keys too) passed through :func:`clean_text`. Values
    of other types are returned as they are; so is a value that needs no cleaning."""
    if isinstance(value, str):
        return clean_text(value)
    if isinstance(value, list):
        return [clean_value(item) for item in value]
    if isinstance(value, dict):
        return {
            (clean_text(k) if isinstance(k, str) else k): clean_value(v) for k, v in value.items()
        }
    return value


def storable(value: Any) -> Any:
    """A JSON value that every supported database stores as it is: strings cleaned as by
    :func:`clean_value`, keys made strings, floats that are not finite (no JSON number
    holds them) replaced by None, tuples made lists. For records that hold what bots
    answered; it cannot fail on a value :func:`loads` produced or an engine wrote."""
    if isinstance(value, str):
        return clean_text(value)
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, list | tuple):
        return [storable(item) for item in value]
    if isinstance(value, dict):
        return {clean_text(str(k)): storable(v) for k, v in value.items()}
    return value


def printable(text: str) -> str:
    """``text`` for a terminal: every character it would act on (escape sequences, carriage
    returns, bidirectional overrides) shown as its escape (``\\x1b``, ``\\u202e``) instead."""
    return _INVISIBLE.sub(_escape, clean_text(text))


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


#: how much of what a bot wrote (a fault's reason) is shown to anyone but its owner
SHOWN = 300
#: what :func:`one_line` shows as escapes: control characters (Cc) and format characters
#: (Cf: bidirectional overrides and isolates, zero-width spaces and joiners)
_HIDDEN = frozenset({"Cc", "Cf"})


def one_line(text: str, limit: int = SHOWN) -> str:
    """What a bot wrote (a fault's reason) as it may be shown to others: on one line (each
    run of whitespace, new lines included, is one space), each control or format character
    shown as its escape (``\\u202e``, ``\\u200b``), and at most ``limit`` characters, the
    last one "…" when cut. Nothing it holds can then pass for a line of the page around it,
    nor turn that page's text around."""
    pieces: list[str] = []
    size = 0
    for char in " ".join(clean_text(text).split()):
        piece = _escape_char(char) if unicodedata.category(char) in _HIDDEN else char
        pieces.append(piece)
        size += len(piece)
        if size > limit:
            break
    if size <= limit:
        return "".join(pieces)
    kept: list[str] = []
    size = 0
    for piece in pieces:  # whole escapes only
        if size + len(piece) > limit - 1:
            break
        kept.append(piece)
        size += len(piece)
    return "".join(kept).rstrip() + "\u2026"


def _escape_char(char: str) -> str:
    code = ord(char)
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def decode(data: bytes) -> str:
    """Bytes from an untrusted stream as text: invalid UTF-8 and NUL become U+FFFD."""
    return clean_text(data.decode("utf-8", "replace"))


def shorten(text: str, limit: int) -> str:
    """At most ``limit`` characters, cut in the middle of nothing but said to be cut."""
    return text if len(text) <= limit else text[: max(limit - 3, 0)] + "..."


#: what a name (a bot's, a person's) may not hold: control characters (Cc), format characters
#: such as the bidirectional overrides and zero-width joiners (Cf), private-use (Co), surrogate
#: (Cs) and unassigned (Cn) code points, and the line and paragraph separators (Zl, Zp)
NOT_PLAIN = frozenset({"Cc", "Cf", "Co", "Cs", "Cn", "Zl", "Zp"})
_UNNAMED = {
    "Cc": "a control character",
    "Co": "a private-use character",
    "Cs": "a surrogate",
    "Cn": "an unassigned code point",
}


def describe(char: str) -> str:
    """A character as a person can tell it apart: ``U+202E RIGHT-TO-LEFT OVERRIDE``, or
    ``U+0007 (a control character)`` for one that Unicode names not."""
    name = unicodedata.name(char, "")
    if name:
        return f"U+{ord(char):04X} {name}"
    category = unicodedata.category(char)
    return f"U+{ord(char):04X} ({_UNNAMED.get(category, 'a character without a name')})"


def not_plain(text: str) -> str | None:
    """The first character of ``text`` that is not plain text (see :data:`NOT_PLAIN`), as
    :func:`describe` puts it, or None when there is none."""
    for char in text:
        if unicodedata.category(char) in NOT_PLAIN:
            return describe(char)
    return None


def name_problem(text: str, what: str = "name") -> str | None:
    """Why ``text`` is refused as a name, in one line (``the name holds U+202E RIGHT-TO-LEFT
    OVERRIDE; names are plain text``), or None. One rule for every way a name comes in."""
    found = not_plain(text)
    if found is None:
        return None
    return f"the {what} holds {found}; names are plain text"


def message(text: str | None, limit: int) -> Any:
    """A client's websocket message: JSON text of at most ``limit`` bytes (in UTF-8), nested
    at most MAX_DEPTH deep; ``None`` is a binary frame, which is not read. ValueError says
    what is wrong, in words for its sender."""
    if text is None:
        raise ValueError("binary frames are not read: send a JSON text message")
    # (a character is one byte or more: a text of over ``limit`` characters is not encoded)
    if len(text) > limit or len(text.encode("utf-8", "surrogatepass")) > limit:
        raise ValueError(f"a message is JSON text of at most {limit} bytes")
    try:
        return loads(text)
    except Untrusted:
        raise ValueError(
            f"a message may nest arrays and objects at most {MAX_DEPTH} deep"
        ) from None
    except ValueError:
        raise ValueError("a message must be JSON") from None


def whole_number(text: str, digits: int = 18) -> int | None:
    """``text`` as a whole number if it is one written with ASCII digits, at most ``digits``
    of them (18 fit a database's bigint), else None. ``str.isdigit`` alone says yes to "²"
    and to other scripts' digits, which ``int`` refuses or reads, and a longer number than a
    column holds makes the database raise: a query string is a browser's to forge."""
    if text.isascii() and text.isdigit() and len(text) <= digits:
        return int(text)
    return None
