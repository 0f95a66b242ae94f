//! `vqscope bench decode -r REF -d DIS [--decode gpu]`: how fast each input
//! of a pair is decoded and handed over as frames, one input at a time and
//! without scoring: the decoder's own rate (ffmpeg's, or the device's with
//! its GOPs side by side; `VQSCOPE_DECODE_WORKERS` caps those), to
//! set beside what `score` reaches on the same pair.

use std::time::Instant;

use anyhow::{Result, bail};
use vqscope_video::open_input;

use crate::dashboard::OpenArgs;
use crate::dashboard::source::Source;
use crate::output::outln;

pub fn run(open: &OpenArgs) -> Result<()> {
    let inputs = open.inputs()?;
    let (Source::File(reference), Source::File(distorted)) = (&inputs.reference, &inputs.distorted)
    else {
        bail!("bench decode needs -r REF and -d DIS");
    };
    for path in [reference, distorted] {
        let started = Instant::now();
        let mut source = open_input(path, inputs.raw)?;
        let opened = started.elapsed().as_secs_f64();
        let mut frames = 0u64;
        while source.next_frame()?.is_some() {
            frames += 1;
        }
        let seconds = started.elapsed().as_secs_f64();
        let by = source.decoded_by().map_or("read as is".to_string(), |by| by.to_string());
        outln!(
            "{}: {frames} frames in {seconds:.3} s (opening {opened:.3} s, then {:.0} frames/s); {by}",
            path.display(),
            frames as f64 / (seconds - opened).max(1e-9),
        )?;
    }
    Ok(())
}
