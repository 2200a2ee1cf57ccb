//! Whole-figure tests: render charts, parse the SVG with roxmltree, and
//! count what was drawn. `samples` builds paper-like charts; `gallery`
//! writes one SVG of each to `target/plot-gallery/` for looking at.

mod degenerate;
mod figures;
mod gallery;
mod samples;

use roxmltree::{Document, Node};

/// Parses `svg`, failing the test with the parser's message if malformed.
pub fn parse(svg: &str) -> Document<'_> {
    Document::parse(svg).unwrap_or_else(|e| panic!("malformed SVG: {e}\n{}", &svg[..svg.len().min(2000)]))
}

/// The first `<g>` whose class is `class`.
pub fn group<'a, 'i>(doc: &'a Document<'i>, class: &str) -> Option<Node<'a, 'i>> {
    doc.descendants().find(|n| n.has_tag_name("g") && n.attribute("class") == Some(class))
}

/// All `<g>` with class `class`.
pub fn groups<'a, 'i>(doc: &'a Document<'i>, class: &str) -> Vec<Node<'a, 'i>> {
    doc.descendants().filter(|n| n.has_tag_name("g") && n.attribute("class") == Some(class)).collect()
}

/// How many `tag` elements are inside `node`.
pub fn count(node: Node, tag: &str) -> usize {
    node.descendants().filter(|n| n.has_tag_name(tag)).count()
}

/// The aria-labels (text runs and series) in document order.
pub fn texts(doc: &Document) -> Vec<String> {
    texts_in(doc.root())
}

/// The aria-labels inside `node`.
pub fn texts_in(node: Node) -> Vec<String> {
    node.descendants().filter_map(|n| n.attribute("aria-label")).map(str::to_string).collect()
}

/// Checks every figure must pass: parses, an `<svg>` root of the chart's
/// size, glyph outlines instead of `<text>`, every `<use>` pointing at a
/// defined glyph.
pub fn check(svg: &str, size: (u32, u32)) {
    let doc = parse(svg);
    let root = doc.root_element();
    assert!(root.has_tag_name("svg"));
    assert_eq!(root.attribute("width"), Some(size.0.to_string().as_str()));
    assert_eq!(root.attribute("height"), Some(size.1.to_string().as_str()));
    assert!(!svg.contains("<text"), "a <text> element slipped through");
    for n in doc.descendants() {
        for a in n.attributes().filter(|a| a.name() != "aria-label" && a.name() != "href") {
            assert!(!a.value().contains("NaN") && !a.value().contains("inf"), "non-finite number in {a:?}");
        }
    }
    let defined: Vec<&str> =
        doc.descendants().filter(|n| n.has_tag_name("path")).filter_map(|n| n.attribute("id")).collect();
    for u in doc.descendants().filter(|n| n.has_tag_name("use")) {
        let href = u.attribute("href").expect("<use> without href");
        assert!(defined.contains(&&href[1..]), "{href} is not defined");
    }
}
