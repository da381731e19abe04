//! Whether a graph's speed axis fits the character that plays it: a blend space that
//! matches playback to a speed parameter places its gait clips at speeds, and a character
//! walking slower than the slowest of them sits between it and what is placed below (Idle).
//! A graph written for the mannequin (Walk at 1.75 m/s) on a rig half its size, walking
//! at 0.80 m/s, plays half Walk, half Idle: its feet shuffle half planted.

use super::def::{GraphDef, NodeDef};

/// A blend space whose slowest gait clip is placed above the character's walk speed by
/// more than [`SPEED_FIT_RATIO`].
#[derive(Clone, Debug, PartialEq)]
pub struct SpeedMisfit {
    /// The state whose node the blend space is (`None`: not in a state machine's state).
    pub state: Option<String>,
    /// The slowest clip placed above 0 on the matched axis (the first, of several there).
    pub clip: String,
    /// The speed parameter the blend space matches playback to.
    pub param: String,
    /// Where the graph places that clip (m/s).
    pub position_m_s: f32,
    /// The character's walk speed (m/s).
    pub walk_m_s: f32,
}

impl std::fmt::Display for SpeedMisfit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if let Some(state) = &self.state {
            write!(f, "state '{state}': ")?;
        }
        write!(
            f,
            "its gait clips on '{}' start at {:.2} m/s ('{}'), but the character walks at \
             {:.2} m/s: walking, the blend mixes in what is placed below them (Idle); scale \
             the graph's speeds to the character's (GraphDef::scale_param)",
            self.param, self.position_m_s, self.clip, self.walk_m_s
        )
    }
}

/// How far above the walk speed the slowest gait clip may be placed (factor).
pub const SPEED_FIT_RATIO: f32 = 1.25;

impl GraphDef {
    /// Each blend space that matches playback to one of its axes (`match_speed_param`)
    /// whose slowest clip placed above 0 on that axis is above `walk_m_s` ×
    /// [`SPEED_FIT_RATIO`]: walking, such a character plays a blend of that clip and what
    /// is below it. Nothing is judged for a walk speed that is not a finite number above 0.
    pub fn speed_misfits(&self, walk_m_s: f32) -> Vec<SpeedMisfit> {
        let mut out = Vec::new();
        if walk_m_s.is_finite() && walk_m_s > 0.0 {
            misfits_in(&self.base, None, walk_m_s, &mut out);
            for layer in &self.layers {
                misfits_in(&layer.node, None, walk_m_s, &mut out);
            }
        }
        out
    }
}

fn misfits_in(node: &NodeDef, state: Option<&str>, walk_m_s: f32, out: &mut Vec<SpeedMisfit>) {
    // Each sample as (clip, its place on the matched axis).
    let (param, placed): (&str, Vec<(&str, f32)>) = match node {
        NodeDef::Clip { .. } => return,
        NodeDef::StateMachine(machine) => {
            for inner in &machine.states {
                misfits_in(&inner.node, Some(&inner.name), walk_m_s, out);
            }
            return;
        }
        NodeDef::BlendSpace1D {
            param,
            samples,
            options,
        } => match options.match_speed_param.as_deref() {
            Some(speed) if speed == param => (
                speed,
                samples
                    .iter()
                    .map(|s| (s.clip.as_str(), s.position))
                    .collect(),
            ),
            _ => return,
        },
        NodeDef::BlendSpace2D {
            x_param,
            y_param,
            samples,
            options,
        } => {
            let Some(speed) = options.match_speed_param.as_deref() else {
                return;
            };
            let on_x = x_param == speed;
            if !on_x && y_param != speed {
                return;
            }
            let at = |p: (f32, f32)| if on_x { p.0 } else { p.1 };
            (
                speed,
                samples
                    .iter()
                    .map(|s| (s.clip.as_str(), at(s.position)))
                    .collect(),
            )
        }
    };
    let slowest = placed
        .into_iter()
        .filter(|(_, at)| at.is_finite() && *at > 0.0)
        .min_by(|a, b| a.1.total_cmp(&b.1));
    if let Some((clip, position_m_s)) = slowest {
        if position_m_s > walk_m_s * SPEED_FIT_RATIO {
            out.push(SpeedMisfit {
                state: state.map(str::to_owned),
                clip: clip.to_owned(),
                param: param.to_owned(),
                position_m_s,
                walk_m_s,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::graph::GraphDef;
    use crate::mannequin::{default_graph_def_on_rig, DEFAULT_GRAPH_RON};
    use crate::settings::CharacterSettings;

    /// The default graph fits the mannequin's walk; written as it is for a character half
    /// the size, both its standing and its crouched spaces are named; scaled to that size,
    /// none is.
    #[test]
    fn the_default_graph_fits_a_walk_only_at_its_size() {
        let walk = |size: f32| {
            CharacterSettings::default()
                .scaled(size)
                .unwrap()
                .motion
                .walk_speed_m_s
        };
        let as_written: GraphDef = ron::from_str(DEFAULT_GRAPH_RON).unwrap();
        assert_eq!(as_written.speed_misfits(walk(1.0)), []);

        let misfits = as_written.speed_misfits(walk(0.5));
        let clips: Vec<&str> = misfits.iter().map(|m| m.clip.as_str()).collect();
        assert!(
            clips.contains(&"Walk_F") || clips.contains(&"Walk_B"),
            "{clips:?}"
        );
        assert!(
            clips.iter().any(|c| c.starts_with("Crouch_Walk")),
            "{clips:?}"
        );
        let said = misfits[0].to_string();
        assert!(
            said.starts_with("state 'Locomotion': ")
                && said.contains("1.75")
                && said.contains("scale_param"),
            "{said}"
        );

        let on_rig = default_graph_def_on_rig(0.5, |name| Some(name.to_owned())).unwrap();
        assert_eq!(on_rig.speed_misfits(walk(0.5)), []);
        assert_eq!(as_written.speed_misfits(f32::NAN), []);
    }
}
