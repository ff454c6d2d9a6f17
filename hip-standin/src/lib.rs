//! A stand-in HIP runtime (skeleton; filled in below).
