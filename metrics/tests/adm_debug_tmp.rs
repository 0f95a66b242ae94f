use vqscope_gpu::testing::test_context;
use vqscope_gpu::{Buffer, Submitter, download_buffer, upload_buffer};
use vqscope_metrics::PlaneView;
use vqscope_metrics::adm::gpu::AdmKernel;
use vqscope_metrics::adm::{AdmOptions, adm_frame_sums};
use vqscope_metrics::device::{DevicePlane, packed_desc, plane_bytes};

fn run(w: usize, h: usize, bpc: u32, r: &[u16], d: &[u16]) {
    let ctx = test_context();
    let mut sub = Submitter::new(&ctx, 1).unwrap();
    let rp = PlaneView::packed(w, h, bpc, r);
    let dp = PlaneView::packed(w, h, bpc, d);
    let k = AdmKernel::new(&ctx, w as u32, h as u32, bpc, &AdmOptions::default()).unwrap();
    let up = |sub: &mut Submitter, p: &PlaneView| { let mut b = plane_bytes(p); b.resize(b.len().next_multiple_of(4), 0); upload_buffer(&ctx, sub, "p", &b).unwrap() };
    let rb = up(&mut sub, &rp); let db = up(&mut sub, &dp);
    let desc = packed_desc(w, h, bpc, 0);
    let results = Buffer::storage(&ctx, "r", 36 * 8).unwrap();
    sub.run(|rec| k.record(rec, &DevicePlane { buffer: &rb, desc }, &DevicePlane { buffer: &db, desc }, &results, 0)).unwrap();
    let bytes = download_buffer(&ctx, &mut sub, &results, 36 * 8).unwrap();
    let g: Vec<i64> = bytes.chunks_exact(8).map(|c| i64::from_le_bytes(c.try_into().unwrap())).collect();
    let got = AdmKernel::decode(&g);
    for (lvl, buf) in k.debug_bands().iter().enumerate() {
        let n = (buf.size() / 4) as usize;
        let bytes = download_buffer(&ctx, &mut sub, buf, (n * 4) as u64).unwrap();
        let g: Vec<i32> = bytes.chunks_exact(4).map(|c| i32::from_le_bytes(c.try_into().unwrap())).collect();
        let bad = (0..n/2).filter(|&i| g[i] != g[i + n/2]).count();
        println!("level {lvl}: ref vs dis {bad}/{} differ", n/2);
    }
    let exp = adm_frame_sums(&rp, &dp, &AdmOptions::default()).unwrap();
    for s in 0..4 { println!("scale {s}\n gpu {:?}\n cpu {:?}", got.scales[s], exp.scales[s]); }
}

#[test]
fn debug() {
    let (w, h) = (64usize, 64usize);
    let mut s = 12345u64;
    let mut nx = || { s ^= s << 13; s ^= s >> 7; s ^= s << 17; (s >> 20) as u16 & 255 };
    let r: Vec<u16> = (0..w*h).map(|_| nx()).collect();
    println!("same");
    run(w, h, 8, &r, &r);
    let d: Vec<u16> = r.iter().map(|&x| x / 2 + 64).collect();
    println!("half");
    run(w, h, 8, &r, &d);
}
