use super::*;

const DT_S: f32 = 1.0 / 60.0;

/// A small crowd with every LOD tier in it: the viewer at the first lanes' start.
fn small_crowd(stage: &Stage, n: u32) -> Vec<Agent> {
    crowd_probing(stage, n, ProbeTiming::Immediate)
}

fn crowd_probing(stage: &Stage, n: u32, probes: ProbeTiming) -> Vec<Agent> {
    crowd_with_tiering(stage, n, probes).0
}

/// The small crowd and what keeps its nearest 3 in the full tier and 12 in the reduced one.
fn crowd_with_tiering(stage: &Stage, n: u32, probes: ProbeTiming) -> (Vec<Agent>, Tiering) {
    let viewer = Some(Vec3::new(3.0, 1.7, 2.0));
    let (agents, tiering) = stage
        .spawn(n, 5, viewer, (FullDetail::Nearest(3), 12), probes)
        .unwrap();
    (agents, tiering.unwrap())
}

/// Runs `frames` frames as the crowd command does: the tier edges moved after each.
fn run_tiered(
    (agents, tiering): &mut (Vec<Agent>, Tiering),
    stage: &Stage,
    schedule: (Option<&rayon::ThreadPool>, ProbeTiming),
    frames: u32,
) {
    run_frames(
        agents,
        &stage.world,
        schedule,
        DT_S,
        (frames, 0),
        |agents, _| {
            tiering.apply(agents);
        },
    )
    .unwrap();
}

const ALONE: (Option<&rayon::ThreadPool>, ProbeTiming) = (None, ProbeTiming::Immediate);

#[test]
fn one_and_several_threads_end_in_bit_identical_poses() {
    let stage = Stage::new().unwrap();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(3)
        .build()
        .unwrap();
    for probes in [ProbeTiming::Immediate, ProbeTiming::Batched] {
        let mut alone = crowd_with_tiering(&stage, 24, probes);
        let mut shared = crowd_with_tiering(&stage, 24, probes);
        run_tiered(&mut alone, &stage, (None, probes), 90);
        run_tiered(&mut shared, &stage, (Some(&pool), probes), 90);
        let (alone, shared) = (alone.0, shared.0);
        for (k, (a, b)) in alone.iter().zip(&shared).enumerate() {
            let (a, b) = (a.character(), b.character());
            assert_eq!(
                a.feet_world().to_array().map(f32::to_bits),
                b.feet_world().to_array().map(f32::to_bits),
                "{probes:?}: character {k}"
            );
            for (ja, jb) in a
                .model_pose()
                .joints_model()
                .iter()
                .zip(b.model_pose().joints_model())
            {
                assert_eq!(
                    ja.to_cols_array().map(f32::to_bits),
                    jb.to_cols_array().map(f32::to_bits),
                    "{probes:?}: character {k}"
                );
            }
        }
        assert_eq!(digest(&alone), digest(&shared));
        // The crowd moved, and the digest sees a pose change.
        let fresh = crowd_probing(&stage, 24, probes);
        assert_ne!(digest(&fresh), digest(&alone));
        assert!(alone.iter().zip(&fresh).any(|(a, b)| a
            .character()
            .feet_world()
            .distance(b.character().feet_world())
            > 1.0));
    }
}

#[test]
fn the_crowd_tick_does_not_allocate_once_warm() {
    let stage = Stage::new().unwrap();
    for probes in [ProbeTiming::Immediate, ProbeTiming::Batched] {
        let mut crowd = crowd_with_tiering(&stage, 8, probes);
        // Warm up: LOD tiers placed, buffers grown.
        run_tiered(&mut crowd, &stage, (None, probes), 120);
        let before = alloc_count::thread_allocations();
        run_tiered(&mut crowd, &stage, (None, probes), 240);
        let made = alloc_count::thread_allocations() - before;
        assert_eq!(
            made, 0,
            "{probes:?}: {made} allocations in 240 frames of 8 characters"
        );
        // The counter does count on this thread.
        let v = std::hint::black_box(vec![1u8; 16]);
        assert!(alloc_count::thread_allocations() > before + made);
        drop(v);
    }
}

#[test]
fn bad_arguments_are_errors_not_panics() {
    assert_eq!(parse_sizes("100,1000, 10000"), Ok(vec![100, 1000, 10000]));
    assert!(parse_sizes("100,,3").is_err());
    assert!(parse_sizes("-1").is_err());
    assert!(parse_sizes("ten").is_err());
    assert_eq!(parse_viewer("1,2.5,-3"), Ok(Vec3::new(1.0, 2.5, -3.0)));
    for bad in ["1,2", "1,2,3,4", "1,NaN,3", "a,b,c", "", "1,inf,2"] {
        assert!(parse_viewer(bad).is_err(), "{bad}");
    }
    assert_eq!(parse_probes("batched"), Ok(ProbeTiming::Batched));
    assert_eq!(parse_probes("immediate"), Ok(ProbeTiming::Immediate));
    assert!(parse_probes("later").is_err());
    assert_eq!(parse_full_detail("all"), Ok(FullDetail::All));
    assert_eq!(parse_full_detail("32"), Ok(FullDetail::Nearest(32)));
    assert!(parse_full_detail("some").is_err());

    let good = CrowdArgs {
        characters: vec![2],
        threads: 2,
        seconds: 0.1,
        viewer: None,
        full_detail: FullDetail::Nearest(1),
        probes: ProbeTiming::Batched,
        reduced_detail: 1,
        seed: 1,
        joint_culling: true,
        hz: 60.0,
        check: true,
        out: std::env::temp_dir().join(format!("plantigrade-crowd-test-{}", std::process::id())),
    };
    assert!(validate(&good).is_ok());
    for bad in [
        CrowdArgs {
            characters: vec![],
            ..good.clone()
        },
        CrowdArgs {
            characters: vec![0],
            ..good.clone()
        },
        CrowdArgs {
            threads: 0,
            ..good.clone()
        },
        CrowdArgs {
            seconds: f32::NAN,
            ..good.clone()
        },
        CrowdArgs {
            seconds: 0.0,
            ..good.clone()
        },
        CrowdArgs {
            hz: 0.0,
            ..good.clone()
        },
        CrowdArgs {
            viewer: Some(Vec3::NAN),
            ..good.clone()
        },
        CrowdArgs {
            full_detail: FullDetail::Nearest(0),
            ..good.clone()
        },
        CrowdArgs {
            full_detail: FullDetail::Nearest(2),
            ..good.clone()
        },
    ] {
        assert!(run(bad).is_err());
    }
    // A tiny run writes crowd.json with the keys.
    assert!(run(good.clone()).unwrap());
    let text = std::fs::read_to_string(good.out.join("crowd.json")).unwrap();
    let json: serde_json::Value = serde_json::from_str(&text).unwrap();
    let runs = json["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 2);
    for key in [
        "characters",
        "threads",
        "full_detail",
        "wall_ms_per_frame",
        "stage_us",
        "tiers",
        "bytes_per_character",
    ] {
        assert!(runs[0].get(key).is_some(), "{key}");
    }
    assert_eq!(runs[0]["threads"], 2);
    assert_eq!(runs[1]["threads"], 1);
    // (Not its size: the count is the whole process's, and other tests allocate meanwhile.)
    assert!(runs[0]["bytes_per_character"].is_number());
    std::fs::remove_dir_all(&good.out).unwrap();
}

/// Movement LOD: a character walking up and down a lane while the viewer jumps between
/// near (full mover) and far (ground follow) keeps its feet on the ground (within 3 cm of
/// the ground under its capsule) on every grounded tick, the ticks of a switch included.
#[test]
fn crossing_tiers_keeps_the_feet_on_the_ground() {
    let stage = Stage::new().unwrap();
    for lane in [
        "flat",
        "ramp_20deg",
        "stairs_20cm",
        "pebbles",
        "rolling_bumps",
    ] {
        let section = stage.course.section(lane).unwrap();
        let mut settings = CharacterSettings::default();
        settings.lod.ground_follow_when_off = true;
        let mut character = Character::builder(Arc::clone(&stage.graph))
            .settings(settings)
            .spawn(section.spawn_world, 0.0)
            .unwrap();
        let mut path =
            PathFollower::new(&[section.end_world(), section.spawn_world]).with_run(false);
        let mut worst = (0.0f32, 0usize);
        let mut far_ticks = 0;
        for tick in 0..600 {
            let far = (tick / 23) % 2 == 1;
            let offset = if far { 80.0 } else { 1.0 };
            character.set_viewer(Some(character.feet_world() + Vec3::X * offset));
            far_ticks += usize::from(character.lod().tier() == LodTier::Off);
            let intent = path.intent(character.feet_world(), character.config());
            character.tick(DT_S, &intent, &stage.world).unwrap();
            // Between the lowest and highest ground under the capsule's footprint (its
            // centre and four points on its rim): a capsule resting on a stair nosing
            // stands on the upper tread's edge above the lower tread.
            let feet = character.feet_world();
            let radius_m = character.capsule().radius_m;
            let heights =
                [(0.0, 0.0), (1.0, 0.0), (-1.0, 0.0), (0.0, 1.0), (0.0, -1.0)].map(|(dx, dz)| {
                    let (x, z) = (feet.x + dx * radius_m, feet.z + dz * radius_m);
                    stage
                        .course
                        .ground_height(x, z)
                        .unwrap_or(f32::NEG_INFINITY)
                });
            let low = heights.iter().copied().fold(f32::INFINITY, f32::min);
            let high = heights.iter().copied().fold(f32::NEG_INFINITY, f32::max);
            if character.output().vars.is_grounded && tick > 10 {
                let off = (low - feet.y).max(feet.y - high).max(0.0);
                if off > worst.0 {
                    worst = (off, tick);
                }
            }
        }
        assert!(far_ticks > 200, "{lane}: {far_ticks} ticks in the far tier");
        assert!(
            worst.0 < 0.03,
            "{lane}: feet {} m off the ground at tick {}",
            worst.0,
            worst.1
        );
    }
}

/// A clone of a crowd ticks exactly as the crowd does (a cloned graph instance once
/// stopped recording its sampled clips, which the foot IK reads, and drifted apart).
#[test]
fn a_cloned_crowd_ticks_as_the_original() {
    let stage = Stage::new().unwrap();
    let mut original = small_crowd(&stage, 24);
    let mut copy = original.clone();
    run_frames(&mut original, &stage.world, ALONE, DT_S, (90, 0), |_, _| {}).unwrap();
    run_frames(&mut copy, &stage.world, ALONE, DT_S, (90, 0), |_, _| {}).unwrap();
    assert_eq!(digest(&original), digest(&copy));
}

/// The tier edges follow the crowd: after every frame the nearest 3 are within the full
/// edge and the nearest 12 within the reduced one, and the tiers hold about that many.
#[test]
fn the_tier_edges_keep_the_nearest_in_full_detail() {
    let stage = Stage::new().unwrap();
    let mut crowd = crowd_with_tiering(&stage, 40, ProbeTiming::Immediate);
    let viewer = crowd.1.viewer;
    let mut full_counts = Vec::new();
    for _ in 0..30 {
        run_tiered(&mut crowd, &stage, ALONE, 4);
        let edges = crowd.1.edges(&crowd.0);
        let within = |edge_m: f32| {
            crowd
                .0
                .iter()
                .filter(|a| a.character.feet_world().distance(viewer) <= edge_m)
                .count()
        };
        assert_eq!(within(edges.full_m), 3);
        assert_eq!(within(edges.reduced_m), 12);
        let config = crowd.0[0].character.lod().config;
        assert_eq!(config.full_max_distance_m, edges.full_m);
        full_counts.push(
            crowd
                .0
                .iter()
                .filter(|a| a.character.lod().tier() == LodTier::Full)
                .count(),
        );
    }
    // Hysteresis lets a character on the edge stay a little longer.
    let mean = full_counts.iter().sum::<usize>() as f32 / full_counts.len() as f32;
    assert!(
        (2.0..=6.0).contains(&mean),
        "{mean} in the full tier on average"
    );
}
