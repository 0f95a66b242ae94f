//! `vqscope showcase`: the showcase scene (every primitive kind) in a
//! window, redrawn at the window's size, so a person can judge the renderer.

use anyhow::{Result, anyhow};
use vqscope_gpu::Binding;
use vqscope_renderer::present::{InputEvent, WindowOptions, run_window};
use vqscope_renderer::{Renderer, ScanMode, SceneBuffers, scenes};

use crate::output::parse_size;

#[derive(clap::Args)]
pub struct Args {
    /// Initial window size as WIDTHxHEIGHT.
    #[arg(long, value_parser = parse_size, default_value = "1280x720")]
    size: (u32, u32),
    /// Scene to show (see `vqscope screenshot --help`).
    #[arg(long, default_value = "showcase")]
    scene: String,
}

pub fn run(args: Args) -> Result<()> {
    if scenes::build(&args.scene, 1, 1).is_none() {
        return Err(anyhow!("unknown scene `{}`; known: {}", args.scene, scenes::NAMES.join(", ")));
    }
    let mut renderer: Option<Renderer> = None;
    // The encoded scene of each frame in flight: kept until the GPU is done.
    let mut in_flight: Vec<Option<SceneBuffers>> = Vec::new();
    let options = WindowOptions::new(&format!("vqscope — {}", args.scene), args.size);
    let frames_in_flight = options.present.frames_in_flight.max(1);
    run_window(options, |frame, rec, image| -> Result<()> {
        if frame
            .events()
            .iter()
            .any(|e| matches!(e, InputEvent::Key(k) if k.logical_key == winit_escape()))
        {
            frame.exit();
        }
        let renderer = match &mut renderer {
            Some(r) => r,
            None => renderer.insert(Renderer::new(
                frame.gpu(),
                ScanMode::for_device(frame.gpu()),
                None,
            )?),
        };
        renderer.set_output(frame.output())?;
        let (width, height) = frame.size();
        let scene = scenes::build(&args.scene, width, height).expect("checked above");
        let encoded = renderer.encode(&scene)?;
        let buffers = renderer.upload(&encoded)?;
        buffers.record_upload(rec);
        renderer.record(rec, &buffers, Binding::Image(image))?;
        let slot = (frame.index() as usize) % frames_in_flight;
        in_flight.resize_with(frames_in_flight, || None);
        in_flight[slot] = Some(buffers);
        Ok(())
    })
}

fn winit_escape() -> winit::keyboard::Key {
    winit::keyboard::Key::Named(winit::keyboard::NamedKey::Escape)
}
