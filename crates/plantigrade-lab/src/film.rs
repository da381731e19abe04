//! Filmstrips: the whole stick skeleton of a run, drawn at even time intervals over the true
//! ground profile along its path, so a person can see what the metrics summarise (a body
//! leaning back up a ramp, a foot skidding into a footfall, a foot reaching past a beam).
//!
//! - **Side view** (always): progress along the path against height, in rows of
//!   [`ROW_LENGTH_M`], the course's analytic ground along the path's centre line in brown.
//! - **Front view** (beams, cross-slopes): the lateral offset (the character's left to the
//!   right, as seen from in front) against height, frames overlaid, over the ground's cross
//!   section in the middle of the run.
//! - **Top view** (turns): progress against the lateral offset.
//!
//! Left limbs are blue, right limbs red, the trunk and head dark grey. The heel and ball
//! points of both feet leave a thin trail over every tick, so a skid shows as a trail lying
//! on the ground; a square marks a ball the foot IK holds locked; a cross marks each foot's
//! predicted landing (where its probes looked), green when they hit ground, red when not.
//!
//! [`render`] draws a whole run; [`render_close_up`] the legs over a few ticks. The `film`
//! subcommand and the HTML report both draw through them.

use std::path::Path;

use glam::Vec3;
use plantigrade::{HumanoidMap, Side, Skeleton};
use plantigrade_course::Course;
use plotters::coord::Shift;
use plotters::prelude::*;

use crate::quality::{FootQuality, TickSample};
use crate::scenarios::{Kind, Scenario};

/// Side-view rows cover this much progress each (m).
pub const ROW_LENGTH_M: f32 = 5.0;
/// Side rows reach this far past the progress they own, so a figure near a row's end is
/// drawn whole (m).
const FIGURE_REACH_M: f32 = 0.7;
/// Pixels per metre in every view.
const PX_PER_M: f32 = 200.0;
/// Plot margin and label sizes (px).
const MARGIN_PX: u32 = 8;
const X_LABELS_PX: u32 = 22;
const Y_LABELS_PX: u32 = 44;
const TITLE_PX: u32 = 56;

pub(crate) const LEFT: RGBColor = RGBColor(30, 90, 210);
pub(crate) const RIGHT: RGBColor = RGBColor(215, 55, 35);
const TRUNK: RGBColor = RGBColor(60, 60, 60);
const LEFT_ARM: RGBColor = RGBColor(150, 180, 235);
const RIGHT_ARM: RGBColor = RGBColor(240, 165, 150);
pub(crate) const GROUND: RGBColor = RGBColor(140, 95, 50);
/// The debug draw's predicted landing: probes hit ground there, or missed.
pub(crate) const PROBE_HIT: RGBColor = RGBColor(20, 150, 40);
pub(crate) const PROBE_MISS: RGBColor = RGBColor(220, 0, 0);

/// Which views a film gets besides the side view.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Views {
    pub front: bool,
    pub top: bool,
}

/// Where each limb belongs, for its colour: the legs in full colour, the arms in a pale
/// shade of their side's and thinner, so the feet stay readable on a rig whose arms hang
/// to its knees.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Limb {
    Left,
    Right,
    LeftArm,
    RightArm,
    Trunk,
}

/// What a film draws: the run's samples (with `joints_world` filled) and the rig's bones.
pub struct Film<'a> {
    pub title: String,
    pub subtitle: String,
    pub samples: &'a [TickSample],
    /// Bones to draw, as (parent, child) joint indices, and the limb of each.
    pub bones: Vec<(usize, usize, Limb)>,
    pub course: &'a Course,
    /// Start of the path and its horizontal direction.
    pub origin_world: Vec3,
    pub direction_world: Vec3,
    /// A figure every this many seconds.
    pub every_s: f32,
    pub views: Views,
}

/// The bones of `skeleton` with each one's limb, from its humanoid map. The bone from the
/// skeleton's root to the pelvis is left out when the root is not the pelvis (a root at
/// the feet would draw a line from the floor to the hips).
pub fn bones(skeleton: &Skeleton, map: &HumanoidMap) -> Vec<(usize, usize, Limb)> {
    let trunk: Vec<usize> = map
        .pelvis
        .into_iter()
        .chain(map.spine.iter().copied())
        .chain(map.neck)
        .chain(map.head)
        .collect();
    // The first joint of each side's leg and arm (the clavicle when the upper arm hangs
    // from one that is not on the trunk).
    let side_roots: Vec<(usize, Limb)> = Side::BOTH
        .iter()
        .flat_map(|&side| {
            let (leg_limb, arm_limb) = if side == Side::Left {
                (Limb::Left, Limb::LeftArm)
            } else {
                (Limb::Right, Limb::RightArm)
            };
            let leg = map.legs[side.index()].thigh;
            let arm = map.arms[side.index()]
                .upperarm
                .map(|upper| match skeleton.parent(upper) {
                    Some(p) if !trunk.contains(&p) => p,
                    _ => upper,
                });
            [(leg, leg_limb), (arm, arm_limb)]
                .into_iter()
                .filter_map(|(j, limb)| Some((j?, limb)))
        })
        .collect();
    let limb_of = |mut joint: usize| loop {
        if let Some(&(_, limb)) = side_roots.iter().find(|(j, _)| *j == joint) {
            return limb;
        }
        match skeleton.parent(joint) {
            Some(p) => joint = p,
            None => return Limb::Trunk,
        }
    };
    let mut bones: Vec<(usize, usize, Limb)> = (0..skeleton.num_joints())
        .filter_map(|child| {
            let parent = skeleton.parent(child)?;
            let from_root = skeleton.parent(parent).is_none() && Some(parent) != map.pelvis;
            (!from_root).then(|| (parent, child, limb_of(child)))
        })
        .collect();
    // A foot that hangs from the root as an IK target (Quaternius' rigs) is drawn from the
    // shin's end, where the leg has it.
    for (side, leg) in Side::BOTH.iter().zip(map.legs) {
        if let (Some(calf), Some(foot)) = (leg.calf, leg.foot) {
            if skeleton.parent(foot) != Some(calf) {
                let limb = if *side == Side::Left {
                    Limb::Left
                } else {
                    Limb::Right
                };
                bones.push((calf, foot, limb));
            }
        }
    }
    bones
}

/// The bones of an actor's rig (its bone map, or the detected one), for [`Film::bones`].
pub fn actor_bones(actor: &crate::scenarios::Actor) -> anyhow::Result<Vec<(usize, usize, Limb)>> {
    let skeleton = actor.graph.skeleton();
    let map = match &actor.settings.bone_map {
        Some(names) => HumanoidMap::from_names(skeleton, names)?,
        None => HumanoidMap::detect(skeleton),
    };
    Ok(bones(skeleton, &map))
}

impl Views {
    /// The views a scenario gets: from in front where it moves sideways (beams,
    /// cross-slopes, strafes), from above where it turns.
    pub fn for_scenario(scenario: &Scenario) -> Views {
        Views {
            front: scenario.section.contains("beam")
                || scenario.section.contains("cross_slope")
                || scenario.kind == Kind::Strafe,
            top: matches!(scenario.kind, Kind::Turn180 | Kind::Circle | Kind::Diagonal),
        }
    }
}

/// The line under a run's film title: its foot figures and the legend.
pub fn subtitle(foot: &FootQuality, every_s: f32) -> String {
    format!(
        "penetration max {:.1} mm · float p95 {:.1} mm · planted drift mean {:.1} mm · stance skate {:.3} · a figure every {every_s} s · left blue, right red (arms pale), □ locked ball, × predicted landing (animated height; green hit, red miss)",
        foot.penetration_max_mm,
        foot.float_p95_mm,
        foot.planted_drift_mean_mm,
        foot.skate_ratio_stance,
    )
}

fn colour(limb: Limb) -> RGBColor {
    match limb {
        Limb::Left => LEFT,
        Limb::Right => RIGHT,
        Limb::LeftArm => LEFT_ARM,
        Limb::RightArm => RIGHT_ARM,
        Limb::Trunk => TRUNK,
    }
}

/// A bone's stroke width at scale 1 (px): arms thinner than legs and trunk.
fn stroke_px(limb: Limb) -> f32 {
    match limb {
        Limb::LeftArm | Limb::RightArm => 1.0,
        _ => 2.0,
    }
}

fn draw_err<E: std::fmt::Debug>(e: E) -> anyhow::Error {
    anyhow::anyhow!("drawing the film: {e:?}")
}

/// Registers the bundled DejaVu Sans as plotters' "sans-serif" (no system fonts needed).
pub fn register_font() -> anyhow::Result<()> {
    plotters::style::register_font("sans-serif", FontStyle::Normal, dejavu::sans::regular())
        .map_err(|_| anyhow::anyhow!("the bundled DejaVu Sans font did not load"))
}

/// A 2D projection of world points for one view.
#[derive(Clone, Copy)]
struct Projection {
    origin: Vec3,
    forward: Vec3,
    left: Vec3,
    kind: ViewKind,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum ViewKind {
    Side,
    Front,
    Top,
}

impl Projection {
    fn new(origin: Vec3, forward: Vec3, kind: ViewKind) -> Self {
        let forward = Vec3::new(forward.x, 0.0, forward.z).normalize_or(Vec3::Z);
        let left = Vec3::new(forward.z, 0.0, -forward.x);
        Self {
            origin,
            forward,
            left,
            kind,
        }
    }

    fn along(&self, p: Vec3) -> f32 {
        (p - self.origin).dot(self.forward)
    }

    fn lateral(&self, p: Vec3) -> f32 {
        (p - self.origin).dot(self.left)
    }

    fn project(&self, p: Vec3) -> (f32, f32) {
        match self.kind {
            ViewKind::Side => (self.along(p), p.y),
            ViewKind::Front => (self.lateral(p), p.y),
            ViewKind::Top => (self.along(p), self.lateral(p)),
        }
    }
}

/// Ticks drawn as figures: one every `every_s`, and the last.
fn frame_ticks(samples: &[TickSample], every_s: f32) -> Vec<usize> {
    let mut ticks = Vec::new();
    let mut next = f32::NEG_INFINITY;
    for (i, s) in samples.iter().enumerate() {
        if s.time_s >= next - 1e-4 && !s.joints_world.is_empty() {
            ticks.push(i);
            next = s.time_s + every_s.max(1e-3);
        }
    }
    if let Some(last) = samples.len().checked_sub(1) {
        if ticks.last() != Some(&last) && !samples[last].joints_world.is_empty() {
            ticks.push(last);
        }
    }
    ticks
}

/// One panel: a plot area with equal scales on both axes over `x` × `y` (m).
struct Panel {
    /// Figures whose pelvis is in this range are drawn here (side rows).
    owns: (f32, f32),
    x: (f32, f32),
    y: (f32, f32),
    caption: String,
    x_desc: &'static str,
    y_desc: &'static str,
}

impl Panel {
    fn size_px(&self) -> (u32, u32) {
        let w = ((self.x.1 - self.x.0) * PX_PER_M).ceil() as u32;
        let h = ((self.y.1 - self.y.0) * PX_PER_M).ceil() as u32;
        (
            w + Y_LABELS_PX + 2 * MARGIN_PX,
            h + X_LABELS_PX + 2 * MARGIN_PX + 18,
        )
    }
}

/// Draws the film into a PNG at `path`.
pub fn render(film: &Film, path: &Path) -> anyhow::Result<()> {
    let samples = film.samples;
    if samples.is_empty() {
        anyhow::bail!("no ticks to draw");
    }
    let frames = frame_ticks(samples, film.every_s);
    let side = Projection::new(film.origin_world, film.direction_world, ViewKind::Side);

    // Side-view rows: progress range split into rows of ROW_LENGTH_M.
    let mut along_min = f32::INFINITY;
    let mut along_max = f32::NEG_INFINITY;
    for s in samples {
        for &p in &s.joints_world {
            if p.is_finite() {
                along_min = along_min.min(side.along(p));
                along_max = along_max.max(side.along(p));
            }
        }
    }
    if !along_min.is_finite() {
        anyhow::bail!("the run has no finite joint positions to draw");
    }
    let along_min = (along_min - 0.3).floor();
    let along_max = along_max + 0.3;
    let rows = (((along_max - along_min) / ROW_LENGTH_M).ceil() as usize).max(1);
    let mut panels = Vec::new();
    for r in 0..rows {
        let x0 = along_min + r as f32 * ROW_LENGTH_M;
        let x1 = (x0 + ROW_LENGTH_M).min(along_max.max(x0 + 1.0));
        let mut y0 = f32::INFINITY;
        let mut y1 = f32::NEG_INFINITY;
        for s in samples {
            for &p in &s.joints_world {
                let a = side.along(p);
                if p.is_finite() && a >= x0 - FIGURE_REACH_M && a <= x1 + FIGURE_REACH_M {
                    y0 = y0.min(p.y);
                    y1 = y1.max(p.y);
                }
            }
        }
        for g in ground_profile(film.course, &side, x0 - FIGURE_REACH_M, x1 + FIGURE_REACH_M) {
            y0 = y0.min(g.1);
        }
        if !y0.is_finite() {
            continue;
        }
        panels.push((
            ViewKind::Side,
            Panel {
                owns: (x0, x1),
                x: (x0 - FIGURE_REACH_M, x1 + FIGURE_REACH_M),
                y: ((y0 - 0.15).min(y1 - 2.0), y1 + 0.15),
                caption: format!("side view, {x0:.0}–{x1:.0} m"),
                x_desc: "along the path (m)",
                y_desc: "height (m)",
            },
        ));
    }
    let front = Projection::new(film.origin_world, film.direction_world, ViewKind::Front);
    if film.views.front {
        let (mut y0, mut y1) = (f32::INFINITY, f32::NEG_INFINITY);
        // At least ±1.2 m across; wider where the figures go (a strafe).
        let (mut x0, mut x1) = (-1.2f32, 1.2f32);
        for &i in &frames {
            for &p in &samples[i].joints_world {
                if p.is_finite() {
                    y0 = y0.min(p.y);
                    y1 = y1.max(p.y);
                    x0 = x0.min(front.lateral(p) - 0.2);
                    x1 = x1.max(front.lateral(p) + 0.2);
                }
            }
        }
        panels.push((
            ViewKind::Front,
            Panel {
                owns: (f32::NEG_INFINITY, f32::INFINITY),
                x: (x0, x1),
                y: (y0 - 0.6, y1 + 0.15),
                caption: "front view, every figure overlaid (the character's left to the right)"
                    .into(),
                x_desc: "lateral, left + (m)",
                y_desc: "height (m)",
            },
        ));
    }
    let top = Projection::new(film.origin_world, film.direction_world, ViewKind::Top);
    if film.views.top {
        let (mut y0, mut y1) = (f32::INFINITY, f32::NEG_INFINITY);
        for s in samples {
            for &p in &s.joints_world {
                if p.is_finite() {
                    y0 = y0.min(top.lateral(p));
                    y1 = y1.max(top.lateral(p));
                }
            }
        }
        panels.push((
            ViewKind::Top,
            Panel {
                owns: (f32::NEG_INFINITY, f32::INFINITY),
                x: (along_min, along_max.max(along_min + 2.0)),
                y: (y0 - 0.3, y1 + 0.3),
                caption: "top view".into(),
                x_desc: "along the path (m)",
                y_desc: "lateral, left + (m)",
            },
        ));
    }

    let width = panels
        .iter()
        .map(|(_, p)| p.size_px().0)
        .max()
        .unwrap_or(400)
        .max(900);
    let height = TITLE_PX + panels.iter().map(|(_, p)| p.size_px().1).sum::<u32>();
    let root = BitMapBackend::new(path, (width, height)).into_drawing_area();
    root.fill(&WHITE).map_err(draw_err)?;
    let (title, mut rest) = root.split_vertically(TITLE_PX);
    draw_titles(film, &title)?;
    for (kind, panel) in &panels {
        let (_, h) = panel.size_px();
        let (area, below) = rest.split_vertically(h);
        rest = below;
        let projection = match kind {
            ViewKind::Side => side,
            ViewKind::Front => front,
            ViewKind::Top => top,
        };
        draw_panel(film, &frames, panel, projection, &area)?;
    }
    root.present().map_err(draw_err)?;
    Ok(())
}

/// The course's ground height along the side view's centre line, every 1 cm between `x0`
/// and `x1`, as (progress, height); gaps (off the course) are skipped.
fn ground_profile(course: &Course, side: &Projection, x0: f32, x1: f32) -> Vec<(f32, f32)> {
    let n = ((x1 - x0) * 100.0).ceil().max(1.0) as usize;
    (0..=n)
        .filter_map(|i| {
            let a = x0 + (x1 - x0) * i as f32 / n as f32;
            let p = side.origin + side.forward * a;
            course.ground_height(p.x, p.z).map(|h| (a, h))
        })
        .collect()
}

/// Whether a projected point is inside the panel's plot range.
fn inside(panel: &Panel, p: (f32, f32)) -> bool {
    p.0 >= panel.x.0 && p.0 <= panel.x.1 && p.1 >= panel.y.0 && p.1 <= panel.y.1
}

/// The part of the segment `a`–`b` inside the rectangle `x` × `y` (Liang–Barsky), `None`
/// when it misses it.
fn clip_segment(
    a: (f32, f32),
    b: (f32, f32),
    x: (f32, f32),
    y: (f32, f32),
) -> Option<((f32, f32), (f32, f32))> {
    let (dx, dy) = (b.0 - a.0, b.1 - a.1);
    let (mut t0, mut t1) = (0.0f32, 1.0f32);
    // Each edge as (p, q): the segment is inside where p·t ≤ q.
    for (p, q) in [
        (-dx, a.0 - x.0),
        (dx, x.1 - a.0),
        (-dy, a.1 - y.0),
        (dy, y.1 - a.1),
    ] {
        if p == 0.0 {
            if q < 0.0 {
                return None;
            }
        } else {
            let t = q / p;
            if p < 0.0 {
                t0 = t0.max(t);
            } else {
                t1 = t1.min(t);
            }
        }
    }
    (t0 <= t1).then_some((
        (a.0 + t0 * dx, a.1 + t0 * dy),
        (a.0 + t1 * dx, a.1 + t1 * dy),
    ))
}

/// Splits a polyline where consecutive points are more than `gap` apart along x.
fn split_at_gaps(points: Vec<(f32, f32)>, gap: f32) -> Vec<Vec<(f32, f32)>> {
    let mut runs: Vec<Vec<(f32, f32)>> = Vec::new();
    for p in points {
        match runs.last_mut() {
            Some(run) if run.last().is_some_and(|q| (p.0 - q.0).abs() <= gap) => run.push(p),
            _ => runs.push(vec![p]),
        }
    }
    runs
}

/// A chart in world metres over `x` × `y`, with its grid and axis names drawn.
type Chart<'a, 'b> = ChartContext<
    'a,
    BitMapBackend<'b>,
    Cartesian2d<plotters::coord::types::RangedCoordf32, plotters::coord::types::RangedCoordf32>,
>;

fn chart_on<'a, 'b>(
    area: &'a DrawingArea<BitMapBackend<'b>, Shift>,
    panel: &Panel,
    caption_px: u32,
) -> anyhow::Result<Chart<'a, 'b>> {
    let mut chart = ChartBuilder::on(area)
        .margin(MARGIN_PX)
        .caption(panel.caption.clone(), ("sans-serif", caption_px))
        .x_label_area_size(X_LABELS_PX)
        .y_label_area_size(Y_LABELS_PX)
        .build_cartesian_2d(panel.x.0..panel.x.1, panel.y.0..panel.y.1)
        .map_err(draw_err)?;
    chart
        .configure_mesh()
        .x_desc(panel.x_desc)
        .y_desc(panel.y_desc)
        .light_line_style(RGBColor(235, 235, 235))
        .bold_line_style(RGBColor(215, 215, 215))
        .label_style(("sans-serif", 11))
        .draw()
        .map_err(draw_err)?;
    Ok(chart)
}

/// The true ground under a panel: the profile along the path (side view) or the cross
/// section halfway through the run (front view); nothing from above.
fn draw_ground(
    chart: &mut Chart,
    film: &Film,
    panel: &Panel,
    projection: Projection,
) -> anyhow::Result<()> {
    let samples = film.samples;
    let line = match projection.kind {
        ViewKind::Side => ground_profile(film.course, &projection, panel.x.0, panel.x.1),
        ViewKind::Front => {
            let mid = &samples[samples.len() / 2];
            let centre = projection.origin + projection.forward * projection.along(mid.root_world);
            let steps = ((panel.x.1 - panel.x.0) / 0.01).ceil() as usize;
            (0..=steps)
                .filter_map(|i| {
                    let l = panel.x.0 + i as f32 * 0.01;
                    let p = centre + projection.left * l;
                    film.course.ground_height(p.x, p.z).map(|h| (l, h))
                })
                .collect()
        }
        ViewKind::Top => Vec::new(),
    };
    for run in split_at_gaps(line, 0.02) {
        chart
            .draw_series(LineSeries::new(run, GROUND.stroke_width(2)))
            .map_err(draw_err)?;
    }
    Ok(())
}

fn draw_panel(
    film: &Film,
    frames: &[usize],
    panel: &Panel,
    projection: Projection,
    area: &DrawingArea<BitMapBackend, Shift>,
) -> anyhow::Result<()> {
    let samples = film.samples;
    let mut chart = chart_on(area, panel, 13)?;
    draw_ground(&mut chart, film, panel, projection)?;

    // Heel and ball trails over every tick.
    for foot in 0..2 {
        let c = if foot == 0 { LEFT } else { RIGHT };
        for point in [
            |f: &crate::quality::FootSample| f.heel_world,
            |f: &crate::quality::FootSample| f.ball_world,
        ] {
            let trail: Vec<(f32, f32)> = samples
                .iter()
                .map(|s| point(&s.feet[foot]))
                .filter(|p| p.is_finite())
                .map(|p| projection.project(p))
                .filter(|p| inside(panel, *p))
                .collect();
            for run in split_at_gaps(trail, 0.3) {
                chart
                    .draw_series(LineSeries::new(run, c.mix(0.35).stroke_width(1)))
                    .map_err(draw_err)?;
            }
        }
    }

    // The figures.
    let alpha = if projection.kind == ViewKind::Side {
        1.0
    } else {
        0.35
    };
    for &i in frames {
        let s = &samples[i];
        let pelvis = projection.project(s.pelvis_world);
        if !(pelvis.0 >= panel.owns.0 && pelvis.0 < panel.owns.1) {
            continue;
        }
        draw_figure(&mut chart, film, s, projection, panel, (alpha, 1.0))?;
        if projection.kind == ViewKind::Side {
            let top = s
                .joints_world
                .iter()
                .filter(|p| p.is_finite())
                .map(|p| p.y)
                .fold(f32::MIN, f32::max);
            chart
                .draw_series(std::iter::once(Text::new(
                    format!("{:.1}", s.time_s),
                    (pelvis.0 - 0.06, top + 0.12),
                    ("sans-serif", 10)
                        .into_font()
                        .color(&RGBColor(120, 120, 120)),
                )))
                .map_err(draw_err)?;
        }
    }
    Ok(())
}

/// One figure: its bones, the heel and ball points, a square on a locked ball, and the
/// foot IK's debug draw: each foot's predicted landing (the point its probes looked at) as a
/// cross, green when a probe hit ground there and red when both missed. `scale` grows the
/// marks for a close-up. Everything is clipped to the panel (plotters would squash what
/// lies outside onto its edge).
fn draw_figure(
    chart: &mut Chart,
    film: &Film,
    s: &TickSample,
    projection: Projection,
    panel: &Panel,
    (alpha, scale): (f64, f32),
) -> anyhow::Result<()> {
    let segment = |chart: &mut Chart,
                   a: (f32, f32),
                   b: (f32, f32),
                   style: ShapeStyle|
     -> anyhow::Result<()> {
        if let Some((a, b)) = clip_segment(a, b, panel.x, panel.y) {
            chart
                .draw_series(std::iter::once(PathElement::new(vec![a, b], style)))
                .map_err(draw_err)?;
        }
        Ok(())
    };
    for &(parent, child, limb) in &film.bones {
        let (Some(&a), Some(&b)) = (s.joints_world.get(parent), s.joints_world.get(child)) else {
            continue;
        };
        if !(a.is_finite() && b.is_finite()) {
            continue;
        }
        segment(
            chart,
            projection.project(a),
            projection.project(b),
            colour(limb)
                .mix(alpha)
                .stroke_width((stroke_px(limb) * scale).round().max(1.0) as u32),
        )?;
    }
    for (foot, c) in [(0, LEFT), (1, RIGHT)] {
        let f = &s.feet[foot];
        for p in [f.heel_world, f.ball_world] {
            if p.is_finite() && inside(panel, projection.project(p)) {
                chart
                    .draw_series(std::iter::once(Circle::new(
                        projection.project(p),
                        (2.0 * scale) as u32,
                        c.mix(alpha).filled(),
                    )))
                    .map_err(draw_err)?;
            }
        }
        if f.locked && f.ball_world.is_finite() && inside(panel, projection.project(f.ball_world)) {
            let (x, y) = projection.project(f.ball_world);
            let h = 0.025;
            chart
                .draw_series(std::iter::once(Rectangle::new(
                    [(x - h, y - h), (x + h, y + h)],
                    c.mix(alpha).stroke_width(1),
                )))
                .map_err(draw_err)?;
        }
        if let Some(landing) = f.predicted_landing_world.filter(|p| p.is_finite()) {
            let hit = f.heel_probe_hit || f.toe_probe_hit;
            let mark = if hit { PROBE_HIT } else { PROBE_MISS };
            let (x, y) = projection.project(landing);
            let h = 0.02 * scale;
            for [a, b] in [
                [(x - h, y - h), (x + h, y + h)],
                [(x - h, y + h), (x + h, y - h)],
            ] {
                segment(chart, a, b, mark.mix(alpha).stroke_width(2))?;
            }
        }
    }
    Ok(())
}

/// Pixels per metre of a close-up.
const CLOSE_UP_PX_PER_M: f32 = 450.0;
/// A close-up's frames per row.
const CLOSE_UP_COLUMNS: usize = 3;

/// A close-up of the legs over one footfall, side view: each of `ticks` (consecutive ticks
/// around a touch-down) in its own panel, all panels over the same stretch of ground (the
/// landing foot's ankle ± 0.45 m, from below the ground to above the pelvis) so the frames
/// compare directly. `foot` (0 left, 1 right) is the landing foot, named in the captions
/// with its contact weight.
pub fn render_close_up(
    film: &Film,
    ticks: std::ops::Range<usize>,
    foot: usize,
    path: &Path,
) -> anyhow::Result<()> {
    let samples = film.samples;
    let ticks = ticks.start.min(samples.len())..ticks.end.min(samples.len());
    if ticks.is_empty() {
        anyhow::bail!("no ticks to draw in the close-up");
    }
    let side = Projection::new(film.origin_world, film.direction_world, ViewKind::Side);
    let centre = side.along(samples[ticks.start + ticks.len() / 2].feet[foot].ankle_world);
    if !centre.is_finite() {
        anyhow::bail!("the landing foot has no finite position");
    }
    let x = (centre - 0.45, centre + 0.45);
    let (mut y0, mut y1) = (f32::INFINITY, f32::NEG_INFINITY);
    for s in &samples[ticks.clone()] {
        for f in &s.feet {
            for p in [f.heel_world, f.ball_world, f.knee_world] {
                if p.is_finite() {
                    y0 = y0.min(p.y);
                    y1 = y1.max(p.y);
                }
            }
        }
        if s.pelvis_world.is_finite() {
            y1 = y1.max(s.pelvis_world.y);
        }
    }
    for (_, g) in ground_profile(film.course, &side, x.0, x.1) {
        y0 = y0.min(g);
    }
    if !y0.is_finite() {
        anyhow::bail!("the close-up has nothing finite to draw");
    }
    let y = (y0 - 0.08, y1 + 0.1);
    let side_name = if foot == 0 { "left" } else { "right" };
    let panels: Vec<Panel> = samples[ticks.clone()]
        .iter()
        .map(|s| Panel {
            owns: (f32::NEG_INFINITY, f32::INFINITY),
            x,
            y,
            caption: format!(
                "{:.3} s · {side_name} contact {:.2}{}",
                s.time_s,
                s.feet[foot].contact,
                if s.feet[foot].locked {
                    " · locked"
                } else {
                    ""
                }
            ),
            x_desc: "along the path (m)",
            y_desc: "height (m)",
        })
        .collect();
    let size = {
        let w = ((x.1 - x.0) * CLOSE_UP_PX_PER_M).ceil() as u32;
        let h = ((y.1 - y.0) * CLOSE_UP_PX_PER_M).ceil() as u32;
        (
            w + Y_LABELS_PX + 2 * MARGIN_PX,
            h + X_LABELS_PX + 2 * MARGIN_PX + 20,
        )
    };
    let rows = panels.len().div_ceil(CLOSE_UP_COLUMNS);
    let width = size.0 * CLOSE_UP_COLUMNS as u32;
    let height = TITLE_PX + size.1 * rows as u32;
    let root = BitMapBackend::new(path, (width, height)).into_drawing_area();
    root.fill(&WHITE).map_err(draw_err)?;
    let (title, rest) = root.split_vertically(TITLE_PX);
    draw_titles(film, &title)?;
    let cells = rest.split_evenly((rows, CLOSE_UP_COLUMNS));
    for ((panel, s), cell) in panels.iter().zip(&samples[ticks]).zip(&cells) {
        let mut chart = chart_on(cell, panel, 12)?;
        draw_ground(&mut chart, film, panel, side)?;
        draw_figure(&mut chart, film, s, side, panel, (1.0, 1.5))?;
    }
    root.present().map_err(draw_err)?;
    Ok(())
}

fn draw_titles(film: &Film, title: &DrawingArea<BitMapBackend, Shift>) -> anyhow::Result<()> {
    title
        .draw(&Text::new(
            film.title.clone(),
            (10, 6),
            ("sans-serif", 20).into_font().color(&BLACK),
        ))
        .map_err(draw_err)?;
    title
        .draw(&Text::new(
            film.subtitle.clone(),
            (10, 32),
            ("sans-serif", 13).into_font().color(&TRUNK),
        ))
        .map_err(draw_err)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_mannequin_bones_are_split_into_legs_arms_and_trunk() {
        let m = plantigrade::mannequin::Mannequin::new();
        let bones = bones(&m.skeleton, &m.bones);
        let named = |name: &str| m.skeleton.find(name).unwrap();
        let limb_of = |child: &str| {
            bones
                .iter()
                .find(|(_, c, _)| *c == named(child))
                .map(|b| b.2)
        };
        assert_eq!(limb_of("calf_l"), Some(Limb::Left));
        assert_eq!(limb_of("foot_r"), Some(Limb::Right));
        assert_eq!(limb_of("hand_l"), Some(Limb::LeftArm));
        assert_eq!(limb_of("upperarm_r"), Some(Limb::RightArm));
        assert_eq!(limb_of("head"), Some(Limb::Trunk));
        // No bone from the root at the feet up to the pelvis.
        assert_eq!(limb_of("pelvis"), None);
    }

    #[test]
    fn frames_are_evenly_spaced_and_include_the_last_tick() {
        let samples: Vec<TickSample> = (0..61)
            .map(|i| TickSample {
                time_s: i as f32 / 60.0,
                joints_world: vec![Vec3::ZERO],
                ..TickSample::default()
            })
            .collect();
        let ticks = frame_ticks(&samples, 0.25);
        assert_eq!(ticks, vec![0, 15, 30, 45, 60]);
        assert_eq!(frame_ticks(&samples[..50], 0.25), vec![0, 15, 30, 45, 49]);
    }

    #[test]
    fn segments_are_clipped_to_the_panel() {
        let (x, y) = ((0.0, 1.0), (0.0, 1.0));
        // Crossing the right edge: cut there.
        let (a, b) = clip_segment((0.5, 0.5), (1.5, 0.5), x, y).unwrap();
        assert_eq!((a, b), ((0.5, 0.5), (1.0, 0.5)));
        // Wholly inside: unchanged.
        assert_eq!(
            clip_segment((0.1, 0.2), (0.3, 0.4), x, y),
            Some(((0.1, 0.2), (0.3, 0.4)))
        );
        // Wholly above, and passing beside a corner: nothing.
        assert_eq!(clip_segment((0.2, 1.5), (0.8, 1.2), x, y), None);
        assert_eq!(clip_segment((0.8, 1.5), (1.5, 0.8), x, y), None);
    }

    #[test]
    fn gaps_split_the_ground_line() {
        let runs = split_at_gaps(vec![(0.0, 0.0), (0.01, 0.0), (1.0, 0.0), (1.01, 0.0)], 0.02);
        assert_eq!(runs.len(), 2);
    }
}
