"""Every operation of the sweep constraint language is bounded (issue 45, item 4):
sizes of strings and tuples, string formatting, rounding digits, nesting depth and
repeated unary operators are refused quickly with a clear message, never a hang, a
memory blow-up or a "maximum recursion depth exceeded"."""

from __future__ import annotations

import time

import pytest

from dcbsim import sweepfile
from dcbsim.constraint import MAX_DEPTH, MAX_ITEMS, Constraint, ConstraintError
from test_reliability import cli, one_line_error, write_sweep


def refusal(text: str) -> str:
    started = time.monotonic()
    with pytest.raises(ConstraintError) as e:
        Constraint(text, {"a"}).allows({"a": 2})
    assert time.monotonic() - started < 2, text
    return str(e.value)


@pytest.mark.parametrize("text, words", [
    ("round(1, -10**8) == 0", "round to at most 400 digits"),
    ("round(1.5, 10**8) > 0", "round to at most 400 digits"),
    ("len('a'*10**9) > 0", "calls only"),
    ("'a'*10**9 == 'a'", f"repeated past {MAX_ITEMS} items"),
    ("10**9*'a' == 'a'", f"repeated past {MAX_ITEMS} items"),
    ("(1,)*10**8 == (1,)", f"repeated past {MAX_ITEMS} items"),
    ("'a'*6000 + 'b'*6000 == 'c'", f"joined past {MAX_ITEMS} items"),
    ("(1,)*6000 + (2,)*6000 == (3,)", f"joined past {MAX_ITEMS} items"),
    ("'%0*d' % (10**9, 1) == ''", "string formatting"),
    ("'%s' % a == '2'", "string formatting"),
    ("-" * 990 + "a > 0", f"nested deeper than {MAX_DEPTH} levels"),
    ("not " * 200 + "a", f"nested deeper than {MAX_DEPTH} levels"),
    ("+" * 60 + "a > 0", f"nested deeper than {MAX_DEPTH} levels"),
    ("[" * 60 + "a" + "]" * 60 + " == 1", f"nested deeper than {MAX_DEPTH} levels"),
    ("abs(" * 60 + "a" + ")" * 60 + " > 0", f"nested deeper than {MAX_DEPTH} levels"),
    ("(" * 100_000 + "a" + ")" * 100_000, "longer than 1000 characters"),
    ("2**4096 > 0", "exponent above 1024"),
    ("9**9**9 > 0", "exponent above 1024"),
    ("math.ldexp(1, 10**9) > 0", "cannot evaluate"),
])
def test_each_unbounded_operation_is_refused_quickly(text, words):
    assert words in refusal(text)


def test_deep_brackets_end_in_a_syntax_refusal_not_a_recursion_error():
    message = refusal("(" * 300 + "a" + ")" * 300)
    assert "recursion" not in message and "nested" in message


@pytest.mark.parametrize("text, expected", [
    ("round(a, 2) == 2", True),
    ("round(1234, -2) == 1200", True),
    ("'ab' * 3 == 'ababab'", True),
    ("(1, 2) + (3,) == (1, 2, 3)", True),
    ("- - - a == -2", True),
    ("a % 2 == 0", True),
    ("not not a", True),
])
def test_bounded_operations_within_their_limits_still_work(text, expected):
    assert Constraint(text, {"a"}).allows({"a": 2}) is expected


def test_a_sweep_with_an_unbounded_constraint_is_refused_in_one_line(tmp_path):
    text = 'constraint = "\'a\' * 10**9 == \'a\'"\n[[sweep.var]]\nname = "a"\nset = "scheme.q_eq_kb"\nvalues = [10]\n'
    path = write_sweep(tmp_path, text)
    started = time.monotonic()
    one_line_error(cli("sweep", str(path), "--list", timeout=60), 2, "sweep.constraint")
    assert time.monotonic() - started < 30
    deep = write_sweep(tmp_path, f'constraint = "{"-" * 990}a > 0"\n[[sweep.var]]\nname = "a"\nset = "scheme.q_eq_kb"\nvalues = [10]\n')
    with pytest.raises(sweepfile.SweepError, match="nested deeper"):
        sweepfile.load(deep)
