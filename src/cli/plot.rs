//! `sim --svg FILE`: the report as a chart, drawn with plotters (its SVG backend; no fonts are
//! read, the viewer sets the text). A comparison draws each paired difference with its
//! interval (rates in points, means per game) and each side's score distribution, base and
//! variant side by side; a sim of one package draws its outcome rates with their intervals
//! and its score distributions.

use plotters::coord::Shift;
use plotters::prelude::*;
use servitor::sim::SimReport;
use servitor::sim::lab::{self, LabReport};
use std::collections::BTreeMap;
use std::path::Path;

const WIDTH: u32 = 900;
const ROW: u32 = 34;
const SCORES_HEIGHT: u32 = 280;
const BASE_COLOUR: RGBColor = RGBColor(60, 105, 175);
const VARIANT_COLOUR: RGBColor = RGBColor(215, 115, 35);

type Area<'a> = DrawingArea<SVGBackend<'a>, Shift>;

/// One row of an interval chart: its name, the estimate and the interval.
struct Row {
    name: String,
    value: f64,
    low: Option<f64>,
    high: Option<f64>,
}

fn failed(path: &Path, e: impl std::fmt::Display) -> super::Failure {
    super::Failure::Failed(format!(
        "error: cannot write the chart {}: {e}",
        servitor::escape::one_line(&path.display().to_string())
    ))
}

fn panel_height(rows: usize) -> u32 {
    90 + ROW * rows as u32
}

/// A chart of estimates with their intervals, one row each, and a line at `zero` (if given).
fn intervals(area: &Area, title: &str, unit: &str, rows: &[Row], zero: Option<f64>) -> Result<(), String> {
    let n = rows.len().max(1);
    let mut lo = zero.unwrap_or(f64::INFINITY);
    let mut hi = zero.unwrap_or(f64::NEG_INFINITY);
    for r in rows {
        for x in [Some(r.value), r.low, r.high].into_iter().flatten() {
            lo = lo.min(x);
            hi = hi.max(x);
        }
    }
    if !lo.is_finite() || !hi.is_finite() {
        (lo, hi) = (-1.0, 1.0);
    }
    let pad = if hi > lo { (hi - lo) * 0.08 } else { 1.0 };
    let names: Vec<String> = rows.iter().map(|r| r.name.clone()).collect();
    let label = move |v: &SegmentValue<usize>| match v {
        SegmentValue::CenterOf(i) if *i < names.len() => names[names.len() - 1 - *i].clone(),
        _ => String::new(),
    };
    let mut chart = ChartBuilder::on(area)
        .caption(title, ("sans-serif", 18))
        .margin(12)
        .x_label_area_size(36)
        .y_label_area_size(230)
        .build_cartesian_2d((lo - pad)..(hi + pad), (0..n).into_segmented())
        .map_err(|e| e.to_string())?;
    chart
        .configure_mesh()
        .disable_y_mesh()
        .y_labels(n)
        .y_label_formatter(&label)
        .x_desc(unit)
        .label_style(("sans-serif", 13))
        .draw()
        .map_err(|e| e.to_string())?;
    if let Some(z) = zero {
        chart
            .draw_series(std::iter::once(PathElement::new(
                vec![(z, SegmentValue::Exact(0)), (z, SegmentValue::Last)],
                BLACK.stroke_width(1),
            )))
            .map_err(|e| e.to_string())?;
    }
    let count = rows.len();
    chart
        .draw_series(rows.iter().enumerate().map(|(i, r)| {
            let at = SegmentValue::CenterOf(count - 1 - i);
            ErrorBar::new_horizontal(
                at,
                r.low.unwrap_or(r.value),
                r.value,
                r.high.unwrap_or(r.value),
                VARIANT_COLOUR.filled().stroke_width(2),
                10,
            )
        }))
        .map_err(|e| e.to_string())?;
    Ok(())
}

/// One side's score distribution: bars of games per score (in bins when the scores spread
/// wide), one series per package, side by side.
fn scores(area: &Area, title: &str, series: &[(&str, RGBColor, &BTreeMap<i64, u64>)]) -> Result<(), String> {
    let (mut lo, mut hi) = (i64::MAX, i64::MIN);
    for (score, _) in series.iter().flat_map(|(_, _, c)| c.iter()) {
        lo = lo.min(*score);
        hi = hi.max(*score);
    }
    if lo > hi {
        (lo, hi) = (0, 0);
    }
    let bin = ((hi - lo) / 40 + 1).max(1);
    let binned: Vec<BTreeMap<i64, u64>> = series
        .iter()
        .map(|(_, _, counts)| {
            let mut b = BTreeMap::new();
            for (score, games) in counts.iter() {
                *b.entry(lo + (score - lo).div_euclid(bin) * bin).or_default() += games;
            }
            b
        })
        .collect();
    let top = binned
        .iter()
        .flat_map(|b| b.values())
        .copied()
        .max()
        .unwrap_or(1)
        .max(1);
    let mut chart = ChartBuilder::on(area)
        .caption(title, ("sans-serif", 18))
        .margin(12)
        .x_label_area_size(36)
        .y_label_area_size(60)
        .build_cartesian_2d((lo - bin) as f64..(hi + 2 * bin) as f64, 0u64..(top + top / 10 + 1))
        .map_err(|e| e.to_string())?;
    let x_desc = if bin == 1 {
        "score".to_string()
    } else {
        format!("score (bars of {bin} points)")
    };
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_desc(x_desc)
        .y_desc("games")
        .label_style(("sans-serif", 13))
        .draw()
        .map_err(|e| e.to_string())?;
    let width = 0.8 * bin as f64 / series.len() as f64;
    for (k, ((name, colour, _), counts)) in series.iter().zip(&binned).enumerate() {
        let left = 0.1 * bin as f64 + width * k as f64;
        let colour = *colour;
        chart
            .draw_series(counts.iter().map(|(score, games)| {
                let x = *score as f64 + left;
                Rectangle::new([(x, 0), (x + width, *games)], colour.filled())
            }))
            .map_err(|e| e.to_string())?
            .label(*name)
            .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 12, y + 5)], colour.filled()));
    }
    chart
        .configure_series_labels()
        .border_style(BLACK)
        .background_style(WHITE.mix(0.9))
        .label_font(("sans-serif", 13))
        .draw()
        .map_err(|e| e.to_string())?;
    Ok(())
}

fn sides_of<'a>(maps: impl IntoIterator<Item = &'a indexmap::IndexMap<String, BTreeMap<i64, u64>>>) -> Vec<String> {
    let mut sides: Vec<String> = Vec::new();
    for m in maps {
        for s in m.keys() {
            if !sides.contains(s) {
                sides.push(s.clone());
            }
        }
    }
    sides
}

/// The chart of a comparison.
pub fn compared(r: &LabReport, path: &Path) -> Result<(), super::Failure> {
    let level = format!("{} %", (r.level * 1000.0).round() / 10.0);
    let row = |m: &lab::Metric, scale: f64| Row {
        name: lab::label(&m.id),
        value: m.difference * scale,
        low: m.low.map(|x| x * scale),
        high: m.high.map(|x| x * scale),
    };
    let rates: Vec<Row> = r
        .metrics
        .iter()
        .filter(|m| m.kind == "rate")
        .map(|m| row(m, 100.0))
        .collect();
    // Losses by kind are in the text and the JSON; the chart keeps to a side's total.
    let means: Vec<Row> = r
        .metrics
        .iter()
        .filter(|m| m.kind == "mean" && m.id.split(':').count() < 3)
        .map(|m| row(m, 1.0))
        .collect();
    let sides = sides_of(&r.score_counts);
    let heights = [panel_height(rates.len()), panel_height(means.len())];
    let total = heights[0] + heights[1] + SCORES_HEIGHT * sides.len() as u32;
    let draw = || -> Result<(), String> {
        let root = SVGBackend::new(path, (WIDTH, total)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| e.to_string())?;
        let (top, rest) = root.split_vertically(heights[0]);
        let (middle, bottom) = rest.split_vertically(heights[1]);
        let title = |what: &str| {
            format!(
                "{what}: {} − {} ({} games, {level} intervals)",
                r.variant, r.base, r.paired
            )
        };
        intervals(
            &top,
            &title("wins"),
            "difference in percentage points",
            &rates,
            Some(0.0),
        )?;
        intervals(&middle, &title("per game"), "difference per game", &means, Some(0.0))?;
        let empty = BTreeMap::new();
        for (k, side) in sides.iter().enumerate() {
            let (_, area) = bottom.split_vertically(SCORES_HEIGHT * k as u32);
            let (area, _) = area.split_vertically(SCORES_HEIGHT);
            let base = r.score_counts[0].get(side).unwrap_or(&empty);
            let variant = r.score_counts[1].get(side).unwrap_or(&empty);
            let base_name = format!("{} (base)", r.base);
            let variant_name = format!("{} (variant)", r.variant);
            scores(
                &area,
                &format!("score of {side}: games per score"),
                &[
                    (&base_name, BASE_COLOUR, base),
                    (&variant_name, VARIANT_COLOUR, variant),
                ],
            )?;
        }
        root.present().map_err(|e| e.to_string())
    };
    draw().map_err(|e| failed(path, e))
}

/// The chart of a sim of one package.
pub fn single(r: &SimReport, path: &Path) -> Result<(), super::Failure> {
    let rates: Vec<Row> = r
        .outcomes
        .keys()
        .map(|name| {
            let rate = &r.rates[name];
            Row {
                name: name.clone(),
                value: rate.rate * 100.0,
                low: Some(rate.low * 100.0),
                high: Some(rate.high * 100.0),
            }
        })
        .collect();
    let sides = sides_of([&r.score_counts]);
    let first = panel_height(rates.len());
    let total = first + SCORES_HEIGHT * sides.len() as u32;
    let draw = || -> Result<(), String> {
        let root = SVGBackend::new(path, (WIDTH, total)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| e.to_string())?;
        let (top, bottom) = root.split_vertically(first);
        intervals(
            &top,
            &format!(
                "outcomes: {} · {} ({} games, 95 % intervals)",
                r.package, r.mission, r.games
            ),
            "share of games, per cent",
            &rates,
            None,
        )?;
        for (k, side) in sides.iter().enumerate() {
            let (_, area) = bottom.split_vertically(SCORES_HEIGHT * k as u32);
            let (area, _) = area.split_vertically(SCORES_HEIGHT);
            scores(
                &area,
                &format!("score of {side}: games per score"),
                &[(r.package.as_str(), BASE_COLOUR, &r.score_counts[side])],
            )?;
        }
        root.present().map_err(|e| e.to_string())
    };
    draw().map_err(|e| failed(path, e))
}
