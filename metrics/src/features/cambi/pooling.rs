//! CAMBI's pooling (libvmaf's `spatial_pooling` and
//! `weight_scores_per_scale`): per scale the mean of the largest c-values,
//! then a weighted sum over scales.
//!
//! The mean adds the selected floats into a double in the order libvmaf's
//! partial quickselect leaves them, so the selection is ported step by
//! step rather than replaced by a sort.

/// Scale weights, finest first (libvmaf's `g_scale_weights`).
pub const SCALE_WEIGHTS: [i32; 5] = [16, 8, 4, 2, 1];

/// libvmaf's `quick_select`: Hoare partitions around `arr[k]` until the
/// first `k` entries are the `k` largest (in no particular order). Nothing
/// happens when `k` is the whole array.
pub fn quick_select(arr: &mut [f32], k: usize) {
    let n = arr.len();
    if n == k {
        return;
    }
    let k = k as isize;
    let (mut left, mut right) = (0isize, n as isize - 1);
    while left < right {
        let pivot = arr[k as usize];
        let (mut i, mut j) = (left, right);
        loop {
            while arr[i as usize] > pivot {
                i += 1;
            }
            while arr[j as usize] < pivot {
                j -= 1;
            }
            if i <= j {
                arr.swap(i as usize, j as usize);
                i += 1;
                j -= 1;
            }
            if i > j {
                break;
            }
        }
        if j < k {
            left = i;
        }
        if k < i {
            right = j;
        }
    }
}

/// How many c-values the top-`topk` fraction keeps: `topk·n` truncated to
/// an integer, at least 1 and at most `n`.
pub fn topk_count(topk: f64, n: usize) -> usize {
    ((topk * n as f64) as i32).clamp(1, n as i32) as usize
}

/// The mean of the top-`topk` fraction of `c_values` (reordered in place):
/// the selected floats summed into a double in array order, divided by
/// their count.
pub fn spatial_pooling(c_values: &mut [f32], topk: f64) -> f64 {
    let k = topk_count(topk, c_values.len());
    quick_select(c_values, k);
    let mut sum = 0f64;
    for &v in &c_values[..k] {
        sum += f64::from(v);
    }
    sum / k as f64
}

/// Odd side of a window of `window` pixels, squared: the area that
/// normalises the weighted score.
pub fn pixels_in_window(window: u16) -> u16 {
    let odd = 2 * (window >> 1) + 1;
    odd.wrapping_mul(odd)
}

/// `Σ score[s]·weight[s] / area`, in double, scale 0 first.
pub fn weight_scales(scores: &[f64; 5], window: u16) -> f64 {
    let mut score = 0f64;
    for (s, w) in scores.iter().zip(SCALE_WEIGHTS) {
        score += s * f64::from(w);
    }
    score / f64::from(pixels_in_window(window))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The first k entries hold the k largest, whatever the input order.
    #[test]
    fn quick_select_keeps_the_largest() {
        let mut seed = 12345u32;
        for n in 1..60 {
            for k in 1..=n {
                let mut v: Vec<f32> = (0..n)
                    .map(|_| {
                        seed = seed.wrapping_mul(1664525).wrapping_add(1013904223);
                        ((seed >> 24) % 9) as f32
                    })
                    .collect();
                let mut sorted = v.clone();
                sorted.sort_by(|a, b| b.total_cmp(a));
                quick_select(&mut v, k);
                let mut top = v[..k].to_vec();
                top.sort_by(|a, b| b.total_cmp(a));
                assert_eq!(top, sorted[..k], "n {n} k {k}");
            }
        }
    }

    /// Hoare partitioning worked by hand on `[1 5 2 4 3]` with k = 2.
    /// Pass 1, pivot `arr[2]` = 2: i stops at 0, j at 4: swap →
    /// `[3 5 2 4 1]`; i runs to 2, j stays at 3: swap → `[3 5 4 2 1]`, i 3,
    /// j 2; j < k fails, k < i: right = 2. Pass 2 on 0..=2, pivot 4: i 0,
    /// j 2: swap → `[4 5 3 2 1]`, i 1, j 1; i runs to 2, j stays 1: done;
    /// j < k: left = 2 = right.
    #[test]
    fn quick_select_order_by_hand() {
        let mut v = [1.0, 5.0, 2.0, 4.0, 3.0];
        quick_select(&mut v, 2);
        assert_eq!(v, [4.0, 5.0, 3.0, 2.0, 1.0]);
    }

    #[test]
    fn topk_and_pooling() {
        assert_eq!(topk_count(0.6, 10), 6);
        assert_eq!(topk_count(0.0001, 10), 1);
        assert_eq!(topk_count(1.0, 10), 10);
        let mut v = [0.0, 4.0, 1.0, 0.0, 2.0];
        // top 3 of 5: 4, 2, 1.
        assert_eq!(spatial_pooling(&mut v, 0.6), 7.0 / 3.0);
    }

    /// Window 9: area 81; weights 16, 8, 4, 2, 1.
    #[test]
    fn scale_weighting() {
        assert_eq!(pixels_in_window(9), 81);
        assert_eq!(pixels_in_window(8), 81);
        assert_eq!(weight_scales(&[1.0, 0.0, 0.0, 0.0, 2.0], 9), 18.0 / 81.0);
    }
}
