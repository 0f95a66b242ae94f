//! Compute pipelines from SPIR-V, with specialization constants, a push
//! constant block and a push-descriptor set: binding resources is one call at
//! dispatch time, with no descriptor pools to manage. A pipeline's layout
//! comes from the shader's build record ([`Shader`]): the kinds of its
//! bindings and its push-constant size, read from the SPIR-V.

use std::sync::Arc;
use std::time::Instant;

use ash::vk;
pub use vqscope_shaders::{BindingKind, Shader};

use crate::context::GpuContext;
use crate::error::{GpuError, Result, vk_error};

fn descriptor_type(kind: BindingKind) -> vk::DescriptorType {
    match kind {
        BindingKind::StorageBuffer => vk::DescriptorType::STORAGE_BUFFER,
        BindingKind::StorageImage => vk::DescriptorType::STORAGE_IMAGE,
    }
}

/// Everything needed to build a compute pipeline. Start from
/// [`PipelineDesc::new`], which takes the SPIR-V and the layout from the
/// shader's record, and set the rest with struct update syntax:
///
/// ```
/// use vqscope_gpu::PipelineDesc;
/// use vqscope_shaders::METRICS_PSNR;
///
/// let desc = PipelineDesc { name: "psnr", full_subgroups: true, ..PipelineDesc::new(METRICS_PSNR) };
/// assert_eq!(desc.push_constant_size, METRICS_PSNR.push_constant_size);
/// ```
#[derive(Debug, Clone)]
pub struct PipelineDesc<'a> {
    pub name: &'a str,
    pub spirv: &'a [u32],
    /// Binding `i` of set 0 has kind `bindings[i]`.
    pub bindings: &'a [BindingKind],
    /// The push-constant bytes every dispatch must give.
    pub push_constant_size: u32,
    /// `(constant_id, value)` pairs.
    pub specialization: &'a [(u32, u32)],
    /// Force a subgroup size (must lie within the device's min..max);
    /// `None` lets the driver choose.
    pub subgroup_size: Option<u32>,
    /// Ask that every subgroup be full. Shaders that derive an item's index
    /// from `gl_SubgroupID * gl_SubgroupSize + gl_SubgroupInvocationID` need
    /// it; the local size X must then be a multiple of the device's maximum
    /// subgroup size (or of `subgroup_size` when given).
    pub full_subgroups: bool,
}

impl<'a> PipelineDesc<'a> {
    /// `shader` as its build recorded it — SPIR-V, bindings, push-constant
    /// size — named after its path, with no specialization and the driver's
    /// choice of subgroup size.
    pub fn new(shader: &'a Shader) -> Self {
        Self {
            name: shader.path,
            spirv: shader.spirv,
            bindings: shader.bindings,
            push_constant_size: shader.push_constant_size,
            specialization: &[],
            subgroup_size: None,
            full_subgroups: false,
        }
    }
}

/// A compute pipeline with its layouts.
pub struct ComputePipeline {
    ctx: Arc<GpuContext>,
    pub(crate) pipeline: vk::Pipeline,
    pub(crate) layout: vk::PipelineLayout,
    set_layout: vk::DescriptorSetLayout,
    pub(crate) bindings: Vec<BindingKind>,
    pub(crate) push_constant_size: u32,
    name: String,
}

impl ComputePipeline {
    pub fn new(ctx: &Arc<GpuContext>, desc: &PipelineDesc<'_>) -> Result<Self> {
        if desc.spirv.first() != Some(&0x0723_0203) {
            return Err(GpuError::InvalidSpirv(format!("{}: bad magic number", desc.name)));
        }
        if let Some(size) = desc.subgroup_size {
            let info = ctx.info();
            if !size.is_power_of_two()
                || size < info.min_subgroup_size
                || size > info.max_subgroup_size
            {
                return Err(GpuError::Usage(format!(
                    "{}: subgroup size {size} outside the device's {}..{}",
                    desc.name, info.min_subgroup_size, info.max_subgroup_size
                )));
            }
        }
        let device = &ctx.device;
        let layout_bindings: Vec<_> = desc
            .bindings
            .iter()
            .enumerate()
            .map(|(i, kind)| {
                vk::DescriptorSetLayoutBinding::default()
                    .binding(i as u32)
                    .descriptor_type(descriptor_type(*kind))
                    .descriptor_count(1)
                    .stage_flags(vk::ShaderStageFlags::COMPUTE)
            })
            .collect();
        let set_info = vk::DescriptorSetLayoutCreateInfo::default()
            .flags(vk::DescriptorSetLayoutCreateFlags::PUSH_DESCRIPTOR_KHR)
            .bindings(&layout_bindings);
        // SAFETY: the binding array outlives the call; the device outlives the layout through
        // `ctx`.
        let set_layout = unsafe { device.create_descriptor_set_layout(&set_info, None) }
            .map_err(vk_error("vkCreateDescriptorSetLayout"))?;
        let mut this = Self {
            ctx: ctx.clone(),
            pipeline: vk::Pipeline::null(),
            layout: vk::PipelineLayout::null(),
            set_layout,
            bindings: desc.bindings.to_vec(),
            push_constant_size: desc.push_constant_size,
            name: desc.name.to_string(),
        };
        let ranges = [vk::PushConstantRange::default()
            .stage_flags(vk::ShaderStageFlags::COMPUTE)
            .size(desc.push_constant_size)];
        let set_layouts = [set_layout];
        let mut layout_info = vk::PipelineLayoutCreateInfo::default().set_layouts(&set_layouts);
        if desc.push_constant_size > 0 {
            layout_info = layout_info.push_constant_ranges(&ranges);
        }
        // On failure `this` drops and destroys what was made so far.
        // SAFETY: the set layout and push range arrays outlive the call.
        this.layout = unsafe { device.create_pipeline_layout(&layout_info, None) }
            .map_err(vk_error("vkCreatePipelineLayout"))?;

        let started = Instant::now();
        let widths = &ctx.info().denormal_preserving_widths;
        let spirv = crate::spirv::preserving_denormals(desc.spirv, widths)
            .map_err(|e| GpuError::InvalidSpirv(format!("{}: {e}", desc.name)))?;
        let module_info = vk::ShaderModuleCreateInfo::default().code(&spirv);
        // SAFETY: `spirv` is SPIR-V words (aligned `u32`s) whose magic number was checked
        // above; the info points to them for the call only.
        let module = unsafe { device.create_shader_module(&module_info, None) }
            .map_err(vk_error("vkCreateShaderModule"))?;
        let module_made = Instant::now();
        let entries: Vec<_> = desc
            .specialization
            .iter()
            .enumerate()
            .map(|(i, &(id, _))| vk::SpecializationMapEntry {
                constant_id: id,
                offset: (i * 4) as u32,
                size: 4,
            })
            .collect();
        let data: Vec<u8> =
            desc.specialization.iter().flat_map(|&(_, v)| v.to_le_bytes()).collect();
        let spec = vk::SpecializationInfo::default().map_entries(&entries).data(&data);
        let mut required = vk::PipelineShaderStageRequiredSubgroupSizeCreateInfo::default()
            .required_subgroup_size(desc.subgroup_size.unwrap_or(0));
        let mut stage = vk::PipelineShaderStageCreateInfo::default()
            .stage(vk::ShaderStageFlags::COMPUTE)
            .module(module)
            .name(c"main")
            .specialization_info(&spec);
        if desc.full_subgroups {
            stage = stage.flags(vk::PipelineShaderStageCreateFlags::REQUIRE_FULL_SUBGROUPS);
        }
        if desc.subgroup_size.is_some() {
            stage = stage.push_next(&mut required);
        }
        let mut info = vk::ComputePipelineCreateInfo::default().stage(stage).layout(this.layout);
        if ctx.executable_properties.is_some() {
            info = info.flags(vk::PipelineCreateFlags::CAPTURE_STATISTICS_KHR);
        }
        // SAFETY: the module, layout and entry-point name outlive the call; the cache is the
        // context's, internally synchronised, so other threads may create pipelines through it.
        let result =
            unsafe { device.create_compute_pipelines(ctx.pipeline_cache.handle, &[info], None) };
        ctx.pipeline_stats.add(module_made - started, module_made.elapsed());
        // SAFETY: pipeline creation has returned, so nothing uses the module any more.
        unsafe { device.destroy_shader_module(module, None) };
        this.pipeline = result.map_err(|(_, e)| vk_error("vkCreateComputePipelines")(e))?[0];
        if let Some(properties) = &ctx.executable_properties {
            this.print_statistics(properties)?;
        }
        Ok(this)
    }

    /// Prints the driver's statistics of each of this pipeline's executables
    /// to stderr, one line each (`VQSCOPE_PIPELINE_STATS=1`).
    fn print_statistics(
        &self,
        properties: &ash::khr::pipeline_executable_properties::Device,
    ) -> Result<()> {
        let pipeline_info = vk::PipelineInfoKHR::default().pipeline(self.pipeline);
        // SAFETY: the pipeline was created with CAPTURE_STATISTICS_KHR on a device with
        // pipelineExecutableInfo enabled; the info outlives the call.
        let executables = unsafe { properties.get_pipeline_executable_properties(&pipeline_info) }
            .map_err(vk_error("vkGetPipelineExecutablePropertiesKHR"))?;
        for (index, executable) in executables.iter().enumerate() {
            let info = vk::PipelineExecutableInfoKHR::default()
                .pipeline(self.pipeline)
                .executable_index(index as u32);
            // SAFETY: as above; the index is below the count the driver returned.
            let stats = unsafe { properties.get_pipeline_executable_statistics(&info) }
                .map_err(vk_error("vkGetPipelineExecutableStatisticsKHR"))?;
            let fields: Vec<String> = stats
                .iter()
                .map(|stat| {
                    // SAFETY: the driver set `format`, which names the union member it wrote.
                    let value = unsafe {
                        match stat.format {
                            vk::PipelineExecutableStatisticFormatKHR::BOOL32 => {
                                (stat.value.b32 != 0).to_string()
                            }
                            vk::PipelineExecutableStatisticFormatKHR::INT64 => {
                                stat.value.i64.to_string()
                            }
                            vk::PipelineExecutableStatisticFormatKHR::UINT64 => {
                                stat.value.u64.to_string()
                            }
                            _ => stat.value.f64.to_string(),
                        }
                    };
                    let name =
                        stat.name_as_c_str().map(|n| n.to_string_lossy()).unwrap_or_default();
                    format!("{name}={value}")
                })
                .collect();
            let exe = executable.name_as_c_str().map(|n| n.to_string_lossy()).unwrap_or_default();
            eprintln!(
                "pipeline {} [{exe}, subgroup {}]: {}",
                self.name,
                executable.subgroup_size,
                fields.join(", ")
            );
        }
        Ok(())
    }

    pub fn name(&self) -> &str {
        &self.name
    }
}

impl Drop for ComputePipeline {
    fn drop(&mut self) {
        let device = &self.ctx.device;
        // SAFETY: owned by this value, destroyed in reverse creation order; owners wait for
        // submissions that use the pipeline before dropping it.
        unsafe {
            device.destroy_pipeline(self.pipeline, None);
            device.destroy_pipeline_layout(self.layout, None);
            device.destroy_descriptor_set_layout(self.set_layout, None);
        }
    }
}
