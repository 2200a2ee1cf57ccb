"""Opens every Parquet file of a tracelab store with pyarrow (14.0.2 in the test venv: an old
reader, without Arrow's string_view type) and prints, as JSON, each file's row count, column
types and first row's text and integer values, for tests/it/ingest.rs to compare with Polars.

Run: python3 tests/crosscheck/check_pyarrow.py <store>
Prints {"skipped": why} when pyarrow is not installed (no wheels for Python 3.13 and later).
"""
import json, pathlib, sys

try:
    import pyarrow
    import pyarrow.parquet as pq
except ImportError as e:
    print(json.dumps({"skipped": f"pyarrow is not installed ({e})", "python": list(sys.version_info[:2])}))
    sys.exit(0)

store = pathlib.Path(sys.argv[1])
files = {}
for path in sorted(store.rglob("*.parquet")):
    # Only the store's own cache folder is skipped: the store itself may sit
    # under a folder named .cache (CI keeps its build folder in ~/.cache).
    if ".cache" in path.relative_to(store).parts:
        continue
    table = pq.read_table(path)
    first = table.slice(0, 1).to_pylist()
    plain = {}
    for field in table.schema:
        value = first[0][field.name] if first else None
        if pyarrow.types.is_large_string(field.type) or pyarrow.types.is_string(field.type) or pyarrow.types.is_int64(field.type):
            plain[field.name] = value
    files[str(path.relative_to(store))] = {
        "rows": table.num_rows,
        "types": {f.name: str(f.type) for f in table.schema},
        "first": plain,
    }
print(json.dumps({"pyarrow": pyarrow.__version__, "files": files}))
