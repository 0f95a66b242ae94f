//! Shared command-line pieces: sizes like `1920x1080`; lines on stdout that
//! end quietly when the reader goes away; output paths checked before any
//! work starts and written atomically, so that a failed write never leaves
//! half a file behind or loses the file that was there.
//!
//! # stdout
//!
//! Everything the commands print on stdout goes through [`outln!`] (or
//! [`stdout_error`] for other writes). A reader that goes away
//! (`vqscope info x | head -1`) turns into [`StdoutClosed`], which `main`
//! ends quietly with exit status 0: the reader has what it wanted, and
//! `set -o pipefail` scripts should not fail over it. (The Unix default is
//! death by SIGPIPE, status 141; Rust ignores SIGPIPE, and restoring it
//! takes `unsafe` code this crate does not have.) Any other failure
//! (`> /dev/full`) is one line on stderr and exit status 1.
//!
//! # Output files
//!
//! [`check_report_path`] refuses, before any work, an output that cannot be
//! written or that is one of the inputs; [`write_atomically`] and
//! [`replace_atomically`] write a temporary file in the target's folder and
//! rename it over the target only once it is complete. `-` is stdout.

use std::ffi::OsString;
use std::fmt;
use std::fs::{self, File, Permissions};
use std::io::{self, Write};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};

use anyhow::{Context, Result, anyhow, bail};

/// Parses `WxH` (also `1080p`, `4k`).
pub fn parse_size(text: &str) -> Result<(u32, u32), String> {
    match text.to_ascii_lowercase().as_str() {
        "720p" => return Ok((1280, 720)),
        "1080p" => return Ok((1920, 1080)),
        "4k" | "2160p" => return Ok((3840, 2160)),
        _ => {}
    }
    let (w, h) = text.split_once(['x', 'X']).ok_or(format!("`{text}` is not WIDTHxHEIGHT"))?;
    let parse =
        |s: &str| s.trim().parse::<u32>().map_err(|_| format!("`{text}` is not WIDTHxHEIGHT"));
    let (w, h) = (parse(w)?, parse(h)?);
    if w == 0 || h == 0 || w > 16384 || h > 16384 {
        return Err(format!("size {w}x{h} is outside 1x1..16384x16384"));
    }
    Ok((w, h))
}

/// Refuses to write over an existing file unless `force`, and over a
/// directory ever. `-` (stdout) always passes.
pub fn check_output(path: &Path, force: bool) -> Result<()> {
    if is_stdout(path) {
        return Ok(());
    }
    if path.is_dir() {
        bail!("{} is a directory", path.display());
    }
    if path.exists() && !force {
        bail!("{} exists; pass --force to overwrite it", path.display());
    }
    Ok(())
}

/// stdout's reader went away (a closed pipe): the command stops quietly
/// and `main` exits with status 0.
#[derive(Debug)]
pub struct StdoutClosed;

impl fmt::Display for StdoutClosed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("stdout was closed by its reader")
    }
}

impl std::error::Error for StdoutClosed {}

/// Whether `e` (or one of its causes) is [`StdoutClosed`].
pub fn is_stdout_closed(e: &anyhow::Error) -> bool {
    e.chain().any(|cause| cause.is::<StdoutClosed>())
}

/// The error for a failed write to stdout: [`StdoutClosed`] for a closed
/// pipe, otherwise one line naming stdout (`writing to stdout: No space
/// left on device`).
pub fn stdout_error(e: io::Error) -> anyhow::Error {
    if e.kind() == io::ErrorKind::BrokenPipe {
        anyhow::Error::new(StdoutClosed)
    } else {
        anyhow::Error::new(e).context("writing to stdout")
    }
}

/// Writes `line` and a newline to stdout and flushes, so a failure shows
/// here and not at exit. Use it through [`outln!`].
pub fn print_line(line: fmt::Arguments<'_>) -> Result<()> {
    let mut out = io::stdout().lock();
    out.write_fmt(line)
        .and_then(|()| out.write_all(b"\n"))
        .and_then(|()| out.flush())
        .map_err(stdout_error)
}

/// `println!` that returns a `Result` instead of panicking:
/// `outln!("{x}")?`. A closed stdout gives [`StdoutClosed`].
macro_rules! outln {
    ($($arg:tt)*) => {
        $crate::output::print_line(format_args!($($arg)*))
    };
}
pub(crate) use outln;

/// Whether `path` means stdout (`-`).
pub fn is_stdout(path: &Path) -> bool {
    path.as_os_str() == "-"
}

/// `path` as messages show it (`-` is stdout).
pub fn shown(path: &Path) -> String {
    if is_stdout(path) { "stdout".into() } else { path.display().to_string() }
}

/// Checks, before any work, that a report can be written to `output`:
/// refuses a directory, a folder that does not exist or is a file, a
/// folder where no file can be created (tried by creating and removing a
/// temporary file), an existing file that cannot be written, and any of
/// `inputs` — by device and inode, so hard links and symbolic links to an
/// input are caught too. `-` (stdout) passes. Messages name the output as
/// `flag` and its path: `-o` on the command line, a manifest's field.
pub fn check_report_path(flag: &str, output: &Path, inputs: &[&Path]) -> Result<()> {
    if is_stdout(output) {
        return Ok(());
    }
    let shown = output.display();
    let existing = fs::metadata(output).ok();
    if existing.as_ref().is_some_and(|m| m.is_dir()) {
        bail!("{flag} {shown}: is a directory");
    }
    let dest = destination(output);
    let folder = folder_of(&dest);
    match fs::metadata(folder) {
        Ok(m) if m.is_dir() => {}
        Ok(_) => bail!("{flag} {shown}: {} is not a folder", folder.display()),
        Err(_) => {
            let blocker = folder
                .ancestors()
                .skip(1)
                .map(|a| if a.as_os_str().is_empty() { Path::new(".") } else { a })
                .find_map(|a| fs::metadata(a).ok().map(|m| (a, m.is_dir())));
            match blocker {
                Some((file, false)) => bail!("{flag} {shown}: {} is not a folder", file.display()),
                _ => bail!("{flag} {shown}: folder {} does not exist", folder.display()),
            }
        }
    }
    if let Some(out) = &existing {
        for input in inputs.iter().filter(|i| !is_stdout(i)) {
            if fs::metadata(input).is_ok_and(|i| (i.dev(), i.ino()) == (out.dev(), out.ino())) {
                let also = if *input == output {
                    String::new()
                } else {
                    format!(" ({} is the same file)", input.display())
                };
                bail!("{flag} {shown}: refusing to overwrite an input{also}");
            }
        }
        if !out.is_file() {
            // A device or pipe (`-o /dev/null`): written in place, and a
            // pipe must not be opened here (that waits for a reader).
            return Ok(());
        }
        if let Err(e) = File::options().write(true).open(output) {
            bail!("{flag} {shown}: cannot write it: {e}");
        }
    }
    match TempFile::create_in(folder, &dest, None) {
        Ok(_probe) => Ok(()), // removed when dropped
        Err(e) => bail!("{flag} {shown}: cannot write in {}: {e}", folder_shown(folder)),
    }
}

/// Writes `path` (`-`: stdout) through `write`, all or nothing: the data
/// goes to a temporary file in the same folder, which is flushed to disk
/// and renamed over `path` only when `write` and every write succeeded;
/// on failure it is removed and the old file, if any, is untouched. A new
/// file gets the usual permissions (0666 less the umask), a replaced one
/// keeps its own; a symbolic link is written through, as `File::create`
/// would; a device or pipe (`/dev/null`) is written in place. Errors name
/// the path.
pub fn write_atomically(
    path: &Path,
    write: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> Result<()> {
    let fail = |e: io::Error| anyhow!("cannot write {}: {e}", path.display());
    match Target::of(path).map_err(fail)? {
        Target::Stdout => {
            let mut out = io::BufWriter::new(io::stdout().lock());
            write(&mut out).and_then(|()| out.flush()).map_err(stdout_error)
        }
        Target::InPlace(dest) => {
            let mut out = io::BufWriter::new(File::create(dest).map_err(fail)?);
            write(&mut out).and_then(|()| out.flush()).map_err(fail)
        }
        Target::Replace { dest, keep } => {
            let (temp, file) = TempFile::create_in(folder_of(&dest), &dest, None).map_err(fail)?;
            let mut out = io::BufWriter::new(file);
            write(&mut out).and_then(|()| out.flush()).map_err(fail)?;
            let file = out.into_inner().map_err(|e| fail(e.into_error()))?;
            temp.commit(file, &dest, keep).map_err(fail)
        }
    }
}

/// A scratch file, open for reading and writing, for what a report to
/// `path` gathers while it is computed: in the report's folder (so the
/// space it takes is the report's own disk), or the system's temporary
/// folder for stdout and devices. Its name is removed at once, so nothing
/// is left behind whatever becomes of the process; the space is freed when
/// the file is closed.
pub fn scratch_file(path: &Path) -> Result<File> {
    let fail = |e: io::Error| anyhow!("cannot write {}: {e}", shown(path));
    let folder = match Target::of(path).map_err(fail)? {
        Target::Replace { dest, .. } => folder_of(&dest).to_path_buf(),
        Target::Stdout | Target::InPlace(_) => std::env::temp_dir(),
    };
    let (temp, file) = TempFile::create_in(&folder, Path::new("frames"), None).map_err(fail)?;
    drop(file);
    let file = File::options().read(true).write(true).open(&temp.path).map_err(fail)?;
    drop(temp); // removes the name; the open file lives on
    Ok(file)
}

/// Like [`write_atomically`] for writers that want a path (a PNG encoder):
/// `write` creates the file at the path it is given, a temporary one
/// whose name ends in `.EXT`, which then replaces `path`. For `-` (stdout)
/// or a device the temporary file is made in the system's temporary
/// folder and copied there.
pub fn replace_atomically(
    path: &Path,
    ext: &str,
    write: impl FnOnce(&Path) -> Result<()>,
) -> Result<()> {
    let fail = |e: io::Error| anyhow!("cannot write {}: {e}", path.display());
    let target = Target::of(path).map_err(fail)?;
    let folder = match &target {
        Target::Replace { dest, .. } => folder_of(dest).to_path_buf(),
        Target::Stdout | Target::InPlace(_) => std::env::temp_dir(),
    };
    let name = if is_stdout(path) { Path::new("stdout") } else { path };
    let (temp, file) = TempFile::create_in(&folder, name, Some(ext)).map_err(fail)?;
    drop(file);
    write(&temp.path).with_context(|| format!("cannot write {}", shown(path)))?;
    match target {
        Target::Stdout => {
            let mut from = File::open(&temp.path).map_err(fail)?;
            let mut out = io::stdout().lock();
            io::copy(&mut from, &mut out).and_then(|_| out.flush()).map(drop).map_err(stdout_error)
        }
        Target::InPlace(dest) => {
            let mut from = File::open(&temp.path).map_err(fail)?;
            let mut to = File::create(dest).map_err(fail)?;
            io::copy(&mut from, &mut to).map(drop).map_err(fail)
        }
        Target::Replace { dest, keep } => {
            let file = File::options().write(true).open(&temp.path).map_err(fail)?;
            temp.commit(file, &dest, keep).map_err(fail)
        }
    }
}

/// Where and how an output is written.
enum Target {
    Stdout,
    /// An existing device or pipe: written in place.
    InPlace(PathBuf),
    /// A regular file (new or replaced) at `dest`, with the permissions a
    /// replaced file had.
    Replace {
        dest: PathBuf,
        keep: Option<Permissions>,
    },
}

impl Target {
    fn of(path: &Path) -> io::Result<Target> {
        if is_stdout(path) {
            return Ok(Target::Stdout);
        }
        let dest = destination(path);
        match fs::metadata(&dest) {
            Ok(m) if m.is_dir() => {
                Err(io::Error::new(io::ErrorKind::IsADirectory, "it is a directory"))
            }
            Ok(m) if !m.is_file() => Ok(Target::InPlace(dest)),
            Ok(m) => {
                // What File::create would refuse, the rename must not do.
                File::options().write(true).open(&dest)?;
                Ok(Target::Replace { dest, keep: Some(m.permissions()) })
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                Ok(Target::Replace { dest, keep: None })
            }
            Err(e) => Err(e),
        }
    }
}

/// The file `path` names: a symbolic link's target (so the link stays a
/// link), otherwise `path` itself.
fn destination(path: &Path) -> PathBuf {
    match fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => {
            fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
        }
        _ => path.to_path_buf(),
    }
}

/// The folder holding `path` (`.` for a bare file name).
fn folder_of(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

fn folder_shown(folder: &Path) -> String {
    if folder == Path::new(".") {
        "the current folder".into()
    } else {
        format!("folder {}", folder.display())
    }
}

/// A temporary file next to its destination, removed when dropped unless
/// renamed into place.
struct TempFile {
    path: PathBuf,
    committed: bool,
}

impl TempFile {
    /// Creates `.vqscope-PID-N-NAME` in `folder` (`NAME`: the file name
    /// of `dest`, so the extension stays last for writers that go by it;
    /// `.EXT` is appended when `ext` is given and `NAME` lacks it), a name
    /// no other writer picks; returns it open.
    fn create_in(folder: &Path, dest: &Path, ext: Option<&str>) -> io::Result<(TempFile, File)> {
        static COUNTER: AtomicU32 = AtomicU32::new(0);
        let mut name = dest.file_name().map_or_else(|| OsString::from("out"), |n| n.to_os_string());
        if let Some(ext) = ext
            && Path::new(&name).extension().is_none_or(|e| e != ext)
        {
            name.push(format!(".{ext}"));
        }
        loop {
            let n = COUNTER.fetch_add(1, Ordering::Relaxed);
            let mut temp = OsString::from(format!(".vqscope-{}-{n}-", std::process::id()));
            temp.push(&name);
            let path = folder.join(temp);
            match File::create_new(&path) {
                Ok(file) => return Ok((TempFile { path, committed: false }, file)),
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(e),
            }
        }
    }

    /// Flushes `file` (the temporary file, open) to disk, gives it `keep`'s
    /// permissions and renames it to `dest`.
    fn commit(mut self, file: File, dest: &Path, keep: Option<Permissions>) -> io::Result<()> {
        file.sync_all()?;
        drop(file);
        if let Some(permissions) = keep {
            fs::set_permissions(&self.path, permissions)?;
        }
        fs::rename(&self.path, dest)?;
        self.committed = true;
        Ok(())
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        if !self.committed {
            let _ = fs::remove_file(&self.path);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn scratch(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("vqscope-output-test-{}-{name}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        dir
    }

    /// Files in `dir` other than `keep`.
    fn others(dir: &Path, keep: &[&str]) -> Vec<String> {
        fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| !keep.contains(&n.as_str()))
            .collect()
    }

    #[test]
    fn a_failed_write_keeps_the_old_file_and_leaves_nothing() {
        let dir = scratch("fail");
        let out = dir.join("r.json");
        fs::write(&out, "old").unwrap();
        fs::set_permissions(&out, Permissions::from_mode(0o640)).unwrap();
        let err = write_atomically(&out, |w| {
            w.write_all(b"{\"half\":")?;
            Err(io::Error::other("disk on fire"))
        })
        .unwrap_err();
        assert_eq!(err.to_string(), format!("cannot write {}: disk on fire", out.display()));
        assert_eq!(fs::read_to_string(&out).unwrap(), "old");
        assert!(others(&dir, &["r.json"]).is_empty(), "{:?}", others(&dir, &["r.json"]));

        write_atomically(&out, |w| w.write_all(b"new")).unwrap();
        assert_eq!(fs::read_to_string(&out).unwrap(), "new");
        let mode = fs::metadata(&out).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o640, "a replaced file keeps its permissions");
        assert!(others(&dir, &["r.json"]).is_empty());

        let err = replace_atomically(&out, "png", |_| bail!("encoder failed")).unwrap_err();
        assert_eq!(format!("{err:#}"), format!("cannot write {}: encoder failed", out.display()));
        assert_eq!(fs::read_to_string(&out).unwrap(), "new");
        replace_atomically(&out, "png", |p| {
            assert!(p.file_name().unwrap().to_str().unwrap().ends_with("-r.json.png"), "{p:?}");
            Ok(fs::write(p, "png")?)
        })
        .unwrap();
        assert_eq!(fs::read_to_string(&out).unwrap(), "png");
        assert!(others(&dir, &["r.json"]).is_empty());
    }

    #[test]
    fn links_and_devices() {
        let dir = scratch("links");
        let real = dir.join("real.json");
        fs::write(&real, "old").unwrap();
        let link = dir.join("link.json");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        write_atomically(&link, |w| w.write_all(b"through")).unwrap();
        assert!(fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
        assert_eq!(fs::read_to_string(&real).unwrap(), "through");
        // A device is written in place, never replaced by a file.
        write_atomically(Path::new("/dev/null"), |w| w.write_all(b"x")).unwrap();
        assert!(!fs::metadata("/dev/null").unwrap().is_file());
        let err = write_atomically(Path::new("/dev/full"), |w| w.write_all(&[0; 100_000]));
        assert!(err.unwrap_err().to_string().starts_with("cannot write /dev/full: "));
    }

    #[test]
    fn report_paths() {
        let dir = scratch("report");
        let input = dir.join("in.y4m");
        fs::write(&input, "YUV4MPEG2").unwrap();
        let ok = |p: &Path| check_report_path("-o", p, &[&input, Path::new("-")]);
        let err = |p: &Path| ok(p).unwrap_err().to_string();
        ok(&dir.join("new.json")).unwrap();
        ok(Path::new("-")).unwrap();
        ok(Path::new("/dev/null")).unwrap();
        assert!(err(&dir).ends_with(": is a directory"));
        assert!(err(&input).ends_with(": refusing to overwrite an input"));
        let hard = dir.join("hard.json");
        fs::hard_link(&input, &hard).unwrap();
        assert!(err(&hard).ends_with(&format!(
            "refusing to overwrite an input ({} is the same file)",
            input.display()
        )));
        let soft = dir.join("soft.json");
        std::os::unix::fs::symlink(&input, &soft).unwrap();
        assert!(err(&soft).contains("refusing to overwrite an input"));
        let missing = dir.join("no/such/x.json");
        assert_eq!(
            err(&missing),
            format!(
                "-o {}: folder {} does not exist",
                missing.display(),
                dir.join("no/such").display()
            )
        );
        let under_file = input.join("x.json");
        assert_eq!(
            err(&under_file),
            format!("-o {}: {} is not a folder", under_file.display(), input.display())
        );
        let deeper = input.join("a/x.json");
        assert!(err(&deeper).ends_with(&format!("{} is not a folder", input.display())));
        assert!(others(&dir, &["in.y4m", "hard.json", "soft.json"]).is_empty());
    }

    #[test]
    fn stdout_errors() {
        let closed = stdout_error(io::Error::from(io::ErrorKind::BrokenPipe));
        assert!(is_stdout_closed(&closed));
        assert!(is_stdout_closed(&closed.context("printing")));
        let full = stdout_error(io::Error::from_raw_os_error(28));
        assert!(!is_stdout_closed(&full));
        assert!(full.to_string().starts_with("writing to stdout"), "{full}");
    }
}
