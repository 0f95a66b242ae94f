//! vqscope-renderer
