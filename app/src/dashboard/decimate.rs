//! Decimation of a plotted series for the screen. A two-hour film has 170k
//! frames per series, far more than the plot has pixel columns, and drawing
//! every frame would turn each series into as many line primitives, most
//! of them stacked on the same few hundred columns. Within one pixel column
//! a full-resolution line covers exactly the span from the column's lowest
//! value to its highest, and it enters the column at its first value and
//! leaves at its last; keeping those four points per column, in frame
//! order, draws the same envelope from O(columns) points. The extremes are
//! kept exactly, not averaged or strided over, so a single bad frame (one
//! low VMAF among 170k) is never hidden. The view decimates the visible
//! span every time it draws, so zooming or panning the time axis
//! re-decimates at the new scale.

/// A point of a series: frame and value.
type Point = (u64, f64);

/// The part of `values` (sorted by frame) inside the frame span `(a, b)`,
/// with one neighbour beyond each end so the line runs on to the plot's
/// edges.
pub fn visible(values: &[Point], (a, b): (f64, f64)) -> &[Point] {
    let start = values.partition_point(|(f, _)| (*f as f64) < a).saturating_sub(1);
    let end = (values.partition_point(|(f, _)| (*f as f64) <= b) + 1).min(values.len());
    &values[start..end.max(start)]
}

/// The points of `values` (sorted by frame) that a drawing of them at
/// screen x `x(frame)` shows: per pixel column its first, lowest, highest
/// and last finite values, in frame order. Columns with one or two points
/// keep them all, so a series with no more frames than columns comes back
/// unchanged (less any non-finite value, which is never drawn).
pub fn decimate(values: &[Point], x: impl Fn(u64) -> f32) -> Vec<Point> {
    let mut out = Vec::new();
    let mut column: Option<Column> = None;
    for &p in values.iter().filter(|(_, v)| v.is_finite()) {
        let at = x(p.0).floor();
        match &mut column {
            Some(c) if c.at == at => c.add(p),
            _ => {
                if let Some(c) = column.replace(Column::new(at, p)) {
                    c.emit(&mut out);
                }
            }
        }
    }
    if let Some(c) = column {
        c.emit(&mut out);
    }
    out
}

/// An interval series (`lows` and `highs` of the same frames) per pixel
/// column of `x`: the column's first and last frame, its lowest low and
/// its highest high. A band drawn as one rect per column covers what one
/// rect per frame would; a column of one frame is that frame.
pub fn intervals(
    lows: &[Point],
    highs: &[Point],
    x: impl Fn(u64) -> f32,
) -> Vec<(u64, u64, f64, f64)> {
    let mut out: Vec<(u64, u64, f64, f64)> = Vec::new();
    let mut at = f32::NAN;
    for (&(f, lo), &(_, hi)) in lows.iter().zip(highs) {
        let column = x(f).floor();
        match out.last_mut() {
            Some(c) if column == at => *c = (c.0, f, c.2.min(lo), c.3.max(hi)),
            _ => out.push((f, f, lo, hi)),
        }
        at = column;
    }
    out
}

/// The points of one pixel column that [`decimate`] keeps.
struct Column {
    at: f32,
    first: Point,
    lowest: Point,
    highest: Point,
    last: Point,
}

impl Column {
    fn new(at: f32, p: Point) -> Self {
        Column { at, first: p, lowest: p, highest: p, last: p }
    }

    fn add(&mut self, p: Point) {
        if p.1 < self.lowest.1 {
            self.lowest = p;
        }
        if p.1 > self.highest.1 {
            self.highest = p;
        }
        self.last = p;
    }

    /// Appends the kept points in frame order, each once.
    fn emit(self, out: &mut Vec<Point>) {
        let mut kept = [self.first, self.lowest, self.highest, self.last];
        kept.sort_by_key(|p| p.0);
        for p in kept {
            if out.last().is_none_or(|q| q.0 != p.0) {
                out.push(p);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Pixel columns of the test axis.
    const COLUMNS: f32 = 1000.0;

    /// Screen x of a frame on a `COLUMNS`-wide axis showing span `(a, b)`.
    fn axis((a, b): (f64, f64)) -> impl Fn(u64) -> f32 {
        move |f| ((f as f64 - a) / (b - a) * f64::from(COLUMNS)) as f32
    }

    /// A VMAF-like series: a wave with some noise, all values in 80..100.
    fn series(n: u64) -> Vec<Point> {
        (0..n)
            .map(|f| {
                let noise = (f.wrapping_mul(2_654_435_761) % 1000) as f64 / 1000.0;
                (f, 90.0 + 8.0 * (f as f64 / 5000.0).sin() + 2.0 * noise - 1.0)
            })
            .collect()
    }

    /// Per column of `x`: (first, lowest, highest, last) value.
    fn envelope(points: &[Point], x: &impl Fn(u64) -> f32) -> Vec<(f32, [f64; 4])> {
        let mut out: Vec<(f32, [f64; 4])> = Vec::new();
        for &(f, v) in points {
            let at = x(f).floor();
            match out.last_mut() {
                Some((c, e)) if *c == at => *e = [e[0], e[1].min(v), e[2].max(v), v],
                _ => out.push((at, [v, v, v, v])),
            }
        }
        out
    }

    #[test]
    fn one_bad_frame_survives_every_zoom_and_pan() {
        const N: u64 = 200_000;
        const BAD: Point = (123_457, 12.5);
        let mut values = series(N);
        values[BAD.0 as usize] = BAD;
        let mut cases = 0;
        let mut span = (N - 1) as f64;
        while span >= 50.0 {
            for t in [0.0, 0.13, 0.5, 0.77, 1.0] {
                let a = (BAD.0 as f64 - t * span).clamp(0.0, (N - 1) as f64 - span);
                let range = (a, a + span);
                let x = axis(range);
                let shown = visible(&values, range);
                let out = decimate(shown, &x);
                assert!(out.contains(&BAD), "span {range:?}: the bad frame is gone");
                assert!(
                    out.len() <= 4 * (COLUMNS as usize + 3),
                    "span {range:?}: {} points for {COLUMNS} columns",
                    out.len()
                );
                assert_eq!(envelope(&out, &x), envelope(shown, &x), "span {range:?}");
                cases += 1;
            }
            span *= 0.6;
        }
        assert!(cases > 50);
    }

    #[test]
    fn output_grows_with_columns_not_points() {
        for n in [20_000, 200_000, 2_000_000] {
            let values = series(n);
            let out = decimate(&values, axis((0.0, (n - 1) as f64)));
            assert!(out.len() <= 4 * (COLUMNS as usize + 1), "{n} points: {} kept", out.len());
            assert!(out.len() > 2 * COLUMNS as usize, "{n} points: {} kept", out.len());
        }
    }

    #[test]
    fn a_series_shorter_than_the_columns_is_unchanged() {
        for n in [1, 2, 12, 48, 999] {
            let values = series(n);
            let range = (0.0, (n.max(2) - 1) as f64);
            assert_eq!(visible(&values, range), &values[..]);
            assert_eq!(decimate(&values, axis(range)), values, "{n} frames");
        }
    }

    #[test]
    fn zooming_keeps_one_neighbour_beyond_each_edge() {
        let values = series(100);
        assert_eq!(visible(&values, (10.5, 20.0)), &values[10..22]);
        assert_eq!(visible(&values, (0.0, 99.0)), &values[..]);
        assert!(visible(&[], (0.0, 1.0)).is_empty());
    }

    #[test]
    fn an_interval_per_column_keeps_every_extreme() {
        const N: u64 = 200_000;
        let mut lows: Vec<Point> = series(N).iter().map(|&(f, v)| (f, v - 3.0)).collect();
        let mut highs: Vec<Point> = series(N).iter().map(|&(f, v)| (f, v + 3.0)).collect();
        highs[77_777].1 = 140.0;
        lows[150_001].1 = 1.0;
        let range = (0.0, (N - 1) as f64);
        let out = intervals(&lows, &highs, axis(range));
        assert!(out.len() <= COLUMNS as usize + 1, "{} rects", out.len());
        assert!(out.iter().any(|c| c.0 <= 77_777 && 77_777 <= c.1 && c.3 == 140.0));
        assert!(out.iter().any(|c| c.0 <= 150_001 && 150_001 <= c.1 && c.2 == 1.0));
        // The columns tile the frames, in order.
        assert_eq!((out[0].0, out[out.len() - 1].1), (0, N - 1));
        assert!(out.windows(2).all(|w| w[1].0 == w[0].1 + 1));
        // Few frames: one interval each, unchanged.
        let short = intervals(&lows[..500], &highs[..500], axis((0.0, 499.0)));
        let each: Vec<_> = (0..500).map(|i| (i as u64, i as u64, lows[i].1, highs[i].1)).collect();
        assert_eq!(short, each);
    }

    #[test]
    fn non_finite_values_are_not_drawn() {
        let values = [(0, 1.0), (1, f64::NAN), (2, f64::INFINITY), (3, 2.0)];
        assert_eq!(decimate(&values, |f| f as f32), [(0, 1.0), (3, 2.0)]);
    }
}
