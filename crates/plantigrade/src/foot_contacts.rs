//! Foot-contact curves derived from a clip that has none (SPEC RIG-6), once per asset at
//! load: a foot is planted while its lower sole point (heel or ball) is near the clip's
//! floor AND moves slowly over the ground, with hysteresis (separate enter and exit
//! thresholds) so it does not flicker, short gaps and blips removed, and looping clips
//! wrapped around. Thresholds scale with the leg's length, so a 1 m and a 2 m rig behave
//! alike. The result is a `FootContact_L`/`FootContact_R` curve (0 swing, 1 planted, a
//! one-sample linear ramp at each change) that the graph's curves, landing prediction and
//! foot lock read like an authored one; [`add_derived_foot_contacts`] adds it to the clips
//! that lack one, and authored curves win.
//!
//! "Over the ground" means as the clip is played: the pose is taken with its root joint's
//! motion (a clip with root motion carries its feet over the ground itself), plus the clip's
//! authored ground velocity for an in-place clip that has one, or else the velocity that
//! holds the lower foot still (an in-place clip's planted foot slides backward at the gait's
//! speed; the median of the lower foot's velocity over the clip is minus that speed).

use glam::Vec3;

use crate::bone_map::{BoneMapError, HumanoidMap, Side};
use crate::clip::{Clip, ClipError, FloatCurve, Interpolation, Track};
use crate::clip_analysis::FOOT_CONTACT_CURVES;
use crate::pose::{local_to_model, ModelPose, Pose, PoseError};
use crate::skeleton::Skeleton;

/// How contacts are derived. Heights are in leg lengths (hip to ankle in the rest pose) and
/// speeds in leg lengths per second, so one setting fits rigs of any size; a speed limit
/// also grows with the clip's ground speed (a share of it), since a fast gait's planted foot
/// slips more in captured or hand-keyed motion.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FootContactConfig {
    /// Evaluation rate (Hz); default 60, the library's tick.
    pub sample_rate_hz: f32,
    /// A foot plants when its heel or ball is at most this high above the foot's floor
    /// (leg lengths; default 0.012, 1 cm on a 0.85 m leg) and still ...
    pub enter_height_leg: f32,
    /// ... and lifts once its lower point is higher than this (default 0.05) or moving.
    pub exit_height_leg: f32,
    /// "Still" to plant: moving over the ground at most this fast (leg lengths per second;
    /// default 0.3) ...
    pub enter_speed_leg_s: f32,
    /// ... or this share of the clip's ground speed, whichever is larger (default 0.25).
    pub enter_speed_of_gait: f32,
    /// "Moving" to lift: sliding faster than this (leg lengths per second; default 1.2) ...
    pub exit_speed_leg_s: f32,
    /// ... or this share of the clip's ground speed, whichever is larger (default 0.5) ...
    pub exit_speed_of_gait: f32,
    /// ... or rising faster than this (leg lengths per second; default 0.3).
    pub exit_rise_speed_leg_s: f32,
    /// A heel strike whose ball comes down within this is planted from the ball (seconds;
    /// default 0.05); a longer heel roll is planted from the heel.
    pub ball_landing_window_s: f32,
    /// A swing of at most this long in which the foot never rises above `exit_height_leg` is
    /// a slide along the floor, and counts as stance (seconds; default 0.2).
    pub max_slide_s: f32,
    /// Stances and swings shorter than this are merged into their neighbours (seconds;
    /// default 0.03, 2 ticks: one-tick flicker): a swing gap first, then a stance blip.
    pub min_phase_s: f32,
    /// The foot's floor is this quantile of its lowest point's height over the clip
    /// (default 0.2: a planted foot that rests a little above the dip of its push-off still
    /// counts as down), at most `exit_height_leg` above the lowest.
    pub floor_quantile: f32,
    /// A foot whose lowest point never comes within this of the rest pose's sole height
    /// (leg lengths; default 0.25) never touches the ground (a jump apex, a fall): its
    /// curve is 0. Generous, since some rigs crouch with their feet raised in model space.
    pub airborne_height_leg: f32,
}

impl Default for FootContactConfig {
    fn default() -> Self {
        Self {
            sample_rate_hz: 60.0,
            enter_height_leg: 0.012,
            exit_height_leg: 0.05,
            enter_speed_leg_s: 0.3,
            enter_speed_of_gait: 0.25,
            exit_speed_leg_s: 1.2,
            exit_speed_of_gait: 0.5,
            exit_rise_speed_leg_s: 0.3,
            ball_landing_window_s: 0.05,
            max_slide_s: 0.2,
            min_phase_s: 0.03,
            floor_quantile: 0.2,
            airborne_height_leg: 0.25,
        }
    }
}

impl FootContactConfig {
    fn is_valid(&self) -> bool {
        let positive = |v: f32| v.is_finite() && v > 0.0;
        let share = |v: f32| (0.0..=1.0).contains(&v);
        positive(self.sample_rate_hz)
            && positive(self.enter_height_leg)
            && positive(self.enter_speed_leg_s)
            && positive(self.exit_rise_speed_leg_s)
            && positive(self.airborne_height_leg)
            && self.exit_height_leg.is_finite()
            && self.exit_height_leg >= self.enter_height_leg
            && self.exit_speed_leg_s.is_finite()
            && self.exit_speed_leg_s >= self.enter_speed_leg_s
            && self.enter_speed_of_gait.is_finite()
            && self.enter_speed_of_gait >= 0.0
            && self.exit_speed_of_gait.is_finite()
            && self.exit_speed_of_gait >= self.enter_speed_of_gait
            && share(self.floor_quantile)
            && self.ball_landing_window_s.is_finite()
            && self.ball_landing_window_s >= 0.0
            && self.max_slide_s.is_finite()
            && self.max_slide_s >= 0.0
            && self.min_phase_s.is_finite()
            && self.min_phase_s >= 0.0
    }
}

/// Where the ground velocity of the clip came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GroundVelocitySource {
    /// The clip's authored velocity (it is in place and says how fast it travels).
    Authored,
    /// Estimated from the feet: minus the median velocity of the lower foot while it is
    /// down (near zero for a clip with root motion, one that stands, or one that steps on
    /// the spot).
    Estimated,
}

/// Contact curves derived from one clip.
#[derive(Clone, Debug, PartialEq)]
pub struct DerivedFootContacts {
    /// `FootContact_L`, `FootContact_R`: 0 swing, 1 planted, LINEAR one-sample ramps.
    pub curves: [FloatCurve; 2],
    /// Share of the clip each foot is planted (0..=1), left then right.
    pub stance_share: [f32; 2],
    /// The clip's ground velocity the feet were measured against (model space, m/s).
    pub ground_velocity_model_m_s: Vec3,
    pub ground_velocity_source: GroundVelocitySource,
    /// Mean of the two legs' rest length, hip to ankle (m): the thresholds' unit.
    pub leg_length_m: f32,
    /// True when the feet never come near the floor: both curves are 0.
    pub airborne: bool,
    /// Where the left foot touches down in a looping gait (phase 0..1; see
    /// [`Clip::with_left_foot_down_phase`]): found from the feet's height alone, so a heel
    /// strike counts at the heel's touch however the clip slides the foot after it. `None`
    /// unless both feet step once a cycle, about half a cycle apart.
    pub left_foot_down_phase: Option<f32>,
}

/// Why a clip's contacts could not be derived (the clip is left without them).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum FootContactError {
    #[error(transparent)]
    BoneMap(#[from] BoneMapError),
    #[error("no foot sockets for the {0:?} foot")]
    NoSockets(Side),
    #[error(transparent)]
    Clip(#[from] ClipError),
    #[error(transparent)]
    Pose(#[from] PoseError),
    #[error("clip '{0}' has zero duration (one key or none): no motion to read contacts from")]
    ZeroDuration(String),
    #[error("clip '{clip}' gives a non-finite foot position at {time_s} s")]
    NonFinite { clip: String, time_s: f32 },
    #[error("the legs have no length in the rest pose ({0} m)")]
    NoLegLength(f32),
    #[error("foot-contact settings out of range (positive rates and thresholds, exit ≥ enter)")]
    BadConfig,
}

/// One sample of a foot's heel and ball points, clip space (root motion included), m.
#[derive(Clone, Copy)]
struct SolePoints {
    heel: Vec3,
    ball: Vec3,
}

impl SolePoints {
    fn point(&self, which: usize) -> Vec3 {
        if which == 0 {
            self.heel
        } else {
            self.ball
        }
    }
}

/// Derives `FootContact_L`/`_R` for `clip` from the feet's height and ground speed (see the
/// module docs). Needs both legs and their sockets in `bones`.
pub fn derive_foot_contacts(
    skeleton: &Skeleton,
    bones: &HumanoidMap,
    clip: &Clip,
    config: &FootContactConfig,
) -> Result<DerivedFootContacts, FootContactError> {
    if !config.is_valid() {
        return Err(FootContactError::BadConfig);
    }
    let duration_s = clip.duration_s();
    if !(duration_s.is_finite() && duration_s > 0.0) {
        return Err(FootContactError::ZeroDuration(clip.name().to_string()));
    }
    let mut legs = Vec::with_capacity(2);
    for side in Side::BOTH {
        let leg = bones.leg(side)?;
        let sockets = bones.feet[side.index()].ok_or(FootContactError::NoSockets(side))?;
        legs.push((leg, sockets));
    }

    // Leg length and the rest pose's sole height, the unit and the floor's reference.
    let rest = Pose::rest(skeleton);
    let mut model = ModelPose::new(skeleton.num_joints());
    local_to_model(skeleton, &rest, &mut model)?;
    let mut leg_sum_m = 0.0;
    let mut rest_floor_m = f32::INFINITY;
    for (leg, sockets) in &legs {
        let hip = model.position_model(leg.thigh);
        let knee = model.position_model(leg.calf);
        let ankle = model.position_model(leg.foot);
        leg_sum_m += hip.distance(knee) + knee.distance(ankle);
        let heel = model.point_model(leg.foot, sockets.heel_foot_local);
        let ball = model.point_model(leg.foot, sockets.ball_foot_local);
        rest_floor_m = rest_floor_m.min(heel.y).min(ball.y);
    }
    let leg_m = 0.5 * leg_sum_m;
    if !(leg_m.is_finite() && leg_m > 1e-3 && rest_floor_m.is_finite()) {
        return Err(FootContactError::NoLegLength(leg_m));
    }

    // Samples: one cycle of a loop (index n is the end, for the root's travel over the
    // cycle), every sample of a one-shot clip including its end.
    let n = ((duration_s * config.sample_rate_hz).round() as usize).clamp(2, 1 << 16);
    let dt = duration_s / n as f32;
    let looping = clip.is_looping();
    let mut pose = Pose::rest(skeleton);
    let mut soles = [Vec::with_capacity(n + 1), Vec::with_capacity(n + 1)];
    for i in 0..=n {
        // The end is sampled as the last key (not wrapped to 0), so root motion's travel
        // over the cycle shows.
        let t = if i == n { duration_s } else { i as f32 * dt };
        sample_unwrapped(clip, t, skeleton, &mut pose)?;
        local_to_model(skeleton, &pose, &mut model)?;
        for (f, (leg, sockets)) in legs.iter().enumerate() {
            let heel = model.point_model(leg.foot, sockets.heel_foot_local);
            let ball = model.point_model(leg.foot, sockets.ball_foot_local);
            if !(heel.is_finite() && ball.is_finite()) {
                return Err(FootContactError::NonFinite {
                    clip: clip.name().to_string(),
                    time_s: t,
                });
            }
            soles[f].push(SolePoints { heel, ball });
        }
    }
    // Samples that carry a state: n for a loop (n wraps to 0), n + 1 for a one-shot.
    let count = if looping { n } else { n + 1 };

    // Velocities in clip space (m/s) of foot f's sole point `which` (0 heel, 1 ball) at
    // sample i: over the interval before i and the one after. A loop wraps
    // through its end (shifted by the cycle's travel); a one-shot clip's end samples reuse
    // their one interval.
    let velocities = |f: usize, i: usize, which: usize| -> [Vec3; 2] {
        let p = |k: usize| soles[f][k].point(which);
        let before = if i > 0 {
            p(i - 1)
        } else if looping {
            p(n - 1) - (p(n) - p(0))
        } else {
            p(0) - (p(1) - p(0))
        };
        let after = if i < n {
            p(i + 1)
        } else {
            p(n) + (p(n) - p(n - 1))
        };
        [(p(i) - before) / dt, (after - p(i)) / dt]
    };
    let horizontal = |v: Vec3| Vec3::new(v.x, 0.0, v.z);
    // Each foot's floor: a low quantile of its lower point's height over the clip, at most
    // exit_height above the lowest sample `rests` keeps (a toe scuffing the floor mid-swing
    // does not pull the floor under the stance; see `swinging` below). A foot that digs one
    // point into the ground, far below the rest pose's sole while the other rests near it,
    // gives each point its own floor (the same quantile of that point's height):
    // Quaternius' walk rolls its toes 10 cm under the floor its heel strikes and rolls on,
    // and a floor at the toes' would leave the heel "in the air" for most of the stance.
    let band_m = config.exit_height_leg * leg_m;
    let floors_over = |rests: &dyn Fn(usize, usize, usize) -> bool| -> [[f32; 2]; 2] {
        [0, 1].map(|f| {
            // (height, kept) of the point `which` (2: the lower one) at each sample.
            let heights = |which: usize| -> Vec<(f32, bool)> {
                (0..count)
                    .map(|i| {
                        let s = soles[f][i];
                        match which {
                            2 => [0, 1]
                                .map(|w| (s.point(w).y, rests(f, i, w)))
                                .into_iter()
                                .min_by(|a, b| a.0.total_cmp(&b.0))
                                .unwrap_or((s.heel.y, true)),
                            w => (s.point(w).y, rests(f, i, w)),
                        }
                    })
                    .collect()
            };
            let floor_of = |samples: Vec<(f32, bool)>| -> f32 {
                let mut all: Vec<f32> = samples.iter().map(|s| s.0).collect();
                all.sort_by(f32::total_cmp);
                let k = ((all.len() - 1) as f32 * config.floor_quantile).round() as usize;
                let lowest_resting = samples
                    .iter()
                    .filter(|s| s.1)
                    .map(|s| s.0)
                    .fold(f32::INFINITY, f32::min);
                let lowest = if lowest_resting.is_finite() {
                    lowest_resting
                } else {
                    all[0]
                };
                all[k.min(all.len() - 1)].min(lowest + band_m)
            };
            let own_m = [0, 1].map(|which| floor_of(heights(which)));
            let dug = own_m.map(|floor_m| floor_m < rest_floor_m - band_m);
            if dug[0] != dug[1] {
                own_m
            } else {
                [floor_of(heights(2)); 2]
            }
        })
    };
    // Height of foot f's sole point `which` above its floor at sample i; the foot's height
    // is its lower point's, and that point is the one that carries it.
    let above_floors = |floors_m: &[[f32; 2]; 2], f: usize, i: usize, which: usize| {
        soles[f][i].point(which).y - floors_m[f][which]
    };
    let lower_point_over = |floors_m: &[[f32; 2]; 2], f: usize, i: usize| {
        usize::from(above_floors(floors_m, f, i, 1) < above_floors(floors_m, f, i, 0))
    };
    let foot_above_floors = |floors_m: &[[f32; 2]; 2], f: usize, i: usize| {
        above_floors(floors_m, f, i, 0).min(above_floors(floors_m, f, i, 1))
    };
    // A foot whose lowest point never comes near the rest pose's sole height never touches
    // the ground.
    let lowest_m = [0, 1].map(|f| {
        soles[f][..count]
            .iter()
            .map(|s| s.heel.y.min(s.ball.y))
            .fold(f32::INFINITY, f32::min)
    });
    let foot_airborne = lowest_m.map(|low| low > rest_floor_m + config.airborne_height_leg * leg_m);
    let airborne = foot_airborne.iter().all(|&a| a);

    // The ground velocity: authored for an in-place clip that says it; else the one that
    // holds the lower foot still, on floors over every sample.
    let root_travel = (soles[0][n].heel - soles[0][0].heel) + (soles[1][n].heel - soles[1][0].heel);
    let in_place = Vec3::new(root_travel.x, 0.0, root_travel.z).length() < 0.02 * leg_m;
    let (ground_velocity, source) = match clip.authored_velocity_model_m_s() {
        Some(v) if in_place || !looping => {
            (Vec3::new(v.x, 0.0, v.z), GroundVelocitySource::Authored)
        }
        _ => {
            let floors_m = floors_over(&|_, _, _| true);
            let foot_above = |f: usize, i: usize| foot_above_floors(&floors_m, f, i);
            // The lower foot's velocity at the samples where it is down (within the exit
            // height of its floor), so flight and swing do not count; every sample if none.
            let lower_foot = |i: usize| usize::from(foot_above(1, i) < foot_above(0, i));
            let down = |i: usize| {
                let f = lower_foot(i);
                foot_above(f, i) <= config.exit_height_leg * leg_m
            };
            let any_down = (0..count).any(down);
            let lower: Vec<Vec3> = (0..count)
                .filter(|&i| down(i) || !any_down)
                .map(|i| {
                    let f = lower_foot(i);
                    let [a, b] = velocities(f, i, lower_point_over(&floors_m, f, i));
                    horizontal(0.5 * (a + b))
                })
                .collect();
            let median = |axis: fn(Vec3) -> f32| {
                let mut v: Vec<f32> = lower.iter().map(|&p| axis(p)).collect();
                v.sort_by(f32::total_cmp);
                v[v.len() / 2]
            };
            (
                -Vec3::new(median(|p| p.x), 0.0, median(|p| p.z)),
                GroundVelocitySource::Estimated,
            )
        }
    };
    let gait_m_s = ground_velocity.length();
    let exit_speed = (config.exit_speed_leg_s * leg_m).max(config.exit_speed_of_gait * gait_m_s);

    // A sole point sweeping forward over the ground faster than twice the gait (and
    // than twice the exit speed) is swinging, however low: a toe that scuffs the floor
    // mid-swing (Quaternius' dash dips each swinging toe 2–3 cm under the floor its stance
    // rests on) sets no floor and does not press into the ground. A planted foot, even one
    // a captured clip slides, moves over the ground far slower, or backward. Forward is the
    // way the clip travels: its ground velocity, plus its root's travel for one with root
    // motion.
    let travel_m_s = ground_velocity + horizontal(root_travel) / (2.0 * duration_s);
    let forward = travel_m_s.normalize_or_zero();
    let swing_m_s = (2.0 * exit_speed).max(2.0 * travel_m_s.length());
    let swinging = |f: usize, i: usize, which: usize| {
        let [a, b] = velocities(f, i, which);
        (0.5 * (a + b) + ground_velocity).dot(forward) > swing_m_s
    };
    let floors_m = floors_over(&|f, i, which| !swinging(f, i, which));
    let above = |f: usize, i: usize, which: usize| above_floors(&floors_m, f, i, which);
    let lower_point = |f: usize, i: usize| lower_point_over(&floors_m, f, i);
    let foot_above = |f: usize, i: usize| foot_above_floors(&floors_m, f, i);
    let left_foot_down_phase = if looping && !foot_airborne.iter().any(|&a| a) {
        let heights = |f: usize| -> Vec<f32> { (0..count).map(|i| foot_above(f, i)).collect() };
        let low_m = config.enter_height_leg * leg_m;
        gait_touch_down(&heights(0), &heights(1), low_m)
    } else {
        None
    };

    let min_run = (config.min_phase_s / dt).round() as usize;
    let mut stance_share = [0.0; 2];
    let curves = [0, 1].map(|f| {
        let states: Vec<bool> = if foot_airborne[f] {
            vec![false; count]
        } else {
            let enter_speed =
                (config.enter_speed_leg_s * leg_m).max(config.enter_speed_of_gait * gait_m_s);
            let exit_rise = config.exit_rise_speed_leg_s * leg_m;
            // A point below the foot's floor (the quantile) presses into the ground: down,
            // however the clip slides it (captured sprints slide a planted foot by metres
            // per second), unless it is swinging through. An exact authored clip rests on
            // its floor and never dips below.
            let pressed = |i: usize, which: usize| {
                above(f, i, which) < -1e-4 * leg_m && !swinging(f, i, which)
            };
            // Per sole point (0 heel, 1 ball): its height above the foot's floor and its
            // velocity over the ground over the interval before the sample and the one after.
            let height = |i: usize, which: usize| above(f, i, which);
            let ground =
                |i: usize, which: usize| velocities(f, i, which).map(|v| v + ground_velocity);
            // The ball rising off the floor (toe-off: a heel left behind on the ground for
            // a tick or two does not hold the foot), or about to come down to it (within
            // `ball_landing_window_s`: a heel strike whose ball follows at once is planted
            // from the ball, as authored clips have it; a long heel roll from the heel).
            let ball_off = |i: usize| height(i, 1) > config.enter_height_leg * leg_m;
            let ball_leaving = |i: usize| ball_off(i) && ground(i, 1)[0].y > exit_rise;
            let ball_landing = |i: usize| {
                let sink_m_s = -ground(i, 1)[1].y;
                ball_off(i)
                    && sink_m_s > exit_rise
                    && height(i, 1) <= sink_m_s * config.ball_landing_window_s
            };
            // Plants once either point is down and still (3D: not rising or sinking) before
            // and after the sample, and the ball is neither leaving nor landing.
            let enter = |i: usize| {
                !ball_leaving(i)
                    && !ball_landing(i)
                    && (0..2).any(|which| {
                        let [before, after] = ground(i, which);
                        let h = height(i, which);
                        pressed(i, which)
                            || (h <= config.enter_height_leg * leg_m
                                && before.length().max(after.length()) <= enter_speed)
                    })
            };
            // Stays while the lower point (or the other, when as low within 2 mm per metre
            // of leg) is down, not sliding and not rising over the interval before.
            let stays = |i: usize, which: usize| {
                let before = ground(i, which)[0];
                let h = height(i, which);
                pressed(i, which)
                    || (h <= config.exit_height_leg * leg_m
                        && horizontal(before).length() <= exit_speed
                        && before.y <= exit_rise)
            };
            // Lifts when neither does, or when the ball leaves.
            let exit = |i: usize| {
                let lower = lower_point(f, i);
                let other = 1 - lower;
                let as_low = height(i, other) - height(i, lower) <= 0.002 * leg_m;
                ball_leaving(i) || !(stays(i, lower) || (as_low && stays(i, other)))
            };
            let mut states = vec![false; count];
            let mut planted = enter(0);
            // A loop runs twice so the state at its start follows from its end.
            let passes = if looping { 2 } else { 1 };
            for pass in 0..passes {
                for (i, state) in states.iter_mut().enumerate() {
                    if pass == 0 && i == 0 {
                        *state = planted;
                        continue;
                    }
                    planted = if planted { !exit(i) } else { enter(i) };
                    *state = planted;
                }
            }
            states
        };
        // A "swing" in which the foot never leaves the floor band is a slide: still down.
        let on_floor: Vec<bool> = (0..count)
            .map(|i| foot_above(f, i) <= config.exit_height_leg * leg_m)
            .collect();
        let max_slide = (config.max_slide_s / dt).round() as usize;
        let states = fill_slides(states, &on_floor, max_slide, looping);
        let states = merge_short_runs(states, min_run, looping);
        stance_share[f] = states.iter().filter(|&&s| s).count() as f32 / count as f32;
        curve_from_states(FOOT_CONTACT_CURVES[f], &states, dt, duration_s, looping)
    });

    Ok(DerivedFootContacts {
        curves,
        stance_share,
        ground_velocity_model_m_s: ground_velocity,
        ground_velocity_source: source,
        leg_length_m: leg_m,
        airborne,
        left_foot_down_phase,
    })
}

/// The left foot's touch-down phase in a looping gait, from each foot's lower sole point's
/// height above its floor over one cycle (`left`, `right`, one per sample): the first
/// sample down on the floor (within a quarter of the band below) of the longest run of
/// samples within the larger of `low_m` and a tenth of the point's highest lift (the
/// stance; a toe scuffing the floor mid-swing is a shorter run), the crossing interpolated
/// between samples. `None` unless each foot lifts and lands and the
/// right lands about half a cycle after the left (0.5 ± 0.15): idles, hops and turns on the
/// spot have no gait to line up.
fn gait_touch_down(left: &[f32], right: &[f32], low_m: f32) -> Option<f32> {
    let touch = |h: &[f32]| -> Option<f32> {
        let n = h.len();
        let top = h.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        let threshold = low_m.max(0.1 * top);
        let low: Vec<bool> = h.iter().map(|&v| v <= threshold).collect();
        if n < 4 || low.iter().all(|&l| l) || !low.iter().any(|&l| l) {
            return None;
        }
        let stance = runs(&low, true)
            .into_iter()
            .filter(|r| r.value)
            .max_by_key(|r| r.len)?;
        // The touch itself: the stance's first sample down on the floor (a quarter of
        // the band: a foot hovering low before it lands has not landed), else its start.
        let down_m = 0.25 * threshold;
        let j = (0..stance.len)
            .find(|&j| h[stance.index(j, n)] <= down_m)
            .unwrap_or(0);
        let level = if j == 0 { threshold } else { down_m };
        let i = stance.index(j, n);
        let before = (i + n - 1) % n;
        let (above, below) = (h[before], h[i]);
        let share = if above > below {
            ((above - level) / (above - below)).clamp(0.0, 1.0)
        } else {
            1.0
        };
        Some(((before as f32 + share) / n as f32).rem_euclid(1.0))
    };
    let (l, r) = (touch(left)?, touch(right)?);
    (((r - l).rem_euclid(1.0) - 0.5).abs() <= 0.15).then_some(l)
}

/// Samples at `time_s` in `0..=duration` without wrapping the end back to the start.
pub(crate) fn sample_unwrapped(
    clip: &Clip,
    time_s: f32,
    skeleton: &Skeleton,
    pose: &mut Pose,
) -> Result<(), FootContactError> {
    if time_s < clip.duration_s() {
        clip.sample(time_s, skeleton.rest_local(), pose)?;
        return Ok(());
    }
    if clip.joint_tracks().len() != pose.num_joints() {
        // Let the clip report the mismatch.
        clip.sample(0.0, skeleton.rest_local(), pose)?;
    }
    for ((out, tracks), rest) in pose
        .local_mut()
        .iter_mut()
        .zip(clip.joint_tracks())
        .zip(skeleton.rest_local())
    {
        *out = tracks.sample(time_s, rest);
    }
    Ok(())
}

/// Swing runs (between stances) of at most `max_len` samples during which `on_floor` holds
/// at every sample become stance: the foot slid along the floor without stepping (a longer
/// one is a low swing). A loop's runs wrap around.
fn fill_slides(
    mut states: Vec<bool>,
    on_floor: &[bool],
    max_len: usize,
    looping: bool,
) -> Vec<bool> {
    let n = states.len();
    if n == 0 || states.iter().all(|&s| s) || states.iter().all(|&s| !s) {
        return states;
    }
    for run in runs(&states, looping) {
        let between = looping || (run.k > 0 && run.k + run.len < n);
        let slid = (0..run.len).all(|j| on_floor[run.index(j, n)]);
        if !run.value && between && run.len <= max_len && slid {
            for j in 0..run.len {
                states[run.index(j, n)] = true;
            }
        }
    }
    states
}

/// A run of equal states: `len` samples from the `k`-th after `start` (indices wrap).
#[derive(Clone, Copy)]
struct Run {
    start: usize,
    k: usize,
    len: usize,
    value: bool,
}

impl Run {
    /// The sample index of the run's `j`-th sample, in a sequence of `n`.
    fn index(&self, j: usize, n: usize) -> usize {
        (self.start + self.k + j) % n
    }
}

/// The runs of equal state in `states`, in order. A loop's are read from a change, so the
/// run that wraps around its end is one run.
fn runs(states: &[bool], looping: bool) -> Vec<Run> {
    let n = states.len();
    let start = if looping {
        (0..n)
            .find(|&i| states[i] != states[(i + n - 1) % n])
            .unwrap_or(0)
    } else {
        0
    };
    let mut out = Vec::new();
    let mut k = 0;
    while k < n {
        let value = states[(start + k) % n];
        let mut len = 1;
        while k + len < n && states[(start + k + len) % n] == value {
            len += 1;
        }
        out.push(Run {
            start,
            k,
            len,
            value,
        });
        k += len;
    }
    out
}

/// Runs of equal state shorter than `min_run` samples merged into their neighbours: swing
/// gaps first (a stance that flickers stays one stance), then stance blips. A loop's runs
/// wrap around; a state that fills the clip stays.
fn merge_short_runs(mut states: Vec<bool>, min_run: usize, looping: bool) -> Vec<bool> {
    for target in [false, true] {
        let n = states.len();
        if n == 0 || states.iter().all(|&s| s == states[0]) {
            return states;
        }
        let mut flips = Vec::new();
        for run in runs(&states, looping) {
            // A one-shot clip's first and last runs are cut by its ends: kept.
            let at_end = !looping && (run.k == 0 || run.k + run.len == n);
            if run.value == target && run.len < min_run && !at_end {
                flips.extend((0..run.len).map(|j| run.index(j, n)));
            }
        }
        for i in flips {
            states[i] = !target;
        }
    }
    states
}

/// A LINEAR 0/1 curve from per-sample states (sample `i` at `i × dt`), each change a
/// one-sample ramp. A lift ramps over the interval where it happens (0.5 halfway between
/// the last planted sample and the first lifted one); a landing ramps over the half
/// intervals around its first planted sample, so it crosses 0.5 there: at the last sample
/// before it the foot was still coming down (a running foot drops 1–2 cm a tick), and a
/// curve at 0.5 halfway would plant it that much above the floor.
fn curve_from_states(
    name: &str,
    states: &[bool],
    dt: f32,
    duration_s: f32,
    looping: bool,
) -> FloatCurve {
    let value = |s: bool| if s { 1.0 } else { 0.0 };
    let mut times = vec![0.0f32];
    let mut values = vec![value(states[0])];
    let push = |t: f32, v: f32, times: &mut Vec<f32>, values: &mut Vec<f32>| {
        if t > *times.last().unwrap_or(&-1.0) {
            times.push(t);
            values.push(v);
        }
    };
    let n = states.len();
    let last = if looping { n } else { n - 1 };
    // A loop that lands on its first sample: half the ramp is before the end, half after
    // the start, so the curve is 0.5 at both.
    let wraps_landing = looping && states[0] && !states[n - 1];
    if wraps_landing {
        values[0] = 0.5;
        push(0.5 * dt, 1.0, &mut times, &mut values);
    }
    for i in 1..=last {
        let (prev, now) = (states[i - 1], states[i % n]);
        if prev == now {
            continue;
        }
        // The ramp's ends around the change between samples i − 1 and i.
        let (from_s, to_s) = if now {
            ((i as f32 - 0.5) * dt, (i as f32 + 0.5) * dt)
        } else {
            ((i - 1) as f32 * dt, i as f32 * dt)
        };
        push(from_s, value(prev), &mut times, &mut values);
        // A ramp past the end (a loop's change at its end, a one-shot clip landing on its
        // last sample) is cut there, at the value it has there.
        let end_s = to_s.min(duration_s);
        // Not cut when the sample times overrun the duration by rounding only.
        let share = if to_s - end_s <= 1e-3 * dt {
            1.0
        } else {
            (end_s - from_s) / (to_s - from_s)
        };
        push(
            end_s,
            value(prev) + share * (value(now) - value(prev)),
            &mut times,
            &mut values,
        );
    }
    let end_value = match (looping, wraps_landing) {
        (true, true) => 0.5,
        (true, false) => value(states[0]),
        (false, _) => value(states[n - 1]),
    };
    push(duration_s, end_value, &mut times, &mut values);
    let track = Track::new(Interpolation::Linear, times, values)
        .unwrap_or_else(|_| Track::constant(value(states[0])));
    FloatCurve {
        name: name.to_string(),
        track,
    }
}

/// Where a clip's contact curve for one foot comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ContactSource {
    /// The clip carried it.
    Authored,
    /// Derived from the feet (see [`derive_foot_contacts`]).
    Derived,
    /// Neither: derivation was off or failed (see [`ClipContacts::problem`]).
    Missing,
}

/// What [`add_derived_foot_contacts`] did with one clip.
#[derive(Clone, Debug, PartialEq)]
pub struct ClipContacts {
    pub clip: String,
    /// Per foot, left then right.
    pub source: [ContactSource; 2],
    /// Share of the clip each foot is planted (curve ≥ 0.5, 0..=1), authored or derived;
    /// `None` without a curve.
    pub stance_share: [Option<f32>; 2],
    /// Why derivation failed, when it did.
    pub problem: Option<FootContactError>,
}

/// Share of `clip` (sampled at 240 Hz) where `curve` is at least 0.5.
pub fn curve_stance_share(clip: &Clip, curve: &FloatCurve) -> f32 {
    let duration = clip.duration_s();
    if !(duration.is_finite() && duration > 0.0) {
        return if curve.track.sample(0.0) >= 0.5 {
            1.0
        } else {
            0.0
        };
    }
    let n = ((duration * 240.0).ceil() as usize).clamp(16, 1 << 16);
    let planted = (0..n)
        .filter(|&k| curve.track.sample((k as f32 + 0.5) * duration / n as f32) >= 0.5)
        .count();
    planted as f32 / n as f32
}

/// A 0.5 crossing of a contact curve.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Crossing {
    /// Clip time (s) of the crossing, to within 1/16 of a 240 Hz sample.
    pub time_s: f32,
    /// True where the curve rises (touch-down), false where it falls (lift-off).
    pub rising: bool,
}

/// Every 0.5 crossing of `curve` over one pass of `clip`, in time order; a looping clip's
/// crossing across its end counts at time 0.
pub fn curve_crossings(clip: &Clip, curve: &FloatCurve) -> Vec<Crossing> {
    let duration = clip.duration_s();
    if !(duration.is_finite() && duration > 0.0) {
        return Vec::new();
    }
    let above = |t: f32| curve.track.sample(t) >= 0.5;
    let n = ((duration * 240.0).ceil() as usize).clamp(64, 1 << 16);
    let step = duration / n as f32;
    let mut out = Vec::new();
    let mut was = if clip.is_looping() {
        above(duration - 0.5 * step)
    } else {
        above(0.0)
    };
    for k in 0..n {
        let t = k as f32 * step;
        let now = above(t);
        if now != was {
            let (mut lo, mut hi) = ((t - step).max(0.0), t);
            if k > 0 {
                for _ in 0..4 {
                    let mid = 0.5 * (lo + hi);
                    if above(mid) == now {
                        hi = mid;
                    } else {
                        lo = mid;
                    }
                }
            }
            out.push(Crossing {
                time_s: hi,
                rising: now,
            });
        }
        was = now;
    }
    out
}

/// `clips` with a derived `FootContact_L`/`_R` added to each that lacks it (authored curves
/// win, per foot), and what was done with each clip. A clip whose contacts cannot be derived
/// (no legs, one key, non-finite motion) is kept as it was and its reason listed. Each
/// looping gait without a sync marker also gets one from its feet
/// ([`DerivedFootContacts::left_foot_down_phase`]), its contacts authored or not.
pub fn add_derived_foot_contacts(
    skeleton: &Skeleton,
    bones: &HumanoidMap,
    clips: Vec<Clip>,
    config: &FootContactConfig,
) -> (Vec<Clip>, Vec<ClipContacts>) {
    let mut reports = Vec::with_capacity(clips.len());
    let clips = clips
        .into_iter()
        .map(|clip| {
            let authored = FOOT_CONTACT_CURVES.map(|name| clip.curve(name).is_some());
            let mut report = ClipContacts {
                clip: clip.name().to_string(),
                source: authored.map(|a| {
                    if a {
                        ContactSource::Authored
                    } else {
                        ContactSource::Missing
                    }
                }),
                stance_share: FOOT_CONTACT_CURVES
                    .map(|name| clip.curve(name).map(|c| curve_stance_share(&clip, c))),
                problem: None,
            };
            let all_authored = authored.iter().all(|&a| a);
            let needs_marker = clip.is_looping() && clip.left_foot_down_phase().is_none();
            if all_authored && !needs_marker {
                reports.push(report);
                return clip;
            }
            let mut clip = clip;
            match derive_foot_contacts(skeleton, bones, &clip, config) {
                Ok(derived) => {
                    if let Some(phase) = derived.left_foot_down_phase.filter(|_| needs_marker) {
                        // In 0..1 by construction.
                        if let Ok(with) = clip.clone().with_left_foot_down_phase(phase) {
                            clip = with;
                        }
                    }
                    for (f, curve) in derived.curves.into_iter().enumerate() {
                        if authored[f] {
                            continue;
                        }
                        match clip.clone().with_curve(curve) {
                            Ok(with) => {
                                clip = with;
                                report.source[f] = ContactSource::Derived;
                                report.stance_share[f] = Some(derived.stance_share[f]);
                            }
                            Err(e) => report.problem = Some(e.into()),
                        }
                    }
                }
                // Authored contacts stand without a marker: nothing to report.
                Err(e) if !all_authored => report.problem = Some(e),
                Err(_) => {}
            }
            reports.push(report);
            clip
        })
        .collect();
    (clips, reports)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clip::JointTracks;
    use crate::skeleton::{Joint, Transform};

    /// The clip's motion with no curves (and, per flag, no authored velocity).
    fn stripped(clip: &Clip, keep_velocity: bool) -> Clip {
        let bare = Clip::new(
            clip.name(),
            Some(clip.duration_s()),
            clip.joint_tracks().to_vec(),
        )
        .unwrap()
        .with_looping(clip.is_looping());
        match clip.authored_velocity_model_m_s() {
            Some(v) if keep_velocity => bare.with_authored_velocity(v).unwrap(),
            _ => bare,
        }
    }

    /// Largest offset (s) between matching crossings of `derived` and `authored` (same
    /// direction, nearest in time around the loop), or `None` when their counts or
    /// directions differ.
    fn worst_offset_s(clip: &Clip, authored: &[Crossing], derived: &[Crossing]) -> Option<f32> {
        if authored.len() != derived.len() {
            return None;
        }
        let d = clip.duration_s();
        let mut worst = 0.0f32;
        for c in derived {
            let nearest = authored
                .iter()
                .filter(|a| a.rising == c.rising)
                .map(|a| {
                    let gap = (a.time_s - c.time_s).rem_euclid(d);
                    gap.min(d - gap)
                })
                .fold(f32::INFINITY, f32::min);
            worst = worst.max(nearest);
        }
        worst.is_finite().then_some(worst)
    }

    #[cfg(feature = "mannequin")]
    fn mannequin_check(
        make: impl Fn(&Clip) -> Clip,
        skeleton: &Skeleton,
        bones: &HumanoidMap,
        label: &str,
    ) {
        let m = crate::mannequin::Mannequin::new();
        let mut checked = 0;
        let mut overall = 0.0f32;
        for clip in m.gait_clips() {
            let derived =
                derive_foot_contacts(skeleton, bones, &make(clip), &FootContactConfig::default())
                    .unwrap();
            let mut worst_ticks = 0.0f32;
            for (f, name) in FOOT_CONTACT_CURVES.into_iter().enumerate() {
                let authored = clip.curve(name).unwrap();
                let a = curve_crossings(clip, authored);
                let b = curve_crossings(clip, &derived.curves[f]);
                assert!(!a.is_empty(), "{}: the authored curve changes", clip.name());
                let offset = worst_offset_s(clip, &a, &b).unwrap_or_else(|| {
                    panic!(
                        "{label} {} foot {f}: authored crossings {a:?}, derived {b:?}",
                        clip.name()
                    )
                });
                worst_ticks = worst_ticks.max(offset * 60.0);
            }
            eprintln!(
                "{label} {:<16} worst crossing offset {:.2} ticks, stance share L {:.2} R {:.2}, ground velocity {:?}",
                clip.name(),
                worst_ticks,
                derived.stance_share[0],
                derived.stance_share[1],
                derived.ground_velocity_model_m_s,
            );
            assert!(
                worst_ticks <= 2.0,
                "{label} {}: {worst_ticks} ticks",
                clip.name()
            );
            overall = overall.max(worst_ticks);
            checked += 1;
        }
        assert!(checked >= 20, "{checked} gait clips");
        eprintln!("{label}: worst over {checked} gait clips {overall:.2} ticks");
    }

    #[cfg(feature = "mannequin")]
    #[test]
    fn derived_contacts_match_the_mannequins_authored_ones_within_two_ticks() {
        let m = crate::mannequin::Mannequin::new();
        // As played: in place at the authored velocity.
        mannequin_check(
            |c| stripped(c, true),
            &m.skeleton,
            &m.bones,
            "authored velocity",
        );
        // With no velocity, it is estimated from the feet.
        mannequin_check(
            |c| stripped(c, false),
            &m.skeleton,
            &m.bones,
            "estimated velocity",
        );
        // With the travel as root motion on the root joint instead.
        mannequin_check(
            |c| {
                let v = c.authored_velocity_model_m_s().unwrap();
                let d = c.duration_s();
                let mut joints = c.joint_tracks().to_vec();
                let rest = m.skeleton.rest_local()[0].translation;
                assert!(joints[0].translation.is_none(), "the root is still");
                joints[0].translation =
                    Some(Track::linear([(0.0, rest), (d, rest + v * d)]).unwrap());
                Clip::new(c.name(), Some(d), joints).unwrap()
            },
            &m.skeleton,
            &m.bones,
            "root motion",
        );
    }

    #[cfg(feature = "mannequin")]
    #[test]
    fn twice_the_size_gives_the_same_contacts() {
        let m = crate::mannequin::Mannequin::new();
        let joints: Vec<Joint> = (0..m.skeleton.num_joints())
            .map(|j| {
                let mut rest_local = m.skeleton.rest_local()[j];
                if j == 0 {
                    rest_local.scale *= 2.0;
                }
                Joint {
                    name: m.skeleton.name(j).to_string(),
                    parent: m.skeleton.parent(j),
                    rest_local,
                }
            })
            .collect();
        let big = Skeleton::new(joints).unwrap();
        let big_bones = HumanoidMap::detect(&big);
        for name in ["Walk_F", "Run_F", "Sprint", "Idle"] {
            let clip = m.clip(name).unwrap();
            let small = derive_foot_contacts(
                &m.skeleton,
                &m.bones,
                &stripped(clip, false),
                &FootContactConfig::default(),
            )
            .unwrap();
            let large = derive_foot_contacts(
                &big,
                &big_bones,
                &stripped(clip, false),
                &FootContactConfig::default(),
            )
            .unwrap();
            assert!(
                (large.leg_length_m / small.leg_length_m - 2.0).abs() < 1e-3,
                "{name}"
            );
            assert_eq!(large.stance_share, small.stance_share, "{name}");
            assert_eq!(large.curves, small.curves, "{name}");
        }
    }

    /// The sync marker found from the feet is where the mannequin's left foot comes down
    /// on the floor (its lower sole point within 1 mm, found by stepping back from where
    /// the authored contact rises, every 0.1 ms: a crouch walk's heel lands 3 ticks before
    /// its foot is flat and planted) within a tick, on every gait clip; an idle and the
    /// jump apex have none.
    #[cfg(feature = "mannequin")]
    #[test]
    fn the_left_foot_down_marker_is_where_the_mannequins_left_foot_lands() {
        use crate::pose::{local_to_model, ModelPose, Pose};
        let m = crate::mannequin::Mannequin::new();
        let config = FootContactConfig::default();
        let leg = m.bones.leg(Side::Left).unwrap();
        let sockets = m.bones.feet[0].unwrap();
        let mut pose = Pose::rest(&m.skeleton);
        let mut model = ModelPose::new(m.skeleton.num_joints());
        let mut lower_sole_m = |clip: &Clip, t: f32| {
            let t = t.rem_euclid(clip.duration_s());
            clip.sample(t, m.skeleton.rest_local(), &mut pose).unwrap();
            local_to_model(&m.skeleton, &pose, &mut model).unwrap();
            let heel = model.point_model(leg.foot, sockets.heel_foot_local);
            let ball = model.point_model(leg.foot, sockets.ball_foot_local);
            heel.y.min(ball.y)
        };
        for clip in m.gait_clips() {
            let d = clip.duration_s();
            let contact = &curve_crossings(clip, clip.curve("FootContact_L").unwrap());
            let rise_s = contact.iter().find(|c| c.rising).unwrap().time_s;
            let mut touch_s = rise_s;
            while lower_sole_m(clip, touch_s - 1e-4) <= 1e-3 {
                touch_s -= 1e-4;
            }
            let bare = stripped(clip, false);
            let d_contacts = derive_foot_contacts(&m.skeleton, &m.bones, &bare, &config).unwrap();
            let phase = d_contacts
                .left_foot_down_phase
                .unwrap_or_else(|| panic!("{}", clip.name()));
            let off_s = ((phase * d - touch_s) / d + 0.5).rem_euclid(1.0) - 0.5;
            let ticks = off_s * d * 60.0;
            assert!(ticks.abs() <= 1.0, "{}: {ticks} ticks", clip.name());
        }
        for name in ["Idle", "Jump_Apex"] {
            let bare = stripped(m.clip(name).unwrap(), false);
            let d = derive_foot_contacts(&m.skeleton, &m.bones, &bare, &config).unwrap();
            assert_eq!(d.left_foot_down_phase, None, "{name}");
        }
    }

    #[cfg(feature = "mannequin")]
    #[test]
    fn idle_stands_and_the_jump_apex_never_touches() {
        let m = crate::mannequin::Mannequin::new();
        let derive = |name: &str| {
            let clip = stripped(m.clip(name).unwrap(), false);
            derive_foot_contacts(&m.skeleton, &m.bones, &clip, &FootContactConfig::default())
                .unwrap()
        };
        for name in ["Idle", "Crouch_Idle"] {
            let d = derive(name);
            assert_eq!(d.stance_share, [1.0, 1.0], "{name}");
            assert!(!d.airborne);
            for c in &d.curves {
                assert!(c.track.values().iter().all(|&v| v == 1.0), "{name}: {c:?}");
            }
        }
        let apex = derive("Jump_Apex");
        assert!(apex.airborne);
        assert_eq!(apex.stance_share, [0.0, 0.0]);
        for c in &apex.curves {
            assert!(c.track.values().iter().all(|&v| v == 0.0), "{c:?}");
        }
    }

    #[cfg(feature = "mannequin")]
    #[test]
    fn authored_curves_win_per_foot() {
        let m = crate::mannequin::Mannequin::new();
        let walk = m.clip("Walk_F").unwrap();
        let left = walk.curve("FootContact_L").unwrap().clone();
        let half = stripped(walk, true).with_curve(left.clone()).unwrap();
        let (clips, reports) = add_derived_foot_contacts(
            &m.skeleton,
            &m.bones,
            vec![half, walk.clone()],
            &FootContactConfig::default(),
        );
        assert_eq!(clips[0].curve("FootContact_L"), Some(&left));
        assert!(clips[0].curve("FootContact_R").is_some());
        assert_eq!(
            reports[0].source,
            [ContactSource::Authored, ContactSource::Derived]
        );
        // A clip with both curves keeps them; as a gait without a sync marker, it gains one.
        assert!(walk.left_foot_down_phase().is_none());
        assert!(clips[1].left_foot_down_phase().is_some());
        assert_eq!(clips[1].curves(), walk.curves(), "authored curves are kept");
        assert_eq!(reports[1].source, [ContactSource::Authored; 2]);
        for r in &reports {
            assert!(r.problem.is_none());
            for share in r.stance_share {
                let share = share.unwrap();
                assert!((0.5..0.75).contains(&share), "{r:?}");
            }
        }
    }

    /// A minimal two-legged rig: root → pelvis → thigh → calf → foot → ball per side.
    fn legs_rig() -> (Skeleton, HumanoidMap) {
        let spec: [(&str, Option<usize>, Vec3); 10] = [
            ("root", None, Vec3::ZERO),
            ("pelvis", Some(0), Vec3::new(0.0, 0.92, 0.0)),
            ("thigh_l", Some(1), Vec3::new(0.1, 0.0, 0.0)),
            ("calf_l", Some(2), Vec3::new(0.0, -0.42, 0.0)),
            ("foot_l", Some(3), Vec3::new(0.0, -0.42, 0.0)),
            ("ball_l", Some(4), Vec3::new(0.0, -0.08, 0.12)),
            ("thigh_r", Some(1), Vec3::new(-0.1, 0.0, 0.0)),
            ("calf_r", Some(6), Vec3::new(0.0, -0.42, 0.0)),
            ("foot_r", Some(7), Vec3::new(0.0, -0.42, 0.0)),
            ("ball_r", Some(8), Vec3::new(0.0, -0.08, 0.12)),
        ];
        let skeleton = Skeleton::new(
            spec.iter()
                .map(|(name, parent, offset)| Joint {
                    name: (*name).into(),
                    parent: *parent,
                    rest_local: Transform::from_translation(*offset),
                })
                .collect(),
        )
        .unwrap();
        let bones = HumanoidMap::detect(&skeleton);
        assert!(bones.leg(Side::Left).is_ok() && bones.feet[0].is_some());
        (skeleton, bones)
    }

    #[test]
    fn bad_clips_give_a_reason_not_a_curve() {
        let (skeleton, bones) = legs_rig();
        let config = FootContactConfig::default();
        // No keys at all, and one key: zero duration.
        let empty = Clip::new("empty", None, vec![JointTracks::default(); 10]).unwrap();
        let mut one = vec![JointTracks::default(); 10];
        one[1].translation = Some(Track::linear([(0.0, Vec3::new(0.0, 0.92, 0.0))]).unwrap());
        let one = Clip::new("one_key", None, one).unwrap();
        for clip in [&empty, &one] {
            let err = derive_foot_contacts(&skeleton, &bones, clip, &config).unwrap_err();
            assert!(
                matches!(err, FootContactError::ZeroDuration(_)),
                "{}: {err}",
                clip.name()
            );
        }
        // Motion that overflows to infinity in model space.
        let mut huge = vec![JointTracks::default(); 10];
        for j in [3, 4] {
            huge[j].translation =
                Some(Track::linear([(0.0, Vec3::splat(3e38)), (1.0, Vec3::splat(3e38))]).unwrap());
        }
        let huge = Clip::new("huge", None, huge).unwrap();
        let err = derive_foot_contacts(&skeleton, &bones, &huge, &config).unwrap_err();
        assert!(matches!(err, FootContactError::NonFinite { .. }), "{err}");
        // Too few joint tracks for the skeleton.
        let short = Clip::new("short", Some(1.0), vec![JointTracks::default(); 3]).unwrap();
        assert!(derive_foot_contacts(&skeleton, &bones, &short, &config).is_err());
        // Bad settings.
        let bad = FootContactConfig {
            exit_speed_leg_s: 0.1,
            ..config
        };
        let still = Clip::new("still", Some(1.0), vec![JointTracks::default(); 10]).unwrap();
        assert_eq!(
            derive_foot_contacts(&skeleton, &bones, &still, &bad),
            Err(FootContactError::BadConfig)
        );
        let nan = FootContactConfig {
            sample_rate_hz: f32::NAN,
            ..config
        };
        assert_eq!(
            derive_foot_contacts(&skeleton, &bones, &still, &nan),
            Err(FootContactError::BadConfig)
        );
        // No legs: the bone map's own reason.
        let lone = Skeleton::new(vec![Joint {
            name: "root".into(),
            parent: None,
            rest_local: Transform::IDENTITY,
        }])
        .unwrap();
        let lone_bones = HumanoidMap::detect(&lone);
        let clip = Clip::new("c", Some(1.0), vec![JointTracks::default()]).unwrap();
        let err = derive_foot_contacts(&lone, &lone_bones, &clip, &config).unwrap_err();
        assert!(matches!(err, FootContactError::BoneMap(_)), "{err}");
        // Through the clip list: the bad clips are kept as they were, with their reason.
        let (clips, reports) =
            add_derived_foot_contacts(&skeleton, &bones, vec![empty.clone(), huge], &config);
        assert_eq!(clips[0], empty);
        assert!(clips.iter().all(|c| c.curves().is_empty()));
        for r in &reports {
            assert_eq!(r.source, [ContactSource::Missing; 2]);
            assert_eq!(r.stance_share, [None, None]);
            assert!(r.problem.is_some());
        }
        // A still clip of the rest pose stands on both feet.
        let d = derive_foot_contacts(&skeleton, &bones, &still, &config).unwrap();
        assert_eq!(d.stance_share, [1.0, 1.0]);
    }

    /// An in-place gait on [`legs_rig`]: each foot planted for 0.35 of the cycle, sliding
    /// back under the body at the gait's speed, then swung forward fastest mid-swing, where
    /// the toe scuffs 6 cm under the floor (a clip's foot pitched toes-down, as Quaternius'
    /// dash has it). The right foot runs half a cycle behind the left.
    fn scuffing_run() -> Clip {
        const CYCLE_S: f32 = 0.6;
        const STANCE: f32 = 0.35;
        // (swing progress, height, forward) of the foot's offset from its rest place.
        const SWING: [(f32, f32, f32); 7] = [
            (0.0, 0.0, -0.3),
            (0.2, 0.15, -0.28),
            (0.4, 0.08, -0.2),
            (0.5, -0.06, 0.0),
            (0.6, 0.08, 0.2),
            (0.8, 0.1, 0.28),
            (1.0, 0.0, 0.3),
        ];
        let offset = |phase: f32| -> Vec3 {
            if phase < STANCE {
                return Vec3::new(0.0, 0.0, 0.3 - 0.6 * phase / STANCE);
            }
            let u = (phase - STANCE) / (1.0 - STANCE);
            let k = SWING.iter().rposition(|key| key.0 <= u).unwrap_or(0).min(5);
            let ((u0, y0, z0), (u1, y1, z1)) = (SWING[k], SWING[k + 1]);
            let t = (u - u0) / (u1 - u0);
            Vec3::new(0.0, y0 + (y1 - y0) * t, z0 + (z1 - z0) * t)
        };
        let mut tracks = vec![JointTracks::default(); 10];
        for (joint, shift) in [(4, 0.0), (8, 0.5)] {
            let keys = (0..=120).map(|k| {
                let t = k as f32 / 120.0;
                let at = offset((t + shift).rem_euclid(1.0));
                (t * CYCLE_S, Vec3::new(0.0, -0.42, 0.0) + at)
            });
            tracks[joint].translation = Some(Track::linear(keys).unwrap());
        }
        Clip::new("scuffing_run", Some(CYCLE_S), tracks)
            .unwrap()
            .with_looping(true)
    }

    #[test]
    fn a_toe_scuffing_the_floor_mid_swing_is_a_swing_and_the_stance_is_planted() {
        let (skeleton, bones) = legs_rig();
        let clip = scuffing_run();
        let config = FootContactConfig::default();
        let derived = derive_foot_contacts(&skeleton, &bones, &clip, &config).unwrap();
        for (f, curve) in derived.curves.iter().enumerate() {
            // Planted over the stance (the first 0.35 of its cycle, the right's half a
            // cycle later), in swing over the scuff (mid-swing, about 0.68 of the cycle on).
            // A floor taken from the scuff's depth left the stance 2 cm above it, never
            // planted, and planted the scuff instead.
            let shift = 0.5 * f as f32;
            let at = |phase: f32| curve.track.sample((phase + shift).rem_euclid(1.0) * 0.6);
            for phase in [0.05, 0.17, 0.3] {
                assert_eq!(at(phase), 1.0, "foot {f} at {phase} of its cycle: planted");
            }
            for phase in [0.64, 0.675, 0.71] {
                assert_eq!(at(phase), 0.0, "foot {f} at {phase}: its scuff is a swing");
            }
            let share = derived.stance_share[f];
            assert!(
                (0.3..=0.45).contains(&share),
                "foot {f}: stance share {share}"
            );
        }
    }

    #[test]
    fn flicker_is_merged_and_loops_wrap() {
        let s = |bits: &str| bits.chars().map(|c| c == '1').collect::<Vec<bool>>();
        // A one-sample swing gap inside a stance is filled, a one-sample blip removed.
        assert_eq!(
            merge_short_runs(s("0000111101111000000100000"), 3, true),
            s("0000111111111000000000000")
        );
        // A loop's stance across the end is one run, kept.
        assert_eq!(
            merge_short_runs(s("1100000000011"), 3, true),
            s("1100000000011")
        );
        // A one-shot clip keeps runs cut by its ends.
        assert_eq!(merge_short_runs(s("1000000001"), 3, false), s("1000000001"));
        // A swing that never leaves the floor is a slide, filled; one that lifts is kept.
        let floor = s("1111111111111");
        let mut lifted = floor.clone();
        lifted[11] = false;
        assert_eq!(
            fill_slides(s("1100001111000"), &floor, 4, true),
            s("1111111111111")
        );
        assert_eq!(
            fill_slides(s("1100001111000"), &lifted, 4, true),
            s("1111111111000")
        );
        // Longer than the limit: a low swing, kept.
        assert_eq!(
            fill_slides(s("1100001111000"), &floor, 3, true),
            s("1100001111111")
        );
        // The curve crosses 0.5 at the first planted sample and halfway between the last
        // planted sample and the first lifted one; a loop's end matches its start.
        let curve = curve_from_states("c", &s("0011110000"), 0.1, 1.0, true);
        assert_eq!(curve.track.times_s(), &[0.0, 0.15, 0.25, 0.5, 0.6, 1.0]);
        let clip = Clip::new("c", Some(1.0), vec![]).unwrap();
        let crossings = curve_crossings(&clip, &curve);
        assert_eq!(crossings.len(), 2);
        assert!((crossings[0].time_s - 0.2).abs() < 0.01 && crossings[0].rising);
        assert!((crossings[1].time_s - 0.55).abs() < 0.01 && !crossings[1].rising);
        let wrap = curve_from_states("c", &s("1100000001"), 0.1, 1.0, true);
        assert_eq!(wrap.track.sample(0.0), wrap.track.sample(1.0));
        assert!((curve_stance_share(&clip, &wrap) - 0.25).abs() < 0.02);
        // Landing on the loop's first sample: 0.5 at both ends, planted just after.
        let at = |curve: &FloatCurve, t: f32, want: f32| {
            let got = curve.track.sample(t);
            assert!((got - want).abs() < 1e-4, "at {t} s: {got}, want {want}");
        };
        let lands_at_start = curve_from_states("c", &s("1100000000"), 0.1, 1.0, true);
        at(&lands_at_start, 0.0, 0.5);
        at(&lands_at_start, 1.0, 0.5);
        at(&lands_at_start, 0.05, 1.0);
        at(&lands_at_start, 0.94, 0.0);
        // A one-shot clip that lands on its last sample ends at 0.5.
        let late = curve_from_states("c", &s("00000000001"), 0.1, 1.0, false);
        at(&late, 1.0, 0.5);
        at(&late, 0.9, 0.0);
    }
}
