"""A small Parquet writer for the tidy results table, so that ``dcbsim run`` need not
import polars (about a quarter of a second) to write ``results.parquet``.

It writes required (non-null) columns, uncompressed, in one row group or in several
given one after another (a table larger than memory): doubles PLAIN-encoded from
their little-endian bytes (a report's own, or a numpy array's); a 64-bit unsigned
integer holding one value (the seed) as one run;
strings dictionary-encoded as runs (the tidy table's metric and entity columns are
long runs of one value); and doubles that repeat one sequence (the time column: the
sample times once per series) dictionary-encoded, two bytes a row where plain
doubles take eight.
Readers (polars, pyarrow, DuckDB) see the same schema as polars' own
``write_parquet`` gives: Float64, String and UInt64 columns.
"""

from __future__ import annotations

import array
import struct
import sys
from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import accumulate
from typing import TYPE_CHECKING, TypeAlias

from dcbsim._core import string_pages

if TYPE_CHECKING:
    import numpy

#: A buffer of little-endian float64 values: ``bytes``, or a contiguous numpy array.
Floats: TypeAlias = "bytes | bytearray | memoryview | numpy.ndarray"  # a string: numpy is not imported here

#: Rows per data page.
PAGE_ROWS = 1 << 20

# Thrift compact protocol type codes.
_I32, _I64, _BINARY, _LIST, _STRUCT, _BYTE, _TRUE, _FALSE = 5, 6, 8, 9, 12, 3, 1, 2
# Parquet enums.
_INT64, _DOUBLE, _BYTE_ARRAY = 2, 5, 6
_REQUIRED = 0
_UTF8, _UINT_64 = 0, 14
_PLAIN, _RLE, _RLE_DICTIONARY = 0, 3, 8
_DATA_PAGE, _DICTIONARY_PAGE = 0, 2


@dataclass(frozen=True)
class Doubles:
    """A float64 column: one buffer, or a list of buffers one after another (the
    series of a table, written without joining them first)."""

    name: str
    values: Floats | list[Floats]


@dataclass(frozen=True)
class Unsigned:
    """A uint64 column holding one value in every row."""

    name: str
    value: int


@dataclass(frozen=True)
class StringRuns:
    """A string column given as runs: ``runs[i]`` rows of ``strings[i]``."""

    name: str
    strings: Sequence[str]
    runs: Sequence[int]


@dataclass(frozen=True)
class Cycle:
    """A float64 column holding ``values`` over and over, ``times`` times."""

    name: str
    values: Floats
    times: int


#: A column of the table.
Column = Doubles | Cycle | Unsigned | StringRuns


def _varint(n: int) -> bytes:
    out = bytearray()
    while True:
        byte = n & 0x7F
        n >>= 7
        if n:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def _zigzag(n: int) -> bytes:
    return _varint((n << 1) ^ (n >> 63))


class _Struct:
    """A Thrift compact-protocol struct being written, field by field in id order."""

    def __init__(self) -> None:
        self.out = bytearray()
        self.last = 0

    def _field(self, fid: int, kind: int) -> None:
        delta = fid - self.last
        if 0 < delta <= 15:
            self.out.append(delta << 4 | kind)
        else:
            self.out.append(kind)
            self.out += _zigzag(fid)
        self.last = fid

    def i32(self, fid: int, v: int) -> _Struct:
        self._field(fid, _I32)
        self.out += _zigzag(v)
        return self

    def i64(self, fid: int, v: int) -> _Struct:
        self._field(fid, _I64)
        self.out += _zigzag(v)
        return self

    def i8(self, fid: int, v: int) -> _Struct:
        self._field(fid, _BYTE)
        self.out.append(v & 0xFF)
        return self

    def boolean(self, fid: int, v: bool) -> _Struct:
        self._field(fid, _TRUE if v else _FALSE)
        return self

    def binary(self, fid: int, v: bytes | str) -> _Struct:
        data = v.encode() if isinstance(v, str) else v
        self._field(fid, _BINARY)
        self.out += _varint(len(data)) + data
        return self

    def struct(self, fid: int, v: _Struct) -> _Struct:
        self._field(fid, _STRUCT)
        self.out += v.end()
        return self

    def _list_header(self, fid: int, kind: int, n: int) -> None:
        self._field(fid, _LIST)
        self.out += bytes([n << 4 | kind]) if n < 15 else bytes([0xF0 | kind]) + _varint(n)

    def i32_list(self, fid: int, items: Sequence[int]) -> _Struct:
        self._list_header(fid, _I32, len(items))
        for v in items:
            self.out += _zigzag(v)
        return self

    def binary_list(self, fid: int, items: Sequence[str]) -> _Struct:
        self._list_header(fid, _BINARY, len(items))
        for v in items:
            data = v.encode()
            self.out += _varint(len(data)) + data
        return self

    def struct_list(self, fid: int, items: Sequence[_Struct]) -> _Struct:
        self._list_header(fid, _STRUCT, len(items))
        for v in items:
            self.out += v.end()
        return self

    def end(self) -> bytes:
        return bytes(self.out) + b"\x00"


#: A page as the buffers written one after another: its header, then its body's parts
#: (views of the values where they can be: a page of doubles is 8 MB, and joining its
#: header to it copied every value of the table once more).
Page = tuple[bytes | memoryview, ...]


def _page(kind: int, body: Sequence[bytes | memoryview], header: _Struct) -> Page:
    size = sum(map(len, body))
    page = _Struct().i32(1, kind).i32(2, size).i32(3, size)
    page.struct(7 if kind == _DICTIONARY_PAGE else 5, header)
    return (page.end(), *body)


def _dictionary_page(count: int, plain: bytes) -> Page:
    """A dictionary page of ``count`` values, PLAIN-encoded in ``plain``."""
    return _page(_DICTIONARY_PAGE, [plain], _Struct().i32(1, count).i32(2, _PLAIN))


def _data_page(rows: int, encoding: int, *body: bytes | memoryview) -> Page:
    header = _Struct().i32(1, rows).i32(2, encoding).i32(3, _RLE).i32(4, _RLE)
    return _page(_DATA_PAGE, body, header)


def _pages(column: Column, rows: int) -> tuple[list[Page], int, list[int]]:
    """The column chunk's pages, the index of its first data page among them, and its
    encodings."""
    starts = range(0, rows, PAGE_ROWS)
    if isinstance(column, Doubles):
        return [_data_page(n, _PLAIN, body) for n, body in _double_pages(column.values)], 0, [_PLAIN, _RLE]
    if isinstance(column, Unsigned):
        # The one value as the dictionary, then each page one run of index 0.
        dictionary = _dictionary_page(1, struct.pack("<Q", column.value))
        runs = [_data_page(min(PAGE_ROWS, rows - a), _RLE_DICTIONARY, bytes([1]) + _varint(min(PAGE_ROWS, rows - a) << 1) + b"\x00")
                for a in starts]
        return [dictionary] + runs, 1, [_PLAIN, _RLE, _RLE_DICTIONARY]
    if isinstance(column, Cycle):
        return _cycle_pages(column, rows, starts), 1, [_PLAIN, _RLE, _RLE_DICTIONARY]
    return _string_pages(column, rows, starts), 1, [_PLAIN, _RLE, _RLE_DICTIONARY]


def _bytes(values: Floats) -> memoryview:
    """The bytes of a float64 buffer, as they are."""
    return memoryview(values).cast("B")


def _count(values: Floats | list[Floats]) -> int:
    """Number of float64 values in a buffer or a list of them."""
    parts = values if isinstance(values, list) else [values]
    if set(map(type, parts)) == {bytes}:
        # Bytes only (a large run's short series): counted without a Python step each.
        return sum(map(len, parts)) // 8
    return sum(len(v) if type(v) is bytes else _bytes(v).nbytes for v in parts) // 8


def _double_pages(values: Floats | list[Floats]) -> Iterator[tuple[int, bytes | memoryview]]:
    """Each data page's rows and PLAIN bytes, :data:`PAGE_ROWS` rows a page, taken
    from the buffers in turn: a page within one buffer is a view of it, any other the
    buffers' bytes joined (found by their running ends, not buffer by buffer: a large
    run's table has hundreds of thousands of short series)."""
    parts = values if isinstance(values, list) else [values]
    if set(map(type, parts)) != {bytes}:
        parts = [_bytes(v) for v in parts]
    ends = list(accumulate(map(len, parts)))
    total, full = (ends[-1] if ends else 0), 8 * PAGE_ROWS
    for at in range(0, total, full):
        stop = min(total, at + full)
        first = bisect_right(ends, at)
        last = bisect_left(ends, stop, first)
        start_in_first = at - (ends[first] - len(parts[first]))
        if first == last:
            yield (stop - at) // 8, memoryview(parts[first])[start_in_first:start_in_first + stop - at]
            continue
        head = parts[first] if start_in_first == 0 else memoryview(parts[first])[start_in_first:]
        tail = memoryview(parts[last])[:len(parts[last]) - (ends[last] - stop)]
        yield (stop - at) // 8, b"".join([head, *parts[first + 1:last], tail])


def _string_pages(column: StringRuns, rows: int, starts: range) -> list[Page]:
    """A string column's pages: its distinct strings sorted as the dictionary, then
    each data page's runs of indices, a run cut where a page ends (made by the
    engine's :func:`dcbsim._core.string_pages`: a table of 100,000 flows has as many
    distinct names and hundreds of thousands of runs)."""
    plain, distinct, bodies = string_pages(list(column.strings), list(column.runs), PAGE_ROWS)
    pages = [_dictionary_page(distinct, plain)]
    for a, body in zip(starts, bodies):
        pages.append(_data_page(min(PAGE_ROWS, rows - a), _RLE_DICTIONARY, body))
    return pages


def _cycle_pages(column: Cycle, rows: int, starts: range) -> list[Page]:
    """A repeating column's pages: its sequence once as the dictionary, then each data
    page's indices as one bit-packed run of 16-bit words (32-bit beyond 65,536 values),
    which are the indices' little-endian bytes as they are."""
    period = _count(column.values)
    pages = [_dictionary_page(period, bytes(_bytes(column.values)))]
    if not rows:
        return pages
    word = array.array("H" if period <= 1 << 16 else "I", range(period))
    if sys.byteorder == "big":
        word.byteswap()
    # The indices 0..period-1 repeated, long enough for a page starting anywhere in them.
    cycle = memoryview(word * (min(PAGE_ROWS, rows) // period + 2)).cast("B")
    size = word.itemsize
    for a in starts:
        n = min(PAGE_ROWS, rows - a)
        groups = -(-n // 8)
        first = a % period
        run = bytes([8 * size]) + _varint(groups << 1 | 1)
        pages.append(_data_page(n, _RLE_DICTIONARY, run, cycle[size * first:size * (first + n)], bytes((8 * groups - n) * size)))
    return pages


def _schema(column: Column) -> _Struct:
    s = _Struct()
    if isinstance(column, (Doubles, Cycle)):
        return s.i32(1, _DOUBLE).i32(3, _REQUIRED).binary(4, column.name)
    if isinstance(column, Unsigned):
        integer = _Struct().i8(1, 64).boolean(2, False)
        logical = _Struct().struct(10, integer)
        return s.i32(1, _INT64).i32(3, _REQUIRED).binary(4, column.name).i32(6, _UINT_64).struct(10, logical)
    logical = _Struct().struct(1, _Struct())
    return s.i32(1, _BYTE_ARRAY).i32(3, _REQUIRED).binary(4, column.name).i32(6, _UTF8).struct(10, logical)


def _physical(column: Column) -> int:
    return _DOUBLE if isinstance(column, (Doubles, Cycle)) else _INT64 if isinstance(column, Unsigned) else _BYTE_ARRAY


#: Where each data page of a float64 column keeps its values: ``(first row, rows,
#: file offset of the first value)``, by column name.
PageIndex = dict[str, list[tuple[int, int, int]]]

#: One row group: its number of rows and its columns.
RowGroup = tuple[int, Sequence[Column]]


def _check(rows: int, columns: Sequence[Column]) -> None:
    for c in columns:
        if ((isinstance(c, Doubles) and _count(c.values) != rows) or (isinstance(c, StringRuns) and sum(c.runs) != rows)
                or (isinstance(c, Cycle) and _count(c.values) * c.times != rows)):
            raise ValueError(f"column {c.name} does not have {rows} rows")


def write(path: str, rows: int, columns: Sequence[Column]) -> PageIndex:
    """Writes a table of `rows` rows with the given columns to ``path``, in one row
    group; returns where the float64 columns' values lie (see :data:`PageIndex`).
    The columns are checked once, as the group's (counting a large table's hundreds
    of thousands of series twice took a tenth of a second)."""
    if not rows:
        # No group to write, and so none to check.
        _check(rows, columns)
    return write_groups(path, columns, [(rows, columns)] if rows else [])


def write_groups(path: str, schema: Sequence[Column], groups: Iterable[RowGroup]) -> PageIndex:
    """Writes a table as row groups, each given when the previous one is written (so
    that only one is in memory); ``schema`` names the columns (each group has them, in
    this order). Returns where the float64 columns' values lie (see :data:`PageIndex`)."""
    index: PageIndex = {c.name: [] for c in schema if isinstance(c, Doubles)}
    with open(path, "wb") as f:
        f.write(b"PAR1")
        offset, first_row, metas = 4, 0, []
        for rows, columns in groups:
            _check(rows, columns)
            chunks, total = [], 0
            for c in columns:
                pages, first_data, encodings = _pages(c, rows)
                starts = [offset]
                for k, page in enumerate(pages):
                    for part in page:
                        f.write(part)
                        offset += len(part)
                    starts.append(offset)
                    if isinstance(c, Doubles):
                        page_rows = min(PAGE_ROWS, rows - k * PAGE_ROWS)
                        index[c.name].append((first_row + k * PAGE_ROWS, page_rows, offset - 8 * page_rows))
                size = offset - starts[0]
                total += size
                meta = _Struct().i32(1, _physical(c)).i32_list(2, encodings).binary_list(3, [c.name]).i32(4, 0)
                meta.i64(5, rows).i64(6, size).i64(7, size).i64(9, starts[first_data])
                if first_data:
                    meta.i64(11, starts[0])
                chunks.append(_Struct().i64(2, starts[0]).struct(3, meta))
            metas.append(_Struct().struct_list(1, chunks).i64(2, total).i64(3, rows))
            first_row += rows
        root = _Struct().binary(4, "schema").i32(5, len(schema))
        footer = _Struct().i32(1, 1).struct_list(2, [root] + [_schema(c) for c in schema]).i64(3, first_row)
        footer.struct_list(4, metas).binary(6, "dcbsim")
        data = footer.end()
        f.write(data + struct.pack("<I", len(data)) + b"PAR1")
    return index
