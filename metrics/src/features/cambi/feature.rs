//! `cambi` on the registry: libvmaf's CAMBI extractor with its options
//! (option-suffixed `cambi…` output; with `full_ref` also `cambi_source`
//! and `cambi_full_reference`, which libvmaf never suffixes). With
//! `heatmaps_path` the distorted picture's c-value maps come back with the
//! scores and are written as libvmaf writes them ([`super::heatmap`]).

use std::path::Path;

use vqscope_gpu::{Buffer, Recorder, Timestamps};

use super::gpu::CambiKernel;
use super::heatmap::Heatmaps;
use super::{Cambi, CambiOptions, Eotf, FEATURE};
use crate::MetricsError;
use crate::features::{
    Column, Extractor, Feature, FeatureOptions, FramePlanes, FrameValues, OptionSpec, Setup,
};

/// The registry entry.
pub struct CambiFeature;

/// libvmaf's option table, in its order.
const OPTIONS: &[OptionSpec] = &[
    OptionSpec::double(
        "cambi_max_val",
        1000.0,
        0.0,
        1000.0,
        "maximum value allowed; larger values will be clipped to this value",
    )
    .param("cmxv"),
    OptionSpec::int("enc_width", 0, 180, 7680, "Encoding width").param("encw"),
    OptionSpec::int("enc_height", 0, 150, 7680, "Encoding height").param("ench"),
    OptionSpec::int("enc_bitdepth", 0, 6, 16, "Encoding bitdepth").param("encbd"),
    OptionSpec::int("src_width", 0, 320, 7680, "Source width. Only used when full_ref=true.")
        .param("srcw"),
    OptionSpec::int("src_height", 0, 200, 4320, "Source height. Only used when full_ref=true.")
        .param("srch"),
    OptionSpec::int(
        "window_size",
        65,
        15,
        127,
        "Window size to compute CAMBI: 65 corresponds to ~1 degree at 4k",
    )
    .param("ws"),
    OptionSpec::double(
        "topk",
        0.6,
        0.0001,
        1.0,
        "Ratio of pixels for the spatial pooling computation, must be 0 < topk <= 1.0",
    )
    .param("topk"),
    OptionSpec::double(
        "cambi_topk",
        0.6,
        0.0001,
        1.0,
        "Ratio of pixels for the spatial pooling computation, must be 0 < cambi_topk <= 1.0",
    )
    .param("ctpk"),
    OptionSpec::double(
        "tvi_threshold",
        0.019,
        0.0001,
        1.0,
        "Visibilty threshold for luminance ΔL < tvi_threshold*L_mean",
    )
    .param("tvit"),
    OptionSpec::double(
        "cambi_vis_lum_threshold",
        0.0,
        0.0,
        300.0,
        "Luminance value below which we assume any banding is not visible",
    )
    .param("vlt"),
    OptionSpec::int(
        "max_log_contrast",
        2,
        0,
        5,
        "Maximum contrast in log luma level (2^max_log_contrast) at 10-bits",
    )
    .param("mlc"),
    OptionSpec::text(
        "heatmaps_path",
        "Folder for the banding maps (unset: none; one 16-bit .gray file per scale, \
         created with the directory; vqscope refuses existing files, where libvmaf truncates \
         them)",
    ),
    OptionSpec::bool(
        "full_ref",
        false,
        "If true, CAMBI will be run in full-reference mode and will be computed on both the \
         reference and distorted inputs",
    ),
    OptionSpec::choice(
        "eotf",
        "bt1886",
        &Eotf::NAMES,
        "Determines the EOTF used to compute the visibility thresholds",
    )
    .param("eotf"),
    OptionSpec::choice(
        "cambi_eotf",
        "bt1886",
        &Eotf::NAMES,
        "Determines the EOTF used to compute the visibility thresholds; wins over eotf",
    )
    .param("ceot"),
    OptionSpec::int(
        "cambi_high_res_speedup",
        0,
        0,
        2160,
        "Speed up the processing by downsampling post spatial mask for resolutions >= 1080p",
    )
    .param("hrs"),
];

/// The twin's options from the registry's.
pub fn cambi_options(options: &FeatureOptions) -> CambiOptions {
    let eotf = |name| Eotf::from_name(options.choice(name)).unwrap_or(Eotf::Bt1886);
    let int = |name| options.int(name) as u32;
    CambiOptions {
        cambi_max_val: options.double("cambi_max_val"),
        enc_width: int("enc_width"),
        enc_height: int("enc_height"),
        enc_bitdepth: int("enc_bitdepth"),
        src_width: int("src_width"),
        src_height: int("src_height"),
        window_size: options.int("window_size") as u16,
        topk: options.double("topk"),
        cambi_topk: options.double("cambi_topk"),
        tvi_threshold: options.double("tvi_threshold"),
        cambi_vis_lum_threshold: options.double("cambi_vis_lum_threshold"),
        max_log_contrast: int("max_log_contrast"),
        full_ref: options.bool("full_ref"),
        eotf: eotf("eotf"),
        cambi_eotf: eotf("cambi_eotf"),
        cambi_high_res_speedup: int("cambi_high_res_speedup"),
    }
}

impl Feature for CambiFeature {
    fn name(&self) -> &'static str {
        FEATURE
    }

    fn options(&self) -> &'static [OptionSpec] {
        OPTIONS
    }

    fn provides(&self) -> &'static [&'static str] {
        &["Cambi_feature_cambi_score"]
    }

    #[cfg(test)]
    fn twins(&self) -> Vec<vqscope_shaders::twin::Twin> {
        super::gpu::twins()
    }

    fn build(
        &self,
        setup: &Setup<'_>,
        options: &FeatureOptions,
    ) -> Result<Box<dyn Extractor>, MetricsError> {
        let g = setup.geometry;
        let cambi = Cambi::new(
            &cambi_options(options),
            g.width as usize,
            g.height as usize,
            g.format.bit_depth,
        )?;
        let kernel = CambiKernel::new(setup.ctx, &cambi)?;
        let heatmaps = match options.text("heatmaps_path") {
            Some(dir) => Some(Heatmaps::create(Path::new(&*dir), &cambi, setup.subsample)?),
            None => None,
        };
        Ok(Box::new(CambiExtractor {
            kernel,
            name: options.output_name(FEATURE),
            heatmaps,
            failure: None,
        }))
    }
}

struct CambiExtractor {
    kernel: CambiKernel,
    /// The distorted score's name, option suffixes included.
    name: String,
    /// The `heatmaps_path` dump; its maps follow the kernel's words.
    heatmaps: Option<Heatmaps>,
    /// The first refused frame or failed heat-map write, for
    /// [`Extractor::take_failure`].
    failure: Option<MetricsError>,
}

impl CambiExtractor {
    /// Words of the heat-map floats after the kernel's (none without a dump).
    fn map_words(&self) -> u32 {
        self.heatmaps.as_ref().map_or(0, |_| self.kernel.maps_bytes().div_ceil(8) as u32)
    }
}

impl Extractor for CambiExtractor {
    fn columns(&self) -> Vec<Column> {
        let mut columns = vec![Column::new(self.name.clone())];
        if self.kernel.full_ref() {
            columns.push(Column::new("cambi_source".to_owned()));
            columns.push(Column::new("cambi_full_reference".to_owned()));
        }
        columns
    }

    fn result_words(&self) -> u32 {
        self.kernel.result_words() + self.map_words()
    }

    fn phases(&self) -> &'static [&'static str] {
        self.kernel.phases()
    }

    fn record(
        &self,
        rec: &mut Recorder<'_>,
        planes: &FramePlanes<'_>,
        out: &Buffer,
        offset_words: u32,
        stamps: Option<&Timestamps>,
    ) -> vqscope_gpu::Result<()> {
        let (r, d) = (&planes.reference[0], &planes.distorted[0]);
        let kernel_words = self.kernel.result_words();
        let maps =
            self.heatmaps.as_ref().map(|_| (out, u64::from(offset_words + kernel_words) * 8));
        match stamps {
            None => self.kernel.record_with_maps(rec, r, d, out, offset_words, maps),
            Some(stamps) => self.kernel.record_profiled(rec, r, d, out, offset_words, maps, stamps),
        }
    }

    fn frame(&mut self, index: u64, words: &[i64]) -> Vec<FrameValues> {
        let (words, maps) = words.split_at(self.kernel.result_words() as usize);
        if self.failure.is_none() {
            self.failure = self.kernel.out_of_range(index, words);
        }
        if let Some(heatmaps) = self.heatmaps.as_mut().filter(|_| self.failure.is_none()) {
            let floats: Vec<f32> = maps
                .iter()
                .flat_map(|w| w.to_le_bytes().chunks_exact(4).map(f32_le).collect::<Vec<_>>())
                .take(heatmaps.frame_floats())
                .collect();
            self.failure = heatmaps.write_frame(index, &floats).err();
        }
        let score = self.kernel.decode(words);
        let mut values = vec![score.cambi];
        values.extend(score.source);
        values.extend(score.full_reference);
        vec![(index, values)]
    }

    fn take_failure(&mut self) -> Option<MetricsError> {
        self.failure.take()
    }
}

/// A float from its 4 little-endian bytes.
fn f32_le(bytes: &[u8]) -> f32 {
    f32::from_le_bytes(bytes.try_into().expect("4 bytes"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn named(list: &str) -> String {
        let mut o = CambiFeature.default_options();
        o.parse_list(FEATURE, list).unwrap();
        o.output_name(FEATURE)
    }

    /// libvmaf's names for the option sets of the reference reports and
    /// of the pinned libvmaf runs (`vqscope_tests::cambi_parity`):
    /// parameters sorted by option name, printed by alias with `%g`;
    /// `full_ref` renames nothing.
    #[test]
    fn output_names_follow_libvmaf() {
        assert_eq!(named(""), "cambi");
        assert_eq!(named("full_ref=true"), "cambi");
        assert_eq!(
            named("cambi_high_res_speedup=1080:cambi_max_val=17:cambi_vis_lum_threshold=0.06"),
            "cambi_hrs_1080_cmxv_17_vlt_0.06"
        );
        assert_eq!(
            named("cambi_eotf=pq:max_log_contrast=5:tvi_threshold=0.01"),
            "cambi_ceot_pq_mlc_5_tvit_0.01"
        );
        assert_eq!(
            named("eotf=pq:max_log_contrast=0:topk=0.25:window_size=127"),
            "cambi_eotf_pq_mlc_0_topk_0.25_ws_127"
        );
        assert_eq!(
            named(
                "full_ref=true:enc_width=480:enc_height=270:src_width=640:src_height=360:\
                 enc_bitdepth=10"
            ),
            "cambi_encbd_10_ench_270_encw_480_srch_360_srcw_640"
        );
        assert_eq!(
            named(
                "enc_bitdepth=8:cambi_topk=0.9:window_size=15:tvi_threshold=0.05:\
                 cambi_vis_lum_threshold=5"
            ),
            "cambi_ctpk_0.9_vlt_5_encbd_8_tvit_0.05_ws_15"
        );
        assert_eq!(
            named("full_ref=true:cambi_high_res_speedup=1080:cambi_max_val=0.5"),
            "cambi_hrs_1080_cmxv_0.5"
        );
    }

    /// The registry's options reach the twin's, and libvmaf's ranges hold.
    #[test]
    fn options_map_to_the_twin() {
        let mut o = CambiFeature.default_options();
        assert_eq!(cambi_options(&o), CambiOptions::default());
        o.parse_list(FEATURE, "full_ref=true:eotf=pq:enc_bitdepth=8:topk=0.25:window_size=33")
            .unwrap();
        let c = cambi_options(&o);
        assert!(c.full_ref && c.eotf == Eotf::Pq && c.enc_bitdepth == 8);
        assert_eq!((c.topk, c.window_size), (0.25, 33));
        // A path is no feature parameter: it renames nothing; libvmaf's
        // numeric normalisation reaches it too.
        assert_eq!(o.text("heatmaps_path"), None);
        o.parse_list(FEATURE, "heatmaps_path=1.50").unwrap();
        assert_eq!(o.text("heatmaps_path").as_deref(), Some("1.5"));
        o.parse_list(FEATURE, "heatmaps_path=/tmp/maps").unwrap();
        assert_eq!(o.text("heatmaps_path").as_deref(), Some("/tmp/maps"));
        assert_eq!(o.output_name(FEATURE), "cambi_encbd_8_eotf_pq_topk_0.25_ws_33");
        for bad in ["enc_width=100", "eotf=hlg", "window_size=14", "heatmaps_path="] {
            assert!(o.parse_list(FEATURE, bad).is_err(), "{bad}");
        }
    }
}
