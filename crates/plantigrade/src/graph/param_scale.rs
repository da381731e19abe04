//! A graph definition moved to another scale along one parameter: the places on a blend
//! space's axis and the numbers a transition compares it with. A graph authored for the
//! mannequin's speeds (Walk at 1.75 m/s) then fits a rig half its size, whose clips and
//! movement are half as fast: left as it was, such a rig walking at its own walk speed sits
//! half way between Idle and Walk, shuffling with its feet blended half planted.

use super::def::{GraphDef, NodeDef};

impl GraphDef {
    /// Every value of the float parameter `param` this definition names, times `factor`:
    /// positions along `param` in blend spaces (and a wrapping axis's range) and the
    /// numbers compared with `param` in transition conditions (`speed < 0.5`,
    /// `2.5 <= speed`). Other parameters, times and weights are left alone. A factor that
    /// is not a finite number above 0 changes nothing.
    pub fn scale_param(&mut self, param: &str, factor: f32) {
        if !(factor.is_finite() && factor > 0.0) {
            return;
        }
        scale_node(&mut self.base, param, factor);
        for layer in &mut self.layers {
            scale_node(&mut layer.node, param, factor);
        }
    }
}

fn scale_node(node: &mut NodeDef, param: &str, factor: f32) {
    match node {
        NodeDef::Clip { .. } => {}
        NodeDef::BlendSpace1D {
            param: axis,
            samples,
            ..
        } => {
            if axis == param {
                for sample in samples {
                    sample.position *= factor;
                }
            }
        }
        NodeDef::BlendSpace2D {
            x_param,
            y_param,
            samples,
            options,
        } => {
            let (x, y) = (x_param == param, y_param == param);
            for sample in samples {
                if x {
                    sample.position.0 *= factor;
                }
                if y {
                    sample.position.1 *= factor;
                }
            }
            if let (true, Some((low, high))) = (x, options.x_wraps.as_mut()) {
                *low *= factor;
                *high *= factor;
            }
        }
        NodeDef::StateMachine(machine) => {
            for state in &mut machine.states {
                scale_node(&mut state.node, param, factor);
            }
            for transition in &mut machine.transitions {
                if let Some(condition) = transition.condition.as_mut() {
                    *condition = scale_comparisons(condition, param, factor);
                }
            }
        }
    }
}

/// One piece of a condition: where it is in the text and what it is.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Token {
    Name,
    Number,
    Comparison,
    Minus,
    Other,
}

/// `condition` with every number compared with `param` (either side of `<`, `<=`, `>`,
/// `>=`, `==`, `!=`) times `factor`; the rest of the text as it was.
fn scale_comparisons(condition: &str, param: &str, factor: f32) -> String {
    let tokens = tokenize(condition);
    let text = |i: usize| &condition[tokens[i].1.clone()];
    let is = |i: usize, kind: Token| tokens.get(i).is_some_and(|t| t.0 == kind);
    let is_param = |i: usize| is(i, Token::Name) && text(i) == param;
    let mut scaled: Vec<usize> = Vec::new();
    for i in 0..tokens.len() {
        if !is(i, Token::Comparison) {
            continue;
        }
        // `param OP [-]number`
        if i > 0 && is_param(i - 1) {
            let number = if is(i + 1, Token::Minus) {
                i + 2
            } else {
                i + 1
            };
            if is(number, Token::Number) {
                scaled.push(number);
            }
        }
        // `[-]number OP param`
        if i > 0 && is(i - 1, Token::Number) && is_param(i + 1) {
            scaled.push(i - 1);
        }
    }
    let mut out = String::with_capacity(condition.len() + 8);
    let mut at = 0;
    for i in scaled {
        let span = tokens[i].1.clone();
        let Ok(value) = condition[span.clone()].parse::<f32>() else {
            continue;
        };
        out.push_str(&condition[at..span.start]);
        out.push_str(&format!("{}", value * factor));
        at = span.end;
    }
    out.push_str(&condition[at..]);
    out
}

/// The condition's names, numbers, comparisons and minus signs (anything else one
/// character at a time), with their byte ranges; white space is skipped.
fn tokenize(condition: &str) -> Vec<(Token, std::ops::Range<usize>)> {
    let bytes = condition.as_bytes();
    let mut tokens = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        let start = i;
        let kind = if c.is_ascii_whitespace() {
            i += 1;
            continue;
        } else if c.is_ascii_alphabetic() || c == b'_' {
            while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
                i += 1;
            }
            Token::Name
        } else if c.is_ascii_digit() || c == b'.' {
            while i < bytes.len() && (bytes[i].is_ascii_digit() || bytes[i] == b'.') {
                i += 1;
            }
            Token::Number
        } else if matches!(c, b'<' | b'>' | b'=' | b'!') {
            i += 1;
            if bytes.get(i) == Some(&b'=') {
                i += 1;
            }
            // `!` alone is a negation, `=` alone is not an operator: neither compares.
            if i - start == 1 && matches!(c, b'!' | b'=') {
                Token::Other
            } else {
                Token::Comparison
            }
        } else if c == b'-' {
            i += 1;
            Token::Minus
        } else {
            // One character (a multi-byte one whole, so ranges stay on char boundaries).
            i += condition[i..].chars().next().map_or(1, char::len_utf8);
            Token::Other
        };
        tokens.push((kind, start..i));
    }
    tokens
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::def::{
        BlendSpaceOptions, Sample2D, StateDef, StateMachineDef, TransitionDef,
    };

    #[test]
    fn numbers_compared_with_the_parameter_scale_and_nothing_else_does() {
        let scale = |c: &str| scale_comparisons(c, "speed", 0.5);
        assert_eq!(
            scale("is_grounded && speed < 0.5"),
            "is_grounded && speed < 0.25"
        );
        assert_eq!(
            scale("hips_back && speed > 2.5"),
            "hips_back && speed > 1.25"
        );
        assert_eq!(scale("2 <= speed"), "1 <= speed");
        assert_eq!(scale("speed >= -4"), "speed >= -2");
        // Other parameters, even ones whose name contains it, and arithmetic stay.
        assert_eq!(scale("input_speed > 2.0"), "input_speed > 2.0");
        assert_eq!(
            scale("speed_x > 2.0 && !moving"),
            "speed_x > 2.0 && !moving"
        );
        assert_eq!(scale("speed != 3"), "speed != 1.5");
        assert_eq!(scale("aiming"), "aiming");
    }

    #[test]
    fn blend_space_places_along_the_parameter_scale() {
        let space = NodeDef::BlendSpace2D {
            x_param: "direction".into(),
            y_param: "speed".into(),
            samples: vec![Sample2D {
                clip: "Walk".into(),
                position: (45.0, 1.75),
                start_phase: None,
            }],
            options: BlendSpaceOptions::default(),
        };
        let mut def = GraphDef {
            parameters: Vec::new(),
            base: NodeDef::StateMachine(StateMachineDef {
                initial: "Locomotion".into(),
                states: vec![StateDef {
                    name: "Locomotion".into(),
                    node: space,
                }],
                transitions: vec![TransitionDef {
                    from: "*".into(),
                    to: "Locomotion".into(),
                    condition: Some("speed > 2.5".into()),
                    ..ron::from_str("(from: \"*\", to: \"Locomotion\")").unwrap()
                }],
            }),
            layers: Vec::new(),
            root_motion: Default::default(),
        };
        let mut half = def.clone();
        half.scale_param("speed", 0.5);
        let NodeDef::StateMachine(machine) = &half.base else {
            unreachable!()
        };
        let NodeDef::BlendSpace2D { samples, .. } = &machine.states[0].node else {
            unreachable!()
        };
        assert_eq!(samples[0].position, (45.0, 0.875));
        assert_eq!(
            machine.transitions[0].condition.as_deref(),
            Some("speed > 1.25")
        );
        // A bad factor changes nothing.
        let before = def.clone();
        def.scale_param("speed", f32::NAN);
        def.scale_param("speed", 0.0);
        assert_eq!(def, before);
    }
}
