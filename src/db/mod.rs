//! Databases and collections in memory, CRUD and the server's command protocol. STUB: the
//! engine-core issue replaces this body; keep the signatures of `Database`.

use bson::Document;

use crate::env::Cost;
use crate::error::{Error, ErrorKind, Result};

/// One in-memory database.
#[derive(Debug, Default, Clone)]
pub struct Database {}

impl Database {
    pub fn new() -> Database {
        Database::default()
    }

    /// Runs one server command (`{ insert: "c", documents: [..] }`, `{ find: "c", filter }`, ...)
    /// and returns the server's reply document: `{ ..., ok: 1 }` or
    /// `{ ok: 0, errmsg, code, codeName }`. Never panics on user input.
    pub fn run_command(&mut self, cmd: &Document) -> Document {
        let name = cmd.keys().next().cloned().unwrap_or_default();
        Error::new(ErrorKind::CommandNotFound, format!("no such command: '{name}'")).to_reply()
    }

    /// The cost counters of the last command.
    pub fn last_cost(&self) -> Cost {
        Cost::default()
    }

    /// The whole database as bytes (collections, options, indexes, documents in natural order).
    pub fn snapshot(&self) -> Vec<u8> {
        Vec::new()
    }

    /// Rebuilds a database from [`Database::snapshot`] bytes.
    pub fn restore(_bytes: &[u8]) -> Result<Database> {
        Ok(Database::new())
    }
}
