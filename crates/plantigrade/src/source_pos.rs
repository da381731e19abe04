//! Positions in the RON files the library loads (graphs, courses, configs), so every load
//! error can say "line L, column C: problem".

/// A 1-based line and column in a source file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SourcePos {
    pub line: usize,
    pub col: usize,
}

impl std::fmt::Display for SourcePos {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "line {}, column {}", self.line, self.col)
    }
}

impl SourcePos {
    /// Where a RON syntax error starts.
    pub fn of_ron_error(error: &ron::error::SpannedError) -> Self {
        Self {
            line: error.span.start.line,
            col: error.span.start.col,
        }
    }

    /// Where the `nth` (0-based) string literal `"text"` starts in `source`, pointing just
    /// inside the opening quote and `offset_chars` further (e.g. to a token inside an
    /// expression). Serde gives no spans for values, so semantic errors (an unknown clip, a
    /// duplicate name) are placed by the name they are about.
    pub fn of_quoted(source: &str, text: &str, nth: usize, offset_chars: usize) -> Option<Self> {
        let needle = format!("\"{text}\"");
        let byte = source.match_indices(&needle).nth(nth)?.0 + 1;
        let before = &source[..byte];
        let line = before.matches('\n').count() + 1;
        let line_start = before.rfind('\n').map_or(0, |i| i + 1);
        let col = source[line_start..byte].chars().count() + 1 + offset_chars;
        Some(Self { line, col })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_nth_literal_with_an_offset() {
        let src = "a: \"x\",\n  b: \"yy\", c: \"x\"";
        assert_eq!(
            SourcePos::of_quoted(src, "x", 0, 0),
            Some(SourcePos { line: 1, col: 5 })
        );
        assert_eq!(
            SourcePos::of_quoted(src, "x", 1, 0),
            Some(SourcePos { line: 2, col: 16 })
        );
        assert_eq!(
            SourcePos::of_quoted(src, "yy", 0, 1),
            Some(SourcePos { line: 2, col: 8 })
        );
        assert_eq!(SourcePos::of_quoted(src, "z", 0, 0), None);
        assert_eq!(
            SourcePos { line: 3, col: 9 }.to_string(),
            "line 3, column 9"
        );
    }
}
