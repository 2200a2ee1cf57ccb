//! What `tracelab tables` shows: the tables present in a store under their
//! SQL names, with row counts read from the Parquet footers (no data pages
//! are read) and the documented columns, types and units.

use std::fs::File;

use polars::prelude::*;

use tracelab_schema::error::{Error, IoContext, Result};
use tracelab_store::{Store, StoredTable};

/// One table of the store.
#[derive(Debug, Clone)]
pub struct TableInfo {
    pub stored: StoredTable,
    pub rows: usize,
}

/// Every table present, in documentation order.
pub fn describe(store: &Store) -> Result<Vec<TableInfo>> {
    store.tables().into_iter().map(|stored| Ok(TableInfo { rows: row_count(&stored)?, stored })).collect()
}

/// Rows of one table, from its Parquet footer.
fn row_count(t: &StoredTable) -> Result<usize> {
    let file = File::open(&t.path).at(&t.path)?;
    ParquetReader::new(file)
        .num_rows()
        .map_err(|e| Error::polars(format!("{}: cannot read the Parquet footer", t.path.display()), e))
}

/// Long form, one row per (table, column): table, rows, column, type,
/// unit, and with `docs` the column's meaning. The CLI prints it in any of
/// the output formats.
pub fn columns_frame(tables: &[TableInfo], docs: bool) -> Result<DataFrame> {
    let mut cols: [Vec<String>; 5] = Default::default();
    let mut rows: Vec<u64> = Vec::new();
    for t in tables {
        for c in t.stored.table.columns {
            cols[0].push(t.stored.table.sql_name().to_string());
            rows.push(t.rows as u64);
            cols[1].push(c.name.to_string());
            cols[2].push(c.ty.name().to_string());
            cols[3].push(c.unit.to_string());
            cols[4].push(c.doc.to_string());
        }
    }
    let [table, column, ty, unit, doc] = cols;
    let mut columns = vec![
        Column::new("table".into(), table),
        Column::new("rows".into(), rows),
        Column::new("column".into(), column),
        Column::new("type".into(), ty),
        Column::new("unit".into(), unit),
    ];
    if docs {
        columns.push(Column::new("meaning".into(), doc));
    }
    DataFrame::new_infer_height(columns).map_err(|e| Error::polars("tables", e))
}
