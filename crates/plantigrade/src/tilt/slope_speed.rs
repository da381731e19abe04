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
}

impl Default for SlopeSpeedConfig {
    fn default() -> Self {
        Self {
            enabled: true,
            degrees_per_unit: 70.0,
            min_scale: 0.5,
            max_scale: 1.5,
            downhill_shortens: true,
        }
    }
}

impl SlopeSpeedConfig {
    /// This config with bad values replaced: `degrees_per_unit` 0 or non-finite → 70; the
    /// bounds non-finite → defaults, negative → 0, swapped when `min > max`.
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
        };
        // 0 → 70 °/unit; bounds become [1.5, 2.0].
        assert_eq!(slope_speed_scale(0.0, &weird), 1.5);
        let flipped = SlopeSpeedConfig {
            degrees_per_unit: -70.0,
            downhill_shortens: false,
            ..config
        };
        assert!((slope_speed_scale(20f32.to_radians(), &flipped) - 0.714_285_7).abs() < 1e-5);
    }
}
