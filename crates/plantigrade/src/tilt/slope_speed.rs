//! Slope speed compensation (SPEC TILT-7): a scale for the gait's playback rate,
//! `1 + slope_angle / 70°`, clamped.
//!
//! **Sign.** `slope_angle` is the grade of the ground along the movement direction with the
//! tilt's convention: positive = ground rising ahead (uphill). So the scale is above 1
//! uphill and below 1 downhill: 20° up gives 1.29, 20° down 0.71. The SPEC's reason is "so
//! gait matches ground speed uphill and downhill": at the same horizontal speed, uphill
//! steps are shorter (each one also lifts the body by the rise) and the feet cover the
//! longer path along the surface, so the legs must cycle faster to keep the planted foot
//! still; downhill the steps lengthen and the cadence drops. Apply it to the
//! playback rate of the gait for a given ground speed (equivalently, divide the stride
//! length by it); a host that wants the opposite reading gives
//! [`SlopeSpeedConfig::degrees_per_unit`] a negative value.

use glam::Vec3;

use super::decompose::MIN_GROUND_NORMAL_UP;

/// Settings of the slope speed scale (SPEC TILT-7). Serde with defaults.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "reflect", derive(bevy_reflect::Reflect))]
#[serde(default, deny_unknown_fields)]
pub struct SlopeSpeedConfig {
    /// When false the scale is always 1. Default true.
    pub enabled: bool,
    /// Slope (degrees) that adds 1 to the scale: `scale = 1 + angle_deg / degrees_per_unit`.
    /// Default 70 (SPEC). Negative flips the sign; 0 or non-finite means the default.
    pub degrees_per_unit: f32,
    /// Smallest scale. Default 0.5.
    pub min_scale: f32,
    /// Largest scale. Default 1.5.
    pub max_scale: f32,
    /// Downhill shortens the steps too (the scale uses the slope's magnitude). Default
    /// true: down a flight of stairs people take one tread per step like going up, and a
    /// longer stride would span more risers and need more pelvis drop to reach. False gives
    /// the signed reading above (longer, slower steps downhill).
    pub downhill_shortens: bool,
    /// Up or down a flight of stairs, the scale makes each step a whole number of treads
    /// (see [`flight_stride_scale`]) instead of following the slope alone. Default true.
    pub whole_treads: bool,
    /// Largest scale on a flight with [`Self::whole_treads`]. Default 2.0: a walk at 1.75
    /// m/s takes two 0.28 m treads a step at about 3 steps a second.
    pub flight_max_scale: f32,
    /// The most a step may climb or descend on a slope (m): a stride that would take more
    /// is played faster, up to `flight_max_scale` in all. Default 0.85; scaled with the rig.
    pub max_step_rise_m: f32,
}

impl Default for SlopeSpeedConfig {
    fn default() -> Self {
        Self {
            enabled: true,
            degrees_per_unit: 70.0,
            min_scale: 0.5,
            max_scale: 1.5,
            downhill_shortens: true,
            whole_treads: true,
            flight_max_scale: 2.0,
            max_step_rise_m: 0.85,
        }
    }
}

impl SlopeSpeedConfig {
    /// This config with bad values replaced: `degrees_per_unit` 0 or non-finite → 70; the
    /// bounds non-finite → defaults, negative → 0, swapped when `min > max`;
    /// `flight_max_scale` at least `max_scale`.
    pub fn sanitized(&self) -> Self {
        let d = Self::default();
        let degrees_per_unit = if self.degrees_per_unit.is_finite() && self.degrees_per_unit != 0.0
        {
            self.degrees_per_unit
        } else {
            d.degrees_per_unit
        };
        let bound = |v: f32, fallback: f32| if v.is_finite() { v.max(0.0) } else { fallback };
        let (a, b) = (
            bound(self.min_scale, d.min_scale),
            bound(self.max_scale, d.max_scale),
        );
        Self {
            enabled: self.enabled,
            degrees_per_unit,
            min_scale: a.min(b),
            max_scale: a.max(b),
            downhill_shortens: self.downhill_shortens,
            whole_treads: self.whole_treads,
            flight_max_scale: bound(self.flight_max_scale, d.flight_max_scale).max(a.max(b)),
            max_step_rise_m: if self.max_step_rise_m > 0.0 {
                self.max_step_rise_m
            } else {
                d.max_step_rise_m
            },
        }
    }
}

/// The playback-rate scale for a signed slope angle (rad, positive = uphill along the
/// movement): `1 + angle_deg / degrees_per_unit`, clamped to the config's range. Non-finite
/// angles and a disabled config give 1.
pub fn slope_speed_scale(slope_angle_rad: f32, config: &SlopeSpeedConfig) -> f32 {
    let config = config.sanitized();
    if !config.enabled || !slope_angle_rad.is_finite() {
        return 1.0;
    }
    let angle_rad = if config.downhill_shortens {
        slope_angle_rad.abs()
    } else {
        slope_angle_rad
    };
    (1.0 + angle_rad.to_degrees() / config.degrees_per_unit)
        .clamp(config.min_scale, config.max_scale)
}

/// On a flight of stairs, the playback scale that makes each step a whole number of treads
/// (TILT-7 with the stairs' "the stride adapts"): the gait steps `step_now_m` at
/// `scale_now`, and at constant speed a step's length goes as `1 / scale`. Of the whole
/// numbers of treads, the one nearest the step the slope rule alone gives (at
/// `slope_scale`), at least one; clamped to the config's `min_scale..=flight_max_scale`.
/// A stride a little off two treads otherwise walks its footfalls along the treads, a few
/// centimetres a step, until one lands across a nosing and is moved a tread.
/// `None` with [`SlopeSpeedConfig::whole_treads`] off or an input that is not a positive
/// finite length or scale.
pub fn flight_stride_scale(
    step_now_m: f32,
    scale_now: f32,
    slope_scale: f32,
    tread_m: f32,
    config: &SlopeSpeedConfig,
) -> Option<f32> {
    let config = config.sanitized();
    let usable = |v: f32| v.is_finite() && v > 0.0;
    if !config.enabled
        || !config.whole_treads
        || ![step_now_m, scale_now, slope_scale, tread_m]
            .into_iter()
            .all(usable)
    {
        return None;
    }
    let step_at_slope_m = step_now_m * scale_now / slope_scale;
    let treads = (step_at_slope_m / tread_m).round().max(1.0);
    let scale = scale_now * step_now_m / (treads * tread_m);
    usable(scale).then(|| scale.clamp(config.min_scale, config.flight_max_scale))
}

/// Signed grade angle (rad) of the ground with `normal_world` along the horizontal part of
/// `direction_world`: positive when the ground rises that way. `None` for a non-finite or
/// unwalkable normal or a direction with no horizontal part.
pub fn slope_angle_along_rad(normal_world: Vec3, direction_world: Vec3) -> Option<f32> {
    if !normal_world.is_finite() || !direction_world.is_finite() {
        return None;
    }
    let normal = normal_world.try_normalize()?;
    if normal.y < MIN_GROUND_NORMAL_UP {
        return None;
    }
    let along = Vec3::new(direction_world.x, 0.0, direction_world.z).try_normalize()?;
    // Height gained per horizontal metre along `along` on the plane with this normal.
    let rise = -(normal.x * along.x + normal.z * along.z) / normal.y;
    Some(rise.atan())
}

/// [`slope_speed_scale`] for the ground with `normal_world` and the movement direction
/// `move_direction_world` (world, e.g. the velocity). 1 when either is unusable.
pub fn slope_speed_scale_for(
    normal_world: Vec3,
    move_direction_world: Vec3,
    config: &SlopeSpeedConfig,
) -> f32 {
    slope_angle_along_rad(normal_world, move_direction_world)
        .map_or(1.0, |angle| slope_speed_scale(angle, config))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ramp_normal(grade_deg: f32, uphill: Vec3) -> Vec3 {
        let g = grade_deg.to_radians();
        (Vec3::Y * g.cos() - uphill.normalize() * g.sin()).normalize()
    }

    #[test]
    fn a_flight_gets_a_whole_number_of_treads_a_step() {
        let config = SlopeSpeedConfig::default();
        // A walk stepping 0.875 m at scale 1 on 0.28 m treads: the slope rule's 1.5 gives
        // 0.58 m, nearest two treads, so the scale that steps exactly 0.56 m.
        let scale = flight_stride_scale(0.875, 1.0, 1.5, 0.28, &config).unwrap();
        assert!((0.875 / scale - 0.56).abs() < 1e-5, "{scale}");
        // Measured at that scale, it holds (the step is already two treads).
        let again = flight_stride_scale(0.56, scale, 1.5, 0.28, &config).unwrap();
        assert!((again - scale).abs() < 1e-5, "{again} vs {scale}");
        // A short step is at least one tread; the scale stays within its bounds.
        let one = flight_stride_scale(0.2, 1.0, 1.0, 0.28, &config).unwrap();
        assert!((0.2 / one - 0.28).abs() < 1e-5, "{one}");
        let fast = flight_stride_scale(3.0, 1.0, 1.0, 0.28, &config).unwrap();
        assert!(fast <= config.flight_max_scale && fast >= config.min_scale);
        // Off, or fed garbage: no scale.
        let off = SlopeSpeedConfig {
            whole_treads: false,
            ..config
        };
        assert_eq!(flight_stride_scale(0.875, 1.0, 1.5, 0.28, &off), None);
        for bad in [0.0, -1.0, f32::NAN, f32::INFINITY] {
            assert_eq!(flight_stride_scale(bad, 1.0, 1.5, 0.28, &config), None);
            assert_eq!(flight_stride_scale(0.8, 1.0, 1.5, bad, &config), None);
        }
    }

    #[test]
    fn scale_is_one_plus_angle_over_seventy_degrees() {
        let config = SlopeSpeedConfig::default();
        assert_eq!(slope_speed_scale(0.0, &config), 1.0);
        let up = slope_speed_scale(20f32.to_radians(), &config);
        assert!((up - (1.0 + 20.0 / 70.0)).abs() < 1e-5, "{up}");
        // Downhill shortens the steps as much by default.
        let down = slope_speed_scale(-20f32.to_radians(), &config);
        assert!((down - up).abs() < 1e-6, "{down}");
        assert_eq!(slope_speed_scale(60f32.to_radians(), &config), 1.5);
        assert_eq!(slope_speed_scale(-60f32.to_radians(), &config), 1.5);
        // The signed reading: slower downhill, clamped at 1.5 and 0.5 (35° either way).
        let signed = SlopeSpeedConfig {
            downhill_shortens: false,
            ..config
        };
        let down = slope_speed_scale(-20f32.to_radians(), &signed);
        assert!((down - (1.0 - 20.0 / 70.0)).abs() < 1e-5, "{down}");
        assert_eq!(slope_speed_scale(-60f32.to_radians(), &signed), 0.5);
    }

    #[test]
    fn sign_follows_the_movement_direction() {
        let config = SlopeSpeedConfig {
            downhill_shortens: false,
            ..SlopeSpeedConfig::default()
        };
        let n = ramp_normal(10.0, Vec3::Z);
        let up = slope_speed_scale_for(n, Vec3::Z * 3.0, &config);
        let down = slope_speed_scale_for(n, -Vec3::Z, &config);
        let across = slope_speed_scale_for(n, Vec3::X, &config);
        assert!((up - (1.0 + 10.0 / 70.0)).abs() < 1e-4, "{up}");
        assert!((down - (1.0 - 10.0 / 70.0)).abs() < 1e-4, "{down}");
        assert!((across - 1.0).abs() < 1e-6);
        // 45° off the uphill direction: the grade along it is atan(tan 10° · cos 45°).
        let diagonal = slope_angle_along_rad(n, Vec3::new(1.0, 0.0, 1.0)).unwrap();
        let expected = (10f32.to_radians().tan() * 45f32.to_radians().cos()).atan();
        assert!((diagonal - expected).abs() < 1e-5);
    }

    #[test]
    fn bad_inputs_give_one() {
        let config = SlopeSpeedConfig::default();
        assert_eq!(slope_speed_scale(f32::NAN, &config), 1.0);
        assert_eq!(slope_speed_scale_for(Vec3::NAN, Vec3::Z, &config), 1.0);
        assert_eq!(slope_speed_scale_for(Vec3::Y, Vec3::Y, &config), 1.0);
        assert_eq!(slope_speed_scale_for(Vec3::X, Vec3::Z, &config), 1.0);
        let off = SlopeSpeedConfig {
            enabled: false,
            ..config
        };
        assert_eq!(slope_speed_scale(0.3, &off), 1.0);
        let weird = SlopeSpeedConfig {
            enabled: true,
            degrees_per_unit: 0.0,
            min_scale: 2.0,
            max_scale: f32::NAN,
            downhill_shortens: true,
            whole_treads: true,
            flight_max_scale: -3.0,
            max_step_rise_m: f32::NAN,
        };
        // 0 → 70 °/unit; bounds become [1.5, 2.0], the flight's at least the upper one.
        assert_eq!(slope_speed_scale(0.0, &weird), 1.5);
        assert_eq!(weird.sanitized().flight_max_scale, 2.0);
        let flipped = SlopeSpeedConfig {
            degrees_per_unit: -70.0,
            downhill_shortens: false,
            ..config
        };
        assert!((slope_speed_scale(20f32.to_radians(), &flipped) - 0.714_285_7).abs() < 1e-5);
    }
}
