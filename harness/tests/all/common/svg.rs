//! Checks of an SVG heatmap from `ds-harness matrix`: parsed as XML (cells, classes, colours,
//! legend) and rendered to PNG by librsvg's `rsvg-convert` (an independent renderer, Debian's
//! `librsvg2-bin`), whose pixels must show each cell's class colour.

use ds_harness::fidelity::{Class, CLASSES};
use ds_test_support::{tool, Cmd};
use std::path::Path;
use std::time::Duration;

/// A rendered image: 8-bit RGBA rows.
pub struct Image {
    width: u32,
    height: u32,
    rgba: Vec<u8>,
}

impl Image {
    /// The RGB of the pixel at (x, y), if inside.
    fn rgb(&self, x: u32, y: u32) -> Option<[u8; 3]> {
        (x < self.width && y < self.height).then(|| {
            let i = ((y * self.width + x) * 4) as usize;
            [self.rgba[i], self.rgba[i + 1], self.rgba[i + 2]]
        })
    }
}

/// Renders `svg` to a PNG at `png` with rsvg-convert and decodes it; `None` (the reason
/// printed) when rsvg-convert is missing and this is not CI.
pub fn render(svg: &str, png: &Path) -> Option<Image> {
    if !tool("rsvg-convert", "install Debian's librsvg2-bin") {
        return None;
    }
    let source = png.with_extension("svg");
    std::fs::write(&source, svg).expect("SVG written");
    let out = Cmd::new("rsvg-convert")
        .args(["--format", "png", "--output"])
        .arg(png)
        .arg(&source)
        .within(Duration::from_secs(60))
        .output();
    assert!(
        out.status.success(),
        "rsvg-convert does not render the SVG: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let file = std::fs::File::open(png).expect("the PNG rsvg-convert wrote");
    let mut decoder = png::Decoder::new(std::io::BufReader::new(file));
    decoder.set_transformations(png::Transformations::normalize_to_color8());
    let mut reader = decoder.read_info().expect("a PNG");
    let mut buf = vec![0; reader.output_buffer_size()];
    let frame = reader.next_frame(&mut buf).expect("one frame");
    assert_eq!(
        (frame.color_type, frame.bit_depth),
        (png::ColorType::Rgba, png::BitDepth::Eight),
        "rsvg-convert writes 8-bit RGBA"
    );
    buf.truncate(frame.buffer_size());
    println!("rendered {}", png.display());
    Some(Image {
        width: frame.width,
        height: frame.height,
        rgba: buf,
    })
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
    let image = render(svg, png);
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
        let Some(image) = &image else { continue };
        let f = |a: &str| cell.attribute(a).unwrap().parse::<f64>().unwrap();
        let (x, y) = (f("x") + f("width") - 4.0, f("y") + f("height") / 2.0);
        let p = image.rgb(x as u32, y as u32).expect("inside the image");
        assert_eq!(
            p,
            rgb(class.colour()),
            "{op} column {col}: the rendered cell shows {class}'s colour"
        );
    }
    cells.len()
}
