//! The H.264 decoding process around the pictures (8.2.1, 8.2.5 and C.4):
//! picture order counts, reference marking (sliding window and memory
//! management operations), the DPB slot each picture is decoded into, and
//! the order pictures leave the DPB for display. Frames only: field
//! pictures are refused.
//!
//! A device decoder asks [`Dpb::picture`] before decoding each picture: it
//! answers the picture's POC, the slot to decode into, the reference
//! pictures the decode may read (slot, `FrameNum`, POC), and which decoded
//! pictures can be output once this one is decoded.

use super::ParseError;
use super::h264::Sps;
use super::h264_slice::{Mmco, SliceHeader};

/// A reference frame held in the DPB.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Reference {
    /// The DPB slot the picture was decoded into.
    pub slot: u32,
    /// `frame_num` for short-term references, `LongTermFrameIdx` for long-term
    /// ones (what Vulkan Video's `FrameNum` takes).
    pub frame_num: u32,
    pub long_term: bool,
    /// `TopFieldOrderCnt`, `BottomFieldOrderCnt`.
    pub poc: [i32; 2],
}

/// What the decoder does with one picture.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PicturePlan {
    /// Counts pictures in decoding order from 0: the id `output` names.
    pub index: u64,
    /// The POC the picture is decoded with.
    pub poc: [i32; 2],
    /// The picture as a reference once decoded, in the slot to decode into
    /// (which none of `references` uses). After MMCO 5 its POC and
    /// `frame_num` restart from 0.
    pub setup: Reference,
    /// Every reference frame in the DPB before this picture's marking.
    pub references: Vec<Reference>,
    /// Whether this picture stays as a reference.
    pub reference: bool,
    /// Pictures (by `index`, this one may be among them) to output, in
    /// order, once this picture is decoded.
    pub output: Vec<u64>,
}

#[derive(Debug, Clone, Copy)]
struct Held {
    reference: Reference,
    /// The picture's own `frame_num` (short-term ones compare with it).
    frame_num: u32,
    long_term_frame_idx: u32,
    /// The picture's decoding-order index.
    index: u64,
}

/// The DPB state between pictures.
#[derive(Debug)]
pub struct Dpb {
    slots: u32,
    /// Pictures `max_dec_frame_buffering` allows in the DPB: output bumps
    /// when references plus pictures awaiting output exceed it.
    capacity: usize,
    refs: Vec<Held>,
    max_long_term_frame_idx: Option<u32>,
    /// Decoded, not yet output: (POC, index), and whether still a reference.
    waiting: Vec<(i32, u64)>,
    next_index: u64,
    // POC state of the previous (reference) picture (8.2.1).
    prev_poc_msb: i32,
    prev_poc_lsb: i32,
    prev_frame_num_offset: i32,
    prev_frame_num: u32,
    prev_ref_frame_num: u32,
}

impl Dpb {
    /// A DPB with `slots` device slots
    /// (at least `max_num_ref_frames + 1`) and room for `dpb_frames`
    /// pictures (`max_dec_frame_buffering`).
    pub fn new(slots: u32, dpb_frames: u32) -> Dpb {
        Dpb {
            slots,
            capacity: dpb_frames.max(1) as usize,
            refs: Vec::new(),
            max_long_term_frame_idx: None,
            waiting: Vec::new(),
            next_index: 0,
            prev_poc_msb: 0,
            prev_poc_lsb: 0,
            prev_frame_num_offset: 0,
            prev_frame_num: 0,
            prev_ref_frame_num: 0,
        }
    }

    /// Plans the picture whose first slice header is `h`.
    pub fn picture(&mut self, h: &SliceHeader, sps: &Sps) -> Result<PicturePlan, ParseError> {
        if h.field_pic {
            return Err(ParseError::new("field pictures are not supported yet"));
        }
        let max_frame_num = 1u32 << sps.log2_max_frame_num;
        let idr = h.idr();
        if !idr
            && h.frame_num != self.prev_ref_frame_num
            && h.frame_num != (self.prev_ref_frame_num + 1) % max_frame_num
        {
            return Err(ParseError::new(format!(
                "a gap in frame_num ({} after {}) is not supported yet",
                h.frame_num, self.prev_ref_frame_num
            )));
        }
        let (mut poc, poc_msb, frame_num_offset) = self.picture_order_count(h, sps, max_frame_num);
        // An IDR reads no other picture; the slots of the old ones are free.
        let references: Vec<Reference> =
            if idr { Vec::new() } else { self.refs.iter().map(|r| r.reference).collect() };
        let slot = (0..self.slots)
            .find(|s| references.iter().all(|r| r.slot != *s))
            .ok_or_else(|| ParseError::new("the DPB has no free slot"))?;
        let index = self.next_index;
        self.next_index += 1;

        let mut output = Vec::new();
        let marking = h.marking.clone().unwrap_or_default();
        let mmco5 = marking.adaptive.as_ref().is_some_and(|ops| ops.contains(&Mmco::ForgetAll));
        if idr || mmco5 {
            // C.4.4 / C.4.5.3: everything before an IDR or MMCO 5 leaves first.
            self.waiting.sort();
            output.extend(self.waiting.drain(..).map(|(_, i)| i));
        }
        let reference = h.nal_ref_idc != 0;
        let mut long_term = false;
        let mut long_term_frame_idx = 0;
        if idr {
            self.refs.clear();
            if marking.long_term_reference {
                long_term = true;
                self.max_long_term_frame_idx = Some(0);
            } else {
                self.max_long_term_frame_idx = None;
            }
        } else if reference {
            match &marking.adaptive {
                Some(ops) => {
                    for op in ops {
                        if let Some(idx) = self.apply(*op, h.frame_num, max_frame_num)? {
                            long_term = true;
                            long_term_frame_idx = idx;
                        }
                    }
                }
                None => self.sliding_window(sps, h.frame_num, max_frame_num),
            }
        }
        let decoded_poc = poc;
        if mmco5 {
            // 8.2.1: after MMCO 5 the picture counts as frame_num 0 with its
            // POC moved so that the smaller field POC is 0.
            let temp = poc[0].min(poc[1]);
            poc = [poc[0] - temp, poc[1] - temp];
        }
        let frame_num = if mmco5 { 0 } else { h.frame_num };
        let setup = Reference {
            slot,
            frame_num: if long_term { long_term_frame_idx } else { frame_num },
            long_term,
            poc,
        };
        if reference {
            self.refs.push(Held { reference: setup, frame_num, long_term_frame_idx, index });
            if self.refs.len() > sps.max_num_ref_frames.max(1) as usize {
                return Err(ParseError::new("more reference frames than max_num_ref_frames"));
            }
            self.prev_ref_frame_num = frame_num;
            // 8.2.1.1: the POC state the next picture starts from.
            self.prev_poc_msb = if mmco5 { 0 } else { poc_msb };
            self.prev_poc_lsb = if mmco5 { poc[0] } else { h.pic_order_cnt_lsb as i32 };
        }
        self.prev_frame_num_offset = if mmco5 { 0 } else { frame_num_offset };
        self.prev_frame_num = if mmco5 { 0 } else { h.frame_num };

        self.waiting.push((poc[0].min(poc[1]), index));
        // C.4.5.3 "bumping": while the references and the pictures awaiting
        // output exceed the DPB, the one with the smallest POC leaves.
        while self.fullness() > self.capacity && !self.waiting.is_empty() {
            self.waiting.sort();
            output.push(self.waiting.remove(0).1);
        }
        Ok(PicturePlan { index, poc: decoded_poc, setup, references, reference, output })
    }

    /// Every picture still awaiting output, in output order (end of stream).
    pub fn flush(&mut self) -> Vec<u64> {
        self.waiting.sort();
        self.waiting.drain(..).map(|(_, i)| i).collect()
    }

    /// Frames the DPB holds: references, and pictures awaiting output that
    /// are not references.
    fn fullness(&self) -> usize {
        let waiting_non_refs =
            self.waiting.iter().filter(|(_, i)| self.refs.iter().all(|r| r.index != *i)).count();
        self.refs.len() + waiting_non_refs
    }

    /// 8.2.1: `TopFieldOrderCnt` and `BottomFieldOrderCnt` of a frame, with
    /// `PicOrderCntMsb` (type 0) and `FrameNumOffset` (types 1 and 2) for
    /// the state the next picture starts from.
    fn picture_order_count(
        &self,
        h: &SliceHeader,
        sps: &Sps,
        max_frame_num: u32,
    ) -> ([i32; 2], i32, i32) {
        let idr = h.idr();
        if sps.pic_order_cnt_type == 0 {
            // 8.2.1.1
            let (prev_msb, prev_lsb) =
                if idr { (0, 0) } else { (self.prev_poc_msb, self.prev_poc_lsb) };
            let max_lsb = 1i32 << sps.log2_max_pic_order_cnt_lsb;
            let lsb = h.pic_order_cnt_lsb as i32;
            let msb = if lsb < prev_lsb && prev_lsb - lsb >= max_lsb / 2 {
                prev_msb + max_lsb
            } else if lsb > prev_lsb && lsb - prev_lsb > max_lsb / 2 {
                prev_msb - max_lsb
            } else {
                prev_msb
            };
            let top = msb + lsb;
            return ([top, top + h.delta_pic_order_cnt_bottom], msb, 0);
        }
        // 8.2.1.2 and 8.2.1.3: FrameNumOffset, then the expected count.
        let frame_num_offset = if idr {
            0
        } else if self.prev_frame_num > h.frame_num {
            self.prev_frame_num_offset + max_frame_num as i32
        } else {
            self.prev_frame_num_offset
        };
        let non_ref = h.nal_ref_idc == 0;
        if sps.pic_order_cnt_type == 2 {
            let poc = if idr {
                0
            } else {
                2 * (frame_num_offset + h.frame_num as i32) - i32::from(non_ref)
            };
            return ([poc, poc], 0, frame_num_offset);
        }
        let cycle = &sps.offset_for_ref_frame;
        let mut abs_frame_num =
            if cycle.is_empty() { 0 } else { frame_num_offset + h.frame_num as i32 };
        if non_ref && abs_frame_num > 0 {
            abs_frame_num -= 1;
        }
        let mut expected = 0;
        if abs_frame_num > 0 {
            let n = cycle.len() as i32;
            let (cycle_count, in_cycle) = ((abs_frame_num - 1) / n, (abs_frame_num - 1) % n);
            let per_cycle: i32 = cycle.iter().sum();
            expected = cycle_count * per_cycle + cycle[..=in_cycle as usize].iter().sum::<i32>();
        }
        if non_ref {
            expected += sps.offset_for_non_ref_pic;
        }
        let top = expected + h.delta_pic_order_cnt[0];
        let bottom = top + sps.offset_for_top_to_bottom_field + h.delta_pic_order_cnt[1];
        ([top, bottom], 0, frame_num_offset)
    }

    /// `PicNum` of a short-term reference frame seen from a picture with
    /// `frame_num` (8.2.4.1: `FrameNumWrap`).
    fn pic_num(held: &Held, frame_num: u32, max_frame_num: u32) -> i64 {
        let n = i64::from(held.frame_num);
        if held.frame_num > frame_num { n - i64::from(max_frame_num) } else { n }
    }

    /// 8.2.5.3: with all frames of `max_num_ref_frames` in use, the
    /// short-term one with the smallest `FrameNumWrap` stops being a reference.
    fn sliding_window(&mut self, sps: &Sps, frame_num: u32, max_frame_num: u32) {
        if self.refs.len() < sps.max_num_ref_frames.max(1) as usize {
            return;
        }
        let oldest = self
            .refs
            .iter()
            .enumerate()
            .filter(|(_, r)| !r.reference.long_term)
            .min_by_key(|(_, r)| Self::pic_num(r, frame_num, max_frame_num))
            .map(|(i, _)| i);
        if let Some(i) = oldest {
            self.refs.remove(i);
        }
    }

    /// Position of the short-term reference `difference_of_pic_nums_minus1 + 1`
    /// before the current picture.
    fn short_term(
        &self,
        difference_minus1: u32,
        frame_num: u32,
        max_frame_num: u32,
    ) -> Result<usize, ParseError> {
        let pic_num_x = i64::from(frame_num) - i64::from(difference_minus1) - 1;
        self.refs
            .iter()
            .position(|r| {
                !r.reference.long_term && Self::pic_num(r, frame_num, max_frame_num) == pic_num_x
            })
            .ok_or_else(|| {
                ParseError::new(format!(
                    "MMCO names short-term picture {pic_num_x}, which is not a reference"
                ))
            })
    }

    /// Drops the long-term reference with `LongTermFrameIdx` `idx`, if any.
    fn forget_long_term_index(&mut self, idx: u32) {
        self.refs.retain(|r| !(r.reference.long_term && r.long_term_frame_idx == idx));
    }

    /// 8.2.5.4: one memory management operation. Returns the long-term
    /// index the current picture takes (MMCO 6).
    fn apply(
        &mut self,
        op: Mmco,
        frame_num: u32,
        max_frame_num: u32,
    ) -> Result<Option<u32>, ParseError> {
        match op {
            Mmco::ForgetShortTerm { difference_of_pic_nums_minus1 } => {
                let i = self.short_term(difference_of_pic_nums_minus1, frame_num, max_frame_num)?;
                self.refs.remove(i);
            }
            Mmco::ForgetLongTerm { long_term_pic_num } => {
                // For frames LongTermPicNum is LongTermFrameIdx.
                self.forget_long_term_index(long_term_pic_num);
            }
            Mmco::ShortToLongTerm { difference_of_pic_nums_minus1, long_term_frame_idx } => {
                let i = self.short_term(difference_of_pic_nums_minus1, frame_num, max_frame_num)?;
                let slot = self.refs[i].reference.slot;
                self.forget_long_term_index(long_term_frame_idx);
                let held =
                    self.refs.iter_mut().find(|r| r.reference.slot == slot).expect("found above");
                held.reference.long_term = true;
                held.reference.frame_num = long_term_frame_idx;
                held.long_term_frame_idx = long_term_frame_idx;
            }
            Mmco::MaxLongTermIndex { max_long_term_frame_idx_plus1 } => {
                self.max_long_term_frame_idx = max_long_term_frame_idx_plus1.checked_sub(1);
                let max = self.max_long_term_frame_idx;
                self.refs.retain(|r| {
                    !r.reference.long_term || max.is_some_and(|m| r.long_term_frame_idx <= m)
                });
            }
            Mmco::ForgetAll => {
                self.refs.clear();
                self.max_long_term_frame_idx = None;
            }
            Mmco::CurrentToLongTerm { long_term_frame_idx } => {
                self.forget_long_term_index(long_term_frame_idx);
                return Ok(Some(long_term_frame_idx));
            }
        }
        Ok(None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bitstream::h264_slice::RefPicMarking;

    /// An SPS of frames with the given POC type, 16 frame_num values and
    /// 16 POC lsb values.
    fn sps(pic_order_cnt_type: u32, max_num_ref_frames: u32) -> Sps {
        Sps {
            profile_idc: 100,
            constraints: 0,
            level_idc: 30,
            id: 0,
            chroma_format_idc: 1,
            separate_colour_plane: false,
            bit_depth_luma: 8,
            bit_depth_chroma: 8,
            qpprime_y_zero_transform_bypass: false,
            scaling_lists: None,
            log2_max_frame_num: 4,
            pic_order_cnt_type,
            log2_max_pic_order_cnt_lsb: 4,
            delta_pic_order_always_zero: false,
            offset_for_non_ref_pic: 0,
            offset_for_top_to_bottom_field: 0,
            offset_for_ref_frame: Vec::new(),
            max_num_ref_frames,
            gaps_in_frame_num_allowed: false,
            pic_width_in_mbs: 2,
            pic_height_in_map_units: 2,
            frame_mbs_only: true,
            mb_adaptive_frame_field: false,
            direct_8x8_inference: true,
            crop_offsets: None,
            vui_present: false,
            vui_max_dec_frame_buffering: None,
        }
    }

    /// A P frame's first slice header (an IDR's for `frame_num` None).
    fn header(frame_num: Option<u32>, lsb: u32, adaptive: Option<Vec<Mmco>>) -> SliceHeader {
        SliceHeader {
            nal_unit_type: if frame_num.is_none() { 5 } else { 1 },
            nal_ref_idc: 2,
            first_mb_in_slice: 0,
            slice_type: if frame_num.is_none() { 2 } else { 0 },
            pps_id: 0,
            frame_num: frame_num.unwrap_or(0),
            field_pic: false,
            bottom_field: false,
            idr_pic_id: 0,
            pic_order_cnt_lsb: lsb,
            delta_pic_order_cnt_bottom: 0,
            delta_pic_order_cnt: [0; 2],
            marking: Some(RefPicMarking { adaptive, ..RefPicMarking::default() }),
        }
    }

    #[test]
    fn poc_type_0_carries_the_msb_when_the_lsb_wraps() {
        let sps = sps(0, 1);
        let mut dpb = Dpb::new(2, 1);
        // MaxPicOrderCntLsb 16: lsb 12 then 2 is a step forward by 6 (8.2.1.1).
        let lsbs = [(None, 0), (Some(1), 6), (Some(2), 12), (Some(3), 2), (Some(4), 8)];
        let pocs: Vec<i32> = lsbs
            .iter()
            .map(|&(f, l)| dpb.picture(&header(f, l, None), &sps).unwrap().poc[0])
            .collect();
        assert_eq!(pocs, [0, 6, 12, 18, 24]);
    }

    #[test]
    fn sliding_window_across_a_frame_num_wrap() {
        let sps = sps(2, 2);
        let mut dpb = Dpb::new(3, 2);
        let mut last = None;
        // frame_num 0 (IDR), 1, ..., 15, 0, 1, 2.
        for i in 0..19u32 {
            let frame_num = if i == 0 { None } else { Some(i % 16) };
            last = Some(dpb.picture(&header(frame_num, 0, None), &sps).unwrap());
        }
        let last = last.unwrap();
        // Before frame_num 2 the references are 0 and 1 of the new cycle:
        // 15 had FrameNumWrap -1 when frame_num 1 came (8.2.4.1), so it went.
        let mut held: Vec<u32> = last.references.iter().map(|r| r.frame_num).collect();
        held.sort();
        assert_eq!(held, [0, 1]);
        // POC type 2: FrameNumOffset grows by MaxFrameNum at the wrap.
        assert_eq!(last.poc, [2 * (16 + 2); 2]);
    }

    #[test]
    fn long_term_references_by_mmco_6_2_and_3() {
        let sps = sps(0, 3);
        let mut dpb = Dpb::new(4, 3);
        let lsb = |n: u32| 2 * n;
        dpb.picture(&header(None, 0, None), &sps).unwrap();
        let ops = vec![
            Mmco::MaxLongTermIndex { max_long_term_frame_idx_plus1: 1 },
            Mmco::CurrentToLongTerm { long_term_frame_idx: 0 },
        ];
        let p1 = dpb.picture(&header(Some(1), lsb(1), Some(ops)), &sps).unwrap();
        assert!(p1.setup.long_term && p1.setup.frame_num == 0);
        dpb.picture(&header(Some(2), lsb(2), None), &sps).unwrap();
        // frame_num 0 and 2 short-term, 1 long-term with index 0.
        let ops = vec![Mmco::ForgetLongTerm { long_term_pic_num: 0 }];
        let p3 = dpb.picture(&header(Some(3), lsb(3), Some(ops)), &sps).unwrap();
        let refs = |p: &PicturePlan| {
            let mut r: Vec<(u32, bool)> =
                p.references.iter().map(|r| (r.frame_num, r.long_term)).collect();
            r.sort();
            r
        };
        assert_eq!(refs(&p3), [(0, false), (0, true), (2, false)]);
        // MMCO 1 drops frame_num 0 (PicNum 4 - 3 - 1), MMCO 3 makes frame_num 2
        // (PicNum 4 - 1 - 1) long-term with index 0.
        let ops = vec![
            Mmco::ForgetShortTerm { difference_of_pic_nums_minus1: 3 },
            Mmco::ShortToLongTerm { difference_of_pic_nums_minus1: 1, long_term_frame_idx: 0 },
        ];
        let p4 = dpb.picture(&header(Some(4), lsb(4), Some(ops)), &sps).unwrap();
        assert_eq!(refs(&p4), [(0, false), (2, false), (3, false)]);
        let p5 = dpb.picture(&header(Some(5), lsb(5), None), &sps).unwrap();
        assert_eq!(refs(&p5), [(0, true), (3, false), (4, false)]);
        assert_eq!(p5.references.iter().find(|r| r.long_term).unwrap().poc, [4, 4]);
    }
}
