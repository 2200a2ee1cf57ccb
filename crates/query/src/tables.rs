//! What `tracelab tables` shows: the tables present in a store under their
//! SQL names, with row counts read from the Parquet footers (no data pages
//! are read) and the documented columns, types and units, as neutral
//! tables the CLI writes in any format.

use std::fs::File;

use datafusion::parquet::file::reader::{FileReader, SerializedFileReader};

use tracelab_present::{self as present, Column, Value};
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
    let reader = SerializedFileReader::new(file)
        .map_err(|e| Error::input(t.path.display().to_string(), format!("cannot read the Parquet footer: {e}")))?;
    Ok(reader.metadata().file_metadata().num_rows().max(0) as usize)
}

/// One row per table: its SQL name, trace, rows, columns and file size.
pub fn overview(tables: &[TableInfo]) -> present::Table {
    let mut t = present::Table::new(vec![
        Column::text("table"),
        Column::text("trace"),
        Column::int("rows"),
        Column::int("columns"),
        Column::int("size").with_unit("bytes"),
    ]);
    for info in tables {
        let table = info.stored.table;
        let size = std::fs::metadata(&info.stored.path).map_or(Value::Null, |m| m.len().into());
        let trace = table.trace.map_or("unified", |tr| tr.name());
        t.push(vec![table.sql_name().into(), trace.into(), info.rows.into(), table.columns.len().into(), size]);
    }
    t
}

/// One row per column of `tables`: table, column, type, unit, nullable
/// and meaning.
pub fn columns(tables: &[TableInfo]) -> present::Table {
    let mut t = present::Table::of_text(&["table", "column", "type", "unit", "nulls", "meaning"]);
    for info in tables {
        for c in info.stored.table.columns {
            let nulls = if c.nullable { "null ok" } else { "not null" };
            let row = [info.stored.table.sql_name(), c.name, c.ty.name(), c.unit, nulls, c.doc];
            t.push(row.into_iter().map(Value::from).collect());
        }
    }
    t
}
