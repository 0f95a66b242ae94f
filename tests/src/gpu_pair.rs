//! A frame pair through GPU metric kernels, as every GPU parity test runs
//! it: the kernels made once per geometry and options, both planes
//! uploaded, the kernels recorded into one submission against a result
//! buffer poisoned first (a slot no kernel wrote cannot pass for a result),
//! and the result words read back.

use std::sync::Arc;

use vqscope_gpu::testing::test_context;
use vqscope_gpu::{Buffer, GpuContext, Recorder, Submitter, download_buffer};
use vqscope_metrics::PlaneView;
use vqscope_metrics::device::{DevicePlane, upload_plane};

/// The kernels of type `T`, made again only when their key (geometry,
/// options) changes.
pub struct Kernels<K, T> {
    built: Option<(K, T)>,
}

impl<K: PartialEq, T> Default for Kernels<K, T> {
    fn default() -> Self {
        Kernels { built: None }
    }
}

impl<K: PartialEq, T> Kernels<K, T> {
    /// The kernels for `key`, made by `make` unless they already are.
    pub fn get(&mut self, key: K, make: impl FnOnce() -> T) -> &T {
        if self.built.as_ref().is_none_or(|(k, _)| *k != key) {
            self.built = Some((key, make()));
        }
        &self.built.as_ref().expect("just built").1
    }
}

/// A context, a submitter and a result buffer of `words` int64 slots.
pub struct PairRunner {
    pub ctx: Arc<GpuContext>,
    submitter: Submitter,
    results: Buffer,
    words: u32,
}

impl PairRunner {
    pub fn new(words: u32) -> Self {
        let ctx = test_context();
        let submitter = Submitter::new(&ctx, 1).expect("submitter");
        let results = Buffer::storage(&ctx, "parity results", u64::from(words) * 8).unwrap();
        PairRunner { ctx, submitter, results, words }
    }

    /// Uploads both planes, runs what `record` records on them into the
    /// poisoned result buffer, and returns its words.
    pub fn run(
        &mut self,
        reference: &PlaneView,
        distorted: &PlaneView,
        record: impl FnOnce(
            &mut Recorder<'_>,
            &DevicePlane<'_>,
            &DevicePlane<'_>,
            &Buffer,
        ) -> vqscope_gpu::Result<()>,
    ) -> Vec<i64> {
        let (rb, rd) = upload_plane(&self.ctx, &mut self.submitter, reference).unwrap();
        let (db, dd) = upload_plane(&self.ctx, &mut self.submitter, distorted).unwrap();
        let r = DevicePlane { buffer: &rb, desc: rd };
        let d = DevicePlane { buffer: &db, desc: dd };
        let results = &self.results;
        self.submitter
            .run(|rec| {
                rec.fill(results, 0xDEAD_BEEF);
                record(rec, &r, &d, results)
            })
            .expect("run the kernels");
        let len = u64::from(self.words) * 8;
        let bytes = download_buffer(&self.ctx, &mut self.submitter, results, len).unwrap();
        bytes.chunks_exact(8).map(|c| i64::from_le_bytes(c.try_into().unwrap())).collect()
    }
}
