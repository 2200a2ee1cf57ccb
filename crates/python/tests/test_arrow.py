"""Tables cross through the Arrow C stream: pyarrow, polars and DuckDB read
them, and a numeric column is read in place (the address pyarrow sees is
the one the Rust side holds)."""

from __future__ import annotations

import duckdb
import polars as pl
import pyarrow as pa

SQL = "SELECT job_id, attempts, run_s FROM philly_jobs ORDER BY job_id"


def test_pyarrow_reads_the_rust_buffers_in_place(store):
    table = store.query(SQL)
    reader = pa.RecordBatchReader._import_from_c_capsule(table.__arrow_c_stream__())
    batch = reader.read_next_batch()
    for name in ("attempts", "run_s"):
        column = batch.column(batch.schema.get_field_index(name))
        assert column.type in (pa.int64(), pa.float64()), column.type
        assert column.buffers()[1].address == table._values_address(name)


def test_polars_and_duckdb_take_a_table(store):
    table = store.query(SQL)
    expected = pa.RecordBatchReader._import_from_c_capsule(table.__arrow_c_stream__()).read_all().to_pylist()
    df = pl.DataFrame(table)
    assert df.to_dicts() == expected
    assert df.columns == table.column_names and df.height == table.num_rows == len(table)
    con = duckdb.connect()
    got = con.execute("SELECT sum(attempts), count(*) FROM (SELECT * FROM df)").fetchall()
    assert got == [(sum(r["attempts"] for r in expected), len(expected))]


def test_a_table_can_be_read_twice(store):
    table = store.tables()
    first = pl.DataFrame(table)
    second = pl.DataFrame(table)
    assert first.equals(second)
