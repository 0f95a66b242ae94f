//! An input whose transfer characteristic the user states (`--transfer`),
//! for HDR files whose tags are missing or wrong: ffmpeg's y4m output, for
//! one, carries none. Only the display reads it; the samples are unchanged.

use crate::error::Result;
use crate::frame::{Frame, Transfer};
use crate::input::{Assumed, DecodedBy, SourceInfo, VideoSource};

/// `source` with every frame (and its info) tagged `transfer`.
pub fn with_transfer(source: Box<dyn VideoSource>, transfer: Transfer) -> Box<dyn VideoSource> {
    let mut info = source.info().clone();
    info.color.transfer = transfer;
    Box::new(Retagged { inner: source, info, transfer })
}

struct Retagged {
    inner: Box<dyn VideoSource>,
    info: SourceInfo,
    transfer: Transfer,
}

impl Retagged {
    fn tag(&self, mut frame: Frame) -> Frame {
        frame.color.transfer = self.transfer;
        frame
    }
}

impl VideoSource for Retagged {
    fn info(&self) -> &SourceInfo {
        &self.info
    }
    fn read_frame(&mut self, index: u64) -> Result<Frame> {
        self.inner.read_frame(index).map(|f| self.tag(f))
    }
    fn next_frame(&mut self) -> Result<Option<Frame>> {
        Ok(self.inner.next_frame()?.map(|f| self.tag(f)))
    }
    fn reopen(&self) -> Option<Result<Box<dyn VideoSource>>> {
        Some(self.inner.reopen()?.map(|s| with_transfer(s, self.transfer)))
    }
    fn end_warning(&self) -> Option<String> {
        self.inner.end_warning()
    }
    fn assumed(&self) -> Assumed {
        self.inner.assumed()
    }
    fn decoded_by(&self) -> Option<DecodedBy> {
        self.inner.decoded_by()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::open_input;

    #[test]
    fn frames_and_info_carry_the_stated_transfer() {
        let dir = std::env::temp_dir().join(format!("vqscope-retag-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("a.y4m");
        let mut bytes = b"YUV4MPEG2 W4 H2 F25:1 C420jpeg\n".to_vec();
        for _ in 0..2 {
            bytes.extend_from_slice(b"FRAME\n");
            bytes.extend_from_slice(&[100u8; 4 * 2 + 2 * 2]);
        }
        std::fs::write(&path, bytes).unwrap();
        let plain = open_input(&path, None).unwrap();
        assert_eq!(plain.info().color.transfer, Transfer::Sdr);
        let mut s = with_transfer(plain, Transfer::Pq);
        assert_eq!(s.info().color.transfer, Transfer::Pq);
        assert_eq!(s.next_frame().unwrap().unwrap().color.transfer, Transfer::Pq);
        assert_eq!(s.read_frame(0).unwrap().color.transfer, Transfer::Pq);
        let mut again = s.reopen().unwrap().unwrap();
        assert_eq!(again.read_frame(1).unwrap().color.transfer, Transfer::Pq);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
