//! Pure statistics over in-memory numbers: weighted empirical distributions
//! with the upstream quantile and CDF conventions, correlations with
//! confidence intervals and p-values, concentration (Lorenz, Gini) and
//! heavy-tail estimates, regular time series (autocorrelation, simple
//! forecasters), prediction errors, k-means and the busiest window. No I/O and no Polars (layer 1): analyses compute
//! the big aggregations in the engine and hand the reduced numbers here.

mod accuracy;
mod corr;
mod dist;
mod kmeans;
mod mean;
mod parallel;
mod quantile;
mod series;
mod tail;
mod window;

pub use accuracy::{ape, mape, median_ape, rmsle};
pub use corr::{pearson, spearman, Correlation};
pub use dist::{Dist, SortedSamples, CDF_POINTS};
pub use kmeans::{kmeans_plus_plus, lloyd, min_max_scale, Clustering};
pub use mean::{mean_interval, MeanInterval};
pub use parallel::map_on_two_threads;
pub use quantile::quantiles_in_place;
pub use series::{autocorrelation, forecasts, interval_sums, Forecaster};
pub use tail::{fit_tail, gini, hill, lorenz, TailFit};
pub use window::{busiest_window, heaviest, Window};
