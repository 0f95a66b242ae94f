//! One-off staging transfers: fill a device buffer from host bytes, read a
//! device buffer or image back. The per-frame paths keep their own staging
//! rings; these serve setup and tests.

use std::sync::Arc;

use ash::vk;

use crate::context::GpuContext;
use crate::error::Result;
use crate::memory::{Buffer, Image};
use crate::submit::Submitter;

/// A device-local storage buffer holding `data`.
pub fn upload_buffer(
    ctx: &Arc<GpuContext>,
    submitter: &mut Submitter,
    name: &str,
    data: &[u8],
) -> Result<Buffer> {
    let buffer = Buffer::storage(ctx, name, data.len() as u64)?;
    let mut staging = Buffer::staging(ctx, "upload staging", data.len() as u64)?;
    staging.write(data)?;
    submitter.run(|rec| {
        rec.copy_buffer(&staging, 0, &buffer, 0, data.len() as u64);
        rec.barrier();
        Ok(())
    })?;
    Ok(buffer)
}

/// The first `len` bytes of a device buffer (waits for earlier work).
pub fn download_buffer(
    ctx: &Arc<GpuContext>,
    submitter: &mut Submitter,
    buffer: &Buffer,
    len: u64,
) -> Result<Vec<u8>> {
    let readback = Buffer::readback(ctx, "download", len)?;
    submitter.run(|rec| {
        rec.barrier();
        rec.copy_buffer(buffer, 0, &readback, 0, len);
        rec.barrier();
        Ok(())
    })?;
    Ok(readback.mapped()?[..len as usize].to_vec())
}

/// The texels of an image in GENERAL layout, rows tightly packed.
pub fn download_image(
    ctx: &Arc<GpuContext>,
    submitter: &mut Submitter,
    image: &Image,
    bytes_per_texel: u64,
) -> Result<Vec<u8>> {
    let len = u64::from(image.width()) * u64::from(image.height()) * bytes_per_texel;
    let readback = Buffer::readback(ctx, "image download", len)?;
    submitter.run(|rec| {
        let (general, src) = (vk::ImageLayout::GENERAL, vk::ImageLayout::TRANSFER_SRC_OPTIMAL);
        rec.image_layout(image.raw(), general, src);
        rec.copy_image_to_buffer(image, src, &readback, 0);
        rec.image_layout(image.raw(), src, general);
        rec.barrier();
        Ok(())
    })?;
    Ok(readback.mapped()?.to_vec())
}
