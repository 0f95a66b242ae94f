//! vqscope-gpu
