//! Pictures of a grid: box-drawing text for the terminal and SVG for files. Overlays (pieces,
//! a line of sight) are drawn on top. Both carry column and row numbers from 1 on their edges.
//! A line of sight that is stopped shows ✗ where it stops, over any label; in SVG the line is
//! green as far as it gets and red after.

use super::{Edge, Grid, Square};
use std::collections::BTreeMap;
use std::fmt::Write;

/// What to draw on top of the map: a letter per square, a highlighted line, and the squares
/// one piece can see (`board MODEL` at the table).
#[derive(Debug, Default, Clone)]
pub struct Overlay {
    pub labels: BTreeMap<Square, char>,
    pub line: Vec<Square>,
    pub blocked: Option<Square>,
    pub seen: std::collections::BTreeSet<Square>,
}

const BOX: [char; 16] = [
    ' ', '╴', '╷', '┐', '╶', '─', '┌', '┬', '╵', '┘', '│', '┤', '└', '┴', '├', '┼',
];

/// The map in box-drawing characters, one character per square and per edge, like the
/// rules files draw it, with column numbers above it and row numbers on its left (from 1, as
/// squares are written: `column,row`; columns past 9 have their tens above their units).
/// `color` adds ANSI colours.
pub fn text(grid: &Grid, overlay: &Overlay, color: bool) -> String {
    let paint = |s: String, code: &str| if color { format!("\x1b[{code}m{s}\x1b[0m") } else { s };
    let (w, h) = (grid.width, grid.height);
    // The margin holds the widest row number and a space.
    let margin = h.to_string().len() + 1;
    let mut out = String::new();
    let digit_line = |digit: &dyn Fn(i32) -> Option<i32>| {
        let mut line = " ".repeat(margin + 1);
        for x in 0..w {
            let d = digit(x + 1).map_or(" ".to_string(), |d| d.to_string());
            line.push_str(&paint(d, "2"));
            line.push(' ');
        }
        line.trim_end().to_string() + "\n"
    };
    if w >= 10 {
        out.push_str(&digit_line(&|n| (n >= 10).then_some(n / 10 % 10)));
    }
    out.push_str(&digit_line(&|n| Some(n % 10)));
    let wall_h = |x: i32, y: i32| {
        x >= 0 && x < w && y >= 0 && y <= h && grid.edge(Square::new(x, y - 1), Square::new(x, y)) != Edge::Open
    };
    let wall_v = |x: i32, y: i32| {
        y >= 0 && y < h && x >= 0 && x <= w && grid.edge(Square::new(x - 1, y), Square::new(x, y)) != Edge::Open
    };
    for row in 0..=(2 * h) {
        if row % 2 == 1 {
            let number = format!("{:>width$} ", row / 2 + 1, width = margin - 1);
            out.push_str(&paint(number, "2"));
        } else {
            out.push_str(&" ".repeat(margin));
        }
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
                    // Where a line is stopped is the answer: it shows over a label.
                    if overlay.blocked == Some(sq) {
                        paint("✗".into(), "1;31")
                    } else if let Some(c) = overlay.labels.get(&sq) {
                        paint(c.to_string(), "1;31")
                    } else if overlay.line.contains(&sq) {
                        paint("•".into(), "32")
                    } else if overlay.seen.contains(&sq) {
                        paint("∘".into(), "32")
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

/// The same key on one line, for a board printed at the table: the marks this map uses, then
/// doors (a player who cannot read `R` cannot find where reinforcements land).
pub fn legend_line(grid: &Grid) -> String {
    let marks: Vec<String> = grid
        .mark_names
        .iter()
        .map(|m| format!("{} {}", mark_letter(m), crate::escape::one_line(m)))
        .collect();
    let doors = "D closed door, d open door";
    if marks.is_empty() {
        format!("key: {doors}")
    } else {
        format!("key: {}; {doors}", marks.join(", "))
    }
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
    // Room on the left and above for the row and column numbers.
    let (left, top) = (26, 18);
    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{}" height="{}" viewBox="-{left} -{top} {} {}">"#,
        w + left + 4,
        h + top + 4,
        w + left + 4,
        h + top + 4
    );
    let _ = writeln!(s, "<title>{}</title>", esc(title));
    let _ = writeln!(s, r##"<rect x="0" y="0" width="{w}" height="{h}" fill="#e8e4da"/>"##);
    for x in 0..grid.width {
        let _ = writeln!(
            s,
            r##"<text x="{}" y="-6" font-family="sans-serif" font-size="10" text-anchor="middle" fill="#777777">{}</text>"##,
            x * CELL + CELL / 2,
            x + 1
        );
    }
    for y in 0..grid.height {
        let _ = writeln!(
            s,
            r##"<text x="-6" y="{}" font-family="sans-serif" font-size="10" text-anchor="end" fill="#777777">{}</text>"##,
            y * CELL + CELL / 2 + 4,
            y + 1
        );
    }
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
        // Green as far as the line gets; past where it is stopped, red, and a cross there.
        let c = |q: &Square| (q.x * CELL + CELL / 2, q.y * CELL + CELL / 2);
        let mut segment = |from: (i32, i32), to: (i32, i32), color: &str| {
            let _ = writeln!(
                s,
                r#"<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="{color}" stroke-width="2" stroke-dasharray="4 3"/>"#,
                from.0, from.1, to.0, to.1
            );
        };
        match overlay.blocked {
            Some(stop) => {
                segment(c(first), c(&stop), "#27ae60");
                segment(c(&stop), c(last), "#c0392b");
            }
            None => segment(c(first), c(last), "#27ae60"),
        }
        if let Some(stop) = overlay.blocked {
            let (x, y) = c(&stop);
            let _ = writeln!(
                s,
                r##"<path d="M{} {} L{} {} M{} {} L{} {}" stroke="#c0392b" stroke-width="3"><title>stopped at {stop}</title></path>"##,
                x - 6,
                y - 6,
                x + 6,
                y + 6,
                x - 6,
                y + 6,
                x + 6,
                y - 6
            );
        }
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

/// A marker's letter: its last character (`objective-3` → `3`), in capitals, unless the name
/// ends in a space and the letter to draw (`spawn-1 a` → `a`: a game's own lettering).
pub fn marker_char(name: &str) -> char {
    let mut tail = name.chars().rev();
    match (tail.next(), tail.next()) {
        (Some(c), Some(' ')) => c,
        (Some(c), _) => c.to_ascii_uppercase(),
        _ => '?',
    }
}

/// A key to a battlefield picture.
pub fn battlefield_legend(b: &super::field::Battlefield) -> String {
    let mut lines = vec![format!(
        "{} × {} inches; 1 column = 1\", 1 line = 2\"; ▓ impassable terrain, ░ zone",
        b.width, b.height
    )];
    for z in &b.zones {
        let round = if b.avoid.contains(&z.name) {
            " (moves go round it)"
        } else {
            ""
        };
        let hides = if b.hides.contains(&z.name) {
            " (blocks sight, not moves)"
        } else {
            ""
        };
        lines.push(format!("░ zone {}{round}{hides}", z.name));
    }
    for t in &b.terrain {
        let open = if b.see_through.contains(&t.name) {
            " (blocks moves, not sight)"
        } else {
            ""
        };
        lines.push(format!("▓ {}{open}", t.name));
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
