//! Pure statistics over in-memory numbers: weighted empirical distributions
//! with the upstream quantile and CDF conventions, correlations with
//! confidence intervals and p-values, concentration (Lorenz, Gini) and
//! heavy-tail estimates. No I/O and no Polars (layer 1): analyses compute
//! the big aggregations in the engine and hand the reduced numbers here.

mod corr;
mod dist;
mod parallel;
mod quantile;
mod tail;

pub use corr::{pearson, spearman, Correlation};
pub use dist::{Dist, CDF_POINTS};
pub use parallel::map_on_two_threads;
pub use quantile::quantiles_in_place;
pub use tail::{fit_tail, gini, hill, lorenz, TailFit};
