//! Behaviour of compiled graphs on a small synthetic rig: transition timing and curves,
//! interrupted crossfades, priority, markers, layers, root motion, events, pause, and
//! load errors with line and column.

use std::sync::Arc;

use glam::{Quat, Vec3};

use super::*;
use crate::clip::{Clip, JointTracks, Track};
use crate::pose::Pose;
use crate::skeleton::{Joint, Skeleton, Transform};

/// root → hips → spine → head, and hips → leg.
fn rig() -> Skeleton {
    let j = |name: &str, parent: Option<usize>| Joint {
        name: name.into(),
        parent,
        rest_local: Transform::from_translation(Vec3::Y * 0.1),
    };
    Skeleton::new(vec![
        j("root", None),
        j("hips", Some(0)),
        j("spine", Some(1)),
        j("head", Some(2)),
        j("leg", Some(1)),
    ])
    .unwrap()
}

/// A clip that holds every non-root joint at translation x = `x` and yaw `yaw_deg`.
fn hold(name: &str, x: f32, yaw_deg: f32, duration_s: f32) -> Clip {
    let mut joints = vec![JointTracks::default(); 5];
    for t in joints.iter_mut().skip(1) {
        t.translation = Some(Track::constant(Vec3::new(x, 0.1, 0.0)));
        t.rotation = Some(Track::constant(Quat::from_rotation_y(yaw_deg.to_radians())));
    }
    Clip::new(name, Some(duration_s), joints).unwrap()
}

/// A 1 s clip holding x = `x` that moves at 1 m/s forward (a gait, for synced blends).
fn moving(name: &str, x: f32) -> Clip {
    hold(name, x, 0.0, 1.0)
        .with_authored_velocity(Vec3::new(0.0, 0.0, 1.0))
        .unwrap()
}

fn clips() -> Vec<Clip> {
    let contact = crate::clip::FloatCurve {
        name: "FootContact_L".into(),
        track: Track::constant(1.0),
    };
    vec![
        hold("A", 0.0, 0.0, 1.0).with_curve(contact).unwrap(),
        hold("B", 1.0, 90.0, 1.0),
        hold("C", 2.0, -90.0, 1.0),
        hold("Once", 3.0, 0.0, 1.0)
            .with_looping(false)
            .with_event("recovered", 0.6)
            .unwrap(),
        hold("Steps", 0.0, 0.0, 1.0)
            .with_event("Footstep_L", 0.0)
            .unwrap()
            .with_event("Footstep_R", 0.5)
            .unwrap(),
    ]
}

const PARAMS: &str = r#"parameters: [Bool("go_b", false), Bool("go_c", false), Bool("both", false), Float("w", 0.0)],"#;

fn load(body: &str) -> Result<GraphAsset, GraphLoadError> {
    let src = format!("GraphDef({PARAMS} {body})");
    GraphAsset::from_ron(&src, &rig(), clips())
}

fn two_state(curve: &str) -> GraphAsset {
    load(&format!(
        r#"base: StateMachine((initial: "A", states: [(name: "A", node: Clip(clip: "A")), (name: "B", node: Clip(clip: "B")), (name: "C", node: Clip(clip: "C"))],
           transitions: [
             (from: "A", to: "B", condition: Some("go_b"), duration_s: 0.3, curve: {curve}),
             (from: "*", to: "C", condition: Some("go_c"), duration_s: 0.2),
             (from: "A", to: "C", condition: Some("both"), duration_s: 0.2),
             (from: "A", to: "B", condition: Some("both"), duration_s: 0.3),
           ])),"#
    ))
    .unwrap()
}

fn set_bool(g: &mut GraphInstance, name: &str, v: bool) {
    let p = g.params().bool(name).unwrap();
    g.params_mut().set_bool(p, v);
}

fn hips_x(pose: &Pose) -> f32 {
    pose.local()[1].translation.x
}

const DT: f32 = 1.0 / 60.0;

#[test]
fn transition_follows_declared_duration_and_curve() {
    for (curve, f) in [
        ("Linear", (|t: f32| t) as fn(f32) -> f32),
        ("EaseInOut", |t: f32| t * t * (3.0 - 2.0 * t)),
    ] {
        let mut g = GraphInstance::new(Arc::new(two_state(curve)));
        let mut pose = Pose::rest(g.asset().skeleton());
        g.tick(DT, &mut pose).unwrap();
        assert_eq!(hips_x(&pose), 0.0);
        set_bool(&mut g, "go_b", true);
        // The tick that starts the transition shows weight 0; then 1/60 s per tick.
        g.tick(DT, &mut pose).unwrap();
        let mut finished_at = None;
        for tick in 1..=30 {
            g.tick(DT, &mut pose).unwrap();
            let t = (tick as f32 * DT / 0.3).min(1.0);
            assert!(
                (hips_x(&pose) - f(t)).abs() < 1e-4,
                "{curve} tick {tick}: {} vs {}",
                hips_x(&pose),
                f(t)
            );
            // A carries FootContact_L = 1, B none: the blended curve is A's weight.
            let contact = g.curve(g.asset().curve_id("FootContact_L").unwrap());
            assert!(
                (contact - (1.0 - f(t))).abs() < 1e-4,
                "curve {contact} at t {t}"
            );
            if finished_at.is_none()
                && g.events()
                    .iter()
                    .any(|e| matches!(e, GraphEvent::TransitionFinished { .. }))
            {
                finished_at = Some(tick);
            }
        }
        // 0.3 s at 60 Hz is 18 ticks.
        assert_eq!(finished_at, Some(18), "{curve}");
    }
}

#[test]
fn interrupted_transition_does_not_pop() {
    let mut g = GraphInstance::new(Arc::new(two_state("Linear")));
    let mut pose = Pose::rest(g.asset().skeleton());
    let mut previous = pose.clone();
    let mut max_step_rad: f32 = 0.0;
    for tick in 0..80 {
        // A→B starts at tick 5; C interrupts it halfway at tick 14.
        set_bool(&mut g, "go_b", tick >= 5);
        set_bool(&mut g, "go_c", tick >= 14);
        g.tick(DT, &mut pose).unwrap();
        if tick > 0 {
            for (a, b) in pose.local().iter().zip(previous.local()) {
                max_step_rad = max_step_rad.max(a.rotation.angle_between(b.rotation));
            }
        }
        previous.copy_from(&pose).unwrap();
    }
    // A linear 90° fade over 0.3 s turns 5° a tick; fading from the frozen 45° mix toward
    // −90° over 0.2 s turns (45 + 90)° / 12 ≈ 11.25° a tick on average, a little more mid-way
    // because nlerp is not constant-speed. A pop would be ≥ 45° in one tick.
    assert!(
        max_step_rad.to_degrees() < 14.0,
        "largest step {:.1}°",
        max_step_rad.to_degrees()
    );
    assert!((hips_x(&pose) - 2.0).abs() < 1e-5, "ends in C");
}

#[test]
fn first_matching_transition_wins() {
    let asset = Arc::new(two_state("Linear"));
    let machine = MachineId(0);
    let mut g = GraphInstance::new(asset.clone());
    let mut pose = Pose::rest(asset.skeleton());
    g.tick(DT, &mut pose).unwrap();
    set_bool(&mut g, "both", true);
    g.tick(DT, &mut pose).unwrap();
    // "both" opens A→C (declared third) and A→B (fourth): C wins.
    assert_eq!(g.current_state(machine), asset.state_id(machine, "C"));
}

#[test]
fn marker_advances_and_events_fire_once() {
    let asset = Arc::new(
        load(
            r#"base: StateMachine((initial: "Once", states: [(name: "Once", node: Clip(clip: "Once")), (name: "Steps", node: Clip(clip: "Steps"))],
               transitions: [(from: "Once", to: "Steps", at_marker: Some("recovered"), duration_s: 0.1)])),"#,
        )
        .unwrap(),
    );
    let machine = MachineId(0);
    let mut g = GraphInstance::new(asset.clone());
    let mut pose = Pose::rest(asset.skeleton());
    let steps = asset.state_id(machine, "Steps").unwrap();
    let (left, right) = (
        asset.event_id("Footstep_L").unwrap(),
        asset.event_id("Footstep_R").unwrap(),
    );
    let mut entered_at = None;
    let mut counts = [0, 0];
    for tick in 0..(60 * 4) {
        g.tick(DT, &mut pose).unwrap();
        for e in g.events() {
            match *e {
                GraphEvent::StateEntered { state, .. } if state == steps => entered_at = Some(tick),
                GraphEvent::Clip { name, .. } if name == left => counts[0] += 1,
                GraphEvent::Clip { name, .. } if name == right => counts[1] += 1,
                _ => {}
            }
        }
    }
    // The marker at 0.6 s is crossed on tick 36 (t = 0.6 s after 36 advances).
    let entered = entered_at.expect("marker transition fired");
    assert!((35..=36).contains(&entered), "entered at tick {entered}");
    // Steps then plays for (240 − entered − 1) ticks ≈ 3.4 s: footsteps at 0, 1, 2, 3 s (L)
    // and 0.5 … 3.0 s (R); each reported once although the clip wraps every second. While
    // the crossfade holds Steps under half weight, its events stay silent.
    let played_s = (240 - entered - 1) as f32 * DT;
    let expect_l = played_s.floor() as usize; // the one at 0 s falls inside the fade
    let expect_r = (played_s - 0.5).floor() as usize + 1;
    assert_eq!(counts, [expect_l, expect_r], "played {played_s} s");
}

#[test]
fn layer_mask_gradient_and_weight() {
    let asset = Arc::new(
        load(
            r#"base: Clip(clip: "A"),
               layers: [(name: "upper", node: Clip(clip: "B"), weight_param: Some("w"), mask: [("spine", 0.5), ("head", 1.0)])],"#,
        )
        .unwrap(),
    );
    let mut g = GraphInstance::new(asset.clone());
    let mut pose = Pose::rest(asset.skeleton());
    let w = g.params().float("w").unwrap();
    g.params_mut().set_float(w, 1.0);
    g.tick(DT, &mut pose).unwrap();
    let x: Vec<f32> = pose.local().iter().map(|t| t.translation.x).collect();
    // hips and leg untouched, spine halfway, head fully B.
    assert_eq!(x[1], 0.0);
    assert_eq!(x[4], 0.0);
    assert!(
        (x[2] - 0.5).abs() < 1e-6 && (x[3] - 1.0).abs() < 1e-6,
        "{x:?}"
    );
    g.params_mut().set_float(w, 0.5);
    g.tick(DT, &mut pose).unwrap();
    assert!((pose.local()[3].translation.x - 0.5).abs() < 1e-6);
}

#[test]
fn root_motion_through_the_graph_is_filtered_and_stripped() {
    let mut joints = vec![JointTracks::default(); 5];
    joints[0].translation =
        Some(Track::linear([(0.0, Vec3::ZERO), (1.0, Vec3::new(0.5, 0.2, 2.0))]).unwrap());
    joints[0].rotation =
        Some(Track::linear([(0.0, Quat::IDENTITY), (1.0, Quat::from_rotation_y(1.0))]).unwrap());
    let mut all = clips();
    all.push(
        Clip::new("Move", Some(1.0), joints)
            .unwrap()
            .with_looping(false),
    );
    let src = format!(r#"GraphDef({PARAMS} base: Clip(clip: "Move"), root_motion: (z: Extract))"#);
    let asset = Arc::new(GraphAsset::from_ron(&src, &rig(), all).unwrap());
    let mut g = GraphInstance::new(asset.clone());
    let mut pose = Pose::rest(asset.skeleton());
    let mut total_yaw = 0.0;
    let mut total_y = 0.0;
    for _ in 0..30 {
        g.tick(DT, &mut pose).unwrap();
        let d = g.root_motion();
        assert_eq!(d.translation_m.x, 0.0, "x is discarded by default");
        assert!(d.translation_m.z > 0.0, "z extracted on request");
        total_yaw += d.yaw_rad;
        total_y += d.translation_m.y;
        // The pose's root keeps its rest place: the capsule carries the motion.
        assert_eq!(pose.local()[0].translation, Vec3::new(0.0, 0.1, 0.0));
    }
    assert!((total_yaw - 0.5).abs() < 1e-3, "{total_yaw}");
    assert!((total_y - 0.1).abs() < 1e-4, "{total_y}");
}

#[test]
fn pause_freezes_time_and_events() {
    let asset = Arc::new(load(r#"base: Clip(clip: "Steps"),"#).unwrap());
    let mut g = GraphInstance::new(asset.clone());
    let mut pose = Pose::rest(asset.skeleton());
    let mut events = 0;
    for tick in 0..120 {
        g.set_paused((30..90).contains(&tick));
        g.tick(DT, &mut pose).unwrap();
        if g.is_paused() {
            assert!(g.events().is_empty());
        }
        events += g
            .events()
            .iter()
            .filter(|e| matches!(e, GraphEvent::Clip { .. }))
            .count();
    }
    // 60 unpaused ticks = 1 s of clip: L at 0, R at 0.5, and L again at 1.0 s only if reached.
    assert_eq!(events, 2);
}

#[test]
fn forced_travel_and_bad_inputs() {
    let asset = Arc::new(two_state("Linear"));
    let machine = MachineId(0);
    let mut g = GraphInstance::new(asset.clone());
    let mut pose = Pose::rest(asset.skeleton());
    let c = asset.state_id(machine, "C").unwrap();
    g.travel(machine, c, 0.0);
    g.tick(DT, &mut pose).unwrap();
    g.tick(f32::NAN, &mut pose).unwrap();
    g.tick(-1.0, &mut pose).unwrap();
    g.tick(1.0, &mut pose).unwrap();
    assert_eq!(g.current_state(machine), Some(c));
    assert!((hips_x(&pose) - 2.0).abs() < 1e-6);
    let mut wrong = Pose::new(3);
    assert!(g.tick(DT, &mut wrong).is_err());
}

/// Each malformed definition fails with the expected problem at the expected place.
#[test]
fn malformed_definitions_name_line_and_problem() {
    let cases: &[(&str, &str, usize)] = &[
        // (body, expected message fragment, expected line)
        ("base: Clip(clip: \"Nope\"),", "unknown clip 'Nope'", 1),
        ("base: BlendSpace1D(\n param: \"sped\",\n samples: [(clip: \"A\", position: 0.0)]),", "unknown parameter 'sped'", 2),
        (
            "base: Clip(clip: \"A\"),\nlayers: [(name: \"l\", node: Clip(clip: \"B\"),\n mask: [(\"tail\", 1.0)])],",
            "unknown bone 'tail'",
            3,
        ),
        (
            "base: StateMachine((initial: \"A\",\n states: [(name: \"A\", node: Clip(clip: \"A\"))],\n transitions: [(from: \"A\", to: \"Z\")])),",
            "unknown state 'Z'",
            3,
        ),
        (
            "base: StateMachine((initial: \"A\",\n states: [(name: \"A\", node: Clip(clip: \"A\")), (name: \"B\", node: Clip(clip: \"B\"))],\n transitions: [(from: \"A\", to: \"B\",\n   condition: Some(\"go_b && )\"))])),",
            "unexpected token ')'",
            4,
        ),
        ("base: Clip(clip: \"A\" rate: 1.0),", "RON syntax", 1),
        ("base: Clipp(clip: \"A\"),", "RON syntax", 1),
        (
            "base: StateMachine((initial: \"A\",\n states: [(name: \"A\", node: Clip(clip: \"A\")), (name: \"A\", node: Clip(clip: \"B\"))])),",
            "two states are named 'A'",
            2,
        ),
        (
            "base: StateMachine((initial: \"A\",\n states: [(name: \"A\", node: Clip(clip: \"A\")), (name: \"B\", node: Clip(clip: \"B\"))],\n transitions: [(from: \"A\", to: \"B\", at_marker: Some(\"recoverd\"))])),",
            "marker 'recoverd'",
            3,
        ),
        (
            "base: BlendSpace2D(x_param: \"w\", y_param: \"go_b\",\n samples: [(clip: \"A\", position: (0.0, 0.0))]),",
            "is a bool, not a float",
            1,
        ),
    ];
    for (body, fragment, line) in cases {
        let err = load(body).unwrap_err();
        let text = err.to_string();
        assert!(text.contains(fragment), "{body}\n→ {text}");
        let pos = err.pos.unwrap_or_else(|| panic!("no position for {text}"));
        assert_eq!(pos.line, *line, "{body}\n→ {text}");
        assert!(text.starts_with(&format!("line {line}, column ")), "{text}");
    }
    // The expression error points at the offending token inside the expression.
    let err = load(cases[4].0).unwrap_err();
    let pos = err.pos.unwrap();
    let line4 = cases[4].0.lines().nth(3).unwrap();
    assert_eq!(
        &line4[pos.col - 1..pos.col],
        ")",
        "column {} in {line4:?}",
        pos.col
    );
}

#[test]
fn nested_state_machine_runs_as_a_sub_graph() {
    let asset = Arc::new(
        load(
            r#"base: StateMachine((initial: "Outer", states: [
                 (name: "Outer", node: StateMachine((initial: "A", states: [(name: "A", node: Clip(clip: "A")), (name: "B", node: Clip(clip: "B"))],
                    transitions: [(from: "A", to: "B", condition: Some("go_b"), duration_s: 0.0)]))),
                 (name: "C", node: Clip(clip: "C"))],
               transitions: [(from: "Outer", to: "C", condition: Some("go_c"), duration_s: 0.0)])),"#,
        )
        .unwrap(),
    );
    assert_eq!(asset.num_machines(), 2);
    let inner = asset.machine_id("Outer").unwrap();
    let mut g = GraphInstance::new(asset.clone());
    let mut pose = Pose::rest(asset.skeleton());
    g.tick(DT, &mut pose).unwrap();
    // Both machines report their initial states on the first tick.
    let entered = g
        .events()
        .iter()
        .filter(|e| matches!(e, GraphEvent::StateEntered { .. }))
        .count();
    assert_eq!(entered, 2);
    set_bool(&mut g, "go_b", true);
    g.tick(DT, &mut pose).unwrap();
    g.tick(DT, &mut pose).unwrap();
    assert_eq!(g.current_state(inner), asset.state_id(inner, "B"));
    assert!((hips_x(&pose) - 1.0).abs() < 1e-6);
    set_bool(&mut g, "go_c", true);
    g.tick(DT, &mut pose).unwrap();
    g.tick(DT, &mut pose).unwrap();
    assert!((hips_x(&pose) - 2.0).abs() < 1e-6);
    // Re-entering Outer restarts the sub-graph at its initial state.
    set_bool(&mut g, "go_c", false);
    set_bool(&mut g, "go_b", false);
    let outer = asset.state_id(MachineId(0), "Outer").unwrap();
    g.travel(MachineId(0), outer, 0.0);
    g.tick(DT, &mut pose).unwrap();
    g.tick(DT, &mut pose).unwrap();
    assert_eq!(g.current_state(inner), asset.state_id(inner, "A"));
}

#[test]
fn curve_rises_are_found_once_and_read_ahead_with_wrap() {
    // A 2 s loop in contact over [0.3, 0.7] s and [1.3, 1.7] s (phases 0.15 and 0.65 up),
    // and the same curve on a one-shot clip.
    let contact = || crate::clip::FloatCurve {
        name: "FootContact_R".into(),
        track: Track::linear([
            (0.0, 0.0),
            (0.2, 0.0),
            (0.4, 1.0),
            (0.6, 1.0),
            (0.8, 0.0),
            (1.2, 0.0),
            (1.4, 1.0),
            (1.6, 1.0),
            (1.8, 0.0),
            (2.0, 0.0),
        ])
        .unwrap(),
    };
    let mut clips = clips();
    clips.push(hold("Walk", 0.0, 0.0, 2.0).with_curve(contact()).unwrap());
    clips.push(
        hold("Stop", 0.0, 0.0, 2.0)
            .with_looping(false)
            .with_curve(contact())
            .unwrap(),
    );
    let src = format!(
        r#"GraphDef({PARAMS} base: StateMachine((initial: "A", states: [(name: "A", node: Clip(clip: "A")), (name: "W", node: Clip(clip: "Walk")), (name: "S", node: Clip(clip: "Stop"))], transitions: [])))"#
    );
    let asset = GraphAsset::from_ron(&src, &rig(), clips).unwrap();
    let id = asset.curve_id("FootContact_R").unwrap();
    let walk = asset
        .clips()
        .iter()
        .position(|c| c.name() == "Walk")
        .unwrap();
    let stop = asset
        .clips()
        .iter()
        .position(|c| c.name() == "Stop")
        .unwrap();
    let close = |a: Option<f32>, b: f32| a.is_some_and(|a| (a - b).abs() < 1e-3);
    assert!(close(asset.phase_to_curve_rise(walk, id, 0.0), 0.15));
    assert!(close(asset.phase_to_curve_rise(walk, id, 0.4), 0.25));
    // Past the last rise of a loop: the first one, one cycle on.
    assert!(close(asset.phase_to_curve_rise(walk, id, 0.9), 0.25));
    // A one-shot clip does not wrap.
    assert!(close(asset.phase_to_curve_rise(stop, id, 0.4), 0.25));
    assert_eq!(asset.phase_to_curve_rise(stop, id, 0.9), None);
    // No such curve on the clip, no such clip, no phase.
    let b = asset.clips().iter().position(|c| c.name() == "B").unwrap();
    assert_eq!(asset.phase_to_curve_rise(b, id, 0.1), None);
    assert_eq!(asset.phase_to_curve_rise(99, id, 0.1), None);
    assert_eq!(asset.phase_to_curve_rise(walk, id, f32::NAN), None);
}

#[test]
fn a_synced_blend_leaving_rest_starts_at_its_start_phase() {
    // "Rest" has no authored speed; "Go" moves at 1 m/s. Both 1 s long.
    let mut clips = clips();
    clips.push(hold("Rest", 0.0, 0.0, 1.0));
    clips.push(moving("Go", 1.0));
    let graph = |start: &str| {
        let src = format!(
            r#"GraphDef({PARAMS} base: BlendSpace1D(param: "w", samples: [(clip: "Rest", position: 0.0), (clip: "Go", position: 1.0)], options: (sync: true, start_phase: {start})))"#
        );
        GraphAsset::from_ron(&src, &rig(), clips.clone())
    };
    let asset = Arc::new(graph("Some(0.3)").unwrap());
    let go = asset.clips().iter().position(|c| c.name() == "Go").unwrap();
    let w = asset.params().float("w").unwrap();
    let mut g = GraphInstance::new(asset.clone());
    let mut pose = Pose::rest(asset.skeleton());
    let phase = |g: &GraphInstance| g.sampled_clips()[0].normalized_time;
    // At rest the phase runs on (0.1 s per tick of a 1 s cycle).
    for _ in 0..5 {
        g.tick(0.1, &mut pose).unwrap();
    }
    assert!((phase(&g) - 0.5).abs() < 1e-4, "{}", phase(&g));
    // Leaving rest: the phase jumps to 0.3, then runs on.
    g.params_mut().set_float(w, 0.5);
    g.tick(0.1, &mut pose).unwrap();
    let moving = g.sampled_clips().iter().find(|s| s.clip == go).unwrap();
    assert!((moving.normalized_time - 0.4).abs() < 1e-3, "{moving:?}");
    // Already moving: no jump.
    g.params_mut().set_float(w, 1.0);
    g.tick(0.1, &mut pose).unwrap();
    assert!((phase(&g) - 0.5).abs() < 0.05, "{}", phase(&g));
    // Out of range is refused at load.
    let err = graph("Some(1.5)").unwrap_err();
    assert!(err.to_string().contains("start_phase"), "{err}");
}

#[test]
fn a_leading_sample_can_start_the_gait_at_its_own_phase() {
    // Direction `x` (-1 right, +1 left) by speed `y`: rest along y = 0, "Left" and "Right"
    // (1 s each, moving) at y = 1. "Left" starts at 0.6; "Right" has no start phase of its
    // own (the blend's 0.3 applies). The direction is smoothed over a second, so leaving
    // rest toward the left the blend position still points right: the sample the blend
    // heads for is read at the parameters.
    let mut clips = clips();
    clips.push(hold("Rest", 0.0, 0.0, 1.0));
    clips.push(moving("Left", 1.0));
    clips.push(moving("Right", -1.0));
    let graph = |left_start: &str| {
        let src = format!(
            r#"GraphDef(parameters: [Float("x", -1.0), Float("y", 0.0)], base: BlendSpace2D(x_param: "x", y_param: "y", samples: [(clip: "Rest", position: (-1.0, 0.0)), (clip: "Rest", position: (1.0, 0.0)), (clip: "Right", position: (-1.0, 1.0)), (clip: "Left", position: (1.0, 1.0), start_phase: {left_start})], options: (sync: true, start_phase: Some(0.3), smoothing_up_s: (1.0, 0.0), smoothing_down_s: (1.0, 0.0))))"#
        );
        GraphAsset::from_ron(&src, &rig(), clips.clone())
    };
    let asset = Arc::new(graph("Some(0.6)").unwrap());
    let (x, y) = (
        asset.params().float("x").unwrap(),
        asset.params().float("y").unwrap(),
    );
    // Mostly one way but not quite, slowly: whichever way the rest corner is split into
    // triangles, the start phase follows the direction.
    for (toward, speed, expected) in [
        (1.0, 0.5, 0.6),
        (-1.0, 0.5, 0.3),
        (0.6, 0.1, 0.6),
        (-0.6, 0.1, 0.3),
    ] {
        let mut g = GraphInstance::new(asset.clone());
        let mut pose = Pose::rest(asset.skeleton());
        for _ in 0..3 {
            g.tick(0.1, &mut pose).unwrap();
        }
        g.params_mut().set_float(x, toward);
        g.params_mut().set_float(y, speed);
        g.tick(0.1, &mut pose).unwrap();
        let moving = g
            .sampled_clips()
            .iter()
            .find(|s| asset.clips()[s.clip].authored_speed_m_s().unwrap_or(0.0) > 0.0)
            .unwrap();
        assert!(
            (moving.normalized_time - (expected + 0.1)).abs() < 1e-3,
            "toward {toward} at {speed}: {moving:?}"
        );
    }
    let err = graph("Some(1.2)").unwrap_err();
    assert!(err.to_string().contains("start_phase"), "{err}");
}

#[test]
fn a_transition_can_enter_a_synced_blend_at_a_given_phase() {
    // "Air" is a clip; "Run" a synced blend already moving when entered, as on a landing.
    let mut clips = clips();
    clips.push(hold("Air", 0.0, 0.0, 1.0));
    clips.push(moving("Go", 1.0));
    let graph = |start: &str| {
        let src = format!(
            r#"GraphDef({PARAMS} base: StateMachine((initial: "Air", states: [(name: "Air", node: Clip(clip: "Air")), (name: "Run", node: BlendSpace1D(param: "w", samples: [(clip: "Go", position: 1.0)], options: (sync: true, start_phase: Some(0.3))))], transitions: [(from: "Air", to: "Run", condition: Some("go_b"), duration_s: 0.0, start_phase: {start})])))"#
        );
        GraphAsset::from_ron(&src, &rig(), clips.clone())
    };
    for (start, expected) in [("Some(0.75)", 0.75), ("None", 0.3)] {
        let asset = Arc::new(graph(start).unwrap());
        let mut g = GraphInstance::new(asset.clone());
        let mut pose = Pose::rest(asset.skeleton());
        g.tick(0.1, &mut pose).unwrap();
        let go = asset.params().bool("go_b").unwrap();
        g.params_mut().set_bool(go, true);
        let w = asset.params().float("w").unwrap();
        g.params_mut().set_float(w, 1.0);
        // The transition fires this tick; the blend runs from the next.
        g.tick(0.1, &mut pose).unwrap();
        g.tick(0.1, &mut pose).unwrap();
        let phase = g.sampled_clips()[0].normalized_time;
        assert!(
            (phase - (expected + 0.1)).abs() < 1e-3,
            "{start}: {phase} (sampled {:?})",
            g.sampled_clips()
        );
    }
    let err = graph("Some(-0.2)").unwrap_err();
    assert!(err.to_string().contains("start_phase"), "{err}");
}

#[test]
fn a_transition_can_carry_the_phase_from_one_synced_blend_to_another() {
    // Two gaits in step (both 1 s cycles); switching keeps the phase with inherit_phase.
    let mut clips = clips();
    clips.push(moving("Walk", 1.0));
    clips.push(moving("Sneak", 2.0));
    let graph = |inherit: bool| {
        let src = format!(
            r#"GraphDef({PARAMS} base: StateMachine((initial: "Walk", states: [(name: "Walk", node: BlendSpace1D(param: "w", samples: [(clip: "Walk", position: 1.0)], options: (sync: true))), (name: "Sneak", node: BlendSpace1D(param: "w", samples: [(clip: "Sneak", position: 1.0)], options: (sync: true)))], transitions: [(from: "Walk", to: "Sneak", condition: Some("go_b"), duration_s: 0.0, inherit_phase: {inherit})])))"#
        );
        Arc::new(GraphAsset::from_ron(&src, &rig(), clips.clone()).unwrap())
    };
    // Seven ticks of 0.1 s in Walk (the last fires the transition), one in Sneak: the
    // phase runs on to 0.8 when inherited, restarts (0.1) when not.
    for (inherit, expected) in [(true, 0.8), (false, 0.1)] {
        let asset = graph(inherit);
        let mut g = GraphInstance::new(asset.clone());
        let mut pose = Pose::rest(asset.skeleton());
        let w = asset.params().float("w").unwrap();
        g.params_mut().set_float(w, 1.0);
        for _ in 0..6 {
            g.tick(0.1, &mut pose).unwrap();
        }
        let go = asset.params().bool("go_b").unwrap();
        g.params_mut().set_bool(go, true);
        g.tick(0.1, &mut pose).unwrap();
        g.tick(0.1, &mut pose).unwrap();
        let phase = g.sampled_clips()[0].normalized_time;
        assert!(
            (phase - expected).abs() < 0.02,
            "inherit {inherit}: {phase} ({:?})",
            g.sampled_clips()
        );
    }
}

/// Joint culling's list: a joint out of range or the root-motion joint is refused with
/// nothing changed; a culled joint is given its rest transform while culling is on.
#[test]
fn culled_joints_are_checked_and_sample_as_rest_while_culling() {
    let asset = Arc::new(crate::mannequin::Mannequin::new().default_graph().unwrap());
    let mut g = GraphInstance::new(Arc::clone(&asset));
    let joints = asset.skeleton().num_joints();
    let finger = asset.skeleton().find("index_01_l").unwrap();
    assert!(matches!(
        g.set_culled_joints(&[finger, joints]),
        Err(GraphError::CulledJointOutOfRange { .. })
    ));
    let root = g.root_motion_joint();
    assert!(matches!(
        g.set_culled_joints(&[root]),
        Err(GraphError::CulledRootMotionJoint { .. })
    ));
    assert!(g.culled_joints().is_empty(), "nothing changed");
    g.set_culled_joints(&[finger]).unwrap();
    assert!(g.culled_joints()[finger] && g.culled_joints().iter().filter(|c| **c).count() == 1);
    let mut pose = crate::pose::Pose::rest(asset.skeleton());
    g.tick(1.0 / 60.0, &mut pose).unwrap();
    let animated = pose.local()[finger];
    assert_ne!(
        animated,
        asset.skeleton().rest_local()[finger],
        "the idle curls it"
    );
    g.set_culling(true);
    g.tick(1.0 / 60.0, &mut pose).unwrap();
    assert_eq!(pose.local()[finger], asset.skeleton().rest_local()[finger]);
    g.set_culled_joints(&[]).unwrap();
    g.tick(1.0 / 60.0, &mut pose).unwrap();
    assert_ne!(pose.local()[finger], asset.skeleton().rest_local()[finger]);
}

#[test]
fn a_synced_blend_lines_up_gaits_whose_cycles_start_at_different_points_of_the_stride() {
    // "Early" puts its left foot down at phase 0 of its 1 s cycle; "Late" at phase 0.245
    // of its 2 s cycle (a third-party clip exported from another point of the stride), as
    // their sync markers say. Each foot is planted for half the cycle, the right half a
    // cycle after the left, as 0/1 curves with short ramps.
    let contact = |name: &str, keys: &[(f32, f32)]| crate::clip::FloatCurve {
        name: name.into(),
        track: Track::linear(keys.iter().copied()).unwrap(),
    };
    let half_and_half = |name: &str, duration_s: f32, planted_first: bool| {
        let (a, b) = if planted_first {
            (1.0, 0.0)
        } else {
            (0.0, 1.0)
        };
        let ramp = 0.01 * duration_s;
        let half = 0.5 * duration_s;
        contact(
            name,
            &[
                (0.0, a),
                (half - ramp, a),
                (half, b),
                (duration_s - ramp, b),
                (duration_s, a),
            ],
        )
    };
    let shifted = |name: &str, planted_first: bool| {
        // Late: the change half-way into each half (at 0.25 and 0.75 of the cycle).
        let (a, b) = if planted_first {
            (1.0, 0.0)
        } else {
            (0.0, 1.0)
        };
        contact(
            name,
            &[(0.0, a), (0.48, a), (0.5, b), (1.48, b), (1.5, a), (2.0, a)],
        )
    };
    let early = moving("Early", 0.0)
        .with_left_foot_down_phase(0.0)
        .unwrap()
        .with_curve(half_and_half("FootContact_L", 1.0, true))
        .unwrap()
        .with_curve(half_and_half("FootContact_R", 1.0, false))
        .unwrap();
    let late = hold("Late", 1.0, 0.0, 2.0)
        .with_authored_velocity(Vec3::Z)
        .unwrap()
        .with_left_foot_down_phase(0.245)
        .unwrap()
        .with_curve(shifted("FootContact_L", false))
        .unwrap()
        .with_curve(shifted("FootContact_R", true))
        .unwrap();
    let mut clips = clips();
    clips.extend([early, late]);
    let src = format!(
        r#"GraphDef({PARAMS} base: BlendSpace1D(param: "w", samples: [(clip: "Early", position: 0.0), (clip: "Late", position: 1.0)], options: (sync: true)))"#
    );
    let asset = Arc::new(GraphAsset::from_ron(&src, &rig(), clips).unwrap());
    let contact_id = asset.curve_id("FootContact_L").unwrap();
    let w = asset.params().float("w").unwrap();
    let mut g = GraphInstance::new(asset.clone());
    g.params_mut().set_float(w, 0.5);
    let mut pose = Pose::rest(asset.skeleton());
    let (mut down, mut up, mut mixed) = (0, 0, 0);
    for _ in 0..240 {
        g.tick(DT, &mut pose).unwrap();
        let sampled = g.sampled_clips();
        assert_eq!(sampled.len(), 2, "{sampled:?}");
        // Each clip at the shared phase plus its touch-down phase.
        let phase_gap = (sampled[1].normalized_time - sampled[0].normalized_time).rem_euclid(1.0);
        assert!((phase_gap - 0.245).abs() < 1e-3, "{sampled:?}");
        match g.curve(contact_id) {
            c if c > 0.99 => down += 1,
            c if c < 0.01 => up += 1,
            _ => mixed += 1,
        }
    }
    // The feet go down and up together: the blended contact is 0 or 1 but on the ramps.
    assert!(down > 100 && up > 100 && mixed <= 8, "{down} {up} {mixed}");
}
