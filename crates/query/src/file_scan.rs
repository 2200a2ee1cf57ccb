//! The one kind of scan this crate's physical rules rewrite: a Parquet scan
//! of one local file whose output is the file's own columns. Here it is
//! recognised, its footer read, and rebuilt with other column types, other
//! columns or a choice of row groups.

use std::sync::Arc;

use datafusion::arrow::datatypes::SchemaRef;
use datafusion::common::{internal_datafusion_err, Result, Statistics};
use datafusion::datasource::listing::PartitionedFile;
use datafusion::datasource::physical_plan::{
    FileGroup, FileScanConfig, FileScanConfigBuilder, FileSource, ParquetSource,
};
use datafusion::datasource::source::DataSourceExec;
use datafusion::datasource::table_schema::TableSchema;
use datafusion::object_store::local::LocalFileSystem;
use datafusion::parquet::file::metadata::{ParquetMetaData, ParquetMetaDataReader};
use datafusion::parquet::schema::types::SchemaDescriptor;
use datafusion::physical_expr::expressions::Column;
use datafusion::physical_expr::projection::{ProjectionExpr, ProjectionExprs};
use datafusion::physical_expr::PhysicalExpr;
use datafusion::physical_plan::ExecutionPlan;

/// A Parquet scan of one local file, without partition columns, whose
/// output columns are file columns as they are.
pub(crate) struct FileScan<'a> {
    pub(crate) scan: &'a DataSourceExec,
    pub(crate) config: &'a FileScanConfig,
    pub(crate) source: &'a ParquetSource,
    pub(crate) file: &'a PartitionedFile,
    /// Per column of the scan's output: its column in the file.
    pub(crate) file_columns: Vec<usize>,
}

impl<'a> FileScan<'a> {
    /// `plan` as such a scan, if it is one.
    pub(crate) fn of(plan: &'a Arc<dyn ExecutionPlan>) -> Option<FileScan<'a>> {
        let scan = plan.downcast_ref::<DataSourceExec>()?;
        let (config, source) = scan.downcast_to_file_source::<ParquetSource>()?;
        let files: Vec<&PartitionedFile> = config.file_groups.iter().flat_map(FileGroup::iter).collect();
        let [file] = files.as_slice() else { return None };
        if !config.table_partition_cols().is_empty() || config.object_store_url.as_str() != "file:///" {
            return None;
        }
        let file_columns = source
            .projection()?
            .iter()
            .map(|e| e.expr.downcast_ref::<Column>().map(Column::index))
            .collect::<Option<Vec<usize>>>()?;
        Some(FileScan { scan, config, source, file, file_columns })
    }

    /// The file's footer, read now: a rule decides from it at planning
    /// time. A caller that cannot read it keeps the plan as it was, so the
    /// scan reports the file's trouble in its own words.
    pub(crate) fn footer(&self) -> Result<ParquetMetaData> {
        Ok(ParquetMetaDataReader::new().parse_and_finish(&self.open()?)?)
    }

    /// The file, opened now.
    pub(crate) fn open(&self) -> Result<std::fs::File> {
        let path = LocalFileSystem::new().path_to_filesystem(&self.file.object_meta.location)?;
        std::fs::File::open(&path).map_err(|e| internal_datafusion_err!("{}: {e}", path.display()))
    }

    /// The footer's leaf column of the scan's output column `c`, if it is
    /// one leaf (not a nested column).
    pub(crate) fn leaf(&self, descriptor: &SchemaDescriptor, c: usize) -> Option<usize> {
        let name = self.config.file_schema().field(self.file_columns[c]).name();
        let leaves: Vec<usize> =
            (0..descriptor.num_columns()).filter(|&l| descriptor.column(l).path().string() == *name).collect();
        match leaves.as_slice() {
            [leaf] => Some(*leaf),
            _ => None,
        }
    }

    /// The same scan reading the file as `schema` (the file's schema, some
    /// column types changed), its output its own output columns `outputs`
    /// (under the names the scan gives them), the
    /// file as `file` (which may carry the reader's schema or a choice of
    /// row groups), with `statistics` for the table and `predicate` (the
    /// scan's own, dynamic filters included, or part of it). The scan's
    /// options are kept.
    pub(crate) fn rebuilt(
        &self,
        schema: SchemaRef,
        outputs: &[usize],
        file: PartitionedFile,
        statistics: Statistics,
        predicate: Option<Arc<dyn PhysicalExpr>>,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        let mut source = ParquetSource::new(TableSchema::from(Arc::clone(&schema)))
            .with_table_parquet_options(self.source.table_parquet_options().clone());
        if let Some(predicate) = predicate {
            source = source.with_predicate(predicate);
        }
        // The scan's own projection items keep the names a query gave the
        // columns (`SELECT DISTINCT machine AS c1` names the scan's column).
        let projection = self.source.projection().ok_or_else(|| internal_datafusion_err!("a scan without columns"))?;
        let items: Vec<ProjectionExpr> = projection.iter().cloned().collect();
        let chosen = outputs.iter().map(|&i| items.get(i).cloned()).collect::<Option<Vec<_>>>();
        let chosen = chosen.ok_or_else(|| internal_datafusion_err!("a column the scan does not have"))?;
        let source = source
            .try_pushdown_projection(&ProjectionExprs::new(chosen))?
            .ok_or_else(|| internal_datafusion_err!("the scan's columns cannot be chosen again"))?;
        let config = FileScanConfigBuilder::from(self.config.clone())
            .with_source(source)
            .with_file_groups(vec![FileGroup::new(vec![file])])
            .with_statistics(statistics)
            .build();
        Ok(DataSourceExec::from_data_source(config))
    }
}
