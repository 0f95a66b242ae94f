//! The H.265 decoding process around the pictures: picture order count
//! (8.3.1), the reference picture set and reference marking (8.3.2), the
//! DPB slot each picture is decoded into, and output order by the
//! "bumping" of C.5.2.2 and C.5.2.3. RASL pictures of a CRA that starts the
//! stream (or follows an end of sequence) refer to pictures that were never
//! decoded: they are skipped, as ffmpeg does.
//!
//! A device decoder asks [`Dpb::picture`] before decoding each picture: it
//! answers whether to decode it at all, its POC, the slot to decode into,
//! the three lists of reference pictures it may predict from (slot and
//! POC), every picture kept as a reference, and which decoded pictures can
//! be output once this one is decoded.

use super::ParseError;
use super::h265::Sps;
use super::h265_slice::{SliceHeader, nal_type};

/// A reference picture held in the DPB.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Reference {
    /// The DPB slot the picture was decoded into.
    pub slot: u32,
    pub poc: i32,
    pub long_term: bool,
}

/// What the decoder does with one picture.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PicturePlan {
    /// Counts pictures in decoding order from 0 (skipped ones too): the id
    /// `output` names.
    pub index: u64,
    /// `PicOrderCntVal`.
    pub poc: i32,
    /// The slot to decode into (no reference uses it).
    pub slot: u32,
    /// `RefPicSetStCurrBefore`, `RefPicSetStCurrAfter` and `RefPicSetLtCurr`
    /// in the order the RPS lists them: what the picture may predict from.
    pub st_curr_before: Vec<Reference>,
    pub st_curr_after: Vec<Reference>,
    pub lt_curr: Vec<Reference>,
    /// Every picture still a reference after this picture's marking (the
    /// lists above and those kept only for later pictures).
    pub references: Vec<Reference>,
    /// Pictures (by `index`, this one may be among them) to output, in
    /// order, once this picture is decoded.
    pub output: Vec<u64>,
}

#[derive(Debug, Clone, Copy)]
struct Held {
    index: u64,
    poc: i32,
    slot: u32,
    /// `None`: unused for reference; `Some(long_term)` otherwise.
    reference: Option<bool>,
    needed_for_output: bool,
    /// `PicLatencyCount`: pictures decoded since, while awaiting output.
    latency: u32,
}

impl Held {
    fn as_reference(&self) -> Reference {
        Reference { slot: self.slot, poc: self.poc, long_term: self.reference == Some(true) }
    }
}

/// A long-term picture to find: a POC, and whether it is whole (else only
/// its lsb is known).
type LongTermPoc = (i32, bool);

/// The DPB state between pictures.
#[derive(Debug)]
pub struct Dpb {
    slots: u32,
    held: Vec<Held>,
    next_index: u64,
    /// `PicOrderCntVal` of `prevTid0Pic` (8.3.1).
    prev_tid0_poc: i32,
    /// `NoRaslOutputFlag` of the last IRAP picture: its RASL pictures are
    /// skipped while it is set.
    skip_rasl: bool,
}

impl Dpb {
    /// A DPB with `slots` device slots (`sps_max_dec_pic_buffering`, which
    /// counts the picture being decoded).
    pub fn new(slots: u32) -> Dpb {
        Dpb { slots, held: Vec::new(), next_index: 0, prev_tid0_poc: 0, skip_rasl: false }
    }

    /// Plans the picture whose first slice segment header is `h`;
    /// `after_end_of_sequence` says an end of sequence NAL unit came before
    /// it. `None`: the picture is a RASL picture to skip.
    pub fn picture(
        &mut self,
        h: &SliceHeader,
        sps: &Sps,
        after_end_of_sequence: bool,
    ) -> Result<Option<PicturePlan>, ParseError> {
        let index = self.next_index;
        self.next_index += 1;
        let first = index == 0;
        if first && !h.irap() {
            return Err(ParseError::new("the stream does not start with an IRAP picture"));
        }
        let bla = (nal_type::BLA_W_LP..nal_type::IDR_W_RADL).contains(&h.nal_unit_type);
        let no_rasl_output = h.irap() && (h.idr() || bla || first || after_end_of_sequence);
        if h.irap() {
            self.skip_rasl = no_rasl_output;
        }
        if h.rasl() && self.skip_rasl {
            return Ok(None);
        }

        // 8.3.1: the POC msb follows prevTid0Pic's unless an IRAP picture
        // starts a coded video sequence.
        let max_lsb = 1i32 << sps.log2_max_pic_order_cnt_lsb;
        let lsb = h.pic_order_cnt_lsb as i32;
        let msb = if no_rasl_output {
            0
        } else {
            let prev_lsb = self.prev_tid0_poc.rem_euclid(max_lsb);
            let prev_msb = self.prev_tid0_poc - prev_lsb;
            if lsb < prev_lsb && prev_lsb - lsb >= max_lsb / 2 {
                prev_msb + max_lsb
            } else if lsb > prev_lsb && lsb - prev_lsb > max_lsb / 2 {
                prev_msb - max_lsb
            } else {
                prev_msb
            }
        };
        let poc = msb + lsb;
        if h.temporal_id == 0 && !h.rasl() && !h.radl() && !h.sub_layer_non_reference() {
            self.prev_tid0_poc = poc;
        }

        // 8.3.2: the reference picture set, then marking.
        if no_rasl_output {
            for p in &mut self.held {
                p.reference = None;
            }
        }
        let (lt_curr, lt_foll) = self.long_term_sets(h, poc, max_lsb);
        let rps = &h.short_term_rps;
        let short = |list: &[(i32, bool)], used: bool| -> Vec<i32> {
            list.iter().filter(|(_, u)| *u == used).map(|(d, _)| poc + d).collect()
        };
        let find_short = |held: &[Held], poc: i32| {
            held.iter().position(|p| p.reference == Some(false) && p.poc == poc)
        };
        let missing = |what: i32| {
            ParseError::new(format!(
                "picture {index} (POC {poc}) predicts from POC {what}, which is not in the DPB"
            ))
        };
        // Long-term pictures are found first: a picture named there is not
        // a short-term one any more.
        let mut kept = vec![false; self.held.len()];
        let mut long_term = vec![false; self.held.len()];
        let mut lists: [Vec<Reference>; 3] = Default::default();
        for (set, curr) in [(lt_curr, true), (lt_foll, false)] {
            for (value, whole) in set {
                let found = self.held.iter().position(|p| {
                    p.reference.is_some()
                        && if whole { p.poc == value } else { p.poc.rem_euclid(max_lsb) == value }
                });
                match found {
                    Some(i) => {
                        kept[i] = true;
                        long_term[i] = true;
                        if curr {
                            lists[2]
                                .push(Reference { long_term: true, ..self.held[i].as_reference() });
                        }
                    }
                    None if curr => return Err(missing(value)),
                    None => {}
                }
            }
        }
        let st_sets = [
            (short(&rps.negative, true), Some(0)),
            (short(&rps.positive, true), Some(1)),
            (short(&rps.negative, false), None),
            (short(&rps.positive, false), None),
        ];
        for (set, list) in st_sets {
            for value in set {
                match find_short(&self.held, value).filter(|&i| !long_term[i]) {
                    Some(i) => {
                        kept[i] = true;
                        if let Some(l) = list {
                            lists[l].push(self.held[i].as_reference());
                        }
                    }
                    None if list.is_some() => return Err(missing(value)),
                    None => {}
                }
            }
        }
        for (i, p) in self.held.iter_mut().enumerate() {
            p.reference = if !kept[i] {
                None
            } else if long_term[i] {
                Some(true)
            } else {
                p.reference
            };
        }
        let references: Vec<Reference> =
            self.held.iter().filter(|p| p.reference.is_some()).map(Held::as_reference).collect();
        let slot = (0..self.slots)
            .find(|s| references.iter().all(|r| r.slot != *s))
            .ok_or_else(|| ParseError::new("the DPB has no free slot"))?;

        // C.5.2.2: output and removal before the picture is decoded.
        let mut output = Vec::new();
        if no_rasl_output && !first {
            // A CRA here follows an end of sequence: what is left of the
            // sequence before is dropped, as with no_output_of_prior_pics.
            if h.nal_unit_type == nal_type::CRA || h.no_output_of_prior_pics {
                self.held.clear();
            } else {
                while self.bump(&mut output) {}
                self.held.clear();
            }
        } else {
            self.held.retain(|p| p.needed_for_output || p.reference.is_some());
            while (self.waiting() > sps.max_num_reorder_pics as usize
                || self.latency_exceeded(sps)
                || self.held.len() >= sps.max_dec_pic_buffering as usize)
                && self.bump(&mut output)
            {}
        }

        // C.5.2.3: the decoded picture is stored as a short-term reference,
        // then output bumps while too many pictures wait.
        for p in &mut self.held {
            if p.needed_for_output {
                p.latency += 1;
            }
        }
        self.held.push(Held {
            index,
            poc,
            slot,
            reference: Some(false),
            needed_for_output: h.pic_output,
            latency: 0,
        });
        while (self.waiting() > sps.max_num_reorder_pics as usize || self.latency_exceeded(sps))
            && self.bump(&mut output)
        {}
        let [st_curr_before, st_curr_after, lt_curr] = lists;
        Ok(Some(PicturePlan {
            index,
            poc,
            slot,
            st_curr_before,
            st_curr_after,
            lt_curr,
            references,
            output,
        }))
    }

    /// Every picture still awaiting output, in output order (end of stream).
    pub fn flush(&mut self) -> Vec<u64> {
        let mut output = Vec::new();
        while self.bump(&mut output) {}
        self.held.clear();
        output
    }

    /// `PocLtCurr` and `PocLtFoll` (8-5): each a POC, whole when
    /// `delta_poc_msb_present_flag` is set, else its lsb only.
    fn long_term_sets(
        &self,
        h: &SliceHeader,
        poc: i32,
        max_lsb: i32,
    ) -> (Vec<LongTermPoc>, Vec<LongTermPoc>) {
        let (mut curr, mut foll) = (Vec::new(), Vec::new());
        for lt in &h.long_term {
            let mut value = lt.poc_lsb as i32;
            if let Some(cycle) = lt.delta_poc_msb_cycle {
                // Wrapping: a corrupt cycle must not overflow (it then
                // names no picture).
                let msb = poc - poc.rem_euclid(max_lsb);
                value = value.wrapping_add(msb.wrapping_sub((cycle as i32).wrapping_mul(max_lsb)));
            }
            let entry = (value, lt.delta_poc_msb_cycle.is_some());
            if lt.used_by_curr_pic { curr.push(entry) } else { foll.push(entry) }
        }
        (curr, foll)
    }

    fn waiting(&self) -> usize {
        self.held.iter().filter(|p| p.needed_for_output).count()
    }

    /// `sps_max_latency_increase_plus1` set and a waiting picture has been
    /// waiting `SpsMaxLatencyPictures` pictures or more.
    fn latency_exceeded(&self, sps: &Sps) -> bool {
        let plus1 = sps.max_latency_increase_plus1;
        plus1 != 0 && {
            let limit = sps.max_num_reorder_pics + plus1 - 1;
            self.held.iter().any(|p| p.needed_for_output && p.latency >= limit)
        }
    }

    /// C.5.2.4 "bumping": the waiting picture with the smallest POC is
    /// output, and leaves the DPB unless it is a reference. `false` when
    /// none waits.
    fn bump(&mut self, output: &mut Vec<u64>) -> bool {
        let Some(i) = (0..self.held.len())
            .filter(|&i| self.held[i].needed_for_output)
            .min_by_key(|&i| self.held[i].poc)
        else {
            return false;
        };
        output.push(self.held[i].index);
        if self.held[i].reference.is_some() {
            self.held[i].needed_for_output = false;
        } else {
            self.held.remove(i);
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bitstream::h265::ShortTermRps;
    use crate::bitstream::h265_slice::LongTermPicture;

    /// An SPS of 16 POC lsb values, 4 pictures in the DPB and no reordering.
    fn sps() -> Sps {
        Sps {
            id: 0,
            vps_id: 0,
            max_sub_layers: 1,
            temporal_id_nesting: true,
            profile_idc: 1,
            level_idc: 60,
            general: Default::default(),
            chroma_format_idc: 1,
            separate_colour_plane: false,
            width: 64,
            height: 64,
            conformance_window: None,
            bit_depth_luma: 8,
            bit_depth_chroma: 8,
            log2_max_pic_order_cnt_lsb: 4,
            sub_layer_ordering_info_present: true,
            max_dec_pic_buffering: 4,
            max_num_reorder_pics: 0,
            max_latency_increase_plus1: 0,
            log2_min_luma_coding_block_size: 3,
            log2_diff_max_min_luma_coding_block_size: 3,
            log2_min_luma_transform_block_size: 2,
            log2_diff_max_min_luma_transform_block_size: 3,
            max_transform_hierarchy_depth_inter: 0,
            max_transform_hierarchy_depth_intra: 0,
            scaling_list_enabled: false,
            scaling_lists: None,
            amp_enabled: false,
            sample_adaptive_offset_enabled: false,
            pcm: None,
            short_term_rps: Vec::new(),
            long_term_ref_pics_present: true,
            long_term_ref_pics: Vec::new(),
            temporal_mvp_enabled: false,
            strong_intra_smoothing_enabled: false,
            range_extension: false,
            scc_extension: false,
        }
    }

    /// A TRAIL_R P picture (an IDR_N_LP for `lsb` None) predicting from the
    /// picture before it and from the long-term pictures given.
    fn header(lsb: Option<u32>, long_term: Vec<LongTermPicture>) -> SliceHeader {
        SliceHeader {
            nal_unit_type: if lsb.is_some() { 1 } else { nal_type::IDR_N_LP },
            temporal_id: 0,
            first_slice_segment_in_pic: true,
            no_output_of_prior_pics: false,
            pps_id: 0,
            dependent_slice_segment: false,
            segment_address: 0,
            slice_type: if lsb.is_some() { 1 } else { 2 },
            pic_output: true,
            pic_order_cnt_lsb: lsb.unwrap_or(0),
            short_term_rps_idx: None,
            short_term_rps: ShortTermRps {
                negative: if lsb.is_some() { vec![(-1, true)] } else { Vec::new() },
                positive: Vec::new(),
                inter: None,
            },
            short_term_rps_bits: 0,
            long_term,
            temporal_mvp_enabled: false,
            num_ref_idx_l0_active: 1,
            num_ref_idx_l1_active: 0,
            slice_qp_delta: 0,
            num_entry_point_offsets: 0,
            header_bytes: 0,
        }
    }

    fn lt(poc_lsb: u32, delta_poc_msb_cycle: Option<u32>) -> LongTermPicture {
        LongTermPicture { poc_lsb, used_by_curr_pic: true, delta_poc_msb_cycle }
    }

    /// POC 0 kept as a long-term reference across the POC lsb wrap: named
    /// by its lsb while that is unambiguous, then with its msb cycle (8-5:
    /// 0 + 17 - 1 * 16 - (17 & 15) = 0 for the picture at POC 17).
    #[test]
    fn long_term_reference_across_the_lsb_wrap() {
        let sps = sps();
        let mut dpb = Dpb::new(4);
        let idr = dpb.picture(&header(None, Vec::new()), &sps, false).unwrap().unwrap();
        assert_eq!((idr.poc, idr.output.clone()), (0, vec![0]));
        dpb.picture(&header(Some(1), Vec::new()), &sps, false).unwrap().unwrap();
        let mut last = None;
        for poc in 2..=17u32 {
            let msb = (poc >= 16).then_some(1);
            let plan = dpb.picture(&header(Some(poc % 16), vec![lt(0, msb)]), &sps, false);
            let plan = plan.unwrap().unwrap();
            // prevTid0Pic carries the msb: lsb 0 after 15 is POC 16.
            assert_eq!(plan.poc, poc as i32);
            // No reordering: each picture is output once decoded.
            assert_eq!(plan.output, [u64::from(poc)]);
            let pocs = |r: &[Reference]| r.iter().map(|r| (r.poc, r.long_term)).collect::<Vec<_>>();
            assert_eq!(pocs(&plan.lt_curr), [(0, true)]);
            assert_eq!(pocs(&plan.st_curr_before), [(poc as i32 - 1, false)]);
            assert_eq!(plan.references.len(), 2);
            last = Some(plan);
        }
        // The long-term picture keeps its slot; the next picture drops it.
        let slot = last.unwrap().lt_curr[0].slot;
        assert_eq!(slot, idr.slot);
        let plan = dpb.picture(&header(Some(2), Vec::new()), &sps, false).unwrap().unwrap();
        assert_eq!(plan.references.len(), 1);
        assert!(plan.lt_curr.is_empty());
        // A long-term picture that is not in the DPB is an error.
        let err = dpb.picture(&header(Some(3), vec![lt(0, Some(1))]), &sps, false).unwrap_err();
        assert_eq!(
            err.to_string(),
            "picture 19 (POC 19) predicts from POC 0, which is not in the DPB"
        );
    }

    /// C.5.2.2 at an IDR: the pictures still waiting leave first, in POC
    /// order, unless `no_output_of_prior_pics_flag` drops them; a picture
    /// with `pic_output_flag` 0 is never output.
    #[test]
    fn output_at_an_idr_and_pictures_not_for_output() {
        let sps = Sps { max_num_reorder_pics: 2, ..sps() };
        let mut dpb = Dpb::new(4);
        let mut output = Vec::new();
        let mut run = |h: SliceHeader, dpb: &mut Dpb| {
            output.extend(dpb.picture(&h, &sps, false).unwrap().unwrap().output);
        };
        run(header(None, Vec::new()), &mut dpb); // 0: POC 0
        run(header(Some(1), Vec::new()), &mut dpb); // 1: POC 1
        let hidden = SliceHeader {
            pic_output: false,
            short_term_rps: ShortTermRps {
                negative: vec![(-1, true), (-2, false)],
                positive: Vec::new(),
                inter: None,
            },
            ..header(Some(2), Vec::new())
        };
        run(hidden, &mut dpb); // 2: POC 2, not output
        // Nothing left yet: two pictures wait, as sps_max_num_reorder_pics allows.
        run(header(None, Vec::new()), &mut dpb); // 3: IDR, outputs 0 and 1
        run(header(Some(1), Vec::new()), &mut dpb); // 4: POC 1
        let mut quiet = header(None, Vec::new());
        quiet.no_output_of_prior_pics = true;
        run(quiet, &mut dpb); // 5: IDR dropping 3 and 4
        output.extend(dpb.flush());
        assert_eq!(output, [0, 1, 5]);
    }
}
