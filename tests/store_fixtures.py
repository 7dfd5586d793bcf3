"""What the engine tests share: the example data, a copy with model names a folder must give back as written, a
store's metrics by engine name, and one-record damages of a store's parts (the stores and the Spark session are
fixtures in ``conftest.py``)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import ambiglib
import ambiglib.engines as engines
from ambiglib.metrics import MetricError

EXAMPLE = Path(__file__).resolve().parents[1] / "data" / "example"


ALL = ("benchmark", "suite", "model", "spec", "ask_tool", "policy", "protocol")


#: names a folder must give back as written: numeric-looking, percent signs, a slash, spaces, non-ASCII
TRICKY = {"gpt-5.4": "007", "gemini-3.1-pro": "a b/c%20x", "claude-opus-4.6": "2024", "gpt-5.2": "%2F",
          "opus-4.5": "é ü"}


def tricky_log(path: Path) -> Path:
    with open(path, "w", encoding="utf-8") as out:
        for file in sorted(EXAMPLE.glob("*.jsonl")):
            for line in file.read_text(encoding="utf-8").splitlines():
                record = json.loads(line)
                if record.get("model") in TRICKY:
                    record["model"] = TRICKY[record["model"]]
                out.write(json.dumps(record) + "\n")
    return path


def on_engine(store: Path, engine: str, request) -> engines.StoreMetrics:
    if engine == "spark":
        return engines.on_store(store, "spark", spark=request.getfixturevalue("spark"))
    return engines.on_store(store)


def outcome(call):
    try:
        return call()
    except MetricError as exc:
        return exc


def edit_rows(part: Path, edit) -> None:
    """Rewrite one Parquet part with ``edit(rows)`` applied to its rows (a list of dicts), types kept."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pq.read_table(part)
    rows = table.to_pylist()
    edit(rows)
    pq.write_table(pa.Table.from_pylist(rows, schema=table.schema), part)


def set_value(column, value):
    def edit(rows):
        rows[0][column] = value
    return edit


def damaged(stores, tmp_path, which, frame, column, value) -> tuple[Path, Path]:
    """A copy of the store ``which`` with row 0 of the first part of ``frame`` rewritten (``tests/fuzzing.py``'s
    ``rewrite_parquet``: a column set to ``value``, or with ``column=None`` a row repeated): the store and the part."""
    from fuzzing import rewrite_parquet

    store = shutil.copytree(stores[which], tmp_path / "store")
    part = sorted((store / frame).rglob("part-*.parquet"))[0]
    rewrite_parquet(part, column, value)
    return store, part


def field_damaged(stores, tmp_path, frame, edit) -> Path:
    """The example store with ``edit`` made to the first part of ``frame`` it applies to (one with two blockers of a
    task, say)."""
    store = tmp_path / "store"
    shutil.copytree(stores["example"], store)
    for part in sorted((store / frame).rglob("part-*.parquet")):
        try:
            edit_rows(part, edit)
            return store
        except StopIteration:
            continue
    raise AssertionError(f"no part of {frame} to damage")



def simulator_store(tmp_path_factory) -> Path:
    """The simulator's example at 100× (48,700 runs) as a store partitioned by benchmark and model, written once a
    test session."""
    from ambiglib import simulate

    store = tmp_path_factory.getbasetemp() / "x100"
    if not store.exists():
        records = simulate.example_records(scale=100)
        ambiglib.RunSet.from_records(r for recs in records.values() for r in recs).to_parquet(
            store, partition_by=("benchmark", "model"))
    return store


def fuzzed_stores(tmp_path: Path, seeds):
    """The example with random damage (tests/fuzzing.py's byte mutations, three a log) for each seed, loaded
    leniently: ``(run set, store)`` for each that still loads, the store None where a damaged value (a model name no
    folder can hold) is refused at write."""
    import random

    from fuzzing import mutate_bytes

    for seed in seeds:
        log = tmp_path / f"log{seed}"
        shutil.copytree(EXAMPLE, log)
        rng = random.Random(seed)
        for _ in range(3):
            mutate_bytes(rng, rng.choice(sorted(log.glob("*.jsonl"))))
        try:
            rs, _ = ambiglib.load(log, strict=False, quiet=True)
        except ambiglib.errors.AmbiglibError:
            continue
        try:
            rs.to_parquet(tmp_path / f"store{seed}", partition_by=("benchmark", "model"))
        except ambiglib.errors.AmbiglibError:
            yield rs, None
            continue
        yield rs, tmp_path / f"store{seed}"
