//! Binning (shaders/ui/bin_count, bin_scan, bin_scatter, bin_tiles) on the
//! GPU against a CPU twin written here: on random scenes of random sizes
//! every bin's list must hold exactly the primitives touching the bin, in
//! draw order, each with its image bit and the bin's tiles it overlaps, and
//! the tile lists must equal, word for word, every tile's primitives in
//! draw order laid out bin after bin, each bin's tiles row by row (so the
//! host's tile offsets must agree with the shader's spans). Both scan
//! modes, at every subgroup size lavapipe offers (4, 8, 16) or the
//! device's own; the same scenes binned in four passes and in one (the
//! tile lists straight from the primitives, no bin lists), which must give
//! the same tile lists.

use std::sync::Arc;

use bytemuck::Zeroable;
use vqscope_gpu::testing::{
    Rng, assert_no_validation_messages, at_every_lavapipe_subgroup_size, test_context,
};
use vqscope_gpu::{Buffer, GpuContext, Submitter, download_buffer};
use vqscope_renderer::encode::{BIN_TILES, Encoded, GpuPrim, TILE_SIZE, bin_range};
use vqscope_renderer::{Renderer, ScanMode};

const IMAGE_BIT: u32 = 1 << 31;
/// Kinds from KIND_TEXTURE (3) on are images; 0..=6 are all the kinds.
const KINDS: u64 = 7;

/// The bin's tiles `b` overlaps, counted from the bin's first tile and
/// clamped to the bin: x0 | x1 << 5 | y0 << 10 | y1 << 15, ends exclusive.
/// A pixel box overlaps tile t (pixels [16t, 16t + 16)) when it starts
/// before 16t + 16 and ends after 16t.
fn tile_span(b: [f32; 4], bin: [u32; 2]) -> u32 {
    let side = TILE_SIZE as f32;
    let first = [(bin[0] * BIN_TILES) as f32, (bin[1] * BIN_TILES) as f32];
    let clamp = |v: f32| v.clamp(0.0, BIN_TILES as f32) as u32;
    let x0 = clamp((b[0] / side).floor() - first[0]);
    let y0 = clamp((b[1] / side).floor() - first[1]);
    let x1 = clamp((b[2] / side).ceil() - first[0]);
    let y1 = clamp((b[3] / side).ceil() - first[1]);
    x0 | x1 << 5 | y0 << 10 | y1 << 15
}

/// Every bin's list as the CPU twin builds it: primitives in draw order.
fn twin_lists(enc: &Encoded) -> Vec<Vec<[u32; 2]>> {
    let mut lists = vec![Vec::new(); (enc.bins_x * enc.bins_y) as usize];
    for (i, prim) in enc.prims.iter().enumerate() {
        let [x0, y0, x1, y1] = bin_range(prim.bounds, enc.bins_x, enc.bins_y);
        let image = if prim.header[0] & 0xFF >= 3 { IMAGE_BIT } else { 0 };
        for y in y0..=y1 {
            for x in x0..=x1 {
                lists[(y * enc.bins_x + x) as usize]
                    .push([i as u32 | image, tile_span(prim.bounds, [x, y])]);
            }
        }
    }
    lists
}

/// The tile buffers as the twin builds them from the bin lists: (ranges,
/// lists). Tile slot `bin * BIN_TILES^2 + y * BIN_TILES + x` holds bin
/// `bin`'s tile (x, y); its range is (start, end) in the lists, which are
/// the slots' lists one after the other, each in its bin's list order.
fn twin_tiles(bin_lists: &[Vec<[u32; 2]>]) -> (Vec<[u32; 2]>, Vec<u32>) {
    let per_bin = (BIN_TILES * BIN_TILES) as usize;
    let mut tiles = vec![Vec::new(); bin_lists.len() * per_bin];
    for (bin, list) in bin_lists.iter().enumerate() {
        for &[index, span] in list {
            let field = |shift: u32| (span >> shift) & 31;
            for y in field(10)..field(15) {
                for x in field(0)..field(5) {
                    tiles[bin * per_bin + (y * BIN_TILES + x) as usize].push(index);
                }
            }
        }
    }
    let mut ranges = Vec::with_capacity(tiles.len());
    let mut lists = Vec::new();
    for tile in tiles {
        let start = lists.len() as u32;
        lists.extend(tile);
        ranges.push([start, lists.len() as u32]);
    }
    (ranges, lists)
}

/// A coordinate on an axis of `size` pixels: mostly inside, sometimes
/// off either edge or far away, sometimes on a tile or bin edge exactly.
fn coordinate(rng: &mut Rng, size: u32) -> f32 {
    match rng.below(10) {
        0 => -(rng.below(3000) as f32) - 0.5,
        1 => size as f32 + rng.below(3000) as f32,
        2 => (rng.below(u64::from(size) / 16 + 2) * 16) as f32,
        3 => 5e5,
        _ => rng.below(u64::from(size) * 64) as f32 / 64.0,
    }
}

/// A primitive's box: small mostly (a plot's segments), large sometimes;
/// rarely enough that 70k of them stay within a device's largest storage
/// buffer once listed per tile (lavapipe's: 128 MiB, 32M entries).
fn random_bounds(rng: &mut Rng, width: u32, height: u32) -> [f32; 4] {
    let x0 = coordinate(rng, width);
    let y0 = coordinate(rng, height);
    let (x1, y1) = if rng.below(64) == 0 {
        (coordinate(rng, width), coordinate(rng, height))
    } else {
        (x0 + rng.below(600) as f32 / 8.0, y0 + rng.below(600) as f32 / 8.0)
    };
    [x0, y0, x1.max(x0), y1.max(y0)]
}

/// A scene of `width` x `height` pixels with its bin grid and nothing in it.
fn empty_scene(width: u32, height: u32) -> Encoded {
    Encoded {
        width,
        height,
        bins_x: width.div_ceil(TILE_SIZE * BIN_TILES),
        bins_y: height.div_ceil(TILE_SIZE * BIN_TILES),
        ..Default::default()
    }
}

fn random_scene(rng: &mut Rng, width: u32, height: u32, prims: usize) -> Encoded {
    let mut enc = empty_scene(width, height);
    enc.prims = (0..prims)
        .map(|_| GpuPrim {
            bounds: random_bounds(rng, width, height),
            header: [rng.below(KINDS) as u32 | (rng.below(2) as u32) << 8, 0, 0, 0],
            ..Zeroable::zeroed()
        })
        .collect();
    enc.fill_offsets();
    enc
}

/// The first `words` words of `buffer`.
fn download_words(
    ctx: &Arc<GpuContext>,
    submitter: &mut Submitter,
    buffer: &Buffer,
    words: usize,
) -> Vec<u32> {
    if words == 0 {
        return Vec::new();
    }
    download_buffer(ctx, submitter, buffer, (words * 4) as u64)
        .unwrap()
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

/// Bins `enc` on the GPU and checks every list against the twin: the bin
/// lists only where `renderer` builds them (not in one pass).
fn check(
    ctx: &Arc<GpuContext>,
    renderer: &Renderer,
    submitter: &mut Submitter,
    enc: &Encoded,
    what: &str,
) {
    let buffers = renderer.upload(enc).unwrap();
    submitter
        .run(|rec| {
            buffers.record_upload(rec);
            renderer.record_binning(rec, &buffers)
        })
        .unwrap();
    let one_pass = renderer.bins_in_one_pass(enc.prims.len() as u32);
    let what = format!("{what}, {}", if one_pass { "one pass" } else { "four passes" });
    let entries = if one_pass { 0 } else { enc.bin_entries() as usize };
    let pairs = |words: Vec<u32>| -> Vec<[u32; 2]> {
        words.chunks_exact(2).map(|c| [c[0], c[1]]).collect()
    };
    let got = pairs(download_words(ctx, submitter, buffers.bin_lists(), entries * 2));
    let bin_lists = twin_lists(enc);
    for (bin, want) in bin_lists.iter().enumerate().filter(|_| !one_pass) {
        let (start, end) = (enc.bin_offsets[bin] as usize, enc.bin_offsets[bin + 1] as usize);
        assert_eq!(end - start, want.len(), "{what}: bin {bin} length");
        if let Some(k) = (0..want.len()).find(|&k| got[start + k] != want[k]) {
            panic!(
                "{what}: bin {bin} entry {k} of {}: GPU {:?}, twin {:?}",
                want.len(),
                got[start + k],
                want[k]
            );
        }
    }
    let (want_ranges, want_lists) = twin_tiles(&bin_lists);
    let slots = want_ranges.len();
    let ranges = pairs(download_words(ctx, submitter, buffers.tile_ranges(), slots * 2));
    if let Some(t) = (0..slots).find(|&t| ranges[t] != want_ranges[t]) {
        panic!("{what}: tile slot {t} range: GPU {:?}, twin {:?}", ranges[t], want_ranges[t]);
    }
    assert_eq!(enc.tile_entries() as usize, want_lists.len(), "{what}: host tile entries");
    let lists = download_words(ctx, submitter, buffers.tile_lists(), want_lists.len());
    if let Some(k) = (0..lists.len()).find(|&k| lists[k] != want_lists[k]) {
        let t = want_ranges.iter().position(|r| r[1] > k as u32).unwrap();
        panic!(
            "{what}: tile slot {t}, tile-list word {k}: GPU {:#x}, twin {:#x}",
            lists[k], want_lists[k]
        );
    }
}

/// Checks `enc` binned in four passes, then (up to 20,000 primitives: each
/// bin reads them all) in one.
fn check_both(
    ctx: &Arc<GpuContext>,
    renderer: &mut Renderer,
    submitter: &mut Submitter,
    enc: &Encoded,
    what: &str,
) {
    renderer.set_one_pass_limit(0);
    check(ctx, renderer, submitter, enc, what);
    if enc.prims.len() <= 20_000 {
        renderer.set_one_pass_limit(u32::MAX);
        check(ctx, renderer, submitter, enc, what);
    }
}

fn check_mode(mode: ScanMode) {
    let ctx = test_context();
    let mut submitter = Submitter::new(&ctx, 1).unwrap();
    let mut renderer = Renderer::new(&ctx, mode, None).unwrap();
    let mut rng = Rng(0x9E37_79B9 ^ mode as u64);
    // Empty, one primitive, part of a chunk, several of bin_tiles' chunks
    // of 768 entries, and chunks by the thousand.
    let counts = [0, 1, 255, 256, 257, 1 + rng.below(3000) as usize, 20_000, 70_000];
    for (round, &prims) in counts.iter().enumerate() {
        // Up to 24 x 20 bins: more than one group of 256 bins at times.
        let width = 1 + rng.below(6000) as u32;
        let height = 1 + rng.below(5000) as u32;
        let enc = random_scene(&mut rng, width, height, prims);
        let what = format!("{mode:?} round {round}: {prims} prims at {width}x{height}");
        check_both(&ctx, &mut renderer, &mut submitter, &enc, &what);
    }
    // More chunks than one row of workgroups: the dispatch goes on along y.
    renderer.limit_dispatch_width(3);
    let enc = random_scene(&mut rng, 4000, 3000, 2000);
    let what = format!("{mode:?}: 8 chunks in rows of 3");
    check_both(&ctx, &mut renderer, &mut submitter, &enc, &what);
    // The largest grid here: 8K, one primitive covering every bin.
    let mut enc = random_scene(&mut rng, 7680, 4320, 600);
    enc.prims[300].bounds = [-5.0, -5.0, 9000.0, 9000.0];
    enc.fill_offsets();
    check_both(&ctx, &mut renderer, &mut submitter, &enc, &format!("{mode:?}: 8K, 510 bins"));
    drop((renderer, submitter));
    assert_no_validation_messages();
}

/// Tile lists grow with the area primitives cover: a scene of enough
/// full-screen boxes is refused with an error at upload, not bound past the
/// device's largest storage buffer.
#[test]
fn tile_lists_past_the_largest_buffer_are_refused() {
    let ctx = test_context();
    let renderer = Renderer::new(&ctx, ScanMode::Lane0, None).unwrap();
    let (width, height) = (3840u32, 2160u32);
    let tiles = u64::from(width.div_ceil(TILE_SIZE) * height.div_ceil(TILE_SIZE));
    let limit = u64::from(ctx.info().max_storage_buffer_range);
    // One box more than the largest buffer holds words for every tile.
    let boxes = (limit / 4 / tiles + 1) as usize;
    let mut enc = empty_scene(width, height);
    let full = GpuPrim { bounds: [0.0, 0.0, width as f32, height as f32], ..Zeroable::zeroed() };
    enc.prims = vec![full; boxes];
    enc.fill_offsets();
    let err = renderer.upload(&enc).err().expect("refused");
    assert!(err.to_string().contains("tile lists need"), "{err}");
    // One box fewer fits (the check is not simply "many boxes").
    enc.prims.truncate(boxes - 1);
    enc.fill_offsets();
    assert!(u64::from(enc.tile_entries()) * 4 <= limit);
    drop(renderer);
    assert_no_validation_messages();
}

#[test]
fn subgroup_scan_bins_like_the_twin() {
    if !at_every_lavapipe_subgroup_size("subgroup_scan_bins_like_the_twin") {
        return;
    }
    check_mode(ScanMode::Subgroup);
}

#[test]
fn lane0_scan_bins_like_the_twin() {
    if !at_every_lavapipe_subgroup_size("lane0_scan_bins_like_the_twin") {
        return;
    }
    check_mode(ScanMode::Lane0);
}
