//! The fused UI pass on the GPU: uploads an encoded scene, bins its
//! primitives into per-bin lists (256x256-pixel bins), splits those into
//! per-tile lists (16x16 pixels) and runs the fused tile shader into a
//! storage image, with a timestamp around each pass.
//!
//! Binning is four passes whose work grows with the bins and tiles each
//! primitive covers, not with bins x primitives: `ui/bin_count` counts the
//! entries each bin receives from each chunk of
//! [`CHUNK_PRIMS`](crate::encode::CHUNK_PRIMS) primitives; `ui/bin_scan`
//! turns each bin's counts into where each chunk's entries start (the
//! ordered compaction's prefix sum, in the [`ScanMode`] chosen);
//! `ui/bin_scatter` writes every entry at its chunk's start plus its rank
//! among the chunk's primitives in that bin, so every list stays in draw
//! order; `ui/bin_tiles` (one workgroup per bin) walks each bin's list and
//! writes every entry into the lists of the bin's tiles it overlaps, in
//! order, placing the tiles' lists with the same prefix sum. The fused pass
//! then reads only what its tile touches: with a million small primitives
//! a bin's list is thousands of entries, a tile's a few dozen.
//!
//! On a GPU, a scene of at most [`ONE_PASS_BINNING_PRIMS`] primitives (a dashboard)
//! is binned in one pass instead: `ui/bin_tiles` reads every primitive in
//! each bin's workgroup and writes the same tile lists without bin lists.
//! The three passes it skips cost such a scene more in launch latency and
//! barriers than the extra reads cost it.
//!
//! On a CPU driver the fused pass is specialised per scene without the
//! costly shading paths the scene cannot take ([`Shading`]): such a driver
//! runs every path of an image for each pixel, taken or not.

use std::sync::{Arc, OnceLock};

use vqscope_gpu::{
    Binding, Buffer, ComputePipeline, GpuContext, GpuError, Image, PipelineDesc, Recorder,
    Submitter, Timestamps, download_image, vk,
};

use crate::RenderError;
use crate::encode::{BIN_TILES, Encoded, ExternalCopy, TILE_SIZE, encode};
use crate::glyphs::{Font, GlyphAtlas};
use crate::scene::{MAX_EXTERNAL_MAPS, Scene};

/// How a workgroup computes an ordered compaction's prefix sum: binning
/// summing a bin's per-chunk counts (`ui/bin_scan`) and its tiles' counts
/// (`ui/bin_tiles`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ScanMode {
    /// `subgroupExclusiveAdd` plus a carry across subgroups.
    #[default]
    Subgroup,
    /// Lane 0 scans the keep bits serially: the baseline.
    Lane0,
}

impl ScanMode {
    /// The faster compaction on `ctx`'s device: on a CPU driver (lavapipe)
    /// the serial lane-0 scan (a loop over 256 counts is cheap on a CPU
    /// core, subgroup operations and their barriers are not), the subgroup
    /// scan on a GPU (1.1–2x faster on the H200 while the fused pass
    /// compacted its bin's list too; docs/PERF.md). Both give the same
    /// pixels.
    pub fn for_device(ctx: &GpuContext) -> Self {
        if ctx.info().device_type == vk::PhysicalDeviceType::CPU {
            ScanMode::Lane0
        } else {
            ScanMode::Subgroup
        }
    }

    fn constant(self) -> u32 {
        match self {
            ScanMode::Subgroup => 0,
            ScanMode::Lane0 => 1,
        }
    }
}

/// Scenes of at most this many primitives are binned in one pass
/// ([`Renderer::bins_in_one_pass`]): three chunks of `ui/bin_tiles`' 768
/// entries. On the H100 the three passes that build bin lists cost the 4K
/// dashboard (1,892 primitives, 8 chunks of 256) 0.033 ms, mostly launch
/// latency and barriers; reading every primitive in each bin's workgroup
/// instead adds a few chunks to each bin's serial walk. Past a few chunks
/// that walk grows with the scene while the passes' own work, spread over
/// chunks, stays small, so larger scenes keep the four passes.
/// Measured there: the 4K dashboard's binning 0.045 -> 0.027 ms; the 10k
/// scene's 0.030 in four passes, 0.083 in one (about 0.0075 ms more per
/// 1,000 primitives, even with four passes near 2,300–4,500).
///
/// A GPU's limit: a CPU driver (lavapipe) bins in four passes whatever the
/// scene, as its dispatches cost little and each bin's reads of every
/// primitive cost it much (the 1280x720 dashboard's binning: 6-7 ms in four
/// passes, 11-15 ms in one, on this project's 2-core machine).
pub const ONE_PASS_BINNING_PRIMS: u32 = 3 * 768;

/// GPU milliseconds of the last recorded render, by pass.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct PassTimes {
    /// `ui/bin_count`: entries per bin and chunk.
    pub bin_count_ms: f64,
    /// `ui/bin_scan`: where each chunk's entries start in each bin.
    pub bin_scan_ms: f64,
    /// `ui/bin_scatter`: the entries into the bin lists.
    pub bin_scatter_ms: f64,
    /// `ui/bin_tiles`: the bin lists split into tile lists (with one-pass
    /// binning, the only binning pass: the three before it are 0).
    pub bin_tiles_ms: f64,
    pub fused_ms: f64,
}

impl PassTimes {
    /// The four binning passes together.
    pub fn binning_ms(&self) -> f64 {
        self.bin_count_ms + self.bin_scan_ms + self.bin_scatter_ms + self.bin_tiles_ms
    }
}

/// The device buffers of one encoded scene, with the staging copy they are
/// filled from.
pub struct SceneBuffers {
    staging: Buffer,
    /// (device buffer, offset of its bytes in `staging`, byte length).
    parts: Vec<(Buffer, u64, u64)>,
    bin_lists: Buffer,
    /// Per tile of every bin (`ui/bin_tiles`): its list's start and end in
    /// `tile_lists`.
    tile_ranges: Buffer,
    tile_lists: Buffer,
    /// Per bin and chunk: the entries it receives (`ui/bin_count`), then
    /// where they start (`ui/bin_scan`).
    chunk_counts: Buffer,
    bin_push: Vec<u8>,
    fused_push: Vec<u8>,
    /// Bytes each external map slot must hold (0: unused).
    external_bytes: [u64; MAX_EXTERNAL_MAPS],
    /// External pictures' planes and external maps, copied into the texel
    /// buffer when the scene is recorded.
    external_copies: Vec<ExternalCopy>,
    /// The costly shading paths the scene's images can take.
    shading: Shading,
    bin_count: u32,
    chunk_count: u32,
    prim_count: u32,
    tiles: u32,
    width: u32,
    height: u32,
}

impl SceneBuffers {
    fn buffer(&self, i: usize) -> &Buffer {
        &self.parts[i].0
    }

    fn texels(&self) -> &Buffer {
        self.buffer(TEXELS_ARRAY - 1)
    }

    pub fn width(&self) -> u32 {
        self.width
    }

    pub fn height(&self) -> u32 {
        self.height
    }

    /// The bin lists binning writes (not with one-pass binning,
    /// [`Renderer::bins_in_one_pass`]): for each bin, from
    /// `Encoded::bin_offsets[bin]` on, two words per entry (the primitive's
    /// index, with bit 31 set on images, and the bin's tiles it overlaps).
    pub fn bin_lists(&self) -> &Buffer {
        &self.bin_lists
    }

    /// Where each tile's list lies in [`SceneBuffers::tile_lists`]: two
    /// words (start, end) per tile, bin after bin, each bin's
    /// `BIN_TILES x BIN_TILES` tiles row by row.
    pub fn tile_ranges(&self) -> &Buffer {
        &self.tile_ranges
    }

    /// The tile lists: for each tile, the index of every primitive it
    /// overlaps (bit 31 set on images), in draw order; from
    /// `Encoded::tile_offsets[bin]` on, a bin's tiles' lists one after the
    /// other.
    pub fn tile_lists(&self) -> &Buffer {
        &self.tile_lists
    }

    /// Records the copies from the staging buffer into the device buffers.
    pub fn record_upload(&self, rec: &mut Recorder<'_>) {
        for (buffer, offset, len) in &self.parts {
            if *len > 0 {
                rec.copy_buffer(&self.staging, *offset, buffer, 0, *len);
            }
        }
        rec.barrier();
    }
}

/// Index of the texel buffer among the arrays [`Renderer::upload`] lays
/// out. The bin lists (index 2) are filled on the GPU and have no part, so
/// it is `SceneBuffers::parts[TEXELS_ARRAY - 1]`.
const TEXELS_ARRAY: usize = 5;
/// `SceneBuffers::parts` index of the bins' tile-list starts (the last
/// array [`Renderer::upload`] lays out).
const TILE_OFFSETS_PART: usize = 7;

/// How the fused pass splits a tile's pixels among a workgroup's
/// invocations (its specialization constants 2 and 3).
///
/// A CPU driver (lavapipe) runs a workgroup as SIMD rows, each of which
/// loads every primitive again: few invocations owning many pixels share
/// that cost (the dashboard at
/// 1280x720 on lavapipe: 51 ms at 16 x 16, 89 ms at 64 x 4). A GPU fills
/// its cores with many invocations of few pixels. Invocations are always a
/// multiple of the tile's width, so that all of an invocation's pixels lie
/// in one column (fused.comp's sample_column relies on it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct TileShape {
    invocations: u32,
    pixels: u32,
}

/// The costly shading paths of the fused pass (bits of its specialization
/// constant 4, `SHADING`) that a scene's images can take.
///
/// A CPU driver (lavapipe, Mesa 22.3) runs both sides of every branch under
/// a mask, so each pixel of every image (a glyph included) paid for the tone
/// and gamut mapping of HDR pictures and for the heat maps' colour ramp:
/// on the 1280x720 dashboard, whose pictures are SDR BT.709, the tone
/// mapping alone was about half of the fused pass. There each scene gets
/// the pass compiled without the paths it cannot take. Pixels are the same:
/// a path left out is one that no primitive of the scene takes. A GPU skips
/// an untaken path (the condition is uniform per primitive) and keeps the
/// one pipeline with every path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Shading(u32);

impl Shading {
    /// Pictures in BT.2020 or with an HDR transfer: tone and gamut mapping.
    const TONE: u32 = 1;
    /// Heat maps: the colour ramp.
    const HEAT: u32 = 2;
    /// Every path: what a GPU runs.
    const ALL: Shading = Shading(Self::TONE | Self::HEAT);
    /// Pipelines per output, one per set of paths.
    const VARIANTS: usize = 4;

    /// The paths `enc`'s images can take: the test fused.comp's
    /// `yuv_to_rgb` makes per picture, and any heat map.
    fn of(enc: &Encoded) -> Self {
        let tone = enc.pictures.iter().any(|p| p.matrix == 2 || p.tone & 0xFF != 0);
        let heat = !enc.maps.is_empty();
        Shading(if tone { Self::TONE } else { 0 } | if heat { Self::HEAT } else { 0 })
    }
}

/// The kind of pixels the fused pass writes: those of the window shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Output {
    /// 8-bit R'G'B' for an SDR window; HDR pictures tone-mapped to the
    /// scene's display peak.
    #[default]
    Sdr,
    /// PQ-coded BT.2020 in 10 bits for an HDR10 window (colour space
    /// `HDR10_ST2084`): pictures' light untouched, the UI's white at
    /// [`crate::color::REFERENCE_WHITE_NITS`].
    Hdr10,
}

impl Output {
    /// The storage image format the fused pass writes for this output.
    pub fn format(self) -> vk::Format {
        match self {
            Output::Sdr => vk::Format::R8G8B8A8_UNORM,
            Output::Hdr10 => vk::Format::A2B10G10R10_UNORM_PACK32,
        }
    }
}

impl TileShape {
    /// The split for a device of `device_type` whose pipelines run
    /// subgroups of `subgroup_size` (a workgroup must hold whole ones).
    fn for_device(device_type: vk::PhysicalDeviceType, subgroup_size: u32) -> Self {
        let invocations =
            if device_type == vk::PhysicalDeviceType::CPU { subgroup_size.max(16) } else { 64 };
        TileShape { invocations, pixels: TILE_SIZE * TILE_SIZE / invocations }
    }
}

/// Renders scenes with the fused compute shader.
pub struct Renderer {
    ctx: Arc<GpuContext>,
    bin_count: ComputePipeline,
    bin_scan: ComputePipeline,
    bin_scatter: ComputePipeline,
    bin_tiles: ComputePipeline,
    /// `ui/bin_tiles` reading the primitives themselves (`FROM_PRIMS`).
    bin_tiles_one_pass: ComputePipeline,
    /// Most primitives a scene binned in one pass has.
    one_pass_limit: u32,
    /// The fused pass per [`Shading`] (its bits as the index), each built
    /// when a scene first needs it; on a GPU, the one with every path by
    /// [`Renderer::new`].
    fused: [OnceLock<ComputePipeline>; Shading::VARIANTS],
    /// The same for the `HDR10_OUTPUT` variant; on a GPU
    /// [`Renderer::set_output`] builds its pipeline with every path when it
    /// first asks for it.
    fused_hdr10: [OnceLock<ComputePipeline>; Shading::VARIANTS],
    /// Whether each scene gets the fused pass without the paths it cannot
    /// take (on a CPU driver), rather than always [`Shading::ALL`].
    specialise_shading: bool,
    output: Output,
    fused_specialization: [(u32, u32); 2],
    subgroup_size: Option<u32>,
    /// Most workgroups a binning dispatch puts along x; more chunks than
    /// this go on along y.
    dispatch_width: u32,
    timestamps: Timestamps,
    font: Font,
    atlas: GlyphAtlas,
}

impl Renderer {
    /// Builds the pipelines for `mode` (at the device's own subgroup size,
    /// or `subgroup_size` when given).
    pub fn new(
        ctx: &Arc<GpuContext>,
        mode: ScanMode,
        subgroup_size: Option<u32>,
    ) -> Result<Self, RenderError> {
        let min_subgroup = subgroup_size.unwrap_or(ctx.info().min_subgroup_size).max(1);
        let max_subgroups = (256 / min_subgroup).max(1);
        let specialization = [(0, mode.constant()), (1, max_subgroups)];
        let shape = TileShape::for_device(
            ctx.info().device_type,
            subgroup_size.unwrap_or(ctx.info().subgroup_size),
        );
        let fused_specialization = [(2, shape.invocations), (3, shape.pixels)];
        let bin_count = ComputePipeline::new(
            ctx,
            &PipelineDesc {
                name: "ui/bin_count",
                ..PipelineDesc::new(vqscope_shaders::UI_BIN_COUNT)
            },
        )?;
        let bin_scan = ComputePipeline::new(
            ctx,
            &PipelineDesc {
                name: "ui/bin_scan",
                specialization: &specialization,
                subgroup_size,
                full_subgroups: true,
                ..PipelineDesc::new(vqscope_shaders::UI_BIN_SCAN)
            },
        )?;
        let bin_scatter = ComputePipeline::new(
            ctx,
            &PipelineDesc {
                name: "ui/bin_scatter",
                ..PipelineDesc::new(vqscope_shaders::UI_BIN_SCATTER)
            },
        )?;
        let tiles_pipeline = |name, from_prims: u32| {
            let specialization = [specialization[0], specialization[1], (2, from_prims)];
            ComputePipeline::new(
                ctx,
                &PipelineDesc {
                    name,
                    specialization: &specialization,
                    subgroup_size,
                    full_subgroups: true,
                    ..PipelineDesc::new(vqscope_shaders::UI_BIN_TILES)
                },
            )
        };
        let bin_tiles = tiles_pipeline("ui/bin_tiles", 0)?;
        let bin_tiles_one_pass = tiles_pipeline("ui/bin_tiles (one pass)", 1)?;
        let cpu = ctx.info().device_type == vk::PhysicalDeviceType::CPU;
        let renderer = Self {
            ctx: ctx.clone(),
            bin_count,
            bin_scan,
            bin_scatter,
            bin_tiles,
            bin_tiles_one_pass,
            one_pass_limit: if cpu { 0 } else { ONE_PASS_BINNING_PRIMS },
            fused: Default::default(),
            fused_hdr10: Default::default(),
            specialise_shading: cpu,
            output: Output::Sdr,
            fused_specialization,
            subgroup_size,
            dispatch_width: ctx.info().max_compute_workgroup_count[0],
            timestamps: Timestamps::new(ctx, 6)?,
            font: Font::bundled(),
            atlas: GlyphAtlas::default(),
        };
        // A GPU draws every scene with the pipeline of every path, built
        // now as the other passes are; a CPU driver builds only the
        // variants its scenes need, when they first do.
        if !cpu {
            renderer.fused_pass(Output::Sdr, Shading::ALL)?;
        }
        Ok(renderer)
    }

    /// Puts at most `groups` (at least 1) workgroups of a binning dispatch
    /// along x, as if the device allowed no more: lets a test bin a scene
    /// larger than one row of workgroups without millions of primitives.
    pub fn limit_dispatch_width(&mut self, groups: u32) {
        self.dispatch_width = groups.clamp(1, self.ctx.info().max_compute_workgroup_count[0]);
    }

    /// Bins scenes of at most `prims` primitives in one pass from now on
    /// (default [`ONE_PASS_BINNING_PRIMS`] on a GPU, 0 on a CPU driver;
    /// 0: never): lets a test check both ways on the same scenes, and a
    /// benchmark time them.
    pub fn set_one_pass_limit(&mut self, prims: u32) {
        self.one_pass_limit = prims;
    }

    /// Whether a scene of `prims` primitives is binned in one pass
    /// (`ui/bin_tiles` reading the primitives, no bin lists) rather than
    /// four.
    pub fn bins_in_one_pass(&self, prims: u32) -> bool {
        prims <= self.one_pass_limit
    }

    /// Draws each scene from now on with the fused pass specialised to the
    /// shading paths its images can take (`true`, the default on a CPU
    /// driver) or always with every path (`false`, the default on a GPU):
    /// lets a test check that both draw the same pixels, and a benchmark
    /// time them.
    pub fn set_specialise_shading(&mut self, on: bool) {
        self.specialise_shading = on;
    }

    /// Draws for `output` from now on: targets must then be of
    /// [`Output::format`] (see [`Renderer::target_image`]). On a GPU the
    /// HDR10 pipeline is built here on first use; a CPU driver builds the
    /// variant a scene needs when it is first recorded.
    pub fn set_output(&mut self, output: Output) -> Result<(), RenderError> {
        if !self.specialise_shading {
            self.fused_pass(output, Shading::ALL)?;
        }
        self.output = output;
        Ok(())
    }

    /// The fused pass writing `output` for scenes that take `shading`'s
    /// paths (all of them unless the device is a CPU driver), built on
    /// first use.
    fn fused_pass(
        &self,
        output: Output,
        shading: Shading,
    ) -> vqscope_gpu::Result<&ComputePipeline> {
        let shading = if self.specialise_shading { shading } else { Shading::ALL };
        let cells = match output {
            Output::Sdr => &self.fused,
            Output::Hdr10 => &self.fused_hdr10,
        };
        let cell = &cells[shading.0 as usize];
        if let Some(pipeline) = cell.get() {
            return Ok(pipeline);
        }
        let pipeline = fused_pipeline(
            &self.ctx,
            output,
            shading,
            &self.fused_specialization,
            self.subgroup_size,
        )?;
        Ok(cell.get_or_init(|| pipeline))
    }

    /// What the fused pass writes now.
    pub fn output(&self) -> Output {
        self.output
    }

    /// The bundled font, for measuring text while building a scene.
    pub fn font(&self) -> &Font {
        &self.font
    }

    /// Encodes `scene` (laying out its text).
    pub fn encode(&mut self, scene: &Scene) -> Result<Encoded, RenderError> {
        encode(scene, &self.font, &mut self.atlas)
    }

    /// Creates the device buffers for `enc` and fills their staging copy.
    /// Fails when the bin or tile lists would not fit one storage buffer
    /// (tile lists grow with the area primitives cover).
    pub fn upload(&self, enc: &Encoded) -> Result<SceneBuffers, RenderError> {
        let limit = self.ctx.info().max_storage_buffer_range;
        // Entries of two words (index, tile span) and of one (index).
        for (what, bytes) in [
            ("bin lists", u64::from(enc.bin_entries()) * 8),
            ("tile lists", u64::from(enc.tile_entries()) * 4),
        ] {
            if bytes > u64::from(limit) {
                return Err(RenderError::ListsTooLarge { what, bytes, limit });
            }
        }
        let arrays: [&[u8]; 9] = [
            bytemuck::cast_slice(&enc.prims),
            bytemuck::cast_slice(&enc.bin_offsets),
            &[],
            bytemuck::cast_slice(&enc.clips),
            bytemuck::cast_slice(&enc.textures),
            bytemuck::cast_slice(&enc.texels),
            bytemuck::cast_slice(&enc.pictures),
            bytemuck::cast_slice(&enc.maps),
            bytemuck::cast_slice(&enc.tile_offsets),
        ];
        let align = |n: u64| n.div_ceil(256) * 256;
        let total: u64 = arrays.iter().map(|a| align(a.len() as u64)).sum();
        let mut staging = Buffer::staging(&self.ctx, "ui staging", total.max(4))?;
        let names = [
            "ui prims",
            "ui bin offsets",
            "",
            "ui clips",
            "ui textures",
            "ui texels",
            "ui pictures",
            "ui maps",
            "ui tile offsets",
        ];
        let mut parts = Vec::new();
        let mut offset = 0u64;
        {
            let mapped = staging.mapped_mut()?;
            for (i, bytes) in arrays.iter().enumerate() {
                if i == 2 {
                    continue;
                }
                mapped[offset as usize..offset as usize + bytes.len()].copy_from_slice(bytes);
                // The texel buffer also holds what is copied in from
                // external buffers on the GPU.
                let len = bytes.len() as u64;
                let room = if i == TEXELS_ARRAY { enc.external_room_bytes } else { 0 };
                let buffer = Buffer::storage(&self.ctx, names[i], (len + room).max(4))?;
                parts.push((buffer, offset, len));
                offset += align(bytes.len() as u64);
            }
        }
        // Entries of two words: index, tile span (bin_scatter.comp).
        let bin_lists =
            Buffer::storage(&self.ctx, "ui bin lists", u64::from(enc.bin_entries()) * 8)?;
        // Tile lists: one word per entry; ranges: two per tile of every bin.
        let tile_lists =
            Buffer::storage(&self.ctx, "ui tile lists", u64::from(enc.tile_entries()) * 4)?;
        let tiles_per_bin = u64::from(BIN_TILES * BIN_TILES);
        let tile_ranges = Buffer::storage(
            &self.ctx,
            "ui tile ranges",
            u64::from(enc.bin_count()) * tiles_per_bin * 8,
        )?;
        let chunk_counts = Buffer::storage(
            &self.ctx,
            "ui bin chunk counts",
            (u64::from(enc.bin_count()) * u64::from(enc.chunk_count()) * 4).max(4),
        )?;
        let tiles_x = enc.width.div_ceil(TILE_SIZE);
        let tiles_y = enc.height.div_ceil(TILE_SIZE);
        Ok(SceneBuffers {
            staging,
            parts,
            bin_lists,
            tile_ranges,
            tile_lists,
            chunk_counts,
            bin_push: bytemuck::bytes_of(&enc.bin_push()).to_vec(),
            fused_push: bytemuck::bytes_of(&enc.fused_push()).to_vec(),
            external_bytes: enc.external_bytes,
            external_copies: enc.external_copies.clone(),
            shading: Shading::of(enc),
            bin_count: enc.bin_count(),
            chunk_count: enc.chunk_count(),
            prim_count: enc.prims.len() as u32,
            tiles: tiles_x * tiles_y,
            width: enc.width,
            height: enc.height,
        })
    }

    /// Records binning and the fused pass into `target` (a storage image in
    /// GENERAL layout of the scene's size), with timestamps around each.
    /// A scene with external maps needs [`Renderer::record_with_maps`].
    pub fn record(
        &self,
        rec: &mut Recorder<'_>,
        scene: &SceneBuffers,
        target: Binding<'_>,
    ) -> vqscope_gpu::Result<()> {
        self.record_with_maps(rec, scene, target, &[])
    }

    /// [`Renderer::record`] with external buffers: `maps[k]` is external
    /// buffer `k`, which serves as external map slot `k`
    /// ([`Scene::external_map`]: `f32` values, so a metric kernel's
    /// per-pixel map is drawn without a trip through the host) and as the
    /// source of external pictures of slot `k` ([`Scene::add_external_yuv`]:
    /// decoded frames already on the GPU). What the scene uses of them is
    /// copied into its texel buffer here, first: one buffer for every
    /// sample spares a CPU driver a read per buffer a branch could pick.
    ///
    /// Whatever wrote these buffers must be ordered before this recording:
    /// earlier in the same command buffer followed by a barrier, or in an
    /// earlier submission on the same queue. Fails before recording
    /// anything when a buffer the scene uses is missing or too small.
    pub fn record_with_maps(
        &self,
        rec: &mut Recorder<'_>,
        scene: &SceneBuffers,
        target: Binding<'_>,
        maps: &[&Buffer],
    ) -> vqscope_gpu::Result<()> {
        if maps.len() > MAX_EXTERNAL_MAPS {
            return Err(GpuError::Usage(format!(
                "ui/fused: {} external maps given, at most {MAX_EXTERNAL_MAPS}",
                maps.len()
            )));
        }
        for (slot, &need) in scene.external_bytes.iter().enumerate() {
            let have = maps.get(slot).map(|b| b.size());
            if need > 0 && have.is_none_or(|have| have < need) {
                return Err(GpuError::Usage(format!(
                    "ui/fused: external map {slot} needs {need} bytes, {}",
                    have.map_or("none was given".to_string(), |h| format!("its buffer has {h}"))
                )));
            }
        }
        // External maps' copies were checked above, with their own message.
        for c in &scene.external_copies {
            let have = maps.get(c.slot).map(|b| b.size());
            if have.is_none_or(|have| have < c.src + c.len) {
                return Err(GpuError::Usage(format!(
                    "ui/fused: an external picture needs bytes {}..{} of external buffer {}, {}",
                    c.src,
                    c.src + c.len,
                    c.slot,
                    have.map_or("none was given".to_string(), |h| format!("its buffer has {h}"))
                )));
            }
        }
        for c in &scene.external_copies {
            rec.copy_buffer(maps[c.slot], c.src, scene.texels(), c.dst, c.len);
        }
        if !scene.external_copies.is_empty() {
            rec.barrier();
        }
        self.record_binning(rec, scene)?;
        let fused = self.fused_pass(self.output, scene.shading)?;
        rec.dispatch(
            fused,
            &[
                Binding::Buffer(scene.buffer(0)),
                Binding::Buffer(&scene.tile_ranges),
                Binding::Buffer(&scene.tile_lists),
                Binding::Buffer(scene.buffer(2)),
                Binding::Buffer(scene.buffer(3)),
                Binding::Buffer(scene.buffer(4)),
                Binding::Buffer(scene.buffer(5)),
                Binding::Buffer(scene.buffer(6)),
                target,
            ],
            &scene.fused_push,
            [scene.tiles, 1, 1],
        )?;
        rec.barrier();
        rec.timestamp(&self.timestamps, 5);
        Ok(())
    }

    /// Records the binning passes, filling `scene`'s tile lists and, unless
    /// it is binned in one pass ([`Renderer::bins_in_one_pass`]), its bin
    /// lists (and resetting the timestamps, of which it writes the first
    /// five).
    pub fn record_binning(
        &self,
        rec: &mut Recorder<'_>,
        scene: &SceneBuffers,
    ) -> vqscope_gpu::Result<()> {
        rec.reset_timestamps(&self.timestamps);
        rec.timestamp(&self.timestamps, 0);
        if self.bins_in_one_pass(scene.prim_count) {
            // The passes skipped take no time, not even a barrier's.
            for t in 1..4 {
                rec.timestamp(&self.timestamps, t);
            }
            return self.record_tiles(rec, scene, &self.bin_tiles_one_pass);
        }
        // A scene without primitives has empty lists: nothing to dispatch.
        let chunks = scene.chunk_count;
        let x = chunks.min(self.dispatch_width);
        let chunk_groups = [x, chunks.div_ceil(x.max(1)), 1];
        if chunks > 0 {
            rec.dispatch(
                &self.bin_count,
                &[Binding::Buffer(scene.buffer(0)), Binding::Buffer(&scene.chunk_counts)],
                &scene.bin_push,
                chunk_groups,
            )?;
        }
        rec.barrier();
        rec.timestamp(&self.timestamps, 1);
        if chunks > 0 {
            rec.dispatch(
                &self.bin_scan,
                &[Binding::Buffer(scene.buffer(1)), Binding::Buffer(&scene.chunk_counts)],
                &scene.bin_push,
                [scene.bin_count, 1, 1],
            )?;
        }
        rec.barrier();
        rec.timestamp(&self.timestamps, 2);
        if chunks > 0 {
            rec.dispatch(
                &self.bin_scatter,
                &[
                    Binding::Buffer(scene.buffer(0)),
                    Binding::Buffer(&scene.chunk_counts),
                    Binding::Buffer(&scene.bin_lists),
                ],
                &scene.bin_push,
                chunk_groups,
            )?;
        }
        rec.barrier();
        rec.timestamp(&self.timestamps, 3);
        self.record_tiles(rec, scene, &self.bin_tiles)
    }

    /// Records `ui/bin_tiles` (`pipeline`: from the bin lists or from the
    /// primitives) and the last binning timestamp. Every tile's range is
    /// written, empty ones too: it runs for a scene without primitives.
    fn record_tiles(
        &self,
        rec: &mut Recorder<'_>,
        scene: &SceneBuffers,
        pipeline: &ComputePipeline,
    ) -> vqscope_gpu::Result<()> {
        rec.dispatch(
            pipeline,
            &[
                Binding::Buffer(scene.buffer(1)),
                Binding::Buffer(scene.buffer(TILE_OFFSETS_PART)),
                Binding::Buffer(&scene.bin_lists),
                Binding::Buffer(&scene.tile_ranges),
                Binding::Buffer(&scene.tile_lists),
                Binding::Buffer(scene.buffer(0)),
            ],
            &scene.bin_push,
            [scene.bin_count, 1, 1],
        )?;
        rec.barrier();
        rec.timestamp(&self.timestamps, 4);
        Ok(())
    }

    /// GPU times of the last finished render.
    pub fn pass_times(&self) -> Result<PassTimes, RenderError> {
        let ms = self.timestamps.read_intervals_ms()?;
        Ok(PassTimes {
            bin_count_ms: ms[0],
            bin_scan_ms: ms[1],
            bin_scatter_ms: ms[2],
            bin_tiles_ms: ms[3],
            fused_ms: ms[4],
        })
    }

    /// A storage image the fused pass can draw into (for the current
    /// [`Output`]) and that can be read back.
    pub fn target_image(&self, width: u32, height: u32) -> Result<Image, RenderError> {
        Ok(Image::new(
            &self.ctx,
            "ui target",
            width,
            height,
            self.output.format(),
            vk::ImageUsageFlags::STORAGE
                | vk::ImageUsageFlags::TRANSFER_SRC
                | vk::ImageUsageFlags::TRANSFER_DST,
        )?)
    }

    /// Renders `scene` headless and returns its pixels, rows tightly
    /// packed, opaque: RGBA8, or for [`Output::Hdr10`] one little-endian
    /// word per pixel, R in bits 0-9, G 10-19, B 20-29 (A2B10G10R10).
    pub fn render_to_rgba(
        &mut self,
        submitter: &mut Submitter,
        scene: &Scene,
    ) -> Result<Vec<u8>, RenderError> {
        self.render_to_rgba_with_maps(submitter, scene, &[])
    }

    /// [`Renderer::render_to_rgba`] with external maps bound as in
    /// [`Renderer::record_with_maps`]; their writers must have been
    /// submitted to `submitter`'s queue before.
    pub fn render_to_rgba_with_maps(
        &mut self,
        submitter: &mut Submitter,
        scene: &Scene,
        maps: &[&Buffer],
    ) -> Result<Vec<u8>, RenderError> {
        let enc = self.encode(scene)?;
        let buffers = self.upload(&enc)?;
        let target = self.target_image(enc.width, enc.height)?;
        submitter.run(|rec| {
            rec.image_layout(target.raw(), vk::ImageLayout::UNDEFINED, vk::ImageLayout::GENERAL);
            buffers.record_upload(rec);
            self.record_with_maps(rec, &buffers, Binding::Image(&target), maps)
        })?;
        Ok(download_image(&self.ctx, submitter, &target, 4)?)
    }
}

/// The fused pass's pipeline writing `output` with `shading`'s paths
/// (`specialization`: the tile shape's constants).
fn fused_pipeline(
    ctx: &Arc<GpuContext>,
    output: Output,
    shading: Shading,
    specialization: &[(u32, u32); 2],
    subgroup_size: Option<u32>,
) -> vqscope_gpu::Result<ComputePipeline> {
    let (name, shader) = match output {
        Output::Sdr => ("ui/fused", vqscope_shaders::UI_FUSED),
        Output::Hdr10 => ("ui/fused (HDR10)", vqscope_shaders::UI_FUSED_HDR10_OUTPUT),
    };
    let name = if shading == Shading::ALL {
        name.to_string()
    } else {
        format!("{name}, shading paths {:#b}", shading.0)
    };
    let specialization = [specialization[0], specialization[1], (4, shading.0)];
    ComputePipeline::new(
        ctx,
        &PipelineDesc {
            name: &name,
            specialization: &specialization,
            subgroup_size,
            full_subgroups: true,
            ..PipelineDesc::new(shader)
        },
    )
}
