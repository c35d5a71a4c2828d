//! Bitwise update operators (the manual's "Bitwise" family): `$bit`.

pub mod bit;
