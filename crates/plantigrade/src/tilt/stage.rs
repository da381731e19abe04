//! The slope-aware pelvis stage (SPEC TILT-1..11): one [`PelvisTilt`] per character.
//!
//! A tick, [`PelvisTilt::update`]:
//!
//! 1. ask the [`NormalSource`] for the [`GroundFrame`] (three rays, narrow edge, stairs
//!    probe; or a mount's fixed normal);
//! 2. exit (TILT-5): not grounded, or no ground within 0.3 × pelvis height below the feet,
//!    or unusable input → the target is no tilt, and the filter brings the pelvis back to
//!    the animation smoothly;
//! 3. low-pass the frame normal (world), decompose it against the facing into clamped
//!    pitch/roll (TILT-2, roll dropped on a narrow edge), rate-limit and damp (TILT-4) —
//!    with [`TiltConfig::stairs_filter`] (tighter) while on stairs;
//! 4. turn the filtered slope into a posture (TILT-12, [`PostureConfig`]): the trunk leans
//!    into a climb and stays near upright going down; the pelvis takes part of that lean
//!    and the ground's roll for the legs, and the spine counter-rotates the roll so the
//!    trunk stays vertical across a slope;
//! 5. report the applied and target angles, the model-space pelvis and trunk offsets, the
//!    frame with every ray, and the slope speed scale (TILT-7).
//!
//! Then [`PelvisTilt::apply`] writes the offsets into the local pose (TILT-3, TILT-6).
//! Nothing here allocates; all state is plain `Copy` data.

use glam::{Quat, Vec3};

use super::apply::{apply_posture, PostureOffsets, TiltError};
use super::decompose::{decompose_ground_normal, GroundNormalStatus, GroundTilt, TiltLimits};
use super::filter::{TiltDamping, TiltFilter, TiltFilterConfig};
use super::ground_frame::{FrameCase, FrameQuery, GroundFrame, GroundFrameConfig};
use super::slope_speed::{slope_speed_scale, SlopeSpeedConfig};
use super::source::NormalSource;
use crate::pose::{ModelPose, Pose};
use crate::skeleton::Skeleton;
use crate::world::{QueryFilter, SpatialQueries};

/// Default share of the pelvis tilt the head keeps (SPEC TILT-6: about 10 %).
pub const DEFAULT_HEAD_KEEP_FRACTION: f32 = 0.1;
/// Default share while aiming: none, the gaze stays level.
pub const DEFAULT_HEAD_KEEP_FRACTION_AIMING: f32 = 0.0;

/// How the slope becomes a posture (SPEC TILT-12): people lean **into** a climb and stay
/// near upright going down; the body's up axis never follows the ground normal. Angles in
/// radians of the filtered slope along the facing (up positive).
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "reflect", derive(bevy_reflect::Reflect))]
#[serde(default, deny_unknown_fields)]
pub struct PostureConfig {
    /// Trunk lean forward per radian of slope going up (TILT-12: 0.3–0.5). Default 0.4
    /// (12° on a 30° ramp).
    pub uphill_lean_per_slope: f32,
    /// Trunk lean back per radian of slope going down. Default 0.1 (3° on 30°).
    pub downhill_lean_per_slope: f32,
    /// Most the trunk leans back going down (rad). Default 5°.
    pub max_downhill_lean_rad: f32,
    /// Share of the trunk's lean the pelvis takes (the spine bends the rest). Default 0.5.
    pub pelvis_lean_share: f32,
    /// Share of the ground's roll the pelvis takes, so the hips follow a cross-slope for
    /// the legs; the spine takes it back out and the trunk stays vertical. Default 1.
    pub pelvis_roll_share: f32,
}

impl Default for PostureConfig {
    fn default() -> Self {
        Self {
            uphill_lean_per_slope: 0.4,
            downhill_lean_per_slope: 0.1,
            max_downhill_lean_rad: 5f32.to_radians(),
            pelvis_lean_share: 0.5,
            pelvis_roll_share: 1.0,
        }
    }
}

impl PostureConfig {
    /// NaN → default, negatives → 0, shares clamped to 0..=1, the lean factors to 0..=1.
    pub fn sanitized(&self) -> Self {
        let d = Self::default();
        let clamp = |v: f32, fallback: f32, max: f32| {
            if v.is_nan() {
                fallback
            } else {
                v.clamp(0.0, max)
            }
        };
        Self {
            uphill_lean_per_slope: clamp(self.uphill_lean_per_slope, d.uphill_lean_per_slope, 1.0),
            downhill_lean_per_slope: clamp(
                self.downhill_lean_per_slope,
                d.downhill_lean_per_slope,
                1.0,
            ),
            max_downhill_lean_rad: clamp(
                self.max_downhill_lean_rad,
                d.max_downhill_lean_rad,
                std::f32::consts::FRAC_PI_4,
            ),
            pelvis_lean_share: clamp(self.pelvis_lean_share, d.pelvis_lean_share, 1.0),
            pelvis_roll_share: clamp(self.pelvis_roll_share, d.pelvis_roll_share, 1.0),
        }
    }

    /// The trunk's lean (rad, forward +) on a slope of `pitch_rad` along the facing.
    pub fn trunk_lean_rad(&self, pitch_rad: f32) -> f32 {
        if !pitch_rad.is_finite() {
            0.0
        } else if pitch_rad >= 0.0 {
            self.uphill_lean_per_slope * pitch_rad
        } else {
            -(self.downhill_lean_per_slope * -pitch_rad).min(self.max_downhill_lean_rad)
        }
    }

    /// The pelvis and trunk offsets (model space) for a ground of `pitch_rad` along and
    /// `roll_rad` across the facing (see [`super::decompose`] for the signs).
    pub fn offsets(&self, pitch_rad: f32, roll_rad: f32) -> PostureOffsets {
        let lean = self.trunk_lean_rad(pitch_rad);
        let roll = if roll_rad.is_finite() { roll_rad } else { 0.0 };
        PostureOffsets {
            // R_x(+a) turns up (+Y) toward forward (+Z): a forward lean.
            pelvis_model: Quat::from_rotation_x(self.pelvis_lean_share * lean)
                * Quat::from_rotation_z(self.pelvis_roll_share * roll),
            trunk_model: Quat::from_rotation_x(lean),
            pelvis_drop_m: 0.0,
        }
    }
}

/// Settings of the stage. Serde with defaults for missing fields; [`Self::sanitized`] is
/// applied on every tick, so any values are safe.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "reflect", derive(bevy_reflect::Reflect))]
#[serde(default, deny_unknown_fields)]
pub struct TiltConfig {
    /// When false the stage still samples and reports the frame and targets but applies
    /// no tilt (identity); turning it back on ramps in from zero. Default true.
    pub enabled: bool,
    /// Pitch/roll clamps and roll on/off (TILT-2). Default ±45°, ±25°, roll on.
    pub limits: TiltLimits,
    /// Filtering on ordinary ground (TILT-4): normal low-pass 12/s, target rate limit
    /// 90°/s, exponential damping 10/s.
    pub filter: TiltFilterConfig,
    /// Filtering while on stairs (TILT-11): tighter, so the pelvis takes up the flight's
    /// pitch within a few treads: low-pass 20/s, 270°/s, exponential damping 18/s.
    pub stairs_filter: TiltFilterConfig,
    /// Ray lengths, exit distance, narrow-edge angle, stairs detection.
    pub ground: GroundFrameConfig,
    /// Share of the pelvis tilt the head keeps (0..=1, TILT-6). Default 0.1.
    pub head_keep_fraction: f32,
    /// The same while aiming. Default 0.0.
    pub head_keep_fraction_aiming: f32,
    /// Slope speed scale (TILT-7).
    pub slope_speed: SlopeSpeedConfig,
    /// How the slope becomes a posture (TILT-12).
    pub posture: PostureConfig,
}

impl Default for TiltConfig {
    fn default() -> Self {
        Self {
            enabled: true,
            limits: TiltLimits::default(),
            filter: TiltFilterConfig {
                normal_k_per_s: 15.0,
                damping: TiltDamping::Exponential { k_per_s: 12.0 },
                ..TiltFilterConfig::default()
            },
            stairs_filter: TiltFilterConfig {
                normal_k_per_s: 20.0,
                max_target_rate_rad_per_s: 270f32.to_radians(),
                damping: TiltDamping::Exponential { k_per_s: 18.0 },
            },
            ground: GroundFrameConfig::default(),
            head_keep_fraction: DEFAULT_HEAD_KEEP_FRACTION,
            head_keep_fraction_aiming: DEFAULT_HEAD_KEEP_FRACTION_AIMING,
            slope_speed: SlopeSpeedConfig::default(),
            posture: PostureConfig::default(),
        }
    }
}

impl TiltConfig {
    /// Every part sanitized (NaN → defaults, negatives → 0 or by magnitude, fractions
    /// clamped to 0..=1).
    pub fn sanitized(&self) -> Self {
        let fraction = |v: f32, fallback: f32| {
            if v.is_nan() {
                fallback
            } else {
                v.clamp(0.0, 1.0)
            }
        };
        Self {
            enabled: self.enabled,
            limits: self.limits.sanitized(),
            filter: self.filter.sanitized(),
            stairs_filter: self.stairs_filter.sanitized(),
            ground: self.ground.sanitized(),
            head_keep_fraction: fraction(self.head_keep_fraction, DEFAULT_HEAD_KEEP_FRACTION),
            head_keep_fraction_aiming: fraction(
                self.head_keep_fraction_aiming,
                DEFAULT_HEAD_KEEP_FRACTION_AIMING,
            ),
            slope_speed: self.slope_speed.sanitized(),
            posture: self.posture.sanitized(),
        }
    }
}

/// What the stage needs for one tick (world space unless named otherwise).
#[derive(Clone, Copy)]
pub struct TiltInput<'a> {
    pub world: &'a dyn SpatialQueries,
    /// Ground layers, the character's own body excluded.
    pub filter: QueryFilter,
    /// The character's feet point (world).
    pub root_world: Vec3,
    /// World yaw of the facing (rad; 0 faces +Z, positive turns +Z toward +X).
    pub facing_yaw_rad: f32,
    /// The animated pelvis position in model space; its `y` is the pelvis height.
    pub pelvis_model: Vec3,
    /// Left and right animated feet (world).
    pub feet_world: [Vec3; 2],
    /// The character controller stands on ground (for a mount: true while mounted).
    pub grounded: bool,
    /// Aiming: the head keeps [`TiltConfig::head_keep_fraction_aiming`] instead.
    pub aiming: bool,
    /// Tick length (s). ≤ 0 or non-finite: the filter state does not move.
    pub dt_s: f32,
}

impl std::fmt::Debug for TiltInput<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TiltInput")
            .field("filter", &self.filter)
            .field("root_world", &self.root_world)
            .field("facing_yaw_rad", &self.facing_yaw_rad)
            .field("pelvis_model", &self.pelvis_model)
            .field("feet_world", &self.feet_world)
            .field("grounded", &self.grounded)
            .field("aiming", &self.aiming)
            .field("dt_s", &self.dt_s)
            .finish_non_exhaustive()
    }
}

/// What one tick produced.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TiltOutput {
    /// The filtered slope the posture is built from: pitch along the facing (rad;
    /// positive = ground rising ahead). 0 when the stage is disabled.
    pub pitch_rad: f32,
    /// The filtered roll across the facing (rad; positive = ground rising to the left).
    pub roll_rad: f32,
    /// The clamped target this tick (0, 0 when exiting), before rate limit and damping.
    pub target_pitch_rad: f32,
    pub target_roll_rad: f32,
    /// The pelvis rotation offset in model space ([`PostureConfig::offsets`] of the
    /// filtered angles); identity when disabled.
    pub pelvis_offset_model: Quat,
    /// The trunk's rotation offset in model space (its lean into the slope).
    pub trunk_offset_model: Quat,
    /// The trunk's lean (rad, forward +) the posture gives it on top of the animation's.
    pub trunk_lean_rad: f32,
    /// The decomposition of the low-passed normal (clamp flags, unclamped angles).
    pub ground_tilt: GroundTilt,
    /// The low-passed normal (world, unit).
    pub filtered_normal_world: Vec3,
    /// The frame the source reported, with its case and every ray.
    pub frame: GroundFrame,
    /// The exit applies (TILT-5): not grounded, no ground near the feet, or bad input.
    pub airborne: bool,
    /// Whether the tilt was applied ([`TiltConfig::enabled`]).
    pub enabled: bool,
    /// Gait playback scale for the slope along the facing (TILT-7); 1 when airborne.
    pub slope_speed_scale: f32,
}

/// The slope-aware pelvis stage of one character: config and filter state, plain data.
#[derive(Clone, Debug, PartialEq)]
pub struct PelvisTilt {
    /// Read on every tick (sanitized on use).
    pub config: TiltConfig,
    filter: TiltFilter,
    /// The previous frame's probe saw a riser: probe again (stairs hysteresis).
    stairs_hint: bool,
    offsets: PostureOffsets,
    aiming: bool,
    /// Frame buffer reused every tick.
    frame: GroundFrame,
}

impl Default for PelvisTilt {
    fn default() -> Self {
        Self::new(TiltConfig::default())
    }
}

impl PelvisTilt {
    /// A stage at rest: no tilt, normal up.
    pub fn new(config: TiltConfig) -> Self {
        Self {
            config,
            filter: TiltFilter::new(config.sanitized().filter),
            stairs_hint: false,
            offsets: PostureOffsets::IDENTITY,
            aiming: false,
            frame: GroundFrame::EMPTY,
        }
    }

    /// Back to rest (spawn, teleport): no tilt, normal up, no stairs memory.
    pub fn reset(&mut self) {
        *self = Self::new(self.config);
    }

    /// The filter state (low-passed normal, limited targets, applied angles).
    pub fn filter_state(&self) -> &TiltFilter {
        &self.filter
    }

    /// The pelvis offset of the last [`Self::update`] (model space).
    pub fn pelvis_offset_model(&self) -> Quat {
        self.offsets.pelvis_model
    }

    /// The pelvis and trunk offsets of the last [`Self::update`] (model space).
    pub fn posture_offsets(&self) -> PostureOffsets {
        self.offsets
    }

    /// The head keep fraction in force after the last update (aiming or not).
    pub fn head_keep_fraction(&self) -> f32 {
        let config = self.config.sanitized();
        if self.aiming {
            config.head_keep_fraction_aiming
        } else {
            config.head_keep_fraction
        }
    }

    /// One tick (see the module docs). Never panics; every output is finite.
    pub fn update(&mut self, input: &TiltInput<'_>, source: &dyn NormalSource) -> TiltOutput {
        let config = self.config.sanitized();
        let yaw = input.facing_yaw_rad;
        let pelvis_world = if yaw.is_finite() {
            input.root_world + Quat::from_rotation_y(yaw) * input.pelvis_model
        } else {
            input.root_world + input.pelvis_model
        };
        let query = FrameQuery {
            world: input.world,
            filter: input.filter,
            root_world: input.root_world,
            facing_yaw_rad: yaw,
            pelvis_world,
            pelvis_height_m: input.pelvis_model.y,
            feet_world: input.feet_world,
            stairs_hint: self.stairs_hint,
            config: &config.ground,
        };
        source.sample_frame(&query, &mut self.frame);
        let frame = sanitize_frame(self.frame);
        self.stairs_hint = frame.stairs_risers_seen > 0;

        let airborne = !input.grounded
            || matches!(frame.case, FrameCase::Airborne | FrameCase::Invalid)
            || !yaw.is_finite();
        self.filter.config = if frame.case == FrameCase::Stairs && !airborne {
            config.stairs_filter
        } else {
            config.filter
        };
        // Airborne: the normal relaxes to up, so a landing starts from level.
        let normal_target = if airborne {
            Vec3::Y
        } else {
            frame.normal_world
        };
        let filtered_normal_world = self.filter.filter_normal(normal_target, input.dt_s);
        let limits = TiltLimits {
            roll_enabled: config.limits.roll_enabled && !frame.roll_dropped,
            ..config.limits
        };
        let ground_tilt = decompose_ground_normal(filtered_normal_world, yaw, &limits);
        let (target_pitch_rad, target_roll_rad) =
            if airborne || ground_tilt.status != GroundNormalStatus::Valid {
                (0.0, 0.0)
            } else {
                (ground_tilt.pitch_rad, ground_tilt.roll_rad)
            };

        let (pitch_rad, roll_rad) = if config.enabled {
            self.filter
                .step(target_pitch_rad, target_roll_rad, input.dt_s)
        } else {
            self.filter.reset(0.0, 0.0);
            (0.0, 0.0)
        };
        self.offsets = config.posture.offsets(pitch_rad, roll_rad);
        self.aiming = input.aiming;

        let slope_speed_scale = if airborne || ground_tilt.status != GroundNormalStatus::Valid {
            1.0
        } else {
            slope_speed_scale(ground_tilt.unclamped_pitch_rad, &config.slope_speed)
        };
        TiltOutput {
            pitch_rad,
            roll_rad,
            target_pitch_rad,
            target_roll_rad,
            pelvis_offset_model: self.offsets.pelvis_model,
            trunk_offset_model: self.offsets.trunk_model,
            trunk_lean_rad: config.posture.trunk_lean_rad(pitch_rad),
            ground_tilt,
            filtered_normal_world,
            frame,
            airborne,
            enabled: config.enabled,
            slope_speed_scale,
        }
    }

    /// Writes the last update's posture into `pose` (local): the pelvis rotated about its
    /// own position by the pelvis offset, the `trunk_joint` (the first spine joint) turned
    /// so the trunk takes the trunk offset, the head (when given) keeping
    /// [`Self::head_keep_fraction`] of what it inherits (TILT-3, TILT-6, TILT-12). Without
    /// a trunk joint the trunk follows the pelvis. `model` is the model pose of `pose` as
    /// animated (before this call); recompute it afterwards. Bad indices or counts give an
    /// error and leave the pose unchanged.
    pub fn apply(
        &self,
        skeleton: &Skeleton,
        pelvis_joint: usize,
        trunk_joint: Option<usize>,
        head_joint: Option<usize>,
        model: &ModelPose,
        pose: &mut Pose,
    ) -> Result<(), TiltError> {
        let keep = self.head_keep_fraction();
        apply_posture(
            skeleton,
            pelvis_joint,
            trunk_joint,
            head_joint.map(|head| (head, keep)),
            self.offsets,
            model,
            pose,
        )
    }
}

/// A host source's frame made safe: a non-finite or unwalkable normal becomes an
/// [`FrameCase::Invalid`] frame (rays kept for debug draw).
fn sanitize_frame(mut frame: GroundFrame) -> GroundFrame {
    let normal_ok = frame.normal_world.is_finite()
        && frame
            .normal_world
            .try_normalize()
            .is_some_and(|n| n.y >= super::decompose::MIN_GROUND_NORMAL_UP);
    if !normal_ok {
        frame.case = FrameCase::Invalid;
        frame.normal_world = Vec3::Y;
    } else {
        frame.normal_world = frame.normal_world.normalize();
    }
    frame.ray_count = frame.ray_count.min(super::ground_frame::MAX_FRAME_RAYS);
    frame
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn config_round_trips_through_ron_with_defaults() {
        let parsed: TiltConfig = ron::from_str(
            "(enabled: false, head_keep_fraction: 0.2, ground: (step_min_height_m: 0.05))",
        )
        .unwrap();
        assert!(!parsed.enabled);
        assert_eq!(parsed.head_keep_fraction, 0.2);
        assert_eq!(parsed.ground.step_min_height_m, 0.05);
        assert_eq!(parsed.ground.stairs_probe_samples, 9);
        assert_eq!(parsed.limits, TiltLimits::default());
        let text = ron::to_string(&TiltConfig::default()).unwrap();
        assert_eq!(
            ron::from_str::<TiltConfig>(&text).unwrap(),
            TiltConfig::default()
        );
        assert!(ron::from_str::<TiltConfig>("(head_keep: 0.2)").is_err());
        assert_eq!(TiltConfig::default().sanitized(), TiltConfig::default());
    }

    #[test]
    fn stage_is_plain_shareable_data() {
        fn assert_traits<T: Clone + std::fmt::Debug + Send + Sync>() {}
        assert_traits::<PelvisTilt>();
        assert_traits::<TiltOutput>();
        assert_traits::<TiltConfig>();
        assert_traits::<GroundFrame>();
    }
}
