//! The store's tables as DataFusion's one schema: a name the query uses is
//! looked up here when the query is planned (DataFusion asks only for the
//! tables a statement names, CTEs resolved first), and becomes a Parquet
//! scan of the store's file.
//!
//! A table's file is compared with its manifest's tail digest when it is
//! looked up ([`StoredTable::check`]: the query opens the store with
//! `Tails::OnUse`). The schema is read from the file's footer here (no data page is read),
//! with text columns as Arrow's string views, as DataFusion reads them. No
//! table can be registered or dropped through it, and it holds no other
//! name: a query sees the store's tables and nothing else.

use std::fs::File;
use std::sync::Arc;

use async_trait::async_trait;
use datafusion::catalog::{SchemaProvider, TableProvider};
use datafusion::common::config::TableParquetOptions;
use datafusion::datasource::file_format::parquet::{transform_schema_to_view, ParquetFormat};
use datafusion::datasource::listing::{ListingOptions, ListingTable, ListingTableConfig, ListingTableUrl};
use datafusion::error::{DataFusionError, Result};
use datafusion::parquet::arrow::arrow_reader::{ArrowReaderMetadata, ArrowReaderOptions};

use tracelab_store::StoredTable;

/// The store's tables, by SQL name.
#[derive(Debug)]
pub(crate) struct StoreSchema {
    tables: Arc<Vec<StoredTable>>,
    parquet: TableParquetOptions,
}

impl StoreSchema {
    pub(crate) fn new(tables: Arc<Vec<StoredTable>>, parquet: TableParquetOptions) -> StoreSchema {
        StoreSchema { tables, parquet }
    }

    fn find(&self, name: &str) -> Option<&StoredTable> {
        self.tables.iter().find(|t| t.table.sql_name() == name)
    }
}

#[async_trait]
impl SchemaProvider for StoreSchema {
    fn table_names(&self) -> Vec<String> {
        self.tables.iter().map(|t| t.table.sql_name().to_string()).collect()
    }

    async fn table(&self, name: &str) -> Result<Option<Arc<dyn TableProvider>>> {
        match self.find(name) {
            Some(t) => {
                // A store opened for a query compares a file's tail with its
                // manifest here, for the tables the statement names only.
                t.check().map_err(|e| DataFusionError::External(Box::new(e)))?;
                Ok(Some(parquet_table(t, &self.parquet)?))
            }
            None => Ok(None),
        }
    }

    fn table_exist(&self, name: &str) -> bool {
        self.find(name).is_some()
    }
}

/// A scan of one table's Parquet file.
fn parquet_table(t: &StoredTable, parquet: &TableParquetOptions) -> Result<Arc<dyn TableProvider>> {
    let at = |e: &dyn std::fmt::Display| DataFusionError::Execution(format!("{}: {e}", t.path.display()));
    let file = File::open(&t.path).map_err(|e| at(&e))?;
    let metadata = ArrowReaderMetadata::load(&file, ArrowReaderOptions::new()).map_err(|e| at(&e))?;
    let schema = transform_schema_to_view(metadata.schema());
    // A URL of the path itself: ListingTableUrl::parse would read `*`, `?`
    // or `[` in a store's folder name as a glob.
    let path = std::path::absolute(&t.path).map_err(|e| at(&e))?;
    let url = url_of(&path).ok_or_else(|| at(&"not a path a URL can name"))?;
    let format = ParquetFormat::default().with_options(parquet.clone());
    let options = ListingOptions::new(Arc::new(format)).with_file_extension(".parquet");
    let config = ListingTableConfig::new(ListingTableUrl::try_new(url, None)?)
        .with_listing_options(options)
        .with_schema(Arc::new(schema));
    Ok(Arc::new(ListingTable::try_new(config)?))
}

fn url_of(path: &std::path::Path) -> Option<url::Url> {
    url::Url::from_file_path(path).ok()
}
