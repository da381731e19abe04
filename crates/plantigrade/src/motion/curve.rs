//! A piecewise-linear curve `y(x)` for tuning (SPEC MOVE-3, MOVE-4): acceleration,
//! deceleration and turn rate over normalized speed. Points are sorted by strictly increasing
//! `x`; samples outside the range hold the end values.
//!
//! In RON a curve is its list of points: `[(0.0, 12.0), (0.5, 6.0), (1.0, 9.0)]`.

/// Why a curve could not be built.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum CurveError {
    #[error("a curve needs at least one point")]
    Empty,
    #[error("curve point {index} is not finite")]
    NonFinite { index: usize },
    #[error("curve point {index} does not have a larger x than the point before it")]
    Unsorted { index: usize },
}

/// Points `(x, y)` with strictly increasing `x`, linearly interpolated, clamped at both ends.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "reflect", derive(bevy_reflect::Reflect))]
#[serde(try_from = "Vec<(f32, f32)>", into = "Vec<(f32, f32)>")]
pub struct Curve {
    points: Vec<(f32, f32)>,
}

impl Curve {
    /// A curve through `points`; refuses an empty list, non-finite values and `x` values
    /// that do not strictly increase.
    pub fn new(points: impl Into<Vec<(f32, f32)>>) -> Result<Curve, CurveError> {
        let curve = Curve {
            points: points.into(),
        };
        curve.check()?;
        Ok(curve)
    }

    /// Checks the points still hold what [`Curve::new`] requires: at least one, all
    /// finite, `x` strictly increasing. Always true for a curve built by `new` or read
    /// from a file; a curve edited in place (through reflection, by an inspector) may not.
    pub fn check(&self) -> Result<(), CurveError> {
        if self.points.is_empty() {
            return Err(CurveError::Empty);
        }
        for (index, &(x, y)) in self.points.iter().enumerate() {
            if !x.is_finite() || !y.is_finite() {
                return Err(CurveError::NonFinite { index });
            }
            if index > 0 && x <= self.points[index - 1].0 {
                return Err(CurveError::Unsorted { index });
            }
        }
        Ok(())
    }

    /// A flat curve: `y` everywhere (a non-finite `y` becomes 0).
    pub fn constant(y: f32) -> Curve {
        Curve {
            points: vec![(0.0, if y.is_finite() { y } else { 0.0 })],
        }
    }

    /// The points, sorted by `x`.
    pub fn points(&self) -> &[(f32, f32)] {
        &self.points
    }

    /// `y` at `x`, linearly interpolated; the end values beyond the ends; the first point's
    /// `y` for a NaN `x`. Always finite. No allocation.
    pub fn sample(&self, x: f32) -> f32 {
        let Some(&(x0, y0)) = self.points.first() else {
            return 0.0;
        };
        if x.is_nan() || x <= x0 {
            return y0;
        }
        let mut previous = (x0, y0);
        for &(xi, yi) in &self.points[1..] {
            if x <= xi {
                let t = (x - previous.0) / (xi - previous.0);
                return previous.1 + (yi - previous.1) * t;
            }
            previous = (xi, yi);
        }
        previous.1
    }

    /// The smallest `y` of the points (the curve's minimum).
    pub fn min_y(&self) -> f32 {
        self.points
            .iter()
            .map(|p| p.1)
            .fold(f32::INFINITY, f32::min)
    }

    /// The largest `y` of the points (the curve's maximum).
    pub fn max_y(&self) -> f32 {
        self.points
            .iter()
            .map(|p| p.1)
            .fold(f32::NEG_INFINITY, f32::max)
    }
}

impl TryFrom<Vec<(f32, f32)>> for Curve {
    type Error = CurveError;

    fn try_from(points: Vec<(f32, f32)>) -> Result<Self, Self::Error> {
        Curve::new(points)
    }
}

impl From<Curve> for Vec<(f32, f32)> {
    fn from(curve: Curve) -> Self {
        curve.points
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sampling_interpolates_and_clamps() {
        let c = Curve::new([(0.0, 12.0), (0.5, 6.0), (1.0, 9.0)]).unwrap();
        assert_eq!(c.sample(0.0), 12.0);
        assert!((c.sample(0.25) - 9.0).abs() < 1e-6);
        assert_eq!(c.sample(0.5), 6.0);
        assert!((c.sample(0.75) - 7.5).abs() < 1e-6);
        assert_eq!(c.sample(1.0), 9.0);
        assert_eq!(c.sample(-3.0), 12.0);
        assert_eq!(c.sample(7.0), 9.0);
        assert_eq!(c.sample(f32::INFINITY), 9.0);
        assert_eq!(c.sample(f32::NEG_INFINITY), 12.0);
        assert_eq!(c.sample(f32::NAN), 12.0);
        assert_eq!(c.min_y(), 6.0);
        assert_eq!(c.max_y(), 12.0);
        let one = Curve::constant(4.0);
        assert_eq!(one.sample(-1.0), 4.0);
        assert_eq!(one.sample(100.0), 4.0);
        assert_eq!(Curve::constant(f32::NAN).sample(0.0), 0.0);
    }

    #[test]
    fn a_curve_edited_in_place_is_checked_again() {
        assert_eq!(Curve::constant(1.0).check(), Ok(()));
        let unsorted = Curve {
            points: vec![(0.0, 1.0), (0.5, 2.0), (0.5, 3.0)],
        };
        assert_eq!(unsorted.check(), Err(CurveError::Unsorted { index: 2 }));
        let empty = Curve { points: Vec::new() };
        assert_eq!(empty.check(), Err(CurveError::Empty));
    }

    #[test]
    fn bad_points_are_refused() {
        assert_eq!(Curve::new(Vec::<(f32, f32)>::new()), Err(CurveError::Empty));
        assert_eq!(
            Curve::new([(0.0, 1.0), (f32::NAN, 2.0)]),
            Err(CurveError::NonFinite { index: 1 })
        );
        assert_eq!(
            Curve::new([(0.0, f32::INFINITY)]),
            Err(CurveError::NonFinite { index: 0 })
        );
        assert_eq!(
            Curve::new([(0.0, 1.0), (1.0, 2.0), (0.5, 3.0)]),
            Err(CurveError::Unsorted { index: 2 })
        );
        assert_eq!(
            Curve::new([(0.0, 1.0), (0.0, 2.0)]),
            Err(CurveError::Unsorted { index: 1 })
        );
    }

    #[test]
    fn ron_round_trip_validates() {
        let c: Curve = ron::from_str("[(0.0, 12.0), (0.5, 6.0), (1.0, 9.0)]").unwrap();
        assert_eq!(c.points().len(), 3);
        let text = ron::to_string(&c).unwrap();
        assert_eq!(ron::from_str::<Curve>(&text).unwrap(), c);
        let err = ron::from_str::<Curve>("[(1.0, 1.0), (0.0, 2.0)]").unwrap_err();
        assert!(err.to_string().contains("larger x"), "{err}");
        assert!(ron::from_str::<Curve>("[]").is_err());
    }
}
