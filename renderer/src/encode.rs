//! Turns a [`Scene`] into the buffers the fused shader reads. The `Gpu*`
//! structs are the `#[repr(C)]` twins of the structs in
//! `shaders/ui/prims.glsl`; a test checks their offsets against the compiled
//! SPIR-V, so the two cannot drift apart silently.

use bytemuck::{Pod, Zeroable};

use crate::RenderError;
use crate::glyphs::{Font, GlyphAtlas};
use crate::scene::{
    Color, Command, ExternalYuv, MAX_EXTERNAL_MAPS, MapSource, PictureSource, Rect, Sampling,
    Scene, Subsampling, Transfer, YuvFormat, YuvMatrix, YuvPicture,
};
use crate::text::layout;

/// Pixels per tile side (`TILE_SIZE` in prims.glsl).
pub const TILE_SIZE: u32 = 16;
/// Tiles per bin side (`BIN_TILES` in prims.glsl).
pub const BIN_TILES: u32 = 16;
/// Pixels per bin side.
pub const BIN_PIXELS: u32 = TILE_SIZE * BIN_TILES;
/// Primitives per binning chunk (`CHUNK_PRIMS` in prims.glsl): one
/// workgroup of the binning passes that visit primitives.
pub const CHUNK_PRIMS: u32 = 256;

pub(crate) const KIND_RECT: u32 = 0;
pub(crate) const KIND_CIRCLE: u32 = 1;
pub(crate) const KIND_LINE: u32 = 2;
pub(crate) const KIND_TEXTURE: u32 = 3;
pub(crate) const KIND_GLYPH: u32 = 4;
pub(crate) const KIND_YUV: u32 = 5;
pub(crate) const KIND_HEATMAP: u32 = 6;

/// Twin of `Prim` in prims.glsl (96 bytes).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Pod, Zeroable)]
pub struct GpuPrim {
    pub bounds: [f32; 4],
    pub header: [u32; 4],
    pub color: [f32; 4],
    pub p0: [f32; 4],
    pub p1: [f32; 4],
    pub p2: [f32; 4],
}

/// Twin of `Texture` in prims.glsl (16 bytes).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Pod, Zeroable)]
pub struct GpuTexture {
    pub offset: u32,
    pub width: u32,
    pub height: u32,
    pub format: u32,
}

/// Twin of `Picture` in prims.glsl (48 bytes).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Pod, Zeroable)]
pub struct GpuPicture {
    pub offset_y: u32,
    pub offset_u: u32,
    pub offset_v: u32,
    pub width: u32,
    pub height: u32,
    pub chroma_shift_x: u32,
    pub chroma_shift_y: u32,
    pub bytes_per_sample: u32,
    pub bit_depth: u32,
    pub matrix: u32,
    pub full_range: u32,
    /// Transfer (0 SDR, 1 PQ, 2 HLG) | display peak in nits << 8.
    pub tone: u32,
}

/// Twin of `Map` in prims.glsl (12 bytes): a grid of `f32` values for a
/// heat map.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Pod, Zeroable)]
pub struct GpuMap {
    /// First value, a word of the texel buffer.
    pub offset: u32,
    pub width: u32,
    pub height: u32,
}

/// Twin of the fused pass's push constants.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Pod, Zeroable)]
pub struct FusedPush {
    pub background: [f32; 4],
    pub width: u32,
    pub height: u32,
    pub bins_x: u32,
}

/// Twin of the push constants of the binning passes that visit primitives
/// or chunks (`bin_count`, `bin_scan`, `bin_scatter`).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Pod, Zeroable)]
pub struct BinPush {
    pub prim_count: u32,
    pub bins_x: u32,
    pub bins_y: u32,
}

/// A GPU copy of one plane of an external picture or of an external map:
/// `len` bytes from byte `src` of external buffer `slot` to byte `dst` of
/// the texel buffer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ExternalCopy {
    pub slot: usize,
    pub src: u64,
    pub dst: u64,
    pub len: u64,
}

/// A scene as GPU-ready arrays.
#[derive(Debug, Default)]
pub struct Encoded {
    pub width: u32,
    pub height: u32,
    pub background: [f32; 4],
    pub prims: Vec<GpuPrim>,
    /// Clip rectangles; index 0 is "no clip".
    pub clips: Vec<[f32; 4]>,
    pub textures: Vec<GpuTexture>,
    /// Every sample the fused pass reads: textures, host maps, the glyph
    /// atlas and host pictures' planes, then room for `external_room_bytes`
    /// more that [`Encoded::external_copies`] fill on the GPU.
    pub texels: Vec<u32>,
    pub external_room_bytes: u64,
    pub external_copies: Vec<ExternalCopy>,
    pub pictures: Vec<GpuPicture>,
    pub maps: Vec<GpuMap>,
    /// Bytes each external map slot must hold at least (0: slot unused), so
    /// recording can refuse a buffer too small before the shader reads
    /// past its end.
    pub external_bytes: [u64; MAX_EXTERNAL_MAPS],
    pub bins_x: u32,
    pub bins_y: u32,
    /// Start of each bin's list in the bin-list buffer; one more entry than
    /// bins, the last being the total.
    pub bin_offsets: Vec<u32>,
    /// Start of each bin's tile lists (all of its tiles', one after the
    /// other) in the tile-list buffer; one more entry than bins, the last
    /// being the total.
    pub tile_offsets: Vec<u32>,
}

impl Encoded {
    pub fn bin_count(&self) -> u32 {
        self.bins_x * self.bins_y
    }

    /// Chunks of [`CHUNK_PRIMS`] primitives the binning passes split the
    /// primitives into.
    pub fn chunk_count(&self) -> u32 {
        (self.prims.len() as u32).div_ceil(CHUNK_PRIMS)
    }

    /// Total entries of all bin lists.
    pub fn bin_entries(&self) -> u32 {
        *self.bin_offsets.last().unwrap_or(&0)
    }

    /// Total entries of all tile lists.
    pub fn tile_entries(&self) -> u32 {
        *self.tile_offsets.last().unwrap_or(&0)
    }

    /// Fills [`Encoded::bin_offsets`] and [`Encoded::tile_offsets`] from
    /// the primitives, in one pass over them.
    pub fn fill_offsets(&mut self) {
        let (bins, tiles) = bin_offsets(&self.prims, self.bins_x, self.bins_y);
        self.bin_offsets = bins;
        self.tile_offsets = tiles;
    }

    pub fn fused_push(&self) -> FusedPush {
        FusedPush {
            background: self.background,
            width: self.width,
            height: self.height,
            bins_x: self.bins_x,
        }
    }

    pub fn bin_push(&self) -> BinPush {
        BinPush { prim_count: self.prims.len() as u32, bins_x: self.bins_x, bins_y: self.bins_y }
    }
}

/// The same bin range the shader's `bin_range` computes, with the same
/// float operations (division by a power of two and floor are exact).
pub fn bin_range(bounds: [f32; 4], bins_x: u32, bins_y: u32) -> [u32; 4] {
    let b = BIN_PIXELS as f32;
    let cell = |v: f32, n: u32| ((v / b).floor() as i32).clamp(0, n as i32 - 1) as u32;
    [
        cell(bounds[0], bins_x),
        cell(bounds[1], bins_y),
        cell(bounds[2], bins_x),
        cell(bounds[3], bins_y),
    ]
}

fn rect4(r: Rect) -> [f32; 4] {
    [r.x0, r.y0, r.x1, r.y1]
}

/// Builds [`Encoded`] from a scene, laying text out with `font` into
/// `atlas`. The atlas is appended as the last texture.
pub fn encode(scene: &Scene, font: &Font, atlas: &mut GlyphAtlas) -> Result<Encoded, RenderError> {
    if scene.width == 0 || scene.height == 0 {
        return Err(RenderError::EmptyTarget { width: scene.width, height: scene.height });
    }
    let screen = Rect::new(0.0, 0.0, scene.width as f32, scene.height as f32);
    let mut enc = Encoded {
        width: scene.width,
        height: scene.height,
        background: scene.background.premultiplied(),
        bins_x: scene.width.div_ceil(BIN_PIXELS),
        bins_y: scene.height.div_ceil(BIN_PIXELS),
        clips: vec![[-1e30, -1e30, 1e30, 1e30]],
        ..Default::default()
    };
    for (width, height, rgba) in &scene.textures {
        enc.textures.push(GpuTexture {
            offset: enc.texels.len() as u32,
            width: *width,
            height: *height,
            format: 0,
        });
        enc.texels
            .extend(rgba.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])));
    }
    let mut planes = Vec::new();
    let mut external_pictures = Vec::new();
    for picture in &scene.pictures {
        let gpu = match picture {
            PictureSource::Host(p) => encode_picture(p, &mut planes)?,
            PictureSource::External(p) => {
                external_pictures.push(enc.pictures.len());
                encode_external_picture(p, &mut enc.external_room_bytes, &mut enc.external_copies)?
            }
        };
        enc.pictures
            .push(GpuPicture { tone: gpu.tone | u32::from(scene.display_peak_nits) << 8, ..gpu });
    }
    let mut external_maps = Vec::new();
    for (i, map) in scene.maps.iter().enumerate() {
        if map.width == 0 || map.height == 0 {
            return Err(RenderError::BadMap(format!("map {i} is {}x{}", map.width, map.height)));
        }
        let offset = match &map.source {
            MapSource::Host(values) => {
                let offset = enc.texels.len() as u32;
                enc.texels.extend(values.iter().map(|v| v.to_bits()));
                offset
            }
            MapSource::External(slot) => {
                let Some(need) = enc.external_bytes.get_mut(*slot) else {
                    return Err(RenderError::BadMap(format!(
                        "map {i} uses external slot {slot}; there are {MAX_EXTERNAL_MAPS}"
                    )));
                };
                *need = (*need).max(u64::from(map.width) * u64::from(map.height) * 4);
                external_maps.push((enc.maps.len(), *slot));
                // Placed by `append_planes_and_room`.
                0
            }
        };
        enc.maps.push(GpuMap { offset, width: map.width, height: map.height });
    }

    let mut clip_stack: Vec<(u32, Rect)> = vec![(0, screen)];
    let mut glyph_runs = Vec::new();
    for command in &scene.commands {
        let (clip_index, clip) = *clip_stack.last().expect("clip stack never empty");
        let push =
            |enc: &mut Encoded, geometry: Rect, header: [u32; 4], color: [f32; 4], p0, p1, p2| {
                let bounds = geometry.intersect(&clip);
                if bounds.is_empty() {
                    return;
                }
                enc.prims.push(GpuPrim {
                    bounds: rect4(bounds),
                    header: [header[0], clip_index, header[2], header[3]],
                    color,
                    p0,
                    p1,
                    p2,
                });
            };
        match command {
            Command::Rect { rect, style } => {
                let aa = rect.inflate(1.0);
                push(
                    &mut enc,
                    aa,
                    [KIND_RECT, 0, 0, style.border_width.max(0.0).to_bits()],
                    style.fill.premultiplied(),
                    rect4(*rect),
                    style.radii.map(|r| r.max(0.0)),
                    style.border.premultiplied(),
                );
            }
            Command::Circle { center, radius, ring_width, color } => {
                let reach = radius + ring_width * 0.5 + 1.0;
                push(
                    &mut enc,
                    Rect::new(
                        center[0] - reach,
                        center[1] - reach,
                        center[0] + reach,
                        center[1] + reach,
                    ),
                    [KIND_CIRCLE, 0, 0, 0],
                    color.premultiplied(),
                    [center[0], center[1], *radius, ring_width.max(0.0)],
                    [0.0; 4],
                    [0.0; 4],
                );
            }
            Command::Line { from, to, width, color } => {
                let reach = width * 0.5 + 1.0;
                let bounds = Rect::new(
                    from[0].min(to[0]) - reach,
                    from[1].min(to[1]) - reach,
                    from[0].max(to[0]) + reach,
                    from[1].max(to[1]) + reach,
                );
                push(
                    &mut enc,
                    bounds,
                    [KIND_LINE, 0, 0, width.max(0.0).to_bits()],
                    color.premultiplied(),
                    [from[0], from[1], to[0], to[1]],
                    [0.0; 4],
                    [0.0; 4],
                );
            }
            Command::Texture { dst, texture, src, sampling, opacity } => {
                if texture.0 as usize >= enc.textures.len() {
                    return Err(RenderError::UnknownTexture(texture.0));
                }
                push(
                    &mut enc,
                    *dst,
                    [
                        KIND_TEXTURE | sampling_bits(*sampling),
                        0,
                        texture.0,
                        opacity.clamp(0.0, 1.0).to_bits(),
                    ],
                    Color::WHITE.premultiplied(),
                    rect4(*dst),
                    rect4(*src),
                    [0.0; 4],
                );
            }
            Command::Yuv { dst, picture, src, sampling } => {
                if picture.0 as usize >= enc.pictures.len() {
                    return Err(RenderError::UnknownPicture(picture.0));
                }
                push(
                    &mut enc,
                    *dst,
                    [KIND_YUV | sampling_bits(*sampling), 0, picture.0, 0],
                    [1.0; 4],
                    rect4(*dst),
                    rect4(*src),
                    [0.0; 4],
                );
            }
            Command::HeatMap { dst, map, src, sampling, range } => {
                if map.0 as usize >= enc.maps.len() {
                    return Err(RenderError::UnknownMap(map.0));
                }
                let (lo, hi) = *range;
                if !(lo.is_finite() && hi.is_finite() && lo != hi) {
                    return Err(RenderError::BadMap(format!(
                        "heat map range {lo}..{hi} is not a pair of distinct finite values"
                    )));
                }
                push(
                    &mut enc,
                    *dst,
                    [KIND_HEATMAP | sampling_bits(*sampling), 0, map.0, 1.0f32.to_bits()],
                    [1.0; 4],
                    rect4(*dst),
                    rect4(*src),
                    [lo, hi, 0.0, 0.0],
                );
            }
            Command::Text(run) => {
                let quads = layout(font, atlas, run)?;
                if run.clip {
                    let inner = clip.intersect(&run.bounds);
                    enc.clips.push(rect4(inner));
                    let index = enc.clips.len() as u32 - 1;
                    clip_stack.push((index, inner));
                }
                let (clip_index, clip) = *clip_stack.last().expect("clip stack never empty");
                for quad in quads {
                    let bounds = quad.dst.intersect(&clip);
                    if bounds.is_empty() {
                        continue;
                    }
                    let [ax, ay, aw, ah] = quad.atlas;
                    glyph_runs.push(enc.prims.len());
                    enc.prims.push(GpuPrim {
                        bounds: rect4(bounds),
                        // The atlas texture index is patched below, once known.
                        header: [KIND_GLYPH, clip_index, 0, 0],
                        color: run.color.premultiplied(),
                        p0: rect4(quad.dst),
                        p1: [ax as f32, ay as f32, (ax + aw) as f32, (ay + ah) as f32],
                        p2: [0.0; 4],
                    });
                }
                if run.clip {
                    clip_stack.pop();
                }
            }
            Command::PushClip(rect) => {
                let inner = clip.intersect(rect);
                enc.clips.push(rect4(inner));
                clip_stack.push((enc.clips.len() as u32 - 1, inner));
            }
            Command::PopClip => {
                if clip_stack.len() == 1 {
                    return Err(RenderError::UnbalancedClip);
                }
                clip_stack.pop();
            }
        }
    }
    if clip_stack.len() != 1 {
        return Err(RenderError::UnbalancedClip);
    }

    // The glyph atlas is the last texture: 4 coverage texels a word.
    // Only the rows holding glyphs travel.
    let atlas_index = enc.textures.len() as u32;
    let used = atlas.used_height().max(1);
    enc.textures.push(GpuTexture {
        offset: enc.texels.len() as u32,
        width: atlas.width(),
        height: used,
        format: 1,
    });
    enc.texels.extend(atlas.rows(0..used).chunks(4).map(|c| {
        let mut word = [0u8; 4];
        word[..c.len()].copy_from_slice(c);
        u32::from_le_bytes(word)
    }));
    for i in glyph_runs {
        enc.prims[i].header[2] = atlas_index;
    }
    append_planes_and_room(&mut enc, &planes, &external_pictures, &external_maps)?;

    enc.fill_offsets();
    Ok(enc)
}

fn sampling_bits(sampling: Sampling) -> u32 {
    match sampling {
        Sampling::Nearest => 0,
        Sampling::Bilinear => 1 << 8,
    }
}

/// Where each bin's lists start: exclusive prefix sums over the bins of
/// the entries each bin's list receives (the primitives touching it) and of
/// those its tile lists receive (each such primitive once per tile of the
/// bin it overlaps, as the shader's `tile_span` counts them), each with the
/// total last. The GPU lays the lists out from these, so host and shader
/// must agree exactly; both use the same float operations.
fn bin_offsets(prims: &[GpuPrim], bins_x: u32, bins_y: u32) -> (Vec<u32>, Vec<u32>) {
    let bins = (bins_x * bins_y) as usize;
    let mut counts = vec![0u32; bins];
    let mut tile_counts = vec![0u32; bins];
    let side = TILE_SIZE as f32;
    for prim in prims {
        let b = prim.bounds;
        let [x0, y0, x1, y1] = bin_range(b, bins_x, bins_y);
        let lo = [(b[0] / side).floor(), (b[1] / side).floor()];
        let hi = [(b[2] / side).ceil(), (b[3] / side).ceil()];
        for y in y0..=y1 {
            let rows = tiles_in_bin(lo[1], hi[1], y);
            for x in x0..=x1 {
                let i = (y * bins_x + x) as usize;
                counts[i] += 1;
                // Saturating: a sum past u32 is refused at upload.
                tile_counts[i] =
                    tile_counts[i].saturating_add(rows * tiles_in_bin(lo[0], hi[0], x));
            }
        }
    }
    (exclusive_sum(&counts), exclusive_sum(&tile_counts))
}

/// How many of bin column (or row) `bin`'s tiles lie in [lo, hi) (in
/// tiles: the floor of a box's start and the ceiling of its end), clamped
/// to the bin as the shader's `tile_span` clamps them.
fn tiles_in_bin(lo: f32, hi: f32, bin: u32) -> u32 {
    let first = (bin * BIN_TILES) as f32;
    let clamp = |v: f32| (v - first).clamp(0.0, BIN_TILES as f32) as u32;
    clamp(hi).saturating_sub(clamp(lo))
}

/// `counts`' exclusive prefix sum, with the total appended; saturating, so
/// that a total past u32 stays too large for upload to accept.
fn exclusive_sum(counts: &[u32]) -> Vec<u32> {
    let mut offsets = Vec::with_capacity(counts.len() + 1);
    let mut run = 0u32;
    offsets.push(0);
    for &c in counts {
        run = run.saturating_add(c);
        offsets.push(run);
    }
    offsets
}

/// Checks of a picture format and what the shader needs of it.
impl YuvFormat {
    fn check(&self) -> Result<(), RenderError> {
        if !(8..=16).contains(&self.bit_depth) || self.width == 0 || self.height == 0 {
            return Err(RenderError::BadPicture(format!(
                "{}x{} at {} bits",
                self.width, self.height, self.bit_depth
            )));
        }
        Ok(())
    }

    fn shifts(&self) -> (u32, u32) {
        match self.subsampling {
            Subsampling::Yuv420 => (1, 1),
            Subsampling::Yuv422 => (1, 0),
            Subsampling::Yuv444 => (0, 0),
        }
    }

    fn bytes_per_sample(&self) -> u32 {
        if self.bit_depth > 8 { 2 } else { 1 }
    }

    /// Byte lengths of the luma plane and of each chroma plane.
    fn plane_bytes(&self) -> (u64, u64) {
        let (sx, sy) = self.shifts();
        let bps = u64::from(self.bytes_per_sample());
        let luma = u64::from(self.width) * u64::from(self.height) * bps;
        let chroma = u64::from(self.width.div_ceil(1 << sx))
            * u64::from(self.height.div_ceil(1 << sy))
            * bps;
        (luma, chroma)
    }

    /// The shader's record for planes at byte offsets `[y, u, v]` of the
    /// texel buffer.
    fn gpu(&self, offsets: [u32; 3]) -> GpuPicture {
        let (sx, sy) = self.shifts();
        GpuPicture {
            offset_y: offsets[0],
            offset_u: offsets[1],
            offset_v: offsets[2],
            width: self.width,
            height: self.height,
            chroma_shift_x: sx,
            chroma_shift_y: sy,
            bytes_per_sample: self.bytes_per_sample(),
            bit_depth: self.bit_depth,
            matrix: match self.matrix {
                YuvMatrix::Bt601 => 0,
                YuvMatrix::Bt709 => 1,
                YuvMatrix::Bt2020 => 2,
            },
            full_range: u32::from(self.full_range),
            tone: match self.transfer {
                Transfer::Sdr => 0,
                Transfer::Pq => 1,
                Transfer::Hlg => 2,
            },
        }
    }
}

/// Appends the host pictures' `planes` to the texel buffer and lays out the
/// external room after them: the planes of `external_pictures` (indices of
/// `enc.pictures`, planned relative to the room by
/// [`encode_external_picture`]), then each external map slot that
/// `external_maps` (map index, slot) use, copied whole. Moves every
/// picture's offsets and every copy's destination to where they now lie.
fn append_planes_and_room(
    enc: &mut Encoded,
    planes: &[u8],
    external_pictures: &[usize],
    external_maps: &[(usize, usize)],
) -> Result<(), RenderError> {
    let planes_start = enc.texels.len() as u64 * 4;
    enc.texels.extend(planes.chunks(4).map(|c| {
        let mut word = [0u8; 4];
        word[..c.len()].copy_from_slice(c);
        u32::from_le_bytes(word)
    }));
    let room = enc.texels.len() as u64 * 4;
    for copy in &mut enc.external_copies {
        copy.dst += room;
    }
    for (slot, &len) in enc.external_bytes.iter().enumerate() {
        if len > 0 {
            let dst = room + enc.external_room_bytes;
            enc.external_copies.push(ExternalCopy { slot, src: 0, dst, len });
            enc.external_room_bytes += len;
            for &(map, _) in external_maps.iter().filter(|&&(_, s)| s == slot) {
                enc.maps[map].offset = (dst / 4) as u32;
            }
        }
    }
    if room + enc.external_room_bytes > u64::from(u32::MAX) {
        return Err(RenderError::BadPicture("images exceed 4 GiB of samples".into()));
    }
    for (i, p) in enc.pictures.iter_mut().enumerate() {
        let start = if external_pictures.contains(&i) { room } else { planes_start };
        for offset in [&mut p.offset_y, &mut p.offset_u, &mut p.offset_v] {
            *offset += start as u32;
        }
    }
    Ok(())
}

/// Appends a host picture's planes to `planes` (word-aligned).
fn encode_picture(p: &YuvPicture, planes: &mut Vec<u8>) -> Result<GpuPicture, RenderError> {
    let format = p.format;
    format.check()?;
    let (luma, chroma) = format.plane_bytes();
    if p.data.len() as u64 != luma + 2 * chroma {
        return Err(RenderError::BadPicture(format!(
            "{} bytes of data, {} expected for {}x{}",
            p.data.len(),
            luma + 2 * chroma,
            format.width,
            format.height
        )));
    }
    // Keep every picture word-aligned in the texel buffer.
    while !planes.len().is_multiple_of(4) {
        planes.push(0);
    }
    let base = planes.len() as u32;
    planes.extend_from_slice(&p.data);
    let (luma, chroma) = (luma as u32, chroma as u32);
    Ok(format.gpu([base, base + luma, base + luma + chroma]))
}

/// Plans the GPU copies of an external picture's planes into the external
/// room of the texel buffer, from `region_bytes` on (relative to the room:
/// [`append_planes_and_room`] adds the room's start once the host samples
/// are all placed).
fn encode_external_picture(
    p: &ExternalYuv,
    region_bytes: &mut u64,
    copies: &mut Vec<ExternalCopy>,
) -> Result<GpuPicture, RenderError> {
    let format = p.format;
    format.check()?;
    if p.planes.iter().any(|o| o % 4 != 0) {
        return Err(RenderError::BadPicture(format!(
            "external plane offsets {:?} are not multiples of 4",
            p.planes
        )));
    }
    let (luma, chroma) = format.plane_bytes();
    let mut offsets = [0u32; 3];
    for (k, (&src, len)) in p.planes.iter().zip([luma, chroma, chroma]).enumerate() {
        let dst = *region_bytes;
        offsets[k] = u32::try_from(dst).map_err(|_| {
            RenderError::BadPicture("external pictures exceed 4 GiB of planes".into())
        })?;
        copies.push(ExternalCopy { slot: p.slot, src, dst, len });
        *region_bytes += len.div_ceil(4) * 4;
    }
    Ok(format.gpu(offsets))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scene::MapId;
    use vqscope_shaders::reflect::struct_offsets;

    fn offsets_of<T>(fields: &[(&str, usize)]) -> Vec<(String, u32)> {
        let _ = std::mem::size_of::<T>();
        fields.iter().map(|(n, o)| (n.to_string(), *o as u32)).collect()
    }

    #[test]
    fn prim_twin_matches_glsl() {
        let glsl = struct_offsets(vqscope_shaders::UI_FUSED, "Prim").expect("Prim in fused.comp");
        let rust = offsets_of::<GpuPrim>(&[
            ("bounds", std::mem::offset_of!(GpuPrim, bounds)),
            ("header", std::mem::offset_of!(GpuPrim, header)),
            ("color", std::mem::offset_of!(GpuPrim, color)),
            ("p0", std::mem::offset_of!(GpuPrim, p0)),
            ("p1", std::mem::offset_of!(GpuPrim, p1)),
            ("p2", std::mem::offset_of!(GpuPrim, p2)),
        ]);
        assert_eq!(glsl, rust);
        assert_eq!(std::mem::size_of::<GpuPrim>(), 96);
    }

    #[test]
    fn texture_and_picture_twins_match_glsl() {
        let glsl = struct_offsets(vqscope_shaders::UI_FUSED, "Texture").expect("Texture");
        let rust = offsets_of::<GpuTexture>(&[
            ("offset", std::mem::offset_of!(GpuTexture, offset)),
            ("width", std::mem::offset_of!(GpuTexture, width)),
            ("height", std::mem::offset_of!(GpuTexture, height)),
            ("format", std::mem::offset_of!(GpuTexture, format)),
        ]);
        assert_eq!(glsl, rust);
        let glsl = struct_offsets(vqscope_shaders::UI_FUSED, "Picture").expect("Picture");
        assert_eq!(glsl.len(), 12);
        assert_eq!(glsl.last().unwrap(), &("tone".to_string(), 44));
        assert_eq!(std::mem::offset_of!(GpuPicture, tone), 44);
        assert_eq!(std::mem::size_of::<GpuPicture>(), 48);
    }

    #[test]
    fn map_twin_matches_glsl() {
        let glsl = struct_offsets(vqscope_shaders::UI_FUSED, "Map").expect("Map in fused.comp");
        let rust = offsets_of::<GpuMap>(&[
            ("offset", std::mem::offset_of!(GpuMap, offset)),
            ("width", std::mem::offset_of!(GpuMap, width)),
            ("height", std::mem::offset_of!(GpuMap, height)),
        ]);
        assert_eq!(glsl, rust);
        assert_eq!(std::mem::size_of::<GpuMap>(), 12);
    }

    /// Host maps travel as float bits in the texel buffer ahead of the glyph
    /// atlas; external maps record the bytes their slot must hold and are
    /// copied whole into the room at the texel buffer's end; a heat map
    /// carries its range in `p2`.
    #[test]
    fn heat_maps_encode_values_slots_and_range() {
        let mut scene = Scene::new(64, 64, Color::BLACK);
        let host = scene.add_map(2, 1, vec![0.25, -1.5]);
        let ext = scene.external_map(10, 3, 1);
        let src = Rect::new(0.0, 0.0, 2.0, 1.0);
        scene.heat_map(Rect::new(0.0, 0.0, 32.0, 32.0), host, src, Sampling::Nearest, (0.0, 1.0));
        scene.heat_map(Rect::new(8.0, 8.0, 40.0, 40.0), ext, src, Sampling::Bilinear, (0.5, 1.0));
        let enc = encode(&scene, &Font::bundled(), &mut GlyphAtlas::default()).unwrap();
        let room = enc.texels.len() as u32;
        assert_eq!(
            enc.maps,
            vec![
                GpuMap { offset: 0, width: 2, height: 1 },
                GpuMap { offset: room, width: 10, height: 3 },
            ]
        );
        assert_eq!(&enc.texels[..2], &[0.25f32.to_bits(), (-1.5f32).to_bits()]);
        assert_eq!(enc.external_bytes, [0, 120]);
        let copy = ExternalCopy { slot: 1, src: 0, dst: 4 * u64::from(room), len: 120 };
        assert_eq!(enc.external_copies, vec![copy]);
        assert_eq!(enc.external_room_bytes, 120);
        assert_eq!(enc.prims[0].header, [KIND_HEATMAP, 0, 0, 1.0f32.to_bits()]);
        assert_eq!(enc.prims[1].header[0], KIND_HEATMAP | 1 << 8);
        assert_eq!(enc.prims[1].header[2], 1);
        assert_eq!(enc.prims[1].p2, [0.5, 1.0, 0.0, 0.0]);
    }

    #[test]
    fn bad_heat_maps_are_refused() {
        let fails = |build: &dyn Fn(&mut Scene)| {
            let mut scene = Scene::new(16, 16, Color::BLACK);
            build(&mut scene);
            encode(&scene, &Font::bundled(), &mut GlyphAtlas::default()).unwrap_err().to_string()
        };
        let r = Rect::new(0.0, 0.0, 8.0, 8.0);
        let e = fails(&|s| {
            let m = s.add_map(1, 1, vec![0.0]);
            s.heat_map(r, m, r, Sampling::Nearest, (1.0, 1.0));
        });
        assert!(e.contains("not a pair of distinct finite values"), "{e}");
        let e = fails(&|s| {
            let m = s.add_map(1, 1, vec![0.0]);
            s.heat_map(r, m, r, Sampling::Nearest, (f32::NAN, 1.0));
        });
        assert!(e.contains("not a pair of distinct finite values"), "{e}");
        let e = fails(&|s| {
            let m = s.external_map(4, 4, MAX_EXTERNAL_MAPS);
            s.heat_map(r, m, r, Sampling::Nearest, (0.0, 1.0));
        });
        assert!(e.contains("external slot 2"), "{e}");
        let e = fails(&|s| s.heat_map(r, MapId(3), r, Sampling::Nearest, (0.0, 1.0)));
        assert!(e.contains("map 3 was never added"), "{e}");
    }

    #[test]
    fn push_twin_matches_glsl() {
        let glsl = struct_offsets(vqscope_shaders::UI_FUSED, "Push").expect("Push");
        let rust = offsets_of::<FusedPush>(&[
            ("background", std::mem::offset_of!(FusedPush, background)),
            ("width", std::mem::offset_of!(FusedPush, width)),
            ("height", std::mem::offset_of!(FusedPush, height)),
            ("bins_x", std::mem::offset_of!(FusedPush, bins_x)),
        ]);
        assert_eq!(glsl, rust);
        // Every dispatch pushes exactly the block size the build recorded.
        let fused = vqscope_shaders::UI_FUSED.push_constant_size as usize;
        assert_eq!(std::mem::size_of::<FusedPush>(), fused);
        let rust = offsets_of::<BinPush>(&[
            ("prim_count", std::mem::offset_of!(BinPush, prim_count)),
            ("bins_x", std::mem::offset_of!(BinPush, bins_x)),
            ("bins_y", std::mem::offset_of!(BinPush, bins_y)),
        ]);
        for shader in [
            vqscope_shaders::UI_BIN_COUNT,
            vqscope_shaders::UI_BIN_SCAN,
            vqscope_shaders::UI_BIN_SCATTER,
            vqscope_shaders::UI_BIN_TILES,
        ] {
            assert_eq!(struct_offsets(shader, "Push").expect("bin Push"), rust);
            assert_eq!(std::mem::size_of::<BinPush>(), shader.push_constant_size as usize);
        }
    }

    #[test]
    fn bin_offsets_count_every_touched_bin_and_tile() {
        let prim = |x0: f32, y0: f32, x1: f32, y1: f32| GpuPrim {
            bounds: [x0, y0, x1, y1],
            ..Zeroable::zeroed()
        };
        // 3x2 bins of 16x16 tiles of 16 pixels.
        let prims = [
            // Bin 0, tile (0, 0).
            prim(1.0, 1.0, 5.0, 5.0),
            // Bins 0 and 1 of row 0: tile columns 12..19 (4 in bin 0, 3 in
            // bin 1), rows 0..2.
            prim(200.0, 10.0, 300.0, 20.0),
            // Off the bottom-right corner, clamped into bin 5 (2, 1): tile
            // columns 43..57 and rows 31..57 leave it columns 11..16 and
            // row 15.
            prim(700.0, 500.0, 900.0, 900.0),
            // No width, on a tile edge: in bin 0's list, in no tile's.
            prim(32.0, 32.0, 32.0, 40.0),
            // Just past bin 1's left edge: its tile (0, 0) only.
            prim(256.0, 0.0, 256.5, 1.0),
        ];
        let (bins, tiles) = bin_offsets(&prims, 3, 2);
        assert_eq!(bins, vec![0, 3, 5, 5, 5, 5, 6]);
        assert_eq!(tiles, vec![0, 9, 16, 16, 16, 16, 21]);
    }
}
