//! The chart model: plain data the report fills in and `plot::render` draws.
//! It owns no behaviour beyond constructors and defaults; statistics (CDF
//! points, box quartiles, histogram bins) arrive precomputed, so nothing here
//! knows about analyses, specs or the store.
//!
//! Axis orientation: `x` is always the horizontal axis and `y` the vertical
//! one. Horizontal bars therefore put the categories on `y` and the values on
//! `x`; a heat map puts its rows on `y`, its columns on `x`, and reads its
//! colour scale (label, range, tick format) from `y2`.

/// One figure.
#[derive(Debug, Clone, PartialEq)]
pub struct Chart {
    /// Usually `None`: the report prints the title as HTML above the figure.
    pub title: Option<String>,
    /// Not drawn: the SVG's `<title>` and `<desc>` (figure title, definition,
    /// data source), so a file opened on its own says what it is. Without
    /// it, `title` (if any) is the `<title>`.
    pub about: Option<About>,
    pub kind: Kind,
    pub x: Axis,
    pub y: Axis,
    /// Twin right axis for series with `axis: YAxis::Right`; for `Kind::Heat`
    /// the colour scale (its label, min/max, scale and tick format).
    pub y2: Option<Axis>,
    pub series: Vec<Series>,
    /// Width and height in px; (560, 360) is one paper column at about 2x.
    pub size: (u32, u32),
    pub legend: Legend,
}

impl Chart {
    /// A chart of `kind` with the default size and an automatic legend.
    pub fn new(kind: Kind, x: Axis, y: Axis) -> Chart {
        Chart {
            title: None,
            about: None,
            kind,
            x,
            y,
            y2: None,
            series: Vec::new(),
            size: DEFAULT_SIZE,
            legend: Legend::Auto,
        }
    }
}

/// A line chart with unlabelled linear axes, no series, default size and
/// an automatic legend: a base for `Chart { kind, x, y, ..Default::default() }`.
impl Default for Chart {
    fn default() -> Chart {
        Chart::new(Kind::Line, Axis::default(), Axis::default())
    }
}

/// What an SVG says about itself (`<title>`, `<desc>`); never drawn.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct About {
    pub title: String,
    pub desc: String,
}

/// One paper column at about twice its printed size.
pub const DEFAULT_SIZE: (u32, u32) = (560, 360);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Straight segments between points (time series, CDF curves).
    Line,
    /// Post steps: each y holds until the next x (empirical CDFs).
    Step,
    /// A marker per point.
    Scatter,
    /// Bars over numeric intervals (`Data::Bins`) on a numeric x axis: a
    /// histogram whose bin edges need not be round numbers, with ticks that
    /// are.
    Histogram,
    /// `horizontal` puts categories on `y` (long labels read better there).
    Bars { horizontal: bool, mode: BarMode },
    /// One box per category and series from precomputed `BoxStats`.
    Box,
    /// Rows x columns of colour cells with a colour bar.
    Heat,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BarMode {
    /// Series side by side within each category.
    Grouped,
    /// Series on top of each other (positive values up, negative down).
    Stacked,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Axis {
    /// With its unit, e.g. "Queueing delay (s)".
    pub label: String,
    pub scale: Scale,
    /// `None`: from the data (linear axes get a little padding, log and
    /// symlog axes are widened to whole decades). A given bound is never
    /// moved: when the data collapse onto it (all zeros with `min = 0`),
    /// the free end moves away from it (0..1; 0..linthresh on symlog; a
    /// decade up on log). Only `min == max` is widened both ways.
    pub min: Option<f64>,
    pub max: Option<f64>,
    /// Explicit tick positions (as the upstream figure has them); `None`
    /// generates ticks for the axis length. On a category axis they are
    /// category positions, 0 for the first category (in order of first
    /// appearance): `[0, 6, 12, 18]` labels only those four hours of 0..23.
    /// Either way, labels that would overlap are thinned to every k-th.
    pub ticks: Option<Vec<f64>>,
    pub tick_format: TickFormat,
}

impl Axis {
    /// A linear axis with automatic range, ticks and labels.
    pub fn new(label: impl Into<String>, scale: Scale) -> Axis {
        Axis { label: label.into(), scale, min: None, max: None, ticks: None, tick_format: TickFormat::Auto }
    }

    pub fn linear(label: impl Into<String>) -> Axis {
        Axis::new(label, Scale::Linear)
    }

    pub fn log(label: impl Into<String>) -> Axis {
        Axis::new(label, Scale::Log)
    }

    pub fn symlog(label: impl Into<String>, linthresh: f64) -> Axis {
        Axis::new(label, Scale::Symlog { linthresh })
    }

    pub fn category(label: impl Into<String>) -> Axis {
        Axis::new(label, Scale::Category)
    }

    /// Fixes both ends of the axis.
    pub fn range(mut self, min: f64, max: f64) -> Axis {
        self.min = Some(min);
        self.max = Some(max);
        self
    }

    pub fn format(mut self, tick_format: TickFormat) -> Axis {
        self.tick_format = tick_format;
        self
    }

    pub fn ticks(mut self, ticks: Vec<f64>) -> Axis {
        self.ticks = Some(ticks);
        self
    }
}

impl Default for Axis {
    fn default() -> Axis {
        Axis::linear("")
    }
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Scale {
    Linear,
    /// Base 10; values <= 0 are skipped and counted in a note.
    Log,
    /// Linear within +-linthresh, base-10 log beyond (matplotlib's `symlog`
    /// with linscale 1): for waits that include 0.
    Symlog {
        linthresh: f64,
    },
    /// Evenly spaced categories (bars, boxes, heat-map rows); the categories
    /// come from the data, so the range of such an axis is ignored, and
    /// `ticks` pick categories by position (non-integers and positions past
    /// the last category are dropped). Names that do not fit are turned
    /// (under the plot) and thinned to every k-th, the smallest k at which
    /// no two overlap, always with the first and, if it fits, the last.
    Category,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TickFormat {
    /// Plain numbers with as few decimals as the ticks need (shared by all
    /// ticks on a linear axis, per tick on log and symlog axes: 0, 0.1, 1,
    /// 10); powers of ten on wide log and symlog axes, M/G/T suffixes from
    /// a million on.
    Auto,
    /// Fractions as percentages: 0.4 -> "40%".
    Percent,
    /// Whole numbers; generated ticks are at least 1 apart.
    Integer,
    /// Seconds as the largest whole unit: 90 -> "1.5m", 3600 -> "1h", 86400 -> "1d".
    Duration,
    /// Powers of ten, 10^k (and m×10^k off the decades).
    Sci,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    /// Legend text; an empty label keeps the series out of the legend.
    pub label: String,
    /// Line charts: draw this series as post steps (the empirical CDF of a
    /// small sample) whatever the chart's kind.
    pub step: bool,
    /// `Right` draws against `Chart::y2` (Line, Step and Scatter only; other
    /// kinds and charts without `y2` draw every series on the left axis).
    pub axis: YAxis,
    pub data: Data,
}

impl Series {
    pub fn new(label: impl Into<String>, data: Data) -> Series {
        Series { label: label.into(), step: false, axis: YAxis::Left, data }
    }

    pub fn points(label: impl Into<String>, points: Vec<(f64, f64)>) -> Series {
        Series::new(label, Data::Points(points))
    }

    pub fn bars(label: impl Into<String>, bars: Vec<(String, f64)>) -> Series {
        Series::new(label, Data::Bars(bars))
    }

    pub fn boxes(label: impl Into<String>, boxes: Vec<(String, BoxStats)>) -> Series {
        Series::new(label, Data::Boxes(boxes))
    }

    /// Draws this series as post steps (see `step`).
    pub fn steps(mut self) -> Series {
        self.step = true;
        self
    }

    /// Draws this series against the twin right axis (`Chart::y2`).
    pub fn right(mut self) -> Series {
        self.axis = YAxis::Right;
        self
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum YAxis {
    Left,
    Right,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Data {
    /// (x, y) for Line, Step and Scatter. A NaN y is a gap (no data): the
    /// line breaks there. Other non-finite points are skipped and counted.
    Points(Vec<(f64, f64)>),
    /// Category -> value; categories are grouped or stacked across series
    /// in order of first appearance. NaN is no data: the category keeps its
    /// place and gets no bar.
    Bars(Vec<(String, f64)>),
    /// (lo, hi, value) for Histogram: a bar from lo to hi. NaN is no data.
    Bins(Vec<(f64, f64, f64)>),
    /// Category -> precomputed box statistics.
    Boxes(Vec<(String, BoxStats)>),
    /// `values[r][c]` is the cell of row `rows[r]` starting at `cols[c]`
    /// (increasing; the last column is as wide as the one before it).
    /// NaN means no data and is drawn light grey.
    Heat { rows: Vec<String>, cols: Vec<f64>, values: Vec<Vec<f64>> },
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BoxStats {
    pub whisker_lo: f64,
    pub q1: f64,
    pub median: f64,
    pub q3: f64,
    pub whisker_hi: f64,
}

/// Where the legend goes. It is drawn when at least two series have labels
/// (Auto) or at least one does (a fixed place); heat maps draw a colour bar
/// instead.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Legend {
    /// The first corner (top right, top left, bottom right, bottom left)
    /// whose legend box covers no data; below the plot if none is free.
    #[default]
    Auto,
    None,
    TopLeft,
    TopRight,
    BottomLeft,
    BottomRight,
    Below,
}
