//! The libvmaf parity checks of integer VIF, shared by the CPU twin's test
//! (`cpu_vif_parity`) and the GPU kernels' test (`gpu_vif_parity`): every VIF
//! value of every frame of the shared clips and of Netflix's fixtures, in
//! `vmaf.json` (`integer_vif_scale0..3`) and in the debug run's
//! `features.json` (`integer_vif`, `integer_vif_num/den`,
//! `integer_vif_num/den_scaleK` too), must print the same with `%.6f`; and on
//! synthetic frames of odd and minimal sizes, every value must equal
//! libvmaf's double bit for bit. Expected values come only from libvmaf (its
//! JSON, or the table at the end of this file).

use std::path::Path;

use vqscope_metrics::PlaneView;
use vqscope_metrics::features::vif::{FEATURE_NAMES, VifFeatures, VifOptions};
use vqscope_video::raw::{RawFile, RawGeometry};
use vqscope_video::y4m::Y4mFile;
use vqscope_video::{ChromaFormat, Frame};

use crate::clips::{
    PAIRS, distorted_y4m, libvmaf_frames, libvmaf_json, printed, reference_y4m, shared_dir,
    unpacked,
};

/// What computes a frame pair's VIF values: the CPU twin or the GPU kernels.
pub trait Backend {
    /// Every VIF value of one pair of luma planes with `options`.
    fn vif(
        &mut self,
        reference: &PlaneView,
        distorted: &PlaneView,
        options: &VifOptions,
    ) -> VifFeatures;
}

/// The luma planes of a clip, with their geometry.
struct Luma {
    width: usize,
    height: usize,
    bpc: u32,
    frames: Vec<Vec<u16>>,
}

/// Luma of every frame from a `vqscope-video` source.
fn luma_of(mut next: impl FnMut() -> Option<Frame>) -> Luma {
    let mut frames = Vec::new();
    let mut geometry = None;
    while let Some(f) = next() {
        geometry = Some(f.geometry);
        frames.push(f.plane_samples(0));
    }
    let g = geometry.expect("no frames");
    Luma { width: g.width as usize, height: g.height as usize, bpc: g.format.bit_depth, frames }
}

fn y4m_luma(path: &Path) -> Luma {
    let mut f = Y4mFile::open(path).expect("open y4m");
    luma_of(|| f.next_frame().expect("read y4m frame"))
}

/// Luma of every frame of a raw 4:2:0 file.
fn raw_luma(path: &Path, width: usize, height: usize, bpc: u32) -> Luma {
    let geometry = RawGeometry {
        width: width as u32,
        height: height as u32,
        chroma: ChromaFormat::Yuv420,
        bit_depth: bpc,
    };
    let mut f = RawFile::open(path, geometry).expect("open raw yuv");
    luma_of(|| f.next_frame().expect("read raw frame"))
}

fn ours(backend: &mut dyn Backend, r: &Luma, d: &Luma) -> Vec<VifFeatures> {
    assert_eq!((r.width, r.height, r.bpc), (d.width, d.height, d.bpc));
    assert_eq!(r.frames.len(), d.frames.len());
    r.frames
        .iter()
        .zip(&d.frames)
        .map(|(a, b)| {
            let pa = PlaneView::packed(r.width, r.height, r.bpc, a);
            let pb = PlaneView::packed(d.width, d.height, d.bpc, b);
            backend.vif(&pa, &pb, &VifOptions::default())
        })
        .collect()
}

/// Compares every VIF key present in `json` with our values; returns
/// (values checked, mismatch descriptions).
fn compare(label: &str, json: &serde_json::Value, got: &[VifFeatures]) -> (usize, Vec<String>) {
    let frames = json["frames"].as_array().expect("frames");
    assert_eq!(frames.len(), got.len(), "{label}: frame count");
    let keys: Vec<&str> =
        FEATURE_NAMES.iter().copied().filter(|k| frames[0]["metrics"].get(*k).is_some()).collect();
    assert!(keys.len() >= 4, "{label}: no VIF keys");
    let mut checked = 0;
    let mut bad = Vec::new();
    for key in keys {
        let want = libvmaf_frames(json, key);
        for (i, (w, f)) in want.iter().zip(got).enumerate() {
            let ours = f.named().iter().find(|(n, _)| *n == key).expect("name").1;
            checked += 1;
            if printed(ours) != printed(*w) {
                bad.push(format!(
                    "{label} frame {i} {key}: libvmaf {} ours {} ({ours:e})",
                    printed(*w),
                    printed(ours)
                ));
            }
        }
    }
    (checked, bad)
}

fn report(label: &str, results: &[(usize, Vec<String>)]) {
    let checked: usize = results.iter().map(|r| r.0).sum();
    let bad: Vec<&String> = results.iter().flat_map(|r| &r.1).collect();
    eprintln!("{label}: {checked} values checked, {} mismatches", bad.len());
    for b in bad.iter().take(40) {
        eprintln!("  {b}");
    }
    assert!(bad.is_empty(), "{label}: {} of {checked} VIF values differ from libvmaf", bad.len());
}

/// Every frame of the three shared clip pairs against libvmaf's JSON.
pub fn check_shared_clips(backend: &mut dyn Backend) {
    let mut results = Vec::new();
    for pair in PAIRS {
        let r = y4m_luma(&reference_y4m(pair));
        let d = y4m_luma(&distorted_y4m(pair));
        let got = ours(backend, &r, &d);
        for kind in ["vmaf", "features"] {
            let res = compare(&format!("{pair}.{kind}"), &libvmaf_json(pair, kind), &got);
            eprintln!("{pair}.{kind}: {} checked, {} mismatches", res.0, res.1.len());
            results.push(res);
        }
    }
    report("shared clips", &results);
}

/// Netflix's own fixtures (raw yuv), with libvmaf 3.2.0 CLI output.
pub fn check_upstream_fixtures(backend: &mut dyn Backend) {
    let cases: [(&str, &str, &str, usize, usize, u32); 3] = [
        (
            "src01_576x324_420p10",
            "src01_hrc00_576x324.yuv420p10le.yuv",
            "src01_hrc01_576x324.yuv420p10le.yuv",
            576,
            324,
            10,
        ),
        (
            "sparks_480x270_420p10",
            "sparks_ref_480x270.yuv42010le.yuv",
            "sparks_dis_480x270.yuv42010le.yuv",
            480,
            270,
            10,
        ),
        (
            "src01_q160x90_420p8",
            "ref_test_0_1_src01_hrc00_576x324_576x324_vs_src01_hrc01_576x324_576x324_q_160x90.yuv",
            "dis_test_0_1_src01_hrc00_576x324_576x324_vs_src01_hrc01_576x324_576x324_q_160x90.yuv",
            160,
            90,
            8,
        ),
    ];
    let mut results = Vec::new();
    for (name, rf, df, w, h, bpc) in cases {
        let r = raw_luma(&unpacked("upstream_fixtures", rf), w, h, bpc);
        let d = raw_luma(&unpacked("upstream_fixtures", df), w, h, bpc);
        let got = ours(backend, &r, &d);
        for kind in ["vmaf", "features"] {
            let path = shared_dir().join("upstream_fixtures").join(format!("{name}.{kind}.json"));
            let json: serde_json::Value =
                serde_json::from_str(&std::fs::read_to_string(&path).expect("read json"))
                    .expect("parse json");
            let res = compare(&format!("{name}.{kind}"), &json, &got);
            eprintln!("{name}.{kind}: {} checked, {} mismatches", res.0, res.1.len());
            results.push(res);
        }
    }
    report("upstream fixtures", &results);
}

/// A deterministic reference/distorted pair for the libvmaf comparison below,
/// generated identically by the C program that produced
/// [`LIBVMAF_SYNTHETIC`]: a 64-bit LCG; the reference is a quadratic ramp
/// plus noise, with flat 16×16 blocks (so both the flat and the textured
/// branches run); the distorted frame adds noise (`mode` 0) or doubles the
/// contrast (`mode` 1, where the gain limit matters).
fn synthetic_pair(w: usize, h: usize, bpc: u32, seed: u64, mode: u32) -> (Vec<u16>, Vec<u16>) {
    let mut st = seed;
    let mut next = move || {
        st = st.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (st >> 33) as u32
    };
    let maxv = (1u32 << bpc) - 1;
    let mut r = vec![0u16; w * h];
    for y in 0..h {
        for x in 0..w {
            let flat = ((x >> 4) + (y >> 4)) % 3 == 0;
            let (xu, yu) = (x as u64, y as u64);
            let base = if flat {
                u64::from(maxv / 3)
            } else {
                (xu * xu * 3 + yu * yu + 7 * xu * yu) / 4 % (u64::from(maxv) + 1)
            };
            let v = base + u64::from(next() % (maxv / 16 + 1));
            r[y * w + x] = v.min(u64::from(maxv)) as u16;
        }
    }
    let maxv = i64::from(maxv);
    let d = r
        .iter()
        .map(|&s| {
            let s = i64::from(s);
            let k = maxv / 32 + 1;
            let v = if mode == 0 {
                s + i64::from(next()) % (2 * k + 1) - k
            } else {
                2 * s - maxv / 2 + i64::from(next() % 3) - 1
            };
            v.clamp(0, maxv) as u16
        })
        .collect();
    (r, d)
}

/// Every VIF value, bit for bit (not just to 6 digits), against libvmaf on
/// synthetic frames of odd and minimal sizes, all depths, both gain limits.
pub fn check_synthetic_frames(backend: &mut dyn Backend) {
    let mut checked = 0;
    let mut bad = Vec::new();
    for &(w, h, bpc, seed, mode, egl_1, want) in LIBVMAF_SYNTHETIC {
        let (r, d) = synthetic_pair(w, h, bpc, seed, mode);
        let opts = if egl_1 { VifOptions::neg() } else { VifOptions::default() };
        let got = backend.vif(
            &PlaneView::packed(w, h, bpc, &r),
            &PlaneView::packed(w, h, bpc, &d),
            &opts,
        );
        for ((name, ours), want) in got.named().iter().zip(want) {
            checked += 1;
            if ours.to_bits() != want.to_bits() {
                bad.push(format!(
                    "{w}x{h} {bpc}-bit seed {seed} mode {mode} egl_1 {egl_1} {name}: \
                     libvmaf {want:e} ours {ours:e}"
                ));
            }
        }
    }
    eprintln!("synthetic: {checked} values checked, {} mismatches", bad.len());
    for b in bad.iter().take(40) {
        eprintln!("  {b}");
    }
    assert!(bad.is_empty(), "{} of {checked} VIF values differ from libvmaf", bad.len());
}

/// `(width, height, bpc, seed, mode, egl_1, values)`.
type SyntheticCase = (usize, usize, u32, u64, u32, bool, [f64; 15]);

/// libvmaf 3.2.0 on synthetic frames ([`synthetic_pair`]): `(width, height,
/// bpc, seed, mode, egl_1, values)`, the values in
/// [`FEATURE_NAMES`] order as the doubles libvmaf's feature collector holds
/// (printed with `%.17g`, so they round-trip exactly). Produced by a small C
/// program linking a plain-C (`-Denable_asm=false`) release build of libvmaf
/// v3.2.0, which calls `vmaf_use_feature("vif", debug=true[,
/// vif_enhn_gain_limit=1])`, `vmaf_read_pictures` and
/// `vmaf_feature_score_at_index`. The sizes cover odd widths and heights at
/// every scale, the 16×16 minimum, and depths 8, 9, 10, 12, 14 and 16.
///
/// The 17 significant digits are libvmaf's output verbatim (more than a
/// double needs, hence the lint allowance), so they can be checked against a
/// rerun of the C program.
#[rustfmt::skip]
#[allow(clippy::excessive_precision)]
const LIBVMAF_SYNTHETIC: &[SyntheticCase] = &[
    (16, 16, 8, 1001, 0, true, [0.24631240963935852, 0.99991476535797119, 0.99996715784072876, 0.99998080730438232, 0.31092766492056162, 304.61650133132935, 979.7021484375, 220.62255859375, 895.7021484375, 63.994544982910156, 64.0, 15.99947452545166, 16.0, 3.9999232292175293, 4.0]),
    (16, 16, 10, 1002, 1, false, [1.5218576192855835, 0.99990743398666382, 0.99996113777160645, 0.99995708465576172, 1.4777698932335896, 1469.5577354431152, 994.44287109375, 1385.564453125, 910.44287109375, 63.994075775146484, 64.0, 15.999378204345703, 16.0, 3.9998283386230469, 4.0]),
    (16, 16, 12, 1003, 0, false, [0.23874291777610779, 0.99992185831069946, 0.99997127056121826, 0.99998104572296143, 0.3040488204388026, 297.6897759437561, 979.08544921875, 213.6953125, 895.08544921875, 63.994998931884766, 64.0, 15.999540328979492, 16.0, 3.9999241828918457, 4.0]),
    (17, 16, 10, 1004, 0, true, [0.32738810777664185, 0.95265746116638184, 0.99995303153991699, 0.99999183416366577, 0.37286701644064713, 483.70155501365662, 1297.24951171875, 394.30859375, 1204.4072265625, 69.393745422363281, 72.84228515625, 15.999248504638672, 16.0, 3.9999673366546631, 4.0]),
    (16, 17, 8, 1005, 0, false, [0.44696956872940063, 1.0001147985458374, 0.99995672702789307, 0.9999854564666748, 0.48356936596610661, 773.06378650665283, 1598.66162109375, 667.27099609375, 1492.8779296875, 85.793540954589844, 85.78369140625, 15.999307632446289, 16.0, 3.9999418258666992, 4.0]),
    (16, 17, 12, 1006, 0, true, [0.40187826752662659, 0.8685154914855957, 0.98749232292175293, 0.99999004602432251, 0.44073565009299626, 667.92239594459534, 1515.4716796875, 560.41650390625, 1394.4931640625, 87.66748046875, 100.939453125, 15.838451385498047, 16.0390625, 3.99996018409729, 4.0]),
    (19, 23, 10, 1007, 0, false, [0.53914922475814819, 0.96521955728530884, 1.0073438882827759, 0.99995839595794678, 0.60956816333692609, 2305.6121077537537, 3782.36962890625, 1706.208984375, 3164.63232421875, 523.374267578125, 542.2333984375, 72.029022216796875, 71.50390625, 3.9998335838317871, 4.0]),
    (31, 33, 8, 1008, 0, true, [0.65212541818618774, 0.94167757034301758, 0.9814029335975647, 0.99039590358734131, 0.68696196166451617, 8233.4212493896484, 11985.26513671875, 6903.8583984375, 10586.703125, 1032.635009765625, 1096.5908203125, 233.88633728027344, 238.318359375, 63.04150390625, 63.65283203125]),
    (31, 33, 12, 1009, 0, false, [0.51769793033599854, 0.96095627546310425, 0.98146331310272217, 0.98230665922164917, 0.61294592113625057, 5537.8882827758789, 9034.87255859375, 3682.2587890625, 7112.75537109375, 1448.862548828125, 1507.72998046875, 335.60391235351562, 341.9423828125, 71.163032531738281, 72.44482421875]),
    (33, 17, 10, 1010, 0, true, [0.60318094491958618, 0.95577621459960938, 0.98821991682052612, 0.99374699592590332, 0.66841081623831133, 3794.5006446838379, 5676.89892578125, 2803.66845703125, 4648.13818359375, 767.46075439453125, 802.97119140625, 179.91392517089844, 182.05859375, 43.457508087158203, 43.73095703125]),
    (47, 63, 8, 1011, 0, false, [0.65015465021133423, 0.95392942428588867, 0.97760272026062012, 0.98547232151031494, 0.6923581950780302, 24428.770004272461, 35283.42724609375, 19807.015625, 30465.08203125, 3627.728759765625, 3802.93212890625, 824.340087890625, 843.22607421875, 169.68553161621094, 172.18701171875]),
    (47, 63, 12, 1012, 0, true, [0.5824095606803894, 0.96915715932846069, 0.98532277345657349, 0.9887547492980957, 0.66660883262815718, 20431.211791992188, 30649.4765625, 13999.5986328125, 24037.37890625, 5050.974609375, 5211.71875, 1146.3109130859375, 1163.38623046875, 234.32763671875, 236.99267578125]),
    (63, 47, 10, 1013, 0, false, [0.65373039245605469, 0.96404367685317993, 0.98352235555648804, 0.98955553770065308, 0.71233633964215715, 25719.035018920898, 36105.1845703125, 19204.33203125, 29376.533203125, 5170.5419921875, 5363.3896484375, 1115.2557373046875, 1133.9404296875, 228.90525817871094, 231.3212890625]),
    (101, 77, 8, 1014, 0, true, [0.65328270196914673, 0.94644570350646973, 0.97237390279769897, 0.98110777139663696, 0.69752469557385532, 67094.873901367188, 96189.9619140625, 53549.234375, 81969.46875, 10473.3740234375, 11066.005859375, 2519.0888671875, 2590.65869140625, 553.1766357421875, 563.82861328125]),
    (101, 77, 10, 1015, 1, false, [0.4050557017326355, 0.89211392402648926, 1.0492624044418335, 1.1311312913894653, 0.49326272864880732, 47993.632080078125, 97298.314453125, 32767.935546875, 80897.359375, 11543.8388671875, 12939.87109375, 2987.275146484375, 2847.02392578125, 694.58251953125, 614.06005859375]),
    (101, 77, 12, 1016, 0, false, [0.63039422035217285, 0.96908891201019287, 0.98740226030349731, 0.99416887760162354, 0.70530901966335469, 65805.272644042969, 93299.91650390625, 45971.453125, 72924.9296875, 15339.1865234375, 15828.4619140625, 3703.588623046875, 3750.8408203125, 791.04437255859375, 795.68408203125]),
    (128, 72, 10, 1017, 0, true, [0.66318446397781372, 0.96138274669647217, 0.98142701387405396, 0.9891771674156189, 0.71426803842962905, 82604.156982421875, 115648.681640625, 63760.29296875, 96142.625, 14688.3642578125, 15278.373046875, 3346.714111328125, 3410.048828125, 808.78564453125, 817.634765625]),
    (150, 99, 8, 1018, 0, false, [0.65587878227233887, 0.96011960506439209, 0.98432260751724243, 0.99074602127075195, 0.70320879340190745, 130860.21020507812, 186090.1220703125, 103397.2578125, 157646.90625, 21487.447265625, 22379.96875, 4847.41015625, 4924.615234375, 1128.094970703125, 1138.6318359375]),
    (150, 99, 12, 1019, 0, true, [0.64885538816452026, 0.96833997964859009, 0.98552471399307251, 0.99179023504257202, 0.7175213446596137, 134478.55322265625, 187420.9794921875, 95788.625, 147627.078125, 30297.728515625, 31288.31640625, 6851.09716796875, 6951.7255859375, 1541.1025390625, 1553.859375]),
    (255, 129, 10, 1020, 0, false, [0.66584450006484985, 0.95678704977035522, 0.98104554414749146, 0.99010002613067627, 0.71196259097760861, 292821.38818359375, 411287.60400390625, 231283.078125, 347353.0, 47678.73828125, 49832.1328125, 11190.84375, 11407.05859375, 2668.72802734375, 2695.41259765625]),
    (321, 181, 8, 1021, 0, true, [0.65820693969726562, 0.95077800750732422, 0.97650867700576782, 0.9861869215965271, 0.70460963788242192, 515899.5849609375, 732177.87158203125, 407055.25, 618430.5, 84143.7734375, 88499.9140625, 19992.8359375, 20473.79296875, 4707.7255859375, 4773.66455078125]),
    (321, 181, 10, 1022, 1, false, [0.39590334892272949, 0.8624267578125, 1.0249321460723877, 1.12183678150177, 0.47457384213250337, 346827.87548828125, 730819.62109375, 244424.625, 617384.5625, 76025.3046875, 88152.765625, 20991.185546875, 20480.560546875, 5386.76025390625, 4801.732421875]),
    (321, 181, 12, 1023, 0, false, [0.66600668430328369, 0.96575522422790527, 0.98403233289718628, 0.99103540182113647, 0.72239738323696523, 538483.6337890625, 745411.9384765625, 404317.09375, 607076.625, 105533.921875, 109276.0546875, 23344.55859375, 23723.365234375, 5288.0595703125, 5335.8935546875]),
    (64, 300, 10, 1024, 0, true, [0.66386038064956665, 0.95362895727157593, 0.97882777452468872, 0.98769849538803101, 0.71022445243492249, 168946.5361328125, 237877.66748046875, 133165.65625, 200592.859375, 27587.232421875, 28928.685546875, 6585.5576171875, 6728.00439453125, 1608.08984375, 1628.1181640625]),
    (40, 36, 9, 1025, 1, false, [0.41322070360183716, 0.9243471622467041, 1.0912991762161255, 1.1753247976303101, 0.5083251049770745, 9143.3501434326172, 17987.20947265625, 6139.587890625, 14857.890625, 2323.22021484375, 2513.36328125, 563.74127197265625, 516.578125, 116.80076599121094, 99.37744140625]),
    (57, 41, 14, 1026, 0, true, [0.49956727027893066, 0.95322942733764648, 0.97887754440307617, 0.98825937509536743, 0.59936265217097084, 11776.160034179688, 19647.80419921875, 7687.37939453125, 15388.076171875, 3083.53759765625, 3234.83251953125, 795.0029296875, 812.15771484375, 210.2401123046875, 212.73779296875]),
    (66, 34, 16, 1027, 1, false, [0.47595083713531494, 0.81115502119064331, 0.82465273141860962, 0.83700758218765259, 0.54836499463908628, 11454.871612548828, 20889.13720703125, 7817.384765625, 16424.7734375, 2807.739501953125, 3461.4091796875, 649.66973876953125, 787.81005859375, 180.07760620117188, 215.14453125]),
    (48, 80, 16, 1028, 0, false, [0.53421014547348022, 0.96379393339157104, 0.98705881834030151, 0.99457705020904541, 0.63145561581116816, 21634.332611083984, 34261.05029296875, 14217.5361328125, 26614.126953125, 5556.50341796875, 5765.240234375, 1468.565673828125, 1487.81982421875, 391.72738647460938, 393.86328125]),
];

// How LIBVMAF_SYNTHETIC was produced (libvmaf v3.2.0, meson release build with
// -Ddefault_library=static -Denable_asm=false -Denable_float=false; linked with
// `gcc -O2 harness.c libvmaf.a -lm -lpthread -lstdc++`; stdin lines
// "w h bpc seed mode egl_1"). The generator must stay identical to synthetic_pair.
//
// // Differential oracle: libvmaf 3.2.0 (plain C build) integer VIF on synthetic frames.
// #include <stdio.h>
// #include <stdint.h>
// #include <string.h>
// #include <stdlib.h>
// #include "libvmaf/libvmaf.h"
//
// static uint64_t st;
// static uint32_t nxt(void) { st = st * 6364136223846793005ULL + 1442695040888963407ULL; return (uint32_t)(st >> 33); }
//
// static void gen(unsigned w, unsigned h, unsigned bpc, uint64_t seed, unsigned mode, uint16_t *r, uint16_t *d) {
//     st = seed;
//     uint32_t maxv = (1u << bpc) - 1;
//     for (unsigned y = 0; y < h; y++) for (unsigned x = 0; x < w; x++) {
//         int flat = ((x >> 4) + (y >> 4)) % 3 == 0;
//         uint64_t base = flat ? maxv / 3 : ((uint64_t)x * x * 3 + (uint64_t)y * y + 7ULL * x * y) / 4 % (maxv + 1);
//         uint64_t v = base + nxt() % (maxv / 16 + 1);
//         r[y * w + x] = v > maxv ? maxv : v;
//     }
//     for (unsigned i = 0; i < w * h; i++) {
//         int64_t v = r[i];
//         int64_t k = maxv / 32 + 1;
//         if (mode == 0) v = v + (int64_t)(nxt() % (2 * k + 1)) - k;
//         else v = 2 * v - maxv / 2 + (int64_t)(nxt() % 3) - 1;
//         if (v < 0) v = 0; if (v > maxv) v = maxv;
//         d[i] = (uint16_t)v;
//     }
// }
//
// static const char *names[15] = {"integer_vif_scale0","integer_vif_scale1","integer_vif_scale2","integer_vif_scale3","integer_vif","integer_vif_num","integer_vif_den","integer_vif_num_scale0","integer_vif_den_scale0","integer_vif_num_scale1","integer_vif_den_scale1","integer_vif_num_scale2","integer_vif_den_scale2","integer_vif_num_scale3","integer_vif_den_scale3"};
//
// static void fill(VmafPicture *p, const uint16_t *s, unsigned w, unsigned h, unsigned bpc) {
//     for (unsigned y = 0; y < h; y++) {
//         uint8_t *row = (uint8_t *)p->data[0] + y * p->stride[0];
//         for (unsigned x = 0; x < w; x++) {
//             if (bpc > 8) ((uint16_t *)row)[x] = s[y * w + x]; else row[x] = (uint8_t)s[y * w + x];
//         }
//     }
//     for (int c = 1; c < 3; c++) memset(p->data[c], 0, p->stride[c] * p->h[c]);
// }
//
// int main(void) {
//     unsigned w, h, bpc, mode, egl1; unsigned long long seed;
//     while (scanf("%u %u %u %llu %u %u", &w, &h, &bpc, &seed, &mode, &egl1) == 6) {
//         uint16_t *r = malloc(w * h * 2), *d = malloc(w * h * 2);
//         gen(w, h, bpc, seed, mode, r, d);
//         VmafConfiguration cfg = { .log_level = VMAF_LOG_LEVEL_NONE, .n_threads = 0, .cpumask = 0 };
//         VmafContext *vmaf; if (vmaf_init(&vmaf, cfg)) return 1;
//         VmafFeatureDictionary *dict = NULL;
//         vmaf_feature_dictionary_set(&dict, "debug", "true");
//         if (egl1) vmaf_feature_dictionary_set(&dict, "vif_enhn_gain_limit", "1");
//         if (vmaf_use_feature(vmaf, "vif", dict)) return 2;
//         VmafPicture pr, pd;
//         vmaf_picture_alloc(&pr, VMAF_PIX_FMT_YUV420P, bpc, w, h);
//         vmaf_picture_alloc(&pd, VMAF_PIX_FMT_YUV420P, bpc, w, h);
//         fill(&pr, r, w, h, bpc); fill(&pd, d, w, h, bpc);
//         if (vmaf_read_pictures(vmaf, &pr, &pd, 0)) return 3;
//         vmaf_read_pictures(vmaf, NULL, NULL, 0);
//         printf("(%u, %u, %u, %llu, %u, %u, [", w, h, bpc, seed, mode, egl1);
//         for (int i = 0; i < 15; i++) {
//             char nm[128]; snprintf(nm, sizeof nm, "%s%s", names[i], egl1 ? "_egl_1" : "");
//             if (!egl1 && i < 4) snprintf(nm, sizeof nm, "VMAF_integer_feature_vif_scale%d_score", i);
//             double s; if (vmaf_feature_score_at_index(vmaf, nm, &s, 0)) { fprintf(stderr, "missing %s\n", nm); return 4; }
//             printf("%.17g%s", s, i < 14 ? ", " : "");
//         }
//         printf("]),\n");
//         vmaf_close(vmaf);
//         free(r); free(d);
//     }
//     return 0;
// }
