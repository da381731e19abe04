//! The landing impact over locomotion: a landing with horizontal speed does not stop the
//! legs. The graph goes straight back to its gait (the default graph's `Jump →
//! Locomotion` transition puts the leading foot down at its contact start), and this stage
//! dips the body over it — the pelvis drops and the trunk flexes, then both recover — so
//! the impact shows while the feet keep alternating. Foot IK, after it, bends the knees to
//! keep the feet on the ground. Landings slower than [`LandingImpactConfig::min_speed_m_s`]
//! are the graph's full-body `Land_*` clips and get no dip here.
//!
//! The dip is a function of the time since touch-down, `A · (t/τ) · e^(1 − t/τ)`: it leaves
//! touch-down moving down (the fall carries on into it), is deepest (`A`) at `τ`, and has
//! recovered to 4 % of it by `6τ`. Being a closed form of time, it is frame-rate
//! independent. `A` grows with the downward impact speed, up to a cap.

use crate::motion::Landing;

/// How landings with horizontal speed dip the body.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "reflect", derive(bevy_reflect::Reflect))]
#[serde(default, deny_unknown_fields)]
pub struct LandingImpactConfig {
    /// Landings at least this fast horizontally (m/s) dip over the gait; slower ones are
    /// left to the graph's full-body landing (the default graph's `Jump → Land` condition
    /// is `speed < 0.5`). Default 0.5.
    pub min_speed_m_s: f32,
    /// Pelvis dip per m/s of downward impact speed (s). Default 0.012: 6 cm at 5 m/s.
    pub dip_per_impact_s: f32,
    /// Deepest dip (m). Default 0.16.
    pub max_dip_m: f32,
    /// Time from touch-down to the deepest point (s). Default 0.09.
    pub time_to_bottom_s: f32,
    /// Trunk flex forward per metre of dip (rad/m). Default 1.2: 11° at 16 cm.
    pub trunk_flex_per_dip_rad_per_m: f32,
}

impl Default for LandingImpactConfig {
    fn default() -> Self {
        Self {
            min_speed_m_s: 0.5,
            dip_per_impact_s: 0.012,
            max_dip_m: 0.16,
            time_to_bottom_s: 0.09,
            trunk_flex_per_dip_rad_per_m: 1.2,
        }
    }
}

impl LandingImpactConfig {
    /// NaN → default, negatives → 0, the bottom time at least 10 ms.
    pub fn sanitized(&self) -> Self {
        let d = Self::default();
        let pick = |v: f32, fallback: f32| if v.is_nan() { fallback } else { v.max(0.0) };
        Self {
            min_speed_m_s: pick(self.min_speed_m_s, d.min_speed_m_s),
            dip_per_impact_s: pick(self.dip_per_impact_s, d.dip_per_impact_s),
            max_dip_m: pick(self.max_dip_m, d.max_dip_m).min(1.0),
            time_to_bottom_s: pick(self.time_to_bottom_s, d.time_to_bottom_s).max(0.01),
            trunk_flex_per_dip_rad_per_m: pick(
                self.trunk_flex_per_dip_rad_per_m,
                d.trunk_flex_per_dip_rad_per_m,
            ),
        }
    }
}

/// What the impact does to the pose this tick.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ImpactOutput {
    /// Pelvis lowered by this much (m, ≥ 0).
    pub pelvis_drop_m: f32,
    /// Trunk flexed forward by this much (rad, ≥ 0).
    pub trunk_flex_rad: f32,
}

/// The landing impact stage of one character: plain `Copy` state.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct LandingImpact {
    /// Depth of the current dip (m) and the time since its touch-down (s); `None` when
    /// no dip is playing.
    dip: Option<(f32, f32)>,
}

/// The dip's shape at `t` over its bottom time `tau`: 0 at touch-down, 1 at `tau`.
fn dip_shape(t_s: f32, tau_s: f32) -> f32 {
    let u = (t_s / tau_s).max(0.0);
    u * (1.0 - u).exp()
}

/// After this many bottom times the dip has recovered (4 % of its depth) and stops.
const RECOVERED_AFTER_TAU: f32 = 6.0;

impl LandingImpact {
    /// One tick: a `landing` this tick at `horizontal_speed_m_s` starts a dip (deeper of it
    /// and what is left of one playing); the dip plays out over the following ticks.
    /// Leaving the ground ends it. Never panics; every output is finite.
    pub fn update(
        &mut self,
        config: &LandingImpactConfig,
        landing: Option<Landing>,
        horizontal_speed_m_s: f32,
        grounded: bool,
        dt_s: f32,
    ) -> ImpactOutput {
        let config = config.sanitized();
        let tau = config.time_to_bottom_s;
        let dt = if dt_s.is_finite() { dt_s.max(0.0) } else { 0.0 };
        if !grounded {
            self.dip = None;
        }
        if let Some((depth, t)) = &mut self.dip {
            *t += dt;
            if *t >= RECOVERED_AFTER_TAU * tau || !depth.is_finite() {
                self.dip = None;
            }
        }
        let moving =
            horizontal_speed_m_s.is_finite() && horizontal_speed_m_s >= config.min_speed_m_s;
        if let (Some(landing), true, true) = (landing, moving, grounded) {
            let impact = if landing.impact_speed_m_s.is_finite() {
                landing.impact_speed_m_s.max(0.0)
            } else {
                0.0
            };
            let depth = (config.dip_per_impact_s * impact).min(config.max_dip_m);
            let left = self.dip.map_or(0.0, |(d, t)| d * dip_shape(t, tau));
            if depth > left {
                self.dip = Some((depth, 0.0));
            }
        }
        match self.dip {
            Some((depth, t)) => {
                let drop = depth * dip_shape(t, tau);
                ImpactOutput {
                    pelvis_drop_m: drop,
                    trunk_flex_rad: drop * config.trunk_flex_per_dip_rad_per_m,
                }
            }
            None => ImpactOutput::default(),
        }
    }

    /// Back to rest (spawn, teleport).
    pub fn reset(&mut self) {
        self.dip = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::motion::LandingGrade;

    fn landing(impact_m_s: f32) -> Option<Landing> {
        Some(Landing {
            grade: LandingGrade::from_impact(impact_m_s, 5.0),
            impact_speed_m_s: impact_m_s,
        })
    }

    /// The dip over `seconds` at `hz` after a landing at t = 0.
    fn run(hz: f32, impact: f32, speed: f32, seconds: f32) -> Vec<(f32, ImpactOutput)> {
        let config = LandingImpactConfig::default();
        let mut stage = LandingImpact::default();
        let dt = 1.0 / hz;
        (0..(seconds * hz) as usize)
            .map(|i| {
                let l = if i == 0 { landing(impact) } else { None };
                (i as f32 * dt, stage.update(&config, l, speed, true, dt))
            })
            .collect()
    }

    #[test]
    fn a_moving_landing_dips_by_its_impact_and_recovers() {
        let ticks = run(60.0, 8.0, 3.75, 1.0);
        let deepest = ticks
            .iter()
            .map(|(_, o)| o.pelvis_drop_m)
            .fold(0.0, f32::max);
        // 0.012 s × 8 m/s = 9.6 cm, at about 0.09 s.
        assert!((deepest - 0.096).abs() < 0.002, "{deepest}");
        let bottom = ticks
            .iter()
            .find(|(_, o)| o.pelvis_drop_m == deepest)
            .unwrap()
            .0;
        assert!((bottom - 0.09).abs() <= 1.0 / 60.0, "{bottom}");
        assert!(ticks[0].1.pelvis_drop_m == 0.0, "touch-down starts from 0");
        let last = ticks.last().unwrap().1;
        assert_eq!(last, ImpactOutput::default(), "recovered within a second");
        assert!(ticks.iter().all(|(_, o)| o.trunk_flex_rad >= 0.0));
        // A 3 m drop's impact is capped.
        let heavy = run(60.0, 12.0, 1.75, 0.5);
        let deepest = heavy
            .iter()
            .map(|(_, o)| o.pelvis_drop_m)
            .fold(0.0, f32::max);
        assert!(deepest <= 0.16 + 1e-6 && deepest > 0.14, "{deepest}");
    }

    #[test]
    fn standing_landings_and_the_air_get_no_dip() {
        assert!(run(60.0, 8.0, 0.2, 1.0)
            .iter()
            .all(|(_, o)| *o == ImpactOutput::default()));
        let config = LandingImpactConfig::default();
        let mut stage = LandingImpact::default();
        stage.update(&config, landing(8.0), 3.0, true, 1.0 / 60.0);
        stage.update(&config, None, 3.0, true, 1.0 / 60.0);
        let airborne = stage.update(&config, None, 3.0, false, 1.0 / 60.0);
        assert_eq!(airborne, ImpactOutput::default());
        // Garbage in, finite out.
        let out = stage.update(&config, landing(f32::NAN), f32::INFINITY, true, f32::NAN);
        assert!(out.pelvis_drop_m.is_finite() && out.trunk_flex_rad.is_finite());
    }

    #[test]
    fn the_dip_is_the_same_at_30_60_and_144_hz() {
        let at = |hz: f32, t: f32| {
            run(hz, 6.0, 3.0, 0.6)
                .iter()
                .min_by(|a, b| (a.0 - t).abs().total_cmp(&(b.0 - t).abs()))
                .unwrap()
                .1
                .pelvis_drop_m
        };
        for t in [0.1, 0.2, 0.3] {
            let reference = at(144.0, t);
            for hz in [30.0, 60.0] {
                // Sampled at the nearest tick: within what the shape moves in half a tick.
                assert!((at(hz, t) - reference).abs() < 0.006, "{hz} Hz at {t} s");
            }
        }
    }
}
