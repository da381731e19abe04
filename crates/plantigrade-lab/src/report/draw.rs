//! The report's pictures of each run it shows: the three time plots, the filmstrip (drawn
//! by [`crate::film`], as the `film` subcommand draws it) and, on stairs and ramps, a
//! close-up of the legs over one footfall. Drawn on a second thread while the next runs
//! are simulated ([`draw_alongside`]), so on two cores most of the drawing is hidden.

use std::ops::Range;
use std::path::PathBuf;

use anyhow::Context;
use plantigrade_course::Course;

use super::html::{Image, Images};
use super::plots;
use super::runs::column_key;
use crate::film::{self, Limb};
use crate::quality::{FootQuality, TickSample};
use crate::scenarios::{self, Scenario, ScenarioResult};

/// A figure every this many seconds in the report's filmstrips (as `film`'s default).
const FILM_EVERY_S: f32 = 0.2;
/// Ticks a close-up shows: half before the touch-down, half from it on.
const CLOSE_UP_TICKS: usize = 6;
/// Where the report's pictures go, beside index.html.
pub const IMAGE_DIR: &str = "img";

/// Which runs get pictures: one foot IK mode, one tilt, one mover (the others are in the
/// tables only; drawing every run would more than double a default run's time).
#[derive(Clone, Debug, PartialEq)]
pub struct Selection {
    pub mode: String,
    pub tilt: String,
    pub mover: String,
}

impl Selection {
    pub fn wants(&self, result: &ScenarioResult) -> bool {
        result.mode == self.mode && result.tilt == self.tilt && result.mover == self.mover
    }
}

/// One finished run, handed to the drawing thread.
pub struct RunToDraw {
    pub scenario: Scenario,
    pub result_foot: FootQuality,
    pub mode: String,
    pub tilt: String,
    pub mover: String,
    pub start_offset_m: f32,
    pub samples: Vec<TickSample>,
}

/// What the drawing needs besides the run: where the report is, the course, the rig.
pub struct Drawer<'a> {
    /// The report's directory (pictures go in its [`IMAGE_DIR`]).
    pub dir: PathBuf,
    pub course: &'a Course,
    pub bones: Vec<(usize, usize, Limb)>,
    pub hz: f32,
}

/// Whether a scenario gets a close-up of one footfall: stairs and ramps.
pub fn wants_close_up(scenario: &str) -> bool {
    scenario.contains("stairs") || scenario.contains("ramp")
}

/// The ticks of a close-up and its landing foot: [`CLOSE_UP_TICKS`] consecutive ticks
/// around the touch-down (of either foot) nearest the middle of the run, so on a flight it
/// is a footfall on the treads rather than on the floor before them.
pub fn close_up_ticks(samples: &[TickSample], hz: f32) -> Option<(Range<usize>, usize)> {
    let middle = samples.len() / 2;
    let half = CLOSE_UP_TICKS / 2;
    (0..2)
        .flat_map(|foot| {
            plots::touch_downs(samples, foot, hz)
                .into_iter()
                .map(move |i| (i, foot))
        })
        .filter(|&(i, _)| i >= half && i + CLOSE_UP_TICKS - half <= samples.len())
        .min_by_key(|&(i, _)| i.abs_diff(middle))
        .map(|(i, foot)| (i - half..i + CLOSE_UP_TICKS - half, foot))
}

impl Drawer<'_> {
    /// Draws one run's pictures into the image directory; returns them with paths relative
    /// to the report.
    pub fn draw(&self, run: &RunToDraw) -> anyhow::Result<Vec<Image>> {
        let dir = self.dir.join(IMAGE_DIR);
        std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
        let column = column_key(&run.mode, &run.tilt, Some(&run.mover));
        let stem: String = format!("{}_{column}", run.scenario.name)
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
            .collect();
        let title = format!(
            "{} — foot IK {}, tilt {}, {} mover, {} Hz",
            run.scenario.name, run.mode, run.tilt, run.mover, self.hz
        );
        let mut images = Vec::new();
        let mut add = |suffix: &str, caption: String| {
            let file = format!("{IMAGE_DIR}/{stem}_{suffix}.png");
            images.push(Image {
                file: file.clone(),
                caption,
            });
            self.dir.join(file)
        };
        let samples = &run.samples;
        let path = add(
            "feet",
            format!("{column}: foot height above the true ground"),
        );
        plots::draw_foot_heights(samples, self.hz, &title, &path)?;
        let path = add(
            "tilt",
            format!("{column}: pelvis tilt and torso lean against the slope"),
        );
        plots::draw_tilt(samples, self.hz, &title, &path)?;
        let path = add("probes", format!("{column}: look-ahead and probe hits"));
        plots::draw_look_ahead(samples, self.hz, &title, &path)?;

        let path_info = scenarios::path_for(self.course, &run.scenario, run.start_offset_m)?;
        let mut film = film::Film {
            title,
            subtitle: film::subtitle(&run.result_foot, FILM_EVERY_S),
            samples,
            bones: self.bones.clone(),
            course: self.course,
            origin_world: path_info.spawn,
            direction_world: path_info.direction,
            every_s: FILM_EVERY_S,
            views: film::Views::for_scenario(&run.scenario),
        };
        let path = add("film", format!("{column}: filmstrip"));
        film::render(&film, &path)?;
        if wants_close_up(run.scenario.name) {
            if let Some((ticks, foot)) = close_up_ticks(samples, self.hz) {
                let side = if foot == 0 { "left" } else { "right" };
                film.subtitle = format!(
                    "the {side} foot's touch-down at {:.3} s: {CLOSE_UP_TICKS} consecutive ticks · left blue, right red, □ locked ball, × predicted landing (animated height; green hit, red miss)",
                    samples[ticks.start + CLOSE_UP_TICKS / 2].time_s
                );
                let path = add(
                    "closeup",
                    format!("{column}: close-up of the {side} foot's touch-down"),
                );
                film::render_close_up(&film, ticks, foot, &path)?;
            }
        }
        Ok(images)
    }
}

/// What [`draw_alongside`] hands the runs: call it with each finished run.
pub type Observer<'a> =
    dyn FnMut(&Scenario, &ScenarioResult, scenarios::Trace) -> anyhow::Result<()> + 'a;

/// Runs `run` (the scenarios) while a second thread draws the runs `selection` wants as
/// they finish; returns what `run` returned and the pictures drawn. Without a drawer
/// nothing is drawn (`--no-report`).
pub fn draw_alongside<R>(
    drawer: Option<Drawer>,
    selection: &Selection,
    run: impl FnOnce(&mut Observer) -> anyhow::Result<R>,
) -> anyhow::Result<(R, Images)> {
    let Some(drawer) = drawer else {
        return Ok((run(&mut |_, _, _| Ok(()))?, Images::new()));
    };
    std::thread::scope(|scope| {
        let (send, receive) = std::sync::mpsc::channel::<RunToDraw>();
        let worker = scope.spawn(move || -> anyhow::Result<Images> {
            let mut images = Images::new();
            for job in receive {
                let drawn = drawer
                    .draw(&job)
                    .with_context(|| format!("drawing {} ({})", job.scenario.name, job.mode))?;
                let column = column_key(&job.mode, &job.tilt, Some(&job.mover));
                images
                    .entry((job.scenario.name.to_string(), column))
                    .or_default()
                    .extend(drawn);
            }
            Ok(images)
        });
        let outcome = run(&mut |scenario, result, trace| {
            if selection.wants(result) {
                // A send fails only when the drawing thread stopped on an error: that
                // error is reported when it is joined below.
                let _ = send.send(RunToDraw {
                    scenario: *scenario,
                    result_foot: result.metrics.foot,
                    mode: result.mode.clone(),
                    tilt: result.tilt.clone(),
                    mover: result.mover.clone(),
                    start_offset_m: result.start_offset_m,
                    samples: trace.samples,
                });
            }
            Ok(())
        });
        drop(send);
        let images = worker
            .join()
            .map_err(|_| anyhow::anyhow!("the report's drawing thread panicked"))?;
        Ok((outcome?, images?))
    })
}
