//! vqscope-shaders
