//! The VMAF model, pooling and report writers against libvmaf 3.2's own
//! output: libvmaf's per-frame features, fed into our `vmaf_v0.6.1`, must
//! give libvmaf's printed scores; our writers, fed libvmaf's values, must
//! print libvmaf's report.
//!
//! The features in libvmaf's JSON are printed with six decimals, so our
//! model sees inputs up to 5e-7 away from the ones libvmaf used. Where that
//! moves a printed score digit, the test does not loosen: it computes the
//! exact range of scores the rounded inputs allow (the model is smooth, so
//! over a box of half-width 5e-7 its extremes lie on the 64 corners) and
//! accepts the frame only when libvmaf's printed value is reachable from
//! that box; every such frame is counted and printed.

use vqscope_metrics::model::Model;
use vqscope_metrics::pool::{Pooled, pool};
use vqscope_metrics::report::{Format, FrameScores, PooledMetric, Report};
use vqscope_tests::clips::{PAIRS, libvmaf_frames, libvmaf_json, printed, shared_dir};

/// libvmaf's names for the v0.6.1 inputs, in model order.
const INPUTS: [&str; 6] = [
    "integer_adm2",
    "integer_motion2",
    "integer_vif_scale0",
    "integer_vif_scale1",
    "integer_vif_scale2",
    "integer_vif_scale3",
];

const FIXTURES: [&str; 3] =
    ["src01_576x324_420p10", "sparks_480x270_420p10", "src01_q160x90_420p8"];

fn fixture_json(name: &str) -> serde_json::Value {
    let path = shared_dir().join("upstream_fixtures").join(format!("{name}.vmaf.json"));
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("parsing {}: {e}", path.display()))
}

/// Half a unit in the sixth decimal: how far a printed input may be from
/// the value libvmaf computed with.
const HALF_ULP6: f64 = 5e-7;

/// The lowest and highest score reachable from inputs within the rounding
/// box around `x` (inputs printed as exactly 0 are exact: motion2 of frame
/// 0 is 0 by definition, not by rounding).
fn score_range(model: &Model, x: &[f64]) -> (f64, f64) {
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    for corner in 0..(1u32 << x.len()) {
        let y: Vec<f64> = x
            .iter()
            .enumerate()
            .map(|(i, &v)| {
                if v == 0.0 {
                    v
                } else if corner & (1 << i) != 0 {
                    v + HALF_ULP6
                } else {
                    v - HALF_ULP6
                }
            })
            .collect();
        let s = model.predict(&y);
        lo = lo.min(s);
        hi = hi.max(s);
    }
    (lo, hi)
}

/// Whether a value printed as `p` (i.e. in [p - 5e-7, p + 5e-7]) can lie in
/// [lo, hi].
fn reachable(p: f64, (lo, hi): (f64, f64)) -> bool {
    p + HALF_ULP6 >= lo && p - HALF_ULP6 <= hi
}

#[derive(Default)]
struct Tally {
    frames: usize,
    exact: usize,
    explained: Vec<String>,
    unexplained: Vec<String>,
    /// Widest score range the rounded inputs allow, and the largest
    /// difference between our score and libvmaf's printed one.
    widest: f64,
    largest_diff: f64,
    outside: Vec<String>,
}

fn check(label: &str, json: &serde_json::Value, model: &Model, tally: &mut Tally) {
    let columns: Vec<Vec<f64>> = INPUTS.iter().map(|k| libvmaf_frames(json, k)).collect();
    let theirs = libvmaf_frames(json, "vmaf");
    let n = theirs.len();
    assert!(n > 0, "{label}: no frames");
    let mut ours = Vec::with_capacity(n);
    let mut lows = Vec::with_capacity(n);
    let mut highs = Vec::with_capacity(n);
    for (i, &want) in theirs.iter().enumerate() {
        let x: Vec<f64> = columns.iter().map(|c| c[i]).collect();
        let got = model.predict(&x);
        let range = score_range(model, &x);
        ours.push(got);
        lows.push(range.0);
        highs.push(range.1);
        tally.frames += 1;
        tally.widest = tally.widest.max(range.1 - range.0);
        tally.largest_diff = tally.largest_diff.max((got - want).abs());
        if !(range.0 <= got && got <= range.1) {
            tally.outside.push(format!("{label} frame {i}"));
        }
        if printed(got) == printed(want) {
            tally.exact += 1;
        } else if reachable(want, range) {
            tally.explained.push(format!(
                "{label} frame {i}: ours {} libvmaf {} (inputs allow [{:.9}, {:.9}])",
                printed(got),
                printed(want),
                range.0,
                range.1
            ));
        } else {
            tally.unexplained.push(format!(
                "{label} frame {i}: ours {} libvmaf {} (inputs allow only [{:.9}, {:.9}])",
                printed(got),
                printed(want),
                range.0,
                range.1
            ));
        }
    }

    // Pooled: every method is monotone in each frame's score, so pooling the
    // per-frame extremes bounds what the rounded inputs allow.
    let ours_p = pool(&ours).unwrap();
    let (lo_p, hi_p) = (pool(&lows).unwrap(), pool(&highs).unwrap());
    let want_p = &json["pooled_metrics"]["vmaf"];
    for (key, get) in [
        ("min", (|p: &Pooled| p.min) as fn(&Pooled) -> f64),
        ("max", |p| p.max),
        ("mean", |p| p.mean),
        ("harmonic_mean", |p| p.harmonic_mean),
    ] {
        let want = want_p[key].as_f64().expect("pooled vmaf value");
        let got = get(&ours_p);
        let range = (get(&lo_p), get(&hi_p));
        let line = format!(
            "{label} pooled {key}: ours {} libvmaf {} (inputs allow [{:.9}, {:.9}])",
            printed(got),
            printed(want),
            range.0,
            range.1
        );
        if printed(got) == printed(want) {
            tally.exact += 1;
        } else if reachable(want, range) {
            tally.explained.push(line);
        } else {
            tally.unexplained.push(line);
        }
        tally.frames += 1;
    }
}

#[test]
fn vmaf_v061_reproduces_libvmaf_scores() {
    let model = Model::builtin("vmaf_v0.6.1").expect("built-in model");
    let names: Vec<&str> = model
        .features()
        .iter()
        .map(|f| vqscope_metrics::report::feature_name_alias(&f.name))
        .collect();
    assert_eq!(names, INPUTS, "model feature order");

    let mut tally = Tally::default();
    for pair in PAIRS {
        check(pair, &libvmaf_json(pair, "vmaf"), &model, &mut tally);
    }
    for fixture in FIXTURES {
        check(fixture, &fixture_json(fixture), &model, &mut tally);
    }
    eprintln!(
        "model parity: {} values (frames + pooled), {} print identically, {} differ only \
         within input rounding, {} unexplained; largest |ours - libvmaf| {:.3e}, widest range \
         the 6-digit inputs allow {:.3e}",
        tally.frames,
        tally.exact,
        tally.explained.len(),
        tally.unexplained.len(),
        tally.largest_diff,
        tally.widest
    );
    for line in &tally.explained {
        eprintln!("  explained by 6-digit inputs: {line}");
    }
    assert!(
        tally.unexplained.is_empty(),
        "scores libvmaf's printed inputs cannot produce:\n{}",
        tally.unexplained.join("\n")
    );
    // The explanation must not be vacuous: the box the rounded inputs allow
    // has to stay narrow (it is about ±1.8e-4 VMAF here), and our score must
    // sit inside it, not merely near libvmaf's.
    assert!(
        tally.widest < 1e-3,
        "input rounding allows a range {} wide: too loose to check anything",
        tally.widest
    );
    assert!(
        tally.outside.is_empty(),
        "our score outside its own box:\n{}",
        tally.outside.join("\n")
    );
}

/// The NEG model is the same SVM; it must load with its extractor options.
#[test]
fn neg_model_exposes_gain_limits() {
    let neg = Model::builtin("vmaf_v0.6.1neg").unwrap();
    assert_eq!(neg.features()[0].option_f64("adm_enhn_gain_limit"), Some(1.0));
    for f in &neg.features()[2..] {
        assert_eq!(f.option_f64("vif_enhn_gain_limit"), Some(1.0));
    }
}

// ---------------------------------------------------------------------------
// Reports.

/// The metrics of each frame and the pooled block of a libvmaf JSON report,
/// in file order, read from the text (serde_json's map would sort keys).
/// Values are kept as the printed strings.
struct Layout {
    frames: Vec<(u32, Vec<(String, String)>)>,
    pooled: Vec<(String, Vec<(String, String)>)>,
}

fn key_value(line: &str) -> Option<(String, String)> {
    let rest = line.trim_start().strip_prefix('"')?;
    let (key, value) = rest.split_once("\": ")?;
    Some((key.to_owned(), value.trim_end_matches(',').to_owned()))
}

fn layout(text: &str) -> Layout {
    let mut out = Layout { frames: Vec::new(), pooled: Vec::new() };
    let mut section = "";
    for line in text.lines() {
        match line {
            "  \"frames\": [" => section = "frames",
            "  \"pooled_metrics\": {" => section = "pooled",
            "  \"aggregate_metrics\": {" => section = "",
            _ => {}
        }
        let indent = line.len() - line.trim_start().len();
        match (section, indent) {
            ("frames", 6) if line.contains("\"frameNum\"") => {
                let (_, n) = key_value(line).unwrap();
                out.frames.push((n.parse().unwrap(), Vec::new()));
            }
            ("frames", 8) => out.frames.last_mut().unwrap().1.push(key_value(line).unwrap()),
            ("pooled", 4) if line.ends_with('{') => {
                let name = line.trim().trim_start_matches('"');
                let name = name.split_once('"').unwrap().0.to_owned();
                out.pooled.push((name, Vec::new()));
            }
            ("pooled", 6) => out.pooled.last_mut().unwrap().1.push(key_value(line).unwrap()),
            _ => {}
        }
    }
    out
}

fn report_from_layout(l: &Layout, fps: f64) -> Report {
    let num = |s: &str| s.parse::<f64>().unwrap_or_else(|_| panic!("{s}"));
    Report {
        version: "3.2.0".to_owned(),
        fps,
        width: 576,
        height: 324,
        frames: l
            .frames
            .iter()
            .map(|(i, m)| FrameScores {
                index: *i,
                metrics: m.iter().map(|(k, v)| (k.clone(), num(v))).collect(),
            })
            .collect(),
        pooled: l
            .pooled
            .iter()
            .map(|(name, m)| {
                let get = |k: &str| num(&m.iter().find(|(key, _)| key == k).unwrap().1);
                PooledMetric {
                    name: name.clone(),
                    pooled: Some(Pooled {
                        min: get("min"),
                        max: get("max"),
                        mean: get("mean"),
                        harmonic_mean: get("harmonic_mean"),
                    }),
                }
            })
            .collect(),
        aggregate: Vec::new(),
    }
}

fn without_fps(text: &str) -> String {
    text.lines()
        .filter(|l| !l.starts_with("  \"fps\": ") && !l.starts_with("  <fyi fps="))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Writing libvmaf's own values back gives libvmaf's JSON, byte for byte
/// apart from the wall-clock `fps`.
#[test]
fn json_report_round_trips_libvmaf_output() {
    for pair in PAIRS {
        let path = shared_dir().join("clips").join(format!("{pair}.vmaf.json"));
        let text = std::fs::read_to_string(&path).unwrap();
        let l = layout(&text);
        // The layout reader must have seen what serde sees.
        let json = libvmaf_json(pair, "vmaf");
        assert_eq!(l.frames.len(), json["frames"].as_array().unwrap().len());
        assert_eq!(l.frames[0].1.len(), json["frames"][0]["metrics"].as_object().unwrap().len());
        assert_eq!(l.pooled.len(), json["pooled_metrics"].as_object().unwrap().len());
        let fps = json["fps"].as_f64().unwrap();

        let ours = report_from_layout(&l, fps).render(Format::Json);
        assert_eq!(without_fps(&ours), without_fps(&text), "{pair}");
        assert_eq!(ours.len(), text.len(), "{pair}: the fps line too");
    }
}

/// XML, CSV and subtitle reports carry the same names, order and printed
/// values as libvmaf's JSON, in libvmaf's layouts.
#[test]
fn other_formats_match_json_content() {
    let pair = "rocket_576x324_420p8_x264crf35";
    let text =
        std::fs::read_to_string(shared_dir().join("clips").join(format!("{pair}.vmaf.json")))
            .unwrap();
    let l = layout(&text);
    let report = report_from_layout(&l, 13.99);

    let xml = report.render(Format::Xml);
    let lines: Vec<&str> = xml.lines().collect();
    assert_eq!(lines[0], "<VMAF version=\"3.2.0\">");
    assert_eq!(lines[1], "  <params qualityWidth=\"576\" qualityHeight=\"324\" />");
    assert_eq!(lines[2], "  <fyi fps=\"13.99\" />");
    assert_eq!(lines[3], "  <frames>");
    for (k, (i, metrics)) in l.frames.iter().enumerate() {
        let mut want = format!("    <frame frameNum=\"{i}\" ");
        for (name, value) in metrics {
            want.push_str(&format!("{name}=\"{value}\" "));
        }
        want.push_str("/>");
        assert_eq!(lines[4 + k], want);
    }
    let after = 4 + l.frames.len();
    assert_eq!(lines[after], "  </frames>");
    assert_eq!(lines[after + 1], "  <pooled_metrics>");
    let vmaf_line = lines.iter().find(|l| l.starts_with("    <metric name=\"vmaf\" ")).unwrap();
    assert_eq!(
        *vmaf_line,
        "    <metric name=\"vmaf\" min=\"67.164924\" max=\"75.595353\" mean=\"72.517701\" \
         harmonic_mean=\"72.421660\" />"
    );
    assert_eq!(lines[lines.len() - 2], "  <aggregate_metrics />");
    assert_eq!(lines[lines.len() - 1], "</VMAF>");

    let csv = report.render(Format::Csv);
    let mut rows = csv.lines();
    let mut header = String::from("Frame,");
    for (name, _) in &l.pooled {
        header.push_str(name);
        header.push(',');
    }
    assert_eq!(rows.next().unwrap(), header);
    for (i, metrics) in &l.frames {
        let mut want = format!("{i},");
        for (_, value) in metrics {
            want.push_str(value);
            want.push(',');
        }
        assert_eq!(rows.next().unwrap(), want);
    }
    assert_eq!(rows.next(), None);

    let sub = report.render(Format::Sub);
    let first = sub.lines().next().unwrap();
    assert!(first.starts_with("{0}{1}frame: 0|psnr_y: 34.487870|psnr_cb: 39.331515|"), "{first}");
    assert!(first.ends_with("|vmaf: 74.064018|"), "{first}");
    assert_eq!(sub.lines().count(), l.frames.len());
}

/// The pooled block of libvmaf's tools/README example (v0.6.1 on the
/// classic src01 pair), and its empty aggregate element.
#[test]
fn xml_pooled_line_matches_libvmaf_readme_example() {
    let report = Report {
        version: "e1d466c".to_owned(),
        fps: 41.98,
        width: 576,
        height: 324,
        frames: Vec::new(),
        pooled: vec![PooledMetric {
            name: "vmaf".to_owned(),
            pooled: Some(Pooled {
                min: 71.176557,
                max: 87.18142,
                mean: 76.668905,
                harmonic_mean: 76.510006,
            }),
        }],
        aggregate: Vec::new(),
    };
    let xml = report.render(Format::Xml);
    let want = "<VMAF version=\"e1d466c\">\n  <params qualityWidth=\"576\" qualityHeight=\"324\" />\n  \
                <fyi fps=\"41.98\" />\n  <frames>\n  </frames>\n  <pooled_metrics>\n    \
                <metric name=\"vmaf\" min=\"71.176557\" max=\"87.181420\" mean=\"76.668905\" \
                harmonic_mean=\"76.510006\" />\n  </pooled_metrics>\n  <aggregate_metrics />\n</VMAF>\n";
    assert_eq!(xml, want);
}

/// `Report::from_table` with subsampling writes frames 0, n, 2n... under
/// their own numbers and pools only those, as libvmaf does.
#[test]
fn subsampled_table() {
    let names = vec!["vmaf".to_owned()];
    let frames: Vec<Vec<f64>> = [50.0, 1.0, 70.0, 1.0, 60.0].iter().map(|&v| vec![v]).collect();
    let r = Report::from_table("3.2.0", 1.0, (2, 2), &names, &frames, 2);
    let idx: Vec<u32> = r.frames.iter().map(|f| f.index).collect();
    assert_eq!(idx, [0, 2, 4]);
    let p = r.pooled[0].pooled.unwrap();
    assert_eq!((p.min, p.max, p.mean), (50.0, 70.0, 60.0));
    let json = r.render(Format::Json);
    assert!(json.contains("\"frameNum\": 2,"));
    assert!(!json.contains("\"frameNum\": 1,"));
}
