//! [`ReportStream`] (frames written as they come, metrics pooled on the
//! fly) writes the same bytes as [`Report`] built from the whole table, in
//! every format, with subsampling, non-finite and 16-digit values, and
//! frames that lack values.

use std::io::Cursor;

use vqscope_metrics::report::{Format, Report, ReportStream};

const FORMATS: [Format; 4] = [Format::Xml, Format::Json, Format::Csv, Format::Sub];

fn table(n: usize, cols: usize, seed: u64) -> Vec<Vec<f64>> {
    let mut state = seed | 1;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    (0..n)
        .map(|i| {
            (0..cols)
                .map(|_| {
                    let r = next();
                    match r % 11 {
                        0 => f64::NAN,
                        1 => f64::INFINITY,
                        2 => 1e-8 * (r % 7) as f64,
                        3 => 3.0000001,
                        _ => (r >> 11) as f64 / (1u64 << 53) as f64 * 100.0 + i as f64,
                    }
                })
                .collect()
        })
        .collect()
}

fn names() -> Vec<String> {
    ["VMAF_integer_feature_adm2_score", "integer_motion2", "psnr_y", "vmaf"]
        .iter()
        .map(|s| s.to_string())
        .collect()
}

fn aggregate() -> Vec<(String, f64)> {
    vec![("apsnr_y".into(), 41.5), ("x".into(), f64::NAN)]
}

fn streamed(names: &[String], rows: &[Vec<f64>], subsample: usize, format: Format) -> String {
    let mut s = ReportStream::new(format, subsample as u64, Cursor::new(Vec::new()));
    for row in rows {
        s.push(names, row).unwrap();
    }
    assert_eq!(s.frame_count(), rows.len() as u64);
    let mut out = Vec::new();
    s.finish("3.2.0", 12.345, (64, 48), &aggregate(), &mut out).unwrap();
    String::from_utf8(out).unwrap()
}

fn whole(names: &[String], rows: &[Vec<f64>], subsample: usize, format: Format) -> String {
    let mut r = Report::from_table("3.2.0", 12.345, (64, 48), names, rows, subsample);
    r.aggregate = aggregate();
    r.render(format)
}

#[test]
fn streamed_report_is_byte_identical() {
    let names = names();
    for (n, subsample) in [(1, 1), (2, 1), (37, 1), (37, 3), (100, 7), (5, 10)] {
        let rows = table(n, names.len(), 42 + n as u64);
        for format in FORMATS {
            let (a, b) = (
                streamed(&names, &rows, subsample, format),
                whole(&names, &rows, subsample, format),
            );
            assert_eq!(a, b, "{n} frames, subsample {subsample}, {format:?}");
        }
    }
}

#[test]
fn short_rows_write_fewer_values_and_no_pooled_value() {
    let names = names();
    let mut rows = table(9, names.len(), 7);
    rows[4].truncate(2);
    rows[6].clear();
    for format in FORMATS {
        assert_eq!(
            streamed(&names, &rows, 1, format),
            whole(&names, &rows, 1, format),
            "{format:?}"
        );
    }
    // Pooling: a frame without a value leaves its metric unpooled.
    rows[6] = table(1, names.len(), 8).remove(0);
    let mut s = ReportStream::<Cursor<Vec<u8>>>::pool_only(1);
    for row in &rows {
        s.push(&names, row).unwrap();
    }
    let pooled = s.pooled();
    assert!(pooled[0].pooled.is_some() && pooled[1].pooled.is_some());
    assert_eq!((pooled[2].pooled, pooled[3].pooled), (None, None));
    assert_eq!(s.pooled_mean("vmaf"), None);
    assert_eq!(s.pooled_mean("nosuch"), None);
}

#[test]
fn pooled_means_match_the_table() {
    let names = names();
    let rows = table(50, names.len(), 3);
    for subsample in [1, 4] {
        let r = Report::from_table("v", 1.0, (2, 2), &names, &rows, subsample);
        let mut s = ReportStream::<Cursor<Vec<u8>>>::pool_only(subsample as u64);
        for row in &rows {
            s.push(&names, row).unwrap();
        }
        assert_eq!(format!("{:?}", s.pooled()), format!("{:?}", r.pooled));
        let mean = r.pooled[2].pooled.map(|p| p.mean);
        assert_eq!(s.pooled_mean("psnr_y").map(f64::to_bits), mean.map(f64::to_bits));
    }
}
