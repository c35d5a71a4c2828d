//! Sizes and costs: a chart (SVG) of a collection's document sizes, the last operation's cost
//! counters, and two designs (collections) side by side.

use leptos::prelude::*;
use serde_json::json;

use super::data_view::{collections, CollInfo, CollectionSelect};
use super::ejson;
use super::pg::use_pg;
use super::{human_bytes, MAX_BSON};

/// A histogram of sizes: `bins` equal-width bins from 0 to the largest size.
pub fn histogram(sizes: &[f64], bins: usize) -> (f64, Vec<usize>) {
    let max = sizes.iter().copied().fold(0.0_f64, f64::max);
    let mut counts = vec![0usize; bins.max(1)];
    if max <= 0.0 {
        return (0.0, counts);
    }
    let n = counts.len();
    for s in sizes {
        let i = ((s / max) * n as f64) as usize;
        counts[i.min(n - 1)] += 1;
    }
    (max, counts)
}

#[component]
pub fn SizesView() -> impl IntoView {
    let pg = use_pg();
    let colls = LocalResource::new(move || {
        let _ = pg.data_version.get();
        collections(pg, super::session::DEFAULT_DB.into())
    });
    let chosen = RwSignal::new(pg.test_collection());
    let sizes = LocalResource::new(move || {
        let _ = pg.data_version.get();
        let c = chosen.get();
        async move {
            if c.is_empty() {
                return Ok(Vec::new());
            }
            let rows = pg
                .batch(&json!({ "aggregate": c, "pipeline": [ { "$project": { "_id": 0, "s": { "$bsonSize": "$$ROOT" } } } ], "cursor": {} }))
                .await?;
            Ok::<_, String>(rows.iter().filter_map(|r| r.get("s").and_then(ejson::as_f64)).collect::<Vec<f64>>())
        }
    });
    let left = RwSignal::new(String::new());
    let right = RwSignal::new(String::new());
    let names = move || colls.get().and_then(|r| r.ok()).unwrap_or_default();
    view! {
        <div class="sizes">
            <section aria-label="Document sizes">
                <h2>"Document sizes"</h2>
                <CollectionSelect label="Collection for the size chart" chosen=chosen names=Signal::derive(names)/>
                {move || match sizes.get() {
                    None => view! { <p class="muted">"Loading…"</p> }.into_any(),
                    Some(Err(e)) => view! { <p class="error">{e}</p> }.into_any(),
                    Some(Ok(s)) if s.is_empty() => view! { <p class="muted">"No documents."</p> }.into_any(),
                    Some(Ok(s)) => view! { <SizeChart sizes=s/> }.into_any(),
                }}
            </section>
            <section aria-label="Cost of the last operation">
                <h2>"Last operation's cost"</h2>
                {move || match pg.cost.get() {
                    None => view! { <p class="muted">"Run a script to see what it cost the engine."</p> }.into_any(),
                    Some((title, c)) => view! {
                        <p>{format!("Script: {title}")}</p>
                        <dl class="costs">
                            <dt>"Documents examined"</dt><dd>{c.docs_examined}</dd>
                            <dt>"Index keys examined"</dt><dd>{c.keys_examined}</dd>
                            <dt>"Documents returned"</dt><dd>{c.docs_returned}</dd>
                            <dt>"Bytes read"</dt><dd>{human_bytes(c.bytes_read)}</dd>
                            <dt>"Bytes written"</dt><dd>{human_bytes(c.bytes_written)}</dd>
                        </dl>
                    }.into_any(),
                }}
            </section>
            <section aria-label="Two designs side by side">
                <h2>"Two designs side by side"</h2>
                <div class="pick2">
                    <label class="field"><span>"Design A"</span>
                        <select aria-label="Design A collection" on:change=move |ev| left.set(event_target_value(&ev))>
                            <option value="">"Choose…"</option>
                            {move || names().into_iter().map(|c| view! { <option value=c.name.clone()>{c.name.clone()}</option> }).collect_view()}
                        </select>
                    </label>
                    <label class="field"><span>"Design B"</span>
                        <select aria-label="Design B collection" on:change=move |ev| right.set(event_target_value(&ev))>
                            <option value="">"Choose…"</option>
                            {move || names().into_iter().map(|c| view! { <option value=c.name.clone()>{c.name.clone()}</option> }).collect_view()}
                        </select>
                    </label>
                </div>
                {move || {
                    let all = names();
                    let a = all.iter().find(|c| c.name == left.get()).cloned();
                    let b = all.iter().find(|c| c.name == right.get()).cloned();
                    (a.is_some() || b.is_some()).then(|| view! { <Compare a=a b=b/> })
                }}
            </section>
        </div>
    }
}

/// The chart's drawing area inside its SVG: room on the left for the count ticks and on the
/// bottom for the size ticks and the axis titles.
const CHART_W: f64 = 600.0;
const CHART_H: f64 = 180.0;
const LEFT: f64 = 44.0;
const BOTTOM: f64 = 40.0;

/// Tick values for an axis from 0 to `max`: 0, the middle and the end.
pub fn ticks(max: f64) -> [f64; 3] {
    [0.0, max / 2.0, max]
}

#[component]
fn SizeChart(sizes: Vec<f64>) -> impl IntoView {
    let (max, counts) = histogram(&sizes, 30);
    let top = counts.iter().copied().max().unwrap_or(1).max(1) as f64;
    let bw = CHART_W / counts.len() as f64;
    let total: f64 = sizes.iter().sum();
    let avg = total / sizes.len() as f64;
    let y = move |count: f64| CHART_H - count / top * (CHART_H - 10.0);
    let bars = counts
        .iter()
        .enumerate()
        .map(|(i, &c)| {
            let h = if c == 0 { 0.0 } else { (CHART_H - y(c as f64)).max(1.5) };
            let from = max * i as f64 / counts.len() as f64;
            let to = max * (i + 1) as f64 / counts.len() as f64;
            view! {
                <rect x=format!("{:.1}", LEFT + i as f64 * bw + 1.0) y=format!("{:.1}", CHART_H - h) width=format!("{:.1}", bw - 2.0) height=format!("{h:.1}") class="hbar">
                    <title>{format!("{c} document(s) of {} to {}", human_bytes(from), human_bytes(to))}</title>
                </rect>
            }
        })
        .collect_view();
    // Counts are whole documents: the middle tick only when it is one.
    let count_ticks: Vec<f64> = ticks(top).into_iter().filter(|t| t.fract() == 0.0).collect();
    let y_ticks = count_ticks
        .into_iter()
        .map(|t| {
            let at = y(t);
            view! {
                <line x1=(LEFT - 4.0).to_string() x2=LEFT.to_string() y1=format!("{at:.1}") y2=format!("{at:.1}") class="axis"/>
                <text x=(LEFT - 6.0).to_string() y=format!("{:.1}", at + 4.0) class="tick" text-anchor="end">{format!("{t}")}</text>
            }
        })
        .collect_view();
    let x_ticks = ticks(max)
        .into_iter()
        .enumerate()
        .map(|(i, t)| {
            let at = LEFT + CHART_W * i as f64 / 2.0;
            let anchor = ["start", "middle", "end"][i];
            view! {
                <line x1=format!("{at:.1}") x2=format!("{at:.1}") y1=CHART_H.to_string() y2=(CHART_H + 4.0).to_string() class="axis"/>
                <text x=format!("{at:.1}") y=(CHART_H + 16.0).to_string() class="tick" text-anchor=anchor>{human_bytes(t)}</text>
            }
        })
        .collect_view();
    view! {
        <figure class="chart">
            <svg viewBox=format!("0 0 {} {}", LEFT + CHART_W, CHART_H + BOTTOM) role="img"
                aria-label=format!("Histogram of {} document sizes, from 0 to {}: documents per size range", sizes.len(), human_bytes(max))>
                {bars}
                <line x1=LEFT.to_string() x2=(LEFT + CHART_W).to_string() y1=CHART_H.to_string() y2=CHART_H.to_string() class="axis"/>
                <line x1=LEFT.to_string() x2=LEFT.to_string() y1="0" y2=CHART_H.to_string() class="axis"/>
                {y_ticks}
                {x_ticks}
                <text x=(LEFT + CHART_W / 2.0).to_string() y=(CHART_H + BOTTOM - 4.0).to_string() class="axis-title" text-anchor="middle">"Document size (BSON bytes)"</text>
                <text x="12" y=(CHART_H / 2.0).to_string() class="axis-title" text-anchor="middle" transform=format!("rotate(-90 12 {})", CHART_H / 2.0)>"Documents"</text>
            </svg>
            <figcaption>{format!("{} documents · average {} · largest {} ({:.3}% of the 16 MiB limit) · total {}", sizes.len(), human_bytes(avg), human_bytes(max), max / MAX_BSON * 100.0, human_bytes(total))}</figcaption>
        </figure>
    }
}

#[component]
fn Compare(a: Option<CollInfo>, b: Option<CollInfo>) -> impl IntoView {
    let rows: [(&str, fn(&CollInfo) -> f64, bool); 5] = [
        ("Documents", |c| c.count, false),
        ("Data size", |c| c.size, true),
        ("Average document", |c| c.avg, true),
        ("Indexes", |c| c.nindexes, false),
        ("Index size", |c| c.index_size, true),
    ];
    let fmt = |v: f64, bytes: bool| if bytes { human_bytes(v) } else { format!("{v}") };
    view! {
        <table class="compare">
            <thead><tr><th scope="col">""</th>
                <th scope="col">{a.as_ref().map(|c| c.name.clone()).unwrap_or_else(|| "A".into())}</th>
                <th scope="col">{b.as_ref().map(|c| c.name.clone()).unwrap_or_else(|| "B".into())}</th></tr></thead>
            <tbody>
                {rows.into_iter().map(|(label, get, bytes)| {
                    let va = a.as_ref().map(get);
                    let vb = b.as_ref().map(get);
                    let m = va.unwrap_or(0.0).max(vb.unwrap_or(0.0)).max(1.0);
                    let cell = move |v: Option<f64>| match v {
                        None => view! { <td>"—"</td> }.into_any(),
                        Some(v) => view! { <td><span class="cmp-bar" style=format!("width:{:.1}%", v / m * 100.0)></span>{fmt(v, bytes)}</td> }.into_any(),
                    };
                    view! { <tr><th scope="row">{label}</th>{cell(va)}{cell(vb)}</tr> }
                }).collect_view()}
            </tbody>
        </table>
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn histogram_bins_sizes() {
        let cases: [(&[f64], usize, (f64, Vec<usize>)); 4] = [
            (&[], 3, (0.0, vec![0, 0, 0])),
            // Bins are [0, 10), [10, 20), [20, 30]: the largest size lands in the last one.
            (&[10.0, 20.0, 30.0], 3, (30.0, vec![0, 1, 2])),
            (&[0.0, 9.9, 29.9], 3, (29.9, vec![2, 0, 1])),
            (&[1.0, 1.0, 100.0], 2, (100.0, vec![2, 1])),
        ];
        for (sizes, bins, expected) in cases {
            assert_eq!(super::histogram(sizes, bins), expected);
        }
    }

    #[test]
    fn axes_tick_at_zero_the_middle_and_the_end() {
        assert_eq!(super::ticks(812.0), [0.0, 406.0, 812.0]);
        assert_eq!(super::ticks(3.0), [0.0, 1.5, 3.0]);
    }
}
