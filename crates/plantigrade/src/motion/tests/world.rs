//! A tiny analytic world ([`SpatialQueries`] and [`CharacterMover`]) for the movement logic tests: a flat floor at y = 0 that may end
//! in a pit past a ledge, an optional ceiling over part of the floor and an optional wall
//! plane across +Z. Its `move_capsule` is a plain clamp (no sliding, stepping or snapping);
//! the real collide-and-slide is tested with rapier elsewhere.

use std::cell::Cell;

use glam::Vec3;

use crate::graph::RootMotionDelta;
use crate::motion::{CharacterConfig, Intent, Movement, MovementOutput};
use crate::world::{
    Capsule, CharacterMover, MoveRequest, MoveResult, QueryFilter, RayHit, SpatialQueries,
};

#[derive(Debug, Default)]
pub struct TestWorld {
    /// Floor at y = 0 where z < this (a pit with no floor beyond); `None` = everywhere.
    pub floor_end_z: Option<f32>,
    /// Ceiling underside height (m) over z < `ceiling_end_z`.
    pub ceiling_y: Option<f32>,
    pub ceiling_end_z: f32,
    /// A wall filling z ≥ this.
    pub wall_z: Option<f32>,
    /// Number of `cast_capsule` calls.
    pub capsule_casts: Cell<u32>,
}

impl TestWorld {
    pub fn flat() -> Self {
        Self::default()
    }

    pub fn with_ledge_at(z: f32) -> Self {
        Self {
            floor_end_z: Some(z),
            ..Self::default()
        }
    }

    pub fn with_ceiling(height_m: f32, end_z: f32) -> Self {
        Self {
            ceiling_y: Some(height_m),
            ceiling_end_z: end_z,
            ..Self::default()
        }
    }

    pub fn with_wall_at(z: f32) -> Self {
        Self {
            wall_z: Some(z),
            ..Self::default()
        }
    }

    fn floor_at(&self, z: f32) -> Option<f32> {
        match self.floor_end_z {
            Some(end) if z >= end => None,
            _ => Some(0.0),
        }
    }

    /// The ceiling over a capsule footprint centred at `z` with `radius`.
    fn ceiling_over(&self, z: f32, radius: f32) -> Option<f32> {
        self.ceiling_y.filter(|_| z - radius < self.ceiling_end_z)
    }
}
impl SpatialQueries for TestWorld {
    fn cast_ray(
        &self,
        origin: Vec3,
        direction: Vec3,
        max_distance_m: f32,
        _filter: QueryFilter,
    ) -> Option<RayHit> {
        // Straight down onto the floor only.
        if direction.y > -0.999 {
            return None;
        }
        let floor = self.floor_at(origin.z)?;
        let distance = origin.y - floor;
        (0.0..=max_distance_m)
            .contains(&distance)
            .then_some(RayHit {
                point: Vec3::new(origin.x, floor, origin.z),
                normal: Vec3::Y,
                distance_m: distance,
            })
    }

    fn cast_capsule(
        &self,
        capsule: Capsule,
        center: Vec3,
        direction: Vec3,
        max_distance_m: f32,
        _filter: QueryFilter,
    ) -> Option<RayHit> {
        self.capsule_casts.set(self.capsule_casts.get() + 1);
        // Straight up into the ceiling only.
        if direction.y < 0.999 {
            return None;
        }
        let ceiling = self.ceiling_over(center.z, capsule.radius_m)?;
        let top = center.y + capsule.half_height_m + capsule.radius_m;
        let bottom = center.y - capsule.half_height_m - capsule.radius_m;
        (ceiling > bottom && ceiling <= top + max_distance_m).then_some(RayHit {
            point: Vec3::new(center.x, ceiling, center.z),
            normal: Vec3::NEG_Y,
            distance_m: (ceiling - top).max(0.0),
        })
    }
}

impl CharacterMover for TestWorld {
    fn move_capsule(&self, request: &MoveRequest) -> MoveResult {
        let feet = request.feet;
        let capsule = request.capsule;
        let mut end = feet + request.desired_translation;
        let mut hit_wall = false;
        if let Some(wall) = self.wall_z {
            let max_z = wall - capsule.radius_m;
            if end.z > max_z {
                end.z = max_z.max(feet.z.min(max_z));
                hit_wall = true;
            }
        }
        if let Some(ceiling) = self.ceiling_over(end.z, capsule.radius_m) {
            let height = capsule.height_m();
            if end.y + height > ceiling && feet.y + height <= ceiling + 1e-4 {
                end.y = ceiling - height;
            }
        }
        let mut grounded = false;
        if let Some(floor) = self.floor_at(end.z) {
            if end.y <= floor + 1e-4 && feet.y >= floor - 0.05 {
                end.y = floor;
                grounded = true;
            }
        }
        MoveResult {
            translation: end - feet,
            grounded,
            floor_normal: grounded.then_some(Vec3::Y),
            sliding_down_slope: false,
            hit_wall,
        }
    }
}

/// One character in a [`TestWorld`], stepped plan → move → apply like the real caller.
pub struct Sim {
    pub cfg: CharacterConfig,
    pub world: TestWorld,
    pub movement: Movement,
    pub feet: Vec3,
    pub dt: f32,
    pub ticks: u32,
}

impl Sim {
    pub fn new(world: TestWorld, feet: Vec3) -> Self {
        Self {
            cfg: CharacterConfig::default(),
            world,
            movement: Movement::new(0.0),
            feet,
            dt: 1.0 / 60.0,
            ticks: 0,
        }
    }

    pub fn step(&mut self, intent: &Intent) -> MovementOutput {
        self.step_with(intent, self.dt, RootMotionDelta::ZERO).1
    }

    /// One tick with an explicit dt and root motion; returns the request and the output.
    pub fn step_with(
        &mut self,
        intent: &Intent,
        dt: f32,
        root_motion: RootMotionDelta,
    ) -> (MoveRequest, MovementOutput) {
        let request = self.movement.plan(
            &self.cfg,
            intent,
            dt,
            &self.world,
            self.feet,
            QueryFilter::GROUND,
            root_motion,
        );
        let result = self.world.move_capsule(&request);
        self.feet += result.translation;
        let out = self.movement.apply(&self.cfg, &result, dt);
        self.ticks += 1;
        (request, out)
    }

    pub fn run(&mut self, intent: &Intent, seconds: f32) -> MovementOutput {
        let ticks = (seconds / self.dt).round().max(1.0) as u32;
        let mut out = self.step(intent);
        for _ in 1..ticks {
            out = self.step(intent);
        }
        out
    }
}

/// Full forward (+Z) input.
pub fn forward(magnitude: f32) -> Intent {
    Intent {
        move_world: glam::Vec2::new(0.0, magnitude),
        ..Intent::IDLE
    }
}
