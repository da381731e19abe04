//! Input shaping (SPEC MOVE-1): one 2D stick value from any device, with a per-device radial
//! dead zone rescaled past its edge and an optional squared response on gamepads, so a light
//! push walks and a full push runs.
//!
//! Space: the 2D value is whatever frame the device reports (for a stick: x right, y forward);
//! shaping only changes its length, never its direction.

use glam::Vec2;

/// Where a 2D movement input comes from; picks the dead zone and the response curve.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum InputDevice {
    /// WASD / arrow keys (a digital 8-way input, possibly smoothed by the host).
    Keyboard,
    /// An analog stick.
    Gamepad,
    /// A virtual on-screen stick.
    Touch,
    /// An AI agent ([`crate::motion::PathFollower`]): exact values, no dead zone, no curve.
    Ai,
}

/// Per-device input shaping settings.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct InputConfig {
    /// Radial dead zone for [`InputDevice::Keyboard`], as a fraction of full deflection.
    /// Default 0.1.
    pub keyboard_dead_zone: f32,
    /// Radial dead zone for [`InputDevice::Gamepad`]. Default 0.2.
    pub gamepad_dead_zone: f32,
    /// Radial dead zone for [`InputDevice::Touch`]. Default 0.15.
    pub touch_dead_zone: f32,
    /// Gamepad response `v · |v|` after the dead zone (a half push gives a quarter
    /// magnitude). Default true.
    pub gamepad_squared_response: bool,
}

impl Default for InputConfig {
    fn default() -> Self {
        Self {
            keyboard_dead_zone: 0.1,
            gamepad_dead_zone: 0.2,
            touch_dead_zone: 0.15,
            gamepad_squared_response: true,
        }
    }
}

/// The largest dead zone honoured; wider settings are clamped so the rescale stays finite.
pub const MAX_DEAD_ZONE: f32 = 0.95;

impl InputConfig {
    /// The dead zone used for `device`, clamped to `0..=`[`MAX_DEAD_ZONE`] (a non-finite
    /// setting counts as 0). [`InputDevice::Ai`] has none.
    pub fn dead_zone(&self, device: InputDevice) -> f32 {
        let raw = match device {
            InputDevice::Keyboard => self.keyboard_dead_zone,
            InputDevice::Gamepad => self.gamepad_dead_zone,
            InputDevice::Touch => self.touch_dead_zone,
            InputDevice::Ai => 0.0,
        };
        if raw.is_finite() {
            raw.clamp(0.0, MAX_DEAD_ZONE)
        } else {
            0.0
        }
    }

    /// Builder: sets the dead zone of one device (ignored for [`InputDevice::Ai`]).
    pub fn with_dead_zone(mut self, device: InputDevice, dead_zone: f32) -> Self {
        match device {
            InputDevice::Keyboard => self.keyboard_dead_zone = dead_zone,
            InputDevice::Gamepad => self.gamepad_dead_zone = dead_zone,
            InputDevice::Touch => self.touch_dead_zone = dead_zone,
            InputDevice::Ai => {}
        }
        self
    }

    /// Builder: turns the gamepad squared response on or off.
    pub fn with_gamepad_squared_response(mut self, on: bool) -> Self {
        self.gamepad_squared_response = on;
        self
    }
}

/// Shapes a raw 2D input: radial dead zone with rescale (a length at the dead zone's edge maps
/// to 0, full deflection to 1), length clamped to 1, then `v · |v|` on a gamepad when
/// [`InputConfig::gamepad_squared_response`] is on. The direction is kept. NaN or ±∞ in
/// either component gives zero.
pub fn shape_input(raw: Vec2, device: InputDevice, config: &InputConfig) -> Vec2 {
    let Some((direction, length)) = direction_and_length(raw) else {
        return Vec2::ZERO;
    };
    let dead_zone = config.dead_zone(device);
    if length <= dead_zone {
        return Vec2::ZERO;
    }
    let mut magnitude = ((length - dead_zone) / (1.0 - dead_zone)).min(1.0);
    if device == InputDevice::Gamepad && config.gamepad_squared_response {
        magnitude *= magnitude;
    }
    let shaped = direction * magnitude;
    if shaped.is_finite() {
        shaped
    } else {
        Vec2::ZERO
    }
}

/// Unit direction and length of a finite, non-zero `v`, without overflow for huge
/// components (the length may then be +∞); `None` for zero or non-finite `v`.
pub(crate) fn direction_and_length(v: Vec2) -> Option<(Vec2, f32)> {
    if !v.is_finite() {
        return None;
    }
    let scale = v.abs().max_element();
    if scale <= 0.0 {
        return None;
    }
    let scaled = v / scale;
    let scaled_length = scaled.length();
    let direction = scaled / scaled_length;
    direction
        .is_finite()
        .then_some((direction, scaled_length * scale))
}

#[cfg(test)]
mod tests {
    use super::*;

    const ALL: [InputDevice; 4] = [
        InputDevice::Keyboard,
        InputDevice::Gamepad,
        InputDevice::Touch,
        InputDevice::Ai,
    ];

    #[test]
    fn default_dead_zones_match_the_spec() {
        let c = InputConfig::default();
        assert_eq!(c.dead_zone(InputDevice::Keyboard), 0.1);
        assert_eq!(c.dead_zone(InputDevice::Gamepad), 0.2);
        assert_eq!(c.dead_zone(InputDevice::Touch), 0.15);
        assert_eq!(c.dead_zone(InputDevice::Ai), 0.0);
        assert!(c.gamepad_squared_response);
    }

    #[test]
    fn dead_zone_rescales_past_its_edge() {
        let c = InputConfig::default();
        for device in [InputDevice::Keyboard, InputDevice::Touch] {
            let dz = c.dead_zone(device);
            // Inside the dead zone: nothing.
            assert_eq!(
                shape_input(Vec2::new(0.0, dz * 0.9), device, &c),
                Vec2::ZERO
            );
            // Just past it: almost nothing (no jump to `dz`).
            let just_past = shape_input(Vec2::new(0.0, dz + 0.001), device, &c);
            assert!(just_past.length() < 0.01, "{device:?}: {just_past}");
            // Halfway between the edge and full: half.
            let half = shape_input(Vec2::new(0.0, dz + (1.0 - dz) * 0.5), device, &c);
            assert!((half.length() - 0.5).abs() < 1e-5, "{device:?}: {half}");
            // Full deflection: exactly 1, direction kept.
            let full = shape_input(Vec2::new(-1.0, 0.0), device, &c);
            assert!((full - Vec2::new(-1.0, 0.0)).length() < 1e-6);
        }
    }

    #[test]
    fn gamepad_squared_response() {
        let c = InputConfig::default();
        let dz = 0.2;
        // Half of the live range → 0.25 with the squared response.
        let v = shape_input(Vec2::new(dz + 0.4, 0.0), InputDevice::Gamepad, &c);
        assert!((v.x - 0.25).abs() < 1e-5, "{v}");
        assert_eq!(v.y, 0.0);
        // Direction preserved on a diagonal.
        let d = shape_input(Vec2::new(0.5, 0.5), InputDevice::Gamepad, &c);
        assert!((d.x - d.y).abs() < 1e-6);
        let linear = c.with_gamepad_squared_response(false);
        let v = shape_input(Vec2::new(dz + 0.4, 0.0), InputDevice::Gamepad, &linear);
        assert!((v.x - 0.5).abs() < 1e-5, "{v}");
        // Full still reaches 1.
        let full = shape_input(Vec2::new(0.0, 1.0), InputDevice::Gamepad, &c);
        assert!((full.length() - 1.0).abs() < 1e-6);
    }

    #[test]
    fn length_is_clamped_to_one() {
        let c = InputConfig::default();
        for device in ALL {
            // A keyboard diagonal is (1, 1): length √2.
            let v = shape_input(Vec2::new(1.0, 1.0), device, &c);
            assert!((v.length() - 1.0).abs() < 1e-6, "{device:?}: {v}");
            let big = shape_input(Vec2::new(1e30, -1e30), device, &c);
            assert!(big.is_finite() && (big.length() - 1.0).abs() < 1e-5);
        }
        let ai = shape_input(Vec2::new(0.3, 0.0), InputDevice::Ai, &c);
        assert_eq!(ai, Vec2::new(0.3, 0.0));
    }

    #[test]
    fn non_finite_input_and_settings_give_finite_output() {
        let c = InputConfig::default();
        for device in ALL {
            for raw in [
                Vec2::new(f32::NAN, 0.5),
                Vec2::new(0.5, f32::INFINITY),
                Vec2::new(f32::NEG_INFINITY, f32::NAN),
                Vec2::ZERO,
                Vec2::new(f32::MIN_POSITIVE, 0.0),
                Vec2::new(f32::MAX, f32::MAX),
            ] {
                let v = shape_input(raw, device, &c);
                assert!(
                    v.is_finite() && v.length() <= 1.0 + 1e-6,
                    "{device:?} {raw}: {v}"
                );
            }
        }
        let weird = InputConfig::default()
            .with_dead_zone(InputDevice::Gamepad, f32::NAN)
            .with_dead_zone(InputDevice::Keyboard, 5.0)
            .with_dead_zone(InputDevice::Touch, -1.0);
        assert_eq!(weird.dead_zone(InputDevice::Gamepad), 0.0);
        assert_eq!(weird.dead_zone(InputDevice::Keyboard), MAX_DEAD_ZONE);
        assert_eq!(weird.dead_zone(InputDevice::Touch), 0.0);
        for device in ALL {
            let v = shape_input(Vec2::new(0.99, 0.0), device, &weird);
            assert!(v.is_finite() && v.length() <= 1.0);
        }
    }
}
