//! An H.265 Annex B stream read as far as a decoder needs before it
//! decodes: the parameter sets and the slice segments grouped into
//! pictures in decoding order. Only the base layer (`nuh_layer_id` 0) is
//! read.

use std::collections::BTreeMap;

use super::ParseError;
use super::h265::{Sps, VideoParameterSet, parse_vps};
use super::h265_slice::{Pps, SliceHeader, nal_type};
use super::nal;

/// One coded picture: its slice segments in decoding order.
#[derive(Debug)]
pub struct H265Picture<'a> {
    /// Each segment's header and NAL unit (without start code).
    pub slices: Vec<(SliceHeader, &'a [u8])>,
    /// An end of sequence NAL unit comes before the picture: a CRA picture
    /// then starts a new coded video sequence as if it began the stream.
    pub after_end_of_sequence: bool,
}

impl H265Picture<'_> {
    /// The first slice segment's header, which holds the picture's fields.
    pub fn header(&self) -> &SliceHeader {
        &self.slices[0].0
    }
}

/// A whole H.265 stream, split and parsed.
#[derive(Debug)]
pub struct H265Stream<'a> {
    pub vps: BTreeMap<u32, VideoParameterSet>,
    pub sps: BTreeMap<u32, Sps>,
    pub pps: BTreeMap<u32, Pps>,
    pub pictures: Vec<H265Picture<'a>>,
}

impl<'a> H265Stream<'a> {
    /// Splits `stream` into NAL units and parses, in stream order, the
    /// parameter sets and slice segment headers. A parameter set sent again
    /// must be the same: one whose content changes under the same id is
    /// refused (a device session holds one version of each).
    pub fn parse(stream: &'a [u8]) -> Result<Self, ParseError> {
        let (mut vps, mut sps, mut pps) = (BTreeMap::new(), BTreeMap::new(), BTreeMap::new());
        let mut pictures: Vec<H265Picture<'a>> = Vec::new();
        let mut after_end_of_sequence = false;
        for unit in nal::complete_units(stream, true) {
            let Some((kind, 0)) = nal::h265_type_and_layer(unit) else {
                continue;
            };
            match kind {
                32 => {
                    let v = parse_vps(&nal::rbsp(unit))?;
                    insert_unchanged(&mut vps, v.id, v, "VPS")?;
                }
                33 => {
                    let s = Sps::parse(&nal::rbsp(unit))?;
                    if s.scc_extension {
                        return Err(ParseError::new(
                            "the screen content coding extension is not supported",
                        ));
                    }
                    insert_unchanged(&mut sps, s.id, s, "SPS")?;
                }
                34 => {
                    let p = Pps::parse(&nal::rbsp(unit))?;
                    insert_unchanged(&mut pps, p.id, p, "PPS")?;
                }
                nal_type::END_OF_SEQUENCE => after_end_of_sequence = true,
                0..=9 | 16..=nal_type::LAST_VCL => {
                    let previous = pictures.last().and_then(|p| p.slices.last()).map(|(h, _)| h);
                    let header = nal::parse_head(unit, |rbsp| {
                        SliceHeader::parse(
                            rbsp,
                            |id| pps.get(&id).cloned(),
                            |id| sps.get(&id).cloned(),
                            previous,
                        )
                    })?;
                    match pictures.last_mut() {
                        Some(picture) if !header.first_slice_segment_in_pic => {
                            picture.slices.push((header, unit));
                        }
                        None if !header.first_slice_segment_in_pic => {
                            return Err(ParseError::new(
                                "the stream starts in the middle of a picture",
                            ));
                        }
                        _ => {
                            pictures.push(H265Picture {
                                slices: vec![(header, unit)],
                                after_end_of_sequence,
                            });
                            after_end_of_sequence = false;
                        }
                    }
                }
                _ => {}
            }
        }
        Ok(H265Stream { vps, sps, pps, pictures })
    }

    /// The SPS a picture's slices refer to (through their PPS).
    pub fn sps_of(&self, header: &SliceHeader) -> &Sps {
        &self.sps[&self.pps[&header.pps_id].sps_id]
    }
}

/// Keeps `value` under `id`, refusing a different one already there.
fn insert_unchanged<T: PartialEq>(
    map: &mut BTreeMap<u32, T>,
    id: u32,
    value: T,
    what: &str,
) -> Result<(), ParseError> {
    match map.get(&id) {
        Some(old) if *old != value => {
            Err(ParseError::new(format!("{what} {id} changes within the stream: not supported")))
        }
        _ => {
            map.insert(id, value);
            Ok(())
        }
    }
}
