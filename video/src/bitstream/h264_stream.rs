//! An H.264 Annex B stream read as far as a decoder needs before it
//! decodes: every parameter set (the last of each id), and the slices
//! grouped into pictures in decoding order.

use std::collections::BTreeMap;

use super::ParseError;
use super::h264::Sps;
use super::h264_slice::{Pps, SliceHeader};
use super::nal;

/// A whole H.264 stream, split and parsed.
#[derive(Debug)]
pub struct H264Stream<'a> {
    pub sps: BTreeMap<u32, Sps>,
    pub pps: BTreeMap<u32, Pps>,
    /// Each picture's slices (header and NAL unit, without start code), in
    /// decoding order.
    pub pictures: Vec<Vec<(SliceHeader, &'a [u8])>>,
}

impl<'a> H264Stream<'a> {
    /// Splits `stream` into NAL units and parses the parameter sets and
    /// slice headers. A picture starts at each slice with
    /// `first_mb_in_slice` 0 (streams without arbitrary slice order).
    pub fn parse(stream: &'a [u8]) -> Result<Self, ParseError> {
        let units = nal::complete_units(stream, true);
        let (mut sps, mut pps) = (BTreeMap::new(), BTreeMap::new());
        for unit in &units {
            match nal::h264_type(unit) {
                Some(7) => {
                    let s = Sps::parse(&nal::rbsp(unit))?;
                    sps.insert(s.id, s);
                }
                Some(8) => {
                    let p = Pps::parse(&nal::rbsp(unit), |id| sps.get(&id).cloned())?;
                    pps.insert(p.id, p);
                }
                _ => {}
            }
        }
        let mut pictures: Vec<Vec<(SliceHeader, &[u8])>> = Vec::new();
        for unit in units {
            if !matches!(nal::h264_type(unit), Some(1 | 5)) {
                continue;
            }
            let header = nal::parse_head(unit, |rbsp| {
                SliceHeader::parse(rbsp, |id| pps.get(&id).cloned(), |id| sps.get(&id).cloned())
            })?;
            match pictures.last_mut() {
                Some(picture) if header.first_mb_in_slice != 0 => picture.push((header, unit)),
                _ => pictures.push(vec![(header, unit)]),
            }
        }
        Ok(H264Stream { sps, pps, pictures })
    }

    /// The SPS a picture's first slice refers to (through its PPS).
    pub fn sps_of(&self, header: &SliceHeader) -> &Sps {
        &self.sps[&self.pps[&header.pps_id].sps_id]
    }
}
