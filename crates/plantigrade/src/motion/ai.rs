//! AI agents (SPEC MOVE-9): a path (a polyline of points) turns into the same [`Intent`] a
//! player gives, so NPCs use the same movement, animation and foot IK.
//!
//! Steering is horizontal (world XZ; the points' heights are ignored): head for the next
//! waypoint, advance when within [`PathFollower::acceptance_radius_m`] of it, and within
//! [`PathFollower::arrival_radius_m`] of the end let the intent magnitude fall with the
//! remaining path length, so the gait goes run → walk → stop. No allocation per tick.

use glam::{Vec2, Vec3};

use super::config::CharacterConfig;
use super::intent::Intent;

/// Follows a polyline, producing one [`Intent`] per tick.
#[derive(Clone, Debug, PartialEq)]
pub struct PathFollower {
    /// The waypoints (world, metres); non-finite points are dropped.
    points: Vec<Vec3>,
    /// Horizontal path length from point `i` to the last point (m).
    remaining_from: Vec<f32>,
    /// The waypoint being steered to.
    next: usize,
    finished: bool,
    /// An intermediate waypoint counts as reached within this horizontal distance (m).
    /// Default 0.5.
    pub acceptance_radius_m: f32,
    /// The path is finished within this horizontal distance of the last point (m).
    /// Default 0.15.
    pub goal_tolerance_m: f32,
    /// The intent magnitude starts falling this far (path length, m) before the end.
    /// Default 2.0.
    pub arrival_radius_m: f32,
    /// Cruise at run (intent magnitude 1) rather than walk (magnitude
    /// [`CharacterConfig::walk_input_max`]). Default true.
    pub run: bool,
}

impl Default for PathFollower {
    fn default() -> Self {
        PathFollower::new(&[])
    }
}

fn horizontal(v: Vec3) -> Vec2 {
    Vec2::new(v.x, v.z)
}

fn non_negative_or(value: f32, fallback: f32) -> f32 {
    if value.is_finite() {
        value.max(0.0)
    } else {
        fallback
    }
}

impl PathFollower {
    /// A follower of `points` with the default radii, running.
    pub fn new(points: &[Vec3]) -> PathFollower {
        let mut follower = PathFollower {
            points: Vec::with_capacity(points.len()),
            remaining_from: Vec::with_capacity(points.len()),
            next: 0,
            finished: true,
            acceptance_radius_m: 0.5,
            goal_tolerance_m: 0.15,
            arrival_radius_m: 2.0,
            run: true,
        };
        follower.set_path(points);
        follower
    }

    /// Builder: run (true) or walk (false).
    pub fn with_run(mut self, run: bool) -> Self {
        self.run = run;
        self
    }

    /// Builder: waypoint acceptance radius (m).
    pub fn with_acceptance_radius(mut self, radius_m: f32) -> Self {
        self.acceptance_radius_m = radius_m;
        self
    }

    /// Builder: slow-down radius before the end (m).
    pub fn with_arrival_radius(mut self, radius_m: f32) -> Self {
        self.arrival_radius_m = radius_m;
        self
    }

    /// Builder: final stop tolerance (m).
    pub fn with_goal_tolerance(mut self, tolerance_m: f32) -> Self {
        self.goal_tolerance_m = tolerance_m;
        self
    }

    /// Replaces the path and starts over, reusing the buffers (allocates only when the new
    /// path is longer than any before). Non-finite points are dropped; an empty path is
    /// finished at once.
    pub fn set_path(&mut self, points: &[Vec3]) {
        self.points.clear();
        self.points
            .extend(points.iter().copied().filter(|p| p.is_finite()));
        self.remaining_from.clear();
        self.remaining_from.resize(self.points.len(), 0.0);
        for i in (0..self.points.len().saturating_sub(1)).rev() {
            let segment = horizontal(self.points[i + 1] - self.points[i]).length();
            self.remaining_from[i] = self.remaining_from[i + 1] + segment;
        }
        self.restart();
    }

    /// Starts the same path again from its first point.
    pub fn restart(&mut self) {
        self.next = 0;
        self.finished = self.points.is_empty();
    }

    /// The waypoints.
    pub fn points(&self) -> &[Vec3] {
        &self.points
    }

    /// Index of the waypoint being steered to.
    pub fn next_index(&self) -> usize {
        self.next
    }

    /// The waypoint being steered to (`None` once finished).
    pub fn target(&self) -> Option<Vec3> {
        if self.finished {
            None
        } else {
            self.points.get(self.next).copied()
        }
    }

    /// The last point has been reached (or the path is empty).
    pub fn is_finished(&self) -> bool {
        self.finished
    }

    /// Horizontal path length left from `feet_world` (m): to the next waypoint, then along
    /// the rest of the path. 0 once finished.
    pub fn remaining_distance_m(&self, feet_world: Vec3) -> f32 {
        if self.finished || !feet_world.is_finite() {
            return 0.0;
        }
        match (
            self.points.get(self.next),
            self.remaining_from.get(self.next),
        ) {
            (Some(&p), Some(&rest)) => horizontal(p - feet_world).length() + rest,
            _ => 0.0,
        }
    }

    /// This tick's intent for a character whose feet are at `feet_world`: toward the next
    /// waypoint, magnitude 1 (run) or `cfg.walk_input_max` (walk), scaled down by the
    /// remaining length within the arrival radius; [`Intent::IDLE`] once finished. A
    /// non-finite position gives [`Intent::IDLE`] without advancing.
    pub fn intent(&mut self, feet_world: Vec3, cfg: &CharacterConfig) -> Intent {
        if self.finished || !feet_world.is_finite() {
            return Intent::IDLE;
        }
        let acceptance = non_negative_or(self.acceptance_radius_m, 0.5);
        let tolerance = non_negative_or(self.goal_tolerance_m, 0.15);
        let last = self.points.len().saturating_sub(1);
        let here = horizontal(feet_world);
        while self.next < last && (horizontal(self.points[self.next]) - here).length() <= acceptance
        {
            self.next += 1;
        }
        let Some(&target) = self.points.get(self.next) else {
            self.finished = true;
            return Intent::IDLE;
        };
        let to_target = horizontal(target) - here;
        let distance = to_target.length();
        if self.next == last && distance <= tolerance {
            self.finished = true;
            return Intent::IDLE;
        }
        let direction = to_target.normalize_or_zero();
        let cruise = if self.run {
            1.0
        } else if cfg.walk_input_max.is_finite() {
            cfg.walk_input_max.clamp(0.0, 1.0)
        } else {
            0.5
        };
        let arrival = non_negative_or(self.arrival_radius_m, 2.0);
        let remaining = self.remaining_distance_m(feet_world);
        let slow_down = if arrival > 0.0 {
            (remaining / arrival).clamp(0.0, 1.0)
        } else {
            1.0
        };
        Intent {
            move_world: direction * (cruise * slow_down),
            ..Intent::IDLE
        }
        .sanitized()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn path_lengths_and_bad_points() {
        let f = PathFollower::new(&[
            Vec3::ZERO,
            Vec3::new(f32::NAN, 0.0, 0.0),
            Vec3::new(0.0, 5.0, 3.0),
            Vec3::new(4.0, 0.0, 3.0),
        ]);
        assert_eq!(f.points().len(), 3);
        assert!((f.remaining_distance_m(Vec3::ZERO) - 7.0).abs() < 1e-5);
        assert!(!f.is_finished());
        assert!(PathFollower::new(&[]).is_finished());
        assert_eq!(
            PathFollower::default().intent(Vec3::ZERO, &CharacterConfig::default()),
            Intent::IDLE
        );
    }

    #[test]
    fn steers_advances_and_slows_on_arrival() {
        let cfg = CharacterConfig::default();
        let mut f = PathFollower::new(&[Vec3::new(0.0, 0.0, 1.0), Vec3::new(0.0, 0.0, 10.0)]);
        // Far from the end: full magnitude toward the first waypoint (+Z).
        let i = f.intent(Vec3::new(0.0, 0.0, -5.0), &cfg);
        assert!(
            (i.move_world - Vec2::new(0.0, 1.0)).length() < 1e-5,
            "{i:?}"
        );
        // Within the acceptance radius of point 0: steer to point 1.
        let i = f.intent(Vec3::new(0.3, 0.0, 0.8), &cfg);
        assert_eq!(f.next_index(), 1);
        assert!(i.move_world.y > 0.99);
        // 1 m from the end (arrival radius 2): magnitude 0.5, i.e. walk.
        let i = f.intent(Vec3::new(0.0, 0.0, 9.0), &cfg);
        assert!((i.magnitude() - 0.5).abs() < 1e-5, "{i:?}");
        // Inside the goal tolerance: finished, idle.
        let i = f.intent(Vec3::new(0.0, 0.0, 9.9), &cfg);
        assert_eq!(i, Intent::IDLE);
        assert!(f.is_finished());
        assert_eq!(f.target(), None);
        // Walking cruises at the walk magnitude.
        let mut w = PathFollower::new(&[Vec3::new(0.0, 0.0, 10.0)]).with_run(false);
        let i = w.intent(Vec3::ZERO, &cfg);
        assert!((i.magnitude() - cfg.walk_input_max).abs() < 1e-5);
        // Non-finite feet: idle, nothing advances.
        assert_eq!(w.intent(Vec3::NAN, &cfg), Intent::IDLE);
        assert!(!w.is_finished());
        w.set_path(&[]);
        assert!(w.is_finished());
    }
}
