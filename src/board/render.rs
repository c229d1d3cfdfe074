//! Pictures of a grid: box-drawing text for the terminal and SVG for files. Overlays (pieces,
//! a line of sight) are drawn on top.

use super::{Edge, Grid, Square};
use std::collections::BTreeMap;
use std::fmt::Write;

/// What to draw on top of the map: a letter per square, and a highlighted line.
#[derive(Debug, Default, Clone)]
pub struct Overlay {
    pub labels: BTreeMap<Square, char>,
    pub line: Vec<Square>,
    pub blocked: Option<Square>,
}

const BOX: [char; 16] = [
    ' ', '╴', '╷', '┐', '╶', '─', '┌', '┬', '╵', '┘', '│', '┤', '└', '┴', '├', '┼',
];

/// The map in box-drawing characters, one character per square and per edge, like the
/// rules files draw it. `color` adds ANSI colours.
pub fn text(grid: &Grid, overlay: &Overlay, color: bool) -> String {
    let paint = |s: String, code: &str| if color { format!("\x1b[{code}m{s}\x1b[0m") } else { s };
    let (w, h) = (grid.width, grid.height);
    let wall_h = |x: i32, y: i32| {
        x >= 0 && x < w && y >= 0 && y <= h && grid.edge(Square::new(x, y - 1), Square::new(x, y)) != Edge::Open
    };
    let wall_v = |x: i32, y: i32| {
        y >= 0 && y < h && x >= 0 && x <= w && grid.edge(Square::new(x - 1, y), Square::new(x, y)) != Edge::Open
    };
    let mut out = String::new();
    for row in 0..=(2 * h) {
        for col in 0..=(2 * w) {
            let (x, y) = (col / 2, row / 2);
            let s = match (row % 2, col % 2) {
                (0, 0) => {
                    // Corner: which of the four edges meeting here are drawn.
                    let left = wall_h(x - 1, y);
                    let right = wall_h(x, y);
                    let up = wall_v(x, y - 1);
                    let down = wall_v(x, y);
                    let i = (left as usize) | (down as usize) << 1 | (right as usize) << 2 | (up as usize) << 3;
                    BOX[i].to_string()
                }
                (0, 1) => edge_char(grid.edge(Square::new(x, y - 1), Square::new(x, y)), '─', &paint),
                (1, 0) => edge_char(grid.edge(Square::new(x - 1, y), Square::new(x, y)), '│', &paint),
                _ => {
                    let sq = Square::new(x, y);
                    if let Some(c) = overlay.labels.get(&sq) {
                        paint(c.to_string(), "1;31")
                    } else if overlay.blocked == Some(sq) {
                        paint("✗".into(), "1;31")
                    } else if overlay.line.contains(&sq) {
                        paint("•".into(), "32")
                    } else if grid.is_solid(sq) {
                        paint("█".into(), "2")
                    } else if let Some(mark) = grid.mark(sq) {
                        paint(mark_letter(mark).to_string(), "36")
                    } else {
                        "·".into()
                    }
                }
            };
            out.push_str(&s);
        }
        out.push('\n');
    }
    out
}

fn edge_char(edge: Edge, wall: char, paint: &dyn Fn(String, &str) -> String) -> String {
    match edge {
        Edge::Open => " ".into(),
        Edge::Wall => wall.to_string(),
        Edge::Door { open: false } => paint("D".into(), "33"),
        Edge::Door { open: true } => paint("d".into(), "33"),
    }
}

/// The letter shown for a mark: its first letter, upper case.
pub fn mark_letter(mark: &str) -> char {
    mark.chars().next().map_or('?', |c| c.to_ascii_uppercase())
}

/// A key to the letters used by [`text`].
pub fn legend(grid: &Grid) -> String {
    let mut lines = vec!["█ solid   · floor   D closed door   d open door".to_string()];
    for mark in &grid.mark_names {
        lines.push(format!("{} {mark}", mark_letter(mark)));
    }
    lines.join("\n") + "\n"
}

const CELL: i32 = 24;

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The map as an SVG document.
pub fn svg(grid: &Grid, title: &str, overlay: &Overlay) -> String {
    let (w, h) = (grid.width * CELL, grid.height * CELL);
    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{}" height="{}" viewBox="-4 -4 {} {}">"#,
        w + 8,
        h + 8,
        w + 8,
        h + 8
    );
    let _ = writeln!(s, "<title>{}</title>", esc(title));
    let _ = writeln!(s, r##"<rect x="0" y="0" width="{w}" height="{h}" fill="#e8e4da"/>"##);
    for y in 0..grid.height {
        for x in 0..grid.width {
            let sq = Square::new(x, y);
            let (px, py) = (x * CELL, y * CELL);
            if grid.is_solid(sq) {
                let _ = writeln!(
                    s,
                    r##"<rect x="{px}" y="{py}" width="{CELL}" height="{CELL}" fill="#3b3b3b"/>"##
                );
            } else {
                let _ = writeln!(
                    s,
                    r##"<rect x="{px}" y="{py}" width="{CELL}" height="{CELL}" fill="none" stroke="#c9c3b6" stroke-width="0.5"/>"##
                );
                if let Some(mark) = grid.mark(sq) {
                    let _ = writeln!(
                        s,
                        r##"<text x="{}" y="{}" font-family="sans-serif" font-size="12" text-anchor="middle" fill="#1f6f8b"><title>{}</title>{}</text>"##,
                        px + CELL / 2,
                        py + CELL / 2 + 4,
                        esc(mark),
                        mark_letter(mark)
                    );
                }
            }
        }
    }
    let mut edge = |x1: i32, y1: i32, x2: i32, y2: i32, e: Edge| {
        let (color, width) = match e {
            Edge::Open => return,
            Edge::Wall => ("#111111", 3),
            Edge::Door { open: false } => ("#c98b00", 5),
            Edge::Door { open: true } => ("#e6c35c", 2),
        };
        let _ = writeln!(
            s,
            r#"<line x1="{x1}" y1="{y1}" x2="{x2}" y2="{y2}" stroke="{color}" stroke-width="{width}" stroke-linecap="square"/>"#
        );
    };
    for y in 0..=grid.height {
        for x in 0..grid.width {
            let e = grid.edge(Square::new(x, y - 1), Square::new(x, y));
            if !(grid.is_solid(Square::new(x, y - 1)) && grid.is_solid(Square::new(x, y))) {
                edge(x * CELL, y * CELL, (x + 1) * CELL, y * CELL, e);
            }
        }
    }
    for y in 0..grid.height {
        for x in 0..=grid.width {
            let e = grid.edge(Square::new(x - 1, y), Square::new(x, y));
            if !(grid.is_solid(Square::new(x - 1, y)) && grid.is_solid(Square::new(x, y))) {
                edge(x * CELL, y * CELL, x * CELL, (y + 1) * CELL, e);
            }
        }
    }
    if let (Some(first), Some(last)) = (overlay.line.first(), overlay.line.last()) {
        let c = |q: &Square| (q.x * CELL + CELL / 2, q.y * CELL + CELL / 2);
        let ((x1, y1), (x2, y2)) = (c(first), c(last));
        let color = if overlay.blocked.is_some() {
            "#c0392b"
        } else {
            "#27ae60"
        };
        let _ = writeln!(
            s,
            r#"<line x1="{x1}" y1="{y1}" x2="{x2}" y2="{y2}" stroke="{color}" stroke-width="2" stroke-dasharray="4 3"/>"#
        );
    }
    for (sq, label) in &overlay.labels {
        let _ = writeln!(
            s,
            r##"<text x="{}" y="{}" font-family="sans-serif" font-size="14" font-weight="bold" text-anchor="middle" fill="#b03a2e">{}</text>"##,
            sq.x * CELL + CELL / 2,
            sq.y * CELL + CELL / 2 + 5,
            esc(&label.to_string())
        );
    }
    s.push_str("</svg>\n");
    s
}

/// A battlefield in text: one column per inch, one line per two inches (terminal characters
/// are about twice as tall as wide). Terrain `▓`, zones `░`, markers by their last character.
pub fn battlefield_text(b: &super::field::Battlefield) -> String {
    use super::field::Point;
    let (cols, rows) = (b.width.ceil() as usize, (b.height / 2.0).ceil() as usize);
    let mut grid = vec![vec![' '; cols]; rows];
    for (r, line) in grid.iter_mut().enumerate() {
        for (c, cell) in line.iter_mut().enumerate() {
            let p = Point::new(c as f64 + 0.5, r as f64 * 2.0 + 1.0);
            if b.terrain_at(p).is_some() {
                *cell = '▓';
            } else if !b.zones_at(p).is_empty() {
                *cell = '░';
            }
        }
    }
    for (name, p) in &b.markers {
        let (c, r) = (
            (p.x.floor() as usize).min(cols - 1),
            ((p.y / 2.0).floor() as usize).min(rows - 1),
        );
        grid[r][c] = marker_char(name);
    }
    let mut out = format!("┌{}┐\n", "─".repeat(cols));
    for line in grid {
        out.push('│');
        out.extend(line);
        out.push_str("│\n");
    }
    out.push_str(&format!("└{}┘\n", "─".repeat(cols)));
    out
}

/// A marker's letter: its last character (`objective-3` → `3`).
pub fn marker_char(name: &str) -> char {
    name.chars().last().map_or('?', |c| c.to_ascii_uppercase())
}

/// A key to a battlefield picture.
pub fn battlefield_legend(b: &super::field::Battlefield) -> String {
    let mut lines = vec![format!(
        "{} × {} inches; 1 column = 1\", 1 line = 2\"; ▓ impassable terrain, ░ zone",
        b.width, b.height
    )];
    for z in &b.zones {
        lines.push(format!("░ zone {}", z.name));
    }
    for t in &b.terrain {
        lines.push(format!("▓ {}", t.name));
    }
    for (name, p) in &b.markers {
        lines.push(format!("{} {name} at {}, {}", marker_char(name), p.x, p.y));
    }
    lines.join("\n") + "\n"
}

/// A battlefield as SVG, 10 pixels to the inch, with an optional route drawn on it.
pub fn battlefield_svg(b: &super::field::Battlefield, title: &str, route: &[super::field::Point]) -> String {
    const PX: f64 = 10.0;
    let (w, h) = (b.width * PX, b.height * PX);
    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}">"#
    );
    let _ = writeln!(s, "<title>{}</title>", esc(title));
    let _ = writeln!(
        s,
        r##"<rect x="0" y="0" width="{w}" height="{h}" fill="#d8d2b8" stroke="#333" stroke-width="2"/>"##
    );
    let points = |poly: &super::field::Polygon| {
        poly.corners
            .iter()
            .map(|p| format!("{},{}", p.x * PX, p.y * PX))
            .collect::<Vec<_>>()
            .join(" ")
    };
    for z in &b.zones {
        let _ = writeln!(
            s,
            r##"<polygon points="{}" fill="#7fa7c9" fill-opacity="0.35" stroke="#2e5d85"><title>{}</title></polygon>"##,
            points(z),
            esc(&z.name)
        );
    }
    for t in &b.terrain {
        let _ = writeln!(
            s,
            r##"<polygon points="{}" fill="#5b4a3a" stroke="#2b2118"><title>{}</title></polygon>"##,
            points(t),
            esc(&t.name)
        );
    }
    for (name, p) in &b.markers {
        let _ = writeln!(
            s,
            r##"<circle cx="{}" cy="{}" r="10" fill="#f4d03f" stroke="#7d6608"><title>{}</title></circle><text x="{}" y="{}" font-family="sans-serif" font-size="11" text-anchor="middle">{}</text>"##,
            p.x * PX,
            p.y * PX,
            esc(name),
            p.x * PX,
            p.y * PX + 4.0,
            esc(&marker_char(name).to_string())
        );
    }
    if route.len() >= 2 {
        let pts = route
            .iter()
            .map(|p| format!("{},{}", p.x * PX, p.y * PX))
            .collect::<Vec<_>>()
            .join(" ");
        let _ = writeln!(
            s,
            r##"<polyline points="{pts}" fill="none" stroke="#c0392b" stroke-width="2" stroke-dasharray="6 4"/>"##
        );
    }
    s.push_str("</svg>\n");
    s
}
