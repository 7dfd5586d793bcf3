"""Past one machine: the pooled metrics of a partitioned Parquet store, computed by an engine we do not write.

Every pooled metric (the ask rates and CalibScore, precision, recall and Ask-F1, pass@k, pass^k, the flip share,
the rerun spread, the value of information) is per-task sums and a pooling step. An engine, DuckDB embedded (the default) or a Spark
session you made, computes the sums from the store as SQL; this machine pools them, so its cost is tasks ×
bootstrap draws, not runs::

    metrics = ambiglib.engines.on_store("store")            # or engine="spark", spark=session
    metrics.ask_calibration(by=("suite", "model", "policy"), ci=True)

Each table equals ``ambiglib.metrics.<metric>(ambiglib.load("store"))`` exactly, and a store the metric refuses
(a group mixing conditions, a question naming an unregistered blocker, a task with no record) is refused with the
same message. What needs the whole runs (majority labels, paired tests, first-k pass@k, macro pooling) is refused
with why (:class:`NotPooled`). :func:`sums_sql` gives the SQL as text for any other engine, and :func:`pool`
pools what it returns (``docs/scaling.md``).
"""

from __future__ import annotations

import os
from typing import Any

from ambiglib.engines._store import NOT_POOLED, POOLED, Engine, NotPooled, StoreMetrics, pool, sums_sql

__all__ = ["on_store", "StoreMetrics", "sums_sql", "pool", "NotPooled", "POOLED", "NOT_POOLED", "ENGINES"]

#: the engines :func:`on_store` takes
ENGINES = ("duckdb", "spark")


def on_store(store: str | os.PathLike[str], engine: Engine = "duckdb", *, spark: Any = None,
             memory_limit: str | None = None, threads: int | None = None) -> StoreMetrics:
    """The pooled metrics of ``store`` (written by ``RunSet.to_parquet(path, partition_by=...)`` or ``ambiglib
    convert --partition-by``), computed by ``engine``: ``"duckdb"`` (embedded; ``memory_limit`` such as ``"2GB"``
    and ``threads`` are its own settings) or ``"spark"`` with ``spark=`` your ``SparkSession``."""
    return StoreMetrics(store, engine, spark=spark, memory_limit=memory_limit, threads=threads)
