"""Reading untrusted JSON and text (games.engine.untrusted)."""

import json
import sys

import pytest

from games.engine import untrusted


@pytest.mark.parametrize("opener", ["[", '{"a":'])
def test_deep_nesting_is_refused_before_parsing(opener):
    closer = "]" if opener == "[" else "}"
    deep = opener * 5000 + "1" + closer * 5000
    with pytest.raises(untrusted.Untrusted, match="nested 5000 deep"):
        untrusted.loads(deep)
    with pytest.raises(ValueError):  # what callers catch for malformed JSON
        untrusted.loads(deep.encode())


def test_deeper_than_the_interpreter_can_parse_is_still_a_value_error():
    deep = "[" * (sys.getrecursionlimit() * 4)  # unterminated, and past json's recursion
    with pytest.raises(untrusted.Untrusted):
        untrusted.loads(deep)


def test_shallow_documents_parse_as_json_does():
    for text in ['[1, [2, [3]], {"a": {"b": []}}]', '{"type": "return", "value": 3}', "7", '"x"']:
        assert untrusted.loads(text) == json.loads(text)
    exactly = "[" * untrusted.MAX_DEPTH + "]" * untrusted.MAX_DEPTH
    assert untrusted.loads(exactly) == json.loads(exactly)
    with pytest.raises(untrusted.Untrusted):
        untrusted.loads("[" + exactly + "]")


def test_brackets_inside_strings_do_not_count():
    text = json.dumps(["[" * 100, "{" * 100, 'a \\" [[[ \\\\', {"k": "]]]]"}])
    assert untrusted.depth(text) == 2
    assert untrusted.loads(text) == json.loads(text)


def test_many_shallow_brackets_are_fine():
    text = json.dumps([[i] for i in range(1000)])
    assert untrusted.loads(text) == json.loads(text)


@pytest.mark.parametrize("as_bytes", [False, True])
def test_nul_and_lone_surrogates_are_replaced_in_values_and_keys(as_bytes):
    text = r'{"a\u0000": ["x\u0000y", "\ud800", "\udc00z", "\ud83d\ude00"]}'
    value = untrusted.loads(text.encode() if as_bytes else text)
    assert value == {"a\ufffd": ["x\ufffdy", "\ufffd", "\ufffdz", "\U0001f600"]}
    json.dumps(value).encode("utf-8")  # storable: no NUL escape, no surrogate
    assert "\\u0000" not in json.dumps(value)


def test_bytes_must_be_strict_utf8():
    with pytest.raises(ValueError):
        untrusted.loads(b'"\xed\xa0\x80"')  # an encoded surrogate
    with pytest.raises(ValueError):
        untrusted.loads(b'"\xff"')
    with pytest.raises(ValueError):
        untrusted.loads("[1]".encode("utf-16"))


def test_text_from_a_stream_is_storable():
    text = untrusted.decode(b"ok\x00\xff\xfe done")
    assert text == "ok\ufffd\ufffd\ufffd done"
    text.encode("utf-8")
    assert untrusted.clean_text("plain") == "plain"
    plain = {"n": 1, "l": [None, True, 2.5]}
    assert untrusted.clean_value(plain) == plain


@pytest.mark.parametrize("text", ["NaN", "[Infinity]", '{"a": -Infinity}', "[1e999]", "-1e400"])
def test_numbers_no_database_stores_in_json_are_refused(text):
    with pytest.raises(ValueError):
        untrusted.loads(text)


def test_storable_makes_any_record_storable():
    record = {
        "events": [{"action": ["a\x00", float("nan"), (1, 2)], 3: "\udfff"}],
        "ok": [1, 2.5, None, True, "fine"],
    }
    assert untrusted.storable(record) == {
        "events": [{"action": ["a\ufffd", None, [1, 2]], "3": "\ufffd"}],
        "ok": [1, 2.5, None, True, "fine"],
    }
    json.dumps(untrusted.storable(record), allow_nan=False).encode("utf-8")


def test_printable_shows_what_a_terminal_would_act_on():
    text = untrusted.printable("a\x1b[2J b\u202ec\td\ne\x00\r\x9b")
    assert text == "a\\x1b[2J b\\u202ec\td\ne\ufffd\\x0d\\x9b"


@pytest.mark.parametrize(
    ("name", "said"),
    [
        ("evil\u202egnp.exe", "U+202E RIGHT-TO-LEFT OVERRIDE"),
        ("a\u200db", "U+200D ZERO WIDTH JOINER"),
        ("a\u2066b", "U+2066 LEFT-TO-RIGHT ISOLATE"),
        ("bell\x07", "U+0007 (a control character)"),
        ("tab\tname", "U+0009 (a control character)"),
        ("two\u2028lines", "U+2028 LINE SEPARATOR"),
        ("para\u2029", "U+2029 PARAGRAPH SEPARATOR"),
        ("own\ue000", "U+E000 (a private-use character)"),
        ("lone\ud800", "U+D800 (a surrogate)"),
        ("new\U000e0080", "U+E0080 (an unassigned code point)"),
    ],
)
def test_a_name_holding_a_control_or_format_character_is_refused_by_name(name, said):
    assert untrusted.name_problem(name, "bot name") == (
        f"the bot name holds {said}; names are plain text"
    )


@pytest.mark.parametrize("name", ["simple", "Zoë's bot", "名人", "a b-c_d.e", "\U0001f0cf joker"])
def test_a_plain_name_passes(name):
    assert untrusted.name_problem(name) is None


@pytest.mark.parametrize(
    "text",
    [
        '{"a":1}', '{"a":1}\n', ' {"a":1}', '{"a":1} x', '{"a":1}\n\n', "", "[1,2", "NaN",
        '"\\ud800"', '{"a":[1.5,2]}\r\n', "truex", "123", "  ", '{"a":"\\u0000"}', '{"a":1}\t',
        "tru", "[1,]", '{"id":3,"type":"return","value":[0,1]}\n', "1e999", "[1]]",
    ],
)  # fmt: skip
def test_a_line_is_read_as_the_json_decoder_reads_it(text):
    """A line that is one value, newline or not, is scanned directly: the same value, or
    the same error, as the decoder gives for every text."""

    def read(parse):
        try:
            return ("value", parse(text))
        except ValueError as exc:
            return (type(exc).__name__, str(exc))

    decoder = json.JSONDecoder(parse_constant=untrusted._no_constant, parse_float=untrusted._finite)
    assert read(untrusted.loads) == read(lambda t: untrusted.clean_value(decoder.decode(t)))


def test_a_lone_surrogate_in_a_str_itself_is_replaced():
    """A str (not bytes) may hold a surrogate without an escape: it is cleaned too."""
    assert untrusted.loads('["a\ud800"]') == ["a\ufffd"]
    with pytest.raises(ValueError):  # as bytes it cannot even be UTF-8
        untrusted.loads('["a\ud800"]'.encode("utf-8", "surrogatepass"))


def test_one_line_shows_what_a_bot_wrote_on_one_line_escaped_and_cut():
    said = untrusted.one_line("bad card\n\n\u2022 guest (seat 1):\tx\u202ey\u200bz\u2028\x00 ")
    assert said == "bad card \u2022 guest (seat 1): x\\u202ey\\u200bz \ufffd"
    assert untrusted.one_line("\U000e0001") == "\\U000e0001"
    long = untrusted.one_line("a" * 2000)
    assert len(long) == untrusted.SHOWN and long.endswith("a\u2026")
    # an escape is never cut in two
    cut = untrusted.one_line("\u202e" * 100)
    assert cut.endswith("\\u202e\u2026") and len(cut) <= untrusted.SHOWN
    assert untrusted.one_line("a" * 300) == "a" * 300
