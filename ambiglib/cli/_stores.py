"""Where a command's runs come from: an engine's handle over a partitioned store (DuckDB, the default for a store,
or Spark), or the log loaded into memory."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Any

from ambiglib.cli._messages import say


def engine_of(engine: str, path: Path) -> str:
    """What computes a command's numbers: ``auto`` is DuckDB for a store (said, and the store loaded, where duckdb
    is not installed), else the loaded log."""
    if engine != "auto":
        return engine
    from ambiglib.runlog import is_parquet_store

    if not is_parquet_store(path):
        return "pandas"
    if importlib.util.find_spec("duckdb") is None:
        say("note: duckdb is not installed (pip install 'ambiglib[engines]'): the store is loaded whole instead",
            sys.stderr)
        return "pandas"
    return "duckdb"


def on_store(path: Path, engine: str, memory_limit: str | None) -> Any:
    """An engine's handle over the store ``path`` (Spark: the session ``SparkSession.builder.getOrCreate()``
    gives, a cluster's under spark-submit)."""
    import ambiglib.engines
    from ambiglib.engines._spark import default_session

    spark = default_session() if engine == "spark" else None
    return ambiglib.engines.on_store(path, "spark" if engine == "spark" else "duckdb", spark=spark,
                                     memory_limit=memory_limit)


def loaded(runs: str, options: dict[str, Any]) -> Any:
    """The log ``runs`` loaded leniently, with ``options`` (the Inspect AI mapping options given), and how many
    records were rejected said (``ambiglib validate`` lists them)."""
    from ambiglib.loading._load import load

    rs, errors = load(runs, strict=False, quiet=True, **options)
    if errors:
        say(f"{len(errors)} record{'s' if len(errors) != 1 else ''} rejected (ambiglib validate --runs {runs}"
            " lists them)", sys.stderr)
    return rs
