//! Lowering `battlefield` items: open tables measured in inches, with zones, markers and
//! impassable terrain.

use super::Lower;
use crate::board::field::{Battlefield, Point, Polygon};
use crate::diagnostic::Diagnostic;
use crate::limits::*;
use crate::package::merge::MergedItem;
use crate::syntax::ast::{self, ValueKind};
use std::collections::BTreeSet;

impl Lower<'_> {
    pub(super) fn battlefield(&mut self, item: &MergedItem) -> Option<Battlefield> {
        let known = [
            "size",
            "zone",
            "marker",
            "terrain",
            "avoid",
            "hides",
            "see-through",
            "source",
            "text",
            "label",
        ];
        let props = self.props(
            &item.entries,
            "a battlefield",
            &known,
            &["zone", "marker", "terrain"],
            false,
        );
        let size: Option<(i64, i64)> = props.get("size").and_then(|p| match p.values.as_slice() {
            [w, h] => match (w.as_number(), h.as_number()) {
                (Some(w), Some(h)) if w > 0 && h > 0 => Some((w, h)),
                _ => None,
            },
            _ => None,
        });
        let Some((width, height)) = size else {
            let span = props.get("size").map_or(item.id.span, |p| p.span);
            self.err(
                Diagnostic::error(span, "a battlefield needs its `size` in inches", "no size")
                    .with_help("write `size 72 48`"),
            );
            return None;
        };
        if width > MAX_BATTLEFIELD_INCHES as i64 || height > MAX_BATTLEFIELD_INCHES as i64 {
            let span = props.get("size").map_or(item.id.span, |p| p.span);
            self.err(
                Diagnostic::error(span, format!("a battlefield of {width} × {height} inches"), "too large").with_help(
                    format!(
                        "a battlefield is at most {MAX_BATTLEFIELD_INCHES} inches wide and high (`MAX_BATTLEFIELD_INCHES`, see \"Limits\" in docs/limits.md)"
                    ),
                ),
            );
            return None;
        }
        let (width, height) = (width as f64, height as f64);
        let mut corners_left = MAX_BATTLEFIELD_CORNERS;
        let mut names = BTreeSet::new();
        let mut polygon = |this: &mut Self, p: &ast::Property| -> Option<Polygon> {
            let name = p.values.first().and_then(|v| v.as_name());
            // Corners in inches, whole or not (`12.5`).
            let numbers: Option<Vec<f64>> = match p.values.get(1).map(|v| &v.kind) {
                Some(ValueKind::List(items)) if p.values.len() == 2 => items.iter().map(|v| v.as_inches()).collect(),
                _ => None,
            };
            let reach = MAX_BATTLEFIELD_INCHES as f64;
            match (name, numbers) {
                (Some(_), Some(n)) if n.iter().any(|c| c.abs() > reach) || n.len() / 2 > corners_left => {
                    let many = n.len() / 2 > corners_left;
                    corners_left = 0;
                    this.err(
                        Diagnostic::error(
                            p.span,
                            if many {
                                format!("this battlefield's zones and terrain have more than {MAX_BATTLEFIELD_CORNERS} corners in all")
                            } else {
                                format!("a corner lies more than {reach} inches from the table's top-left corner")
                            },
                            "too large",
                        )
                        .with_help(format!(
                            "a battlefield's zones and terrain have at most {MAX_BATTLEFIELD_CORNERS} corners in all (`MAX_BATTLEFIELD_CORNERS`), each within {reach} inches (`MAX_BATTLEFIELD_INCHES`) of the top-left corner (see \"Limits\" in docs/limits.md): draw terrain with fewer corners"
                        )),
                    );
                    None
                }
                (Some(name), Some(n)) if n.len() >= 6 && n.len() % 2 == 0 => {
                    corners_left -= n.len() / 2;
                    if !names.insert(name.to_string()) {
                        this.err(Diagnostic::error(
                            p.values[0].span,
                            format!("`{name}` is named twice on this battlefield"),
                            "again here",
                        ));
                    }
                    let corners = n.chunks(2).map(|c| Point::new(c[0], c[1])).collect();
                    Some(Polygon {
                        name: name.to_string(),
                        corners,
                    })
                }
                _ => {
                    this.err(
                        Diagnostic::error(
                            p.span,
                            format!(
                                "`{}` takes a name and a list of x, y corners (at least three)",
                                p.key.text
                            ),
                            "not a polygon",
                        )
                        .with_help(format!("write `{} ruin-a [20, 20, 28, 20, 28, 26]`", p.key.text)),
                    );
                    None
                }
            }
        };
        let zones: Vec<Polygon> = props.all("zone").filter_map(|p| polygon(self, p)).collect();
        let terrain: Vec<Polygon> = props.all("terrain").filter_map(|p| polygon(self, p)).collect();
        // `avoid [zone, …]`: zones moves go round like terrain, though pieces may stand in them;
        // `hides [zone, …]`: zones that block sight, though pieces walk through them;
        // `see-through [terrain, …]`: terrain that stops a move but not a line of sight.
        let avoid = self.battlefield_names(
            &props,
            "avoid",
            "zone",
            &zones,
            "`avoid [burning-pool]`: zones moves go round, though pieces may stand in them",
        );
        let hides = self.battlefield_names(
            &props,
            "hides",
            "zone",
            &zones,
            "`hides [dense-woods]`: zones that block sight, though pieces walk through them",
        );
        let see_through = self.battlefield_names(
            &props,
            "see-through",
            "terrain",
            &terrain,
            "`see-through [chasm]`: terrain that stops a move but not a line of sight",
        );
        let mut markers = Vec::new();
        for p in props.all("marker") {
            let v = &p.values;
            let parsed = match v.as_slice() {
                [name, at, x, y] if at.as_name() == Some("at") => name.as_name().zip(x.as_inches().zip(y.as_inches())),
                _ => None,
            };
            let Some((name, (x, y))) = parsed else {
                self.err(
                    Diagnostic::error(p.span, "`marker` takes a name and where it stands", "not understood")
                        .with_help("write `marker objective-1 at 12 24`"),
                );
                continue;
            };
            let point = Point::new(x, y);
            if !(0.0..=width).contains(&point.x) || !(0.0..=height).contains(&point.y) {
                self.err(Diagnostic::error(
                    p.span,
                    format!("marker `{name}` at {x}, {y} is off the {width} × {height} table"),
                    "off the table",
                ));
                continue;
            }
            if let Some(t) = terrain.iter().find(|t| t.contains(point)) {
                self.err(Diagnostic::error(
                    p.span,
                    format!("marker `{name}` stands inside impassable terrain `{}`", t.name),
                    "in terrain",
                ));
                continue;
            }
            if !names.insert(name.to_string()) {
                self.err(Diagnostic::error(
                    v[0].span,
                    format!("`{name}` is named twice on this battlefield"),
                    "again here",
                ));
            }
            markers.push((name.to_string(), point));
        }
        Some(Battlefield {
            id: item.id.text.clone(),
            label: self.label(item, &props),
            width,
            height,
            zones,
            terrain,
            avoid,
            hides,
            see_through,
            markers,
            source: self.text(props.get("source")),
            text: self.text(props.get("text")),
            span: item.span,
        })
    }

    /// A battlefield's list of names (`avoid`, `hides`, `see-through`), each one of `of`
    /// (its zones or its terrain, `kind` saying which in the messages).
    fn battlefield_names(
        &mut self,
        props: &super::Props<'_>,
        key: &str,
        kind: &str,
        of: &[Polygon],
        example: &str,
    ) -> Vec<String> {
        let mut out = Vec::new();
        let Some(value) = props.get(key).and_then(|p| self.one(p, &format!("[{kind}, {kind}]"))) else {
            return out;
        };
        let names: Option<Vec<(String, crate::source::Span)>> = match &value.kind {
            ast::ValueKind::List(items) => items
                .iter()
                .map(|v| v.as_name().map(|n| (n.to_string(), v.span)))
                .collect(),
            _ => None,
        };
        let Some(names) = names else {
            self.err(
                Diagnostic::error(
                    value.span,
                    format!("`{key}` takes a list of {kind} names"),
                    value.describe(),
                )
                .with_help(format!("write {example}")),
            );
            return out;
        };
        for (name, span) in names {
            if of.iter().any(|z| z.name == name) {
                out.push(name);
            } else {
                let article = if kind == "zone" { "zone" } else { "terrain piece" };
                let mut d = Diagnostic::error(
                    span,
                    format!("no {article} `{name}` on this battlefield"),
                    format!("not a {article}"),
                );
                if let Some(h) = crate::diagnostic::did_you_mean(&name, of.iter().map(|z| z.name.as_str())) {
                    d = d.with_help(h);
                }
                self.err(d);
            }
        }
        out
    }
}
