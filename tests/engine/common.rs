//! Set-up shared by the test modules: a database with a fixed clock and seed, and commands that
//! must succeed.

use bson::{Bson, Document};
use pattern_playground::db::Database;

/// A database whose `$$NOW` and generated ids are the same at every run (`seed` picks the ids).
pub fn fixed_db(seed: u64) -> Database {
    let mut db = Database::new();
    db.set_fixed_time(1_700_000_000_000);
    db.set_seed(seed);
    db
}

/// Runs `cmd`, which must answer `ok: 1`; its reply.
pub fn ok(db: &mut Database, cmd: &Document) -> Document {
    let r = db.run_command(cmd);
    assert_eq!(r.get("ok"), Some(&Bson::Double(1.0)), "{cmd} -> {r}");
    r
}

/// [`fixed_db`] after running `setup`, each command of which must succeed.
pub fn db_after(seed: u64, setup: &[Document]) -> Database {
    let mut db = fixed_db(seed);
    for s in setup {
        ok(&mut db, s);
    }
    db
}

/// A count field of a reply (int32, int64 or double) as an integer.
pub fn int(d: &Document, k: &str) -> i64 {
    match d.get(k) {
        Some(Bson::Int32(n)) => *n as i64,
        Some(Bson::Int64(n)) => *n,
        Some(Bson::Double(f)) => *f as i64,
        other => panic!("{k}: {other:?} in {d}"),
    }
}
