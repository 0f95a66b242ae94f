//! The primitives users build a frame from. A [`Scene`] is rebuilt every
//! frame (retained per frame): the draw order is the order of the calls, and
//! the fused shader reproduces it exactly.

pub use crate::paint::{Color, Rect};
use crate::text::TextRun;

/// The display peak HDR is mapped to unless told otherwise: BT.2408's
/// reference white (203 nits), so HDR's diffuse white lands on the SDR
/// window's white, as mpv and most players do.
pub const DEFAULT_PEAK_NITS: u16 = 203;

/// How an image is sampled when scaled.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Sampling {
    /// Each output pixel takes the texel under its centre (pixel peeping).
    Nearest,
    #[default]
    Bilinear,
}

/// A handle to an RGBA texture added with [`Scene::add_texture`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TextureId(pub(crate) u32);

/// A handle to a YUV picture added with [`Scene::add_yuv`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct YuvId(pub(crate) u32);

/// A handle to a scalar map added with [`Scene::add_map`] (host values) or
/// [`Scene::external_map`] (a GPU buffer bound when the frame is recorded).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MapId(pub(crate) u32);

/// Most external buffers one frame can take (each an external map slot and
/// a source of external pictures' planes; the renderer copies what the
/// scene uses of them into its texel buffer on the GPU).
pub const MAX_EXTERNAL_MAPS: usize = 2;

/// Where the values of a scalar map come from.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum MapSource {
    /// Row-major floats that travel with the scene (tests, legends).
    Host(Vec<f32>),
    /// Row-major floats in the storage buffer passed as `maps[slot]` to
    /// [`crate::Renderer::record_with_maps`]: a metric kernel's output,
    /// copied into the texel buffer on the GPU, never through the host.
    External(usize),
}

/// A `width` x `height` grid of `f32` values drawn as a heat map.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ScalarMap {
    pub width: u32,
    pub height: u32,
    pub source: MapSource,
}

/// Chroma subsampling of a YUV picture.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Subsampling {
    Yuv420,
    Yuv422,
    Yuv444,
}

/// YUV → RGB matrix. BT.2020 also means BT.2020 primaries: the picture is
/// gamut-mapped to BT.709's for the window.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum YuvMatrix {
    Bt601,
    Bt709,
    Bt2020,
}

/// How coded values map to light. HDR pictures are tone-mapped so that the
/// scene's display peak ([`Scene::set_display_peak_nits`]) is the window's
/// white; see `color.rs`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Transfer {
    /// Shown as coded (BT.709 / BT.1886 content on an SDR window).
    #[default]
    Sdr,
    /// SMPTE ST 2084 (HDR10).
    Pq,
    /// ARIB STD-B67 hybrid log-gamma.
    Hlg,
}

/// What a YUV picture is, wherever its samples lie: size, depth, chroma
/// layout and colour. Planes are tightly packed rows of `width` (luma) or
/// chroma-width samples; 16-bit samples (bit depth > 8) are little-endian.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct YuvFormat {
    pub width: u32,
    pub height: u32,
    pub bit_depth: u32,
    pub subsampling: Subsampling,
    pub matrix: YuvMatrix,
    pub full_range: bool,
    pub transfer: Transfer,
}

/// A YUV picture with its samples on the host.
#[derive(Debug, Clone)]
pub struct YuvPicture {
    pub format: YuvFormat,
    /// The Y, Cb, Cr planes back to back (as `vqscope_video::Frame::data`).
    pub data: Vec<u8>,
}

/// A YUV picture whose planes already lie in a GPU buffer: a decoded frame
/// uploaded once, which the metric kernels read too. The buffer is passed
/// as external buffer `slot` of [`crate::Renderer::record_with_maps`], and
/// the renderer copies the planes on the GPU, never through the host.
/// The planes start at the byte offsets `planes` (Y, Cb, Cr; multiples of 4).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ExternalYuv {
    pub format: YuvFormat,
    pub slot: usize,
    pub planes: [u64; 3],
}

/// Where a picture's samples come from.
#[derive(Debug, Clone)]
pub(crate) enum PictureSource {
    Host(YuvPicture),
    External(ExternalYuv),
}

/// A rounded rectangle with optional border.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RectStyle {
    pub fill: Color,
    /// Corner radii: top-left, top-right, bottom-right, bottom-left.
    pub radii: [f32; 4],
    pub border_width: f32,
    pub border: Color,
}

impl RectStyle {
    /// A plain filled rectangle.
    pub fn fill(color: Color) -> Self {
        Self { fill: color, radii: [0.0; 4], border_width: 0.0, border: Color::TRANSPARENT }
    }

    /// Same radius on every corner.
    pub fn rounded(mut self, r: f32) -> Self {
        self.radii = [r; 4];
        self
    }

    pub fn with_border(mut self, width: f32, color: Color) -> Self {
        self.border_width = width;
        self.border = color;
        self
    }
}

/// One drawing command, in draw order.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Command {
    Rect { rect: Rect, style: RectStyle },
    Circle { center: [f32; 2], radius: f32, ring_width: f32, color: Color },
    Line { from: [f32; 2], to: [f32; 2], width: f32, color: Color },
    Texture { dst: Rect, texture: TextureId, src: Rect, sampling: Sampling, opacity: f32 },
    Yuv { dst: Rect, picture: YuvId, src: Rect, sampling: Sampling },
    HeatMap { dst: Rect, map: MapId, src: Rect, sampling: Sampling, range: (f32, f32) },
    Text(TextRun),
    PushClip(Rect),
    PopClip,
}

/// A frame's worth of primitives, plus the textures and pictures they use.
#[derive(Debug, Clone)]
pub struct Scene {
    pub(crate) width: u32,
    pub(crate) height: u32,
    pub(crate) background: Color,
    pub(crate) commands: Vec<Command>,
    pub(crate) textures: Vec<(u32, u32, Vec<u8>)>,
    pub(crate) pictures: Vec<PictureSource>,
    pub(crate) maps: Vec<ScalarMap>,
    pub(crate) display_peak_nits: u16,
}

impl Scene {
    /// An empty scene of `width` x `height` pixels cleared to `background`.
    pub fn new(width: u32, height: u32, background: Color) -> Self {
        Self {
            width,
            height,
            background,
            commands: Vec::new(),
            textures: Vec::new(),
            pictures: Vec::new(),
            maps: Vec::new(),
            display_peak_nits: DEFAULT_PEAK_NITS,
        }
    }

    /// The window's peak luminance that HDR pictures are tone-mapped to
    /// (their white), clamped to 80..=10000 nits; default
    /// [`DEFAULT_PEAK_NITS`].
    pub fn set_display_peak_nits(&mut self, nits: u16) {
        self.display_peak_nits = nits.clamp(80, 10000);
    }

    pub fn width(&self) -> u32 {
        self.width
    }

    pub fn height(&self) -> u32 {
        self.height
    }

    /// Number of drawing commands (a text run counts once).
    pub fn len(&self) -> usize {
        self.commands.len()
    }

    pub fn is_empty(&self) -> bool {
        self.commands.is_empty()
    }

    /// A rectangle with per-corner radii, fill and border.
    pub fn rect(&mut self, rect: Rect, style: RectStyle) {
        self.commands.push(Command::Rect { rect, style });
    }

    /// A filled disc.
    pub fn circle(&mut self, center: [f32; 2], radius: f32, color: Color) {
        self.commands.push(Command::Circle { center, radius, ring_width: 0.0, color });
    }

    /// A ring: the band of `width` centred on the circle of `radius`.
    pub fn ring(&mut self, center: [f32; 2], radius: f32, width: f32, color: Color) {
        self.commands.push(Command::Circle { center, radius, ring_width: width, color });
    }

    /// A line segment of `width` with round caps.
    pub fn line(&mut self, from: [f32; 2], to: [f32; 2], width: f32, color: Color) {
        self.commands.push(Command::Line { from, to, width, color });
    }

    /// Connected segments through `points` (round joins and caps).
    pub fn polyline(&mut self, points: &[[f32; 2]], width: f32, color: Color) {
        for pair in points.windows(2) {
            self.line(pair[0], pair[1], width, color);
        }
    }

    /// Adds an RGBA8 texture (straight alpha, sRGB, rows tightly packed).
    pub fn add_texture(&mut self, width: u32, height: u32, rgba: Vec<u8>) -> TextureId {
        assert_eq!(rgba.len(), width as usize * height as usize * 4, "texture size");
        self.textures.push((width, height, rgba));
        TextureId(self.textures.len() as u32 - 1)
    }

    /// Draws the `src` texel rectangle of a texture into `dst`.
    pub fn image(
        &mut self,
        dst: Rect,
        texture: TextureId,
        src: Rect,
        sampling: Sampling,
        opacity: f32,
    ) {
        self.commands.push(Command::Texture { dst, texture, src, sampling, opacity });
    }

    /// Adds a YUV picture.
    pub fn add_yuv(&mut self, picture: YuvPicture) -> YuvId {
        self.push_picture(PictureSource::Host(picture))
    }

    /// Adds a YUV picture whose planes are in a GPU buffer (see
    /// [`ExternalYuv`]); drawn with [`Scene::yuv_image`] like any other.
    pub fn add_external_yuv(&mut self, picture: ExternalYuv) -> YuvId {
        self.push_picture(PictureSource::External(picture))
    }

    fn push_picture(&mut self, picture: PictureSource) -> YuvId {
        self.pictures.push(picture);
        YuvId(self.pictures.len() as u32 - 1)
    }

    /// Draws the `src` luma-sample rectangle of a YUV picture into `dst`,
    /// converted to RGB in the shader.
    pub fn yuv_image(&mut self, dst: Rect, picture: YuvId, src: Rect, sampling: Sampling) {
        self.commands.push(Command::Yuv { dst, picture, src, sampling });
    }

    /// Adds a `width` x `height` map of host values (row-major). For tests
    /// and small things such as a legend's ramp; a metric's per-pixel map
    /// stays on the GPU through [`Scene::external_map`] instead.
    pub fn add_map(&mut self, width: u32, height: u32, values: Vec<f32>) -> MapId {
        assert_eq!(values.len(), width as usize * height as usize, "map size");
        self.push_map(ScalarMap { width, height, source: MapSource::Host(values) })
    }

    /// Declares a `width` x `height` map of `f32` values (row-major, from
    /// the buffer's start) that lives in a GPU buffer the caller binds as
    /// `maps[slot]` of [`crate::Renderer::record_with_maps`], so a kernel's
    /// output (the SSIM map) is drawn without a trip through the host (it is
    /// copied on the GPU when the frame is recorded). `slot` must be below
    /// [`MAX_EXTERNAL_MAPS`]; encoding fails otherwise.
    pub fn external_map(&mut self, width: u32, height: u32, slot: usize) -> MapId {
        self.push_map(ScalarMap { width, height, source: MapSource::External(slot) })
    }

    fn push_map(&mut self, map: ScalarMap) -> MapId {
        self.maps.push(map);
        MapId(self.maps.len() as u32 - 1)
    }

    /// Draws the `src` rectangle of a map (in map cells) into `dst` as a
    /// heat map: each value `v` is normalised to `t = (v - lo) / (hi - lo)`,
    /// clamped to 0..=1, and coloured with the inferno ramp *reversed*, so
    /// `v <= lo` is inferno's bright yellow and `v >= hi` its black
    /// ([`crate::heat`] has the ramp and a legend). Low values are the ones
    /// to find (low SSIM is damage), so they are the ones that glow. A value
    /// that is not a number shows as magenta: an unwritten or poisoned map
    /// must not pass for a good one. Bilinear sampling interpolates values,
    /// then colours. `lo > hi` turns the ramp round, for maps whose high
    /// values are the damage (CIEDE2000's ΔE): `v >= lo` glows, `v <= hi` is
    /// black. `lo` and `hi` must be finite and distinct, or encoding fails.
    pub fn heat_map(
        &mut self,
        dst: Rect,
        map: MapId,
        src: Rect,
        sampling: Sampling,
        range: (f32, f32),
    ) {
        self.commands.push(Command::HeatMap { dst, map, src, sampling, range });
    }

    /// A run of text (laid out with the bundled font when encoded).
    pub fn text(&mut self, run: TextRun) {
        self.commands.push(Command::Text(run));
    }

    /// Clips every following primitive to `rect` (intersected with the
    /// current clip) until the matching [`Scene::pop_clip`].
    pub fn push_clip(&mut self, rect: Rect) {
        self.commands.push(Command::PushClip(rect));
    }

    pub fn pop_clip(&mut self) {
        self.commands.push(Command::PopClip);
    }
}
