//! The pipeline cache every compute pipeline is created through, kept on
//! disk between runs so that a second run skips the driver's compilation.
//!
//! One file per device (`pipelines-VENDOR-DEVICE.bin`) in the cache folder:
//! vqscope's own header — a magic, the key (vendor and device id, driver
//! version, the driver's `pipelineCacheUUID` and the shader set's hash), the
//! length and a checksum of the data — then the driver's data as
//! `vkGetPipelineCacheData` gave it. A file whose header, key, length,
//! checksum or Vulkan header does not match is ignored with a note: a
//! driver is never handed data from another driver, device, shader set or a
//! torn write. Files are written to a temporary name and renamed, so a
//! reader sees the old file or the new one, never half of one.

use std::path::{Path, PathBuf};

use ash::vk;
use vqscope_shaders::hash::{FNV_OFFSET, fnv1a, fnv1a_word};

use crate::context::DeviceInfo;
use crate::error::{Result, vk_error};

/// The first bytes of every cache file (its format's version is the digit).
const MAGIC: [u8; 8] = *b"vqspcch1";
/// vqscope's header: magic, key, data length, data checksum.
const HEADER_LEN: usize = 32;
/// `VkPipelineCacheHeaderVersionOne`: header size, header version, vendor
/// id, device id, then the 16-byte UUID.
const VK_HEADER_LEN: usize = 16 + vk::UUID_SIZE;

/// Where the cache file lives by default: `$VQSCOPE_PIPELINE_CACHE` when it
/// is set (`off` or empty: no file), else `$XDG_CACHE_HOME/vqscope`, else
/// `~/.cache/vqscope`; `None` when none of these is known.
pub fn default_dir() -> Option<PathBuf> {
    let nonempty = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
    match std::env::var_os("VQSCOPE_PIPELINE_CACHE") {
        Some(v) if v.is_empty() || v == "off" => None,
        Some(v) => Some(PathBuf::from(v)),
        None => nonempty("XDG_CACHE_HOME")
            .map(PathBuf::from)
            .or_else(|| nonempty("HOME").map(|h| Path::new(&h).join(".cache")))
            .map(|base| base.join("vqscope")),
    }
}

/// The device's cache: the Vulkan object, and the file it came from and
/// goes back to.
pub(crate) struct PipelineCache {
    pub(crate) handle: vk::PipelineCache,
    file: Option<PathBuf>,
    key: u64,
    /// Checksum of the data read from the file, to skip rewriting it.
    loaded: Option<u64>,
    /// What happened to the file at start, for `-v`.
    pub(crate) note: String,
}

/// The key of `info`'s driver and device for the current shader set.
fn key(info: &DeviceInfo) -> u64 {
    let mut h = fnv1a(FNV_OFFSET, &info.vendor_id.to_le_bytes());
    h = fnv1a(h, &info.device_id.to_le_bytes());
    h = fnv1a(h, &info.driver_version.to_le_bytes());
    h = fnv1a(h, &info.pipeline_cache_uuid);
    fnv1a(h, &vqscope_shaders::set_hash().to_le_bytes())
}

/// The checksum of `data`, a word at a time.
fn checksum(data: &[u8]) -> u64 {
    let words = data.chunks_exact(4);
    let rest = words.remainder();
    let h = words.fold(FNV_OFFSET, |h, w| fnv1a_word(h, word(w, 0)));
    fnv1a(h, rest)
}

fn word(bytes: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(bytes[at..at + 4].try_into().expect("4 bytes"))
}

fn long(bytes: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(bytes[at..at + 8].try_into().expect("8 bytes"))
}

/// The driver data inside cache file `bytes`, or why it is not usable on
/// `info`'s device (whose [`key`] is `key`).
fn check<'a>(
    bytes: &'a [u8],
    info: &DeviceInfo,
    key: u64,
) -> std::result::Result<&'a [u8], String> {
    if bytes.len() < HEADER_LEN || bytes[..8] != MAGIC {
        return Err("not a vqscope pipeline cache".into());
    }
    if long(bytes, 8) != key {
        return Err("made for another device, driver or shader set".into());
    }
    let data = &bytes[HEADER_LEN..];
    if data.len() as u64 != long(bytes, 16) {
        return Err(format!("truncated ({} of {} bytes)", data.len(), long(bytes, 16)));
    }
    if checksum(data) != long(bytes, 24) {
        return Err("checksum mismatch".into());
    }
    if data.len() < VK_HEADER_LEN {
        return Err("no Vulkan pipeline cache header".into());
    }
    let header_size = word(data, 0) as usize;
    if header_size < VK_HEADER_LEN || header_size > data.len() {
        return Err(format!("Vulkan header size {header_size}"));
    }
    if word(data, 4) != vk::PipelineCacheHeaderVersion::ONE.as_raw() as u32 {
        return Err(format!("Vulkan header version {}", word(data, 4)));
    }
    if (word(data, 8), word(data, 12)) != (info.vendor_id, info.device_id)
        || data[16..VK_HEADER_LEN] != info.pipeline_cache_uuid
    {
        return Err("Vulkan header of another device or driver".into());
    }
    Ok(data)
}

/// The cache file holding `data` under `key`.
fn encode(data: &[u8], key: u64) -> Vec<u8> {
    let mut bytes = Vec::with_capacity(HEADER_LEN + data.len());
    bytes.extend_from_slice(&MAGIC);
    bytes.extend_from_slice(&key.to_le_bytes());
    bytes.extend_from_slice(&(data.len() as u64).to_le_bytes());
    bytes.extend_from_slice(&checksum(data).to_le_bytes());
    bytes.extend_from_slice(data);
    bytes
}

/// The usable data of the file at `path` (with its checksum), and a note.
fn read(path: &Path, info: &DeviceInfo, key: u64) -> (Option<(Vec<u8>, u64)>, String) {
    let bytes = match std::fs::read(path) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return (None, format!("none yet at {}", path.display()));
        }
        Err(e) => return (None, format!("{} ignored: {e}", path.display())),
    };
    match check(&bytes, info, key) {
        Ok(data) => {
            let note = format!("read {} bytes from {}", data.len(), path.display());
            (Some((data.to_vec(), long(&bytes, 24))), note)
        }
        Err(why) => (None, format!("{} ignored: {why}", path.display())),
    }
}

impl PipelineCache {
    /// The cache of `info`'s device, filled from its file in `dir` when that
    /// file is usable (`dir` `None`: in memory only).
    pub(crate) fn new(device: &ash::Device, info: &DeviceInfo, dir: Option<&Path>) -> Result<Self> {
        let file = dir.map(|d| {
            d.join(format!("pipelines-{:04x}-{:04x}.bin", info.vendor_id, info.device_id))
        });
        let key = key(info);
        let (initial, note) = match &file {
            Some(path) => read(path, info, key),
            None => (None, "off".into()),
        };
        let data = initial.as_ref().map_or(&[][..], |(d, _)| d.as_slice());
        let create_info = vk::PipelineCacheCreateInfo::default().initial_data(data);
        // SAFETY: the initial data outlives the call, and `check` verified that it is what
        // vkGetPipelineCacheData gave on a device with the same vendor, device, UUID and
        // driver version.
        let handle = unsafe { device.create_pipeline_cache(&create_info, None) }
            .map_err(vk_error("vkCreatePipelineCache"))?;
        Ok(Self { handle, file, key, loaded: initial.map(|(_, sum)| sum), note })
    }

    /// Writes the cache's data to its file unless it holds just what was
    /// read; returns what happened. Failing to write is a note, not an error:
    /// the next run only compiles again.
    pub(crate) fn save(&self, device: &ash::Device) -> Result<String> {
        let Some(path) = &self.file else { return Ok("off".into()) };
        // SAFETY: the cache belongs to this device; it is internally synchronised (created
        // without the externally-synchronised flag), so pipelines may be created meanwhile.
        let data = unsafe { device.get_pipeline_cache_data(self.handle) }
            .map_err(vk_error("vkGetPipelineCacheData"))?;
        if self.loaded == Some(checksum(&data)) {
            return Ok(format!("unchanged ({} bytes)", data.len()));
        }
        match write_atomically(path, &encode(&data, self.key)) {
            Ok(()) => Ok(format!("wrote {} bytes to {}", data.len(), path.display())),
            Err(e) => Ok(format!("not written to {}: {e}", path.display())),
        }
    }
}

/// Writes `bytes` to `path` through a temporary file in the same folder
/// (created if missing) and a rename.
fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let mut temp = path.as_os_str().to_owned();
    temp.push(format!(".{}.tmp", std::process::id()));
    let temp = PathBuf::from(temp);
    let result = std::fs::write(&temp, bytes).and_then(|()| std::fs::rename(&temp, path));
    if result.is_err() {
        let _ = std::fs::remove_file(&temp);
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    fn info() -> DeviceInfo {
        DeviceInfo {
            name: "test".into(),
            device_type: vk::PhysicalDeviceType::CPU,
            api_version: vk::API_VERSION_1_3,
            vendor_id: 0x10de,
            device_id: 0x2335,
            driver_version: 7,
            pipeline_cache_uuid: [9; 16],
            subgroup_size: 32,
            min_subgroup_size: 32,
            max_subgroup_size: 32,
            max_compute_workgroup_size: [1024; 3],
            max_compute_workgroup_count: [65535; 3],
            max_shared_memory: 49152,
            max_storage_buffer_range: u32::MAX,
            timestamp_period: 1.0,
            denormal_preserving_widths: Vec::new(),
        }
    }

    /// Driver data with a Vulkan header for `info` and a body.
    fn driver_data(info: &DeviceInfo) -> Vec<u8> {
        let mut data = Vec::new();
        for w in [VK_HEADER_LEN as u32, 1, info.vendor_id, info.device_id] {
            data.extend_from_slice(&w.to_le_bytes());
        }
        data.extend_from_slice(&info.pipeline_cache_uuid);
        data.extend_from_slice(b"compiled pipelines");
        data
    }

    #[test]
    fn a_file_round_trips() {
        let info = info();
        let data = driver_data(&info);
        assert_eq!(check(&encode(&data, key(&info)), &info, key(&info)), Ok(&data[..]));
    }

    #[test]
    fn damaged_or_foreign_files_are_refused() {
        let info = info();
        let key = key(&info);
        let good = encode(&driver_data(&info), key);
        let refused = |bytes: &[u8], why: &str| {
            let e = check(bytes, &info, key).expect_err(why);
            assert!(e.contains(why), "{e:?} lacks {why:?}");
        };
        refused(b"", "not a vqscope");
        refused(&good[..good.len() - 1], "truncated");
        refused(&good[..HEADER_LEN - 1], "not a vqscope");
        let mut flipped = good.clone();
        *flipped.last_mut().unwrap() ^= 1;
        refused(&flipped, "checksum");
        for other in [
            DeviceInfo { driver_version: 8, ..info.clone() },
            DeviceInfo { device_id: 1, ..info.clone() },
            DeviceInfo { pipeline_cache_uuid: [0; 16], ..info.clone() },
        ] {
            refused(&encode(&driver_data(&other), super::key(&other)), "another device, driver");
        }
        // A key that matches over a Vulkan header that does not: the driver's
        // own check is not trusted.
        let foreign = DeviceInfo { vendor_id: 0x1002, ..info.clone() };
        refused(&encode(&driver_data(&foreign), key), "Vulkan header of another");
        let mut version = driver_data(&info);
        version[4] = 2;
        refused(&encode(&version, key), "header version 2");
        let mut size = driver_data(&info);
        size[0] = 200;
        refused(&encode(&size, key), "header size 200");
        refused(&encode(&driver_data(&info)[..20], key), "no Vulkan pipeline cache header");
    }
}
