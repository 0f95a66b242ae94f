//! File names ffmpeg would misread if given as they are: `a:b.mp4` is a
//! URL with protocol `a`, `-x.mp4` an option, `http:x.mp4` a web address.
//! Only a relative name shows it (an absolute path starts with `/`, which
//! no protocol name contains), so this test works in the clips' folder:
//! alone in its own test binary, since the working folder is the process's.

mod common;

use std::path::Path;
use std::process::Command;

use vqscope_video::{VideoSource, open_input};

#[test]
fn names_ffmpeg_would_misread_are_read_as_files() {
    let dir = common::temp_path("names");
    std::fs::create_dir_all(&dir).unwrap();
    let made = dir.join("made.mp4");
    let status = Command::new("ffmpeg")
        .args(["-v", "error", "-y", "-f", "lavfi", "-i", "testsrc=size=64x48:rate=25"])
        .args(["-frames:v", "3", "-pix_fmt", "yuv420p", "-c:v", "mpeg4"])
        .arg(&made)
        .status();
    match status {
        Ok(s) => assert!(s.success(), "ffmpeg could not make the clip"),
        Err(e) => {
            eprintln!("skipped: ffmpeg cannot run ({e}); install ffmpeg to run this test");
            return;
        }
    }
    std::env::set_current_dir(&dir).unwrap();
    for name in ["a:b.mp4", "-x.mp4", "http:x.mp4"] {
        std::fs::copy("made.mp4", name).unwrap();
        let mut s = open_input(Path::new(name), None).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(s.info().frame_count, Some(3), "{name}");
        assert_eq!(s.info().path, Path::new(name), "messages name the file as given");
        assert_eq!(count(s.as_mut()), 3, "{name}");
    }
}

fn count(s: &mut dyn VideoSource) -> u64 {
    let mut n = 0;
    while s.next_frame().unwrap().is_some() {
        n += 1;
    }
    n
}
