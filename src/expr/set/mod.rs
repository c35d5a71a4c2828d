//! Set expression operators: arrays as sets (duplicates ignored, order unspecified: the engine
//! returns them in BSON order, as the server's ordered value sets do).

pub mod all_any;
pub mod set_ops;
