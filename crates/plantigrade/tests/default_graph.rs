//! The built-in default ALS graph on the mannequin: it loads, keeps walk and run in phase
//! while blending, runs the jump phases and landings, and layers the aim on the upper body.

use std::sync::Arc;

use plantigrade::graph::{GraphInstance, MachineId};
use plantigrade::mannequin::Mannequin;
use plantigrade::pose::Pose;

const DT: f32 = 1.0 / 60.0;

fn setup() -> (Mannequin, GraphInstance, Pose) {
    let m = Mannequin::new();
    let asset = Arc::new(m.default_graph().expect("default graph loads"));
    let g = GraphInstance::new(asset);
    let pose = Pose::rest(&m.skeleton);
    (m, g, pose)
}

fn set_f(g: &mut GraphInstance, name: &str, v: f32) {
    let p = g.params().float(name).unwrap();
    g.params_mut().set_float(p, v);
}

fn set_b(g: &mut GraphInstance, name: &str, v: bool) {
    let p = g.params().bool(name).unwrap();
    g.params_mut().set_bool(p, v);
}

fn state(g: &GraphInstance) -> String {
    let base = MachineId(0);
    g.asset()
        .state_name(base, g.current_state(base).unwrap())
        .to_string()
}

#[test]
fn walk_and_run_stay_in_phase_while_blending() {
    let (m, mut g, mut pose) = setup();
    let walk = g
        .asset()
        .clips()
        .iter()
        .position(|c| c.name() == "Walk_F")
        .unwrap();
    let run = g
        .asset()
        .clips()
        .iter()
        .position(|c| c.name() == "Run_F")
        .unwrap();
    // Both clips put the left footstep at the same phase, so a shared phase keeps feet in step.
    let step_phase = |name: &str| {
        let c = m.clip(name).unwrap();
        c.events()
            .iter()
            .find(|e| e.name == "Footstep_L")
            .unwrap()
            .time_s
            / c.duration_s()
    };
    assert!((step_phase("Walk_F") - step_phase("Run_F")).abs() < 0.02);

    set_f(&mut g, "speed", 1.75);
    for _ in 0..60 {
        g.tick(DT, &mut pose).unwrap();
    }
    let mut blended_ticks = 0;
    for tick in 0..=90 {
        // Walk speed to run speed over the first second, then hold.
        set_f(&mut g, "speed", 1.75 + 2.0 * (tick as f32 / 60.0).min(1.0));
        g.tick(DT, &mut pose).unwrap();
        let find = |clip| {
            g.sampled_clips()
                .iter()
                .find(|s| s.clip == clip && s.weight > 0.0)
        };
        if let (Some(w), Some(r)) = (find(walk), find(run)) {
            blended_ticks += 1;
            let diff = (w.normalized_time - r.normalized_time).abs();
            let diff = diff.min(1.0 - diff);
            assert!(
                diff <= 0.02,
                "tick {tick}: walk at {} and run at {}",
                w.normalized_time,
                r.normalized_time
            );
        }
    }
    assert!(
        blended_ticks > 30,
        "walk and run blended for {blended_ticks} ticks"
    );
}

#[test]
fn sideways_run_turns_its_hips_by_the_hips_back_flag_in_step() {
    let (_m, mut g, mut pose) = setup();
    let clip_index = |name: &str| {
        g.asset()
            .clips()
            .iter()
            .position(|c| c.name() == name)
            .unwrap_or_else(|| panic!("{name}"))
    };
    let (fwd, back) = (clip_index("Run_L_HipsFwd"), clip_index("Run_L_HipsBack"));
    let phase_of = |g: &GraphInstance, clip: usize| {
        g.sampled_clips()
            .iter()
            .find(|s| s.clip == clip && s.weight > 0.0)
            .map(|s| (s.normalized_time, s.weight))
    };
    set_f(&mut g, "direction", 90.0);
    set_f(&mut g, "speed", 3.75);
    for _ in 0..60 {
        g.tick(DT, &mut pose).unwrap();
    }
    assert_eq!(state(&g), "Locomotion");
    let (before, weight) = phase_of(&g, fwd).expect("hips-forward run plays");
    assert!(weight > 0.99 && phase_of(&g, back).is_none());

    // Turning the hips back cross-fades in step: the new clip picks up the phase.
    set_b(&mut g, "hips_back", true);
    g.tick(DT, &mut pose).unwrap();
    assert_eq!(state(&g), "Locomotion_HipsBack");
    g.tick(DT, &mut pose).unwrap();
    let (after, _) = phase_of(&g, back).expect("hips-back run fades in");
    // Two ticks of a ~0.6 s cycle.
    let advanced = (after - before).rem_euclid(1.0);
    assert!(advanced < 0.1, "phase jumped from {before} to {after}");
    for _ in 0..30 {
        g.tick(DT, &mut pose).unwrap();
    }
    assert!(phase_of(&g, fwd).is_none() && phase_of(&g, back).is_some());

    // A jump lands back in the hips-back state while the flag holds, and the flag's
    // release turns the hips forward again.
    set_b(&mut g, "is_grounded", false);
    for _ in 0..20 {
        g.tick(DT, &mut pose).unwrap();
    }
    assert_eq!(state(&g), "Jump");
    set_b(&mut g, "is_grounded", true);
    g.tick(DT, &mut pose).unwrap();
    assert_eq!(state(&g), "Locomotion_HipsBack");
    set_b(&mut g, "hips_back", false);
    for _ in 0..30 {
        g.tick(DT, &mut pose).unwrap();
    }
    assert_eq!(state(&g), "Locomotion");
    assert!(phase_of(&g, fwd).is_some() && phase_of(&g, back).is_none());
}

#[test]
fn jump_phases_landing_grades_and_recovery() {
    let (_, mut g, mut pose) = setup();
    for (take_off_m_s, heavy) in [(9.0f32, true), (3.5, false)] {
        for _ in 0..30 {
            g.tick(DT, &mut pose).unwrap();
        }
        set_b(&mut g, "is_grounded", false);
        let mut vy = take_off_m_s;
        let mut height = 0.0;
        let mut dominant = Vec::new();
        while height >= 0.0 {
            set_f(&mut g, "vertical_velocity", vy);
            g.tick(DT, &mut pose).unwrap();
            let top = g
                .sampled_clips()
                .iter()
                .max_by(|a, b| a.weight.total_cmp(&b.weight))
                .unwrap();
            let name = g.asset().clips()[top.clip].name().to_string();
            if dominant.last() != Some(&name) && name.starts_with("Jump") {
                dominant.push(name);
            }
            vy -= 24.5 * DT;
            height += vy * DT;
        }
        assert_eq!(state(&g), "Jump");
        assert_eq!(
            dominant,
            ["Jump_Start", "Jump_Apex", "Jump_Fall"],
            "take-off {take_off_m_s}"
        );
        set_b(&mut g, "is_grounded", true);
        set_f(&mut g, "land_velocity", -vy);
        g.tick(DT, &mut pose).unwrap();
        assert_eq!(state(&g), "Land");
        let mut landing_clip = None;
        let mut ticks = 0;
        while state(&g) == "Land" && ticks < 300 {
            g.tick(DT, &mut pose).unwrap();
            // The landing clip with the most weight (the jump pose fades out meanwhile).
            let landing = g
                .sampled_clips()
                .iter()
                .filter(|s| g.asset().clips()[s.clip].name().starts_with("Land"))
                .max_by(|a, b| a.weight.total_cmp(&b.weight));
            if let Some(top) = landing {
                landing_clip.get_or_insert_with(|| g.asset().clips()[top.clip].name().to_string());
            }
            ticks += 1;
        }
        let expected = if heavy { "Land_Heavy" } else { "Land_Light" };
        assert_eq!(landing_clip.as_deref(), Some(expected), "impact {}", -vy);
        assert_eq!(state(&g), "Locomotion", "left Land at its recovered marker");
    }
}

#[test]
fn aim_overlay_moves_the_upper_body_only() {
    let (m, mut g, mut pose) = setup();
    let mut aimed = pose.clone();
    set_f(&mut g, "speed", 1.75);
    let mut g2 = g.clone();
    set_b(&mut g2, "aiming", true);
    for _ in 0..60 {
        g.tick(DT, &mut pose).unwrap();
        g2.tick(DT, &mut aimed).unwrap();
    }
    let joint = |n: &str| m.skeleton.find(n).unwrap();
    for leg in ["thigh_l", "calf_r", "foot_l", "pelvis"] {
        assert_eq!(
            pose.local()[joint(leg)],
            aimed.local()[joint(leg)],
            "{leg} untouched by the aim layer"
        );
    }
    let moved = |n: &str| {
        pose.local()[joint(n)]
            .rotation
            .angle_between(aimed.local()[joint(n)].rotation)
    };
    assert!(moved("upperarm_r") > 0.2, "the arms take the aim pose");
    assert!(g2.layer_weight(0) > 0.99);
}

#[test]
fn aim_holds_ahead_over_hips_turned_into_a_sideways_run() {
    use plantigrade::glam::{Quat, Vec3};
    use plantigrade::pose::{local_to_model, ModelPose};
    let m = Mannequin::new();
    let joint = |n: &str| m.skeleton.find(n).unwrap();
    // Worst chest yaw and right-hand bearing from the chest (degrees) over a second of
    // aiming at `direction` and `speed`.
    let aim_at = |direction: f32, speed: f32, hips_back: bool| {
        let (_, mut g, mut pose) = setup();
        set_f(&mut g, "direction", direction);
        set_f(&mut g, "speed", speed);
        set_b(&mut g, "hips_back", hips_back);
        set_b(&mut g, "aiming", true);
        let mut model = ModelPose::new(m.skeleton.num_joints());
        let (mut chest_deg, mut hand_deg) = (Vec::new(), Vec::new());
        for tick in 0..120 {
            g.tick(DT, &mut pose).unwrap();
            if tick < 60 {
                continue;
            }
            local_to_model(&m.skeleton, &pose, &mut model).unwrap();
            let chest = Quat::from_affine3a(&model.joints_model()[joint("spine_03")]) * Vec3::Z;
            chest_deg.push(chest.x.atan2(chest.z).to_degrees());
            let hand =
                model.position_model(joint("hand_r")) - model.position_model(joint("spine_03"));
            hand_deg.push(hand.x.atan2(hand.z).to_degrees());
        }
        let span = |v: &[f32]| {
            let lo = v.iter().copied().fold(f32::MAX, f32::min);
            let hi = v.iter().copied().fold(f32::MIN, f32::max);
            (lo, hi)
        };
        (span(&chest_deg), span(&hand_deg))
    };
    let standing = aim_at(0.0, 0.0, false);
    for (direction, hips_back) in [(90.0, false), (90.0, true), (-90.0, false), (-90.0, true)] {
        let running = aim_at(direction, 3.75, hips_back);
        for (what, (lo, hi), (rest_lo, rest_hi)) in [
            ("chest yaw", running.0, standing.0),
            ("hand bearing", running.1, standing.1),
        ] {
            assert!(
                lo > rest_lo - 3.0 && hi < rest_hi + 3.0,
                "running at {direction}° (hips back {hips_back}): {what} {lo}..{hi}°, \
                 standing {rest_lo}..{rest_hi}°"
            );
        }
    }
}

#[test]
fn a_strafe_reversal_restarts_the_gait_heading_the_new_way() {
    let (_, mut g, mut pose) = setup();
    let clip = |g: &GraphInstance, name: &str| {
        g.asset()
            .clips()
            .iter()
            .position(|c| c.name() == name)
            .unwrap()
    };
    let (left, right) = (clip(&g, "Walk_L"), clip(&g, "Walk_R"));
    let phase = |g: &GraphInstance, c: usize| {
        g.sampled_clips()
            .iter()
            .find(|s| s.clip == c && s.weight > 0.0)
            .map(|s| s.normalized_time)
    };
    // Sidestepping left at walking speed, well into the cycle.
    set_f(&mut g, "speed", 1.75);
    set_f(&mut g, "direction", 90.0);
    for _ in 0..50 {
        g.tick(DT, &mut pose).unwrap();
    }
    assert_eq!(state(&g), "Locomotion");
    let before = phase(&g, left).expect("the left sidestep plays");
    // The velocity swings round: the direction flips and the trigger fires for a tick.
    set_f(&mut g, "speed", 0.2);
    set_f(&mut g, "direction", -90.0);
    set_b(&mut g, "reversed", true);
    g.tick(DT, &mut pose).unwrap();
    set_b(&mut g, "reversed", false);
    let restarted = g.events().iter().any(|e| {
        matches!(e, plantigrade::graph::GraphEvent::TransitionStarted { from, to, .. } if from == to)
    });
    assert!(restarted, "no restart: {:?}", g.events());
    assert_eq!(state(&g), "Locomotion");
    // It starts over at the right sidestep's start (its trailing left foot planted), a
    // few ticks in, not at the phase the left sidestep had reached.
    for _ in 0..3 {
        g.tick(DT, &mut pose).unwrap();
    }
    let started = phase(&g, right).expect("the right sidestep plays");
    assert!(
        (0.1..0.35).contains(&started) && (before - 0.1).abs() > 0.3,
        "phase {started}, the left sidestep's was {before}"
    );
    // And it fires once: the next ticks go on without another restart.
    for _ in 0..10 {
        g.tick(DT, &mut pose).unwrap();
        assert!(!g
            .events()
            .iter()
            .any(|e| matches!(e, plantigrade::graph::GraphEvent::TransitionStarted { .. })));
    }
}
