//! Blend spaces (GRAPH-2): sample weights from a 1D or 2D parameter position, phase sync
//! across the blended clips, and speed-matched playback rates.
//!
//! A blend space knows sample **positions** only; which clip a sample plays is the caller's
//! business (several samples may name the same clip, e.g. Idle at speed 0 for every
//! direction). Queries write one weight per sample into a caller-owned buffer, or return
//! at most three `(sample, weight)` pairs in a fixed array ([`SparseWeights`]); neither
//! allocates. Weights are non-negative and sum to 1.
//!
//! - [`BlendSpace1D`]: the two neighbours of the query, linearly; clamped outside the range.
//! - [`BlendSpace2D`]: barycentric weights in the Delaunay triangle (from `spade`) that
//!   contains the query; outside the convex hull the query is projected to the nearest point
//!   of the hull boundary and that edge's two samples share the weight. Weights are
//!   continuous everywhere, with no jitter where four samples compete.
//! - [`SyncGroup`]: one normalized phase shared by every clip of the space, so a walk and a
//!   run of different cycle lengths keep their feet in step while the weights change.
//! - [`SpeedScaling`]: the playback rate that makes the blended authored speed match the
//!   character's ground speed.

use glam::{DVec2, Vec2};
use spade::{DelaunayTriangulation, Point2, Triangulation};

/// Weights smaller than this are dropped (and the rest renormalised), so a query on a
/// sample gives exactly 1 there and 0 elsewhere.
pub const MIN_WEIGHT: f32 = 1e-6;

/// Tolerance of the point-in-triangle test, in coordinates normalised to the samples'
/// bounding box: a query on a shared edge belongs to both triangles.
const INSIDE_TOLERANCE: f64 = 1e-9;

/// Why a blend space could not be built or queried.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum BlendSpaceError {
    #[error("a blend space needs at least one sample")]
    Empty,
    #[error("sample {index} has a non-finite position")]
    NonFinite { index: usize },
    #[error("samples {first} and {second} are at the same position")]
    Duplicate { first: usize, second: usize },
    #[error("the weight buffer has {got} slots but the blend space has {expected} samples")]
    OutputLength { expected: usize, got: usize },
    #[error("the triangulation returned a vertex that is not a sample")]
    Triangulation,
}

/// Up to three `(sample index, weight)` pairs with positive weights summing to 1, in a
/// fixed array (no allocation).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SparseWeights {
    entries: [(usize, f32); 3],
    len: usize,
}

impl SparseWeights {
    /// All the weight on one sample.
    fn single(sample: usize) -> Self {
        Self {
            entries: [(sample, 1.0), (0, 0.0), (0, 0.0)],
            len: 1,
        }
    }

    /// Normalises raw weights (negative or NaN count as 0, tiny ones are dropped). If none
    /// is left, the largest raw weight's sample gets everything.
    fn from_raw(raw: &[(usize, f64)]) -> Self {
        let clean = |w: f64| if w > 0.0 { w } else { 0.0 };
        let kept = |w: f64| clean(w) >= f64::from(MIN_WEIGHT);
        let total: f64 = raw
            .iter()
            .map(|&(_, w)| clean(w))
            .filter(|&w| kept(w))
            .sum();
        if total <= 0.0 || !total.is_finite() {
            let best = raw
                .iter()
                .max_by(|a, b| clean(a.1).total_cmp(&clean(b.1)))
                .map_or(0, |&(sample, _)| sample);
            return Self::single(best);
        }
        let mut out = Self::default();
        for &(sample, w) in raw.iter().filter(|&&(_, w)| kept(w)).take(3) {
            out.entries[out.len] = (sample, (clean(w) / total) as f32);
            out.len += 1;
        }
        out
    }

    /// The `(sample index, weight)` pairs.
    pub fn as_slice(&self) -> &[(usize, f32)] {
        &self.entries[..self.len]
    }

    /// Number of samples with a positive weight (1 to 3).
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether no sample has a weight (never the case for a query result).
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The weight of `sample` (0 when absent).
    pub fn weight(&self, sample: usize) -> f32 {
        self.as_slice()
            .iter()
            .find(|&&(s, _)| s == sample)
            .map_or(0.0, |&(_, w)| w)
    }

    /// Writes the dense form: `out` zeroed, then each pair's weight at its index.
    fn write_dense(&self, out: &mut [f32]) {
        out.fill(0.0);
        for &(sample, w) in self.as_slice() {
            if let Some(slot) = out.get_mut(sample) {
                *slot = w;
            }
        }
    }
}

fn check_output(expected: usize, got: usize) -> Result<(), BlendSpaceError> {
    if expected == got {
        Ok(())
    } else {
        Err(BlendSpaceError::OutputLength { expected, got })
    }
}

/// A 1D blend space over sample positions on one axis (e.g. speed in m/s).
///
/// A query between two neighbouring samples weights them linearly; below the first or
/// above the last sample it clamps to that sample. A NaN query is read as 0.
#[derive(Clone, Debug, PartialEq)]
pub struct BlendSpace1D {
    /// `(position, sample index)`, sorted by position, positions strictly increasing.
    sorted: Vec<(f32, usize)>,
}

impl BlendSpace1D {
    /// A blend space from sample positions (any order; one sample is allowed and always
    /// gets weight 1). Refuses an empty list, non-finite positions and duplicates.
    pub fn new(positions: &[f32]) -> Result<Self, BlendSpaceError> {
        if positions.is_empty() {
            return Err(BlendSpaceError::Empty);
        }
        if let Some(index) = positions.iter().position(|p| !p.is_finite()) {
            return Err(BlendSpaceError::NonFinite { index });
        }
        let mut sorted: Vec<(f32, usize)> = positions.iter().copied().zip(0..).collect();
        sorted.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        if let Some(pair) = sorted.windows(2).find(|pair| pair[0].0 == pair[1].0) {
            return Err(BlendSpaceError::Duplicate {
                first: pair[0].1,
                second: pair[1].1,
            });
        }
        Ok(Self { sorted })
    }

    /// Number of samples.
    pub fn num_samples(&self) -> usize {
        self.sorted.len()
    }

    /// The two neighbours of `query` and their weights (one sample at or beyond an end).
    pub fn sample_weights_sparse(&self, query: f32) -> SparseWeights {
        let query = if query.is_nan() { 0.0 } else { query };
        // Number of samples at or below the query.
        let above = self.sorted.partition_point(|&(p, _)| p <= query);
        match (above.checked_sub(1), self.sorted.get(above)) {
            (None, _) => SparseWeights::single(self.sorted.first().map_or(0, |s| s.1)),
            (Some(_), None) => SparseWeights::single(self.sorted.last().map_or(0, |s| s.1)),
            (Some(below), Some(&(p_hi, hi))) => {
                let (p_lo, lo) = self.sorted[below];
                let t = (f64::from(query) - f64::from(p_lo)) / (f64::from(p_hi) - f64::from(p_lo));
                SparseWeights::from_raw(&[(lo, 1.0 - t), (hi, t)])
            }
        }
    }

    /// Writes one weight per sample into `out` (length [`Self::num_samples`]).
    pub fn weights(&self, query: f32, out: &mut [f32]) -> Result<(), BlendSpaceError> {
        check_output(self.num_samples(), out.len())?;
        self.sample_weights_sparse(query).write_dense(out);
        Ok(())
    }
}

/// A triangle of the Delaunay triangulation, prepared for barycentric queries in
/// normalised coordinates.
#[derive(Clone, Debug, PartialEq)]
struct Triangle {
    samples: [usize; 3],
    origin: DVec2,
    edge_1: DVec2,
    edge_2: DVec2,
    inv_double_area: f64,
}

impl Triangle {
    fn new(samples: [usize; 3], points: [DVec2; 3]) -> Option<Self> {
        let edge_1 = points[1] - points[0];
        let edge_2 = points[2] - points[0];
        let inv_double_area = edge_1.perp_dot(edge_2).recip();
        // spade never makes a zero-area face; this only guards the division.
        inv_double_area.is_finite().then_some(Self {
            samples,
            origin: points[0],
            edge_1,
            edge_2,
            inv_double_area,
        })
    }

    /// Barycentric coordinates of `q` (normalised space).
    #[inline]
    fn barycentric(&self, q: DVec2) -> [f64; 3] {
        let d = q - self.origin;
        let l1 = d.perp_dot(self.edge_2) * self.inv_double_area;
        let l2 = self.edge_1.perp_dot(d) * self.inv_double_area;
        [1.0 - l1 - l2, l1, l2]
    }
}

/// An edge of the convex hull in normalised coordinates.
#[derive(Clone, Debug, PartialEq)]
struct HullEdge {
    samples: [usize; 2],
    start: DVec2,
    end: DVec2,
}

impl HullEdge {
    /// Parameter (0..=1 from start to end) and squared distance of the nearest point.
    #[inline]
    fn nearest(&self, q: DVec2) -> (f64, f64) {
        let along = self.end - self.start;
        let length_sq = along.length_squared();
        let t = if length_sq > 0.0 {
            ((q - self.start).dot(along) / length_sq).clamp(0.0, 1.0)
        } else {
            0.0
        };
        (t, (self.start + along * t).distance_squared(q))
    }
}

/// How a 2D space finds weights.
#[derive(Clone, Debug, PartialEq)]
enum Shape {
    /// The usual case: at least three samples not all on one line.
    Triangulated {
        triangles: Vec<Triangle>,
        hull: Vec<HullEdge>,
    },
    /// All samples on one line (or a single sample): a 1D space along that line; queries
    /// are projected onto it.
    Line {
        origin: DVec2,
        direction: DVec2,
        along: BlendSpace1D,
    },
}

/// A 2D blend space over sample points, e.g. x = direction in degrees (−180..=180) and
/// y = speed in m/s.
///
/// The triangulation, the point-in-triangle test and the hull projection work in
/// coordinates **normalised to the samples' bounding box** (each axis mapped to 0..=1), so
/// axes in different units (degrees × m/s) weigh equally. The direction axis does not wrap:
/// place the backward samples at both −180 and +180.
///
/// If every sample lies on one line (including one or two samples), the space falls back
/// to a [`BlendSpace1D`] along that line and queries are projected onto it; use
/// [`BlendSpace2D::is_line`] to warn about it when loading a graph.
///
/// Non-finite query components: NaN is read as 0, ±∞ as far outside (projected onto the
/// hull).
#[derive(Clone, Debug, PartialEq)]
pub struct BlendSpace2D {
    positions: Vec<Vec2>,
    bounds_min: DVec2,
    inv_extent: DVec2,
    shape: Shape,
}

impl BlendSpace2D {
    /// A blend space from sample positions (index = sample index). Refuses an empty list,
    /// non-finite positions and duplicate points.
    pub fn new(positions: &[Vec2]) -> Result<Self, BlendSpaceError> {
        check_positions(positions)?;
        let (bounds_min, inv_extent) = normalisation(positions);
        let normalised: Vec<DVec2> = positions
            .iter()
            .map(|p| (p.as_dvec2() - bounds_min) * inv_extent)
            .collect();
        let shape = triangulate(&normalised)?;
        Ok(Self {
            positions: positions.to_vec(),
            bounds_min,
            inv_extent,
            shape,
        })
    }

    /// Number of samples.
    pub fn num_samples(&self) -> usize {
        self.positions.len()
    }

    /// Sample positions, in the space's own units, by sample index.
    pub fn positions(&self) -> &[Vec2] {
        &self.positions
    }

    /// Whether the samples are collinear and the space behaves as a 1D space along their
    /// line.
    pub fn is_line(&self) -> bool {
        matches!(self.shape, Shape::Line { .. })
    }

    /// The triangles as sample-index triples (counter-clockwise in normalised space), for
    /// debug drawing. Empty for a line space.
    pub fn triangles(&self) -> impl Iterator<Item = [usize; 3]> + '_ {
        let triangles: &[Triangle] = match &self.shape {
            Shape::Triangulated { triangles, .. } => triangles,
            Shape::Line { .. } => &[],
        };
        triangles.iter().map(|t| t.samples)
    }

    /// The samples of `query` with their weights (at most three, summing to 1).
    pub fn sample_weights_sparse(&self, query: Vec2) -> SparseWeights {
        let q = self.normalise_query(query);
        match &self.shape {
            Shape::Triangulated { triangles, hull } => triangle_weights(triangles, hull, q),
            Shape::Line {
                origin,
                direction,
                along,
            } => along.sample_weights_sparse((q - *origin).dot(*direction) as f32),
        }
    }

    /// Writes one weight per sample into `out` (length [`Self::num_samples`]).
    pub fn weights(&self, query: Vec2, out: &mut [f32]) -> Result<(), BlendSpaceError> {
        check_output(self.num_samples(), out.len())?;
        self.sample_weights_sparse(query).write_dense(out);
        Ok(())
    }

    fn normalise_query(&self, query: Vec2) -> DVec2 {
        // Far enough to be outside any hull, small enough for exact-enough projections.
        const FAR: f64 = 1e6;
        let read = |v: f32| if v.is_nan() { 0.0 } else { f64::from(v) };
        let q = DVec2::new(read(query.x), read(query.y));
        ((q - self.bounds_min) * self.inv_extent).clamp(DVec2::splat(-FAR), DVec2::splat(FAR))
    }
}

fn check_positions(positions: &[Vec2]) -> Result<(), BlendSpaceError> {
    if positions.is_empty() {
        return Err(BlendSpaceError::Empty);
    }
    if let Some(index) = positions.iter().position(|p| !p.is_finite()) {
        return Err(BlendSpaceError::NonFinite { index });
    }
    for (second, p) in positions.iter().enumerate() {
        if let Some(first) = positions[..second].iter().position(|q| q == p) {
            return Err(BlendSpaceError::Duplicate { first, second });
        }
    }
    Ok(())
}

/// The bounding-box minimum and 1 / extent per axis (1 for an axis with no extent).
fn normalisation(positions: &[Vec2]) -> (DVec2, DVec2) {
    let min = positions
        .iter()
        .fold(DVec2::splat(f64::INFINITY), |m, p| m.min(p.as_dvec2()));
    let max = positions
        .iter()
        .fold(DVec2::splat(f64::NEG_INFINITY), |m, p| m.max(p.as_dvec2()));
    let extent = max - min;
    let inv = |e: f64| if e > 0.0 { e.recip() } else { 1.0 };
    (min, DVec2::new(inv(extent.x), inv(extent.y)))
}

/// Delaunay-triangulates the normalised points with `spade`, or builds the line fallback.
fn triangulate(points: &[DVec2]) -> Result<Shape, BlendSpaceError> {
    let mut delaunay: DelaunayTriangulation<Point2<f64>> = DelaunayTriangulation::new();
    // spade vertex index → sample index.
    let mut vertex_to_sample: Vec<Option<usize>> = Vec::with_capacity(points.len());
    for (sample, p) in points.iter().enumerate() {
        let vertex = delaunay
            .insert(spade::mitigate_underflow(Point2::new(p.x, p.y)))
            .map_err(|_| BlendSpaceError::NonFinite { index: sample })?;
        let slot = vertex.index();
        if vertex_to_sample.len() <= slot {
            vertex_to_sample.resize(slot + 1, None);
        }
        if let Some(first) = vertex_to_sample[slot] {
            return Err(BlendSpaceError::Duplicate {
                first,
                second: sample,
            });
        }
        vertex_to_sample[slot] = Some(sample);
    }
    if delaunay.all_vertices_on_line() {
        return line_shape(points);
    }
    let sample_of = |vertex: spade::handles::FixedVertexHandle| {
        vertex_to_sample
            .get(vertex.index())
            .copied()
            .flatten()
            .ok_or(BlendSpaceError::Triangulation)
    };
    let mut triangles = Vec::with_capacity(delaunay.num_inner_faces());
    for face in delaunay.inner_faces() {
        let [a, b, c] = face.vertices().map(|v| v.fix());
        let samples = [sample_of(a)?, sample_of(b)?, sample_of(c)?];
        triangles.extend(Triangle::new(samples, samples.map(|s| points[s])));
    }
    let mut hull = Vec::with_capacity(delaunay.convex_hull_size());
    for edge in delaunay.convex_hull() {
        let samples = [sample_of(edge.from().fix())?, sample_of(edge.to().fix())?];
        hull.push(HullEdge {
            samples,
            start: points[samples[0]],
            end: points[samples[1]],
        });
    }
    Ok(Shape::Triangulated { triangles, hull })
}

/// The 1D fallback for collinear samples: positions along the line from the first sample
/// towards the one farthest from it.
fn line_shape(points: &[DVec2]) -> Result<Shape, BlendSpaceError> {
    let origin = points.first().copied().ok_or(BlendSpaceError::Empty)?;
    let farthest = points
        .iter()
        .copied()
        .max_by(|a, b| {
            a.distance_squared(origin)
                .total_cmp(&b.distance_squared(origin))
        })
        .unwrap_or(origin);
    let direction = (farthest - origin).normalize_or_zero();
    let positions: Vec<f32> = points
        .iter()
        .map(|&p| (p - origin).dot(direction) as f32)
        .collect();
    Ok(Shape::Line {
        origin,
        direction,
        along: BlendSpace1D::new(&positions)?,
    })
}

/// Barycentric weights in the triangle containing `q`, else the nearest hull edge's.
fn triangle_weights(triangles: &[Triangle], hull: &[HullEdge], q: DVec2) -> SparseWeights {
    for triangle in triangles {
        let l = triangle.barycentric(q);
        if l.iter().all(|&w| w >= -INSIDE_TOLERANCE) {
            let [a, b, c] = triangle.samples;
            return SparseWeights::from_raw(&[(a, l[0]), (b, l[1]), (c, l[2])]);
        }
    }
    let nearest = hull
        .iter()
        .map(|edge| (edge, edge.nearest(q)))
        .min_by(|a, b| a.1 .1.total_cmp(&b.1 .1));
    match nearest {
        Some((edge, (t, _))) => {
            let [a, b] = edge.samples;
            SparseWeights::from_raw(&[(a, 1.0 - t), (b, t)])
        }
        None => SparseWeights::single(0),
    }
}

// ---------------------------------------------------------------------------------------
// Sync and playback rates

/// The weighted average of `values` (pairs from the two slices; a pair counts when its
/// weight is positive and finite and its value is finite). `None` when no pair counts.
pub fn weighted_average(weights: &[f32], values: &[f32]) -> Option<f32> {
    weighted_mean(weights, values, f32::is_finite)
}

/// The weighted mean over pairs with a positive finite weight and an `accept`ed value.
fn weighted_mean(weights: &[f32], values: &[f32], accept: fn(f32) -> bool) -> Option<f32> {
    let (sum, total) = weights
        .iter()
        .zip(values)
        .filter(|&(&w, &v)| w > 0.0 && w.is_finite() && accept(v))
        .fold((0.0f64, 0.0f64), |(sum, total), (&w, &v)| {
            (sum + f64::from(w) * f64::from(v), total + f64::from(w))
        });
    (total > 0.0).then(|| (sum / total) as f32)
}

/// The shared cycle duration in seconds of a synced blend: the weighted average of the
/// samples' cycle durations (durations that are not positive and finite are ignored).
/// `None` when no weighted sample has a usable duration.
pub fn shared_cycle_duration_s(weights: &[f32], cycle_durations_s: &[f32]) -> Option<f32> {
    weighted_mean(weights, cycle_durations_s, |d| d > 0.0 && d.is_finite())
}

/// The playback rate (1 = authored speed) that keeps a clip of `clip_cycle_duration_s` in
/// step with a synced blend of `shared_cycle_duration_s`: `clip / shared`. 1 when either
/// duration is not positive and finite.
pub fn clip_playback_rate(clip_cycle_duration_s: f32, shared_cycle_duration_s: f32) -> f32 {
    let usable = |d: f32| d > 0.0 && d.is_finite();
    let rate = clip_cycle_duration_s / shared_cycle_duration_s;
    if usable(clip_cycle_duration_s) && usable(shared_cycle_duration_s) && rate.is_finite() {
        rate
    } else {
        1.0
    }
}

/// The normalized phase (0..1, one full cycle) shared by every clip of a synced blend
/// space. Each clip plays at time `phase × its cycle duration`, so feet stay in step while
/// the weights change; equivalently each clip advances at [`clip_playback_rate`].
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SyncGroup {
    /// Normalized phase in 0..1.
    pub phase: f32,
}

impl SyncGroup {
    /// Advances the phase by `dt_s / shared duration` (wrapping into 0..1) and returns it.
    ///
    /// `weights` and `cycle_durations_s` are per sample (see [`shared_cycle_duration_s`]).
    /// A negative or non-finite `dt_s` counts as 0; with no usable duration the phase holds.
    /// A non-finite `phase` (set from outside) is reset to 0.
    pub fn advance(&mut self, dt_s: f32, weights: &[f32], cycle_durations_s: &[f32]) -> f32 {
        if !self.phase.is_finite() {
            self.phase = 0.0;
        }
        let dt_s = if dt_s > 0.0 && dt_s.is_finite() {
            dt_s
        } else {
            0.0
        };
        if let Some(shared_s) = shared_cycle_duration_s(weights, cycle_durations_s) {
            self.phase = wrap_phase(f64::from(self.phase) + f64::from(dt_s) / f64::from(shared_s));
        }
        self.phase
    }

    /// The time in seconds into a clip of `clip_cycle_duration_s` at the current phase.
    pub fn clip_time_s(&self, clip_cycle_duration_s: f32) -> f32 {
        self.phase * clip_cycle_duration_s
    }
}

fn wrap_phase(phase: f64) -> f32 {
    let wrapped = (phase - phase.floor()) as f32;
    if wrapped.is_finite() && wrapped < 1.0 {
        wrapped
    } else {
        0.0
    }
}

/// Playback-rate scaling so that the blended authored speed of a locomotion blend matches
/// the character's actual ground speed (feet do not slide when movement runs a little
/// faster or slower than the clips).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SpeedScaling {
    /// Lowest playback rate. Default 0.5.
    pub min_rate: f32,
    /// Highest playback rate. Default 2.0.
    pub max_rate: f32,
    /// Below this blended authored speed (m/s) the blend counts as standing and plays at
    /// rate 1. Default 0.05 m/s.
    pub min_authored_speed_m_per_s: f32,
}

impl Default for SpeedScaling {
    fn default() -> Self {
        Self {
            min_rate: 0.5,
            max_rate: 2.0,
            min_authored_speed_m_per_s: 0.05,
        }
    }
}

impl SpeedScaling {
    /// `actual / authored`, clamped to `min_rate..=max_rate`. Returns 1 when the authored
    /// speed is below `min_authored_speed_m_per_s` or either speed is not finite; a
    /// negative actual speed counts as 0 (so it clamps to `min_rate`).
    pub fn rate(&self, actual_speed_m_per_s: f32, blended_authored_speed_m_per_s: f32) -> f32 {
        let authored = blended_authored_speed_m_per_s;
        if !actual_speed_m_per_s.is_finite()
            || !authored.is_finite()
            || authored < self.min_authored_speed_m_per_s.max(f32::MIN_POSITIVE)
        {
            return 1.0;
        }
        let (low, high) = self.rate_range();
        (actual_speed_m_per_s.max(0.0) / authored).clamp(low, high)
    }

    /// The rate for a blend given per-sample weights and authored speeds (m/s).
    pub fn rate_for_blend(
        &self,
        actual_speed_m_per_s: f32,
        weights: &[f32],
        authored_speeds_m_per_s: &[f32],
    ) -> f32 {
        weighted_average(weights, authored_speeds_m_per_s)
            .map_or(1.0, |authored| self.rate(actual_speed_m_per_s, authored))
    }

    /// `(min, max)` made usable: finite, positive, ordered.
    fn rate_range(&self) -> (f32, f32) {
        let usable = |r: f32, fallback: f32| {
            if r > 0.0 && r.is_finite() {
                r
            } else {
                fallback
            }
        };
        let low = usable(self.min_rate, 1.0);
        let high = usable(self.max_rate, 1.0);
        (low.min(high), low.max(high))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const EPS: f32 = 1e-5;

    fn dense(space: &BlendSpace2D, query: Vec2) -> Vec<f32> {
        let mut out = vec![0.0; space.num_samples()];
        space.weights(query, &mut out).unwrap();
        out
    }

    fn assert_partition_of_unity(weights: &[f32]) {
        let sum: f32 = weights.iter().sum();
        assert!((sum - 1.0).abs() < EPS, "sum {sum}: {weights:?}");
        assert!(
            weights.iter().all(|&w| (0.0..=1.0).contains(&w)),
            "{weights:?}"
        );
    }

    /// The ALS-style grid: 9 directions (−180..=180 every 45°) × speeds 0 (idle),
    /// 1.75 (walk), 3.75 (run) m/s. Sample index = speed row × 9 + direction column.
    fn direction_speed_grid() -> Vec<Vec2> {
        let mut samples = Vec::new();
        for speed in [0.0, 1.75, 3.75] {
            for column in 0..9 {
                samples.push(Vec2::new(-180.0 + 45.0 * column as f32, speed));
            }
        }
        samples
    }

    /// The classic 9-point velocity layout: idle at the centre, 8 walk directions on a
    /// circle of 1.75 m/s (x = lateral, y = forward velocity).
    fn velocity_nine() -> Vec<Vec2> {
        let mut samples = vec![Vec2::ZERO];
        for i in 0..8 {
            let angle = i as f32 * std::f32::consts::FRAC_PI_4;
            samples.push(Vec2::new(angle.sin(), angle.cos()) * 1.75);
        }
        samples
    }

    #[test]
    fn one_d_weights_neighbours_and_clamps() {
        // Out of order on purpose: walk 1.75, idle 0, run 3.75.
        let space = BlendSpace1D::new(&[1.75, 0.0, 3.75]).unwrap();
        let mut out = [0.0; 3];
        space.weights(2.75, &mut out).unwrap();
        assert_eq!(out, [0.5, 0.0, 0.5]);
        space.weights(0.875, &mut out).unwrap();
        assert_eq!(out, [0.5, 0.5, 0.0]);
        for (query, sample) in [(-1.0, 1), (0.0, 1), (1.75, 0), (3.75, 2), (99.0, 2)] {
            let sparse = space.sample_weights_sparse(query);
            assert_eq!(sparse.as_slice(), &[(sample, 1.0)], "query {query}");
        }
        assert_eq!(
            space.sample_weights_sparse(f32::NAN).as_slice(),
            &[(1, 1.0)]
        );
        assert_eq!(
            space.sample_weights_sparse(f32::INFINITY).as_slice(),
            &[(2, 1.0)]
        );
        assert_eq!(
            space.weights(1.0, &mut [0.0; 2]),
            Err(BlendSpaceError::OutputLength {
                expected: 3,
                got: 2
            })
        );
        let single = BlendSpace1D::new(&[4.0]).unwrap();
        assert_eq!(single.sample_weights_sparse(-3.0).as_slice(), &[(0, 1.0)]);
    }

    #[test]
    fn one_d_refuses_degenerate_input() {
        assert_eq!(BlendSpace1D::new(&[]), Err(BlendSpaceError::Empty));
        assert_eq!(
            BlendSpace1D::new(&[0.0, f32::NAN]),
            Err(BlendSpaceError::NonFinite { index: 1 })
        );
        assert_eq!(
            BlendSpace1D::new(&[2.0, 0.0, 2.0]),
            Err(BlendSpaceError::Duplicate {
                first: 0,
                second: 2
            })
        );
    }

    #[test]
    fn two_d_refuses_degenerate_input() {
        assert_eq!(BlendSpace2D::new(&[]), Err(BlendSpaceError::Empty));
        assert_eq!(
            BlendSpace2D::new(&[Vec2::ZERO, Vec2::new(1.0, f32::INFINITY), Vec2::Y]),
            Err(BlendSpaceError::NonFinite { index: 1 })
        );
        assert_eq!(
            BlendSpace2D::new(&[Vec2::ZERO, Vec2::X, Vec2::Y, Vec2::X]),
            Err(BlendSpaceError::Duplicate {
                first: 1,
                second: 3
            })
        );
    }

    #[test]
    fn weights_are_exact_at_every_sample() {
        for samples in [direction_speed_grid(), velocity_nine()] {
            let space = BlendSpace2D::new(&samples).unwrap();
            for (index, &p) in samples.iter().enumerate() {
                let sparse = space.sample_weights_sparse(p);
                assert_eq!(sparse.as_slice(), &[(index, 1.0)], "sample {index} at {p}");
            }
        }
    }

    #[test]
    fn als_direction_speed_grid_blends_inside_cells() {
        let samples = direction_speed_grid();
        let space = BlendSpace2D::new(&samples).unwrap();
        assert!(!space.is_line());
        assert_eq!(space.triangles().count(), 2 * 8 * 2);
        // Forward (column 4), halfway between walk and run: walk F and run F share.
        let w = dense(&space, Vec2::new(0.0, 2.75));
        assert_partition_of_unity(&w);
        assert!(
            (w[9 + 4] - 0.5).abs() < EPS && (w[18 + 4] - 0.5).abs() < EPS,
            "{w:?}"
        );
        // Between forward and forward-left at walk speed.
        let w = dense(&space, Vec2::new(22.5, 1.75));
        assert!(
            (w[9 + 4] - 0.5).abs() < EPS && (w[9 + 5] - 0.5).abs() < EPS,
            "{w:?}"
        );
        // Inside a cell at most three samples weigh, and all are the cell's corners.
        let sparse = space.sample_weights_sparse(Vec2::new(30.0, 1.0));
        assert!(sparse.len() <= 3);
        for &(sample, _) in sparse.as_slice() {
            assert!([4, 5, 13, 14].contains(&sample), "{sample}");
        }
    }

    #[test]
    fn velocity_nine_point_layout_blends_diagonals() {
        let samples = velocity_nine();
        let space = BlendSpace2D::new(&samples).unwrap();
        assert_eq!(space.triangles().count(), 8);
        // Halfway to the forward-right (diagonal) walk: idle and that sample share.
        let w = dense(&space, samples[1] * 0.5);
        assert!(
            (w[0] - 0.5).abs() < EPS && (w[1] - 0.5).abs() < EPS,
            "{w:?}"
        );
        assert_partition_of_unity(&dense(&space, Vec2::new(0.3, 0.9)));
    }

    #[test]
    fn outside_the_hull_projects_to_the_nearest_edge() {
        let samples = direction_speed_grid();
        let space = BlendSpace2D::new(&samples).unwrap();
        // Faster than run, forward: all on run F.
        assert_eq!(
            space.sample_weights_sparse(Vec2::new(0.0, 9.0)).as_slice(),
            &[(22, 1.0)]
        );
        // Faster than run, between F and FL: the top edge's two samples.
        let w = dense(&space, Vec2::new(22.5, 9.0));
        assert!(
            (w[22] - 0.5).abs() < EPS && (w[23] - 0.5).abs() < EPS,
            "{w:?}"
        );
        // Beyond the direction range at walk speed: projects onto the +180 column.
        let w = dense(&space, Vec2::new(250.0, 2.75));
        assert!(
            (w[17] - 0.5).abs() < EPS && (w[26] - 0.5).abs() < EPS,
            "{w:?}"
        );
        // Non-finite queries stay well defined.
        for q in [
            Vec2::new(f32::NAN, f32::NAN),
            Vec2::new(f32::INFINITY, 1.0),
            Vec2::new(f32::NEG_INFINITY, f32::NEG_INFINITY),
            Vec2::splat(f32::MAX),
        ] {
            assert_partition_of_unity(&dense(&space, q));
        }
        // NaN reads as 0: direction 0, speed 0 is idle forward.
        assert_eq!(
            space.sample_weights_sparse(Vec2::NAN).as_slice(),
            &[(4, 1.0)]
        );
    }

    /// The largest weight change between grid neighbours, divided by the grid step in
    /// normalised units (the space's bounding box is 1 × 1).
    fn max_weight_slope(space: &BlendSpace2D, min: Vec2, max: Vec2, steps: usize) -> f32 {
        let extent = space
            .positions()
            .iter()
            .fold((Vec2::MAX, Vec2::MIN), |(lo, hi), &p| {
                (lo.min(p), hi.max(p))
            });
        let size = extent.1 - extent.0;
        let step = (max - min) / steps as f32;
        let step_normalised = (step / size).max_element();
        let at = |i: usize, j: usize| dense(space, min + step * Vec2::new(i as f32, j as f32));
        let mut worst = 0.0f32;
        let mut previous_row: Vec<Vec<f32>> = Vec::new();
        for j in 0..=steps {
            let row: Vec<Vec<f32>> = (0..=steps).map(|i| at(i, j)).collect();
            for i in 0..=steps {
                assert_partition_of_unity(&row[i]);
                let mut neighbours = Vec::new();
                if i > 0 {
                    neighbours.push(&row[i - 1]);
                }
                if let Some(below) = previous_row.get(i) {
                    neighbours.push(below);
                }
                for n in neighbours {
                    let change = row[i]
                        .iter()
                        .zip(n)
                        .map(|(a, b)| (a - b).abs())
                        .fold(0.0, f32::max);
                    worst = worst.max(change / step_normalised);
                }
            }
            previous_row = row;
        }
        worst
    }

    #[test]
    fn weights_are_continuous_across_edges_and_the_hull() {
        // Grid cells are 1/8 × 0.47 in normalised units, so barycentric slopes stay below
        // about 1 / 0.12 (the shortest triangle height); a jump at an edge or at the hull
        // would show as a change of ~0.5 over one step, a slope of ~50 here.
        let grid = BlendSpace2D::new(&direction_speed_grid()).unwrap();
        let slope = max_weight_slope(&grid, Vec2::new(-260.0, -1.5), Vec2::new(260.0, 5.5), 200);
        assert!(slope < 12.0, "grid slope {slope}");

        // Velocity layout: triangles of height ≈ 0.35 normalised.
        let nine = BlendSpace2D::new(&velocity_nine()).unwrap();
        let slope = max_weight_slope(&nine, Vec2::splat(-3.0), Vec2::splat(3.0), 200);
        assert!(slope < 6.0, "velocity slope {slope}");
    }

    #[test]
    fn collinear_samples_fall_back_to_a_line() {
        // Forward only: idle, walk, run along the speed axis.
        let samples = [
            Vec2::new(0.0, 3.75),
            Vec2::new(0.0, 0.0),
            Vec2::new(0.0, 1.75),
        ];
        let space = BlendSpace2D::new(&samples).unwrap();
        assert!(space.is_line());
        assert_eq!(space.triangles().count(), 0);
        let w = dense(&space, Vec2::new(40.0, 2.75));
        assert_eq!(w, [0.5, 0.0, 0.5]);
        assert_eq!(
            space.sample_weights_sparse(Vec2::new(0.0, -2.0)).as_slice(),
            &[(1, 1.0)]
        );
        // A diagonal line and a single sample also work.
        let diagonal = BlendSpace2D::new(&[Vec2::ZERO, Vec2::splat(2.0)]).unwrap();
        let w = dense(&diagonal, Vec2::new(1.5, 0.5));
        assert!(
            (w[0] - 0.5).abs() < EPS && (w[1] - 0.5).abs() < EPS,
            "{w:?}"
        );
        let single = BlendSpace2D::new(&[Vec2::new(3.0, 4.0)]).unwrap();
        assert_eq!(
            single.sample_weights_sparse(Vec2::ZERO).as_slice(),
            &[(0, 1.0)]
        );
    }

    proptest! {
        #[test]
        fn weights_sum_to_one_in_and_outside_the_hull(
            x in -400.0f32..400.0,
            y in -5.0f32..10.0,
            vx in -4.0f32..4.0,
            vy in -4.0f32..4.0,
        ) {
            let grid = BlendSpace2D::new(&direction_speed_grid()).unwrap();
            let sparse = grid.sample_weights_sparse(Vec2::new(x, y));
            prop_assert!(!sparse.is_empty() && sparse.len() <= 3);
            assert_partition_of_unity(&dense(&grid, Vec2::new(x, y)));
            let nine = BlendSpace2D::new(&velocity_nine()).unwrap();
            assert_partition_of_unity(&dense(&nine, Vec2::new(vx, vy)));
        }

        #[test]
        fn random_layouts_give_a_partition_of_unity(
            points in prop::collection::vec((-10.0f32..10.0, -10.0f32..10.0), 1..16),
            query in (-30.0f32..30.0, -30.0f32..30.0),
        ) {
            let points: Vec<Vec2> = points.into_iter().map(|(x, y)| Vec2::new(x, y)).collect();
            if let Ok(space) = BlendSpace2D::new(&points) {
                assert_partition_of_unity(&dense(&space, Vec2::new(query.0, query.1)));
                for (index, &p) in points.iter().enumerate() {
                    prop_assert!((space.sample_weights_sparse(p).weight(index) - 1.0).abs() < 1e-4);
                }
            }
        }
    }

    #[test]
    fn sync_keeps_walk_and_run_in_phase_while_blending() {
        let durations_s = [1.1, 0.8]; // walk, run
        let dt_s = 1.0 / 60.0;
        let mut sync = SyncGroup::default();
        // Each clip's own time, advanced at its playback rate as a player would.
        let mut clip_times_s = [0.0f32; 2];
        let mut unwrapped_phase = 0.0f64;
        for tick in 1..=120 {
            let run = (tick as f32 * dt_s).min(1.0);
            let weights = [1.0 - run, run];
            let before = sync.phase;
            let shared_s = shared_cycle_duration_s(&weights, &durations_s).unwrap();
            let phase = sync.advance(dt_s, &weights, &durations_s);
            let step = (phase - before).rem_euclid(1.0);
            assert!(step > 0.0 && step < 0.05, "tick {tick}: phase step {step}");
            unwrapped_phase += f64::from(step);
            for (clip, time_s) in clip_times_s.iter_mut().enumerate() {
                let duration_s = durations_s[clip];
                let rate = clip_playback_rate(duration_s, shared_s);
                *time_s = (*time_s + rate * dt_s).rem_euclid(duration_s);
                let clip_phase = *time_s / duration_s;
                let difference = (clip_phase - phase).abs();
                assert!(
                    difference.min(1.0 - difference) < 1e-4,
                    "tick {tick}: clip {clip} at {clip_phase}, shared {phase}"
                );
                let time_difference_s = (sync.clip_time_s(duration_s) - *time_s).abs();
                assert!(time_difference_s.min(duration_s - time_difference_s) < 1e-3);
            }
        }
        // 1 s of blending (mean duration ≈ 0.95 s) then 1 s of run (0.8 s).
        assert!(
            unwrapped_phase > 2.0 && unwrapped_phase < 2.4,
            "{unwrapped_phase}"
        );
    }

    #[test]
    fn sync_guards_bad_input() {
        let mut sync = SyncGroup { phase: 0.25 };
        assert_eq!(sync.advance(f32::NAN, &[1.0], &[1.0]), 0.25);
        assert_eq!(sync.advance(-1.0, &[1.0], &[1.0]), 0.25);
        assert_eq!(sync.advance(0.5, &[0.0], &[1.0]), 0.25);
        assert_eq!(sync.advance(0.5, &[1.0], &[0.0]), 0.25);
        assert_eq!(sync.advance(0.5, &[1.0], &[1.0]), 0.75);
        assert_eq!(sync.advance(1.0, &[1.0], &[1.0]), 0.75);
        let phase = sync.advance(1e9, &[1.0], &[0.9]);
        assert!((0.0..1.0).contains(&phase));
        sync.phase = f32::NAN;
        assert_eq!(sync.advance(0.0, &[1.0], &[1.0]), 0.0);
        assert_eq!(clip_playback_rate(1.0, 0.0), 1.0);
        assert_eq!(clip_playback_rate(1.1, 0.55), 2.0);
    }

    #[test]
    fn speed_scaling_matches_ground_speed_within_limits() {
        let scaling = SpeedScaling::default();
        assert_eq!(scaling.rate(2.0, 2.0), 1.0);
        assert!((scaling.rate(2.1, 1.75) - 1.2).abs() < EPS);
        assert_eq!(scaling.rate(10.0, 1.75), 2.0);
        assert_eq!(scaling.rate(0.1, 1.75), 0.5);
        assert_eq!(scaling.rate(-1.0, 1.75), 0.5);
        // Standing blend or bad input: no scaling.
        assert_eq!(scaling.rate(1.0, 0.0), 1.0);
        assert_eq!(scaling.rate(f32::NAN, 1.75), 1.0);
        assert_eq!(scaling.rate(1.0, f32::INFINITY), 1.0);
        // Blended authored speed: halfway walk (1.75) / run (3.75) = 2.75 m/s.
        let rate = scaling.rate_for_blend(3.3, &[0.5, 0.5], &[1.75, 3.75]);
        assert!((rate - 1.2).abs() < EPS);
        assert_eq!(scaling.rate_for_blend(3.3, &[0.0, 0.0], &[1.75, 3.75]), 1.0);
        let odd = SpeedScaling {
            min_rate: 3.0,
            max_rate: f32::NAN,
            ..SpeedScaling::default()
        };
        assert_eq!(odd.rate(100.0, 1.0), 3.0);
    }

    #[test]
    fn weighted_average_ignores_unusable_pairs() {
        assert_eq!(weighted_average(&[1.0, 3.0], &[2.0, 4.0]), Some(3.5));
        assert_eq!(
            weighted_average(&[1.0, f32::NAN, -1.0], &[2.0, 9.0, 9.0]),
            Some(2.0)
        );
        assert_eq!(weighted_average(&[1.0], &[f32::NAN]), None);
        assert_eq!(weighted_average(&[], &[]), None);
    }
}
