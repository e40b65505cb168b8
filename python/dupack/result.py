"""The result of one run, as tables.

The core returns a JSON document (``RunResult`` in
``crates/dupack-sim/src/metrics/result.rs``); this module turns its ``flows``,
``links`` and (for scenarios with a shared medium) ``media`` lists into
pandas DataFrames whose columns and dtypes are those the core declares
(``_core.result_columns()``; see ``docs/results.md``), and saves everything
to a directory.

pandas is imported on first use, so ``import dupack`` and ``dupack --help``
stay fast.
"""

from __future__ import annotations

import os
import sys
from os import PathLike

from dupack import _core
from dupack._paths import make_dirs, path_join, path_text

# typing for type checkers only (why: dupack/__init__.py).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

    import pandas as pd
    import pyarrow as pa

    from dupack.plot import RunPlots
    from dupack.scenario import Scenario

__all__ = [
    "RunResult",
    "FLOW_COLUMNS",
    "LINK_COLUMNS",
    "MEDIUM_COLUMNS",
    "NDUP_COLUMNS",
    "RUN_COLUMNS",
    "TABLE_DTYPES",
    "TRACE_COLUMNS",
    "TRACE_KINDS",
]

# The result tables' columns as the core declares them (``result_table!`` in
# metrics/result.rs): table → [(name, dtype, unit, meaning, JSON field)], in
# the order of the Rust structs. The dtypes are fixed there, so the Parquet
# schema is the same across runs (a column that is all-null in one run must
# not turn into another type): u64 counters are uint64, optional integers
# the nullable UInt64, floats (optional or not) float64 with NaN for null.
_DECLARED: dict[str, list[tuple[str, str, str, str, str]]] = _core.result_columns()


def _declared_dtypes(table: str) -> dict[str, str]:
    return {name: dtype for name, dtype, _unit, _doc, _field in _DECLARED[table]}


#: ``ndup_at_timeout`` ([u64; 4]) becomes these four columns.
NDUP_COLUMNS = tuple(name for name, _dtype, _unit, _doc, field in _DECLARED["flows"] if field == "ndup_at_timeout")
_FLOW_DTYPES = _declared_dtypes("flows")
_LINK_DTYPES = _declared_dtypes("links")
_MEDIUM_DTYPES = _declared_dtypes("media")
# The run-wide facts (RunResult.run; one row per run in a sweep's runs table).
_RUN_DTYPES = _declared_dtypes("run")
# One row per trace record (``dupack.run(..., trace=[...])``, docs/results.md).
_TRACE_DTYPES: dict[str, str] = {
    "time_s": "float64",
    "time_ns": "uint64",
    "flow": "str",
    "kind": "str",
    "seq": "UInt64",
    "len": "uint64",
}
#: The values of the trace's ``kind`` column.
TRACE_KINDS = (
    "send",
    "retransmit",
    "drop_error",
    "drop_queue",
    "ack",
    "sack",
    "fast_retransmit",
    "timeout",
    "recovery_exit",
    "ecn_reduction",
)
FLOW_COLUMNS = tuple(_FLOW_DTYPES)
#: The columns of :meth:`RunResult.summary`, with their headers in the printed table.
SUMMARY_COLUMNS = {
    "flow": "flow",
    "variant": "variant",
    "goodput_kbps": "goodput kbit/s",
    "bytes_delivered": "delivered bytes",
    "retransmitted_segments": "retx segs",
    "fast_retransmits": "fast retx",
    "timeouts": "RTOs",
}
RUN_COLUMNS = tuple(_RUN_DTYPES)
TRACE_COLUMNS = tuple(_TRACE_DTYPES)
LINK_COLUMNS = tuple(_LINK_DTYPES)
MEDIUM_COLUMNS = tuple(_MEDIUM_DTYPES)
#: The long-format time series (a run's ``series.parquet``, a sweep's ``series`` table).
_SERIES_DTYPES: dict[str, str] = {"time_s": "float64", "entity": "str", "variable": "str", "value": "float64"}
SERIES_COLUMNS = tuple(_SERIES_DTYPES)
#: Table name → column → dtype, for the tables a sweep returns and stores.
TABLE_DTYPES: dict[str, dict[str, str]] = {
    "runs": _RUN_DTYPES,
    "flows": _FLOW_DTYPES,
    "links": _LINK_DTYPES,
    "media": _MEDIUM_DTYPES,
    "series": _SERIES_DTYPES,
    "trace": _TRACE_DTYPES,
}


def _missing(table: str, index: int, field: str) -> ValueError:
    # Not the user's mistake: the core and this module disagree on a field
    # name (say, one renamed in result.rs), which must not pass as zeros.
    return ValueError(
        f"the core's result has no field {field!r} in {table}[{index}]; "
        f"dupack's Python tables and its core disagree (see docs/results.md)"
    )


def _flow_rows(flows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    rows = []
    for i, f in enumerate(flows):
        if "ndup_at_timeout" not in f:
            raise _missing("flows", i, "ndup_at_timeout")
        row = {k: v for k, v in f.items() if k != "ndup_at_timeout"}
        ndup = list(f["ndup_at_timeout"] or [])
        if len(ndup) > len(NDUP_COLUMNS):
            raise ValueError(f"flows[{i}].ndup_at_timeout has {len(ndup)} entries, expected at most {len(NDUP_COLUMNS)}")
        ndup += [0] * (len(NDUP_COLUMNS) - len(ndup))
        row.update(zip(NDUP_COLUMNS, ndup, strict=True))
        rows.append(row)
    return rows


def _null(table: str, index: int, field: str) -> ValueError:
    # Only the nullable columns (UInt64, and float64: serde writes a
    # non-finite float as null) may be null; anywhere else a null means the
    # core's type changed, and 0 or "" would hide that.
    return ValueError(f"the core's result has null for {table}[{index}].{field}, which cannot be null")


def _checked_rows(rows: list[dict[str, Any]], dtypes: dict[str, str], table: str) -> list[str]:
    """Check the core's rows of ``table`` against ``dtypes`` (every field
    there, no null where the dtype has none); returns the fields unknown
    here, in the order they first appear."""
    for i, r in enumerate(rows):
        for col in dtypes:
            if col not in r:
                raise _missing(table, i, col)
    for col, dtype in dtypes.items():
        if dtype in ("str", "uint64"):
            for i, r in enumerate(rows):
                if r[col] is None:
                    raise _null(table, i, col)
    return list(dict.fromkeys(k for r in rows for k in r if k not in dtypes))


def _frame(rows: list[dict[str, Any]], dtypes: dict[str, str], table: str) -> pd.DataFrame:
    import numpy as np
    import pandas as pd

    # Fields the core added after this module was written are kept (after
    # the known ones) with inferred types rather than dropped.
    extra = _checked_rows(rows, dtypes, table)
    data: dict[str, Any] = {}
    for col, dtype in dtypes.items():
        values = [r[col] for r in rows]
        if dtype == "str":
            data[col] = pd.Series([str(v) for v in values], dtype="str")
        elif dtype == "float64":
            data[col] = np.array([np.nan if v is None else float(v) for v in values], dtype="float64")
        elif dtype == "uint64":
            data[col] = np.array([int(v) for v in values], dtype="uint64")
        else:  # nullable integer
            data[col] = pd.array(values, dtype=dtype)
    for col in extra:
        data[col] = pd.Series([r.get(col) for r in rows])
    return pd.DataFrame(data, columns=[*dtypes, *extra])


def _trace_frame(kept: dict[str, Any]) -> pd.DataFrame:
    """:func:`_frame` of the trace's rows, from the columns the core made of
    them (``_core.HeldColumn``): the same frame (tests/test_trace.py
    compares them), without a Python object per value."""
    import numpy as np
    import pandas as pd

    data: dict[str, Any] = {}
    for col, dtype in _TRACE_DTYPES.items():
        values, extra = kept[col].values()
        if dtype == "str":
            names = np.array(extra, dtype=object)
            data[col] = pd.Series(names[np.frombuffer(values, dtype="<u8")], dtype="str")
            continue
        numbers = np.frombuffer(values, dtype="<f8" if dtype == "float64" else "<u8")
        if dtype == "UInt64":
            valid = np.ones(len(numbers), dtype=bool) if extra is None else np.frombuffer(extra, dtype=bool)
            data[col] = pd.arrays.IntegerArray(numbers, ~valid)
        else:
            data[col] = numbers
    return pd.DataFrame(data, columns=list(_TRACE_DTYPES))


#: dtype of TABLE_DTYPES → Arrow type; the capitalised ones are pandas' nullable integers.
_ARROW_TYPES = {"str": "large_string", "float64": "float64", "uint64": "uint64", "UInt64": "uint64", "Int64": "int64"}


def _arrow_type(dtype: str) -> Any:
    import pyarrow as pa

    return pa.type_for_alias(_ARROW_TYPES[dtype])


def empty_table(table: str, front: dict[str, Any] | None = None) -> pa.Table:
    """``table`` with no rows, as an Arrow table of :data:`TABLE_DTYPES`'s types."""
    import pyarrow as pa

    # pa.nulls(0, …), not pa.array([], …): the latter imports pandas to check what it is given.
    cols = {**(front or {}), **{c: pa.nulls(0, type=_arrow_type(d)) for c, d in TABLE_DTYPES[table].items()}}
    return pa.table(cols)


def _checked_columns(table: str, rows: int, columns: dict[str, tuple[Any, ...]]) -> dict[str, tuple[Any, Any]]:
    """The core's columns for ``table`` (``_core.sweep``: column → ``(kind,
    data, valid, width)``) decoded and checked as :class:`RunResult` checks
    the JSON: column → ``(values, valid)`` (values a numpy array over the
    core's memory, or an Arrow array of strings), the columns of
    :data:`TABLE_DTYPES` in their order with ``ndup_at_timeout`` split into
    the ``ndup_*`` columns, then fields unknown here."""
    import numpy as np

    dtypes = TABLE_DTYPES[table]
    decoded = {name: _decode(rows, *col) for name, col in columns.items()}
    if table == "flows":
        if "ndup_at_timeout" not in decoded:
            raise _missing(table, 0, "ndup_at_timeout")
        values, _ = decoded.pop("ndup_at_timeout")
        values = np.asarray(values)
        width = values.size // rows if rows else 0
        if width > len(NDUP_COLUMNS):
            raise ValueError(f"flows[0].ndup_at_timeout has {width} entries, expected at most {len(NDUP_COLUMNS)}")
        ndup = values.astype("uint64", copy=False).reshape(rows, width) if rows else np.zeros((0, 0), "uint64")
        for i, c in enumerate(NDUP_COLUMNS):
            decoded[c] = (np.ascontiguousarray(ndup[:, i]) if i < width else np.zeros(rows, dtype="uint64"), None)
    out: dict[str, tuple[Any, Any]] = {}
    for col, dtype in dtypes.items():
        if col not in decoded:
            raise _missing(table, 0, col)
        values, valid = decoded[col]
        if dtype in ("str", "uint64") and valid is not None and not valid.all():
            i = int(np.argmin(valid))
            raise ValueError(f"the core's result has null for {table}[{i}].{col}, which cannot be null")
        if dtype[0].isupper() and (valid is not None and not valid.any()):
            values = np.zeros(rows)  # all null: the values may be NaN placeholders
        out[col] = (values, valid)
    out.update((col, v) for col, v in decoded.items() if col not in dtypes)
    return out


def columns_table(
    table: str, rows: int, columns: dict[str, tuple[Any, ...]], front: dict[str, Any] | None = None
) -> pa.Table:
    """The core's columns for ``table`` as an Arrow table (a sweep's Parquet
    part): the checks and columns of :func:`_checked_columns` with the types
    of :data:`TABLE_DTYPES`; ``front`` holds Arrow arrays of ``rows`` values
    to put first. Numbers pass from the core's memory into Arrow without a
    copy, and Parquet is written from them directly."""
    import numpy as np
    import pyarrow as pa

    if rows == 0 and not columns:  # no row, so the core saw no field
        return empty_table(table, front)
    dtypes = TABLE_DTYPES[table]
    data: dict[str, Any] = dict(front or {})
    for col, (values, valid) in _checked_columns(table, rows, columns).items():
        mask = None if valid is None else ~valid
        dtype = dtypes.get(col)
        if dtype is None:  # a field unknown here: its own type
            if isinstance(values, pa.Array):
                values = values.to_numpy(zero_copy_only=False)
            data[col] = pa.array(values, mask=mask)
            continue
        typ = _arrow_type(dtype)
        if isinstance(values, pa.Array):
            data[col] = values if values.type == typ else values.cast(typ)
        elif dtype[0].isupper():  # nullable integer
            data[col] = arrow_numbers(np.asarray(values, dtype=dtype.lower()), typ, mask)
        else:  # nulls in a float64 column are NaN already, as after the JSON round trip
            data[col] = arrow_numbers(np.asarray(values, dtype=dtype), typ)
    return pa.table(data)


#: dtype of TABLE_DTYPES → the kind of core column (``_core.sweep``) its values come in; a part stores
#: them as :data:`_ARROW_TYPES` says, as :func:`columns_table` does.
_CORE_KINDS = {"str": "str", "uint64": "u64", "UInt64": "u64", "Int64": "i64", "float64": "f64"}


def part_columns(table: str, rows: int, columns: dict[str, tuple[Any, ...]]) -> list[tuple[str, str, Any, Any]] | None:
    """The core's columns for ``table`` as :func:`columns_table` would store
    them, for ``_core.write_part`` (no numpy, no pyarrow): ``(name, Arrow
    type, data, valid)`` in :data:`TABLE_DTYPES`'s order, ``data`` the
    core's buffer (or a pair of buffers for strings) and ``valid`` one byte
    a row or None. None where the columns are not exactly the expected
    ones, of the expected kinds, with nulls only where the dtype allows
    them: :func:`columns_table` then stores the part, or says what is
    wrong."""
    dtypes = TABLE_DTYPES[table]
    by_name = dict(columns)
    if table == "flows":
        nd = by_name.pop("ndup_at_timeout", None)
        if nd is None or nd[0] != "u64" or nd[2] is not None:
            return None
        width = nd[3]
        if not 0 <= width <= len(NDUP_COLUMNS) or len(nd[1]) != 8 * rows * width:
            return None
        words = memoryview(nd[1]).cast("B").cast("Q") if width else None
        for i, c in enumerate(NDUP_COLUMNS):
            # Row r's entry i is word r · width + i; past the core's width, zeros (as _checked_columns).
            data = words[i::width].tobytes() if i < width else bytes(8 * rows)
            by_name[c] = ("u64", data, None, 1)
    if set(by_name) != set(dtypes):
        return None  # a field unknown here, or one missing
    out = []
    for col, dtype in dtypes.items():
        kind, data, valid, width = by_name[col]
        arrow, want = _ARROW_TYPES[dtype], _CORE_KINDS[dtype]
        if width != 1:
            return None
        if kind == "null" and dtype != "float64":
            if not dtype[0].isupper():
                return None  # a null where none may be: columns_table says so
            kind, data, valid = want, bytes(8 * rows), bytes(rows)
        elif kind == "null":  # NaN, as columns_table stores a float column's missing values
            kind, data, valid = want, b"\x00\x00\x00\x00\x00\x00\xf8\x7f" * rows, None
        if kind != want:
            return None
        if valid is not None and dtype == "float64":
            valid = None  # NaN marks the missing values already
        elif valid is not None and not dtype[0].isupper() and 0 in memoryview(valid).cast("B"):
            return None  # a null where none may be: columns_table says so
        out.append((col, arrow, data, valid))
    return out


def arrow_numbers(values: Any, typ: Any, mask: Any = None) -> pa.Array:
    """A contiguous numpy array of numbers as an Arrow array of type ``typ``
    over the same memory, null where ``mask`` is True. ``pa.array`` would do
    the same, but first imports pandas to ask whether ``values`` is a pandas
    object (a quarter of a second, which ``dupack sweep -q`` otherwise
    never needs)."""
    import numpy as np
    import pyarrow as pa

    values = np.ascontiguousarray(values)
    if values.dtype.itemsize * 8 != typ.bit_width:
        raise TypeError(f"{values.dtype} values cannot be read as Arrow's {typ}")
    validity = None
    if mask is not None and mask.any():
        validity = pa.py_buffer(np.packbits(~np.asarray(mask, dtype=bool), bitorder="little"))
    return pa.Array.from_buffers(typ, len(values), [validity, pa.py_buffer(values)])


def columns_frame(
    table: str, rows: int, columns: dict[str, tuple[Any, ...]], front: dict[str, Any] | None = None
) -> pd.DataFrame:
    """The core's columns for ``table`` as the DataFrame :class:`RunResult`
    builds from JSON (the checks, columns and dtypes of
    :func:`_checked_columns` and :data:`TABLE_DTYPES`); ``front`` holds
    arrays of ``rows`` values to put first. The numeric columns are the
    core's memory itself, not a copy, and writable like any DataFrame's."""
    import numpy as np
    import pandas as pd

    if rows == 0 and not columns:  # no row, so the core saw no field
        return to_frame(empty_table(table), table, front)
    dtypes = TABLE_DTYPES[table]
    data: dict[str, Any] = dict(front or {})
    for col, (values, valid) in _checked_columns(table, rows, columns).items():
        dtype = dtypes.get(col)
        if hasattr(values, "to_pandas"):  # strings, as Arrow arrays
            strings = values.to_pandas()
            data[col] = strings if dtype or valid is None else strings.where(pd.Series(valid))
        elif dtype is None:  # a field unknown here: its own type
            s = pd.Series(values)
            data[col] = s if valid is None else s.where(pd.Series(valid))
        elif dtype[0].isupper():  # nullable integer
            mask = np.zeros(rows, dtype=bool) if valid is None else ~valid
            data[col] = pd.arrays.IntegerArray(np.asarray(values, dtype=dtype.lower()), mask)
        else:
            data[col] = np.asarray(values, dtype=dtype)
    # copy=False: one block per column over the arrays as they are (pandas 2.x
    # and later do not consolidate them when asked not to copy).
    return pd.DataFrame(data, copy=False)


def to_frame(t: pa.Table, table: str, front: dict[str, Any] | None = None) -> pd.DataFrame:
    """An Arrow table of :func:`columns_table` (or read back from Parquet) as
    a DataFrame with the dtypes of :data:`TABLE_DTYPES` (its own memory:
    Arrow's zero-copy views would be read-only); ``front`` holds columns to
    put first."""
    import pandas as pd

    df = t.to_pandas()
    # Arrow's integers with nulls would come out as floats: the nullable ones are pandas' own.
    nullable = {pa_name: getattr(pd, f"{d}Dtype")() for pa_name, d in (("uint64", "UInt64"), ("int64", "Int64"))}
    for c, dtype in TABLE_DTYPES[table].items():
        if dtype[0].isupper() and c in df.columns:
            df[c] = t.column(c).to_pandas(types_mapper=lambda typ: nullable.get(str(typ)))
    if front:
        df = pd.concat([pd.DataFrame(front), df], axis=1)
    return df


def _decode(rows: int, kind: str, raw: Any, valid: bytes | None, width: int) -> tuple[Any, Any]:
    """One core column → (values: ndarray or Arrow array, valid: bool ndarray or None)."""
    import numpy as np

    mask = None if valid is None else np.frombuffer(valid, dtype="bool")
    if kind == "null":
        return np.full(rows * width, np.nan), np.zeros(rows, dtype=bool)
    if kind == "str":  # Arrow's large-string buffers: (i64 offsets, UTF-8 bytes)
        import pyarrow as pa

        offsets, data = raw
        n = len(offsets) // 8 - 1
        return pa.Array.from_buffers(pa.large_string(), n, [None, pa.py_buffer(offsets), pa.py_buffer(data)]), mask
    dtype = {"u64": "<u8", "i64": "<i8", "f64": "<f8", "bool": "bool"}.get(kind)
    if dtype is None:
        raise ValueError(f"the core sent a column of unknown kind {kind!r}")
    return np.frombuffer(raw, dtype=dtype), mask


def _write_text(path: str, text: str) -> None:
    """``Path(path).write_text(text, encoding="utf-8")``."""
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def provenance() -> dict[str, str]:
    """Which dupack made a result: ``{"version": …, "commit": …}`` (the git
    commit the extension was built from; ``unknown`` outside a checkout,
    ``+dirty`` with uncommitted changes). Stamped into ``result.json``, every
    Parquet file's metadata and a sweep's ``sweep.json``."""
    return {"version": _core.__version__, "commit": _core.__commit__}


def provenance_metadata(made_by: dict[str, str]) -> dict[bytes, bytes]:
    """Parquet key-value metadata naming the dupack that wrote the file
    (``dupack_version``, ``dupack_commit``; any other entry of ``made_by``,
    such as a partial run's ``partial``, as ``dupack_<key>`` too)."""
    return {f"dupack_{k}".encode(): str(v).encode() for k, v in made_by.items()}


def stamped_parquet(df: pd.DataFrame, path: str | Path, made_by: dict[str, str]) -> None:
    """``df`` as Parquet at ``path``, with pandas' metadata and dupack's version and commit."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pa.Table.from_pandas(df, preserve_index=False)
    table = table.replace_schema_metadata({**(table.schema.metadata or {}), **provenance_metadata(made_by)})
    pq.write_table(table, path)


# --- saving without pandas ----------------------------------------------------
#
# ``dupack run`` saves a few tables of tens of rows; importing pandas and
# pyarrow to do so would cost ten times the simulation of a typical run. So
# RunResult.save writes the tables it has not turned into DataFrames
# directly: Parquet through the extension (``_core.write_parquet``, with the
# Arrow types and the pandas metadata pyarrow would have written, so that
# pandas reads the very same dtypes back) and CSV through the csv module,
# formatted as ``DataFrame.to_csv`` formats it. tests/test_save.py checks
# that both files read back identical to the pandas path's.


def _dist_version(name: str) -> str | None:
    """The version of the installed package ``name`` that an import would
    load, read from its ``.dist-info`` directory name, without importing
    it (or its ``__version__`` if it is imported already)."""
    module = sys.modules.get(name)
    if module is not None:
        return str(getattr(module, "__version__", "")) or None
    for entry in sys.path:
        base = entry or "."
        if not os.path.isfile(os.path.join(base, name, "__init__.py")):
            continue
        try:
            found = [n for n in os.listdir(base) if n.startswith(f"{name}-") and n.endswith(".dist-info")]
        except OSError:
            return None
        return found[0][len(name) + 1 : -len(".dist-info")] if len(found) == 1 else None
    return None


#: :func:`_pandas_flavour`'s answer once known (functools.cache would
#: import functools on every `dupack run`'s way, half a millisecond).
_FLAVOUR: list[tuple[str, str, tuple[str, str, str]] | None] = []


def _pandas_flavour() -> tuple[str, str, tuple[str, str, str]] | None:
    """(pandas version, pyarrow version, (Arrow type, pandas_type,
    numpy_type) of a ``str`` column) as ``pa.Table.from_pandas`` writes
    them with the installed pandas, or None where that is not known here
    (then ``save`` goes through pandas)."""
    if not _FLAVOUR:
        _FLAVOUR.append(_find_pandas_flavour())
    return _FLAVOUR[0]


def _find_pandas_flavour() -> tuple[str, str, tuple[str, str, str]] | None:
    pandas, pyarrow = _dist_version("pandas"), _dist_version("pyarrow")
    if pandas is None or pyarrow is None:
        return None
    major = pandas.split(".", 1)[0]
    if major == "3":  # the str dtype: Arrow-backed strings with NaN for missing
        return pandas, pyarrow, ("large_string", "object", "str")
    if major == "2":  # dtype="str" is object
        return pandas, pyarrow, ("string", "unicode", "object")
    return None


#: dtype of TABLE_DTYPES → (Arrow type, pandas_type, numpy_type) in pandas' metadata; ``str`` is per pandas version.
_PANDAS_TYPES = {
    "float64": ("float64", "float64", "float64"),
    "uint64": ("uint64", "uint64", "uint64"),
    "UInt64": ("uint64", "uint64", "UInt64"),
    "Int64": ("int64", "int64", "Int64"),
    "int64": ("int64", "int64", "int64"),
}


def _fast_columns(rows: list[dict[str, Any]], dtypes: dict[str, str], table: str) -> list[tuple[str, str, list[Any]]] | None:
    """The columns of :func:`_frame`'s DataFrame as ``(name, dtype,
    values)`` with None for a missing value, after the same checks; None if
    the core sent fields unknown here (their inferred types are pandas').

    A traced run's trace has hundreds of thousands of rows, so the columns
    are taken a row at a time by ``itemgetter`` and turned by ``zip`` (both
    in C), and each column is checked whole (its types, its extremes) and
    converted only where a value is not already of the column's type."""
    from operator import itemgetter

    names = list(dtypes)
    width = len(names)
    if any(len(r) != width for r in rows):
        if _checked_rows(rows, dtypes, table):  # raises for a field missing or null
            return None
    try:
        picked = list(map(itemgetter(*names), rows)) if width > 1 else [(r[names[0]],) for r in rows]
    except KeyError:
        _checked_rows(rows, dtypes, table)  # raises, naming the row and the field
        raise
    columns = list(zip(*picked, strict=True)) if picked else [() for _ in names]
    out = []
    for (col, dtype), values in zip(dtypes.items(), columns, strict=True):
        kinds = set(map(type, values))
        if dtype in ("str", "uint64") and type(None) in kinds:
            raise _null(table, values.index(None), col)
        if dtype == "str":
            column = list(values) if kinds <= {str} else [str(v) for v in values]
        elif dtype == "float64":
            column = list(values) if kinds <= {float, type(None)} else [None if v is None else float(v) for v in values]
        else:  # uint64, or a nullable integer
            lo, hi = (-(2**63), 2**63) if dtype == "Int64" else (0, 2**64)
            if kinds <= {int, type(None)}:
                column = list(values)
            else:
                try:
                    column = [None if v is None else int(v) for v in values]
                except (TypeError, ValueError):
                    return None  # not an integer: the pandas path says so
            present = [v for v in column if v is not None] if type(None) in kinds else column
            if present and not (lo <= min(present) and max(present) < hi):
                return None  # out of range: likewise
        out.append((col, dtype, column))
    return out


def _csv_text(value: Any) -> Any:
    """One value as ``DataFrame.to_csv`` writes it: NaN and <NA> empty, a
    float as numpy's ``astype(str)`` (the shortest repr, as Python's)."""
    if value is None or (isinstance(value, float) and value != value):
        return ""
    return repr(value) if isinstance(value, float) else value


def _codes_width(categories: int) -> int:
    """Bits of the codes pandas gives a Categorical of so many categories."""
    return 8 if categories < 127 else 16 if categories < 32767 else 32


def _write_parquet_fast(
    columns: list[tuple[str, str, Any]], parquet: str, made_by: dict[str, str], attributes: dict[str, Any] | None = None
) -> None:
    """``columns`` (name, dtype, values) as the Parquet file pandas and
    pyarrow would write. A ``category`` column's values are ``(codes,
    categories)``, stored as Arrow's dictionary type as pyarrow stores a
    Categorical."""
    flavour = _pandas_flavour()
    assert flavour is not None
    pandas_version, pyarrow_version, str_types = flavour
    types = {**_PANDAS_TYPES, "str": str_types}
    described = []
    typed = []
    for c, d, v in columns:
        if d == "category":
            n = len(v[1])
            width = _codes_width(n)
            described.append(
                {
                    "name": c,
                    "field_name": c,
                    "pandas_type": "categorical",
                    "numpy_type": f"int{width}",
                    "metadata": {"num_categories": n, "ordered": False},
                }
            )
            typed.append((c, f"dict{width}:{str_types[0]}", v))
        else:
            described.append(_described(c, types[d]))
            typed.append((c, types[d][0], v))
    meta = _pandas_meta(described, flavour, attributes)
    metadata = [("pandas", meta)] + [(k.decode(), v.decode()) for k, v in provenance_metadata(made_by).items()]
    _core.write_parquet(str(parquet), typed, metadata)


def _described(name: str, types: tuple[str, str, str]) -> dict[str, Any]:
    """One column's entry in pandas' metadata."""
    return {"name": name, "field_name": name, "pandas_type": types[1], "numpy_type": types[2], "metadata": None}


def _pandas_meta(described: list[dict[str, Any]], flavour: tuple[str, str, Any], attributes: dict[str, Any] | None = None) -> str:
    """The ``pandas`` entry of a Parquet file's metadata, as
    ``pa.Table.from_pandas`` writes it for a DataFrame with these columns
    and no index."""
    pandas_version, pyarrow_version, _ = flavour
    return _core.json_dumps({
        "index_columns": [],
        "column_indexes": [],
        "columns": described,
        "attributes": attributes or {},
        "creator": {"library": "pyarrow", "version": pyarrow_version},
        "pandas_version": pandas_version,
    })


def pandas_metadata(columns: list[tuple[str, str]]) -> bytes | None:
    """The ``pandas`` metadata pyarrow writes for a DataFrame of these
    ``(name, dtype)`` columns (dtypes of :data:`TABLE_DTYPES`, or
    ``int64``), without importing pandas; None where that is not known here
    (then ask pandas)."""
    flavour = _pandas_flavour()
    if flavour is None:
        return None
    types = {**_PANDAS_TYPES, "str": flavour[2]}
    if any(d not in types for _, d in columns):
        return None
    return _pandas_meta([_described(c, types[d]) for c, d in columns], flavour).encode()


def _write_fast(columns: list[tuple[str, str, list[Any]]], parquet: str, csv_path: str, made_by: dict[str, str]) -> None:
    _write_parquet_fast(columns, parquet, made_by)
    header = [c for c, _, _ in columns]
    rows = list(zip(*([_csv_text(x) for x in v] for _, _, v in columns), strict=True))
    text = _plain_csv(header, rows)
    with open(csv_path, "w", encoding="utf-8", newline="") as f:
        if text is not None:
            f.write(text)
            return
        import csv

        w = csv.writer(f, lineterminator="\n")
        w.writerow(header)
        w.writerows(rows)


#: What a CSV field may hold for :func:`_plain_csv`: printable ASCII that no
#: csv dialect quotes or escapes (no comma, quote, backslash, space).
_CSV_PLAIN = frozenset(map(chr, range(0x21, 0x7F))) - frozenset(",\"'\\")


def _plain_csv(header: list[str], rows: list[tuple[Any, ...]]) -> str | None:
    """The text ``csv.writer(f, lineterminator="\\n")`` writes for
    ``header`` and ``rows`` (strings, ints and empty strings), where no
    field needs quoting: the values joined with commas, a line each. None
    where some field might (then the csv module writes the table). A
    result's tables are names and numbers, so this is nearly always the
    text, and ``dupack run`` need not import csv for it."""
    if len(header) < 2:  # a row of one empty field is written as ""
        return None
    lines = []
    for row in (header, *rows):
        fields = [v if isinstance(v, str) else str(v) if type(v) is int else None for v in row]
        for f in fields:
            if f is None or (f and not _CSV_PLAIN.issuperset(f)):
                return None
        lines.append(",".join(fields))  # type: ignore[arg-type]
    lines.append("")
    return "\n".join(lines)


def _first_appearance(codes: list[int], names: list[str]) -> tuple[list[int], list[str]]:
    """Codes into the names that occur, in the order they first occur (as
    :func:`series_frame` makes its categories)."""
    order: dict[int, int] = {}
    for c in codes:
        if c not in order:
            order[c] = len(order)
    return [order[c] for c in codes], [names[c] for c in order]


#: The columns of series.parquet and their types (:func:`_write_parquet_fast`'s).
_SERIES_COLUMN_DTYPES = (("time_s", "float64"), ("entity", "category"), ("variable", "category"), ("value", "float64"))


def _series_columns(cols: dict[str, Any]) -> list[tuple[str, str, Any]]:
    """The columns :func:`series_frame` makes, for :func:`_write_parquet_fast`."""
    return [
        ("time_s", "float64", [t / 1e9 for t in cols["time_ns"]]),
        ("entity", "category", _first_appearance(list(cols["entity"]), list(cols["entities"]))),
        ("variable", "category", _first_appearance(list(cols["variable"]), list(cols["variables"]))),
        ("value", "float64", [float(v) for v in cols["value"]]),
    ]


def series_frame(cols: dict[str, Any]) -> pd.DataFrame:
    """The core's series columns (names, then indices per record) as a long table."""
    import numpy as np
    import pandas as pd

    def categorical(codes: Any, names: list[str]) -> pd.Categorical:
        # The categories are the names that occur, in the order they first
        # occur: what a Parquet reader rebuilds from a dictionary-encoded
        # column, so series.parquet reads back equal to this frame.
        codes = np.asarray(codes, dtype=np.int32)
        used, first = np.unique(codes, return_index=True)
        order = used[np.argsort(first, kind="stable")]
        remap = np.zeros(len(names), dtype=np.int32)
        remap[order] = np.arange(len(order), dtype=np.int32)
        return pd.Categorical.from_codes(remap[codes], categories=[names[i] for i in order])

    entities = categorical(cols["entity"], list(cols["entities"]))
    variables = categorical(cols["variable"], list(cols["variables"]))
    time_ns = np.asarray(cols["time_ns"], dtype=np.int64)
    df = pd.DataFrame(
        {
            "time_s": time_ns / 1e9,
            "entity": entities,
            "variable": variables,
            "value": np.asarray(cols["value"], dtype=np.float64),
        }
    )
    df.attrs["truncated"] = bool(cols.get("truncated", False))
    return df


def _series_frame(kept: dict[str, Any], truncated: bool) -> pd.DataFrame:
    """:func:`series_frame` from the columns the core made of the series
    (``_core.HeldColumn``): the same frame (tests/test_trace.py compares
    them), without a Python object per value."""
    import numpy as np
    import pandas as pd

    def categorical(held: tuple[Any, list[str]]) -> pd.Categorical:
        codes, _ = held[0].values()
        return pd.Categorical.from_codes(np.frombuffer(codes, dtype="<i8"), categories=held[1])

    df = pd.DataFrame(
        {
            "time_s": np.frombuffer(kept["time_s"].values()[0], dtype="<f8"),
            "entity": categorical(kept["entity"]),
            "variable": categorical(kept["variable"]),
            "value": np.frombuffer(kept["value"].values()[0], dtype="<f8"),
        }
    )
    df.attrs["truncated"] = bool(truncated)
    return df


class RunResult:
    """One run's result.

    Attributes: ``raw`` (the JSON document as a dict), ``flows``, ``links``
    and ``media`` (DataFrames, one row per flow / per link direction / per
    station of a shared medium; ``media`` is empty without one), ``trace`` (a
    DataFrame, only for runs with ``trace=[...]``), ``run`` (dict:
    ``sim_time_s``, ``end_reason``, ``events``, ``wall_time_s``), ``partial``, ``seed``,
    ``scenario_name`` and ``scenario`` (the :class:`~dupack.Scenario` that was
    run, when known).
    """

    def __init__(self, raw: dict[str, Any], scenario: Scenario | None = None) -> None:
        self._raw = raw
        self.scenario = scenario
        self._flows: pd.DataFrame | None = None
        self._links: pd.DataFrame | None = None
        self._media: pd.DataFrame | None = None
        self._trace: pd.DataFrame | None = None
        self._series: pd.DataFrame | None = None
        #: What the core observed and kept (``_core.HeldTrace``,
        #: ``_core.HeldSeries``) by the document's field, ``trace`` before
        #: ``series``; a field not yet in ``_raw`` is put there, before
        #: ``pcap``, when :attr:`raw` is first read.
        self._observed: dict[str, Any] = {}
        #: The document's fields put there from ``_observed`` (the objects,
        #: to tell them from a field replaced since).
        self._made: dict[str, Any] = {}
        #: ``_observed``'s columns (``HeldColumn``), made when first needed.
        self._columns: dict[str, dict[str, Any]] = {}

    @classmethod
    def from_json(cls, text: str, scenario: Scenario | None = None, observed: dict[str, Any] | None = None) -> RunResult:
        """The result of the JSON document ``text``; ``observed``: its
        ``trace`` and ``series`` fields as the core keeps them
        (``_core.run``), made into the document's fields when :attr:`raw`
        is first read, while :attr:`trace`, :attr:`series` and :meth:`save`
        read the core's columns."""
        res = cls(_core.json_loads(text), scenario)
        res._observed = dict(observed or {})
        return res

    @property
    def raw(self) -> dict[str, Any]:
        """The result document as a dict (the JSON document's fields). A
        traced run's ``trace`` and ``series`` fields are made when this is
        first read: ``dupack run`` and :meth:`save` never need them."""
        pending = [name for name in self._observed if name not in self._made]
        if pending:
            pcap = self._raw.pop("pcap", None)
            for name in pending:
                self._raw[name] = self._made[name] = self._observed[name].document()
            if pcap is not None:
                self._raw["pcap"] = pcap
        return self._raw

    @raw.setter
    def raw(self, value: dict[str, Any]) -> None:
        self._raw = value
        self._observed, self._made, self._columns = {}, {}, {}

    @property
    def _doc(self) -> dict[str, Any]:
        """The document as far as it is made: :attr:`raw` without making
        the trace and series fields, for the package's readers of its other
        fields (``dupack run``, plots of a run in memory)."""
        return self._raw

    def _has(self, name: str) -> bool:
        """The document has the field ``name``, made yet or not."""
        return name in self._raw or name in self._observed

    def __getstate__(self) -> dict[str, Any]:
        # What the core keeps stays in the process that ran it: a copy
        # carries the document's fields made from it, and writes its rows.
        raw = self.raw
        return {**self.__dict__, "_raw": raw, "_observed": {}, "_made": {}, "_columns": {}}

    def __setstate__(self, state: dict[str, Any]) -> None:
        # A result pickled before the document's fields were made lazily kept it as ``raw``.
        if "raw" in state:
            state["_raw"] = state.pop("raw")
        self.__dict__.update({"_observed": {}, "_made": {}, "_columns": {}, **state})

    def _kept(self, name: str) -> dict[str, Any] | None:
        """The core's columns of the document's field ``name`` (``trace``,
        ``series``), unless the field was made and has been replaced since,
        or its table was turned into a DataFrame (which may have been
        changed since)."""
        observed = self._observed.get(name)
        if observed is None or getattr(self, f"_{name}") is not None:
            return None
        if name in self._made and self._raw.get(name) is not self._made[name]:
            return None
        if name not in self._columns:
            self._columns[name] = observed.columns()
        return self._columns[name]

    @property
    def seed(self) -> int:
        return int(self._raw["seed"])

    @property
    def scenario_name(self) -> str:
        return str(self._raw.get("scenario", ""))

    @property
    def run(self) -> dict[str, Any]:
        return dict(self._raw.get("run", {}))

    @property
    def partial(self) -> bool:
        """The run was stopped before its end (``dupack.run(max_wall=…)``,
        ``dupack run --max-wall``, or Ctrl-C in ``dupack run``): the results
        cover the simulated time ``run["sim_time_s"]`` only, and
        ``run["end_reason"]`` says why (``"wall_limit"``, ``"interrupted"``)."""
        return bool(self._raw.get("partial", False))

    @property
    def flows(self) -> pd.DataFrame:
        if self._flows is None:
            self._flows = _frame(_flow_rows(self._raw.get("flows", [])), _FLOW_DTYPES, "flows")
        return self._flows

    @property
    def trace(self) -> pd.DataFrame:
        """The packet-level trace of the flows named in ``run(..., trace=[...])``.

        Raises :class:`ValueError` if the run was not traced (an empty
        table would be indistinguishable from a flow that sent nothing).
        """
        if not self._has("trace"):
            raise ValueError("this run has no trace; pass trace=[flow names] to dupack.run")
        if self._trace is None and (kept := self._kept("trace")) is not None:
            self._trace = _trace_frame(kept)
        if self._trace is None:
            rows = list(self.raw["trace"])
            for i, r in enumerate(rows):
                if r.get("kind") not in TRACE_KINDS:
                    raise ValueError(f"the core's result has an unknown trace kind {r.get('kind')!r} in trace[{i}]")
            self._trace = _frame(rows, _TRACE_DTYPES, "trace")
        return self._trace

    @property
    def series(self) -> pd.DataFrame:
        """The time series of the flows and links named in ``run(...,
        series=[...])``, in long format: ``time_s``, ``entity`` (a flow's
        name, or ``LINK:fwd`` / ``LINK:rev``), ``variable`` and ``value``.
        A value is recorded when it changes (see docs/results.md for the
        variables and their units). ``series.attrs["truncated"]`` says
        whether the record limit cut it short.

        Raises :class:`ValueError` if the run recorded no series.
        """
        if not self._has("series"):
            raise ValueError("this run has no time series; pass series=[flow or link names] to dupack.run")
        if self._series is None:
            kept = self._kept("series")
            if kept is not None:
                self._series = _series_frame(kept, self._observed["series"].truncated)
            else:
                self._series = series_frame(self.raw["series"])
        return self._series

    @property
    def has_series(self) -> bool:
        return self._has("series")

    @property
    def links(self) -> pd.DataFrame:
        if self._links is None:
            self._links = _frame(list(self._raw.get("links", [])), _LINK_DTYPES, "links")
        return self._links

    @property
    def media(self) -> pd.DataFrame:
        if self._media is None:
            # The core leaves the key out when the scenario has no medium.
            self._media = _frame(list(self._raw.get("media", [])), _MEDIUM_DTYPES, "media")
        return self._media

    def _fast_columns(self, table: str) -> list[tuple[str, str, list[Any]]] | None:
        """``table``'s columns for :func:`_write_fast` (None: write the DataFrame)."""
        if table == "flows":
            return _fast_columns(_flow_rows(self._raw.get("flows", [])), _FLOW_DTYPES, "flows")
        return _fast_columns(list(self._raw.get(table, [])), TABLE_DTYPES[table], table)

    def to_json(self, indent: int | None = 2) -> str:
        """The result document as JSON text (the core's field names)."""
        return _core.json_dumps(self.raw, indent=indent)

    def save(self, directory: str | PathLike[str]) -> Path:
        """Write ``result.json``, each table as Parquet and as CSV
        (``flows.parquet``/``flows.csv``, ``links.parquet``/``links.csv``
        and, if the scenario has a shared medium, ``media.parquet``/
        ``media.csv``) and (if the scenario is known) ``scenario.json`` into
        ``directory`` (created if needed). Returns the directory."""
        from pathlib import Path

        return Path(self._save(directory))

    def _save(self, directory: str | PathLike[str]) -> str:
        """:meth:`save`, returning the directory as text (``dupack run``
        saves so, without importing pathlib)."""
        out = path_text(directory)
        make_dirs(out)
        # The packet trace and the time series go to their own Parquet files.
        made_by = provenance()
        doc = {k: v for k, v in self._raw.items() if k not in ("trace", "series")}
        doc["dupack"] = made_by
        _write_text(path_join(out, "result.json"), _core.json_dumps(doc, indent=2) + "\n")
        if self.partial:
            # Each Parquet file says so too, should it be copied away from result.json.
            info = self.run
            made_by = {
                **made_by,
                "partial": "true",
                "end_reason": str(info.get("end_reason", "")),
                "sim_time_s": repr(info.get("sim_time_s")),
            }

        def parquet(df: pd.DataFrame, path: str) -> None:
            stamped_parquet(df, path, made_by)

        # The trace and the series are written without pandas too, unless
        # they were turned into DataFrames (which may have been changed).
        # Columns the core made are written as they are (their values never
        # enter Python), rows the Python way.
        if self._has("trace"):
            fast = None
            if _pandas_flavour() and (kept := self._kept("trace")) is not None:
                fast = [(c, d, kept[c]) for c, d in _TRACE_DTYPES.items()]
            elif self._trace is None and _pandas_flavour():
                rows = list(self.raw["trace"])
                if all(r.get("kind") in TRACE_KINDS for r in rows):
                    fast = _fast_columns(rows, _TRACE_DTYPES, "trace")
            if fast is not None:
                _write_parquet_fast(fast, path_join(out, "trace.parquet"), made_by)
            else:
                parquet(self.trace, path_join(out, "trace.parquet"))
        if self._has("series"):
            if self._series is None and _pandas_flavour():
                kept = self._kept("series")
                if kept is not None:
                    truncated = self._observed["series"].truncated
                    series = [(c, d, kept[c]) for c, d in _SERIES_COLUMN_DTYPES]
                else:
                    cols = self.raw["series"]
                    truncated = cols.get("truncated", False)
                    series = _series_columns(cols)
                attrs = {"truncated": bool(truncated)}
                _write_parquet_fast(series, path_join(out, "series.parquet"), made_by, attrs)
            else:
                parquet(self.series, path_join(out, "series.parquet"))
        tables = ["flows", "links"]
        if self._raw.get("media"):
            tables.append("media")
        for name in tables:
            # A table not yet turned into a DataFrame is written without
            # pandas; one that was (and may have been changed since) as it is.
            columns = self._fast_columns(name) if getattr(self, f"_{name}") is None and _pandas_flavour() else None
            if columns is not None:
                _write_fast(columns, path_join(out, f"{name}.parquet"), path_join(out, f"{name}.csv"), made_by)
                continue
            df = getattr(self, name)
            parquet(df, path_join(out, f"{name}.parquet"))
            df.to_csv(path_join(out, f"{name}.csv"), index=False)
        if self.scenario is not None:
            # A Scenario's document itself rather than a copy (to_dict): it is only read here.
            document = getattr(self.scenario, "_document", self.scenario.to_dict)()
            doc = {"hash": self.scenario.hash(), "scenario": document}
            _write_text(path_join(out, "scenario.json"), _core.json_dumps(doc, indent=2, sort_keys=True) + "\n")
        return out

    def summary(self) -> pd.DataFrame:
        """The per-flow summary ``dupack run`` prints: one row per flow with
        ``flow``, ``variant``, ``goodput_kbps``, ``bytes_delivered``,
        ``retransmitted_segments``, ``fast_retransmits`` and ``timeouts``."""
        return self.flows[list(SUMMARY_COLUMNS)].copy()

    def _display(self) -> pd.DataFrame:
        return self.summary().rename(columns=SUMMARY_COLUMNS)

    def _run_line(self) -> str:
        info = self.run
        events, sim, wall = info.get("events"), info.get("sim_time_s"), info.get("wall_time_s")
        parts = []
        if events is not None:
            parts.append(f"{int(events):,} events")
        if sim is not None:
            stopped = " - partial result" if self.partial else ""
            parts.append(f"{float(sim):.3f} s simulated ({info.get('end_reason', '?')}{stopped})")
        if wall is not None:
            parts.append(f"{float(wall):.3f} s wall time")
        return " · ".join(parts)

    def __repr__(self) -> str:
        head = f"<RunResult {self.scenario_name!r} seed={self.seed} flows={len(self._raw.get('flows', []))}>"
        if not self._raw.get("flows"):
            return head
        return "\n".join([head, self._display().to_string(index=False, float_format="{:.1f}".format, na_rep="-"), self._run_line()]).rstrip()

    def _repr_html_(self) -> str:
        import html

        head = f"<RunResult {self.scenario_name!r} seed={self.seed} flows={len(self._raw.get('flows', []))}>"
        table = self._display().to_html(index=False, escape=True, float_format="{:.1f}".format, na_rep="-") if self._raw.get("flows") else ""
        return f"<p><code>{html.escape(head)}</code></p>{table}<p><small>{html.escape(self._run_line())}</small></p>"

    @property
    def plot(self) -> RunPlots:
        """This run's plots (docs/plots.md), each a matplotlib Figure:
        ``.tsg()``, ``.cwnd()``, ``.queue()``, ``.bars()``, ``.ndup()``."""
        from dupack.plot import RunPlots

        return RunPlots(self)
