//! Where the tilt's normal comes from (SPEC TILT-9): the ground under the character, a
//! mount's or vehicle's up vector, or anything a host implements (a wall for cover).
//!
//! The stage asks a [`NormalSource`] for a [`GroundFrame`] once per tick. A character holds
//! a [`NormalSourceChoice`] (plain serde data) for the built-in sources; hosts pass their own
//! `&dyn NormalSource` to [`super::PelvisTilt::update`] instead.

use glam::Vec3;

use super::ground_frame::{sample_ground_frame, FrameQuery, GroundFrame};

/// A provider of the frame the pelvis tilts toward.
pub trait NormalSource {
    /// Fills `frame` for this tick (it arrives holding the previous contents; overwrite
    /// every field you report, e.g. start from [`GroundFrame::clear`]). Must not panic or
    /// write NaN; report [`super::FrameCase::Invalid`] for unusable input.
    fn sample_frame(&self, query: &FrameQuery<'_>, frame: &mut GroundFrame);
}

/// The ground under the character from downward rays ([`sample_ground_frame`], TILT-1).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GroundRays;

impl NormalSource for GroundRays {
    fn sample_frame(&self, query: &FrameQuery<'_>, frame: &mut GroundFrame) {
        sample_ground_frame(query, frame);
    }
}

/// A fixed up vector (world), e.g. the saddle of a mount or a vehicle's floor. No rays and
/// no airborne exit: while a fixed source is used the caller decides when the tilt applies
/// (pass `grounded: true` while mounted).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FixedNormal {
    /// The up vector (world, any positive length). Non-finite, (near) zero or pointing
    /// below the horizon gives [`super::FrameCase::Invalid`]: no tilt.
    pub normal_world: Vec3,
}

impl NormalSource for FixedNormal {
    fn sample_frame(&self, _query: &FrameQuery<'_>, frame: &mut GroundFrame) {
        frame.clear();
        let fixed = GroundFrame::fixed(self.normal_world);
        frame.case = fixed.case;
        frame.normal_world = fixed.normal_world;
    }
}

/// The built-in normal sources, as a character stores its choice (serde data).
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub enum NormalSourceChoice {
    /// [`GroundRays`].
    #[default]
    Ground,
    /// [`FixedNormal`] with this world up vector.
    Fixed { normal_world: Vec3 },
}

impl NormalSource for NormalSourceChoice {
    fn sample_frame(&self, query: &FrameQuery<'_>, frame: &mut GroundFrame) {
        match *self {
            Self::Ground => GroundRays.sample_frame(query, frame),
            Self::Fixed { normal_world } => FixedNormal { normal_world }.sample_frame(query, frame),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tilt::{FrameCase, PelvisTilt, TiltInput};
    use crate::world::testing::HeightWorld;
    use crate::world::QueryFilter;

    /// A floor at height 0 everywhere (as on the test course's flat lane).
    fn floor() -> HeightWorld<impl Fn(f32, f32) -> Option<(f32, Vec3)>> {
        HeightWorld::new(|_, _| Some((0.0, Vec3::Y)))
    }

    fn input(world: &dyn crate::world::SpatialQueries, facing_yaw_rad: f32) -> TiltInput<'_> {
        // High above the floor: the ground rays would report airborne.
        let root = Vec3::new(0.0, 50.0, 5.0);
        TiltInput {
            world,
            filter: QueryFilter::GROUND,
            root_world: root,
            facing_yaw_rad,
            pelvis_model: Vec3::new(0.0, 0.93, 0.0),
            feet_world: [root, root],
            grounded: true,
            aiming: false,
            dt_s: 1.0 / 60.0,
        }
    }

    #[test]
    fn fixed_normal_drives_the_tilt_without_rays() {
        let world = floor();
        // A mount's up vector tilted 15° nose-up for a rider facing +X (yaw 90°).
        let grade = 15f32.to_radians();
        let up = Vec3::new(-grade.sin(), grade.cos(), 0.0) * 2.0;
        let source = NormalSourceChoice::Fixed { normal_world: up };
        let mut stage = PelvisTilt::default();
        let mut last = None;
        for _ in 0..180 {
            last = Some(stage.update(&input(&world, std::f32::consts::FRAC_PI_2), &source));
        }
        let out = last.unwrap();
        assert_eq!(out.frame.case, FrameCase::Fixed);
        assert_eq!(out.frame.ray_count, 0);
        assert!(!out.airborne);
        assert!((out.frame.normal_world - up.normalize()).length() < 1e-6);
        assert!((out.pitch_rad - grade).abs() < 1e-4, "{}", out.pitch_rad);
        assert!(out.roll_rad.abs() < 1e-4);

        // The ground source at the same place sees nothing: airborne, no tilt target.
        let out = stage.update(
            &input(&world, std::f32::consts::FRAC_PI_2),
            &NormalSourceChoice::Ground,
        );
        assert_eq!(out.frame.case, FrameCase::Airborne);
        assert_eq!(out.frame.ray_count, 3);
        assert_eq!((out.target_pitch_rad, out.target_roll_rad), (0.0, 0.0));
    }

    #[test]
    fn bad_fixed_normals_are_invalid() {
        for normal_world in [Vec3::NAN, Vec3::ZERO, -Vec3::Y, Vec3::X] {
            let frame = GroundFrame::fixed(normal_world);
            assert_eq!(frame.case, FrameCase::Invalid, "{normal_world}");
            assert_eq!(frame.normal_world, Vec3::Y);
        }
    }

    /// A host's own source, e.g. a wall for cover: the normal leans 10° toward world -X.
    struct LeanLeft;

    impl NormalSource for LeanLeft {
        fn sample_frame(&self, _query: &FrameQuery<'_>, frame: &mut GroundFrame) {
            frame.clear();
            let lean = 10f32.to_radians();
            frame.case = FrameCase::Fixed;
            frame.normal_world = Vec3::new(-lean.sin(), lean.cos(), 0.0);
        }
    }

    /// A broken host source that writes NaN.
    struct Broken;

    impl NormalSource for Broken {
        fn sample_frame(&self, _query: &FrameQuery<'_>, frame: &mut GroundFrame) {
            frame.case = FrameCase::Plane;
            frame.normal_world = Vec3::NAN;
            frame.ray_count = usize::MAX;
        }
    }

    #[test]
    fn hosts_pass_their_own_source() {
        let world = floor();
        let mut stage = PelvisTilt::default();
        let source: &dyn NormalSource = &LeanLeft;
        for _ in 0..180 {
            stage.update(&input(&world, 0.0), source);
        }
        // The normal leans toward world -X: the surface rises toward +X, the left of a
        // character facing +Z: roll +10°.
        let out = stage.update(&input(&world, 0.0), source);
        assert!(
            (out.roll_rad - 10f32.to_radians()).abs() < 1e-4,
            "{}",
            out.roll_rad
        );
        assert!(out.pitch_rad.abs() < 1e-4);

        let out = stage.update(&input(&world, 0.0), &Broken);
        assert_eq!(out.frame.case, FrameCase::Invalid);
        assert!(out.airborne && out.pitch_rad.is_finite() && out.roll_rad.is_finite());
        assert!(out.frame.rays().len() <= crate::tilt::MAX_FRAME_RAYS);
    }

    #[test]
    fn choice_round_trips_through_ron() {
        for choice in [
            NormalSourceChoice::Ground,
            NormalSourceChoice::Fixed {
                normal_world: Vec3::new(0.1, 1.0, 0.0),
            },
        ] {
            let text = ron::to_string(&choice).unwrap();
            assert_eq!(ron::from_str::<NormalSourceChoice>(&text).unwrap(), choice);
        }
    }
}
