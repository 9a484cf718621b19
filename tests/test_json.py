"""The JSON outputs (``summary.json``, ``manifest.json``), written by ``serde_json``:
values read back as written (floats to the last bit, ints however large), keys in
order, NaN and the infinities as ``null``, and the layout of two indented levels."""

from __future__ import annotations

import json
import math
import random
import struct

import pytest

import dcbsim
from dcbsim import outputs


class Opaque:
    def __str__(self) -> str:
        return "opaque \u00e9"


def _strict(text: str):
    """``text`` read as JSON that has no NaN or Infinity tokens (as JSON itself has none)."""
    def refuse(token):
        raise ValueError(f"not JSON: {token}")

    return json.loads(text, parse_constant=refuse)


def _written(tmp_path, data) -> str:
    path = tmp_path / "x.json"
    outputs.write_json(str(path), data)
    return path.read_text(encoding="utf-8")


def _layout(value, depth=0) -> str:
    """The layout through the json module: two levels indented, each deeper container
    on one line; strings as UTF-8 (``ensure_ascii=False``), as serde_json writes them."""
    dumps = lambda v: json.dumps(v, ensure_ascii=False)
    if depth >= 2 or not isinstance(value, (dict, list)) or not value:
        return dumps(value)
    inner = "  " * (depth + 1)
    if isinstance(value, dict):
        items = [f"{inner}{dumps(k)}: {_layout(v, depth + 1)}" for k, v in value.items()]
        return "{\n" + ",\n".join(items) + "\n" + "  " * depth + "}"
    items = [inner + _layout(v, depth + 1) for v in value]
    return "[\n" + ",\n".join(items) + "\n" + "  " * depth + "]"


def _digits(text: str) -> str:
    """The significant digits of a number's text."""
    mantissa = text.strip().lstrip("-").split("e")[0].replace(".", "")
    return mantissa.strip("0") or "0"


def test_floats_read_back_to_the_last_bit_as_the_shortest_text(tmp_path):
    rng = random.Random(3)
    floats = [struct.unpack("<d", struct.pack("<Q", rng.getrandbits(64)))[0] for _ in range(20000)]
    floats += [rng.random() * 10.0 ** rng.randint(-30, 30) for _ in range(20000)]
    floats += [-1113178120592002.2, 1e16, 1234567890123456.0, 1e-05, 0.0001, -0.0, 0.0, 5e-324, 1.7976931348623157e308]
    finite = [x for x in floats if math.isfinite(x)]
    text = _written(tmp_path, {"f": finite})
    got = _strict(text)["f"]
    assert [struct.pack("<d", x) for x in got] == [struct.pack("<d", x) for x in finite]
    # The shortest digits that read back, as Python's repr has them (the notation may
    # differ: 0.00001234 for 1.234e-05, 1e16 for 1e+16).
    numbers = text.split("[", 1)[1].rsplit("]", 1)[0].split(",")
    assert [_digits(t) for t in numbers] == [_digits(repr(x)) for x in finite]


def test_nan_and_the_infinities_are_written_as_null(tmp_path):
    data = {"nan": float("nan"), "spread": [float("inf"), -float("inf"), 1.5], "deep": {"a": {"b": [float("nan")]}}}
    got = _strict(_written(tmp_path, data))
    assert got == {"nan": None, "spread": [None, None, 1.5], "deep": {"a": {"b": [None]}}}


def test_ints_strings_and_keys_read_back_in_order(tmp_path):
    rng = random.Random(5)
    pool = ["a", "Z", " ", "~", "0", "\"", "\\", "\n", "\x00", "\x1f", "\x7f", "\x80", "é", "流", "😀", "\ufffe"]
    texts = ["".join(rng.choice(pool) for _ in range(rng.randint(0, 14))) for _ in range(3000)]
    ints = [0, -1, 2**63 - 1, -2**63, 2**64 - 1, 2**70, -2**70, 10**40]
    data = {
        "ints": {"n": ints, "flags": [True, False, None]},
        "strings": {"s": texts, "as keys": dict.fromkeys(reversed(texts), 0)},
        "keys": {"k": {1: 1, 2.5: 2, None: 3, False: 4, "s": 5, -7: 6}},
        1: [(1, (2, {"x": (3,)})), Opaque(), [], {}],
        "z": {}, "a": [],
    }
    got = _strict(_written(tmp_path, data))
    assert list(got) == ["ints", "strings", "keys", "1", "z", "a"]
    assert got["ints"] == {"n": ints, "flags": [True, False, None]}
    assert got["strings"]["s"] == texts and list(got["strings"]["as keys"]) == list(dict.fromkeys(reversed(texts)))
    assert list(got["keys"]["k"].items()) == [("1", 1), ("2.5", 2), ("null", 3), ("false", 4), ("s", 5), ("-7", 6)]
    assert got["1"] == [[1, [2, {"x": [3]}]], "opaque é", [], {}]


def test_the_layout_is_two_indented_levels_then_one_line_per_entry(tmp_path, small_text):
    summary = dcbsim.run(dcbsim.loads(small_text)).summary
    # Values of the kinds the layout is about (floats aside: the json module writes
    # some of them otherwise, 1e-07 for 1e-7, and their values are checked above).
    data = {"a": 1, "b": {"c": [1, 2, {"d": "é\n"}], "e": {}}, "f": [], "g": [[1, [2]], "x"], "ports": list(summary["ports"])}
    assert _written(tmp_path, data) == _layout(data) + "\n"
    # A run's whole summary reads back as it is (its floats are all finite).
    assert _strict(_written(tmp_path, summary)) == json.loads(json.dumps(summary, default=str))


def test_a_lone_surrogate_is_written_as_replacement_characters(tmp_path):
    # (Each byte of its surrogate-escaped UTF-8, as Rust's lossy decoding does.)
    assert _strict(_written(tmp_path, {"s": "\ud800 lone"})) == {"s": "\ufffd\ufffd\ufffd lone"}


def test_bad_values_are_refused_and_leave_no_file(tmp_path):
    with pytest.raises(TypeError, match="keys must be str"):
        outputs.write_json(str(tmp_path / "y.json"), {"a": {"b": {(1, 2): 3}}})
    assert not list(tmp_path.glob("*y.json*"))
    loop: list = []
    loop.append(loop)
    with pytest.raises(ValueError, match="nested too deeply"):
        outputs.write_json(str(tmp_path / "z.json"), {"loop": loop})
    assert not list(tmp_path.glob("*z.json*"))
