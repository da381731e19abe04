//! The intent of one tick (SPEC §0, MOVE-1, MOVE-9): what a player or an AI wants the
//! character to do, as plain data. Players build it with [`Intent::from_input`]; AI agents
//! get the same struct from [`crate::motion::PathFollower`].

use glam::Vec2;

use super::input::{direction_and_length, shape_input, InputConfig, InputDevice};

/// What a player or AI wants this tick.
///
/// Space: `move_world` is in the world's horizontal plane, stored as `(x, z)` (Vec2 `.x` is
/// world X, `.y` is world Z).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Intent {
    /// Desired move direction in the world XZ plane as `(x, z)`; its length in `0..=1` is how
    /// hard (0.5 = walk, 1 = run with the default [`crate::motion::CharacterConfig`]).
    pub move_world: Vec2,
    /// Jump was **pressed** this tick (an edge, not the held state); buffered for
    /// [`crate::motion::CharacterConfig::jump_buffer_s`].
    pub jump: bool,
    /// Crouch is held.
    pub crouch: bool,
    /// Sprint is held.
    pub sprint: bool,
    /// Aim is held (drives the upper-body overlay).
    pub aim: bool,
    /// A yaw (radians, world, positive turns +Z toward +X) to turn to while aiming or
    /// strafing; `None` = face the movement direction.
    pub face_yaw_rad: Option<f32>,
}

/// The buttons of one tick, for [`Intent::from_input`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Buttons {
    /// Jump pressed this tick (edge).
    pub jump_pressed: bool,
    /// Crouch held.
    pub crouch: bool,
    /// Sprint held.
    pub sprint: bool,
    /// Aim held.
    pub aim: bool,
}

/// World `(x, z)` direction of a yaw (positive yaw turns +Z toward +X).
pub fn yaw_to_direction(yaw_rad: f32) -> Vec2 {
    let (sin, cos) = yaw_rad.sin_cos();
    Vec2::new(sin, cos)
}

/// Yaw of a world `(x, z)` direction (0 for a zero or non-finite vector).
pub fn direction_to_yaw(direction_xz: Vec2) -> f32 {
    if !direction_xz.is_finite() || direction_xz == Vec2::ZERO {
        return 0.0;
    }
    direction_xz.x.atan2(direction_xz.y)
}

impl Intent {
    /// Nothing wanted: stand still, no buttons.
    pub const IDLE: Intent = Intent {
        move_world: Vec2::ZERO,
        jump: false,
        crouch: false,
        sprint: false,
        aim: false,
        face_yaw_rad: None,
    };

    /// A player's intent from a raw camera-relative stick and the camera's yaw.
    ///
    /// `raw_stick_camera` is the device value as reported: x = right, y = forward (up on a
    /// stick, W on a keyboard). It is shaped with [`shape_input`] for `device`, then rotated
    /// by `camera_yaw_rad` (the yaw of the camera's horizontal look direction, same
    /// convention as a character's facing) into the world plane. Non-finite inputs give no
    /// movement.
    pub fn from_input(
        raw_stick_camera: Vec2,
        camera_yaw_rad: f32,
        device: InputDevice,
        buttons: Buttons,
        config: &InputConfig,
    ) -> Intent {
        let shaped = shape_input(raw_stick_camera, device, config);
        let yaw = if camera_yaw_rad.is_finite() {
            camera_yaw_rad
        } else {
            0.0
        };
        let forward = yaw_to_direction(yaw);
        // The camera's right is its forward turned by −90° (its left is +90°, +X at yaw 0).
        let right = Vec2::new(-forward.y, forward.x);
        Intent {
            move_world: right * shaped.x + forward * shaped.y,
            jump: buttons.jump_pressed,
            crouch: buttons.crouch,
            sprint: buttons.sprint,
            aim: buttons.aim,
            face_yaw_rad: None,
        }
        .sanitized()
    }

    /// Builder: face `yaw_rad` (aiming / strafing) instead of the movement direction.
    pub fn facing(mut self, yaw_rad: f32) -> Intent {
        self.face_yaw_rad = Some(yaw_rad);
        self
    }

    /// The same intent with every field safe to use: a non-finite `move_world` becomes zero,
    /// a longer than unit one (even with huge components) is shortened to length 1, a non-finite `face_yaw_rad` becomes
    /// `None`.
    pub fn sanitized(self) -> Intent {
        let move_world = match direction_and_length(self.move_world) {
            Some((direction, length)) if length > 1.0 => direction,
            Some(_) => self.move_world,
            None => Vec2::ZERO,
        };
        Intent {
            move_world,
            face_yaw_rad: self.face_yaw_rad.filter(|yaw| yaw.is_finite()),
            ..self
        }
    }

    /// How hard the intent pushes, `0..=1` (after sanitising).
    pub fn magnitude(&self) -> f32 {
        self.sanitized().move_world.length().min(1.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::f32::consts::FRAC_PI_2;

    fn close(a: Vec2, b: Vec2) -> bool {
        (a - b).length() < 1e-5
    }

    #[test]
    fn camera_relative_input_rotates_into_world() {
        let cfg = InputConfig::default();
        let b = Buttons::default();
        let ai = InputDevice::Ai;
        // Camera looking down +Z: stick forward → +Z, stick right → −X (the left is +X).
        let f = Intent::from_input(Vec2::Y, 0.0, ai, b, &cfg);
        assert!(close(f.move_world, Vec2::new(0.0, 1.0)), "{f:?}");
        let r = Intent::from_input(Vec2::X, 0.0, ai, b, &cfg);
        assert!(close(r.move_world, Vec2::new(-1.0, 0.0)), "{r:?}");
        // Camera turned +90° (looking down +X): forward → +X, right → +Z.
        let f = Intent::from_input(Vec2::Y, FRAC_PI_2, ai, b, &cfg);
        assert!(close(f.move_world, Vec2::new(1.0, 0.0)), "{f:?}");
        let r = Intent::from_input(Vec2::X, FRAC_PI_2, ai, b, &cfg);
        assert!(close(r.move_world, Vec2::new(0.0, 1.0)), "{r:?}");
        // Yaw and direction helpers agree.
        for yaw in [-3.0f32, -1.0, 0.0, 0.5, 2.9] {
            assert!((direction_to_yaw(yaw_to_direction(yaw)) - yaw).abs() < 1e-5);
        }
    }

    #[test]
    fn from_input_shapes_and_copies_buttons() {
        let cfg = InputConfig::default();
        let buttons = Buttons {
            jump_pressed: true,
            crouch: false,
            sprint: true,
            aim: true,
        };
        let i = Intent::from_input(
            Vec2::new(0.0, 0.1),
            0.3,
            InputDevice::Gamepad,
            buttons,
            &cfg,
        );
        assert_eq!(i.move_world, Vec2::ZERO, "inside the gamepad dead zone");
        assert!(i.jump && i.sprint && i.aim && !i.crouch);
        let full = Intent::from_input(
            Vec2::new(1.0, 1.0),
            0.3,
            InputDevice::Keyboard,
            buttons,
            &cfg,
        );
        assert!((full.magnitude() - 1.0).abs() < 1e-5);
    }

    #[test]
    fn sanitising_non_finite_fields() {
        let cfg = InputConfig::default();
        let i = Intent::from_input(
            Vec2::new(f32::NAN, 1.0),
            f32::INFINITY,
            InputDevice::Touch,
            Buttons::default(),
            &cfg,
        );
        assert_eq!(i.move_world, Vec2::ZERO);
        let j = Intent::from_input(
            Vec2::Y,
            f32::NAN,
            InputDevice::Touch,
            Buttons::default(),
            &cfg,
        );
        assert!(close(j.move_world, Vec2::Y), "NaN camera yaw counts as 0");
        let s = Intent {
            move_world: Vec2::new(3.0, 4.0),
            face_yaw_rad: Some(f32::NAN),
            ..Intent::IDLE
        }
        .sanitized();
        assert!(close(s.move_world, Vec2::new(0.6, 0.8)));
        assert_eq!(s.face_yaw_rad, None);
        let inf = Intent {
            move_world: Vec2::new(f32::INFINITY, 0.0),
            ..Intent::IDLE
        };
        assert_eq!(inf.sanitized().move_world, Vec2::ZERO);
        assert_eq!(inf.magnitude(), 0.0);
        let huge = Intent {
            move_world: Vec2::new(f32::MAX, f32::MAX),
            ..Intent::IDLE
        };
        let huge = huge.sanitized().move_world;
        assert!((huge - Vec2::splat(std::f32::consts::FRAC_1_SQRT_2)).length() < 1e-6);
        assert_eq!(Intent::IDLE.facing(1.0).face_yaw_rad, Some(1.0));
    }
}
