"""Sweep constraints: a small, bounded and safe evaluator of expressions such as
``qeq <= 64 or rai > 1``.

Allowed: numbers, strings, ``True``/``False``, the sweep's variable names, arithmetic
(``+ - * / // % **``), comparisons (chained too, ``in``/``not in`` over a list or
tuple), ``and``/``or``/``not``, ``a if c else b``, and the functions ``abs``, ``min``,
``max``, ``round`` and those of :mod:`math` (``math.log(x)``). Anything else (attributes,
other calls, comprehensions, lambdas, string formatting) is refused when the sweep is
loaded or when it is evaluated. Every operation is bounded, so no constraint can hang a
sweep, exhaust its memory or its stack: expressions longer than 1000 characters or
nested deeper than 50 levels (lists, tuples, calls and operators: ``- - - x`` is three), integers
past 4096 bits, exponents past 1024, strings and tuples past 10,000 items, and
``round`` to more than 400 digits either side of the point are refused.
"""

from __future__ import annotations

import ast
import math
import operator
from collections.abc import Callable
from typing import Any

MAX_LENGTH = 1000
MAX_DEPTH = 50
MAX_INT_BITS = 4096
MAX_EXPONENT = 1024
MAX_ITEMS = 10_000
MAX_ROUND_DIGITS = 400

_BINARY: dict[type, Callable[[Any, Any], Any]] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod, ast.Pow: operator.pow,
}
_COMPARE: dict[type, Callable[[Any, Any], Any]] = {
    ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le, ast.Gt: operator.gt,
    ast.GtE: operator.ge, ast.In: lambda a, b: a in b, ast.NotIn: lambda a, b: a not in b,
}
_UNARY: dict[type, Callable[[Any], Any]] = {ast.USub: operator.neg, ast.UAdd: operator.pos, ast.Not: operator.not_}
_FUNCTIONS: dict[str, Callable[..., Any]] = {"abs": abs, "min": min, "max": max, "round": round}
_MATH = {name: getattr(math, name) for name in dir(math) if not name.startswith("_") and name not in {"factorial", "comb", "perm", "prod"}}


class ConstraintError(ValueError):
    """A constraint that is not allowed or cannot be evaluated."""


def _function(node: ast.expr) -> Callable[..., Any]:
    if isinstance(node, ast.Name) and node.id in _FUNCTIONS:
        return _FUNCTIONS[node.id]
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "math" and node.attr in _MATH:
        fn = _MATH[node.attr]
        if callable(fn):
            return fn
    raise ConstraintError(f"calls only abs, min, max, round and math functions (not {ast.unparse(node)})")


def _bounded(value: Any) -> Any:
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > MAX_INT_BITS:
        raise ConstraintError(f"an integer grew past {MAX_INT_BITS} bits")
    if isinstance(value, (str, tuple)) and len(value) > MAX_ITEMS:
        raise ConstraintError(f"a {'string' if isinstance(value, str) else 'tuple'} grew past {MAX_ITEMS} items")
    return value


def _power(base: Any, exponent: Any) -> Any:
    if isinstance(exponent, (int, float)) and abs(exponent) > MAX_EXPONENT:
        raise ConstraintError(f"an exponent above {MAX_EXPONENT}")
    if isinstance(base, int) and isinstance(exponent, int) and exponent > 0 and base.bit_length() * exponent > MAX_INT_BITS:
        raise ConstraintError(f"an integer would grow past {MAX_INT_BITS} bits")
    return base**exponent


def _sized(value: Any) -> bool:
    return isinstance(value, (str, tuple))


def _count(value: Any) -> bool:
    return isinstance(value, int)


def _binary(op: type, a: Any, b: Any) -> Any:
    """``a op b`` for a non-power operator, refused before it is computed when its
    result would be too large: a string or tuple repeated past the bound, added past
    it, or a string formatted with ``%`` (whose widths could ask for any size)."""
    if op is ast.Mult and ((_sized(a) and _count(b)) or (_count(a) and _sized(b))):
        seq, times = (a, b) if _sized(a) else (b, a)
        if len(seq) * max(times, 0) > MAX_ITEMS:
            raise ConstraintError(f"a string or tuple repeated past {MAX_ITEMS} items")
    if op is ast.Add and _sized(a) and _sized(b) and len(a) + len(b) > MAX_ITEMS:
        raise ConstraintError(f"a string or tuple joined past {MAX_ITEMS} items")
    if op is ast.Mod and isinstance(a, str):
        raise ConstraintError("string formatting (str % values) is not allowed")
    return _BINARY[op](a, b)


def _round(*args: Any) -> Any:
    if len(args) == 2 and isinstance(args[1], int) and abs(args[1]) > MAX_ROUND_DIGITS:
        raise ConstraintError(f"round to at most {MAX_ROUND_DIGITS} digits either side of the point (got {args[1]})")
    return round(*args)


_FUNCTIONS["round"] = _round


def _depth(tree: ast.AST) -> int:
    """The nesting depth of ``tree``, counted without recursion."""
    deepest, stack = 0, [(tree, 1)]
    while stack:
        node, depth = stack.pop()
        deepest = max(deepest, depth)
        if deepest > MAX_DEPTH:
            break
        stack.extend((child, depth + 1) for child in ast.iter_child_nodes(node) if not isinstance(child, ast.expr_context))
    return deepest


class Constraint:
    """A parsed, checked constraint; call :meth:`allows` with the variables' values."""

    def __init__(self, text: str, names: set[str]) -> None:
        if len(text) > MAX_LENGTH:
            raise ConstraintError(f"is longer than {MAX_LENGTH} characters")
        try:
            self.tree = ast.parse(text, mode="eval").body
        except SyntaxError as e:
            raise ConstraintError(f"cannot evaluate {text!r}: {e.msg}") from None
        except (RecursionError, MemoryError):
            raise ConstraintError(f"is nested deeper than {MAX_DEPTH} levels") from None
        if _depth(self.tree) > MAX_DEPTH:
            raise ConstraintError(f"is nested deeper than {MAX_DEPTH} levels (lists, tuples, calls and operators each count one)")
        self.text = text
        self.names = names
        self._check(self.tree)

    def _check(self, node: ast.AST) -> None:
        if isinstance(node, ast.Call):
            _function(node.func)
            if node.keywords:
                raise ConstraintError("calls take no keyword arguments")
            for arg in node.args:
                self._check(arg)
            return
        allowed = (ast.BoolOp, ast.And, ast.Or, ast.BinOp, ast.UnaryOp, ast.Compare, ast.IfExp, ast.Constant,
                   ast.Name, ast.Load, ast.Tuple, ast.List, *_BINARY, *_COMPARE, *_UNARY)
        if not isinstance(node, allowed):
            raise ConstraintError(f"{type(node).__name__.lower()} is not allowed here ({ast.unparse(node)})")
        if isinstance(node, ast.Name) and node.id not in self.names | {"True", "False", "math", "inf", "pi"}:
            raise ConstraintError(f"unknown name {node.id!r}; the variables are {', '.join(sorted(self.names)) or 'none'}")
        if isinstance(node, ast.Constant) and not isinstance(node.value, (int, float, str, bool)):
            raise ConstraintError(f"constant {node.value!r} is not allowed")
        for child in ast.iter_child_nodes(node):
            self._check(child)

    def allows(self, values: dict[str, Any]) -> bool:
        """Whether the combination ``values`` is to be run."""
        try:
            return bool(self._eval(self.tree, values))
        except ConstraintError:
            raise
        except (ArithmeticError, TypeError, ValueError, MemoryError, RecursionError) as e:
            raise ConstraintError(f"cannot evaluate with {values}: {e}") from None

    def _eval(self, node: ast.AST, env: dict[str, Any]) -> Any:
        ev = lambda n: self._eval(n, env)
        match node:
            case ast.Constant(value=v):
                return v
            case ast.Name(id=name):
                return {"True": True, "False": False, "inf": math.inf, "pi": math.pi}.get(name, env.get(name))
            case ast.BoolOp(op=ast.And(), values=vs):
                return all(ev(v) for v in vs)
            case ast.BoolOp(op=ast.Or(), values=vs):
                return any(ev(v) for v in vs)
            case ast.UnaryOp(op=op, operand=x):
                return _bounded(_UNARY[type(op)](ev(x)))
            case ast.BinOp(op=ast.Pow(), left=a, right=b):
                return _bounded(_power(ev(a), ev(b)))
            case ast.BinOp(op=op, left=a, right=b):
                return _bounded(_binary(type(op), ev(a), ev(b)))
            case ast.Compare(left=a, ops=ops, comparators=cs):
                left = ev(a)
                for op, c in zip(ops, cs):
                    right = ev(c)
                    if not _COMPARE[type(op)](left, right):
                        return False
                    left = right
                return True
            case ast.IfExp(test=t, body=b, orelse=o):
                return ev(b) if ev(t) else ev(o)
            case ast.Tuple(elts=items) | ast.List(elts=items):
                return tuple(ev(i) for i in items)
            case ast.Call(func=f, args=args):
                return _bounded(_function(f)(*[ev(a) for a in args]))
        raise ConstraintError(f"{type(node).__name__.lower()} is not allowed")
