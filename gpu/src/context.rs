//! The Vulkan instance, the chosen physical device, the logical device with
//! its one compute queue, and the memory allocator: everything the renderer
//! and the metrics share. One [`GpuContext`] owns them and tears them down in
//! reverse order of creation.

use std::ffi::{CStr, CString, c_char};
use std::mem::ManuallyDrop;
use std::path::PathBuf;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use ash::vk;
use gpu_allocator::vulkan::{Allocator, AllocatorCreateDesc};

use crate::error::{GpuError, Result, vk_error};
use crate::pipeline_cache::PipelineCache;
use crate::validation::Validation;

const VALIDATION_LAYER: &CStr = c"VK_LAYER_KHRONOS_validation";

/// Held while a context is created or destroyed: contexts come and go one at
/// a time in a process. On the NVIDIA driver (580.159.04), test binaries
/// whose tests create and drop contexts on parallel threads segfaulted in 7
/// of 24 runs without it and in none of 24 with it.
static LIFECYCLE: Mutex<()> = Mutex::new(());

/// How to create a [`GpuContext`].
#[derive(Debug, Clone, Default)]
pub struct ContextOptions {
    /// Turn on the Khronos validation layer (with synchronization
    /// validation) and collect its messages. Defaults to `VQSCOPE_VALIDATION=1`.
    pub validation: bool,
    /// Instance extensions a window needs (from `ash_window`).
    pub instance_extensions: Vec<&'static CStr>,
    /// Ask for the swapchain device extension, and for what an HDR10
    /// swapchain needs where it is offered: `VK_EXT_swapchain_colorspace`
    /// (instance) and `VK_EXT_hdr_metadata` (device).
    pub swapchain: bool,
    /// Device choice: an index into the enumeration or a substring of the
    /// name. Defaults to `VQSCOPE_DEVICE`.
    pub device: Option<String>,
    /// The folder of the pipeline cache kept between runs
    /// ([`pipeline_cache_dir`](crate::pipeline_cache_dir) gives the user's);
    /// `None`: pipelines are cached in memory only. Commands that build
    /// pipelines every run set it and call [`GpuContext::save_pipeline_cache`].
    pub pipeline_cache: Option<PathBuf>,
    /// Ask the driver for each compute pipeline's statistics
    /// (`VK_KHR_pipeline_executable_properties`, where offered) and print
    /// them to stderr as the pipelines are made: registers, shared memory
    /// and the like, which decide how many workgroups a GPU keeps resident.
    /// Defaults to `VQSCOPE_PIPELINE_STATS=1`.
    pub pipeline_statistics: bool,
    /// Ask for the video decode queues and extensions where the device
    /// offers them ([`crate::video_decode`]). Only contexts that decode
    /// ask: on NVIDIA's driver the decode queues double the device's
    /// creation time, which every command would pay.
    pub video_decode: bool,
}

impl ContextOptions {
    /// Options from the environment: `VQSCOPE_VALIDATION`, `VQSCOPE_DEVICE`
    /// and `VQSCOPE_PIPELINE_STATS`.
    pub fn from_env() -> Self {
        Self {
            validation: std::env::var("VQSCOPE_VALIDATION").is_ok_and(|v| v == "1"),
            device: std::env::var("VQSCOPE_DEVICE").ok().filter(|v| !v.is_empty()),
            pipeline_statistics: std::env::var("VQSCOPE_PIPELINE_STATS").is_ok_and(|v| v == "1"),
            ..Self::default()
        }
    }

    /// [`ContextOptions::from_env`] with the user's on-disk pipeline cache
    /// ([`crate::pipeline_cache_dir`]): what the commands and the Python
    /// package score with.
    pub fn from_env_cached() -> Self {
        Self { pipeline_cache: crate::pipeline_cache_dir(), ..Self::from_env() }
    }
}

/// What the code built on the device needs to know about it.
#[derive(Debug, Clone)]
pub struct DeviceInfo {
    pub name: String,
    pub device_type: vk::PhysicalDeviceType,
    pub api_version: u32,
    /// PCI vendor and device ids (or the driver's own, for CPU devices).
    pub vendor_id: u32,
    pub device_id: u32,
    /// The driver's version, in its vendor's encoding.
    pub driver_version: u32,
    /// Names the driver's pipeline cache format: caches of another UUID do
    /// not load.
    pub pipeline_cache_uuid: [u8; vk::UUID_SIZE],
    /// The subgroup size the device uses when a pipeline does not ask.
    pub subgroup_size: u32,
    pub min_subgroup_size: u32,
    pub max_subgroup_size: u32,
    pub max_compute_workgroup_size: [u32; 3],
    pub max_compute_workgroup_count: [u32; 3],
    pub max_shared_memory: u32,
    pub max_storage_buffer_range: u32,
    /// Nanoseconds per timestamp tick.
    pub timestamp_period: f32,
    /// The float widths (16, 32, 64) whose denormals a shader may ask the
    /// device to keep, within its float-controls independence rules; every
    /// compute pipeline asks for them (see `spirv::preserving_denormals`).
    pub denormal_preserving_widths: Vec<u32>,
}

/// The Vulkan core: instance, device, queue and allocator.
pub struct GpuContext {
    pub(crate) entry: ash::Entry,
    pub(crate) instance: ash::Instance,
    validation: Option<Validation>,
    pub(crate) physical: vk::PhysicalDevice,
    pub(crate) device: ash::Device,
    pub(crate) queue: Mutex<vk::Queue>,
    pub(crate) queue_family: u32,
    pub(crate) allocator: ManuallyDrop<Mutex<Allocator>>,
    pub(crate) push_descriptor: ash::khr::push_descriptor::Device,
    pub(crate) pipeline_cache: PipelineCache,
    info: DeviceInfo,
    /// The video decode queues, where the device offers Vulkan Video H.264
    /// or H.265 decode (see [`crate::video_decode`]); `None` leaves the
    /// device as it was before video decode existed.
    pub(crate) decode: Option<DecodeQueue>,
    startup: Vec<(&'static str, Duration)>,
    pub(crate) pipeline_stats: PipelineCounters,
    /// Set when [`ContextOptions::pipeline_statistics`] asked for the
    /// driver's per-pipeline statistics and the device offers them.
    pub(crate) executable_properties: Option<ash::khr::pipeline_executable_properties::Device>,
    swapchain_colorspace: bool,
    hdr_metadata: bool,
}

/// Optional device extensions [`GpuContext::create_device`] enabled.
struct DeviceFlags {
    hdr_metadata: bool,
    executable_statistics: bool,
}

/// The queues of the video decode family (up to [`DECODE_QUEUES`]), with
/// the function tables of the video extensions enabled for them. Each
/// decode session takes the queue fewest live sessions use, so the streams
/// of a pair or a ladder, and the parts of a stream, decode side by side on
/// the device's decoders.
pub(crate) struct DecodeQueue {
    pub(crate) family: u32,
    pub(crate) queues: Vec<Mutex<vk::Queue>>,
    /// Live sessions on each queue.
    sessions: Vec<AtomicUsize>,
    pub(crate) video_queue: ash::khr::video_queue::Device,
    pub(crate) video_decode: ash::khr::video_decode_queue::Device,
}

/// What [`GpuContext::create_device`] makes: the device, the compute
/// queue's family, what the device offers, and the decode family with the
/// number of its queues made, where there is one.
type NewDevice =
    (vk::PhysicalDevice, ash::Device, u32, DeviceInfo, DeviceFlags, Option<(u32, u32)>);

/// Decode queues asked for at most: a pair's or a ladder's inputs, or the
/// GOPs of one stream, decode on as many of the device's decoders at
/// once (the H200's decode family has 7 queues).
const DECODE_QUEUES: u32 = 8;

impl DecodeQueue {
    /// The index of the queue for a new session: the first of those fewest
    /// live sessions use. [`DecodeQueue::leave_queue`] gives it back.
    pub(crate) fn take_queue(&self) -> usize {
        let sessions = |q: &usize| self.sessions[*q].load(Ordering::Relaxed);
        let queue = (0..self.queues.len()).min_by_key(sessions).unwrap_or(0);
        self.sessions[queue].fetch_add(1, Ordering::Relaxed);
        queue
    }

    /// A session on queue `queue` ends.
    pub(crate) fn leave_queue(&self, queue: usize) {
        self.sessions[queue].fetch_sub(1, Ordering::Relaxed);
    }
}

/// What building pipelines has cost so far (see [`GpuContext::pipeline_stats`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PipelineStats {
    pub pipelines: u64,
    /// Time in `vkCreateShaderModule`, summed over threads.
    pub modules: Duration,
    /// Time in `vkCreateComputePipelines` (compilation, or a cache hit),
    /// summed over threads.
    pub creation: Duration,
}

/// [`PipelineStats`] as pipelines on any thread add to them.
#[derive(Default)]
pub(crate) struct PipelineCounters {
    count: AtomicU64,
    module_ns: AtomicU64,
    pipeline_ns: AtomicU64,
}

impl PipelineCounters {
    pub(crate) fn add(&self, module: Duration, pipeline: Duration) {
        self.count.fetch_add(1, Ordering::Relaxed);
        self.module_ns.fetch_add(module.as_nanos() as u64, Ordering::Relaxed);
        self.pipeline_ns.fetch_add(pipeline.as_nanos() as u64, Ordering::Relaxed);
    }
}

impl GpuContext {
    /// Creates the context with the given options.
    pub fn new(options: &ContextOptions) -> Result<Self> {
        let _lifecycle = LIFECYCLE.lock().unwrap_or_else(|e| e.into_inner());
        let mut startup = Vec::new();
        let mut lap = {
            let mut last = Instant::now();
            move |name: &'static str, startup: &mut Vec<(&'static str, Duration)>| {
                let now = Instant::now();
                startup.push((name, now - last));
                last = now;
            }
        };
        // SAFETY: loading the system Vulkan loader; its symbols are used only
        // through ash's checked function tables.
        let entry = unsafe { ash::Entry::load() }.map_err(|e| GpuError::Loader(e.to_string()))?;
        // SAFETY: the entry was loaded just above; the call takes no pointers.
        let instance_api = unsafe { entry.try_enumerate_instance_version() }
            .map_err(vk_error("vkEnumerateInstanceVersion"))?
            .unwrap_or(vk::API_VERSION_1_0);
        lap("Vulkan loader", &mut startup);
        if instance_api < vk::API_VERSION_1_3 {
            return Err(GpuError::NoSuitableDevice(format!(
                "the Vulkan loader supports {}, vqscope needs 1.3",
                version_string(instance_api)
            )));
        }

        let mut extensions: Vec<*const c_char> =
            options.instance_extensions.iter().map(|e| e.as_ptr()).collect();
        let mut layers: Vec<*const c_char> = Vec::new();
        if options.validation {
            if !layer_present(&entry, VALIDATION_LAYER)? {
                return Err(GpuError::LayerNotPresent { call: "VQSCOPE_VALIDATION=1" });
            }
            layers.push(VALIDATION_LAYER.as_ptr());
            extensions.push(ash::ext::debug_utils::NAME.as_ptr());
        }
        // Without it surfaces list only sRGB colour spaces, never HDR10's.
        let swapchain_colorspace = options.swapchain
            && instance_extension_present(&entry, ash::ext::swapchain_colorspace::NAME)?;
        if swapchain_colorspace {
            extensions.push(ash::ext::swapchain_colorspace::NAME.as_ptr());
        }
        let app_name = CString::new("vqscope").unwrap();
        let app_info = vk::ApplicationInfo::default()
            .application_name(&app_name)
            .api_version(vk::API_VERSION_1_3);
        let enabled_validation = [vk::ValidationFeatureEnableEXT::SYNCHRONIZATION_VALIDATION];
        let mut validation_features =
            vk::ValidationFeaturesEXT::default().enabled_validation_features(&enabled_validation);
        let mut messenger_info = Validation::messenger_create_info();
        let mut create_info = vk::InstanceCreateInfo::default()
            .application_info(&app_info)
            .enabled_extension_names(&extensions)
            .enabled_layer_names(&layers);
        if options.validation {
            create_info =
                create_info.push_next(&mut validation_features).push_next(&mut messenger_info);
        }
        // SAFETY: every pointer in create_info outlives the call.
        let instance = unsafe { entry.create_instance(&create_info, None) }
            .map_err(vk_error("vkCreateInstance"))?;

        // From here on, failures must destroy what exists: build the rest in
        // a helper and clean up the instance if it fails.
        let validation = if options.validation {
            match Validation::new(&entry, &instance) {
                Ok(v) => Some(v),
                Err(e) => {
                    // SAFETY: nothing was created from the instance yet; it is not used again.
                    unsafe { instance.destroy_instance(None) };
                    return Err(e);
                }
            }
        } else {
            None
        };
        lap("instance", &mut startup);
        match Self::create_device(&instance, options) {
            Ok((physical, device, queue_family, info, flags, decode_family)) => {
                let DeviceFlags { hdr_metadata, executable_statistics } = flags;
                lap("device", &mut startup);
                // SAFETY: the device was created with one queue in this family.
                let queue = unsafe { device.get_device_queue(queue_family, 0) };
                let decode = decode_family.map(|(family, count)| DecodeQueue {
                    family,
                    queues: (0..count)
                        // SAFETY: the device was created with `count` queues in the decode family.
                        .map(|i| Mutex::new(unsafe { device.get_device_queue(family, i) }))
                        .collect(),
                    sessions: (0..count).map(|_| AtomicUsize::new(0)).collect(),
                    video_queue: ash::khr::video_queue::Device::new(&instance, &device),
                    video_decode: ash::khr::video_decode_queue::Device::new(&instance, &device),
                });
                let allocator = Allocator::new(&AllocatorCreateDesc {
                    instance: instance.clone(),
                    device: device.clone(),
                    physical_device: physical,
                    debug_settings: Default::default(),
                    buffer_device_address: false,
                    allocation_sizes: Default::default(),
                });
                lap("allocator", &mut startup);
                let cache = allocator.map_err(GpuError::from).and_then(|allocator| {
                    let cache =
                        PipelineCache::new(&device, &info, options.pipeline_cache.as_deref())?;
                    Ok((allocator, cache))
                });
                let (allocator, pipeline_cache) = match cache {
                    Ok(made) => made,
                    Err(e) => {
                        // SAFETY: reverse order of creation; nothing was made on the device yet
                        // (the allocator, if made, drops first), and none of these handles is
                        // used again.
                        unsafe {
                            device.destroy_device(None);
                            drop(validation);
                            instance.destroy_instance(None);
                        }
                        return Err(e);
                    }
                };
                lap("pipeline cache file", &mut startup);
                let push_descriptor = ash::khr::push_descriptor::Device::new(&instance, &device);
                let executable_properties = executable_statistics.then(|| {
                    ash::khr::pipeline_executable_properties::Device::new(&instance, &device)
                });
                Ok(Self {
                    entry,
                    instance,
                    validation,
                    physical,
                    device,
                    queue: Mutex::new(queue),
                    queue_family,
                    allocator: ManuallyDrop::new(Mutex::new(allocator)),
                    push_descriptor,
                    pipeline_cache,
                    info,
                    decode,
                    startup,
                    pipeline_stats: PipelineCounters::default(),
                    executable_properties,
                    swapchain_colorspace,
                    hdr_metadata,
                })
            }
            Err(e) => {
                drop(validation);
                // SAFETY: the device creation failed, so nothing else uses the instance.
                unsafe { instance.destroy_instance(None) };
                Err(e)
            }
        }
    }

    /// Picks a physical device and creates the logical device on it.
    fn create_device(instance: &ash::Instance, options: &ContextOptions) -> Result<NewDevice> {
        // SAFETY: the instance is alive; the call only fills a vector.
        let physicals = unsafe { instance.enumerate_physical_devices() }
            .map_err(vk_error("vkEnumeratePhysicalDevices"))?;
        if physicals.is_empty() {
            return Err(GpuError::NoSuitableDevice(
                "the Vulkan loader found no device; install a driver \
                 (Debian: mesa-vulkan-drivers gives the lavapipe CPU device)"
                    .into(),
            ));
        }
        let mut candidates = Vec::new();
        let mut rejections = Vec::new();
        for (index, &physical) in physicals.iter().enumerate() {
            let name = device_name(instance, physical);
            if let Some(wanted) = &options.device {
                let matches = wanted
                    .parse::<usize>()
                    .map(|i| i == index)
                    .unwrap_or_else(|_| name.to_lowercase().contains(&wanted.to_lowercase()));
                if !matches {
                    continue;
                }
            }
            match check_device(instance, physical, options.swapchain) {
                Ok((family, info)) => candidates.push((physical, family, info)),
                Err(why) => rejections.push(format!("{name}: {why}")),
            }
        }
        // Prefer a discrete GPU, then an integrated one, then anything.
        candidates.sort_by_key(|(_, _, info)| match info.device_type {
            vk::PhysicalDeviceType::DISCRETE_GPU => 0,
            vk::PhysicalDeviceType::INTEGRATED_GPU => 1,
            vk::PhysicalDeviceType::VIRTUAL_GPU => 2,
            _ => 3,
        });
        let Some((physical, queue_family, info)) = candidates.into_iter().next() else {
            let what = match (&options.device, rejections.is_empty()) {
                (Some(w), true) => format!("no device matches VQSCOPE_DEVICE={w}"),
                _ => rejections.join("; "),
            };
            return Err(GpuError::NoSuitableDevice(format!(
                "{what} (Debian: mesa-vulkan-drivers gives the lavapipe CPU device)"
            )));
        };

        let priorities = [1.0];
        let mut queue_infos = vec![
            vk::DeviceQueueCreateInfo::default()
                .queue_family_index(queue_family)
                .queue_priorities(&priorities),
        ];
        let mut extensions = vec![ash::khr::push_descriptor::NAME.as_ptr()];
        if options.swapchain {
            extensions.push(ash::khr::swapchain::NAME.as_ptr());
        }
        // SAFETY: the physical device belongs to this live instance.
        let offered = unsafe { instance.enumerate_device_extension_properties(physical) }
            .map_err(vk_error("vkEnumerateDeviceExtensionProperties"))?;
        let decode = options
            .video_decode
            .then(|| crate::video_decode::decode_family(instance, physical, &offered))
            .flatten()
            .filter(|&(family, _, _)| family != queue_family);
        let decode_family =
            decode.as_ref().map(|&(family, count, _)| (family, count.clamp(1, DECODE_QUEUES)));
        let decode_priorities = [1.0; DECODE_QUEUES as usize];
        if let (Some((family, count)), Some((_, _, names))) = (decode_family, &decode) {
            extensions.extend(names.iter().map(|name| name.as_ptr()));
            queue_infos.push(
                vk::DeviceQueueCreateInfo::default()
                    .queue_family_index(family)
                    .queue_priorities(&decode_priorities[..count as usize]),
            );
        }
        // An optional extension, enabled when asked for and offered.
        let mut optional = |asked: bool, name: &'static CStr| {
            let enabled = asked && offered.iter().any(|e| e.extension_name_as_c_str() == Ok(name));
            if enabled {
                extensions.push(name.as_ptr());
            }
            enabled
        };
        let hdr_metadata = optional(options.swapchain, ash::ext::hdr_metadata::NAME);
        let executable_statistics =
            optional(options.pipeline_statistics, ash::khr::pipeline_executable_properties::NAME);
        let mut executable_info =
            vk::PhysicalDevicePipelineExecutablePropertiesFeaturesKHR::default()
                .pipeline_executable_info(true);
        let features = vk::PhysicalDeviceFeatures::default()
            .shader_int64(true)
            .shader_float64(true)
            .shader_int16(true);
        let mut v11 =
            vk::PhysicalDeviceVulkan11Features::default().storage_buffer16_bit_access(true);
        let mut v12 = vk::PhysicalDeviceVulkan12Features::default()
            .timeline_semaphore(true)
            .shader_buffer_int64_atomics(true)
            .storage_buffer8_bit_access(true)
            .shader_int8(true)
            .scalar_block_layout(true);
        let mut v13 = vk::PhysicalDeviceVulkan13Features::default()
            .synchronization2(true)
            .subgroup_size_control(true)
            .compute_full_subgroups(true)
            .maintenance4(true);
        let create_info = vk::DeviceCreateInfo::default()
            .queue_create_infos(&queue_infos)
            .enabled_extension_names(&extensions)
            .enabled_features(&features)
            .push_next(&mut v11)
            .push_next(&mut v12)
            .push_next(&mut v13);
        let create_info = if executable_statistics {
            create_info.push_next(&mut executable_info)
        } else {
            create_info
        };
        // SAFETY: the physical device comes from this instance, and every pointer in create_info
        // (features, extension names, queue infos) outlives the call.
        let device = unsafe { instance.create_device(physical, &create_info, None) }
            .map_err(vk_error("vkCreateDevice"))?;
        let flags = DeviceFlags { hdr_metadata, executable_statistics };
        Ok((physical, device, queue_family, info, flags, decode_family))
    }

    /// Facts about the chosen device.
    pub fn info(&self) -> &DeviceInfo {
        &self.info
    }

    /// How long each step of [`GpuContext::new`] took, in order: the
    /// Vulkan loader, the instance (with validation), device choice and
    /// creation, the allocator, reading the pipeline cache file.
    pub fn startup_spans(&self) -> &[(&'static str, Duration)] {
        &self.startup
    }

    /// What happened to the pipeline cache file at start: `off`, none yet,
    /// read, or ignored and why.
    pub fn pipeline_cache_note(&self) -> &str {
        &self.pipeline_cache.note
    }

    /// Writes the pipeline cache to its file (see
    /// [`ContextOptions::pipeline_cache`]) unless it holds just what was
    /// read; returns what happened. A file that cannot be written is a note,
    /// not an error. Call it once the pipelines are built.
    pub fn save_pipeline_cache(&self) -> Result<String> {
        self.pipeline_cache.save(&self.device)
    }

    /// The pipelines built on this context so far and their cost.
    pub fn pipeline_stats(&self) -> PipelineStats {
        let c = &self.pipeline_stats;
        PipelineStats {
            pipelines: c.count.load(Ordering::Relaxed),
            modules: Duration::from_nanos(c.module_ns.load(Ordering::Relaxed)),
            creation: Duration::from_nanos(c.pipeline_ns.load(Ordering::Relaxed)),
        }
    }

    /// The raw device, for code that records its own commands.
    pub fn device(&self) -> &ash::Device {
        &self.device
    }

    pub fn instance(&self) -> &ash::Instance {
        &self.instance
    }

    pub fn entry(&self) -> &ash::Entry {
        &self.entry
    }

    pub fn physical_device(&self) -> vk::PhysicalDevice {
        self.physical
    }

    /// Whether `VK_EXT_swapchain_colorspace` is on: surfaces may then
    /// offer HDR colour spaces (HDR10's among them).
    pub fn swapchain_colorspace_enabled(&self) -> bool {
        self.swapchain_colorspace
    }

    /// Whether `VK_EXT_hdr_metadata` is on: swapchains can then tell the
    /// display about the HDR they show ([`crate::Swapchain::set_hdr_metadata`]).
    pub fn hdr_metadata_enabled(&self) -> bool {
        self.hdr_metadata
    }

    /// What the device can do with `format` (blits, storage, sampling).
    pub fn format_properties(&self, format: vk::Format) -> vk::FormatProperties {
        // SAFETY: the physical device belongs to this live instance; any
        // format value is valid to query.
        unsafe { self.instance.get_physical_device_format_properties(self.physical, format) }
    }

    /// Family index of the one queue vqscope uses.
    pub fn queue_family(&self) -> u32 {
        self.queue_family
    }

    /// Runs `f` with exclusive access to the queue (Vulkan requires external
    /// synchronisation of queue submissions).
    pub fn with_queue<T>(&self, f: impl FnOnce(vk::Queue) -> T) -> T {
        let queue = self.queue.lock().unwrap_or_else(|e| e.into_inner());
        f(*queue)
    }

    /// Validation messages collected so far (empty without validation).
    pub fn validation_messages(&self) -> Vec<String> {
        self.validation.as_ref().map(Validation::messages).unwrap_or_default()
    }

    /// Waits until the context's queue is idle: everything the metrics,
    /// the renderer and the decoders' copies submitted. The decode queues
    /// are left alone: a decode there may wait (on the device) for the copy
    /// of the picture before it, which its thread submits on this queue
    /// once it sees that picture decoded; a wait for the whole device,
    /// holding this queue, would wait for a thread it blocks. Each decode
    /// session waits for its own work when it is dropped.
    pub fn wait_idle(&self) -> Result<()> {
        // SAFETY: the queue's lock is held, as vkQueueWaitIdle needs the queue
        // externally synchronised.
        self.with_queue(|queue| unsafe { self.device.queue_wait_idle(queue) })
            .map_err(vk_error("vkQueueWaitIdle"))
    }
}

impl Drop for GpuContext {
    fn drop(&mut self) {
        let _lifecycle = LIFECYCLE.lock().unwrap_or_else(|e| e.into_inner());
        // SAFETY: reverse order of creation; every object created on this
        // device holds an Arc to the context, so none outlives it.
        unsafe {
            let _ = self.device.device_wait_idle();
            ManuallyDrop::drop(&mut self.allocator);
            self.device.destroy_pipeline_cache(self.pipeline_cache.handle, None);
            self.device.destroy_device(None);
            if let Some(v) = self.validation.take() {
                drop(v);
            }
            self.instance.destroy_instance(None);
        }
    }
}

/// Checks every feature vqscope needs; returns the compute queue family and
/// the device facts, or the first thing missing.
fn check_device(
    instance: &ash::Instance,
    physical: vk::PhysicalDevice,
    swapchain: bool,
) -> std::result::Result<(u32, DeviceInfo), String> {
    let mut subgroup = vk::PhysicalDeviceSubgroupProperties::default();
    let mut size_control = vk::PhysicalDeviceSubgroupSizeControlProperties::default();
    let mut float_controls = vk::PhysicalDeviceFloatControlsProperties::default();
    let mut props2 = vk::PhysicalDeviceProperties2::default()
        .push_next(&mut subgroup)
        .push_next(&mut size_control)
        .push_next(&mut float_controls);
    // SAFETY: the physical device belongs to this instance and the chained structures outlive the
    // call.
    unsafe { instance.get_physical_device_properties2(physical, &mut props2) };
    let props = props2.properties;
    if props.api_version < vk::API_VERSION_1_3 {
        return Err(format!("supports Vulkan {}, needs 1.3", version_string(props.api_version)));
    }
    let mut v11 = vk::PhysicalDeviceVulkan11Features::default();
    let mut v12 = vk::PhysicalDeviceVulkan12Features::default();
    let mut v13 = vk::PhysicalDeviceVulkan13Features::default();
    let mut features2 = vk::PhysicalDeviceFeatures2::default()
        .push_next(&mut v11)
        .push_next(&mut v12)
        .push_next(&mut v13);
    // SAFETY: as above: a live physical device, chained structures outliving the call.
    unsafe { instance.get_physical_device_features2(physical, &mut features2) };
    let f = features2.features;
    let required: [(&str, bool); 13] = [
        ("maintenance4", v13.maintenance4 == vk::TRUE),
        ("synchronization2", v13.synchronization2 == vk::TRUE),
        ("subgroupSizeControl", v13.subgroup_size_control == vk::TRUE),
        ("computeFullSubgroups", v13.compute_full_subgroups == vk::TRUE),
        ("timelineSemaphore", v12.timeline_semaphore == vk::TRUE),
        ("shaderBufferInt64Atomics", v12.shader_buffer_int64_atomics == vk::TRUE),
        ("storageBuffer8BitAccess", v12.storage_buffer8_bit_access == vk::TRUE),
        ("shaderInt8", v12.shader_int8 == vk::TRUE),
        ("scalarBlockLayout", v12.scalar_block_layout == vk::TRUE),
        ("storageBuffer16BitAccess", v11.storage_buffer16_bit_access == vk::TRUE),
        ("shaderInt64", f.shader_int64 == vk::TRUE),
        ("shaderFloat64", f.shader_float64 == vk::TRUE),
        ("shaderInt16", f.shader_int16 == vk::TRUE),
    ];
    if let Some((name, _)) = required.iter().find(|(_, ok)| !ok) {
        return Err(format!("lacks feature {name}"));
    }
    if !subgroup.supported_stages.contains(vk::ShaderStageFlags::COMPUTE)
        || !subgroup
            .supported_operations
            .contains(vk::SubgroupFeatureFlags::ARITHMETIC | vk::SubgroupFeatureFlags::BALLOT)
    {
        return Err("lacks subgroup arithmetic and ballot in compute shaders".into());
    }
    if !size_control.required_subgroup_size_stages.contains(vk::ShaderStageFlags::COMPUTE) {
        return Err("cannot require a subgroup size in compute shaders".into());
    }
    // SAFETY: the physical device belongs to this live instance.
    let exts = unsafe { instance.enumerate_device_extension_properties(physical) }
        .map_err(|e| format!("cannot list extensions ({e})"))?;
    let has = |name: &CStr| exts.iter().any(|e| e.extension_name_as_c_str() == Ok(name));
    if !has(ash::khr::push_descriptor::NAME) {
        return Err("lacks VK_KHR_push_descriptor".into());
    }
    if swapchain && !has(ash::khr::swapchain::NAME) {
        return Err("lacks VK_KHR_swapchain".into());
    }
    // SAFETY: the physical device belongs to this live instance.
    let families = unsafe { instance.get_physical_device_queue_family_properties(physical) };
    // Prefer a family with graphics too: presentation usually needs it.
    let pick = |need: vk::QueueFlags| {
        families.iter().position(|q| q.queue_flags.contains(need) && q.timestamp_valid_bits > 0)
    };
    let family = pick(vk::QueueFlags::COMPUTE | vk::QueueFlags::GRAPHICS)
        .or_else(|| pick(vk::QueueFlags::COMPUTE))
        .ok_or("has no compute queue with timestamps")?;
    let limits = props.limits;
    Ok((
        family as u32,
        DeviceInfo {
            name: props
                .device_name_as_c_str()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default(),
            device_type: props.device_type,
            api_version: props.api_version,
            vendor_id: props.vendor_id,
            device_id: props.device_id,
            driver_version: props.driver_version,
            pipeline_cache_uuid: props.pipeline_cache_uuid,
            subgroup_size: subgroup.subgroup_size,
            min_subgroup_size: size_control.min_subgroup_size,
            max_subgroup_size: size_control.max_subgroup_size,
            max_compute_workgroup_size: limits.max_compute_work_group_size,
            max_compute_workgroup_count: limits.max_compute_work_group_count,
            max_shared_memory: limits.max_compute_shared_memory_size,
            max_storage_buffer_range: limits.max_storage_buffer_range,
            timestamp_period: limits.timestamp_period,
            denormal_preserving_widths: denormal_preserving_widths(&float_controls),
        },
    ))
}

/// The widths a module may declare `DenormPreserve` for. Where the device
/// ties widths together (independence `32_BIT_ONLY`: 16 and 64 alike;
/// `NONE`: all three alike), a width is declared only with its partners,
/// since a width left undeclared counts as another mode.
fn denormal_preserving_widths(fc: &vk::PhysicalDeviceFloatControlsProperties) -> Vec<u32> {
    let (f16, f32, f64) = (
        fc.shader_denorm_preserve_float16 == vk::TRUE,
        fc.shader_denorm_preserve_float32 == vk::TRUE,
        fc.shader_denorm_preserve_float64 == vk::TRUE,
    );
    let wanted = match fc.denorm_behavior_independence {
        vk::ShaderFloatControlsIndependence::ALL => [(32, f32), (64, f64)].to_vec(),
        vk::ShaderFloatControlsIndependence::TYPE_32_ONLY => {
            [(32, f32), (16, f16 && f64), (64, f16 && f64)].to_vec()
        }
        _ => [(16, f16 && f32 && f64), (32, f16 && f32 && f64), (64, f16 && f32 && f64)].to_vec(),
    };
    wanted.into_iter().filter(|&(_, ok)| ok).map(|(w, _)| w).collect()
}

fn device_name(instance: &ash::Instance, physical: vk::PhysicalDevice) -> String {
    // SAFETY: the physical device belongs to this live instance.
    let props = unsafe { instance.get_physical_device_properties(physical) };
    props.device_name_as_c_str().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default()
}

fn layer_present(entry: &ash::Entry, name: &CStr) -> Result<bool> {
    // SAFETY: a loaded entry; the call only fills a vector.
    let layers = unsafe { entry.enumerate_instance_layer_properties() }
        .map_err(vk_error("vkEnumerateInstanceLayerProperties"))?;
    Ok(layers.iter().any(|l| l.layer_name_as_c_str() == Ok(name)))
}

fn instance_extension_present(entry: &ash::Entry, name: &CStr) -> Result<bool> {
    // SAFETY: a loaded entry; no layer is named; the call only fills a vector.
    let extensions = unsafe { entry.enumerate_instance_extension_properties(None) }
        .map_err(vk_error("vkEnumerateInstanceExtensionProperties"))?;
    Ok(extensions.iter().any(|e| e.extension_name_as_c_str() == Ok(name)))
}

fn version_string(v: u32) -> String {
    format!(
        "{}.{}.{}",
        vk::api_version_major(v),
        vk::api_version_minor(v),
        vk::api_version_patch(v)
    )
}
