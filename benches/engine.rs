//! Native benchmarks of the engine (`cargo bench --bench engine`): the workloads of
//! bench/workloads/*.js at the Rust API (`Database::run_command`), without the JS/WASM crossing.

mod workloads;

use workloads::*;

fn main() {
    divan::main();
}

/// 20 000 capped upserts into hourly buckets, in 20 update commands of 1 000 statements.
#[divan::bench(sample_count = 5)]
fn bucket_upserts(b: divan::Bencher) {
    let cmds = bucket_commands();
    b.with_inputs(bucket_setup).bench_local_refs(|db| {
        for c in &cmds {
            run(db, c);
        }
    });
}

/// 1 000 reads of a 10 000-review document with a `$slice: -5` projection.
#[divan::bench(sample_count = 10)]
fn large_doc_slice_x1000(b: divan::Bencher) {
    let mut db = large_doc_setup();
    let cmd = large_doc_read();
    b.bench_local(|| {
        for _ in 0..1000 {
            divan::black_box(db.run_command_bytes(&cmd));
        }
    });
}

/// 1 000 reads by `_id` of a small subset document (1 000 products).
#[divan::bench(sample_count = 10)]
fn subset_reads_x1000(b: divan::Bencher) {
    let mut db = subset_setup();
    let cmds: Vec<_> = (0..1000).map(subset_read).collect();
    b.bench_local(|| {
        for c in &cmds {
            divan::black_box(db.run_command_bytes(c));
        }
    });
}

/// countDocuments with a `$expr` audit over 5 000 orders.
#[divan::bench(sample_count = 10)]
fn expr_drift_audit(b: divan::Bencher) {
    let mut db = orders_setup();
    let cmd = drift_audit();
    b.bench_local(|| divan::black_box(run(&mut db, &cmd)));
}

/// updateMany refreshing 2 500 of 5 000 embedded copies.
#[divan::bench(sample_count = 10)]
fn extended_ref_update_many(b: divan::Bencher) {
    let cmd = extended_ref_update();
    b.with_inputs(extended_ref_setup).bench_local_refs(|db| divan::black_box(run(db, &cmd)));
}

/// `$match` + `$group` + `$sort` over 20 000 readings.
#[divan::bench(sample_count = 10)]
fn group_readings_pipeline(b: divan::Bencher) {
    let mut db = readings_setup();
    let cmd = group_readings();
    b.bench_local(|| divan::black_box(run(&mut db, &cmd)));
}
