//! How close two feet come: each foot is the three segments between its ankle, heel and
//! ball points, and the distance is the least between any segment of one and any of the
//! other. The foot IK keeps a swinging foot clear of the planted one with it; the lab
//! measures `feet_min_distance_cm` with it.

use glam::Vec3;

/// The least distance (m) between two feet given as `[ankle, heel, ball]`; `None` when a
/// point is not finite.
pub fn feet_distance_m(a: [Vec3; 3], b: [Vec3; 3]) -> Option<f32> {
    const EDGES: [(usize, usize); 3] = [(0, 1), (0, 2), (1, 2)];
    let mut least = f32::INFINITY;
    for (a0, a1) in EDGES {
        for (b0, b1) in EDGES {
            let d = segment_distance_m(a[a0], a[a1], b[b0], b[b1]);
            if !d.is_finite() {
                return None;
            }
            least = least.min(d);
        }
    }
    Some(least)
}

/// The least distance (m) between segments p0–p1 and q0–q1 (closest points, clamped to
/// both segments; Ericson, Real-Time Collision Detection 5.1.9). NaN for non-finite
/// input.
pub fn segment_distance_m(p0: Vec3, p1: Vec3, q0: Vec3, q1: Vec3) -> f32 {
    const EPS: f32 = 1e-12;
    let (d1, d2, r) = (p1 - p0, q1 - q0, p0 - q0);
    let (a, e, f) = (d1.length_squared(), d2.length_squared(), d2.dot(r));
    let (s, t) = if a <= EPS && e <= EPS {
        (0.0, 0.0)
    } else if a <= EPS {
        (0.0, (f / e).clamp(0.0, 1.0))
    } else {
        let c = d1.dot(r);
        if e <= EPS {
            ((-c / a).clamp(0.0, 1.0), 0.0)
        } else {
            let b = d1.dot(d2);
            let denom = a * e - b * b;
            let s = if denom > EPS {
                ((b * f - c * e) / denom).clamp(0.0, 1.0)
            } else {
                0.0
            };
            let t = (b * s + f) / e;
            if t < 0.0 {
                ((-c / a).clamp(0.0, 1.0), 0.0)
            } else if t > 1.0 {
                (((b - c) / a).clamp(0.0, 1.0), 1.0)
            } else {
                (s, t)
            }
        }
    };
    (p0 + d1 * s).distance(q0 + d2 * t)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn segment_and_feet_distances() {
        let v = |x: f32, y: f32, z: f32| Vec3::new(x, y, z);
        // Crossing at right angles 0.1 m apart vertically.
        let d = segment_distance_m(
            v(-1.0, 0.0, 0.0),
            v(1.0, 0.0, 0.0),
            v(0.0, 0.1, -1.0),
            v(0.0, 0.1, 1.0),
        );
        assert!((d - 0.1).abs() < 1e-6, "{d}");
        // Parallel, offset 0.3 m, overlapping; end to end along a line; points.
        let d = segment_distance_m(
            v(0.0, 0.0, 0.0),
            v(1.0, 0.0, 0.0),
            v(0.5, 0.0, 0.3),
            v(2.0, 0.0, 0.3),
        );
        assert!((d - 0.3).abs() < 1e-6, "{d}");
        let d = segment_distance_m(
            v(0.0, 0.0, 0.0),
            v(1.0, 0.0, 0.0),
            v(1.5, 0.0, 0.0),
            v(2.0, 0.0, 0.0),
        );
        assert!((d - 0.5).abs() < 1e-6, "{d}");
        let d = segment_distance_m(Vec3::ZERO, Vec3::ZERO, v(0.0, 0.2, 0.0), v(0.0, 0.2, 0.0));
        assert!((d - 0.2).abs() < 1e-6, "{d}");
        // Two feet side by side 0.2 m apart (ankle, heel, ball).
        let foot = |x: f32| [v(x, 0.08, 0.0), v(x, 0.0, -0.05), v(x, 0.0, 0.15)];
        assert!((feet_distance_m(foot(0.1), foot(-0.1)).unwrap() - 0.2).abs() < 1e-6);
        assert!(segment_distance_m(v(f32::NAN, 0.0, 0.0), Vec3::X, Vec3::Y, Vec3::Z).is_nan());
        assert_eq!(feet_distance_m([Vec3::NAN; 3], foot(0.0)), None);
    }
}
