//! winit's window events as the app sees them: [`InputEvent`], in physical
//! pixels and scroll lines whatever the device reports. Events that only
//! the loop cares about (redraws, closing, occlusion) map to nothing.

use winit::event::{ElementState, KeyEvent, MouseButton, MouseScrollDelta, WindowEvent};
use winit::keyboard::ModifiersState;

/// Lines scrolled per 100 pixels of a touchpad's pixel-precise scroll, so the
/// app sees one unit whatever the device reports.
const PIXELS_PER_SCROLL_LINE: f64 = 100.0 / 3.0;

/// Input the app sees, in the order it arrived since the previous frame.
/// Coordinates are physical pixels, the same pixels as the offscreen image.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum InputEvent {
    /// A key went down or up (with repeats); winit's event as is, for its
    /// logical key, physical key code and text.
    Key(KeyEvent),
    /// Shift, control, alt or super changed.
    Modifiers(ModifiersState),
    CursorMoved {
        x: f64,
        y: f64,
    },
    CursorLeft,
    MouseButton {
        button: MouseButton,
        pressed: bool,
    },
    /// Scroll in lines; positive `y` scrolls content down (wheel up).
    Scroll {
        x: f32,
        y: f32,
    },
    /// The window's new inner size; the offscreen image follows from the
    /// next frame on ([`super::Frame::size`] tells the size drawn at).
    Resized {
        width: u32,
        height: u32,
    },
    Focused(bool),
    /// DPI scale factor changed (the app may want larger text).
    ScaleFactor(f64),
    /// A file was dragged from another program and dropped on the window
    /// (one event per file); the last `CursorMoved` says roughly where.
    DroppedFile(std::path::PathBuf),
}

impl InputEvent {
    /// The app's view of `event`; None for events that are not input.
    pub fn from_window_event(event: WindowEvent) -> Option<Self> {
        Some(match event {
            WindowEvent::Resized(size) => {
                InputEvent::Resized { width: size.width, height: size.height }
            }
            WindowEvent::KeyboardInput { event, .. } => InputEvent::Key(event),
            WindowEvent::ModifiersChanged(m) => InputEvent::Modifiers(m.state()),
            WindowEvent::CursorMoved { position, .. } => {
                InputEvent::CursorMoved { x: position.x, y: position.y }
            }
            WindowEvent::CursorLeft { .. } => InputEvent::CursorLeft,
            WindowEvent::MouseInput { state, button, .. } => {
                InputEvent::MouseButton { button, pressed: state == ElementState::Pressed }
            }
            WindowEvent::MouseWheel { delta, .. } => {
                let (x, y) = scroll_lines(delta);
                InputEvent::Scroll { x, y }
            }
            WindowEvent::Focused(focused) => InputEvent::Focused(focused),
            WindowEvent::ScaleFactorChanged { scale_factor, .. } => {
                InputEvent::ScaleFactor(scale_factor)
            }
            WindowEvent::DroppedFile(path) => InputEvent::DroppedFile(path),
            _ => return None,
        })
    }
}

/// A wheel's lines as they are; a touchpad's pixels as lines.
fn scroll_lines(delta: MouseScrollDelta) -> (f32, f32) {
    match delta {
        MouseScrollDelta::LineDelta(x, y) => (x, y),
        MouseScrollDelta::PixelDelta(p) => {
            ((p.x / PIXELS_PER_SCROLL_LINE) as f32, (p.y / PIXELS_PER_SCROLL_LINE) as f32)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use winit::dpi::{PhysicalPosition, PhysicalSize};
    use winit::event::{DeviceId, TouchPhase};

    fn wheel(delta: MouseScrollDelta) -> WindowEvent {
        WindowEvent::MouseWheel { device_id: DeviceId::dummy(), delta, phase: TouchPhase::Moved }
    }

    #[test]
    fn pointer_events_keep_physical_pixels_and_buttons() {
        let moved = WindowEvent::CursorMoved {
            device_id: DeviceId::dummy(),
            position: PhysicalPosition::new(12.5, 700.25),
        };
        assert_eq!(
            InputEvent::from_window_event(moved),
            Some(InputEvent::CursorMoved { x: 12.5, y: 700.25 })
        );
        for (state, pressed) in [(ElementState::Pressed, true), (ElementState::Released, false)] {
            let click = WindowEvent::MouseInput {
                device_id: DeviceId::dummy(),
                state,
                button: MouseButton::Right,
            };
            assert_eq!(
                InputEvent::from_window_event(click),
                Some(InputEvent::MouseButton { button: MouseButton::Right, pressed })
            );
        }
        let left = WindowEvent::CursorLeft { device_id: DeviceId::dummy() };
        assert_eq!(InputEvent::from_window_event(left), Some(InputEvent::CursorLeft));
    }

    #[test]
    fn wheel_lines_pass_and_touchpad_pixels_become_lines() {
        assert_eq!(
            InputEvent::from_window_event(wheel(MouseScrollDelta::LineDelta(-1.0, 2.0))),
            Some(InputEvent::Scroll { x: -1.0, y: 2.0 })
        );
        // 100 pixels are three lines, whichever the direction.
        let pixels = MouseScrollDelta::PixelDelta(PhysicalPosition::new(-100.0, 50.0));
        assert_eq!(
            InputEvent::from_window_event(wheel(pixels)),
            Some(InputEvent::Scroll { x: -3.0, y: 1.5 })
        );
    }

    #[test]
    fn window_changes_map_and_loop_events_do_not() {
        let resized = WindowEvent::Resized(PhysicalSize::new(640, 0));
        assert_eq!(
            InputEvent::from_window_event(resized),
            Some(InputEvent::Resized { width: 640, height: 0 })
        );
        assert_eq!(
            InputEvent::from_window_event(WindowEvent::Focused(false)),
            Some(InputEvent::Focused(false))
        );
        let path = std::path::PathBuf::from("/tmp/a b.y4m");
        assert_eq!(
            InputEvent::from_window_event(WindowEvent::DroppedFile(path.clone())),
            Some(InputEvent::DroppedFile(path))
        );
        for event in [
            WindowEvent::RedrawRequested,
            WindowEvent::CloseRequested,
            WindowEvent::Destroyed,
            WindowEvent::Occluded(true),
        ] {
            assert_eq!(InputEvent::from_window_event(event), None);
        }
    }
}
