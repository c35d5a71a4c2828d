//! Evaluation query operators: `$expr`, `$jsonSchema`, `$mod`, `$regex` (with `$options`),
//! `$text` and `$where` (the last two are refused: no text indexes, no JavaScript).

pub mod expr;
pub mod json_schema;
pub mod mod_;
pub mod regex;
pub mod text;
pub mod where_;
