"""DuckDB, embedded: the store's frames as views, partition values as text decoded by us, queries as frames."""

from __future__ import annotations

import shutil
import tempfile
import weakref
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa

from ambiglib.engines._frames import Frame
from ambiglib.errors import AmbiglibError, ArgumentError, FormatError

_ARROW = {"STRING": pa.string(), "BOOLEAN": pa.bool_(), "BIGINT": pa.int64(), "DOUBLE": pa.float64()}


def _literal(text: str) -> str:
    """``text`` as an SQL string literal (a file path we listed; quotes doubled)."""
    return "'" + text.replace("'", "''") + "'"


class DuckDBEngine:
    """An in-memory DuckDB connection over one store. ``memory_limit`` (e.g. ``"2GB"``) and ``threads`` are
    DuckDB's own settings; past its memory limit DuckDB spills to a temporary folder."""

    name = "duckdb"
    #: the store's frames are views under the names the queries use
    names: dict[str, str] | None = None

    def __init__(self, frames: dict[str, Frame], *, memory_limit: str | None = None, threads: int | None = None):
        try:
            import duckdb
        except ImportError:
            raise ArgumentError("engine 'duckdb' needs the duckdb package: pip install 'ambiglib[engines]'"
                                " (or pip install duckdb)") from None
        self._duckdb = duckdb
        self.con = duckdb.connect(":memory:")
        # what DuckDB spills past its memory limit goes to a folder of our own, removed with the engine: its
        # default is .tmp in the current folder, which may be read-only or a user's notebook folder
        self.spill = Path(tempfile.mkdtemp(prefix="ambiglib-duckdb-"))
        self.con.execute("SET temp_directory = ?", [str(self.spill)])
        # a query past two seconds would draw DuckDB's progress bar on standard output: a library's caller's stream
        self.con.execute("SET enable_progress_bar = false")
        # DuckDB's allocator gives freed memory back to the system from a thread of its own: without it, what a
        # query freed stays with the process until the next one (0.2 GiB more at the peak of the payoff's answer
        # over the simulator's 10,000x store, docs/performance.md). A setting of DuckDB 1.1 on.
        if self.con.execute("SELECT COUNT(*) FROM duckdb_settings() WHERE name = 'allocator_background_threads'"
                            ).fetchone() == (1,):
            self.con.execute("SET allocator_background_threads = true")
        self._finalizer = weakref.finalize(self, _close, self.con, self.spill)
        self.memory_limit = memory_limit
        for setting, value in (("memory_limit", memory_limit), ("threads", threads)):
            if value is None:
                continue
            try:
                self.con.execute(f"SET {setting} = ?", [str(value) if setting == "memory_limit" else int(value)])
            except (self._duckdb.Error, ValueError, TypeError) as exc:
                self.close()
                wanted = "a size DuckDB reads, such as 1GB or 500MB" if setting == "memory_limit" else \
                    "a whole number of threads, 1 or more"
                raise ArgumentError(f"{setting} must be {wanted} (got {value!r}); DuckDB said:"
                                    f" {str(exc).splitlines()[0]}") from None
        try:
            for frame in frames.values():
                self._view(frame)
        except self._duckdb.OutOfMemoryException as exc:  # (registering a view can run out under a tiny limit)
            self.close()
            raise self._out_of_memory(exc) from None

    def _view(self, frame: Frame) -> None:
        cols = frame.columns
        if not frame.parts:
            empty = ", ".join(f"CAST(NULL AS {t}) AS {c}" for c, t in cols.items())
            self.con.execute(f"CREATE VIEW {frame.name} AS SELECT {empty} WHERE false")
            return
        # the partition values of each file, as the folder names give them (decoded by us: text, as written)
        files = [str(p.file) for p in frame.parts]
        table = pa.table({"_file": pa.array(files, pa.string()),
                          **{k: pa.array([dict(p.values)[k] for p in frame.parts], pa.string())
                             for k in frame.partitions}})
        self.con.register(f"_parts_{frame.name}", table)
        inside = [c for c in cols if c not in frame.partitions]
        select = ", ".join([*(f"CAST(f.{c} AS {cols[c]}) AS {c}" for c in inside),
                            *(f"p.{c} AS {c}" for c in frame.partitions if c in cols)])
        listed = "[" + ", ".join(_literal(f) for f in files) + "]"
        self.con.execute(
            f"CREATE VIEW {frame.name} AS SELECT {select} FROM read_parquet({listed}, filename = true,"
            f" hive_partitioning = false) f JOIN _parts_{frame.name} p ON p._file = f.filename")

    def query(self, sql: str) -> pd.DataFrame:
        """The rows of ``sql`` as a frame (converted in this thread: what Arrow's worker threads allocate stays in
        their own malloc arenas once freed, 0.1 GiB more at the peak of an answer at the simulator's 10,000x)."""
        return self._run(sql).to_pandas(use_threads=False)

    def arrow(self, sql: str) -> pa.Table:
        """The rows of ``sql`` as an Arrow table (lists kept as Arrow lists)."""
        return self._run(sql)

    def rows(self, sql: str) -> list[dict[str, Any]]:
        """The rows of ``sql`` as dictionaries of Python values (a check's few rows)."""
        rows: list[dict[str, Any]] = self._run(sql).to_pylist()
        return rows

    def _run(self, sql: str) -> pa.Table:
        """The rows of ``sql`` as an Arrow table; an error of the engine's (a damaged file, bad UTF-8) as a
        FormatError."""
        try:
            return self.con.sql(sql).arrow().read_all()
        except self._duckdb.OutOfMemoryException as exc:  # not the store's fault: the limit's
            raise self._out_of_memory(exc) from None
        except self._duckdb.Error as exc:
            raise FormatError(f"DuckDB could not read the store: {exc}") from None

    def _out_of_memory(self, exc: Exception) -> AmbiglibError:
        """DuckDB's running out of memory said as what it is: the limit's, not the store's."""
        limit = self.memory_limit or "its default, 80% of this machine's memory"
        return AmbiglibError(f"DuckDB ran out of memory under its memory_limit ({limit}): give it more"
                             " (on_store(..., memory_limit='2GB'), or --memory-limit 2GB), or fewer threads"
                             f" (threads=1); DuckDB said: {str(exc).splitlines()[0]}")

    def close(self) -> None:
        """Close the connection and remove its spill folder (also done when the engine is collected)."""
        self._finalizer()


def _close(con: Any, spill: Path) -> None:
    con.close()
    shutil.rmtree(spill, ignore_errors=True)
