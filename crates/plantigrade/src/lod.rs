//! LOD tiers for the procedural pass (SPEC IK-11): by distance from the viewer, a character
//! runs foot IK and tilt in full, with half the ground probes, or not at all.
//!
//! - [`LodTier::Full`] (default ≤ 6 m): every foot is probed every tick.
//! - [`LodTier::Reduced`] (default ≤ 30 m): one foot per tick, alternating, so each foot's
//!   probe result is at most one tick older than in `Full`.
//! - [`LodTier::Off`] (beyond): no probes; the procedural pass fades out (foot IK, and
//!   the pelvis tilt, landing dip and lean with it), then does not run.
//!
//! Switching never pops: the tier boundaries have hysteresis (a character standing on a
//! boundary does not flicker between tiers), and the procedural pass is blended by
//! [`Lod::procedural_weight`], which ramps linearly to 0 when the tier becomes `Off` and back
//! to 1 when it leaves `Off`, over [`LodConfig::blend_time_s`]. The ramp is linear in time, so
//! it is exactly frame-rate independent and no tick changes the weight by more than
//! `dt / blend_time`. Plain `Copy` data, no allocation, never panics.
//!
//! The tier also paces the animation graph (SPEC PERF-5): every tick in `Full`, every
//! [`LodConfig::graph_every_reduced_ticks`] in `Reduced` and every
//! [`LodConfig::graph_every_off_ticks`] in `Off`, the poses between interpolated; and,
//! when [`LodConfig::ground_follow_when_off`] is set, an `Off` character moves by the cheap
//! [`crate::world::GroundFollow`] instead of the full mover.

use glam::Vec3;

use crate::bone_map::HumanoidMap;
use crate::skeleton::Skeleton;

/// Default outer edge of [`LodTier::Full`] (metres from the viewer).
pub const DEFAULT_FULL_MAX_DISTANCE_M: f32 = 6.0;
/// Default outer edge of [`LodTier::Reduced`] (metres from the viewer).
pub const DEFAULT_REDUCED_MAX_DISTANCE_M: f32 = 30.0;
/// Default width of the hysteresis band around each tier edge (metres).
pub const DEFAULT_HYSTERESIS_M: f32 = 0.5;
/// Default time for the procedural weight to ramp between 0 and 1 (seconds).
pub const DEFAULT_BLEND_TIME_S: f32 = 0.25;
/// Default ticks per graph update in [`LodTier::Reduced`].
pub const DEFAULT_GRAPH_EVERY_REDUCED_TICKS: u32 = 2;
/// Default ticks per graph update in [`LodTier::Off`].
pub const DEFAULT_GRAPH_EVERY_OFF_TICKS: u32 = 4;
/// Most ticks one graph update may cover.
pub const MAX_GRAPH_EVERY_TICKS: u32 = 8;

/// The joints of a rig no one sees on a far character, for
/// [`crate::settings::CharacterSettings::lod_culled_joints`]: everything below each hand
/// (fingers) and the twist bones (a name with "twist" in it), leaving out any joint that
/// is, or holds up, a bone of `bones`. In skeleton order.
pub fn suggested_culled_joints(skeleton: &Skeleton, bones: &HumanoidMap) -> Vec<String> {
    let mapped = bones.joints();
    let hands: Vec<usize> = bones.arms.iter().filter_map(|arm| arm.hand).collect();
    (0..skeleton.num_joints())
        .filter(|&joint| {
            let below_hand = hands
                .iter()
                .any(|&hand| hand != joint && skeleton.is_ancestor_or_self(hand, joint));
            let twist = skeleton.name(joint).to_ascii_lowercase().contains("twist");
            let holds_up_map = mapped
                .iter()
                .any(|&m| skeleton.is_ancestor_or_self(joint, m));
            (below_hand || twist) && !holds_up_map && skeleton.parent(joint).is_some()
        })
        .map(|joint| skeleton.name(joint).to_owned())
        .collect()
}

/// How much of the procedural pass (foot IK probes, tilt rays) a character gets.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum LodTier {
    /// Both feet probed every tick.
    Full,
    /// One foot probed per tick, alternating.
    Reduced,
    /// No probes; the procedural weight fades to 0.
    Off,
}

/// Settings of [`Lod`]. Serde with defaults for missing fields.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "reflect", derive(bevy_reflect::Reflect))]
#[serde(default, deny_unknown_fields)]
pub struct LodConfig {
    /// Outer edge of [`LodTier::Full`], metres from the viewer. Default 6.
    pub full_max_distance_m: f32,
    /// Outer edge of [`LodTier::Reduced`], metres from the viewer; beyond it the tier is
    /// `Off`. Default 30. Below `full_max_distance_m` it is raised to it (no reduced band).
    pub reduced_max_distance_m: f32,
    /// Width of the band around each edge in which the tier does not change (metres): a
    /// character leaves a nearer tier only beyond `edge + hysteresis / 2` and comes back
    /// only within `edge − hysteresis / 2`. Default 0.5, so 6.0 ± 0.05 m never flickers.
    pub hysteresis_m: f32,
    /// Time for [`Lod::procedural_weight`] to ramp fully between 0 and 1 (seconds). Default
    /// 0.25. 0 switches instantly.
    pub blend_time_s: f32,
    /// In [`LodTier::Reduced`] the animation graph runs once every this many ticks, for
    /// all of them at once, and the pose moves toward its result over those ticks
    /// (SPEC PERF-5). Default 2; 1 runs it every tick; at most [`MAX_GRAPH_EVERY_TICKS`].
    pub graph_every_reduced_ticks: u32,
    /// The same in [`LodTier::Off`]. Default 4.
    pub graph_every_off_ticks: u32,
    /// In [`LodTier::Off`], move by [`crate::world::GroundFollow`] (one ray down, the slope
    /// limit, no walls beyond what that ray meets, no step-up search) instead of the
    /// world's mover. Default false: a far character may then pass through a wall the
    /// full mover stops, so a host opts in (a crowd whose far characters are seen only).
    pub ground_follow_when_off: bool,
}

impl Default for LodConfig {
    fn default() -> Self {
        Self {
            full_max_distance_m: DEFAULT_FULL_MAX_DISTANCE_M,
            reduced_max_distance_m: DEFAULT_REDUCED_MAX_DISTANCE_M,
            hysteresis_m: DEFAULT_HYSTERESIS_M,
            blend_time_s: DEFAULT_BLEND_TIME_S,
            graph_every_reduced_ticks: DEFAULT_GRAPH_EVERY_REDUCED_TICKS,
            graph_every_off_ticks: DEFAULT_GRAPH_EVERY_OFF_TICKS,
            ground_follow_when_off: false,
        }
    }
}

impl LodConfig {
    /// This config made usable: NaN fields take their defaults, negative ones become 0,
    /// and `reduced_max_distance_m` is raised to `full_max_distance_m` if below it.
    /// Infinite edges are kept (an infinite `full_max_distance_m` means always `Full`).
    pub fn sanitized(&self) -> Self {
        let non_negative = |value: f32, default: f32| {
            if value.is_nan() {
                default
            } else {
                value.max(0.0)
            }
        };
        let full_max_distance_m =
            non_negative(self.full_max_distance_m, DEFAULT_FULL_MAX_DISTANCE_M);
        let reduced_max_distance_m =
            non_negative(self.reduced_max_distance_m, DEFAULT_REDUCED_MAX_DISTANCE_M)
                .max(full_max_distance_m);
        let hysteresis_m = non_negative(self.hysteresis_m, DEFAULT_HYSTERESIS_M);
        Self {
            full_max_distance_m,
            reduced_max_distance_m,
            // An infinite band would freeze the first tier forever; keep it finite.
            hysteresis_m: if hysteresis_m.is_finite() {
                hysteresis_m
            } else {
                DEFAULT_HYSTERESIS_M
            },
            blend_time_s: non_negative(self.blend_time_s, DEFAULT_BLEND_TIME_S),
            graph_every_reduced_ticks: self
                .graph_every_reduced_ticks
                .clamp(1, MAX_GRAPH_EVERY_TICKS),
            graph_every_off_ticks: self.graph_every_off_ticks.clamp(1, MAX_GRAPH_EVERY_TICKS),
            ground_follow_when_off: self.ground_follow_when_off,
        }
    }

    /// Ticks per animation graph update in `tier` (1 in `Full`), sanitized.
    pub fn graph_every_ticks(&self, tier: LodTier) -> u32 {
        let every = match tier {
            LodTier::Full => 1,
            LodTier::Reduced => self.graph_every_reduced_ticks,
            LodTier::Off => self.graph_every_off_ticks,
        };
        every.clamp(1, MAX_GRAPH_EVERY_TICKS)
    }

    /// The tier for `distance_m` when the character is currently in `current`, with
    /// hysteresis. `distance_m` must not be NaN; the config must be sanitized.
    fn classify(&self, distance_m: f32, current: LodTier) -> LodTier {
        let half_band = 0.5 * self.hysteresis_m;
        // Each edge sits farther out while the character is on its near side, nearer in
        // while it is on its far side: crossing it takes a move of the full band.
        let full_edge = if current == LodTier::Full {
            self.full_max_distance_m + half_band
        } else {
            self.full_max_distance_m - half_band
        };
        let reduced_edge = if current == LodTier::Off {
            self.reduced_max_distance_m - half_band
        } else {
            self.reduced_max_distance_m + half_band
        };
        if distance_m <= full_edge {
            LodTier::Full
        } else if distance_m <= reduced_edge {
            LodTier::Reduced
        } else {
            LodTier::Off
        }
    }
}

/// Distance (metres) from the character to the viewer (camera), both in **world** space.
/// NaN if either point is not finite: [`Lod::update`] then keeps the current tier.
pub fn distance_to_viewer(character_world: Vec3, viewer_world: Vec3) -> f32 {
    if character_world.is_finite() && viewer_world.is_finite() {
        character_world.distance(viewer_world)
    } else {
        f32::NAN
    }
}

/// LOD state of one character: the tier, the procedural weight and the probe alternation.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Lod {
    /// Settings, sanitized on use.
    pub config: LodConfig,
    tier: LodTier,
    weight: f32,
    /// Which foot parity `Reduced` probes this tick (0 or 1); flips every update.
    phase: u8,
    /// False until the first usable distance: that one sets the tier and weight directly
    /// (a character spawned far away starts `Off` instead of fading out).
    placed: bool,
}

impl Default for Lod {
    fn default() -> Self {
        Self::new(LodConfig::default())
    }
}

impl Lod {
    /// A fresh state: `Full` with weight 1 until the first [`Lod::update`] with a usable
    /// distance, which places the character in its tier without a fade.
    pub fn new(config: LodConfig) -> Self {
        Self {
            config,
            tier: LodTier::Full,
            weight: 1.0,
            phase: 0,
            placed: false,
        }
    }

    /// Advances one tick: picks the tier for `distance_m` (metres from the viewer, see
    /// [`distance_to_viewer`]) with hysteresis, ramps the procedural weight toward 1 (`Full`,
    /// `Reduced`) or 0 (`Off`) by `dt_s / blend_time_s`, and flips the foot alternation.
    /// Returns the tier.
    ///
    /// Fallbacks: a NaN distance keeps the tier; a negative one counts as 0; +∞ is `Off`.
    /// `dt_s` that is NaN, ∞ or ≤ 0 leaves the weight where it is (the tier still updates
    /// and the alternation still flips, as a tick still happened).
    pub fn update(&mut self, distance_m: f32, dt_s: f32) -> LodTier {
        let config = self.config.sanitized();
        self.phase ^= 1;
        if !distance_m.is_nan() {
            let distance_m = distance_m.max(0.0);
            if self.placed {
                self.tier = config.classify(distance_m, self.tier);
            } else {
                // No history yet: the plain edges, no band.
                self.tier = LodConfig {
                    hysteresis_m: 0.0,
                    ..config
                }
                .classify(distance_m, LodTier::Full);
                self.weight = self.target_weight();
                self.placed = true;
                return self.tier;
            }
        }
        if dt_s.is_finite() && dt_s > 0.0 {
            let target = self.target_weight();
            let step = if config.blend_time_s > 0.0 {
                dt_s / config.blend_time_s
            } else {
                f32::INFINITY
            };
            self.weight = if self.weight < target {
                (self.weight + step).min(target)
            } else {
                (self.weight - step).max(target)
            };
        }
        self.tier
    }

    /// The current tier.
    pub fn tier(&self) -> LodTier {
        self.tier
    }

    /// Blend weight of the procedural pass in `[0, 1]`: 1 in `Full` and `Reduced` once the
    /// ramp is done, 0 in `Off`. Multiply the IK and tilt corrections by it.
    pub fn procedural_weight(&self) -> f32 {
        self.weight
    }

    /// Whether foot `foot_index` (0 = left, 1 = right) should be probed this tick. `Full`:
    /// every foot; `Reduced`: feet whose index parity matches this tick's (exactly one of
    /// two feet, alternating every [`Lod::update`]); `Off`: none once faded out, and like
    /// `Reduced` while the IK still fades out (so the fade follows the ground, not the
    /// last planes). Feet not probed keep their last result (one tick old in `Reduced`,
    /// which the look-ahead covers).
    pub fn probe_foot_this_tick(&self, foot_index: usize) -> bool {
        let alternate = (foot_index % 2) as u8 == self.phase;
        match self.tier {
            LodTier::Full => true,
            LodTier::Reduced => alternate,
            LodTier::Off => self.weight > 0.0 && alternate,
        }
    }

    /// Ground probes this tick for a two-footed character that casts
    /// `full_probes_per_foot` rays per probed foot (for reporting): `Full` 2×, `Reduced`
    /// 1×, `Off` 1× while fading out, then 0.
    pub fn probes_per_tick(&self, full_probes_per_foot: usize) -> usize {
        match self.tier {
            LodTier::Full => full_probes_per_foot.saturating_mul(2),
            LodTier::Reduced => full_probes_per_foot,
            LodTier::Off if self.weight > 0.0 => full_probes_per_foot,
            LodTier::Off => 0,
        }
    }

    fn target_weight(&self) -> f32 {
        match self.tier {
            LodTier::Full | LodTier::Reduced => 1.0,
            LodTier::Off => 0.0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DT: f32 = 1.0 / 60.0;

    fn placed_at(distance_m: f32) -> Lod {
        let mut lod = Lod::default();
        lod.update(distance_m, DT);
        lod
    }

    #[test]
    fn default_thresholds_pick_the_tier() {
        for (distance_m, tier) in [
            (0.0, LodTier::Full),
            (5.9, LodTier::Full),
            (6.0, LodTier::Full),
            (6.1, LodTier::Reduced),
            (29.9, LodTier::Reduced),
            (30.0, LodTier::Reduced),
            (30.1, LodTier::Off),
            (f32::INFINITY, LodTier::Off),
            (-3.0, LodTier::Full),
        ] {
            let lod = placed_at(distance_m);
            assert_eq!(lod.tier(), tier, "at {distance_m} m");
            // The first placement does not fade.
            let weight = if tier == LodTier::Off { 0.0 } else { 1.0 };
            assert_eq!(lod.procedural_weight(), weight, "at {distance_m} m");
        }
    }

    #[test]
    fn hysteresis_stops_flicker_on_an_edge() {
        // Oscillating 6.0 ± 0.05 m every tick, starting on either side.
        for start in [5.95, 6.05] {
            let mut lod = placed_at(start);
            let first = lod.tier();
            for i in 0..200 {
                let d = if i % 2 == 0 { 6.05 } else { 5.95 };
                assert_eq!(lod.update(d, DT), first, "tick {i}");
            }
        }
        // Leaving Full needs 6 + 0.25; coming back needs 6 − 0.25.
        let mut lod = placed_at(5.0);
        assert_eq!(lod.update(6.24, DT), LodTier::Full);
        assert_eq!(lod.update(6.26, DT), LodTier::Reduced);
        assert_eq!(lod.update(5.76, DT), LodTier::Reduced);
        assert_eq!(lod.update(5.74, DT), LodTier::Full);
        // Same around 30 m, and a jump straight across both edges.
        assert_eq!(lod.update(30.24, DT), LodTier::Reduced);
        assert_eq!(lod.update(30.26, DT), LodTier::Off);
        assert_eq!(lod.update(29.76, DT), LodTier::Off);
        assert_eq!(lod.update(29.74, DT), LodTier::Reduced);
        assert_eq!(lod.update(100.0, DT), LodTier::Off);
        assert_eq!(lod.update(1.0, DT), LodTier::Full);
    }

    #[test]
    fn reduced_alternates_feet_full_probes_both_off_none() {
        let mut lod = placed_at(10.0);
        assert_eq!(lod.tier(), LodTier::Reduced);
        let mut probed = [0usize; 2];
        let mut previous: Option<usize> = None;
        for _ in 0..10 {
            lod.update(10.0, DT);
            let feet: Vec<usize> = (0..2).filter(|&f| lod.probe_foot_this_tick(f)).collect();
            assert_eq!(feet.len(), 1, "exactly one foot per tick");
            assert_ne!(Some(feet[0]), previous, "alternates");
            previous = Some(feet[0]);
            probed[feet[0]] += 1;
        }
        assert_eq!(probed, [5, 5]);
        assert_eq!(lod.probes_per_tick(3), 3);

        lod.update(2.0, DT);
        assert!(lod.probe_foot_this_tick(0) && lod.probe_foot_this_tick(1));
        assert_eq!(lod.probes_per_tick(3), 6);

        // Off: one foot per tick while the IK fades out, then none.
        lod.update(50.0, DT);
        assert_eq!(lod.tier(), LodTier::Off);
        assert!(lod.procedural_weight() > 0.0);
        let feet = (0..2).filter(|&f| lod.probe_foot_this_tick(f)).count();
        assert_eq!(feet, 1);
        assert_eq!(lod.probes_per_tick(3), 3);
        for _ in 0..60 {
            lod.update(50.0, DT);
        }
        assert_eq!(lod.procedural_weight(), 0.0);
        assert!(!lod.probe_foot_this_tick(0) && !lod.probe_foot_this_tick(1));
        assert_eq!(lod.probes_per_tick(3), 0);
    }

    #[test]
    fn weight_ramps_without_steps_at_any_rate() {
        for hz in [30.0f32, 60.0, 144.0] {
            let dt = 1.0 / hz;
            let max_step = dt / DEFAULT_BLEND_TIME_S;
            let mut lod = placed_at(3.0);
            let mut previous = lod.procedural_weight();
            let mut ticks_to_zero = None;
            // Out to 40 m for 0.5 s, back to 3 m.
            for tick in 0..(hz as usize) {
                let d = if tick < (hz as usize) / 2 { 40.0 } else { 3.0 };
                lod.update(d, dt);
                let w = lod.procedural_weight();
                assert!((0.0..=1.0).contains(&w));
                assert!(
                    (w - previous).abs() <= max_step + 1e-6,
                    "{hz} Hz tick {tick}: {previous} → {w}"
                );
                if w == 0.0 && ticks_to_zero.is_none() {
                    ticks_to_zero = Some(tick + 1);
                }
                previous = w;
            }
            // 0.25 s to fade out: 7.5 ticks at 30 Hz → 8, 15 at 60, 36 at 144.
            let expected = (0.25 * hz).ceil() as usize;
            let got = ticks_to_zero.unwrap();
            assert!(got == expected || got == expected + 1, "{hz} Hz: {got}");
            assert_eq!(lod.procedural_weight(), 1.0, "{hz} Hz back to full");
        }
        // Halfway through the fade the weight is 0.5 at every rate (linear in time).
        for hz in [30.0f32, 60.0, 144.0] {
            let mut lod = placed_at(3.0);
            let ticks = (0.125 * hz).round() as usize;
            let dt = 0.125 / ticks as f32;
            for _ in 0..ticks {
                lod.update(40.0, dt);
            }
            assert!((lod.procedural_weight() - 0.5).abs() < 1e-5, "{hz} Hz");
        }
    }

    #[test]
    fn bad_inputs_keep_the_state() {
        let mut lod = placed_at(10.0);
        for _ in 0..3 {
            assert_eq!(lod.update(f32::NAN, DT), LodTier::Reduced);
        }
        // NaN before placement keeps the default Full, and the next real distance places.
        let mut fresh = Lod::default();
        assert_eq!(fresh.update(f32::NAN, DT), LodTier::Full);
        assert_eq!(fresh.update(100.0, DT), LodTier::Off);
        assert_eq!(fresh.procedural_weight(), 0.0);
        // Bad dt: the tier moves but the weight does not jump.
        let mut lod = placed_at(3.0);
        for dt in [f32::NAN, f32::INFINITY, -1.0, 0.0] {
            assert_eq!(lod.update(100.0, dt), LodTier::Off);
            assert_eq!(lod.procedural_weight(), 1.0);
        }
        assert!(distance_to_viewer(Vec3::NAN, Vec3::ZERO).is_nan());
        assert_eq!(
            distance_to_viewer(Vec3::new(3.0, 0.0, 4.0), Vec3::ZERO),
            5.0
        );
    }

    #[test]
    fn config_is_sanitized() {
        let bad = LodConfig {
            full_max_distance_m: f32::NAN,
            reduced_max_distance_m: 2.0,
            hysteresis_m: -1.0,
            blend_time_s: f32::NAN,
            ..LodConfig::default()
        }
        .sanitized();
        assert_eq!(bad.full_max_distance_m, 6.0);
        assert_eq!(bad.reduced_max_distance_m, 6.0);
        assert_eq!(bad.hysteresis_m, 0.0);
        assert_eq!(bad.blend_time_s, 0.25);
        // Graph cadence: 1 in Full, the defaults by tier, clamped to 1..=8.
        assert_eq!(
            [LodTier::Full, LodTier::Reduced, LodTier::Off]
                .map(|t| LodConfig::default().graph_every_ticks(t)),
            [1, 2, 4]
        );
        let odd = LodConfig {
            graph_every_reduced_ticks: 0,
            graph_every_off_ticks: 100,
            ..LodConfig::default()
        };
        assert_eq!(odd.graph_every_ticks(LodTier::Reduced), 1);
        assert_eq!(odd.sanitized().graph_every_off_ticks, MAX_GRAPH_EVERY_TICKS);
        // Zero blend time switches at once.
        let mut lod = Lod::new(LodConfig {
            blend_time_s: 0.0,
            ..LodConfig::default()
        });
        lod.update(1.0, DT);
        lod.update(100.0, DT);
        assert_eq!(lod.procedural_weight(), 0.0);
        // Missing RON fields take the defaults.
        let parsed: LodConfig = ron::from_str("(full_max_distance_m: 8.0)").unwrap();
        assert_eq!(parsed.full_max_distance_m, 8.0);
        assert_eq!(parsed.reduced_max_distance_m, 30.0);
    }
}
