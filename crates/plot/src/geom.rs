//! Plane geometry in px (y down): rectangles, clipping of polylines to the
//! plot area, and the "marks" that record where data was drawn so the legend
//! can find an empty corner. Clipping is done here, geometrically, rather
//! than with SVG clip paths: the output then needs no ids (which would clash
//! when several figures are inlined into one HTML page) and holds no
//! invisible points.

pub(crate) type Pt = (f64, f64);

#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Rect {
    pub x0: f64,
    pub y0: f64,
    pub x1: f64,
    pub y1: f64,
}

impl Rect {
    /// From any two opposite corners.
    pub fn new(a: Pt, b: Pt) -> Rect {
        Rect { x0: a.0.min(b.0), y0: a.1.min(b.1), x1: a.0.max(b.0), y1: a.1.max(b.1) }
    }

    pub fn width(&self) -> f64 {
        self.x1 - self.x0
    }

    pub fn height(&self) -> f64 {
        self.y1 - self.y0
    }

    pub fn centre(&self) -> Pt {
        ((self.x0 + self.x1) / 2.0, (self.y0 + self.y1) / 2.0)
    }

    pub fn contains(&self, p: Pt) -> bool {
        p.0 >= self.x0 && p.0 <= self.x1 && p.1 >= self.y0 && p.1 <= self.y1
    }

    /// The overlap of two rectangles, if it has an area.
    pub fn intersect(&self, o: &Rect) -> Option<Rect> {
        let r = Rect { x0: self.x0.max(o.x0), y0: self.y0.max(o.y0), x1: self.x1.min(o.x1), y1: self.y1.min(o.y1) };
        (r.x1 > r.x0 && r.y1 > r.y0).then_some(r)
    }

    /// Grown by `d` on every side.
    pub fn inflate(&self, d: f64) -> Rect {
        Rect { x0: self.x0 - d, y0: self.y0 - d, x1: self.x1 + d, y1: self.y1 + d }
    }
}

/// The part of segment a-b inside `r` (Liang-Barsky), if any.
pub(crate) fn clip_segment(a: Pt, b: Pt, r: &Rect) -> Option<(Pt, Pt)> {
    let (dx, dy) = (b.0 - a.0, b.1 - a.1);
    let mut t0: f64 = 0.0;
    let mut t1: f64 = 1.0;
    for (p, q) in [(-dx, a.0 - r.x0), (dx, r.x1 - a.0), (-dy, a.1 - r.y0), (dy, r.y1 - a.1)] {
        if p == 0.0 {
            if q < 0.0 {
                return None;
            }
        } else {
            let t = q / p;
            if p < 0.0 {
                t0 = t0.max(t);
            } else {
                t1 = t1.min(t);
            }
        }
    }
    if t0 > t1 {
        return None;
    }
    let at = |t: f64| {
        if t == 0.0 {
            a
        } else if t == 1.0 {
            b
        } else {
            (a.0 + t * dx, a.1 + t * dy)
        }
    };
    Some((at(t0), at(t1)))
}

/// Splits a polyline into the runs that lie inside `r`.
pub(crate) fn clip_polyline(points: &[Pt], r: &Rect) -> Vec<Vec<Pt>> {
    let mut runs: Vec<Vec<Pt>> = Vec::new();
    let mut current: Vec<Pt> = Vec::new();
    for w in points.windows(2) {
        match clip_segment(w[0], w[1], r) {
            Some((p, q)) => {
                if current.last() != Some(&p) {
                    if current.len() > 1 {
                        runs.push(std::mem::take(&mut current));
                    }
                    current.clear();
                    current.push(p);
                }
                current.push(q);
            }
            None => {
                if current.len() > 1 {
                    runs.push(std::mem::take(&mut current));
                }
                current.clear();
            }
        }
    }
    if current.len() > 1 {
        runs.push(current);
    }
    runs
}

/// Something drawn in the plot area, as far as the legend is concerned.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Mark {
    Seg(Pt, Pt),
    Area(Rect),
    Dot(Pt, f64),
}

impl Mark {
    pub fn hits(&self, r: &Rect) -> bool {
        match self {
            Mark::Seg(a, b) => clip_segment(*a, *b, r).is_some(),
            Mark::Area(a) => a.intersect(r).is_some(),
            Mark::Dot(c, radius) => r.inflate(*radius).contains(*c),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const BOX: Rect = Rect { x0: 0.0, y0: 0.0, x1: 10.0, y1: 10.0 };

    #[test]
    fn a_segment_crossing_the_box_is_cut_at_both_edges() {
        // From (-5, 5) to (15, 5): enters at x = 0, leaves at x = 10.
        assert_eq!(clip_segment((-5.0, 5.0), (15.0, 5.0), &BOX), Some(((0.0, 5.0), (10.0, 5.0))));
        // The diagonal from (-10, -10) to (20, 20) crosses the corners:
        // t0 = 10/30, t1 = 20/30 -> (0, 0) and (10, 10).
        let (p, q) = clip_segment((-10.0, -10.0), (20.0, 20.0), &BOX).unwrap();
        assert!((p.0).abs() < 1e-12 && (q.0 - 10.0).abs() < 1e-12);
        assert_eq!(clip_segment((11.0, 0.0), (20.0, 5.0), &BOX), None);
    }

    #[test]
    fn a_polyline_leaving_and_reentering_becomes_two_runs() {
        let line = [(1.0, 1.0), (5.0, 1.0), (5.0, 20.0), (8.0, 20.0), (8.0, 2.0)];
        let runs = clip_polyline(&line, &BOX);
        assert_eq!(runs, vec![vec![(1.0, 1.0), (5.0, 1.0), (5.0, 10.0)], vec![(8.0, 10.0), (8.0, 2.0)]]);
    }

    #[test]
    fn marks_hit_only_what_they_touch() {
        let legend = Rect { x0: 6.0, y0: 0.0, x1: 10.0, y1: 3.0 };
        assert!(Mark::Seg((0.0, 1.0), (10.0, 1.0)).hits(&legend));
        assert!(!Mark::Seg((0.0, 5.0), (10.0, 5.0)).hits(&legend));
        assert!(Mark::Area(Rect::new((5.0, 2.0), (7.0, 9.0))).hits(&legend));
        assert!(!Mark::Dot((4.0, 1.0), 1.5).hits(&legend));
        assert!(Mark::Dot((5.0, 1.0), 1.5).hits(&legend));
    }
}
