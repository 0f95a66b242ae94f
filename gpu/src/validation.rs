//! The Khronos validation layer's messages, collected so tests can fail on
//! any of them. Messages go to one process-wide list: the messenger chained
//! into instance creation reports before a context exists and after it is
//! gone (leaks at teardown), so the list cannot belong to one context.

use std::ffi::{CStr, c_void};
use std::sync::Mutex;

use ash::vk;

use crate::error::{Result, vk_error};

static MESSAGES: Mutex<Vec<String>> = Mutex::new(Vec::new());

/// The debug messenger of one instance.
pub(crate) struct Validation {
    loader: ash::ext::debug_utils::Instance,
    messenger: vk::DebugUtilsMessengerEXT,
}

impl Validation {
    /// Create info for a messenger that records warnings and errors.
    pub(crate) fn messenger_create_info() -> vk::DebugUtilsMessengerCreateInfoEXT<'static> {
        vk::DebugUtilsMessengerCreateInfoEXT::default()
            .message_severity(
                vk::DebugUtilsMessageSeverityFlagsEXT::WARNING
                    | vk::DebugUtilsMessageSeverityFlagsEXT::ERROR,
            )
            .message_type(
                vk::DebugUtilsMessageTypeFlagsEXT::GENERAL
                    | vk::DebugUtilsMessageTypeFlagsEXT::VALIDATION
                    | vk::DebugUtilsMessageTypeFlagsEXT::PERFORMANCE,
            )
            .pfn_user_callback(Some(on_message))
    }

    pub(crate) fn new(entry: &ash::Entry, instance: &ash::Instance) -> Result<Self> {
        let loader = ash::ext::debug_utils::Instance::new(entry, instance);
        // SAFETY: the create info's callback is a valid `extern "system"` function that lives
        // for the whole program.
        let messenger =
            unsafe { loader.create_debug_utils_messenger(&Self::messenger_create_info(), None) }
                .map_err(vk_error("vkCreateDebugUtilsMessengerEXT"))?;
        Ok(Self { loader, messenger })
    }

    /// Every message recorded so far in this process.
    pub(crate) fn messages(&self) -> Vec<String> {
        all_messages()
    }
}

impl Drop for Validation {
    fn drop(&mut self) {
        // SAFETY: the messenger belongs to this loader's instance, which is still alive (the
        // context destroys it after this).
        unsafe { self.loader.destroy_debug_utils_messenger(self.messenger, None) };
    }
}

/// Every validation message recorded in this process, including those sent
/// while no context existed (instance creation and destruction).
pub fn all_messages() -> Vec<String> {
    MESSAGES.lock().unwrap_or_else(|e| e.into_inner()).clone()
}

unsafe extern "system" fn on_message(
    severity: vk::DebugUtilsMessageSeverityFlagsEXT,
    kind: vk::DebugUtilsMessageTypeFlagsEXT,
    data: *const vk::DebugUtilsMessengerCallbackDataEXT<'_>,
    _user: *mut c_void,
) -> vk::Bool32 {
    // SAFETY: the layer passes a valid callback-data struct whose message is
    // a NUL-terminated string for the duration of the call.
    let text = unsafe {
        data.as_ref()
            .filter(|d| !d.p_message.is_null())
            .map(|d| CStr::from_ptr(d.p_message).to_string_lossy().into_owned())
            .unwrap_or_default()
    };
    let line = format!("[vulkan {severity:?} {kind:?}] {text}");
    eprintln!("{line}");
    MESSAGES.lock().unwrap_or_else(|e| e.into_inner()).push(line);
    vk::FALSE
}
