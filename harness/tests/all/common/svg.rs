//! Checks of an SVG heatmap from `ds-harness matrix`: parsed as XML (cells, classes, colours,
//! legend) and rendered to PNG with resvg, whose pixels must show each cell's class colour.

use ds_harness::fidelity::{Class, CLASSES};
use std::path::Path;

/// Renders `svg` to a PNG at `png` and returns the pixmap.
pub fn render(svg: &str, png: &Path) -> resvg::tiny_skia::Pixmap {
    let mut opt = resvg::usvg::Options::default();
    opt.fontdb_mut().load_system_fonts();
    let tree = resvg::usvg::Tree::from_str(svg, &opt).expect("resvg parses the SVG");
    let size = tree.size().to_int_size();
    let mut pixmap =
        resvg::tiny_skia::Pixmap::new(size.width(), size.height()).expect("a non-empty image");
    resvg::render(
        &tree,
        resvg::tiny_skia::Transform::default(),
        &mut pixmap.as_mut(),
    );
    pixmap.save_png(png).expect("PNG written");
    println!("rendered {}", png.display());
    pixmap
}

fn rgb(hex: &str) -> [u8; 3] {
    let v = u32::from_str_radix(hex.trim_start_matches('#'), 16).unwrap();
    [(v >> 16) as u8, (v >> 8) as u8, v as u8]
}

/// Checks the SVG's cells against `expect` (op, column, class) and their rendered colours; returns
/// the number of cells.
pub fn check_svg(svg: &str, png: &Path, expect: &[(&str, usize, Class)]) -> usize {
    let doc = roxmltree::Document::parse(svg).expect("the SVG is well-formed XML");
    let cells: Vec<_> = doc
        .descendants()
        .filter(|n| n.has_tag_name("rect") && n.attribute("class") == Some("cell"))
        .collect();
    let legend = doc
        .descendants()
        .filter(|n| n.attribute("class") == Some("legend"))
        .count();
    assert_eq!(legend, CLASSES.len(), "a legend entry per class");
    let pixmap = render(svg, png);
    for &(op, col, class) in expect {
        let cell = cells
            .iter()
            .find(|c| {
                c.attribute("data-op") == Some(op)
                    && c.attribute("data-column") == Some(&col.to_string())
            })
            .unwrap_or_else(|| panic!("a cell for {op} in column {col}"));
        assert_eq!(
            cell.attribute("data-class"),
            Some(class.key()),
            "{op} {col}"
        );
        assert_eq!(cell.attribute("fill"), Some(class.colour()), "{op} {col}");
        let f = |a: &str| cell.attribute(a).unwrap().parse::<f64>().unwrap();
        let (x, y) = (f("x") + f("width") - 4.0, f("y") + f("height") / 2.0);
        let p = pixmap.pixel(x as u32, y as u32).expect("inside the image");
        assert_eq!(
            [p.red(), p.green(), p.blue()],
            rgb(class.colour()),
            "{op} column {col}: the rendered cell shows {class}'s colour"
        );
    }
    cells.len()
}
