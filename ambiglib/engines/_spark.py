"""Spark SQL through a ``SparkSession`` the caller made (pyspark is never our dependency): the store's frames as
temporary views, partition values as text decoded by us (Spark would read ``007`` as 7 and decode a folder name's
UTF-8 bytes one by one), queries as frames."""

from __future__ import annotations

import uuid
from functools import reduce
from typing import Any

import pandas as pd

from ambiglib.engines._frames import Frame
from ambiglib.errors import ArgumentError, FormatError


def default_session() -> Any:
    """The session ``SparkSession.builder.getOrCreate()`` gives (``ambiglib metrics --engine spark``): under
    spark-submit, the cluster's; alone, a local one (Java needed)."""
    try:
        from pyspark.sql import SparkSession
    except ImportError:
        raise ArgumentError("--engine spark needs pyspark (pip install 'ambiglib[spark]', or run under"
                            " spark-submit) and Java") from None
    # (a session made here draws no progress bars over the command's own words on standard error)
    return SparkSession.builder.appName("ambiglib").config("spark.ui.showConsoleProgress", "false").getOrCreate()


class SparkEngine:
    """The store's frames as temporary views of ``spark``, under names no one else uses (``names``)."""

    name = "spark"

    def __init__(self, spark: Any, frames: dict[str, Frame]):
        try:
            from pyspark.sql import SparkSession
            from pyspark.sql import functions as F
        except ImportError:
            raise ArgumentError("engine 'spark' needs pyspark, and a SparkSession of yours as spark=") from None
        if not isinstance(spark, SparkSession):
            raise ArgumentError(f"spark= takes a pyspark.sql.SparkSession (got {type(spark).__name__})")
        self.spark = spark
        tag = uuid.uuid4().hex[:12]
        self.names = {name: f"ambiglib_{tag}_{name}" for name in frames}
        for frame in frames.values():
            self._frame(frame, F).createOrReplaceTempView(self.names[frame.name])

    def _frame(self, frame: Frame, F: Any) -> Any:
        cols = frame.columns
        ddl = ", ".join(f"`{c}` {t}" for c, t in cols.items() if c not in frame.partitions)
        if not frame.parts:
            return self.spark.createDataFrame([], ", ".join(f"`{c}` {t}" for c, t in cols.items()))
        pieces = []
        for part in frame.parts:  # one read a file, its partition values added as text literals
            values = dict(part.values)
            df = self.spark.read.schema(ddl).parquet(str(part.file))
            pieces.append(df.select(*[F.lit(values[c]).cast("string").alias(c) if c in frame.partitions
                                      else F.col(f"`{c}`") for c in cols]))
        return reduce(lambda a, b: a.unionByName(b), pieces)

    def query(self, sql: str) -> pd.DataFrame:
        """The rows of ``sql`` as a frame (its columns even without a row)."""
        rows, columns = self._run(sql)
        return pd.DataFrame(rows, columns=columns)

    def arrow(self, sql: str) -> Any:
        """The rows of ``sql`` as an Arrow table (collected here, as every query's rows are)."""
        import pyarrow as pa

        rows, columns = self._run(sql)
        return pa.Table.from_pylist(rows) if rows else pa.table({c: pa.array([], pa.null()) for c in columns})

    def rows(self, sql: str) -> list[dict[str, Any]]:
        """The rows of ``sql`` as dictionaries of Python values (a check's few rows)."""
        return self._run(sql)[0]

    def _run(self, sql: str) -> tuple[list[dict[str, Any]], list[str]]:
        """The rows of ``sql`` and its columns, run once; Spark's own error as a FormatError."""
        try:
            frame = self.spark.sql(sql)
            return [r.asDict() for r in frame.collect()], list(frame.columns)
        except Exception as exc:  # py4j and Spark's analysis errors have no common public base
            raise FormatError(f"Spark could not read the store: {str(exc).splitlines()[0][:500]}") from None

    def close(self) -> None:
        for name in self.names.values():
            self.spark.catalog.dropTempView(name)
