//! `RapierWorld` on the default test course: queries against the analytic ground truth and
//! capsules walked through the sections at 60 Hz like a character would (gravity in the
//! desired translation, vertical speed reset when grounded).

use plantigrade::glam::Vec3;
use plantigrade::world::{
    BodyId, Capsule, CharacterMover, Layers, MoveLimits, MoveRequest, MoveResult, QueryFilter,
    QueryMover, SpatialQueries,
};
use plantigrade_course::{Course, Role};
use plantigrade_rapier::RapierWorld;

const DT_S: f32 = 1.0 / 60.0;
const GRAVITY_M_S2: f32 = 9.8 * 2.5;
const WALK_M_S: f32 = 1.75;
const STAND: Capsule = Capsule {
    radius_m: 0.3,
    half_height_m: 0.6,
};

fn setup() -> (Course, RapierWorld) {
    let course = Course::default_course();
    let world = RapierWorld::from_course(&course).unwrap();
    (course, world)
}

fn everything() -> QueryFilter {
    QueryFilter {
        layers: Layers::GROUND.union(Layers::CHARACTERS),
        exclude: None,
    }
}

/// One tick of a walk.
#[derive(Clone, Copy, Debug)]
struct Tick {
    feet: Vec3,
    result: MoveResult,
}

/// Walks a capsule from `start` along `direction` at `speed` for `seconds`, character
/// style: gravity accumulates while airborne, the vertical speed resets when grounded.
/// When `me` is given, the character's own capsule follows and is excluded.
fn walk(
    world: &mut RapierWorld,
    me: Option<BodyId>,
    capsule: Capsule,
    start: Vec3,
    direction: Vec3,
    speed: f32,
    seconds: f32,
) -> Vec<Tick> {
    walk_at(world, me, capsule, start, direction, speed, seconds, DT_S)
}

/// Where the up flight of the stairs sections ends (z, m): 8 treads of 0.28 m from z = 3.
const FLIGHT_END_Z: f32 = 3.0 + 8.0 * 0.28;

/// The standing capsule walking up `section`'s flight at `speed` from `start_cm` along it.
fn walk_up_flight(
    world: &mut RapierWorld,
    section: &plantigrade_course::Section,
    start_cm: u32,
    speed: f32,
    seconds: f32,
    dt_s: f32,
) -> Vec<Tick> {
    let start = section.spawn_world + section.direction_world * (0.01 * start_cm as f32);
    walk_at(
        world,
        None,
        STAND,
        start,
        section.direction_world,
        speed,
        seconds,
        dt_s,
    )
}

/// [`walk`] with ticks of `dt_s`.
#[allow(clippy::too_many_arguments)]
fn walk_at(
    world: &mut RapierWorld,
    me: Option<BodyId>,
    capsule: Capsule,
    start: Vec3,
    direction: Vec3,
    speed: f32,
    seconds: f32,
    dt_s: f32,
) -> Vec<Tick> {
    let filter = QueryFilter {
        exclude: me,
        ..everything()
    };
    let mut feet = start;
    let mut vertical_speed = 0.0f32;
    let mut grounded = false;
    let mut ticks = Vec::new();
    for _ in 0..(seconds / dt_s).round() as usize {
        if grounded {
            vertical_speed = 0.0;
        }
        vertical_speed -= GRAVITY_M_S2 * dt_s;
        let velocity = direction * speed + Vec3::Y * vertical_speed;
        let result = world.move_capsule(&MoveRequest {
            capsule,
            limits: MoveLimits::default(),
            feet,
            desired_translation: velocity * dt_s,
            dt_s,
            filter,
        });
        assert!(result.translation.is_finite());
        feet += result.translation;
        grounded = result.grounded;
        if let Some(me) = me {
            world.set_character_position(me, feet).unwrap();
        }
        ticks.push(Tick { feet, result });
    }
    ticks
}

fn walk_section(course: &Course, world: &mut RapierWorld, name: &str, seconds: f32) -> Vec<Tick> {
    let section = course.section(name).unwrap();
    walk(
        world,
        None,
        STAND,
        section.spawn_world,
        section.direction_world,
        WALK_M_S,
        seconds,
    )
}

fn max_y(ticks: &[Tick]) -> f32 {
    ticks.iter().map(|t| t.feet.y).fold(f32::MIN, f32::max)
}

#[test]
fn rays_hit_flat_ground_at_zero_with_up_normal() {
    let (course, world) = setup();
    let spawn = course.section("flat").unwrap().spawn_world;
    for dz in [0.0, 2.0, 5.0] {
        let origin = spawn + Vec3::new(0.7, 0.3, dz);
        let hit = world
            .cast_ray(origin, -Vec3::Y, 1.2, QueryFilter::GROUND)
            .unwrap();
        assert!(hit.point.y.abs() < 1e-5, "{hit:?}");
        assert!((hit.normal - Vec3::Y).length() < 1e-5, "{hit:?}");
        assert!((hit.distance_m - 0.3).abs() < 1e-5, "{hit:?}");
    }
    // Too short a ray misses; between sections there is nothing at all.
    assert!(world
        .cast_ray(spawn + Vec3::Y, -Vec3::Y, 0.5, QueryFilter::GROUND)
        .is_none());
    let between = spawn + Vec3::new(3.0, 0.3, 2.0);
    assert!(world
        .cast_ray(between, -Vec3::Y, 100.0, QueryFilter::GROUND)
        .is_none());
}

/// The colliders are the course's geometry: downward rays land on the analytic ground
/// (height and normal) all over the sections without obstacles overhead.
#[test]
fn physics_surface_matches_the_analytic_ground_truth() {
    let (course, world) = setup();
    let mut checked = 0;
    for section in &course.sections {
        if section.primitives.iter().any(|p| p.role == Role::Obstacle) {
            continue;
        }
        let spawn = section.spawn_world;
        for i in 0..=14 {
            for j in 0..=60 {
                let x = spawn.x - 1.75 + 0.25 * i as f32;
                let z = 0.05 + 0.2 * j as f32 + 0.013;
                let Some(truth) = course.ground(x, z) else {
                    continue;
                };
                let hit = world
                    .cast_ray(Vec3::new(x, 10.0, z), -Vec3::Y, 20.0, QueryFilter::GROUND)
                    .unwrap_or_else(|| panic!("{}: no collider at ({x}, {z})", section.name));
                assert!(
                    (hit.point.y - truth.height_m).abs() < 2e-4,
                    "{} at ({x}, {z}): physics {} vs truth {}",
                    section.name,
                    hit.point.y,
                    truth.height_m
                );
                // Normals agree away from creases and edges (where either side is fine).
                let near_edge = [(0.02, 0.0), (-0.02, 0.0), (0.0, 0.02), (0.0, -0.02)]
                    .iter()
                    .any(|(dx, dz)| {
                        course
                            .ground(x + dx, z + dz)
                            .is_none_or(|g| (g.height_m - truth.height_m).abs() > 0.01)
                    });
                if !near_edge {
                    assert!(
                        (hit.normal - truth.normal_world).length() < 1e-3,
                        "{} at ({x}, {z}): physics normal {} vs truth {}",
                        section.name,
                        hit.normal,
                        truth.normal_world
                    );
                }
                checked += 1;
            }
        }
    }
    assert!(checked > 5000, "{checked}");
}

#[test]
fn rays_respect_layers_and_exclusion() {
    let (course, mut world) = setup();
    let feet = course.section("flat").unwrap().spawn_world + Vec3::Z * 2.0;
    let me = world.add_character_capsule(STAND, feet).unwrap();
    let origin = feet + Vec3::Y * 3.0;
    let down = |filter| world.cast_ray(origin, -Vec3::Y, 5.0, filter);
    // Not excluded: the capsule's top (1.8 m) is hit.
    let hit = down(everything()).unwrap();
    assert!((hit.point.y - 1.8).abs() < 1e-4, "{hit:?}");
    // Excluded, or not on the query's layers: the ray goes through to the ground.
    let hit = down(everything().excluding(me)).unwrap();
    assert!(hit.point.y.abs() < 1e-5, "{hit:?}");
    let hit = down(QueryFilter::GROUND).unwrap();
    assert!(hit.point.y.abs() < 1e-5, "{hit:?}");
    // Characters only: the capsule, or nothing once excluded.
    let characters = QueryFilter {
        layers: Layers::CHARACTERS,
        exclude: None,
    };
    assert!(down(characters).is_some());
    assert!(down(characters.excluding(me)).is_none());
    assert!(down(QueryFilter {
        layers: Layers::PROPS,
        exclude: None
    })
    .is_none());
    // Capsule casts see the same filter.
    let center = feet + Vec3::new(0.0, 0.9, -2.0);
    let ahead = world.cast_capsule(STAND, center, Vec3::Z, 3.0, everything());
    assert!((ahead.unwrap().distance_m - 1.4).abs() < 1e-3, "{ahead:?}");
    assert!(world
        .cast_capsule(STAND, center, Vec3::Z, 3.0, everything().excluding(me))
        .is_none());
}

#[test]
fn grounded_on_flat_ground_and_not_in_mid_air() {
    let (course, mut world) = setup();
    let ticks = walk_section(&course, &mut world, "flat", 3.0);
    for t in &ticks {
        assert!(t.result.grounded, "{t:?}");
        assert_eq!(t.result.floor_normal, Some(Vec3::Y));
        assert!(!t.result.hit_wall && !t.result.sliding_down_slope, "{t:?}");
        assert!(t.feet.y.abs() < 0.02, "{t:?}");
    }
    let last = ticks.last().unwrap();
    assert!(
        (last.feet.z - (1.0 + 3.0 * WALK_M_S)).abs() < 0.02,
        "{last:?}"
    );

    // Dropped from 1 m: airborne first, then lands and is grounded.
    let start = course.section("flat").unwrap().spawn_world + Vec3::Y;
    let ticks = walk(&mut world, None, STAND, start, Vec3::Z, 0.0, 1.0);
    assert!(!ticks[0].result.grounded && ticks[0].result.floor_normal.is_none());
    let last = ticks.last().unwrap();
    assert!(last.result.grounded && last.feet.y.abs() < 0.02, "{last:?}");
}

#[test]
fn a_wall_stops_the_capsule_before_it() {
    let (course, mut world) = setup();
    let ticks = walk_section(&course, &mut world, "wall", 4.0);
    // The wall's face is at z = 5: the capsule's front never passes it.
    let front = |t: &Tick| t.feet.z + STAND.radius_m;
    for t in &ticks {
        assert!(front(t) <= 5.0, "penetrated the wall: {t:?}");
    }
    let last = ticks.last().unwrap();
    assert!(front(last) > 4.95, "stopped short: {last:?}");
    assert!(last.result.hit_wall && last.result.grounded, "{last:?}");
    assert!(last.result.translation.z.abs() < 1e-3, "{last:?}");
    // Its own capsule, placed where it stopped, does not overlap anything.
    let center = STAND.center_from_feet(last.feet);
    assert!(world
        .cast_capsule(STAND, center, Vec3::Z, 1e-4, QueryFilter::GROUND)
        .is_none());
}

#[test]
fn climbs_both_flights_of_stairs_and_comes_down() {
    let (course, mut world) = setup();
    for (name, top) in [("stairs_15cm", 1.2f32), ("stairs_20cm", 1.6)] {
        let section = course.section(name).unwrap();
        let seconds = section.length_m / WALK_M_S + 0.5;
        let ticks = walk_section(&course, &mut world, name, seconds);
        assert!(
            (max_y(&ticks) - top).abs() < 0.03,
            "{name}: top {}",
            max_y(&ticks)
        );
        let last = ticks.last().unwrap();
        assert!(
            last.feet.z > section.end_world().z - 0.5,
            "{name} stuck at {last:?}"
        );
        assert!(
            last.feet.y.abs() < 0.03 && last.result.grounded,
            "{name}: {last:?}"
        );
        // Riser climbs by autostep are not wall hits; treads are walkable floor.
        let walls: Vec<&Tick> = ticks.iter().filter(|t| t.result.hit_wall).collect();
        assert!(walls.is_empty(), "{name}: {walls:#?}");
        // On the landing: grounded, flat.
        let landing = ticks
            .iter()
            .find(|t| t.feet.z > FLIGHT_END_Z + 1.0)
            .unwrap();
        assert!(landing.result.grounded && (landing.feet.y - top).abs() < 0.03);
        // Grounded all the way: autostep up, snap to ground down.
        assert!(ticks.iter().all(|t| t.result.grounded), "{name}");
        // A riser is climbed without losing the horizontal move (the rest of a tick's
        // move is made once the capsule is lifted): both flights take the flat time.
        let time_over = |z0: f32, z1: f32| {
            let first = ticks.iter().position(|t| t.feet.z > z0).unwrap();
            let last = ticks.iter().position(|t| t.feet.z > z1).unwrap();
            (last - first) as f32 * DT_S
        };
        let flight = 8.0 * 0.28;
        let nominal = flight / WALK_M_S;
        let up = time_over(3.0, 3.0 + flight);
        let down = time_over(3.0 + flight + 2.0, 3.0 + 2.0 * flight + 2.0);
        assert!(
            (up - nominal).abs() < 0.05,
            "{name}: up flight {up} s vs {nominal} s"
        );
        assert!(
            (down - nominal).abs() < 0.05,
            "{name}: down flight {down} s"
        );
        // Never floats far above the tread below it (stepping keeps contact).
        for t in &ticks {
            let ground = course.ground_height(t.feet.x, t.feet.z).unwrap();
            assert!(t.feet.y - ground < 0.45, "{name}: {t:?} over {ground}");
            assert!(t.feet.y - ground > -0.45, "{name}: {t:?} under {ground}");
        }
    }
}

#[test]
fn running_up_stairs_at_30_hz_stays_on_the_ground() {
    // 3.75 m/s at 30 Hz: 12.5 cm per tick. A move along the rounded contact of a nosing
    // once launched the capsule 8 cm into the air here (a jump in the animation).
    // Every phase of the stride against the treads: starts 1 cm apart over one tick.
    let (course, mut world) = setup();
    for name in ["stairs_15cm", "stairs_20cm"] {
        let section = course.section(name).unwrap();
        for start_cm in 0..13 {
            let ticks = walk_up_flight(&mut world, section, start_cm, 3.75, 2.0, 1.0 / 30.0);
            for t in ticks.iter().take_while(|t| t.feet.z < FLIGHT_END_Z) {
                assert!(
                    t.result.grounded,
                    "{name} from +{start_cm} cm: airborne at {t:?}"
                );
            }
            assert!(ticks.last().unwrap().feet.z > FLIGHT_END_Z, "{name}: stuck");
        }
    }
}

#[test]
fn climbing_stairs_keeps_the_horizontal_speed() {
    const SLOWEST_M_S: f32 = 1.3;
    const MEAN_M_S: f32 = 1.6;
    // A riser is climbed as a step-up, not a crawl up the nosing's rounded contact: the
    // capsule once kept 0.2-0.8 m/s of a 1.75 m/s walk for five ticks a step (the animation
    // slowed and sped up with it), at every tick rate.
    let (course, mut world) = setup();
    let mut slow = Vec::new();
    for name in ["stairs_15cm", "stairs_20cm"] {
        let section = course.section(name).unwrap();
        let flight = (3.0 + 0.3)..(FLIGHT_END_Z - 0.3);
        for dt_s in [1.0 / 30.0, 1.0 / 60.0, 1.0 / 144.0] {
            for start_cm in [0, 7, 14, 21] {
                let ticks = walk_up_flight(&mut world, section, start_cm, WALK_M_S, 3.0, dt_s);
                let on_flight: Vec<_> = ticks
                    .windows(2)
                    .filter(|w| flight.contains(&w[1].feet.z))
                    .map(|w| (w[1].feet.z - w[0].feet.z) / dt_s)
                    .collect();
                assert!(on_flight.len() > 5, "{name}: {} ticks", on_flight.len());
                let slowest = on_flight.iter().copied().fold(f32::INFINITY, f32::min);
                let fastest = on_flight.iter().copied().fold(0.0, f32::max);
                let mean = on_flight.iter().sum::<f32>() / on_flight.len() as f32;
                // Never faster than asked, beyond 1 mm a tick.
                let outrun = fastest > WALK_M_S + 0.001 / dt_s;
                if slowest < SLOWEST_M_S || mean < MEAN_M_S || outrun {
                    slow.push(format!(
                        "{name} at {:.0} Hz from +{start_cm} cm: {slowest:.2}..{fastest:.2} m/s, mean {mean:.2}",
                        1.0 / dt_s
                    ));
                }
            }
        }
    }
    assert!(slow.is_empty(), "{slow:#?}");
}

#[test]
fn walks_up_and_down_ramps_up_to_40_degrees() {
    let (course, mut world) = setup();
    for angle in [10, 20, 30, 40] {
        let name = format!("ramp_{angle}deg");
        let section = course.section(&name).unwrap();
        let seconds = section.length_m / WALK_M_S + 0.5;
        let ticks = walk_section(&course, &mut world, &name, seconds);
        assert!(
            (max_y(&ticks) - 1.5).abs() < 0.03,
            "{name}: top {}",
            max_y(&ticks)
        );
        let last = ticks.last().unwrap();
        assert!(
            last.feet.z > section.end_world().z - 0.5,
            "{name}: {last:?}"
        );
        assert!(last.feet.y.abs() < 0.03, "{name}: {last:?}");
        // Grounded on the slope with the ramp's normal (up and down).
        let length = 1.5 / (angle as f32).to_radians().tan();
        let on_slope: Vec<&Tick> = ticks
            .iter()
            .filter(|t| (t.feet.z - (3.0 + 0.5 * length)).abs() < 0.2 * length)
            .collect();
        assert!(!on_slope.is_empty(), "{name}");
        for t in on_slope {
            assert!(t.result.grounded, "{name}: {t:?}");
            let n = t.result.floor_normal.unwrap();
            assert!(
                (n.y - (angle as f32).to_radians().cos()).abs() < 0.01,
                "{name}: normal {n}"
            );
            assert!(!t.result.sliding_down_slope, "{name}: {t:?}");
        }
        assert!(ticks.iter().all(|t| !t.result.hit_wall), "{name}");
    }
}

#[test]
fn does_not_climb_the_50_degree_ramp() {
    let (course, mut world) = setup();
    let ticks = walk_section(&course, &mut world, "ramp_50deg", 5.0);
    let length = 1.5 / 50f32.to_radians().tan();
    assert!(max_y(&ticks) < 0.45, "climbed to {}", max_y(&ticks));
    for t in &ticks {
        assert!(t.feet.z < 3.0 + length, "got over: {t:?}");
    }
    let last = ticks.last().unwrap();
    assert!(last.result.hit_wall, "{last:?}");
    assert!(last.feet.z > 2.0, "never reached the ramp: {last:?}");

    // Placed on the slope it is not grounded, slides down it and ends at its foot.
    let start = Vec3::new(last.feet.x, 0.75 + 0.3, 3.0 + 0.5 * length);
    let ticks = walk(&mut world, None, STAND, start, Vec3::Z, 0.0, 2.0);
    assert!(ticks.iter().any(|t| t.result.sliding_down_slope));
    assert!(ticks.iter().take(10).all(|t| !t.result.grounded));
    let last = ticks.last().unwrap();
    assert!(last.feet.y < 0.3 && last.feet.z < 3.0 + 0.3, "{last:?}");
}

#[test]
fn falls_into_the_gap() {
    let (course, mut world) = setup();
    let ticks = walk_section(&course, &mut world, "gap_1m", 5.0);
    let last = ticks.last().unwrap();
    assert!((last.feet.y - -2.0).abs() < 0.03, "{last:?}");
    assert!(last.feet.z > 4.0 && last.feet.z < 5.0, "{last:?}");
    assert!(ticks.iter().any(|t| !t.result.grounded && t.feet.y < -0.5));
    assert!(last.result.grounded);
}

#[test]
fn drops_off_ledges_instead_of_snapping() {
    let (course, mut world) = setup();
    for (name, height) in [("ledge_0_5m", 0.5f32), ("ledge_3m", 3.0)] {
        let ticks = walk_section(&course, &mut world, name, 4.0);
        let airborne = ticks.iter().filter(|t| !t.result.grounded).count();
        assert!(airborne >= 3, "{name}: {airborne} airborne ticks");
        let last = ticks.last().unwrap();
        assert!(
            last.feet.y.abs() < 0.03 && last.result.grounded,
            "{name}: {last:?}"
        );
        assert!((max_y(&ticks) - height).abs() < 0.03, "{name}");
    }
}

#[test]
fn falls_off_a_ledge_at_every_rate_without_a_snap() {
    // Sliding down the ledge's side, rapier counted the capsule grounded and snapped it to
    // the floor: 0.30 m in one tick at 144 Hz. A fall from 0.5 m never goes faster than
    // sqrt(2 g h) = 3.13 m/s, so no tick drops more than that for a tick, plus 1 cm.
    let (course, mut world) = setup();
    let section = course.section("ledge_0_5m").unwrap();
    for hz in [30.0f32, 60.0, 144.0] {
        let dt_s = 1.0 / hz;
        let ticks = walk_at(
            &mut world,
            None,
            STAND,
            section.spawn_world,
            section.direction_world,
            WALK_M_S,
            4.0,
            dt_s,
        );
        let limit = (2.0 * GRAVITY_M_S2 * 0.5).sqrt() * dt_s + 0.01;
        let worst = ticks
            .iter()
            .map(|t| -t.result.translation.y)
            .fold(0.0f32, f32::max);
        assert!(
            worst <= limit,
            "{hz} Hz: dropped {worst} m in a tick (limit {limit})"
        );
        let last = ticks.last().unwrap();
        assert!(
            last.feet.y.abs() < 0.03 && last.result.grounded,
            "{hz} Hz: {last:?}"
        );
    }
}

#[test]
fn stays_on_the_beam_and_falls_beside_it() {
    let (course, mut world) = setup();
    let ticks = walk_section(&course, &mut world, "beam", 6.0);
    for t in &ticks {
        assert!((t.feet.y - 0.5).abs() < 0.03, "{t:?}");
        assert!(t.result.grounded, "{t:?}");
    }
    // Stepping sideways off the beam: falls to the floor.
    let start = Vec3::new(ticks[0].feet.x, 0.5, 6.0);
    let ticks = walk(&mut world, None, STAND, start, Vec3::X, WALK_M_S, 0.8);
    let last = ticks.last().unwrap();
    assert!(last.feet.y.abs() < 0.03 && last.result.grounded, "{last:?}");
}

#[test]
fn cross_slope_and_pebbles_stay_grounded() {
    let (course, mut world) = setup();
    let ticks = walk_section(&course, &mut world, "cross_slope_20deg", 5.0);
    let on_slope: Vec<&Tick> = ticks
        .iter()
        .filter(|t| t.feet.z > 4.0 && t.feet.z < 8.0)
        .collect();
    assert!(on_slope.len() > 60);
    let tilted = on_slope
        .iter()
        .filter(|t| t.result.floor_normal.is_some_and(|n| n.x < -0.2))
        .count();
    assert!(
        tilted > on_slope.len() / 2,
        "{tilted} of {}",
        on_slope.len()
    );
    assert!(on_slope.iter().all(|t| t.result.grounded));

    let ticks = walk_section(&course, &mut world, "pebbles", 5.5);
    let grounded = ticks.iter().filter(|t| t.result.grounded).count();
    assert!(
        grounded * 10 >= ticks.len() * 9,
        "{grounded} of {}",
        ticks.len()
    );
    for t in &ticks {
        assert!(t.feet.y > -0.01 && t.feet.y < 0.07, "{t:?}");
    }
    assert!(ticks.last().unwrap().feet.z > 9.5);
}

#[test]
fn headroom_under_the_low_ceiling() {
    let (course, world) = setup();
    let crouch = Capsule::from_height(1.0, 0.3);
    let spawn = course.section("low_ceiling").unwrap().spawn_world;
    let stand_up_m = STAND.height_m() - crouch.height_m();
    let under = crouch.center_from_feet(spawn + Vec3::Z * 5.0);
    let hit = world
        .cast_capsule(crouch, under, Vec3::Y, stand_up_m, QueryFilter::GROUND)
        .expect("the ceiling is found");
    assert!((hit.distance_m - 0.2).abs() < 1e-3, "{hit:?}");
    assert!((hit.normal - -Vec3::Y).length() < 1e-3, "{hit:?}");
    assert!((hit.point.y - 1.2).abs() < 1e-3, "{hit:?}");
    // Out in the open there is room to stand up.
    let open = crouch.center_from_feet(spawn);
    assert!(world
        .cast_capsule(crouch, open, Vec3::Y, stand_up_m, QueryFilter::GROUND)
        .is_none());
    // A standing capsule under the ceiling already overlaps it: a hit at distance 0.
    let stuck = STAND.center_from_feet(spawn + Vec3::Z * 5.0);
    let hit = world
        .cast_capsule(STAND, stuck, Vec3::Y, 0.1, QueryFilter::GROUND)
        .unwrap();
    assert_eq!(hit.distance_m, 0.0);
    // A crouched capsule walks under it.
    let mut world = world;
    let ticks = walk(&mut world, None, crouch, spawn, Vec3::Z, 1.5, 6.0);
    assert!(ticks.last().unwrap().feet.z > 9.5);
    assert!(ticks
        .iter()
        .all(|t| t.result.grounded && !t.result.hit_wall));
}

#[test]
fn characters_collide_with_each_other() {
    let (course, mut world) = setup();
    let spawn = course.section("flat").unwrap().spawn_world;
    let me = world.add_character_capsule(STAND, spawn).unwrap();
    let other_feet = spawn + Vec3::Z * 3.0;
    world.add_character_capsule(STAND, other_feet).unwrap();
    let ticks = walk(&mut world, Some(me), STAND, spawn, Vec3::Z, WALK_M_S, 3.0);
    let last = ticks.last().unwrap();
    assert!(
        last.feet.z <= other_feet.z - 2.0 * STAND.radius_m,
        "{last:?}"
    );
    assert!(
        last.feet.z > other_feet.z - 2.0 * STAND.radius_m - 0.05,
        "{last:?}"
    );
    assert!(last.result.hit_wall);
    let feet = world.character_feet(me).unwrap();
    assert!((feet - last.feet).length() < 1e-5, "{feet} vs {last:?}");
}

#[test]
fn same_inputs_give_bit_identical_results() {
    let run = || {
        let (course, mut world) = setup();
        let mut all = Vec::new();
        for name in ["stairs_20cm", "ramp_40deg", "pebbles", "gap_1m"] {
            all.extend(walk_section(&course, &mut world, name, 4.0));
        }
        all.iter()
            .flat_map(|t| {
                let n = t.result.floor_normal.unwrap_or(Vec3::ZERO);
                [t.feet, t.result.translation, n]
                    .into_iter()
                    .flat_map(|v| v.to_array().map(f32::to_bits))
                    .chain([t.result.grounded as u32, t.result.hit_wall as u32])
            })
            .collect::<Vec<u32>>()
    };
    let a = run();
    assert!(a.len() > 1000);
    assert_eq!(a, run());
}

/// KayKit's capsule and step width (0.46 of the mannequin's, by leg length).
fn kaykit_capsule() -> (Capsule, MoveLimits) {
    let capsule = Capsule {
        radius_m: 0.3 * 0.46,
        half_height_m: 0.6 * 0.46,
    };
    let limits = MoveLimits {
        step_min_width_m: 0.15 * 0.46,
        ..MoveLimits::default()
    };
    (capsule, limits)
}

/// One move of KayKit's capsule on `mover` from `feet` by `desired` (m) in a tick of `dt_s`.
fn move_small(mover: &dyn CharacterMover, feet: Vec3, desired: Vec3, dt_s: f32) -> MoveResult {
    let (capsule, limits) = kaykit_capsule();
    mover.move_capsule(&MoveRequest {
        capsule,
        limits,
        feet,
        desired_translation: desired,
        dt_s,
        filter: everything(),
    })
}

/// KayKit's capsule (as above) climbing the flight `name` on `mover` at `speed_m_s` from
/// `start_cm` along it at tick `dt_s`: how it stalled (horizontal progress under half
/// the speed asked for over 0.1 s, or short of the flight's end), or `None`.
fn small_capsule_stall(
    course: &Course,
    mover: &dyn CharacterMover,
    name: &str,
    speed_m_s: f32,
    start_cm: u32,
    dt_s: f32,
) -> Option<String> {
    let section = course.section(name).unwrap();
    let mut feet = section.spawn_world + section.direction_world * (0.01 * start_cm as f32);
    let (mut vertical_m_s, mut grounded) = (0.0f32, false);
    let (mut still_s, mut worst_s, mut elapsed_s) = (0.0f32, 0.0f32, 0.0f32);
    while feet.z < FLIGHT_END_Z + 0.3 && still_s < 1.0 && elapsed_s < 10.0 {
        elapsed_s += dt_s;
        if grounded {
            vertical_m_s = 0.0;
        }
        vertical_m_s -= GRAVITY_M_S2 * dt_s;
        let velocity = section.direction_world * speed_m_s + Vec3::Y * vertical_m_s;
        let r = move_small(mover, feet, velocity * dt_s, dt_s);
        feet += r.translation;
        grounded = r.grounded;
        if r.translation.z < 0.5 * speed_m_s * dt_s {
            still_s += dt_s;
            worst_s = worst_s.max(still_s);
        } else {
            still_s = 0.0;
        }
    }
    (worst_s > 0.1 || feet.z < FLIGHT_END_Z).then(|| {
        format!(
            "{name} {:.0} Hz {speed_m_s} m/s from +{start_cm} cm: stalled {worst_s:.2} s, \
             reached z {:.2} y {:.2}",
            1.0 / dt_s,
            feet.z,
            feet.y
        )
    })
}

#[test]
fn a_small_capsule_walks_up_20cm_stairs_without_stalling() {
    // A rig half the mannequin's size (KayKit's, 0.46x by leg length: radius 0.14 m, its
    // bottom sphere lower than a 20 cm riser) walking 0.8 m/s. rapier's autostep carried it
    // over the tread only by what was left of a tick's move, the snap took it back down,
    // and the character stalled 3.6 s at a riser. Every rate, starts across a tread.
    let (course, world) = setup();
    let mut stalls = Vec::new();
    for dt_s in [1.0 / 30.0, 1.0 / 60.0, 1.0 / 144.0] {
        for start_cm in [0u32, 5, 10, 15, 20, 25] {
            stalls.extend(small_capsule_stall(
                &course,
                &world,
                "stairs_20cm",
                0.8,
                start_cm,
                dt_s,
            ));
        }
    }
    assert!(stalls.is_empty(), "{stalls:#?}");
}

#[test]
fn a_small_capsule_climbing_stairs_never_leaves_the_ground() {
    // KayKit's capsule (as above) walking up 15 and 20 cm stairs: half way up a riser,
    // lifted by the nosing and carried on from there, it once hung over no floor for a
    // tick, which the character read as a jump (four times on one 15 cm flight; 49 ticks
    // over these runs). Up to 5 cm before the last riser: stepping from the top nosing onto the last
    // tread, one run (20 cm, 60 Hz, 0.8 m/s, +21 cm) still finds no floor for a tick.
    const LAST_RISER_Z: f32 = 3.0 + 7.0 * 0.28 - 0.05;
    let (course, world) = setup();
    let mut airborne = Vec::new();
    for name in ["stairs_15cm", "stairs_20cm"] {
        let section = course.section(name).unwrap();
        for dt_s in [1.0 / 30.0, 1.0 / 60.0, 1.0 / 144.0] {
            for speed_m_s in [0.8f32, 1.6] {
                for start_cm in [0u32, 7, 14, 21] {
                    let mut feet =
                        section.spawn_world + section.direction_world * (0.01 * start_cm as f32);
                    let mut vertical_m_s = 0.0f32;
                    let mut elapsed_s = 0.0f32;
                    while feet.z < LAST_RISER_Z && elapsed_s < 10.0 {
                        elapsed_s += dt_s;
                        vertical_m_s -= GRAVITY_M_S2 * dt_s;
                        let velocity = section.direction_world * speed_m_s + Vec3::Y * vertical_m_s;
                        let r = move_small(&world, feet, velocity * dt_s, dt_s);
                        feet += r.translation;
                        if r.grounded {
                            vertical_m_s = 0.0;
                        } else if feet.z > 3.0 {
                            airborne.push(format!(
                                "{name} {:.0} Hz {speed_m_s} m/s from +{start_cm} cm: at z {:.2}",
                                1.0 / dt_s,
                                feet.z
                            ));
                        }
                    }
                }
            }
        }
    }
    assert!(
        airborne.is_empty(),
        "{} airborne ticks: {airborne:#?}",
        airborne.len()
    );
}

#[test]
fn a_small_capsule_running_down_stairs_never_leaves_the_ground() {
    // KayKit's capsule (as above) going down 15 and 20 cm stairs. rapier's snap stopped
    // part way down a riser where the capsule's round bottom left the nosing (5 cm down a
    // 20 cm drop, over nothing), and the capsule then fell for three ticks: the character
    // read each riser as a jump and its foot IK faded out just as the foot landed.
    const DOWN_FLIGHT_Z: f32 = FLIGHT_END_Z + 2.0;
    let (course, world) = setup();
    let mut airborne = Vec::new();
    for (name, top) in [("stairs_15cm", 1.2f32), ("stairs_20cm", 1.6)] {
        let section = course.section(name).unwrap();
        for dt_s in [1.0 / 30.0, 1.0 / 60.0, 1.0 / 144.0] {
            for speed_m_s in [0.8f32, 1.75] {
                for start_cm in [0u32, 7, 14, 21] {
                    let mut feet = section.spawn_world;
                    feet.z = DOWN_FLIGHT_Z - 0.5 + 0.01 * start_cm as f32;
                    feet.y = course.ground_height(feet.x, feet.z).unwrap();
                    assert!(
                        (feet.y - top).abs() < 1e-3,
                        "{name}: the landing is at {feet}"
                    );
                    let mut vertical_m_s = 0.0f32;
                    let mut elapsed_s = 0.0f32;
                    while feet.z < DOWN_FLIGHT_Z + 8.0 * 0.28 + 0.3 && elapsed_s < 10.0 {
                        elapsed_s += dt_s;
                        vertical_m_s -= GRAVITY_M_S2 * dt_s;
                        let velocity = section.direction_world * speed_m_s + Vec3::Y * vertical_m_s;
                        let r = move_small(&world, feet, velocity * dt_s, dt_s);
                        feet += r.translation;
                        if r.grounded {
                            vertical_m_s = 0.0;
                        } else {
                            airborne.push(format!(
                                "{name} {:.0} Hz {speed_m_s} m/s from +{start_cm} cm: at z {:.2}",
                                1.0 / dt_s,
                                feet.z
                            ));
                        }
                    }
                    assert!(feet.y < 0.05, "{name}: ended at {feet} above the floor");
                }
            }
        }
    }
    assert!(
        airborne.is_empty(),
        "{} airborne ticks: {airborne:#?}",
        airborne.len()
    );
}

#[test]
fn a_small_capsule_on_the_query_mover_steps_up_a_riser_it_runs_into() {
    // KayKit's capsule running (1.72 m/s) on the core's QueryMover (the avian backend's and
    // the crowd's) from a tread into the next riser, from 600 points spread over the last
    // 3 cm before it touches. A riser's normal read a hair below level from some of them
    // (n.y = -5e-6) and was taken for a ceiling: the step was refused and the move came
    // back still with `hit_wall`, and the character, slowed to pushing the wall, stayed
    // there for good (running up the 15 cm flight in the lab).
    let (course, world) = setup();
    let mover = QueryMover::new(&world);
    let (small, limits) = kaykit_capsule();
    let dt_s = 1.0 / 60.0;
    let desired = Vec3::new(0.0, -0.0034, 1.72 * dt_s);
    let mut refused = Vec::new();
    for (name, riser_m) in [("stairs_15cm", 0.15f32), ("stairs_20cm", 0.2)] {
        let section = course.section(name).unwrap();
        // On the second tread, the third riser ahead.
        let riser_z = 3.0 + 2.0 * 0.28;
        let touch_z = riser_z - small.radius_m - 0.5 * limits.skin_m;
        for k in 0..600 {
            let z = touch_z - 0.03 + 0.00005 * k as f32;
            let feet = Vec3::new(section.spawn_world.x, 2.0 * riser_m, z);
            let r = move_small(&mover, feet, desired, dt_s);
            let went_m = r.translation.z;
            if r.hit_wall || (went_m < 0.5 * desired.z && r.translation.y <= 0.0) {
                refused.push(format!("{name} from z {z:.5}: {r:?}"));
            }
        }
    }
    assert!(
        refused.is_empty(),
        "{} refused: {:#?}",
        refused.len(),
        &refused[..refused.len().min(5)]
    );
}

#[test]
fn a_small_capsule_climbs_stairs_on_the_query_mover_without_stalling() {
    // The same small capsule on the core's QueryMover (the avian backend's and the crowd's
    // mover) over rapier's queries: walking and running up both flights.
    let (course, world) = setup();
    let mover = QueryMover::new(&world);
    let mut stalls = Vec::new();
    for name in ["stairs_15cm", "stairs_20cm"] {
        for dt_s in [1.0 / 30.0, 1.0 / 60.0, 1.0 / 144.0] {
            for speed_m_s in [0.8f32, 1.72] {
                for start_cm in [0u32, 7, 14, 21] {
                    stalls.extend(small_capsule_stall(
                        &course, &mover, name, speed_m_s, start_cm, dt_s,
                    ));
                }
            }
        }
    }
    assert!(stalls.is_empty(), "{} stalls: {stalls:#?}", stalls.len());
}
