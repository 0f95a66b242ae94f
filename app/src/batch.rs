//! `vqscope batch MANIFEST`: many scoring jobs in one process, read from a
//! CSV or JSON manifest. Jobs are grouped by reference and each group runs
//! as one ladder ([`crate::ladder`]): the reference decoded once, one GPU
//! context for the whole manifest. A job that cannot run (a missing file,
//! another size, a model that does not load, an output it may not write)
//! fails on one line naming it; the others complete, and the command exits
//! non-zero if any job failed.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, Result, anyhow, bail};
use clap::Parser;
use serde::Deserialize;
use vqscope_metrics::report::Format;
use vqscope_video::PairOptions;

use crate::ladder::{Gpu, Options, Rendition};

#[derive(clap::Args)]
#[command(after_long_help = MANIFEST_HELP)]
pub struct Args {
    /// The manifest: a `.csv` or `.json` file listing the jobs (see below).
    manifest: PathBuf,
    /// No progress line.
    #[arg(short = 'q', long)]
    quiet: bool,
    #[command(flatten)]
    decode: crate::decode_arg::DecodeArg,
}

const MANIFEST_HELP: &str = "\
Manifest: one job per CSV row or JSON object. Fields:
  reference        reference input (y4m or anything ffmpeg reads)        required
  distorted        distorted input                                        required
  output           report file; its extension (.json .xml .csv .sub)
                   picks the format; none: only the pooled scores print
  model            --model specs, as for `vqscope score` (default vmaf_v0.6.1)
  feature          --feature specs, as for `vqscope score`
  scale_distorted  true: scale the distorted to the reference's size (ffmpeg bicubic)
  no_prediction    true: features only, no model (as -n)
Relative paths are relative to the manifest's folder. Jobs with the same
reference are scored together, the reference read once.

CSV: a header row naming the columns (any order, only those used), then a
row per job; several models or features in one cell are separated by `;`;
fields with commas are quoted (\"a,b\"); lines starting with # are skipped.
  reference,distorted,output,model
  src.y4m,enc_1080.mp4,out/enc_1080.json,
  src.y4m,enc_720.mp4,out/enc_720.json,version=vmaf_v0.6.1neg

JSON: an array of jobs (or {\"jobs\": [...]}); model and feature are a string
or an array of strings.
  [{\"reference\": \"src.y4m\", \"distorted\": \"enc_1080.mp4\", \"output\": \"out/1080.json\"},
   {\"reference\": \"src.y4m\", \"distorted\": \"enc_720.mp4\", \"feature\": [\"psnr\"]}]";

/// One job as the manifest states it.
#[derive(Debug, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
struct Job {
    #[serde(default)]
    reference: Option<PathBuf>,
    #[serde(default)]
    distorted: Option<PathBuf>,
    #[serde(default)]
    output: Option<PathBuf>,
    #[serde(default, alias = "models", deserialize_with = "one_or_many")]
    model: Vec<String>,
    #[serde(default, alias = "features", deserialize_with = "one_or_many")]
    feature: Vec<String>,
    #[serde(default)]
    scale_distorted: bool,
    #[serde(default)]
    no_prediction: bool,
}

/// A string or an array of strings.
fn one_or_many<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum OneOrMany {
        One(String),
        Many(Vec<String>),
    }
    Ok(match OneOrMany::deserialize(d)? {
        OneOrMany::One(s) => vec![s],
        OneOrMany::Many(v) => v,
    })
}

/// Reads the jobs of `text`, a `.json` or `.csv` manifest.
fn parse_manifest(path: &Path, text: &str) -> Result<Vec<Job>> {
    let ext = path.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase);
    match ext.as_deref() {
        Some("json") => {
            // An array of jobs, or an object holding it under "jobs".
            let mut value: serde_json::Value = serde_json::from_str(text)?;
            let jobs = match value.get_mut("jobs") {
                Some(jobs) => jobs.take(),
                None => value,
            };
            Ok(serde_json::from_value(jobs)?)
        }
        Some("csv") => parse_csv(text),
        _ => bail!("the manifest's name must end in .csv or .json"),
    }
}

/// The cells of one CSV line: comma-separated, a cell in double quotes may
/// hold commas and `""` for a quote.
fn csv_cells(line: &str) -> Result<Vec<String>> {
    let mut cells = vec![String::new()];
    let mut quoted = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        let cell = cells.last_mut().expect("never empty");
        match (c, quoted) {
            ('"', true) if chars.peek() == Some(&'"') => {
                chars.next();
                cell.push('"');
            }
            ('"', true) => quoted = false,
            ('"', false) if cell.trim().is_empty() => {
                cell.clear();
                quoted = true;
            }
            (',', false) => cells.push(String::new()),
            (c, _) => cell.push(c),
        }
    }
    if quoted {
        bail!("a quote is not closed");
    }
    Ok(cells.into_iter().map(|c| c.trim().to_owned()).collect())
}

/// A CSV manifest: a header row, then one job per row.
fn parse_csv(text: &str) -> Result<Vec<Job>> {
    let mut rows = text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty() && !l.trim_start().starts_with('#'));
    let Some((_, header)) = rows.next() else { return Ok(Vec::new()) };
    let columns = csv_cells(header).context("header row")?;
    for c in &columns {
        if !matches!(
            c.as_str(),
            "reference"
                | "distorted"
                | "output"
                | "model"
                | "feature"
                | "scale_distorted"
                | "no_prediction"
        ) {
            bail!("header row: unknown column `{c}`");
        }
    }
    let mut jobs = Vec::new();
    for (n, line) in rows {
        let at = || format!("line {}", n + 1);
        let cells = csv_cells(line).with_context(at)?;
        if cells.len() > columns.len() {
            bail!("{}: {} cells for {} columns", at(), cells.len(), columns.len());
        }
        let mut job = Job::default();
        for (column, cell) in columns.iter().zip(cells).filter(|(_, c)| !c.is_empty()) {
            let list = || cell.split(';').map(|s| s.trim().to_owned()).filter(|s| !s.is_empty());
            let flag = || match cell.to_ascii_lowercase().as_str() {
                "true" | "1" | "yes" => Ok(true),
                "false" | "0" | "no" => Ok(false),
                _ => Err(anyhow!("{}: {column} is true or false, not `{cell}`", at())),
            };
            match column.as_str() {
                "reference" => job.reference = Some(PathBuf::from(&cell)),
                "distorted" => job.distorted = Some(PathBuf::from(&cell)),
                "output" => job.output = Some(PathBuf::from(&cell)),
                "model" => job.model = list().collect(),
                "feature" => job.feature = list().collect(),
                "scale_distorted" => job.scale_distorted = flag()?,
                _ => job.no_prediction = flag()?,
            }
        }
        jobs.push(job);
    }
    Ok(jobs)
}

/// The report format an output's extension names.
fn format_of(output: &Path) -> Result<Format> {
    let ext = output.extension().and_then(|e| e.to_str()).unwrap_or_default();
    Format::from_extension(ext).ok_or_else(|| {
        anyhow!(
            "output {}: the name must end in .json, .xml, .csv or .sub (the report's format)",
            output.display()
        )
    })
}

/// A job checked and ready for its ladder: its reference and rendition.
fn prepare(
    job: &Job,
    folder: &Path,
    outputs: &mut BTreeMap<PathBuf, usize>,
    number: usize,
) -> Result<(PathBuf, Rendition)> {
    let at = |p: &Path| if p.is_absolute() { p.to_path_buf() } else { folder.join(p) };
    let reference = at(job.reference.as_deref().ok_or_else(|| anyhow!("no reference"))?);
    let distorted = at(job.distorted.as_deref().ok_or_else(|| anyhow!("no distorted"))?);
    // The models and features through `vqscope score`'s own flags, so a
    // job takes exactly what the command line takes.
    let mut argv: Vec<std::ffi::OsString> = vec!["vqscope".into(), "score".into()];
    argv.extend(["-r".into(), reference.clone().into(), "-d".into(), distorted.clone().into()]);
    for m in &job.model {
        argv.extend(["--model".into(), m.into()]);
    }
    for f in &job.feature {
        argv.extend(["--feature".into(), f.into()]);
    }
    if job.no_prediction {
        argv.push("--no_prediction".into());
    }
    let cli = crate::Cli::try_parse_from(argv).map_err(|e| {
        let message = e.to_string();
        let first = message.lines().next().unwrap_or_default();
        anyhow!("{}", first.trim_start_matches("error: "))
    })?;
    let Some(crate::Command::Score(args)) = cli.command else {
        bail!("not a score job");
    };
    let (selection, labels) = crate::score::selection(&args)?;
    let report = match &job.output {
        Some(output) => {
            let output = at(output);
            let format = format_of(&output)?;
            // A manifest's outputs may name folders of their own, as a
            // ladder's `-o` folder is made: make them (what blocks one is
            // reported by the check below).
            if let Some(folder) = output.parent().filter(|f| !f.as_os_str().is_empty()) {
                let _ = std::fs::create_dir_all(folder);
            }
            crate::output::check_report_path("output", &output, &[&reference, &distorted])?;
            if let Some(other) = outputs.insert(output.clone(), number) {
                bail!("output {} is job {other}'s too", output.display());
            }
            Some((output, format))
        }
        None => None,
    };
    let file = distorted.file_name().map_or_else(String::new, |f| f.to_string_lossy().into());
    let rendition = Rendition {
        name: format!("job {number} ({file})"),
        distorted,
        scale: job.scale_distorted,
        selection,
        labels,
        report,
    };
    Ok((reference, rendition))
}

/// Runs every job of the manifest.
pub fn run(args: Args, started: Instant) -> Result<()> {
    args.decode.apply()?;
    let text = std::fs::read_to_string(&args.manifest)
        .map_err(|e| anyhow!("{}: {e}", args.manifest.display()))?;
    let jobs = parse_manifest(&args.manifest, &text)
        .with_context(|| args.manifest.display().to_string())?;
    if jobs.is_empty() {
        bail!("{}: no jobs", args.manifest.display());
    }
    let folder = args.manifest.parent().unwrap_or(Path::new(""));
    let mut failed = 0;
    let say_failed = |name: &str, e: &anyhow::Error| {
        eprintln!("vqscope: {name}: {}", crate::one_line(e));
    };
    // Jobs by reference, in the order each reference first appears.
    let mut groups: Vec<(PathBuf, Vec<Rendition>)> = Vec::new();
    let mut outputs = BTreeMap::new();
    for (k, job) in jobs.iter().enumerate() {
        match prepare(job, folder, &mut outputs, k + 1) {
            Ok((reference, rendition)) => {
                // `ref.y4m` and `./ref.y4m` are one reference.
                let same = |p: &Path| {
                    p == reference
                        || std::fs::canonicalize(p)
                            .is_ok_and(|p| std::fs::canonicalize(&reference).is_ok_and(|r| p == r))
                };
                match groups.iter_mut().find(|g| same(&g.0)) {
                    Some(group) => group.1.push(rendition),
                    None => groups.push((reference, vec![rendition])),
                }
            }
            Err(e) => {
                failed += 1;
                say_failed(&format!("job {}", k + 1), &e);
            }
        }
    }
    let options =
        Options { raw: None, pair: PairOptions::default(), subsample: 1, quiet: args.quiet };
    let mut gpu = Gpu::default();
    let mut stdout_error = None;
    for (reference, renditions) in groups {
        let names: Vec<String> = renditions.iter().map(|r| r.name.clone()).collect();
        match crate::ladder::score(&mut gpu, &reference, renditions, &options, started) {
            Ok(results) => {
                failed += crate::ladder::print_results(&names, results, &mut stdout_error)
            }
            Err(e) => {
                failed += names.len();
                for name in &names {
                    say_failed(name, &e);
                }
            }
        }
    }
    if failed > 0 {
        bail!("{failed} of {} jobs failed", jobs.len());
    }
    if let Some(e) = stdout_error {
        return Err(e);
    }
    eprintln!("vqscope: {} jobs in {:.2} s", jobs.len(), started.elapsed().as_secs_f64());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_cells_take_quotes() {
        assert_eq!(csv_cells(r#"a, "b,c" ,"d""e","#).unwrap(), ["a", "b,c", "d\"e", ""]);
        assert!(csv_cells(r#"a,"b"#).is_err());
    }

    #[test]
    fn csv_rows_become_jobs() {
        let text = "# jobs\nreference,distorted,model,feature,scale_distorted\n\
                    r.y4m,d.y4m,version=vmaf_v0.6.1:name=a;version=vmaf_v0.6.1neg:name=b,,true\n\
                    \n\
                    r.y4m,e.y4m\n";
        let jobs = parse_csv(text).unwrap();
        assert_eq!(jobs.len(), 2);
        assert_eq!(jobs[0].model, ["version=vmaf_v0.6.1:name=a", "version=vmaf_v0.6.1neg:name=b"]);
        assert!(jobs[0].scale_distorted && jobs[0].feature.is_empty());
        assert_eq!(jobs[1].distorted.as_deref(), Some(Path::new("e.y4m")));
        assert!(parse_csv("reference,distorted,colour\n").is_err());
        assert!(parse_csv("reference\na,b\n").is_err());
    }

    #[test]
    fn json_takes_both_shapes() {
        let one = r#"[{"reference": "r", "distorted": "d", "feature": "psnr"}]"#;
        let two = r#"{"jobs": [{"reference": "r", "distorted": "d", "features": ["psnr"]}]}"#;
        let a = parse_manifest(Path::new("m.json"), one).unwrap();
        let b = parse_manifest(Path::new("m.json"), two).unwrap();
        assert_eq!(a, b);
        assert_eq!(a[0].feature, ["psnr"]);
        assert!(parse_manifest(Path::new("m.json"), r#"[{"referense": "r"}]"#).is_err());
    }
}
