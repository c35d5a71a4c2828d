//! `$group` accumulators, one file per operator (registered in `aggregate::accumulator`).

pub mod add_to_set;
pub mod avg;
pub mod bottom;
pub mod bottom_n;
pub mod count;
pub mod first;
pub mod first_n;
pub mod last;
pub mod last_n;
pub mod max;
pub mod max_n;
pub mod merge_objects;
pub mod min;
pub mod min_n;
pub mod push;
pub mod std_dev_pop;
pub mod std_dev_samp;
pub mod sum;
pub mod top;
pub mod top_n;

pub(crate) mod n_args;
pub(crate) mod sorted_n;
pub(crate) mod std_dev;
