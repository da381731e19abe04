//! Characters of any size: the settings' lengths and speeds follow the rig's leg length, so
//! a 1 m rig and a 3 m rig behave like the mannequin scaled (issue 17, item 7).
//!
//! A scaled mannequin plays the same clips at the same rate, so its lengths (capsule, probe
//! reach, lock and placement distances) and its gait speeds and accelerations scale with
//! its size. The step it climbs and the drop it snaps down grow with a bigger rig but do not
//! shrink below the mannequin's: levels keep human stairs whoever walks them (and so does
//! the root speed the pelvis takes for such a step, not a slope). Gravity is the
//! world's, not the character's: a jump rises `factor` times as high with `√factor` times
//! the take-off speed, and a fall from `factor` times the height lands `√factor` times as
//! fast. Rates (1/s), angles, times and fractions do not change.

use crate::bone_map::HumanoidMap;
use crate::clip::{Clip, ClipError, JointTracks, Track};
use crate::ik::{FootIkError, FootRig};
use crate::motion::{CharacterConfig, Curve};
use crate::settings::{CharacterSettings, SettingsError};
use crate::skeleton::{Joint, Skeleton, SkeletonError, Transform};
use crate::world::Capsule;

/// The built-in mannequin's leg length: hip to knee to ankle in its rest pose (m). The size
/// every default setting is tuned for (a test checks it against the mannequin).
pub const MANNEQUIN_LEG_LENGTH_M: f32 = 0.82;

/// A rig's leg length: hip to knee to ankle in the rest pose, the mean of both legs (m).
/// Errors when foot IK would find no legs (the reason is the same).
pub fn leg_length_m(skeleton: &Skeleton, map: &HumanoidMap) -> Result<f32, FootIkError> {
    let rig = FootRig::new(skeleton, map)?;
    Ok(0.5 * (rig.legs[0].leg_length_m + rig.legs[1].leg_length_m))
}

/// How much bigger than the mannequin a rig is, by leg length (1 = the mannequin's size).
pub fn rig_scale(skeleton: &Skeleton, map: &HumanoidMap) -> Result<f32, FootIkError> {
    Ok(leg_length_m(skeleton, map)? / MANNEQUIN_LEG_LENGTH_M)
}

/// Why settings could not be scaled.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ScaleError {
    #[error("scale factor {0} must be a finite number above 0")]
    BadFactor(f32),
    /// Says its detail itself and gives no `source()` (see [`SettingsError::Motion`]).
    #[error("the scaled settings are refused: {0}")]
    Invalid(SettingsError),
}

from_cause_in_message!(SettingsError => ScaleError::Invalid);

impl CharacterSettings {
    /// These settings for a character `factor` times the size they were tuned for (see the
    /// module's rules). The bone map, root motion, query layers, LOD distances (the
    /// viewer's, not the body's) and every rate, angle and time are kept.
    pub fn scaled(&self, factor: f32) -> Result<CharacterSettings, ScaleError> {
        if !(factor.is_finite() && factor > 0.0) {
            return Err(ScaleError::BadFactor(factor));
        }
        let length = factor;
        let speed = factor;
        // Under the world's gravity: heights scale by `factor`, so speeds by its root.
        let fall_speed = factor.sqrt();
        let mut s = self.clone();

        s.motion = scaled_motion(&self.motion, length, speed, fall_speed);

        let f = &mut s.foot_ik;
        f.probe.look_ahead_full_speed_m_s *= speed;
        // A ray starts above the foot by at least a human stair's riser, as the step the
        // capsule climbs does (`level`): Quaternius' 0.2 m (0.65 of 0.3) started its toe
        // ray inside the 20 cm step ahead, found nothing and set its ball 10 cm into it.
        let level = length.max(1.0);
        f.probe.probe_up_m *= level;
        f.probe.probe_down_m *= length;
        f.probe.max_rise_ahead_m *= level;
        f.probe.edge_mismatch_m *= length;
        f.pelvis.max_drop_m *= length;
        f.pelvis.max_raise_m *= length;
        // What tells the capsule's steps (human stairs, at `level`) from a slope's climb
        // (at the rig's speed): a smaller rig's pelvis that took back every root speed
        // over 0.92 m/s (KayKit) held itself up as the capsule stepped down a 20 cm
        // riser, and its feet hung over the tread below (float p95 14.9 mm running down).
        f.pelvis.step_speed_m_s *= speed.max(1.0);
        f.lock.max_distance_m *= length;
        f.lock.settle_distance_m *= length;
        f.lock.step_min_offset_m *= length;
        f.lock.max_reach_drop_m *= length;
        f.contact_speed_threshold_m_s *= speed;
        f.contact_lift_full_m *= length;
        f.contact_lift_none_m *= length;
        f.max_placement_m *= length;
        f.placement_margin_m *= length;
        f.release_step_height_m *= length;

        let g = &mut s.tilt.ground;
        g.step_min_height_m *= length;
        g.step_max_height_min_m *= length;
        g.stairs_probe_half_length_m *= length;
        s.tilt.slope_speed.max_step_rise_m *= length;

        let i = &mut s.impact;
        i.min_speed_m_s *= speed;
        // Dip (a length) per impact speed (a fall speed).
        i.dip_per_impact_s *= length / fall_speed;
        i.max_dip_m *= length;
        i.trunk_flex_per_dip_rad_per_m /= length;

        s.validate()?;
        Ok(s)
    }

    /// These settings scaled to `skeleton`'s size by leg length ([`rig_scale`]), with the
    /// factor used.
    pub fn scaled_to_rig(
        &self,
        skeleton: &Skeleton,
        map: &HumanoidMap,
    ) -> Result<(CharacterSettings, f32), RigScaleError> {
        let factor = rig_scale(skeleton, map)?;
        Ok((self.scaled(factor)?, factor))
    }
}

/// Why settings could not be scaled to a rig.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum RigScaleError {
    #[error("the rig's legs are not usable to measure its size: {0}")]
    NoLegs(FootIkError),
    #[error(transparent)]
    Scale(#[from] ScaleError),
}

from_cause_in_message!(FootIkError => RigScaleError::NoLegs);

/// Why a rig could not be resized.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ResizeError {
    #[error("scale factor {0} must be a finite number above 0")]
    BadFactor(f32),
    #[error(transparent)]
    Skeleton(#[from] SkeletonError),
    #[error("clip '{clip}': {error}")]
    Clip { clip: String, error: ClipError },
}

/// `skeleton` and its `clips` `factor` times the size: every joint offset and every
/// translation key (and authored velocity) times `factor`; rotations, scales, timing,
/// curves and events kept. A file exported in the wrong unit, or a mannequin of another
/// size for tests.
pub fn resize_rig(
    skeleton: &Skeleton,
    clips: &[Clip],
    factor: f32,
) -> Result<(Skeleton, Vec<Clip>), ResizeError> {
    if !(factor.is_finite() && factor > 0.0) {
        return Err(ResizeError::BadFactor(factor));
    }
    let joints = (0..skeleton.num_joints())
        .map(|j| {
            let rest = skeleton.rest_local()[j];
            Joint {
                name: skeleton.name(j).to_string(),
                parent: skeleton.parent(j),
                rest_local: Transform {
                    translation: rest.translation * factor,
                    ..rest
                },
            }
        })
        .collect();
    let resized = Skeleton::new(joints)?;
    let clips = clips
        .iter()
        .map(|clip| {
            resize_clip(clip, factor).map_err(|error| ResizeError::Clip {
                clip: clip.name().to_string(),
                error,
            })
        })
        .collect::<Result<_, _>>()?;
    Ok((resized, clips))
}

fn resize_clip(clip: &Clip, factor: f32) -> Result<Clip, ClipError> {
    let joints = clip
        .joint_tracks()
        .iter()
        .map(|tracks| {
            let translation = match &tracks.translation {
                // Cubic tangents are translations too: every value scales.
                Some(t) => Some(Track::new(
                    t.interpolation(),
                    t.times_s().to_vec(),
                    t.values().iter().map(|v| *v * factor).collect(),
                )?),
                None => None,
            };
            Ok(JointTracks {
                translation,
                ..tracks.clone()
            })
        })
        .collect::<Result<Vec<_>, ClipError>>()?;
    let resized = clip.with_joint_tracks(joints);
    match clip.authored_velocity_model_m_s() {
        Some(velocity) => resized.with_authored_velocity(velocity * factor),
        None => Ok(resized),
    }
}

fn scaled_motion(
    config: &CharacterConfig,
    length: f32,
    speed: f32,
    fall_speed: f32,
) -> CharacterConfig {
    let mut c = config.clone();
    c.walk_speed_m_s *= speed;
    c.run_speed_m_s *= speed;
    c.sprint_speed_m_s *= speed;
    c.crouch_speed_m_s *= speed;
    // Accelerations follow the speeds, so a start or a stop takes the same time.
    c.acceleration_m_s2 = scaled_curve(&config.acceleration_m_s2, speed);
    c.deceleration_m_s2 = scaled_curve(&config.deceleration_m_s2, speed);
    c.jump_speed_m_s *= fall_speed;
    c.heavy_landing_speed_m_s *= fall_speed;
    c.jump_phase_threshold_m_s *= fall_speed;
    c.moving_speed_threshold_m_s *= speed;
    c.push_wall.max_actual_speed_m_s *= speed;
    c.stand_capsule = scaled_capsule(config.stand_capsule, length);
    c.crouch_capsule = scaled_capsule(config.crouch_capsule, length);
    let m = &mut c.move_limits;
    // How high a step the capsule climbs and how far it snaps down are about the level as
    // much as the body: levels are built with human stairs (15–20 cm), and a character half
    // the mannequin's size that could not step 20 cm stalls at every riser going up and
    // falls (Jump) off every tread going down. They grow with a bigger rig only.
    let level = length.max(1.0);
    m.step_height_m = m.step_height_m.map(|h| h * level);
    m.step_min_width_m *= length;
    m.snap_to_ground_m = m.snap_to_ground_m.map(|d| d * level);
    // The skin is numerical room between capsule and world, not part of the body.
    c
}

fn scaled_capsule(capsule: Capsule, length: f32) -> Capsule {
    Capsule {
        radius_m: capsule.radius_m * length,
        half_height_m: capsule.half_height_m * length,
    }
}

/// `curve` with its values (not its normalized-speed axis) times `factor`.
fn scaled_curve(curve: &Curve, factor: f32) -> Curve {
    let points: Vec<(f32, f32)> = curve
        .points()
        .iter()
        .map(|&(x, y)| (x, y * factor))
        .collect();
    Curve::new(points).unwrap_or_else(|_| curve.clone())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mannequin::Mannequin;

    #[test]
    fn mannequin_leg_length_is_the_constant() {
        let m = Mannequin::new();
        let map = HumanoidMap::detect(&m.skeleton);
        let leg = leg_length_m(&m.skeleton, &map).unwrap();
        assert!(
            (leg - MANNEQUIN_LEG_LENGTH_M).abs() < 0.005,
            "mannequin leg {leg} m"
        );
        assert!((rig_scale(&m.skeleton, &map).unwrap() - 1.0).abs() < 0.01);
    }

    #[test]
    fn scale_one_changes_nothing() {
        let s = CharacterSettings::default();
        assert_eq!(s.scaled(1.0).unwrap(), s);
    }

    #[test]
    fn lengths_and_speeds_follow_the_factor_and_jumps_its_root() {
        let base = CharacterSettings::default();
        let half = base.scaled(0.5).unwrap();
        let close = |a: f32, b: f32| (a - b).abs() < 1e-5;
        let (m, h) = (&base.motion, &half.motion);
        assert!(close(
            h.stand_capsule.height_m(),
            0.5 * m.stand_capsule.height_m()
        ));
        assert!(close(
            h.stand_capsule.radius_m,
            0.5 * m.stand_capsule.radius_m
        ));
        // The step and the snap keep the level's human stairs for a smaller rig...
        assert_eq!(h.move_limits.step_height_m, m.move_limits.step_height_m);
        assert_eq!(
            h.move_limits.snap_to_ground_m,
            m.move_limits.snap_to_ground_m
        );
        // ...and grow with a bigger one.
        let double = base.scaled(2.0).unwrap().motion;
        assert!(close(
            double.move_limits.step_height_m.unwrap(),
            2.0 * m.move_limits.step_height_m.unwrap()
        ));
        assert!(close(h.run_speed_m_s, 0.5 * m.run_speed_m_s));
        assert!(close(
            h.acceleration_m_s2.sample(0.0),
            0.5 * m.acceleration_m_s2.sample(0.0)
        ));
        // Same gravity: half the jump height needs 1/√2 of the take-off speed.
        let height = |c: &CharacterConfig| c.jump_speed_m_s.powi(2) / (2.0 * c.gravity_m_s2);
        assert!(close(height(h), 0.5 * height(m)));
        assert_eq!(h.gravity_m_s2, m.gravity_m_s2);
        assert!(close(
            half.foot_ik.probe.probe_down_m,
            0.5 * base.foot_ik.probe.probe_down_m
        ));
        assert!(close(
            half.foot_ik.lock.max_distance_m,
            0.5 * base.foot_ik.lock.max_distance_m
        ));
        // A probe starts a human riser above the foot whatever the rig's size, and
        // higher above a bigger one's.
        for probe in [
            |s: &CharacterSettings| s.foot_ik.probe.probe_up_m,
            |s: &CharacterSettings| s.foot_ik.probe.max_rise_ahead_m,
        ] {
            assert_eq!(probe(&half), probe(&base));
            assert!(close(probe(&base.scaled(2.0).unwrap()), 2.0 * probe(&base)));
        }
        // The pelvis's threshold for the capsule's steps keeps them human for a smaller
        // rig, and grows with a bigger one, as the step height does.
        assert_eq!(
            half.foot_ik.pelvis.step_speed_m_s,
            base.foot_ik.pelvis.step_speed_m_s
        );
        assert!(close(
            base.scaled(2.0).unwrap().foot_ik.pelvis.step_speed_m_s,
            2.0 * base.foot_ik.pelvis.step_speed_m_s
        ));
        // Times and rates stay.
        assert_eq!(half.foot_ik.contact_ease_s, base.foot_ik.contact_ease_s);
        assert_eq!(half.motion.coyote_time_s, base.motion.coyote_time_s);
        assert_eq!(half.lod, base.lod);
    }

    #[test]
    fn a_resized_mannequin_has_its_size_and_keeps_its_timing() {
        let m = Mannequin::new();
        let (skeleton, clips) = resize_rig(&m.skeleton, &m.clips, 2.0).unwrap();
        let map = HumanoidMap::detect(&skeleton);
        assert!((rig_scale(&skeleton, &map).unwrap() - 2.0).abs() < 0.02);
        let walk = |clips: &[Clip]| clips.iter().find(|c| c.name() == "Walk_F").cloned();
        let (a, b) = (walk(&m.clips).unwrap(), walk(&clips).unwrap());
        assert_eq!(a.duration_s(), b.duration_s());
        assert_eq!(a.events().len(), b.events().len());
        assert_eq!(a.curves().len(), b.curves().len());
        let speed = |c: &Clip| c.authored_speed_m_s().unwrap();
        assert!((speed(&b) - 2.0 * speed(&a)).abs() < 1e-4);
        assert!(resize_rig(&m.skeleton, &m.clips, -1.0).is_err());
    }

    /// An error and every error below it (its `source()` chain), as anyhow's `{:#}`
    /// prints it.
    fn chain(error: &dyn std::error::Error) -> String {
        let mut chain = error.to_string();
        let mut source = error.source();
        while let Some(cause) = source {
            chain.push_str(&format!(": {cause}"));
            source = cause.source();
        }
        chain
    }

    /// A refused setting or rig, reported with its whole chain of causes, names its
    /// detail once, not once per wrapper.
    #[test]
    fn a_refused_setting_says_its_detail_once() {
        let detail = crate::motion::ConfigError::NotPositive {
            field: "walk_speed_m_s",
            value: -1.0,
        };
        let error = ScaleError::from(SettingsError::from(detail.clone()));
        let said = chain(&error);
        assert_eq!(said.matches(&detail.to_string()).count(), 1, "{said}");
        assert!(
            said.starts_with("the scaled settings are refused: motion: "),
            "{said}"
        );
        let said = chain(&crate::character::CharacterError::from(
            SettingsError::from(detail.clone()),
        ));
        assert_eq!(said.matches(&detail.to_string()).count(), 1, "{said}");

        let detail = crate::bone_map::BoneMapError::UnknownJoint {
            role: "pelvis",
            name: "hips".into(),
        };
        let said = chain(&RigScaleError::from(FootIkError::from(detail.clone())));
        assert_eq!(said.matches(&detail.to_string()).count(), 1, "{said}");
        assert!(said.starts_with("the rig's legs are not usable"), "{said}");
    }

    #[test]
    fn bad_factors_are_refused() {
        let s = CharacterSettings::default();
        for factor in [0.0, -1.0, f32::NAN, f32::INFINITY] {
            assert!(matches!(s.scaled(factor), Err(ScaleError::BadFactor(_))));
        }
    }
}
