//! libvmaf's `heatmaps_path`: every scale's c-value map of every distorted
//! frame, written to one file per scale as raw 16-bit samples.
//!
//! What libvmaf 3.2.0 does, and so what this does:
//!
//! - the directory is created with its parents (mode 0770 before the
//!   umask), an existing one is fine;
//! - one file per scale, `cambi_heatmap_scale_{s}_{w}x{h}_16b.gray`, where
//!   `w`x`h` is the working (encode) size halved, rounding up, once per
//!   scale. The names do not follow `cambi_high_res_speedup`: with it every
//!   scale is half the size its name says (scale 0 is already decimated);
//! - frame `i` of a scale's `w'`x`h'` map (its real size) lies at byte
//!   `i·w'·h'·2`, rows top to bottom, each sample a little-endian (the
//!   host's order; every host vqscope runs on) `u16`, so frames never
//!   scored (skipped by `--subsample`) read as zeros;
//! - sample = `(uint16_t)(c · 65535.0 / max_c)`, the product in double,
//!   where `max_c = max_weight · window² / 4` in integers: the weight of
//!   the largest contrast step in use and the working window. With
//!   `max_log_contrast` 0 or 1 a c-value can exceed `max_c` a little (the
//!   window's area is odd); libvmaf's out-of-range conversion then keeps
//!   the low 16 bits of the integer (as on x86-64 and AArch64), and so
//!   does [`sample`];
//! - only the distorted picture: with `full_ref` the reference writes none;
//! - only the frames libvmaf scores: with `--subsample n` those whose index
//!   is a multiple of `n`.
//!
//! One difference: libvmaf opens the files for writing, truncating files
//! of those names; vqscope refuses when any of them exists (it does not
//! overwrite files without being asked), before creating any.

use std::fs::File;
use std::io::{Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use super::cvalues::CONTRAST_WEIGHTS;
use super::{Cambi, NUM_SCALES};
use crate::MetricsError;

/// The file name of scale `scale` for a `width`x`height` working size.
pub fn file_name(scale: usize, width: usize, height: usize) -> String {
    let (mut w, mut h) = (width, height);
    for _ in 0..scale {
        (w, h) = ((w + 1) >> 1, (h + 1) >> 1);
    }
    format!("cambi_heatmap_scale_{scale}_{w}x{h}_16b.gray")
}

/// libvmaf's `max_c_value`, the c-value its dump maps to 65535: the
/// weight of the largest of `num_diffs` contrast steps times a quarter of
/// the window's area, in integers (nearly the largest c-value possible).
pub fn max_c_value(window: u16, num_diffs: u16) -> i32 {
    let steps = usize::from(num_diffs).clamp(1, CONTRAST_WEIGHTS.len());
    let max_weight = CONTRAST_WEIGHTS[..steps].iter().copied().max().unwrap_or(1);
    let window = i32::from(window);
    max_weight * window * window / 4
}

/// libvmaf's `scaling_value`: 65535 over [`max_c_value`].
pub fn scaling(cambi: &Cambi) -> f64 {
    let max_c = max_c_value(cambi.window(), cambi.contrast().num_diffs);
    f64::from(u16::MAX) / f64::from(max_c)
}

/// One sample of the dump: the c-value scaled in double and truncated, an
/// out-of-range product keeping its integer's low 16 bits (module docs).
pub fn sample(c: f32, scaling: f64) -> u16 {
    (scaling * f64::from(c)) as i32 as u16
}

/// The open files of one `cambi` instance's dump.
pub struct Heatmaps {
    files: Vec<(PathBuf, File)>,
    /// The real size of each scale's maps.
    sizes: [(usize, usize); NUM_SCALES],
    scaling: f64,
    /// Only frames whose index is a multiple of this are written.
    subsample: u64,
}

impl Heatmaps {
    /// Creates `dir` (with parents) and the five files, refusing (before
    /// creating any) when one of them exists; frames whose index is not a
    /// multiple of `subsample` will not be written.
    pub fn create(dir: &Path, cambi: &Cambi, subsample: u64) -> Result<Self, MetricsError> {
        let fail = |path: &Path, reason: String| MetricsError::Heatmap {
            path: path.to_path_buf(),
            reason,
        };
        let mut builder = std::fs::DirBuilder::new();
        builder.recursive(true);
        #[cfg(unix)]
        std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o770);
        builder.create(dir).map_err(|e| fail(dir, format!("cannot create the directory: {e}")))?;
        let working = cambi.working(false);
        let paths: Vec<PathBuf> = (0..NUM_SCALES)
            .map(|s| dir.join(file_name(s, working.width, working.height)))
            .collect();
        if let Some(existing) = paths.iter().find(|p| p.symlink_metadata().is_ok()) {
            return Err(fail(
                existing,
                "already exists; vqscope does not overwrite files (libvmaf would truncate it): \
                 remove it or choose another directory"
                    .to_owned(),
            ));
        }
        let files = paths
            .into_iter()
            .map(|path| match File::create_new(&path) {
                Ok(file) => Ok((path, file)),
                Err(e) => Err(fail(&path, format!("cannot create: {e}"))),
            })
            .collect::<Result<_, _>>()?;
        Ok(Self {
            files,
            sizes: cambi.scale_sizes(false),
            scaling: scaling(cambi),
            subsample: subsample.max(1),
        })
    }

    /// Floats of one frame's maps, every scale back to back.
    pub fn frame_floats(&self) -> usize {
        self.sizes.iter().map(|(w, h)| w * h).sum()
    }

    /// Writes frame `index`'s maps, `c_values` holding every scale's
    /// row-major map back to back ([`Heatmaps::frame_floats`] of them).
    pub fn write_frame(&mut self, index: u64, c_values: &[f32]) -> Result<(), MetricsError> {
        assert_eq!(c_values.len(), self.frame_floats(), "one frame's c-value maps");
        if !index.is_multiple_of(self.subsample) {
            return Ok(());
        }
        let mut rest = c_values;
        for ((path, file), &(w, h)) in self.files.iter_mut().zip(&self.sizes) {
            let (map, next) = rest.split_at(w * h);
            rest = next;
            let bytes: Vec<u8> =
                map.iter().flat_map(|&c| sample(c, self.scaling).to_le_bytes()).collect();
            let at = index * bytes.len() as u64;
            file.seek(SeekFrom::Start(at)).and_then(|_| file.write_all(&bytes)).map_err(|e| {
                MetricsError::Heatmap {
                    path: path.clone(),
                    reason: format!("cannot write frame {index}: {e}"),
                }
            })?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::features::cambi::CambiOptions;

    /// libvmaf's names: the working size halved rounding up per scale.
    #[test]
    fn names_halve_rounding_up() {
        assert_eq!(file_name(0, 1921, 1081), "cambi_heatmap_scale_0_1921x1081_16b.gray");
        assert_eq!(file_name(1, 1921, 1081), "cambi_heatmap_scale_1_961x541_16b.gray");
        assert_eq!(file_name(4, 1921, 1081), "cambi_heatmap_scale_4_121x68_16b.gray");
    }

    /// At 576x324 the window is 9 (see `window_sizes`): with the default
    /// four contrast steps the largest weight is 4, `max_c` = 4·81/4 = 81;
    /// with one step (weight 1) 81/4 = 20 in integers.
    #[test]
    fn scaling_by_hand() {
        let c = Cambi::new(&CambiOptions::default(), 576, 324, 8).unwrap();
        assert_eq!(scaling(&c), 65535.0 / 81.0);
        let one = CambiOptions { max_log_contrast: 0, ..Default::default() };
        let c = Cambi::new(&one, 576, 324, 8).unwrap();
        assert_eq!(scaling(&c), 65535.0 / 20.0);
    }

    /// Truncation, and the low 16 bits past the top: 20.25·65535/20 =
    /// 66354.1875, whose integer 66354 keeps 66354 − 65536 = 818.
    #[test]
    fn samples_truncate_and_wrap() {
        let s = 65535.0 / 81.0;
        assert_eq!(sample(0.0, s), 0);
        // The rounded scale times 81 is 65534.99999999999 in double (as in
        // C: checked with gcc), so even the top truncates to 65534.
        assert_eq!(sample(81.0, s), 65534);
        assert_eq!(sample(1.0, s), 809); // 809.07…
        assert_eq!(sample(20.25, 65535.0 / 20.0), 818);
    }
}
