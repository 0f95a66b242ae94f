//! The heat-map colour ramp and its legend.
//!
//! [`Scene::heat_map`] colours a value `v` over a range `(lo, hi)` with
//! matplotlib's *inferno* ramp, reversed: `t = (v - lo) / (hi - lo)` clamped
//! to 0..=1, colour `inferno(1 - t)`. So `v >= hi` is black and `v <= lo`
//! glows yellow-white. Inferno is perceptually uniform (equal steps of `t`
//! look equally far apart) and stays readable in greyscale and for most
//! colour-blind viewers; reversing it puts the brightest colour on the
//! lowest values because those are the ones a person hunts for (low SSIM is
//! where the encode lost detail). NaN is drawn magenta, so a map that was
//! never written cannot pass for a perfect one.
//!
//! [`INFERNO`] and [`heat_color`] are the host twins of `INFERNO` and
//! `heat_color` in `shaders/ui/fused.comp`; a golden test renders a ramp
//! and compares its pixels with [`heat_color`], so the two cannot drift
//! apart unnoticed.

use crate::scene::{Color, Rect, RectStyle, Sampling, Scene};
use crate::text::{Align, TextRun, VAlign};

/// Inferno (sRGB) at every 16th of matplotlib's 256 entries plus the last,
/// taken as evenly spaced stops and interpolated linearly.
pub const INFERNO: [[f32; 3]; 17] = [
    [0.001462, 0.000466, 0.013866],
    [0.042253, 0.028139, 0.141141],
    [0.129285, 0.047293, 0.290788],
    [0.238273, 0.036621, 0.396353],
    [0.341500, 0.062325, 0.429425],
    [0.441207, 0.099338, 0.431594],
    [0.540920, 0.134729, 0.415123],
    [0.640135, 0.171438, 0.381065],
    [0.735683, 0.215906, 0.330245],
    [0.822386, 0.275197, 0.266085],
    [0.894305, 0.353399, 0.193584],
    [0.946965, 0.449191, 0.115272],
    [0.978422, 0.557937, 0.034931],
    [0.987874, 0.675267, 0.065257],
    [0.974638, 0.797692, 0.206332],
    [0.947594, 0.917399, 0.410665],
    [0.988362, 0.998364, 0.644924],
];

/// Colour of NaN values.
pub const NAN_COLOR: Color = Color::rgb(1.0, 0.0, 1.0);

/// Inferno at `t` in 0..=1 (0 black, 1 yellow-white).
pub fn inferno(t: f32) -> Color {
    let x = t.clamp(0.0, 1.0) * 16.0;
    let i = (x as usize).min(15);
    let f = x - i as f32;
    let [a, b] = [INFERNO[i], INFERNO[i + 1]];
    let c = |k: usize| a[k] + (b[k] - a[k]) * f;
    Color::rgb(c(0), c(1), c(2))
}

/// The colour the shader gives value `v` over `range`: inferno reversed
/// (values at `range.0` bright, at `range.1` black, whichever is larger),
/// NaN magenta.
pub fn heat_color(v: f32, range: (f32, f32)) -> Color {
    if v.is_nan() {
        return NAN_COLOR;
    }
    let (lo, hi) = range;
    inferno(1.0 - ((v - lo) / (hi - lo)).clamp(0.0, 1.0))
}

/// Cells of the legend's ramp map: enough that neighbouring cells differ by
/// less than one 8-bit step once interpolated.
const LEGEND_CELLS: u32 = 256;

/// A horizontal legend for heat maps over `range`: a colour bar in `bar`
/// running from `lo` (left) to `hi` (right), with `ticks` (≥ 2) evenly
/// spaced value labels below it and `caption` above it, in `text` colour.
///
/// The bar is itself a heat map of a host ramp drawn by the same shader
/// path as the data, so the legend cannot disagree with the picture.
/// Labels show `decimals` digits after the point.
pub fn legend(
    scene: &mut Scene,
    bar: Rect,
    range: (f32, f32),
    ticks: usize,
    decimals: usize,
    caption: &str,
    text: Color,
) {
    let (lo, hi) = range;
    let n = LEGEND_CELLS;
    // Cell centres at lo..=hi, so each end of the bar shows its end value.
    let ramp = (0..n).map(|i| lo + (hi - lo) * i as f32 / (n - 1) as f32).collect();
    let map = scene.add_map(n, 1, ramp);
    let src = Rect::new(0.5, 0.0, n as f32 - 0.5, 1.0);
    scene.heat_map(bar, map, src, Sampling::Bilinear, range);
    scene.rect(
        bar.inflate(1.0),
        RectStyle::fill(Color::TRANSPARENT).with_border(1.0, text.fade(0.5)),
    );
    let size = 13.0;
    scene.text(TextRun::boxed(
        caption,
        Rect::new(bar.x0, bar.y0 - size - 8.0, bar.x1, bar.y0 - 4.0),
        size,
        text,
        Align::Start,
        VAlign::Bottom,
    ));
    let ticks = ticks.max(2);
    for k in 0..ticks {
        let f = k as f32 / (ticks - 1) as f32;
        let x = bar.x0 + bar.width() * f;
        let value = lo + (hi - lo) * f;
        scene.line([x, bar.y1], [x, bar.y1 + 5.0], 1.0, text.fade(0.7));
        let align = match k {
            0 => Align::Start,
            k if k == ticks - 1 => Align::End,
            _ => Align::Center,
        };
        let w = 80.0;
        let x0 = match align {
            Align::Start => x,
            Align::End => x - w,
            Align::Center => x - w / 2.0,
        };
        scene.text(TextRun::boxed(
            format!("{value:.decimals$}"),
            Rect::new(x0, bar.y1 + 6.0, x0 + w, bar.y1 + 8.0 + size + 4.0),
            size,
            text,
            align,
            VAlign::Top,
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ramp_runs_from_black_to_yellow_white_and_low_values_glow() {
        assert_eq!(inferno(0.0), Color::rgb(0.001462, 0.000466, 0.013866));
        assert_eq!(inferno(1.0), Color::rgb(0.988362, 0.998364, 0.644924));
        // Low SSIM (0.5 of 0.5..1) is the brightest, perfect SSIM black.
        assert_eq!(heat_color(0.5, (0.5, 1.0)), inferno(1.0));
        assert_eq!(heat_color(1.0, (0.5, 1.0)), inferno(0.0));
        assert_eq!(heat_color(-3.0, (0.5, 1.0)), inferno(1.0));
        assert_eq!(heat_color(f32::NAN, (0.5, 1.0)), NAN_COLOR);
        // A turned range (ΔE: high is damage) makes high values glow.
        assert_eq!(heat_color(10.0, (10.0, 0.0)), inferno(1.0));
        assert_eq!(heat_color(25.0, (10.0, 0.0)), inferno(1.0));
        assert_eq!(heat_color(0.0, (10.0, 0.0)), inferno(0.0));
        assert_eq!(heat_color(2.5, (10.0, 0.0)), inferno(0.25));
        // Brightness (sum of channels) grows monotonically along the ramp.
        let brightness = |c: Color| c.r + c.g + c.b;
        let steps: Vec<f32> = (0..=64).map(|i| brightness(inferno(i as f32 / 64.0))).collect();
        assert!(steps.windows(2).all(|w| w[1] > w[0]), "{steps:?}");
    }
}
