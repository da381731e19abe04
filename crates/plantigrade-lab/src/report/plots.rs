//! The report's time plots of one run, from its per-tick samples: foot height above the
//! true ground (stance shaded), pelvis tilt against the ground's slope, and the foot IK's
//! look-ahead and probe hits. The data extraction is pure (tested below); the drawing is
//! plotters' bitmap backend with the bundled font ([`crate::film::register_font`]).

use std::ops::Range;
use std::path::Path;

use plotters::coord::Shift;
use plotters::prelude::*;

use crate::film::{GROUND, LEFT, PROBE_HIT as HIT, PROBE_MISS as MISS, RIGHT};
use crate::quality::{in_stance, lean_along_rad, TickSample};

const WIDTH_PX: u32 = 1000;
const TITLE_PX: u32 = 30;
const TORSO: RGBColor = RGBColor(90, 90, 90);

/// Time intervals `[start, end)` (s) of the ticks where `on` holds: a tick at `time_s`
/// covers `[time_s, time_s + dt)`, so a single tick is an interval of one tick.
pub fn intervals(samples: &[TickSample], dt_s: f32, on: impl Fn(usize) -> bool) -> Vec<Range<f32>> {
    let mut out: Vec<Range<f32>> = Vec::new();
    let mut open: Option<f32> = None;
    for (i, s) in samples.iter().enumerate() {
        match (on(i), open) {
            (true, None) => open = Some(s.time_s),
            (false, Some(start)) => {
                out.push(start..s.time_s);
                open = None;
            }
            _ => {}
        }
    }
    if let (Some(start), Some(last)) = (open, samples.last()) {
        out.push(start..last.time_s + dt_s);
    }
    out
}

/// When a foot (0 left, 1 right) is in stance, by the foot metrics' own rule
/// ([`in_stance`]): what the foot-height plot shades.
pub fn stance_intervals(samples: &[TickSample], foot: usize, hz: f32) -> Vec<Range<f32>> {
    intervals(samples, 1.0 / hz, |i| in_stance(samples, foot, i, hz))
}

/// The ticks a foot touches down: in stance, and not on the tick before.
pub fn touch_downs(samples: &[TickSample], foot: usize, hz: f32) -> Vec<usize> {
    (1..samples.len())
        .filter(|&i| in_stance(samples, foot, i, hz) && !in_stance(samples, foot, i - 1, hz))
        .collect()
}

/// Heel and ball height above the true ground under each (mm) over time, as (s, mm);
/// ticks off the course or not finite are left out.
pub fn foot_heights_mm(samples: &[TickSample], foot: usize) -> [Vec<(f32, f32)>; 2] {
    let height = |point: fn(&crate::quality::FootSample) -> (f32, Option<f32>)| {
        samples
            .iter()
            .filter_map(|s| {
                let (y, ground) = point(&s.feet[foot]);
                let mm = (y - ground?) * 1000.0;
                mm.is_finite().then_some((s.time_s, mm))
            })
            .collect()
    };
    [
        height(|f| (f.heel_world.y, f.ground_under_heel_m)),
        height(|f| (f.ball_world.y, f.ground_under_ball_m)),
    ]
}

/// How far ahead the probes looked (cm): the horizontal distance from the foot's mid-sole
/// now to its predicted landing, on the ticks the probes ran.
pub fn look_ahead_cm(samples: &[TickSample], foot: usize) -> Vec<(f32, f32)> {
    samples
        .iter()
        .filter_map(|s| {
            let f = &s.feet[foot];
            let mid = 0.5 * (f.heel_world + f.ball_world);
            let d = f.predicted_landing_world? - mid;
            let cm = d.x.hypot(d.z) * 100.0;
            cm.is_finite().then_some((s.time_s, cm))
        })
        .collect()
}

/// Splits a series where consecutive times are more than `gap_s` apart, so a line does
/// not bridge ticks that were left out.
fn split_at_gaps(points: Vec<(f32, f32)>, gap_s: f32) -> Vec<Vec<(f32, f32)>> {
    let mut runs: Vec<Vec<(f32, f32)>> = Vec::new();
    for p in points {
        match runs.last_mut() {
            Some(run) if run.last().is_some_and(|q| p.0 - q.0 <= gap_s) => run.push(p),
            _ => runs.push(vec![p]),
        }
    }
    runs
}

fn draw_err<E: std::fmt::Debug>(e: E) -> anyhow::Error {
    anyhow::anyhow!("drawing a plot: {e:?}")
}

/// A time-series chart's grid: time (s) along, `y_desc` up, light lines.
fn time_mesh<DB: DrawingBackend>(
    chart: &mut ChartContext<
        '_,
        DB,
        Cartesian2d<plotters::coord::types::RangedCoordf32, plotters::coord::types::RangedCoordf32>,
    >,
    y_desc: &str,
) -> anyhow::Result<()> {
    chart
        .configure_mesh()
        .x_desc("time (s)")
        .y_desc(y_desc)
        .light_line_style(RGBColor(238, 238, 238))
        .label_style(("sans-serif", 11))
        .draw()
        .map_err(draw_err)
}

/// The time axis of a run (s).
fn time_range(samples: &[TickSample], dt_s: f32) -> Range<f32> {
    let start = samples.first().map_or(0.0, |s| s.time_s);
    let end = samples.last().map_or(1.0, |s| s.time_s + dt_s);
    start..end.max(start + dt_s)
}

/// The value range of some series with `pad` either side, at least `min_range`.
fn value_range<'a>(
    series: impl Iterator<Item = &'a (f32, f32)>,
    floor: Range<f32>,
    pad: f32,
) -> Range<f32> {
    let (mut lo, mut hi) = (floor.start, floor.end);
    for &(_, v) in series {
        lo = lo.min(v);
        hi = hi.max(v);
    }
    (lo - pad)..(hi + pad)
}

type Area<'a> = DrawingArea<BitMapBackend<'a>, Shift>;

fn titled<'a>(path: &'a Path, height_px: u32, title: &str) -> anyhow::Result<(Area<'a>, Area<'a>)> {
    let root = BitMapBackend::new(path, (WIDTH_PX, height_px)).into_drawing_area();
    root.fill(&WHITE).map_err(draw_err)?;
    let (top, rest) = root.split_vertically(TITLE_PX);
    top.draw(&Text::new(
        title.to_string(),
        (10, 6),
        ("sans-serif", 16).into_font().color(&BLACK),
    ))
    .map_err(draw_err)?;
    Ok((root, rest))
}

/// Foot height above the true ground, one panel per foot: heel dark, ball light, the
/// ground at 0, stance shaded.
pub fn draw_foot_heights(
    samples: &[TickSample],
    hz: f32,
    title: &str,
    path: &Path,
) -> anyhow::Result<()> {
    let dt = 1.0 / hz;
    let (root, rest) = titled(path, TITLE_PX + 2 * 230, title)?;
    let (top, bottom) = rest.split_vertically(230);
    let time = time_range(samples, dt);
    for (foot, area) in [(0, top), (1, bottom)] {
        let [heel, ball] = foot_heights_mm(samples, foot);
        let y = value_range(heel.iter().chain(&ball), -10.0..40.0, 5.0);
        let colour = if foot == 0 { LEFT } else { RIGHT };
        let mut chart = ChartBuilder::on(&area)
            .margin(6)
            .caption(
                format!(
                    "{} foot: heel (dark) and ball (light) above the true ground; stance shaded",
                    if foot == 0 { "left" } else { "right" }
                ),
                ("sans-serif", 13),
            )
            .x_label_area_size(30)
            .y_label_area_size(50)
            .build_cartesian_2d(time.clone(), y.clone())
            .map_err(draw_err)?;
        time_mesh(&mut chart, "height (mm)")?;
        chart
            .draw_series(stance_intervals(samples, foot, hz).into_iter().map(|r| {
                Rectangle::new(
                    [(r.start, y.start), (r.end, y.end)],
                    colour.mix(0.12).filled(),
                )
            }))
            .map_err(draw_err)?;
        chart
            .draw_series(LineSeries::new(
                [(time.start, 0.0), (time.end, 0.0)],
                GROUND.stroke_width(1),
            ))
            .map_err(draw_err)?;
        for (points, shade) in [(heel, 1.0), (ball, 0.45)] {
            for run in split_at_gaps(points, 1.5 * dt) {
                chart
                    .draw_series(LineSeries::new(run, colour.mix(shade).stroke_width(1)))
                    .map_err(draw_err)?;
            }
        }
    }
    root.present().map_err(draw_err)?;
    Ok(())
}

/// A named line of a plot: its colour, how strong (1 dark, less light) and its points.
type Line = (&'static str, RGBColor, f64, Vec<(f32, f32)>);

/// The tilt stage's pitch and roll (the ground slope it estimated and filtered, which the
/// pelvis and legs follow in part; not the pelvis bone's own angle) against the true slope
/// under the character (deg; the slope is left out where the ground is not a plane or a
/// flight), and the torso lean the posture metrics judge (pelvis → neck against vertical,
/// forward +).
pub fn draw_tilt(samples: &[TickSample], hz: f32, title: &str, path: &Path) -> anyhow::Result<()> {
    let dt = 1.0 / hz;
    let (root, area) = titled(path, TITLE_PX + 260, title)?;
    let deg = |v: f32| v.to_degrees();
    let series: [Line; 5] = [
        (
            "tilt stage pitch",
            LEFT,
            1.0,
            samples
                .iter()
                .map(|s| (s.time_s, deg(s.tilt_pitch_rad)))
                .collect(),
        ),
        (
            "ground pitch",
            LEFT,
            0.35,
            samples
                .iter()
                .filter_map(|s| Some((s.time_s, deg(s.ground_pitch_rad?))))
                .collect(),
        ),
        (
            "tilt stage roll",
            RIGHT,
            1.0,
            samples
                .iter()
                .map(|s| (s.time_s, deg(s.tilt_roll_rad)))
                .collect(),
        ),
        (
            "ground roll",
            RIGHT,
            0.35,
            samples
                .iter()
                .filter_map(|s| Some((s.time_s, deg(s.ground_roll_rad?))))
                .collect(),
        ),
        (
            "torso lean",
            TORSO,
            1.0,
            samples
                .iter()
                .map(|s| {
                    let lean = lean_along_rad(s.pelvis_world, s.neck_world, s.forward_world);
                    (s.time_s, deg(lean))
                })
                .collect(),
        ),
    ];
    let y = value_range(
        series
            .iter()
            .flat_map(|s| s.3.iter())
            .filter(|p| p.1.is_finite()),
        -5.0..5.0,
        2.0,
    );
    let mut chart = ChartBuilder::on(&area)
        .margin(6)
        .caption(
            "tilt stage's filtered slope (dark) against the true slope (light): pitch blue, up the slope +, roll red; torso lean grey (pelvis → neck, forward +)",
            ("sans-serif", 13),
        )
        .x_label_area_size(30)
        .y_label_area_size(50)
        .build_cartesian_2d(time_range(samples, dt), y)
        .map_err(draw_err)?;
    time_mesh(&mut chart, "angle (deg)")?;
    for (name, colour, shade, points) in series {
        let width = if shade < 1.0 { 3 } else { 1 };
        let style = colour.mix(shade).stroke_width(width);
        let mut first = true;
        for run in split_at_gaps(
            points.into_iter().filter(|p| p.1.is_finite()).collect(),
            1.5 * dt,
        ) {
            let drawn = chart
                .draw_series(LineSeries::new(run, style))
                .map_err(draw_err)?;
            if std::mem::take(&mut first) {
                drawn
                    .label(name)
                    .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 16, y)], style));
            }
        }
    }
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.8))
        .border_style(RGBColor(200, 200, 200))
        .label_font(("sans-serif", 11))
        .position(SeriesLabelPosition::UpperLeft)
        .draw()
        .map_err(draw_err)?;
    root.present().map_err(draw_err)?;
    Ok(())
}

/// The look-ahead per foot (cm) above, and below it a strip per probe (left heel, left
/// toe, right heel, right toe): green where it hit ground, red where it ran and missed,
/// blank where no probe ran.
pub fn draw_look_ahead(
    samples: &[TickSample],
    hz: f32,
    title: &str,
    path: &Path,
) -> anyhow::Result<()> {
    let dt = 1.0 / hz;
    let (root, rest) = titled(path, TITLE_PX + 220 + 130, title)?;
    let (top, bottom) = rest.split_vertically(220);
    let time = time_range(samples, dt);
    let lines = [look_ahead_cm(samples, 0), look_ahead_cm(samples, 1)];
    let y = value_range(lines.iter().flatten(), 0.0..5.0, 1.0);
    let mut chart = ChartBuilder::on(&top)
        .margin(6)
        .caption(
            "look-ahead: how far ahead of each foot its probes looked (predicted landing − mid-sole now, horizontal); left blue, right red",
            ("sans-serif", 13),
        )
        .x_label_area_size(30)
        .y_label_area_size(50)
        .build_cartesian_2d(time.clone(), 0f32.min(y.start)..y.end)
        .map_err(draw_err)?;
    time_mesh(&mut chart, "look-ahead (cm)")?;
    for (points, colour) in lines.into_iter().zip([LEFT, RIGHT]) {
        for run in split_at_gaps(points, 1.5 * dt) {
            chart
                .draw_series(LineSeries::new(run, colour.stroke_width(1)))
                .map_err(draw_err)?;
        }
    }
    let mut strip = ChartBuilder::on(&bottom)
        .margin(6)
        .caption(
            "probe hits: green hit, red ran and missed",
            ("sans-serif", 13),
        )
        .x_label_area_size(30)
        .y_label_area_size(50)
        .build_cartesian_2d(time, 0f32..4.0)
        .map_err(draw_err)?;
    strip
        .configure_mesh()
        .x_desc("time (s)")
        .disable_y_mesh()
        .y_labels(0)
        .label_style(("sans-serif", 11))
        .draw()
        .map_err(draw_err)?;
    // The rows' names, beside each row's middle in the label area.
    for (row, name) in ["R toe", "R heel", "L toe", "L heel"].iter().enumerate() {
        let (x, y) = strip.backend_coord(&(strip.x_range().start, row as f32 + 0.5));
        root.draw(&Text::new(
            name.to_string(),
            (x - 46, y - 6),
            ("sans-serif", 11).into_font().color(&BLACK),
        ))
        .map_err(draw_err)?;
    }
    for (row, foot, toe) in [
        (3.0, 0, false),
        (2.0, 0, true),
        (1.0, 1, false),
        (0.0, 1, true),
    ] {
        let ran = |i: usize| samples[i].feet[foot].predicted_landing_world.is_some();
        let hit = |i: usize| {
            let f = &samples[i].feet[foot];
            if toe {
                f.toe_probe_hit
            } else {
                f.heel_probe_hit
            }
        };
        for (colour, on) in [
            (
                HIT,
                Box::new(|i| ran(i) && hit(i)) as Box<dyn Fn(usize) -> bool>,
            ),
            (MISS, Box::new(|i| ran(i) && !hit(i))),
        ] {
            strip
                .draw_series(intervals(samples, dt, on).into_iter().map(|r| {
                    Rectangle::new(
                        [(r.start, row + 0.15), (r.end, row + 0.85)],
                        colour.filled(),
                    )
                }))
                .map_err(draw_err)?;
        }
    }
    root.present().map_err(draw_err)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::Vec3;

    /// A foot that is in stance (grounded, over the course, contact 1) on the ticks marked.
    fn series(stance: &[bool]) -> Vec<TickSample> {
        stance
            .iter()
            .enumerate()
            .map(|(i, &on)| {
                let mut s = TickSample {
                    time_s: i as f32 * 0.1,
                    grounded: true,
                    ..TickSample::default()
                };
                for f in &mut s.feet {
                    f.heel_world = Vec3::new(0.0, 0.02, 0.0);
                    f.ball_world = Vec3::new(0.0, 0.01, 0.2);
                    f.ground_under_heel_m = Some(0.0);
                    f.ground_under_ball_m = Some(0.0);
                    f.contact = 0.0;
                }
                s.feet[0].contact = if on { 1.0 } else { 0.0 };
                s
            })
            .collect()
    }

    #[test]
    fn stance_is_shaded_from_touch_down_to_lift_off() {
        let samples = series(&[false, true, true, false, false, true, true, true]);
        let shaded = stance_intervals(&samples, 0, 10.0);
        assert_eq!(shaded.len(), 2);
        assert!((shaded[0].start - 0.1).abs() < 1e-6 && (shaded[0].end - 0.3).abs() < 1e-6);
        // The last stance runs to the end of the last tick.
        assert!((shaded[1].start - 0.5).abs() < 1e-6 && (shaded[1].end - 0.8).abs() < 1e-6);
        // The other foot never has contact: nothing shaded.
        assert!(stance_intervals(&samples, 1, 10.0).is_empty());
    }

    #[test]
    fn a_stepping_or_airborne_foot_is_not_shaded() {
        let mut samples = series(&[true, true, true, true]);
        samples[1].feet[0].stepping = true;
        samples[3].grounded = false;
        let shaded = stance_intervals(&samples, 0, 10.0);
        assert_eq!(shaded.len(), 2);
        assert!((shaded[0].end - 0.1).abs() < 1e-6);
        assert!((shaded[1].start - 0.2).abs() < 1e-6 && (shaded[1].end - 0.3).abs() < 1e-6);
    }

    #[test]
    fn touch_downs_are_the_first_tick_of_each_stance() {
        let samples = series(&[true, false, true, true, false, true]);
        // The run starting in stance is not a touch-down.
        assert_eq!(touch_downs(&samples, 0, 10.0), vec![2, 5]);
    }

    #[test]
    fn foot_heights_are_millimetres_above_the_ground_under_each_point() {
        let mut samples = series(&[true, true]);
        samples[1].feet[0].ground_under_ball_m = None;
        let [heel, ball] = foot_heights_mm(&samples, 0);
        assert_eq!(heel.len(), 2);
        assert!((heel[0].1 - 20.0).abs() < 1e-3);
        // Off the course under the ball on the second tick: left out.
        assert_eq!(ball.len(), 1);
        assert!((ball[0].1 - 10.0).abs() < 1e-3);
    }

    #[test]
    fn look_ahead_is_the_horizontal_distance_to_the_predicted_landing() {
        let mut samples = series(&[true, true]);
        // Mid-sole at z = 0.1; the landing 0.3 m ahead and 0.5 m up.
        samples[0].feet[0].predicted_landing_world = Some(Vec3::new(0.0, 0.5, 0.4));
        let cm = look_ahead_cm(&samples, 0);
        assert_eq!(cm.len(), 1);
        assert!((cm[0].1 - 30.0).abs() < 1e-3);
    }
}
