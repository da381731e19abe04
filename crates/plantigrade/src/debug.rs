//! Backend-neutral debug draw (SPEC IK-12, TILT-10): the procedural pass pushes lines,
//! spheres and axes into a [`DebugDraw`] buffer; a renderer (Bevy gizmos, the lab's plots)
//! draws [`DebugDraw::commands`] however it likes, and the lab can dump them as JSON (serde).
//!
//! Everything is in **world** space (metres), since that is where a renderer draws. Colours
//! carry the meaning ([`Rgba::HIT`] green, [`Rgba::MISS`] red, …) so every backend shows the
//! same picture.
//!
//! Cost: a disabled buffer returns from every pusher before doing anything. An enabled one
//! reuses its storage: [`DebugDraw::clear`] keeps the capacity, so after the first frames
//! (or [`DebugDraw::with_capacity`]) pushing never allocates. Commands with a non-finite
//! coordinate are dropped (a NaN would poison a renderer's bounds and is not valid JSON).

use glam::{Quat, Vec3};

/// Radius of the sphere marking a probe's hit point (metres): 3 cm, as in the seed's
/// `DrawDebugSphere`.
pub const HIT_SPHERE_RADIUS_M: f32 = 0.03;
/// Radius of the sphere marking a predicted foot point (metres).
pub const PREDICTED_SPHERE_RADIUS_M: f32 = 0.04;
/// Radius of the sphere at the end of the pelvis offset line (metres).
pub const PELVIS_SPHERE_RADIUS_M: f32 = 0.025;

/// A linear RGBA colour, each channel in `[0, 1]`.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Rgba {
    pub r: f32,
    pub g: f32,
    pub b: f32,
    pub a: f32,
}

impl Rgba {
    pub const fn new(r: f32, g: f32, b: f32, a: f32) -> Self {
        Self { r, g, b, a }
    }

    /// A probe (ray) that hit the ground.
    pub const HIT: Self = Self::new(0.1, 0.85, 0.2, 1.0);
    /// A probe (ray) that missed.
    pub const MISS: Self = Self::new(0.95, 0.15, 0.1, 1.0);
    /// The hit point sphere: light blue, as in the seed, so it stands out on the green line.
    pub const HIT_POINT: Self = Self::new(0.45, 0.8, 1.0, 1.0);
    /// A predicted foot landing point (look-ahead).
    pub const PREDICTED: Self = Self::new(0.95, 0.5, 0.05, 1.0);
    /// The pelvis offset (animated pelvis → corrected pelvis).
    pub const PELVIS_OFFSET: Self = Self::new(1.0, 0.9, 0.1, 1.0);
    /// The pelvis's own axes.
    pub const PELVIS_AXES: Self = Self::new(0.85, 0.85, 0.85, 1.0);
    /// The tilt the filter aims at (target ground frame).
    pub const TILT_TARGET: Self = Self::new(0.9, 0.25, 0.9, 1.0);
    /// The tilt actually applied (damped).
    pub const TILT_ACTUAL: Self = Self::new(0.2, 0.9, 0.9, 1.0);

    /// This colour with its RGB scaled by `factor` (alpha kept), for shading axes.
    pub fn shaded(self, factor: f32) -> Self {
        Self::new(self.r * factor, self.g * factor, self.b * factor, self.a)
    }
}

/// Brightness of the X, Y and Z lines of an [`DebugCommand::Axes`], so they can be told
/// apart in one colour.
pub const AXIS_SHADES: [f32; 3] = [1.0, 0.7, 0.4];

/// One thing to draw, in **world** space.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum DebugCommand {
    /// A line segment.
    Line {
        start_world: Vec3,
        end_world: Vec3,
        color: Rgba,
    },
    /// A wire sphere.
    Sphere {
        center_world: Vec3,
        radius_m: f32,
        color: Rgba,
    },
    /// A coordinate frame: three lines of `length_m` from `origin_world` along the rotated
    /// X, Y and Z axes, in `color` shaded by [`AXIS_SHADES`] (see [`DebugCommand::axis_lines`]).
    Axes {
        origin_world: Vec3,
        rotation_world: Quat,
        length_m: f32,
        color: Rgba,
    },
}

impl DebugCommand {
    /// For an `Axes` command, its three lines `(start_world, end_world, color)` in X, Y, Z
    /// order, so every backend draws axes the same way; `None` for other commands.
    pub fn axis_lines(&self) -> Option<[(Vec3, Vec3, Rgba); 3]> {
        match *self {
            Self::Axes {
                origin_world,
                rotation_world,
                length_m,
                color,
            } => {
                let line = |axis: Vec3, shade: f32| {
                    (
                        origin_world,
                        origin_world + rotation_world * axis * length_m,
                        color.shaded(shade),
                    )
                };
                Some([
                    line(Vec3::X, AXIS_SHADES[0]),
                    line(Vec3::Y, AXIS_SHADES[1]),
                    line(Vec3::Z, AXIS_SHADES[2]),
                ])
            }
            _ => None,
        }
    }
}

/// A reusable buffer of debug commands for one frame (or one character).
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct DebugDraw {
    enabled: bool,
    commands: Vec<DebugCommand>,
}

impl DebugDraw {
    /// An empty buffer; `enabled` false makes every pusher a no-op.
    pub fn new(enabled: bool) -> Self {
        Self {
            enabled,
            commands: Vec::new(),
        }
    }

    /// An empty buffer with room for `capacity` commands, so pushing up to that many never
    /// allocates. A disabled buffer reserves nothing.
    pub fn with_capacity(enabled: bool, capacity: usize) -> Self {
        Self {
            enabled,
            commands: if enabled {
                Vec::with_capacity(capacity)
            } else {
                Vec::new()
            },
        }
    }

    pub fn enabled(&self) -> bool {
        self.enabled
    }

    /// Turns drawing on or off. Turning it off clears the commands (keeping the storage).
    pub fn set_enabled(&mut self, enabled: bool) {
        self.enabled = enabled;
        if !enabled {
            self.commands.clear();
        }
    }

    /// Drops every command, keeping the storage for the next frame.
    pub fn clear(&mut self) {
        self.commands.clear();
    }

    /// The commands pushed since the last [`DebugDraw::clear`], in push order.
    pub fn commands(&self) -> &[DebugCommand] {
        &self.commands
    }

    /// How many commands fit before the buffer must grow.
    pub fn capacity(&self) -> usize {
        self.commands.capacity()
    }

    /// A line segment from `start_world` to `end_world`.
    pub fn line(&mut self, start_world: Vec3, end_world: Vec3, color: Rgba) {
        if self.enabled && start_world.is_finite() && end_world.is_finite() {
            self.commands.push(DebugCommand::Line {
                start_world,
                end_world,
                color,
            });
        }
    }

    /// A sphere of `radius_m` (negative counts as 0) around `center_world`.
    pub fn sphere(&mut self, center_world: Vec3, radius_m: f32, color: Rgba) {
        if self.enabled && center_world.is_finite() && radius_m.is_finite() {
            self.commands.push(DebugCommand::Sphere {
                center_world,
                radius_m: radius_m.max(0.0),
                color,
            });
        }
    }

    /// A coordinate frame at `origin_world` rotated by `rotation_world` (normalised here),
    /// each axis `length_m` long.
    pub fn axes(&mut self, origin_world: Vec3, rotation_world: Quat, length_m: f32, color: Rgba) {
        if self.enabled
            && origin_world.is_finite()
            && rotation_world.is_finite()
            && length_m.is_finite()
            && rotation_world.length_squared() > 1e-12
        {
            self.commands.push(DebugCommand::Axes {
                origin_world,
                rotation_world: rotation_world.normalize(),
                length_m,
                color,
            });
        }
    }

    /// A ground probe (IK-12, TILT-10): a green line from `origin_world` to `end_world` and a
    /// [`HIT_SPHERE_RADIUS_M`] sphere at the hit point when `hit_world` is `Some`; a red
    /// line when the probe missed.
    pub fn ray_probe(&mut self, origin_world: Vec3, end_world: Vec3, hit_world: Option<Vec3>) {
        if !self.enabled {
            return;
        }
        match hit_world {
            Some(hit_world) => {
                self.line(origin_world, end_world, Rgba::HIT);
                self.sphere(hit_world, HIT_SPHERE_RADIUS_M, Rgba::HIT_POINT);
            }
            None => self.line(origin_world, end_world, Rgba::MISS),
        }
    }

    /// A predicted foot landing point (IK-12).
    pub fn predicted_point(&mut self, point_world: Vec3) {
        self.sphere(point_world, PREDICTED_SPHERE_RADIUS_M, Rgba::PREDICTED);
    }

    /// The pelvis offset (IK-12): a line from the animated pelvis to the corrected one, and a
    /// small sphere at the corrected one.
    pub fn pelvis_offset(&mut self, animated_pelvis_world: Vec3, corrected_pelvis_world: Vec3) {
        self.line(
            animated_pelvis_world,
            corrected_pelvis_world,
            Rgba::PELVIS_OFFSET,
        );
        self.sphere(
            corrected_pelvis_world,
            PELVIS_SPHERE_RADIUS_M,
            Rgba::PELVIS_OFFSET,
        );
    }

    /// The pelvis tilt (TILT-10): the pelvis's own axes at `pelvis_world`, and the target and
    /// actual tilt frames side by side, at `pelvis_world − side_offset_world` and
    /// `pelvis_world + side_offset_world` (e.g. half a metre along the character's left).
    pub fn tilt_axes(
        &mut self,
        pelvis_world: Vec3,
        pelvis_rotation_world: Quat,
        target_tilt_world: Quat,
        actual_tilt_world: Quat,
        side_offset_world: Vec3,
        length_m: f32,
    ) {
        self.axes(
            pelvis_world,
            pelvis_rotation_world,
            length_m,
            Rgba::PELVIS_AXES,
        );
        self.axes(
            pelvis_world - side_offset_world,
            target_tilt_world,
            length_m,
            Rgba::TILT_TARGET,
        );
        self.axes(
            pelvis_world + side_offset_world,
            actual_tilt_world,
            length_m,
            Rgba::TILT_ACTUAL,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn probes_are_coloured_by_hit_and_miss() {
        let mut draw = DebugDraw::new(true);
        let origin = Vec3::new(1.0, 1.5, 2.0);
        let end = Vec3::new(1.0, -0.5, 2.0);
        let hit = Vec3::new(1.0, 0.1, 2.0);
        draw.ray_probe(origin, end, Some(hit));
        draw.ray_probe(origin, end, None);
        assert_eq!(
            draw.commands(),
            &[
                DebugCommand::Line {
                    start_world: origin,
                    end_world: end,
                    color: Rgba::HIT
                },
                DebugCommand::Sphere {
                    center_world: hit,
                    radius_m: 0.03,
                    color: Rgba::HIT_POINT
                },
                DebugCommand::Line {
                    start_world: origin,
                    end_world: end,
                    color: Rgba::MISS
                },
            ]
        );
        // The hit line is mostly green, the miss line mostly red.
        let line_color = |command: &DebugCommand| match *command {
            DebugCommand::Line { color, .. } => color,
            _ => panic!("not a line: {command:?}"),
        };
        let hit = line_color(&draw.commands()[0]);
        let miss = line_color(&draw.commands()[2]);
        assert!(hit.g > 2.0 * hit.r && hit.g > 2.0 * hit.b);
        assert!(miss.r > 2.0 * miss.g && miss.r > 2.0 * miss.b);
    }

    #[test]
    fn disabled_buffer_stays_empty() {
        let mut draw = DebugDraw::with_capacity(false, 64);
        assert_eq!(draw.capacity(), 0);
        draw.ray_probe(Vec3::ZERO, Vec3::NEG_Y, Some(Vec3::NEG_Y));
        draw.line(Vec3::ZERO, Vec3::X, Rgba::HIT);
        draw.sphere(Vec3::ZERO, 1.0, Rgba::HIT);
        draw.axes(Vec3::ZERO, Quat::IDENTITY, 0.2, Rgba::PELVIS_AXES);
        draw.predicted_point(Vec3::ZERO);
        draw.pelvis_offset(Vec3::ZERO, Vec3::Y);
        assert!(draw.commands().is_empty());
        assert_eq!(draw.capacity(), 0);
        // Turning it on starts recording; turning it off clears.
        draw.set_enabled(true);
        draw.line(Vec3::ZERO, Vec3::X, Rgba::HIT);
        assert_eq!(draw.commands().len(), 1);
        draw.set_enabled(false);
        assert!(draw.commands().is_empty());
    }

    #[test]
    fn clear_keeps_capacity_over_many_frames() {
        let mut draw = DebugDraw::new(true);
        let frame = |draw: &mut DebugDraw, i: usize| {
            let x = i as f32 * 0.01;
            for foot in 0..2 {
                let origin = Vec3::new(x, 1.0, foot as f32);
                let hit = (i % 3 != 0).then_some(Vec3::new(x, 0.0, foot as f32));
                draw.ray_probe(origin, origin - Vec3::Y * 1.5, hit);
                draw.predicted_point(origin - Vec3::Y);
            }
            draw.pelvis_offset(Vec3::Y, Vec3::Y * 0.95);
            draw.tilt_axes(
                Vec3::Y,
                Quat::IDENTITY,
                Quat::from_rotation_x(0.1),
                Quat::from_rotation_x(0.05),
                Vec3::X * 0.5,
                0.2,
            );
        };
        // Warm-up frame: the largest frame (every probe hits) sets the capacity.
        frame(&mut draw, 1);
        let commands_per_full_frame = draw.commands().len();
        assert_eq!(commands_per_full_frame, 2 * 3 + 2 + 3);
        let capacity = draw.capacity();
        let pointer = draw.commands().as_ptr();
        for i in 0..1000 {
            draw.clear();
            assert!(draw.commands().is_empty());
            frame(&mut draw, i);
            assert_eq!(draw.capacity(), capacity, "frame {i}");
            assert_eq!(draw.commands().as_ptr(), pointer, "frame {i}");
        }
    }

    #[test]
    fn non_finite_commands_are_dropped() {
        let mut draw = DebugDraw::new(true);
        draw.line(Vec3::NAN, Vec3::ZERO, Rgba::HIT);
        draw.sphere(Vec3::ZERO, f32::INFINITY, Rgba::HIT);
        draw.axes(
            Vec3::ZERO,
            Quat::from_xyzw(0.0, 0.0, 0.0, 0.0),
            1.0,
            Rgba::HIT,
        );
        draw.ray_probe(Vec3::ZERO, Vec3::NEG_Y, Some(Vec3::NAN));
        // Only the probe's line survives; its NaN hit sphere is dropped.
        assert_eq!(draw.commands().len(), 1);
        draw.sphere(Vec3::ZERO, -1.0, Rgba::HIT);
        assert!(matches!(
            draw.commands()[1],
            DebugCommand::Sphere { radius_m, .. } if radius_m == 0.0
        ));
    }

    #[test]
    fn axes_expand_to_three_shaded_lines() {
        let mut draw = DebugDraw::new(true);
        let origin = Vec3::new(0.0, 1.0, 0.0);
        // 90° about Y: local X → world −Z, local Z → world +X.
        draw.axes(
            origin,
            Quat::from_rotation_y(std::f32::consts::FRAC_PI_2),
            0.5,
            Rgba::TILT_TARGET,
        );
        let [x, y, z] = draw.commands()[0].axis_lines().unwrap();
        assert!(x.1.distance(origin + Vec3::new(0.0, 0.0, -0.5)) < 1e-6);
        assert!(y.1.distance(origin + Vec3::new(0.0, 0.5, 0.0)) < 1e-6);
        assert!(z.1.distance(origin + Vec3::new(0.5, 0.0, 0.0)) < 1e-6);
        assert_eq!(x.2, Rgba::TILT_TARGET);
        assert!((y.2.r - 0.9 * 0.7).abs() < 1e-6);
        assert!((z.2.g - 0.25 * 0.4).abs() < 1e-6);
        assert!(DebugCommand::Line {
            start_world: origin,
            end_world: origin,
            color: Rgba::HIT
        }
        .axis_lines()
        .is_none());
    }

    #[test]
    fn serialized_commands_round_trip_with_named_fields() {
        let mut draw = DebugDraw::new(true);
        draw.ray_probe(
            Vec3::new(0.0, 1.0, 0.0),
            Vec3::new(0.0, -1.0, 0.0),
            Some(Vec3::new(0.0, 0.25, 0.0)),
        );
        draw.axes(
            Vec3::ZERO,
            Quat::from_rotation_x(0.5),
            0.2,
            Rgba::TILT_ACTUAL,
        );
        // The crate has RON but no JSON serializer as a dependency; RON goes through the same
        // serde derive, so the field names and the internal `kind` tag are what JSON gets.
        let text = ron::to_string(&draw).unwrap();
        for field in [
            "kind:\"line\"",
            "kind:\"sphere\"",
            "kind:\"axes\"",
            "start_world:",
            "end_world:",
            "center_world:",
            "radius_m:0.03",
            "origin_world:",
            "rotation_world:",
            "length_m:",
            "color:",
            "enabled:true",
        ] {
            assert!(text.contains(field), "{field} missing from {text}");
        }
        let back: DebugDraw = ron::from_str(&text).unwrap();
        assert_eq!(back, draw);
    }
}
