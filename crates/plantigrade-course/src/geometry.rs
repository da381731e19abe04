//! Analytic geometry of the course shapes: the top surface of each shape (height and normal
//! at a world `(x, z)`), the deterministic bump layout, and the expansion into convex
//! physics solids. Both the ground truth and the physics colliders come from here, so they
//! describe exactly the same geometry.
//!
//! Space: world space, metres, Y up. A shape's local frame is its world placement rotated
//! by `yaw_deg` about +Y: local +Z maps to world `(sin yaw, 0, cos yaw)`.

use glam::{Quat, Vec2, Vec3};

use super::{GroundSample, Shape, SolidShape};

/// Sine and cosine of a yaw given in degrees, exact for multiples of 90° (so axis-aligned
/// shapes have exactly axis-aligned edges, in the ground truth and in the colliders).
pub(crate) fn yaw_sin_cos(yaw_deg: f32) -> (f32, f32) {
    let quarter = yaw_deg / 90.0;
    if quarter.fract() == 0.0 {
        match (quarter as i64).rem_euclid(4) {
            0 => (0.0, 1.0),
            1 => (1.0, 0.0),
            2 => (0.0, -1.0),
            _ => (-1.0, 0.0),
        }
    } else {
        let radians = (yaw_deg as f64).to_radians();
        (radians.sin() as f32, radians.cos() as f32)
    }
}

/// A world-space horizontal offset `(dx, dz)` expressed in a frame yawed by `(sin, cos)`.
fn to_local(sin_cos: (f32, f32), dx: f32, dz: f32) -> (f32, f32) {
    let (s, c) = sin_cos;
    (dx * c - dz * s, dx * s + dz * c)
}

/// A local horizontal vector `(x, z)` of a frame yawed by `(sin, cos)`, in world space.
fn to_world(sin_cos: (f32, f32), x: f32, z: f32) -> (f32, f32) {
    let (s, c) = sin_cos;
    (x * c + z * s, -x * s + z * c)
}

/// One spherical cap of a bump field, world space: the part above the field's base plane of
/// a sphere of `sphere_radius_m` centred at `sphere_center_world`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Cap {
    /// Centre of the cap's base circle on the base plane (world).
    pub base_center_world: Vec3,
    /// Height of the cap above the base plane (m).
    pub height_m: f32,
    /// Radius of the cap's base circle (m).
    pub base_radius_m: f32,
    /// Centre of the sphere the cap is cut from (world), below the base plane.
    pub sphere_center_world: Vec3,
    /// Radius of that sphere (m): `(base_radius² + height²) / (2 · height)`.
    pub sphere_radius_m: f32,
}

impl Cap {
    /// Top of the cap at world `(x, z)` (height and outward unit normal), or `None` outside
    /// its base circle.
    pub fn top_at(&self, x: f32, z: f32) -> Option<GroundSample> {
        let dx = x - self.base_center_world.x;
        let dz = z - self.base_center_world.z;
        let d2 = dx * dx + dz * dz;
        if d2 > self.base_radius_m * self.base_radius_m {
            return None;
        }
        let r = self.sphere_radius_m;
        let y_above_center = (r * r - d2).max(0.0).sqrt();
        let height_m = self.sphere_center_world.y + y_above_center;
        let normal_world = Vec3::new(dx, y_above_center, dz) / r;
        Some(GroundSample {
            height_m,
            normal_world: normal_world.normalize_or(Vec3::Y),
        })
    }
}

/// How far before a riser (m) a point already counts as on the higher step.
const RISER_EDGE_TOLERANCE_M: f32 = 1.0e-5;

/// SplitMix64: a tiny, well-mixed integer generator; the same seed gives the same bumps on
/// every platform (and the lab's soak the same run).
#[derive(Clone, Debug)]
pub struct SplitMix64(pub u64);

impl SplitMix64 {
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `[0, 1)` with 24 bits (exact in f32).
    pub fn next_unit(&mut self) -> f32 {
        (self.next_u64() >> 40) as f32 / (1u64 << 24) as f32
    }
}

fn mix(a: f32, b: f32, t: f32) -> f32 {
    a + (b - a) * t
}

/// Parameters of a bump field, see [`Shape::Bumps`].
#[derive(Clone, Copy, Debug)]
pub(crate) struct BumpField {
    pub center_world: Vec3,
    pub half_size_m: Vec2,
    pub sin_cos: (f32, f32),
    pub seed: u64,
    pub count: u32,
    pub height_min_m: f32,
    pub height_max_m: f32,
    pub radius_min_m: f32,
    pub radius_max_m: f32,
}

impl BumpField {
    pub(crate) fn from_shape(shape: &Shape) -> Option<Self> {
        match *shape {
            Shape::Bumps {
                center_world,
                half_size_m,
                yaw_deg,
                seed,
                count,
                height_min_m,
                height_max_m,
                radius_min_m,
                radius_max_m,
            } => Some(Self {
                center_world,
                half_size_m,
                sin_cos: yaw_sin_cos(yaw_deg),
                seed,
                count,
                height_min_m,
                height_max_m,
                radius_min_m,
                radius_max_m,
            }),
            _ => None,
        }
    }

    /// Whether world `(x, z)` is inside the field's rectangle (all caps lie inside it).
    pub(crate) fn contains(&self, x: f32, z: f32) -> bool {
        let (lx, lz) = to_local(
            self.sin_cos,
            x - self.center_world.x,
            z - self.center_world.z,
        );
        lx.abs() <= self.half_size_m.x && lz.abs() <= self.half_size_m.y
    }

    /// The caps, in generation order. Each cap's base circle lies inside the rectangle (or
    /// is centred on it when the rectangle is narrower than the cap).
    pub(crate) fn caps(&self) -> impl Iterator<Item = Cap> + '_ {
        let mut rng = SplitMix64(self.seed);
        (0..self.count).map(move |_| {
            let ux = rng.next_unit();
            let uz = rng.next_unit();
            let uh = rng.next_unit();
            let ua = rng.next_unit();
            let height_m = mix(self.height_min_m, self.height_max_m, uh);
            let base_radius_m = mix(self.radius_min_m, self.radius_max_m, ua);
            let room_x = (self.half_size_m.x - base_radius_m).max(0.0);
            let room_z = (self.half_size_m.y - base_radius_m).max(0.0);
            let lx = mix(-room_x, room_x, ux);
            let lz = mix(-room_z, room_z, uz);
            let (wx, wz) = to_world(self.sin_cos, lx, lz);
            let base_center_world = Vec3::new(
                self.center_world.x + wx,
                self.center_world.y,
                self.center_world.z + wz,
            );
            let sphere_radius_m =
                (base_radius_m * base_radius_m + height_m * height_m) / (2.0 * height_m);
            Cap {
                base_center_world,
                height_m,
                base_radius_m,
                sphere_center_world: base_center_world + Vec3::Y * (height_m - sphere_radius_m),
                sphere_radius_m,
            }
        })
    }
}

/// Keeps the higher of two samples; on a tie (within 1 µm) the flatter one, so a crease
/// between a flat and a sloped top reports the flat normal. Deterministic.
pub(crate) fn higher(best: Option<GroundSample>, candidate: GroundSample) -> Option<GroundSample> {
    match best {
        None => Some(candidate),
        Some(b) => {
            if candidate.height_m > b.height_m + 1.0e-6
                || (candidate.height_m >= b.height_m - 1.0e-6
                    && candidate.normal_world.y > b.normal_world.y)
            {
                Some(candidate)
            } else {
                Some(b)
            }
        }
    }
}

/// The highest top surface of `shape` at world `(x, z)` whose height is at most `y_max_m`,
/// or `None` when `(x, z)` is outside the shape's footprint (or every top there is higher).
pub(crate) fn top_below(shape: &Shape, x: f32, z: f32, y_max_m: f32) -> Option<GroundSample> {
    let flat = |height_m: f32| {
        (height_m <= y_max_m).then_some(GroundSample {
            height_m,
            normal_world: Vec3::Y,
        })
    };
    match *shape {
        Shape::Box {
            center_world,
            half_extents_m,
            yaw_deg,
        } => {
            let (lx, lz) = to_local(yaw_sin_cos(yaw_deg), x - center_world.x, z - center_world.z);
            if lx.abs() <= half_extents_m.x && lz.abs() <= half_extents_m.z {
                flat(center_world.y + half_extents_m.y)
            } else {
                None
            }
        }
        Shape::Ramp {
            center_xz_world,
            half_width_m,
            half_length_m,
            yaw_deg,
            bottom_y_m: _,
            start_top_y_m,
            end_top_y_m,
        } => {
            let sin_cos = yaw_sin_cos(yaw_deg);
            let (lx, lz) = to_local(sin_cos, x - center_xz_world.x, z - center_xz_world.y);
            if lx.abs() > half_width_m || lz.abs() > half_length_m {
                return None;
            }
            let slope = (end_top_y_m - start_top_y_m) / (2.0 * half_length_m);
            let t = (lz + half_length_m) / (2.0 * half_length_m);
            let height_m = mix(start_top_y_m, end_top_y_m, t);
            if height_m > y_max_m {
                return None;
            }
            // The top plane is y = slope · z_local + c: its gradient is (0, 1, -slope).
            let (nx, nz) = to_world(sin_cos, 0.0, -slope);
            Some(GroundSample {
                height_m,
                normal_world: Vec3::new(nx, 1.0, nz).normalize_or(Vec3::Y),
            })
        }
        Shape::Stairs {
            start_world,
            yaw_deg,
            width_m,
            step_count,
            riser_m,
            tread_m,
        } => {
            let (lx, lz) = to_local(yaw_sin_cos(yaw_deg), x - start_world.x, z - start_world.z);
            let run_m = tread_m * step_count as f32;
            if step_count == 0 || lx.abs() > 0.5 * width_m || !(0.0..=run_m).contains(&lz) {
                return None;
            }
            // Step i covers lz in [i, i + 1) treads (the last one includes its far edge);
            // its tread is (i + 1) risers up. Steps are solid down to the base, so no lower
            // tread of this flight is exposed under a tread that is above y_max.
            let step = (((lz + RISER_EDGE_TOLERANCE_M) / tread_m) as u32).min(step_count - 1);
            flat(start_world.y + riser_m * (step + 1) as f32)
        }
        Shape::Bumps { .. } => {
            let field = BumpField::from_shape(shape)?;
            if !field.contains(x, z) {
                return None;
            }
            let mut best = None;
            for cap in field.caps() {
                if let Some(sample) = cap.top_at(x, z) {
                    if sample.height_m <= y_max_m {
                        best = higher(best, sample);
                    }
                }
            }
            best
        }
    }
}

/// Expands `shape` into convex solids (boxes, convex hulls, balls) for a physics engine.
pub(crate) fn solids_of(shape: &Shape, out: &mut Vec<SolidShape>) {
    match *shape {
        Shape::Box {
            center_world,
            half_extents_m,
            yaw_deg,
        } => out.push(cuboid(center_world, half_extents_m, yaw_deg)),
        Shape::Ramp {
            center_xz_world,
            half_width_m,
            half_length_m,
            yaw_deg,
            bottom_y_m,
            start_top_y_m,
            end_top_y_m,
        } => {
            let sin_cos = yaw_sin_cos(yaw_deg);
            let center_y = 0.5 * (bottom_y_m + start_top_y_m.max(end_top_y_m));
            let center_world = Vec3::new(center_xz_world.x, center_y, center_xz_world.y);
            let mut points_local = Vec::with_capacity(8);
            for (lz, top_y) in [
                (-half_length_m, start_top_y_m),
                (half_length_m, end_top_y_m),
            ] {
                for lx in [-half_width_m, half_width_m] {
                    let (wx, wz) = to_world(sin_cos, lx, lz);
                    points_local.push(Vec3::new(wx, bottom_y_m - center_y, wz));
                    points_local.push(Vec3::new(wx, top_y - center_y, wz));
                }
            }
            out.push(SolidShape::ConvexHull {
                center_world,
                points_local,
            });
        }
        Shape::Stairs {
            start_world,
            yaw_deg,
            width_m,
            step_count,
            riser_m,
            tread_m,
        } => {
            let sin_cos = yaw_sin_cos(yaw_deg);
            for step in 0..step_count {
                let top_m = riser_m * (step + 1) as f32;
                let (wx, wz) = to_world(sin_cos, 0.0, tread_m * (step as f32 + 0.5));
                out.push(cuboid(
                    start_world + Vec3::new(wx, 0.5 * top_m, wz),
                    Vec3::new(0.5 * width_m, 0.5 * top_m, 0.5 * tread_m),
                    yaw_deg,
                ));
            }
        }
        Shape::Bumps { .. } => {
            if let Some(field) = BumpField::from_shape(shape) {
                out.extend(field.caps().map(|cap| SolidShape::Ball {
                    center_world: cap.sphere_center_world,
                    radius_m: cap.sphere_radius_m,
                }));
            }
        }
    }
}

/// A box yawed about +Y; multiples of 90° become an axis-aligned box (swapped extents, no
/// rotation) so the collider's faces are exactly where the ground truth puts them.
fn cuboid(center_world: Vec3, half_extents_m: Vec3, yaw_deg: f32) -> SolidShape {
    let quarter = yaw_deg / 90.0;
    if quarter.fract() == 0.0 {
        let half_extents_m = if (quarter as i64).rem_euclid(2) == 1 {
            Vec3::new(half_extents_m.z, half_extents_m.y, half_extents_m.x)
        } else {
            half_extents_m
        };
        SolidShape::Cuboid {
            center_world,
            half_extents_m,
            rotation_world: Quat::IDENTITY,
        }
    } else {
        SolidShape::Cuboid {
            center_world,
            half_extents_m,
            rotation_world: Quat::from_rotation_y((yaw_deg as f64).to_radians() as f32),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn yaw_frames_agree_with_glam() {
        for yaw_deg in [0.0f32, 30.0, 90.0, 180.0, -90.0, 270.0, 450.0, 123.4] {
            let (s, c) = yaw_sin_cos(yaw_deg);
            let q = Quat::from_rotation_y(yaw_deg.to_radians());
            let local = Vec3::new(0.3, 0.0, 1.7);
            let (wx, wz) = to_world((s, c), local.x, local.z);
            let expected = q * local;
            assert!((wx - expected.x).abs() < 1e-5 && (wz - expected.z).abs() < 1e-5);
            let (lx, lz) = to_local((s, c), wx, wz);
            assert!((lx - local.x).abs() < 1e-5 && (lz - local.z).abs() < 1e-5);
        }
        assert_eq!(yaw_sin_cos(180.0), (0.0, -1.0));
        assert_eq!(yaw_sin_cos(-90.0), (-1.0, 0.0));
    }

    #[test]
    fn cap_meets_its_base_plane_at_the_rim() {
        let field = BumpField {
            center_world: Vec3::new(0.0, 0.5, 0.0),
            half_size_m: Vec2::new(1.0, 1.0),
            sin_cos: (0.0, 1.0),
            seed: 3,
            count: 5,
            height_min_m: 0.02,
            height_max_m: 0.05,
            radius_min_m: 0.15,
            radius_max_m: 0.25,
        };
        for cap in field.caps() {
            let top = cap
                .top_at(cap.base_center_world.x, cap.base_center_world.z)
                .unwrap();
            assert!((top.height_m - (0.5 + cap.height_m)).abs() < 1e-5);
            assert!((top.normal_world - Vec3::Y).length() < 1e-5);
            let rim = cap
                .top_at(
                    cap.base_center_world.x + cap.base_radius_m * 0.9999,
                    cap.base_center_world.z,
                )
                .unwrap();
            assert!((rim.height_m - 0.5).abs() < 1e-3, "{}", rim.height_m);
            assert!(rim.normal_world.x > 0.0);
            assert!(cap
                .top_at(
                    cap.base_center_world.x + cap.base_radius_m * 1.01,
                    cap.base_center_world.z
                )
                .is_none());
        }
    }
}
