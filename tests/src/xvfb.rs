//! A private X server for tests that open real windows, and the check for
//! the X tools they need. Standard library only, so the renderer's own
//! window test can include this file by path without depending on this
//! crate (which depends on the renderer).

use std::io::Read;
use std::process::{Child, Command, Stdio};

/// A private Xvfb, killed when dropped.
pub struct Xvfb {
    child: Child,
    /// `:N`, for `DISPLAY`.
    pub display: String,
}

impl Xvfb {
    /// Starts Xvfb with one `width`x`height` 24-bit screen on a display
    /// number it picks itself (`-displayfd`), so parallel runs and a
    /// developer's own :99 never collide.
    pub fn start(width: u32, height: u32) -> Xvfb {
        let screen = format!("{width}x{height}x24");
        let mut child = Command::new("Xvfb")
            .args(["-displayfd", "1", "-screen", "0", &screen, "-nolisten", "tcp"])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("cannot start Xvfb");
        let mut stdout = child.stdout.take().expect("piped stdout");
        // Xvfb writes the display number followed by a newline once it
        // accepts connections.
        let mut number = String::new();
        let mut byte = [0u8; 1];
        while stdout.read(&mut byte).map(|n| n == 1).unwrap_or(false) && byte[0] != b'\n' {
            number.push(byte[0] as char);
        }
        let number = number.trim().to_owned();
        if number.is_empty() || !number.bytes().all(|b| b.is_ascii_digit()) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("Xvfb did not report a display number (got {number:?})");
        }
        Xvfb { child, display: format!(":{number}") }
    }
}

impl Drop for Xvfb {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Whether `program` is an executable file on `PATH`.
pub fn on_path(program: &str) -> bool {
    std::env::var_os("PATH")
        .is_some_and(|paths| std::env::split_paths(&paths).any(|dir| dir.join(program).is_file()))
}

/// Whether every program in `tools` is here. Under CI (env `CI` set) their
/// absence fails the test rather than letting it pass without having run;
/// elsewhere the test skips with a message naming what to install
/// (`install` lists the Debian packages). A driver setup that cannot run
/// windows at all ([`lavapipe_window_crash`]) skips too, saying why.
pub fn tools_present(tools: &[&str], install: &str) -> bool {
    if let Some(reason) = lavapipe_window_crash() {
        eprintln!("skipped: {reason}");
        return false;
    }
    let missing: Vec<_> = tools.iter().filter(|p| !on_path(p)).collect();
    if missing.is_empty() {
        return true;
    }
    let message = format!("missing {missing:?}: install {install} to run the window tests");
    if std::env::var_os("CI").is_some() {
        panic!("{message}");
    }
    eprintln!("skipped: {message}");
    false
}

/// Why the windowed tests cannot run on this driver setup, if they cannot.
///
/// lavapipe (Mesa 22.3, LLVM 15) built with 512-bit vectors
/// (`LP_NATIVE_VECTOR_WIDTH=512`, subgroup size 16) crashes with SIGSEGV
/// inside LLVM (`LLVMBuildBitCast`, on lavapipe's queue thread) when it
/// compiles the shader behind `vkCmdBlitImage`, which presenting uses to
/// turn the RGBA frame into the swapchain's BGRA. The same frames copied
/// with `vkCmdCopyImage` instead present fine at that width, and every
/// headless test (no blit) passes at it: the crash is Mesa's, not ours, so
/// the windowed tests skip at that width (128 and 256 run them).
pub fn lavapipe_window_crash() -> Option<&'static str> {
    let wide = std::env::var("LP_NATIVE_VECTOR_WIDTH").is_ok_and(|w| w.trim() == "512");
    let lavapipe = ["VK_DRIVER_FILES", "VK_ICD_FILENAMES"]
        .iter()
        .any(|v| std::env::var(v).is_ok_and(|f| f.contains("lvp_icd")));
    (wide && lavapipe).then_some(
        "lavapipe with LP_NATIVE_VECTOR_WIDTH=512 crashes in LLVM compiling its vkCmdBlitImage \
         shader (a Mesa bug; see tests/src/xvfb.rs): window tests run at 128 and 256",
    )
}
