//! The test course: level geometry as plain data plus its **analytic** ground truth, so the
//! lab measures feet against the true surface (SPEC QUAL-1/2), not against a physics mesh.
//!
//! A [`Course`] is a list of named [`Section`]s (flat ground, stairs, ramps, a cross-slope,
//! pebbles, a beam, a gap, a low ceiling, a wall, ledges, ramps running into stairs, rolling
//! bumps). Each section carries a spawn
//! point, a direction of travel and a length for scenarios, and a list of [`Primitive`]s:
//! boxes, ramps (wedges), flights of stairs and bump fields, each tagged with a [`Role`]
//! (walkable [`Role::Ground`] or an [`Role::Obstacle`] such as a wall or a ceiling).
//!
//! - Ground truth: [`Course::ground`], [`Course::ground_height`], [`Course::ground_normal`]
//!   (the highest walkable top surface under a point) and [`Course::surface_below`] (the
//!   highest one below a given height, e.g. the floor beside a beam).
//! - Physics: [`Course::solids`] expands the same primitives into convex [`Solid`]s
//!   (boxes, convex hulls, balls) that `plantigrade-rapier` turns into colliders.
//! - Data: the course is serde data; [`Course::from_ron`] loads and validates a RON file
//!   with errors naming the line, column and problem, [`Course::to_ron`] writes one, and
//!   [`Course::default_course`] is the built-in course (its layout is documented there).
//!
//! Space: everything is world space, metres, Y up. Angles in the data are in degrees, in
//! fields named `*_deg`; a yaw turns a shape's local frame about +Y so that local +Z points
//! along world `(sin yaw, 0, cos yaw)`.

mod analytic_world;
mod default_course;
mod geometry;
pub mod invariants;

#[cfg(test)]
mod tests;

use glam::{Quat, Vec2, Vec3};
use serde::{Deserialize, Serialize};

pub use analytic_world::AnalyticWorld;
pub use default_course::{SECTION_NAMES, SECTION_SPACING_M};
pub use geometry::{Cap, SplitMix64};

/// A test course: named sections of geometry, laid out so they do not overlap.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Course {
    /// The sections, in file order. Names are unique.
    pub sections: Vec<Section>,
}

/// One named, placed piece of the course with what a scenario needs to cross it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Section {
    /// Unique name, e.g. `"stairs_15cm"`.
    pub name: String,
    /// Where a scenario puts the character's feet at the start (world).
    pub spawn_world: Vec3,
    /// Direction of travel (world, horizontal unit vector).
    pub direction_world: Vec3,
    /// How far (m) a scenario travels along `direction_world` from the spawn to cross the
    /// feature and reach the run-out after it.
    pub length_m: f32,
    /// The geometry, world space.
    pub primitives: Vec<Primitive>,
}

/// What a primitive is to a character.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Role {
    /// Walkable: its top surface is ground truth for feet.
    #[default]
    Ground,
    /// Solid but not ground (a wall, a ceiling): it collides, but its top is never reported
    /// as ground.
    Obstacle,
}

/// One piece of geometry and its role.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Primitive {
    /// Defaults to [`Role::Ground`] when omitted in a file.
    #[serde(default)]
    pub role: Role,
    pub shape: Shape,
}

/// Geometry kinds. All sizes in metres, all positions world space.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub enum Shape {
    /// A box yawed about +Y. Its top face (`center.y + half_extents.y`) is the surface.
    Box {
        center_world: Vec3,
        /// Half sizes along the box's local X, Y, Z (all > 0).
        half_extents_m: Vec3,
        #[serde(default)]
        yaw_deg: f32,
    },
    /// A wedge or sloped slab: a flat bottom and a planar top rising along local +Z from
    /// `start_top_y_m` (at local z = -half_length) to `end_top_y_m` (at z = +half_length),
    /// over a `2·half_width × 2·half_length` rectangular footprint. The slope angle is
    /// `atan(|end - start| / (2·half_length))`. Yaw 90° makes it rise along world +X.
    Ramp {
        /// Centre of the footprint, world `(x, z)`.
        center_xz_world: Vec2,
        /// Half size across the slope (local X, > 0).
        half_width_m: f32,
        /// Half size along the slope (local Z, horizontal, > 0).
        half_length_m: f32,
        #[serde(default)]
        yaw_deg: f32,
        /// Height of the flat bottom; below both top heights.
        bottom_y_m: f32,
        start_top_y_m: f32,
        end_top_y_m: f32,
    },
    /// A straight flight of solid steps ascending along local +Z. Step `i` (from 0) covers
    /// local z in `[i·tread, (i+1)·tread]`, is `width` wide and has its tread at
    /// `start.y + (i+1)·riser`; steps are solid down to `start.y`. A riser's edge belongs
    /// to the higher step (within 10 µm, so float rounding of `start + k·tread` does not
    /// put it on the lower one).
    Stairs {
        /// Centre of the bottom edge of the first riser (world), at the base height.
        start_world: Vec3,
        #[serde(default)]
        yaw_deg: f32,
        width_m: f32,
        /// Number of steps (1..=[`MAX_STEPS`]).
        step_count: u32,
        riser_m: f32,
        tread_m: f32,
    },
    /// A field of smooth bumps: `count` spherical caps on the plane `y = center.y`, laid
    /// out deterministically from `seed` inside a `2·half_size.x × 2·half_size.y` rectangle
    /// (local X, Z). Each cap has a height in `[height_min, height_max]` and a base radius
    /// in `[radius_min, radius_max]`; overlapping caps take the higher top. Only the caps
    /// are ground here: put a floor under the field (the plane between caps is not part of
    /// this shape).
    Bumps {
        /// Centre of the rectangle on the base plane (world).
        center_world: Vec3,
        half_size_m: Vec2,
        #[serde(default)]
        yaw_deg: f32,
        seed: u64,
        /// Number of caps (0..=[`MAX_BUMPS`]).
        count: u32,
        height_min_m: f32,
        height_max_m: f32,
        /// At least `height_max_m` (caps are at most hemispheres).
        radius_min_m: f32,
        radius_max_m: f32,
    },
}

/// Largest `step_count` of a flight of stairs accepted from a file.
pub const MAX_STEPS: u32 = 1_000;
/// Largest bump `count` accepted from a file.
pub const MAX_BUMPS: u32 = 10_000;
/// Largest coordinate or size magnitude (m) accepted from a file (keeps the arithmetic of
/// the ground truth finite).
pub const MAX_COORDINATE_M: f32 = 100_000.0;

/// A point of the true surface: its height and its outward unit normal (world).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GroundSample {
    /// Height of the surface (m, world Y).
    pub height_m: f32,
    /// Unit surface normal (world); `+Y` on treads and flat tops, the plane normal on ramps.
    pub normal_world: Vec3,
}

/// A convex solid for a physics engine, expanded from a [`Primitive`].
#[derive(Clone, Debug, PartialEq)]
pub struct Solid {
    /// Index of the section it belongs to in [`Course::sections`].
    pub section: usize,
    pub role: Role,
    pub shape: SolidShape,
}

/// Convex solid shapes (world space).
#[derive(Clone, Debug, PartialEq)]
pub enum SolidShape {
    /// A box of `half_extents_m` centred at `center_world`, rotated by `rotation_world`.
    Cuboid {
        center_world: Vec3,
        half_extents_m: Vec3,
        rotation_world: Quat,
    },
    /// The convex hull of `center_world + points_local[i]` (points relative to the centre,
    /// world axes, no rotation).
    ConvexHull {
        center_world: Vec3,
        points_local: Vec<Vec3>,
    },
    /// A sphere (the bumps are caps of spheres sunk into the floor).
    Ball { center_world: Vec3, radius_m: f32 },
}

pub use plantigrade::source_pos::SourcePos;

/// What is wrong with a course.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum CourseProblem {
    #[error("RON syntax: {0}")]
    Syntax(String),
    #[error("the course has no sections")]
    NoSections,
    #[error("a section has an empty name")]
    EmptyName,
    #[error("two sections are named '{0}'")]
    DuplicateSection(String),
    #[error("section '{section}': {field} must be finite")]
    NotFinite {
        section: String,
        field: &'static str,
    },
    #[error("section '{section}': {field} must be greater than zero, got {value}")]
    NotPositive {
        section: String,
        field: &'static str,
        value: f32,
    },
    #[error("section '{section}': {field} is {value}, beyond the limit of {limit}")]
    TooLarge {
        section: String,
        field: &'static str,
        value: f64,
        limit: f64,
    },
    #[error("section '{section}': direction_world must be a horizontal unit vector, got {value}")]
    BadDirection { section: String, value: Vec3 },
    #[error("section '{section}': {problem}")]
    Invalid { section: String, problem: String },
    #[error("cannot write RON: {0}")]
    Write(String),
}

/// A course that failed to load or validate: the problem and, when known, where it is in
/// the file (for a bad value, the position of its section's name).
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("{}{problem}", .pos.map(|p| format!("{p}: ")).unwrap_or_default())]
pub struct CourseError {
    pub pos: Option<SourcePos>,
    pub problem: CourseProblem,
}

impl From<CourseProblem> for CourseError {
    fn from(problem: CourseProblem) -> Self {
        Self { pos: None, problem }
    }
}

impl Course {
    /// The built-in course: twenty-two sections side by side, [`SECTION_SPACING_M`] apart
    /// along world +X (section `i`'s lane is the line `x = i · 6`), each 4 m wide and
    /// travelled along +Z from a spawn at `z = 1`, with a flat run-up of 3 m before its
    /// feature and a run-out after it. In order ([`SECTION_NAMES`]):
    ///
    /// | section | feature |
    /// |---|---|
    /// | `flat` | 12 m of flat floor |
    /// | `stairs_15cm`, `stairs_20cm` | 8 steps up (riser 0.15 / 0.20 m, tread 0.28 m) from z = 3, a 2 m landing, 8 steps down |
    /// | `ramp_10deg` … `ramp_40deg` | ramp up 1.5 m at 10/20/30/40°, 2 m platform, ramp down |
    /// | `ramp_50deg` | the same at 50°: too steep to walk |
    /// | `cross_slope_20deg` | z 3–9: a 20° slope rising toward +X, level with the floor on the lane |
    /// | `pebbles` | z 3–9, 3 m wide: 60 bumps 2–5 cm high (seeded layout) |
    /// | `beam` | 0.5 m high: start platform, a 0.25 m wide beam for z 3–9, end platform; floor below |
    /// | `gap_1m` | a 1 m wide pit (z 4–5) with its floor 2 m down |
    /// | `low_ceiling` | z 3–9: a ceiling slab whose underside is 1.2 m above the floor |
    /// | `wall` | a 3 m tall wall across the lane at z 5–5.3 |
    /// | `ledge_0_5m`, `ledge_3m` | a platform 0.5 / 3 m high for z 0–4, floor after it |
    /// | `beam_narrow` | as `beam`, 0.12 m wide |
    /// | `beam_inclined` | a 0.25 m wide beam rising 8° (0.5 → 1.34 m) for z 3–9 between platforms |
    /// | `ramp_stairs` | from z = 3: an 18° ramp up 0.6 m straight into 5 steps up (riser 0.17, tread 0.28), a 2 m landing, 5 steps down straight into the ramp down |
    /// | `stairs_ramp` | the other order: 5 steps up straight into the 18° ramp up, the landing, the ramp down straight into 5 steps down |
    /// | `rolling_bumps` | z 3–17.5: five smooth caps 0.15–0.35 m high, 1.2–1.8 m in base radius, in a row (some meeting in creases) |
    /// | `plaza` | the last lane: a 10 m square of floor, z 1–11, from 2 m before the lane to 8 m past it toward +X (room to run a circle) |
    pub fn default_course() -> Course {
        default_course::build()
    }

    /// Parses and validates a RON course. Errors carry the line and column: of the syntax
    /// error, or of the offending section's name for a bad value.
    pub fn from_ron(source: &str) -> Result<Course, CourseError> {
        let course: Course = ron::from_str(source).map_err(|e| CourseError {
            pos: Some(SourcePos::of_ron_error(&e)),
            problem: CourseProblem::Syntax(e.code.to_string()),
        })?;
        course.check().map_err(|(problem, section)| CourseError {
            pos: section.and_then(|index| course.locate_section(source, index)),
            problem,
        })?;
        Ok(course)
    }

    /// Writes the course as pretty RON that [`Course::from_ron`] reads back unchanged.
    pub fn to_ron(&self) -> Result<String, CourseError> {
        ron::ser::to_string_pretty(self, ron::ser::PrettyConfig::default())
            .map_err(|e| CourseProblem::Write(e.to_string()).into())
    }

    /// Checks every value (finite, sizes positive, unique names, unit directions, limits).
    /// [`Course::from_ron`] runs it; call it on courses built in code.
    pub fn validate(&self) -> Result<(), CourseError> {
        self.check().map_err(|(problem, _)| problem.into())
    }

    /// The section named `name`.
    pub fn section(&self, name: &str) -> Option<&Section> {
        self.sections.iter().find(|s| s.name == name)
    }

    /// The highest walkable ([`Role::Ground`]) top surface at world `(x, z)`, or `None`
    /// off the course (between sections, past their ends) or for non-finite input. Pits
    /// have floors, so the gap reports its pit floor; ceilings and walls are never ground.
    pub fn ground(&self, x: f32, z: f32) -> Option<GroundSample> {
        self.surface_below(x, z, f32::INFINITY)
    }

    /// Height (m) of [`Course::ground`] at world `(x, z)`.
    pub fn ground_height(&self, x: f32, z: f32) -> Option<f32> {
        self.ground(x, z).map(|g| g.height_m)
    }

    /// Unit normal (world) of [`Course::ground`] at world `(x, z)`: `+Y` on flat tops and
    /// treads, the plane normal on ramps, the sphere normal on bumps.
    pub fn ground_normal(&self, x: f32, z: f32) -> Option<Vec3> {
        self.ground(x, z).map(|g| g.normal_world)
    }

    /// How deep (m) a point lies inside the ground: its distance to the nearest ground
    /// surface, 0 on or above it, `None` off the course or for non-finite input.
    ///
    /// Not the height under the point: a toe 2 mm into a stair riser is 2 mm deep, though
    /// the tread above it is a whole step higher. The depth is the smallest of the distance
    /// to the surface above it (along the normal there: exact on a plane), the horizontal
    /// distance to where the ground drops below the point (a riser's face, a pebble's
    /// flank), and the distance to the surface above a nearby point (a step's corner, for
    /// a point just behind a riser and under the lower tread too), found in 16 directions,
    /// faces and edges to within 1 mm.
    pub fn depth_below_surface_m(&self, point_world: Vec3) -> Option<f32> {
        let ground = self.ground(point_world.x, point_world.z)?;
        let below_m = ground.height_m - point_world.y;
        if !point_world.is_finite() || !below_m.is_finite() {
            return None;
        }
        if below_m <= 0.0 {
            return Some(0.0);
        }
        let mut depth_m = below_m * ground.normal_world.y.clamp(0.0, 1.0);
        // How far below the ground `s` along `d` the point is (≤ 0: clear of it there).
        let under = |d: Vec2, s: f32| {
            self.ground_height(point_world.x + d.x * s, point_world.z + d.y * s)
                .map(|h| h - point_world.y)
        };
        // A surface point `s` away horizontally and `below` under the ground there.
        let via = |s: f32, below: f32| (s * s + below * below).sqrt();
        const DIRECTIONS: usize = 16;
        const STEP_M: f32 = 0.01;
        // A drop in the ground between two steps larger than this is a step's edge.
        const STEP_DROP_M: f32 = 0.005;
        for k in 0..DIRECTIONS {
            let angle = k as f32 * std::f32::consts::TAU / DIRECTIONS as f32;
            let d = Vec2::new(angle.cos(), angle.sin());
            // March out to the best depth so far, then bisect the first clear step. On the
            // way, the ground above each step is a surface point too (a toe just behind a
            // riser and a millimetre under the lower tread is near that corner).
            let mut inside_m = 0.0f32;
            let mut inside_below = below_m;
            let mut s = STEP_M;
            while s < depth_m + STEP_M {
                let s_capped = s.min(depth_m);
                match under(d, s_capped) {
                    Some(below) if below <= 0.0 => {
                        let mut hi = s_capped;
                        while hi - inside_m > 0.001 {
                            let mid = 0.5 * (inside_m + hi);
                            match under(d, mid) {
                                Some(below) if below <= 0.0 => hi = mid,
                                Some(below) => {
                                    depth_m = depth_m.min(via(mid, below));
                                    inside_m = mid;
                                }
                                None => inside_m = mid,
                            }
                        }
                        depth_m = depth_m.min(hi);
                        break;
                    }
                    Some(below) => {
                        // The ground stepped down since the last step (a riser): find where,
                        // to within 1 mm; the corner there is the nearer surface point.
                        if below < inside_below - STEP_DROP_M {
                            let (mut lo, mut hi) = (inside_m, s_capped);
                            let cut = 0.5 * (inside_below + below);
                            while hi - lo > 0.001 {
                                let mid = 0.5 * (lo + hi);
                                if under(d, mid).is_some_and(|b| b > cut) {
                                    lo = mid;
                                } else {
                                    hi = mid;
                                }
                            }
                            if let Some(b) = under(d, hi) {
                                depth_m = depth_m.min(via(hi, b.max(0.0)));
                            }
                        }
                        depth_m = depth_m.min(via(s_capped, below));
                        inside_below = below;
                    }
                    None => {}
                }
                inside_m = s_capped;
                s += STEP_M;
            }
        }
        Some(depth_m)
    }

    /// The highest walkable top surface at world `(x, z)` whose height is at most
    /// `y_max_m`: the ground under a point at that height. A foot beside the 0.5 m beam
    /// sees the floor below; a foot on the beam (pass its height plus a tolerance, e.g.
    /// + 0.1 m, so a foot sunk slightly into a surface still sees it) sees the beam.
    pub fn surface_below(&self, x: f32, z: f32, y_max_m: f32) -> Option<GroundSample> {
        if !x.is_finite() || !z.is_finite() || y_max_m.is_nan() {
            return None;
        }
        let mut best = None;
        for section in &self.sections {
            if let Some(sample) = section.surface_below(x, z, y_max_m) {
                best = geometry::higher(best, sample);
            }
        }
        best
    }

    /// Every primitive expanded into convex solids, in section and primitive order (the
    /// same geometry as the ground truth; stairs become one box per step, bump fields one
    /// ball per cap, ramps an 8-point convex hull).
    pub fn solids(&self) -> Vec<Solid> {
        let mut out = Vec::new();
        let mut shapes = Vec::new();
        for (index, section) in self.sections.iter().enumerate() {
            for primitive in &section.primitives {
                shapes.clear();
                geometry::solids_of(&primitive.shape, &mut shapes);
                out.extend(shapes.drain(..).map(|shape| Solid {
                    section: index,
                    role: primitive.role,
                    shape,
                }));
            }
        }
        out
    }

    /// Validation; the error names the index of the section it is about, when it is.
    fn check(&self) -> Result<(), (CourseProblem, Option<usize>)> {
        if self.sections.is_empty() {
            return Err((CourseProblem::NoSections, None));
        }
        for (index, section) in self.sections.iter().enumerate() {
            if section.name.is_empty() {
                return Err((CourseProblem::EmptyName, Some(index)));
            }
            if self.sections[..index]
                .iter()
                .any(|earlier| earlier.name == section.name)
            {
                return Err((
                    CourseProblem::DuplicateSection(section.name.clone()),
                    Some(index),
                ));
            }
            section.check().map_err(|p| (p, Some(index)))?;
        }
        Ok(())
    }

    /// Position of section `index`'s name literal in `source`.
    fn locate_section(&self, source: &str, index: usize) -> Option<SourcePos> {
        let name = &self.sections.get(index)?.name;
        let nth = self.sections[..index]
            .iter()
            .filter(|s| &s.name == name)
            .count();
        SourcePos::of_quoted(source, name, nth, 0)
    }
}

impl Section {
    /// The highest walkable top surface of this section at world `(x, z)` at most
    /// `y_max_m` high (see [`Course::surface_below`]).
    pub fn surface_below(&self, x: f32, z: f32, y_max_m: f32) -> Option<GroundSample> {
        let mut best = None;
        for primitive in &self.primitives {
            if primitive.role != Role::Ground {
                continue;
            }
            if let Some(sample) = geometry::top_below(&primitive.shape, x, z, y_max_m) {
                best = geometry::higher(best, sample);
            }
        }
        best
    }

    /// Where a scenario ends: `spawn_world + direction_world · length_m` (world, at the
    /// spawn height; use [`Course::ground_height`] for the ground there).
    pub fn end_world(&self) -> Vec3 {
        self.spawn_world + self.direction_world * self.length_m
    }

    /// The caps of every bump field of this section (world), e.g. for tests and debug draw.
    pub fn bump_caps(&self) -> Vec<Cap> {
        self.primitives
            .iter()
            .filter_map(|p| geometry::BumpField::from_shape(&p.shape))
            .flat_map(|field| field.caps().collect::<Vec<_>>())
            .collect()
    }

    fn check(&self) -> Result<(), CourseProblem> {
        let v = Validator { section: self };
        v.vec3("spawn_world", self.spawn_world)?;
        v.vec3("direction_world", self.direction_world)?;
        v.positive("length_m", self.length_m)?;
        let d = self.direction_world;
        if d.y.abs() > 1.0e-4 || (d.length() - 1.0).abs() > 1.0e-3 {
            return Err(CourseProblem::BadDirection {
                section: self.name.clone(),
                value: d,
            });
        }
        for primitive in &self.primitives {
            v.shape(&primitive.shape)?;
        }
        Ok(())
    }
}

/// Value checks for one section, naming it in the problems.
struct Validator<'a> {
    section: &'a Section,
}

impl Validator<'_> {
    fn name(&self) -> String {
        self.section.name.clone()
    }

    fn scalar(&self, field: &'static str, value: f32) -> Result<(), CourseProblem> {
        if !value.is_finite() {
            return Err(CourseProblem::NotFinite {
                section: self.name(),
                field,
            });
        }
        if value.abs() > MAX_COORDINATE_M {
            return Err(CourseProblem::TooLarge {
                section: self.name(),
                field,
                value: value as f64,
                limit: MAX_COORDINATE_M as f64,
            });
        }
        Ok(())
    }

    fn positive(&self, field: &'static str, value: f32) -> Result<(), CourseProblem> {
        self.scalar(field, value)?;
        if value > 0.0 {
            Ok(())
        } else {
            Err(CourseProblem::NotPositive {
                section: self.name(),
                field,
                value,
            })
        }
    }

    fn vec3(&self, field: &'static str, value: Vec3) -> Result<(), CourseProblem> {
        for c in value.to_array() {
            self.scalar(field, c)?;
        }
        Ok(())
    }

    fn count(&self, field: &'static str, value: u32, limit: u32) -> Result<(), CourseProblem> {
        if value > limit {
            return Err(CourseProblem::TooLarge {
                section: self.name(),
                field,
                value: value as f64,
                limit: limit as f64,
            });
        }
        Ok(())
    }

    fn invalid(&self, problem: String) -> CourseProblem {
        CourseProblem::Invalid {
            section: self.name(),
            problem,
        }
    }

    fn shape(&self, shape: &Shape) -> Result<(), CourseProblem> {
        match *shape {
            Shape::Box {
                center_world,
                half_extents_m,
                yaw_deg,
            } => {
                self.vec3("box center_world", center_world)?;
                self.positive("box half_extents_m.x", half_extents_m.x)?;
                self.positive("box half_extents_m.y", half_extents_m.y)?;
                self.positive("box half_extents_m.z", half_extents_m.z)?;
                self.scalar("box yaw_deg", yaw_deg)
            }
            Shape::Ramp {
                center_xz_world,
                half_width_m,
                half_length_m,
                yaw_deg,
                bottom_y_m,
                start_top_y_m,
                end_top_y_m,
            } => {
                self.scalar("ramp center_xz_world", center_xz_world.x)?;
                self.scalar("ramp center_xz_world", center_xz_world.y)?;
                self.positive("ramp half_width_m", half_width_m)?;
                self.positive("ramp half_length_m", half_length_m)?;
                self.scalar("ramp yaw_deg", yaw_deg)?;
                self.scalar("ramp bottom_y_m", bottom_y_m)?;
                self.scalar("ramp start_top_y_m", start_top_y_m)?;
                self.scalar("ramp end_top_y_m", end_top_y_m)?;
                if bottom_y_m >= start_top_y_m.min(end_top_y_m) {
                    return Err(self.invalid(format!(
                        "ramp bottom_y_m ({bottom_y_m}) must be below both top heights \
                         ({start_top_y_m}, {end_top_y_m})"
                    )));
                }
                Ok(())
            }
            Shape::Stairs {
                start_world,
                yaw_deg,
                width_m,
                step_count,
                riser_m,
                tread_m,
            } => {
                self.vec3("stairs start_world", start_world)?;
                self.scalar("stairs yaw_deg", yaw_deg)?;
                self.positive("stairs width_m", width_m)?;
                self.positive("stairs riser_m", riser_m)?;
                self.positive("stairs tread_m", tread_m)?;
                if step_count == 0 {
                    return Err(self.invalid("stairs step_count must be at least 1".into()));
                }
                self.count("stairs step_count", step_count, MAX_STEPS)?;
                self.scalar("stairs height", riser_m * step_count as f32)?;
                self.scalar("stairs run", tread_m * step_count as f32)
            }
            Shape::Bumps {
                center_world,
                half_size_m,
                yaw_deg,
                seed: _,
                count,
                height_min_m,
                height_max_m,
                radius_min_m,
                radius_max_m,
            } => {
                self.vec3("bumps center_world", center_world)?;
                self.positive("bumps half_size_m.x", half_size_m.x)?;
                self.positive("bumps half_size_m.y", half_size_m.y)?;
                self.scalar("bumps yaw_deg", yaw_deg)?;
                self.count("bumps count", count, MAX_BUMPS)?;
                self.positive("bumps height_min_m", height_min_m)?;
                self.positive("bumps height_max_m", height_max_m)?;
                self.positive("bumps radius_min_m", radius_min_m)?;
                self.positive("bumps radius_max_m", radius_max_m)?;
                if height_min_m > height_max_m || radius_min_m > radius_max_m {
                    return Err(self.invalid(
                        "bumps ranges must have min <= max (height_min_m..height_max_m, \
                         radius_min_m..radius_max_m)"
                            .into(),
                    ));
                }
                if height_max_m > radius_min_m {
                    return Err(self.invalid(format!(
                        "bumps height_max_m ({height_max_m}) must not exceed radius_min_m \
                         ({radius_min_m}): caps are at most hemispheres"
                    )));
                }
                Ok(())
            }
        }
    }
}
