//! Role maps from RON, clip speeds as measured, and graphs generated on the mannequin's
//! clips: they compile, name what is missing and drive a character.

use std::sync::Arc;

use glam::Vec3;

use super::*;
use crate::clip::{JointTracks, Track};
use crate::graph::def::NodeDef;
use crate::graph::GraphAsset;
use crate::mannequin::Mannequin;
use crate::Clip;

/// The mannequin's clips in every role.
const MANNEQUIN_ROLES: &str = r#"
// Every role, some written with Some(...), some plainly.
ClipRoles(
    idle: "Idle",
    walk_forward: "Walk_F",
    run_forward: Some("Run_F"),
    sprint_forward: "Sprint",
    walk_back: "Walk_B",
    run_back: "Run_B",
    walk_left: "Walk_L",
    walk_right: "Walk_R",
    run_left: "Run_L_HipsFwd",
    run_right: "Run_R_HipsFwd",
    crouch_idle: "Crouch_Idle",
    crouch_walk: "Crouch_Walk_F",
    jump_start: "Jump_Start",
    jump_loop: "Jump_Fall",
    jump_land: "Land_Light",
    jump_land_heavy: "Land_Heavy",
    aim: "Aim",
    push_wall: "Push_Wall",
)
"#;

/// The clip with its motion and curves but no authored velocity: a third-party clip.
fn without_velocity(clip: &Clip) -> Clip {
    clip.clone().without_authored_velocity()
}

/// Where `generated` places `role`'s clip on the speed axis (m/s).
fn placed_at(generated: &GeneratedGraph, role: Role) -> f32 {
    generated
        .speeds
        .iter()
        .find(|s| s.role == role)
        .unwrap()
        .speed_m_s
}

fn locomotion_samples(def: &crate::graph::GraphDef) -> Vec<(String, (f32, f32))> {
    let NodeDef::StateMachine(machine) = &def.base else {
        panic!("the base is a state machine");
    };
    let NodeDef::BlendSpace2D { samples, .. } = &machine.states[0].node else {
        panic!("Locomotion is a 2D blend space");
    };
    samples
        .iter()
        .map(|s| (s.clip.clone(), s.position))
        .collect()
}

#[test]
fn a_role_file_parses_both_ways_of_naming_a_clip() {
    let roles = ClipRoles::from_ron(MANNEQUIN_ROLES).unwrap();
    assert_eq!(roles.idle.as_deref(), Some("Idle"));
    assert_eq!(roles.run_forward.as_deref(), Some("Run_F"));
    assert_eq!(roles.clip(Role::JumpLoop), Some("Jump_Fall"));
    assert_eq!(roles.aim_mask, None);
    // Left out and None are the same; a bare (...) is accepted too.
    let short =
        ClipRoles::from_ron("(idle: \"Idle\", walk_forward: \"Walk_F\", aim: None)").unwrap();
    assert_eq!(short.aim, None);
    assert_eq!(short.run_forward, None);
    let masked = ClipRoles::from_ron(
        "(idle: \"Idle\", run_forward: \"Run_F\", aim_mask: [(\"spine_01\", 0.5)])",
    )
    .unwrap();
    assert_eq!(masked.aim_mask, Some(vec![("spine_01".to_string(), 0.5)]));
}

#[test]
fn an_unknown_field_or_bad_syntax_names_its_line_and_column() {
    let typo = "ClipRoles(\n    idle: \"Idle\",\n    walk_foward: \"Walk_F\",\n)";
    let err = ClipRoles::from_ron(typo).unwrap_err();
    let RolesLoadError::Parse { line, col, message } = &err else {
        panic!("a parse error: {err}");
    };
    assert_eq!(*line, 3, "{err}");
    assert!(*col >= 5, "{err}");
    assert!(message.contains("walk_foward"), "{err}");
    assert!(err.to_string().starts_with("roles line 3, column"), "{err}");

    let unclosed = "ClipRoles(\n    idle: \"Idle\",\n    walk_forward: \"Walk_F\n";
    let err = ClipRoles::from_ron(unclosed).unwrap_err();
    assert!(
        matches!(err, RolesLoadError::Parse { line, .. } if line >= 3),
        "{err}"
    );
    let wrong_type = "(idle: 3)";
    assert!(matches!(
        ClipRoles::from_ron(wrong_type),
        Err(RolesLoadError::Parse { line: 1, .. })
    ));
}

#[test]
fn a_role_map_needs_an_idle_and_a_forward_gait() {
    assert_eq!(
        ClipRoles::from_ron("(walk_forward: \"Walk_F\")"),
        Err(RolesLoadError::Invalid(RolesError::NoIdle))
    );
    assert_eq!(
        ClipRoles::from_ron("(idle: \"Idle\", walk_back: \"Walk_B\")"),
        Err(RolesLoadError::Invalid(RolesError::NoForwardGait))
    );
    assert_eq!(
        ClipRoles::from_ron("(idle: \"Idle\", sprint_forward: \"  \")"),
        Err(RolesLoadError::Invalid(RolesError::EmptyName {
            role: Role::SprintForward
        }))
    );
    assert!(matches!(
        ClipRoles::from_ron("(idle: \"Idle\", walk_forward: \"W\", aim_mask: [(\"a\", 1.5)])"),
        Err(RolesLoadError::Invalid(RolesError::BadMaskWeight { .. }))
    ));
    // Only an idle and a sprint is enough.
    assert!(ClipRoles::from_ron("(idle: \"Idle\", sprint_forward: \"Sprint\")").is_ok());
}

#[test]
fn speeds_are_measured_from_root_travel_and_from_the_planted_foot() {
    let m = Mannequin::new();
    let walk = m.clip("Walk_F").unwrap();
    let authored = walk.authored_velocity_model_m_s().unwrap();

    let measured = measure_clip_speed(&m.skeleton, &m.bones, walk).unwrap();
    assert_eq!(measured.source, SpeedSource::Authored);
    assert_eq!(measured.speed_m_s, authored.length());

    // In place without a velocity: the planted foot slides back at the walk's speed.
    let in_place = without_velocity(walk);
    let measured = measure_clip_speed(&m.skeleton, &m.bones, &in_place).unwrap();
    assert_eq!(measured.source, SpeedSource::PlantedFoot);
    assert!(
        (measured.speed_m_s - authored.length()).abs() < 0.05 * authored.length(),
        "{measured:?} against {authored}"
    );
    assert!(measured.direction_deg().abs() < 10.0, "{measured:?}");

    // The same motion carried by the root joint: root travel, exactly.
    let root = 0;
    let rest = m.skeleton.rest_local()[root].translation;
    let d = walk.duration_s();
    let mut tracks: Vec<JointTracks> = walk.joint_tracks().to_vec();
    assert!(
        tracks[root].translation.is_none(),
        "the mannequin's root is still"
    );
    tracks[root].translation =
        Some(Track::linear([(0.0, rest), (d, rest + authored * d)]).unwrap());
    let travelling = Clip::new("Walk_F_root", Some(d), tracks).unwrap();
    let measured = measure_clip_speed(&m.skeleton, &m.bones, &travelling).unwrap();
    assert_eq!(
        measured.source,
        SpeedSource::RootTravel {
            joint: m.skeleton.name(root).to_string()
        }
    );
    assert!((measured.speed_m_s - authored.length()).abs() < 1e-3);

    // Standing still: no travel, no slide.
    let idle = without_velocity(m.clip("Idle").unwrap());
    let still = measure_clip_speed(&m.skeleton, &m.bones, &idle);
    assert!(
        still
            .as_ref()
            .map_or(true, |s| s.speed_m_s < MIN_GAIT_SPEED_M_S),
        "{still:?}"
    );
}

#[test]
fn every_role_of_the_mannequin_makes_a_graph_that_loads() {
    let m = Mannequin::new();
    let roles = ClipRoles::from_ron(MANNEQUIN_ROLES).unwrap();
    let generated = generate_graph(&roles, &m.skeleton, &m.bones, &m.clips).unwrap();
    assert!(generated.missing.is_empty(), "{:?}", generated.missing);
    assert!(generated.warnings.is_empty(), "{:?}", generated.warnings);
    // Authored clips: placed at their authored speeds, exactly (to the centimetre).
    for s in &generated.speeds {
        let authored = m.clip(&s.clip).unwrap().authored_speed_m_s().unwrap();
        assert_eq!(
            s.measured.as_ref().map(|m| &m.source),
            Some(&SpeedSource::Authored)
        );
        assert!((s.speed_m_s - authored).abs() <= 0.005, "{s:?}");
    }
    // Both ways in: the definition, and the RON it writes.
    GraphAsset::from_def(&generated.def, &m.skeleton, m.clips.clone()).unwrap();
    let ron = generated.to_ron();
    let asset = GraphAsset::from_ron(&ron, &m.skeleton, m.clips.clone())
        .unwrap_or_else(|e| panic!("{e}\n{ron}"));
    let base = crate::graph::MachineId(0);
    let states: Vec<&str> = asset.state_names(base).collect();
    assert_eq!(
        states,
        ["Locomotion", "Crouch", "Jump", "Land", "Push_Wall"]
    );
    assert_eq!(asset.layer_names().collect::<Vec<_>>(), ["Aim"]);
    // The mannequin's aim mask, from its bone map: the default graph's.
    let aim = &generated.def.layers[0];
    assert_eq!(
        aim.mask,
        [
            ("spine_01".to_string(), 0.3),
            ("spine_02".to_string(), 0.6),
            ("spine_03".to_string(), 0.9),
            ("neck_01".to_string(), 1.0),
            ("clavicle_l".to_string(), 1.0),
            ("clavicle_r".to_string(), 1.0),
        ]
    );
    // Strafes and backpedals at their own directions, back at both ends.
    let samples = locomotion_samples(&generated.def);
    let at = |clip: &str| -> Vec<f32> {
        samples
            .iter()
            .filter(|(c, _)| c == clip)
            .map(|(_, p)| p.0)
            .collect()
    };
    assert_eq!(at("Walk_L"), [90.0]);
    assert_eq!(at("Run_R_HipsFwd"), [-90.0]);
    assert_eq!(at("Walk_B"), [-180.0, 180.0]);
    assert_eq!(at("Sprint"), [0.0]);
    assert_eq!(at("Idle"), [-180.0, -90.0, 0.0, 90.0, 180.0]);
}

#[test]
fn measured_speeds_of_in_place_clips_are_near_the_authored_ones() {
    let m = Mannequin::new();
    let clips: Vec<Clip> = m.clips.iter().map(without_velocity).collect();
    let roles = ClipRoles::from_ron(MANNEQUIN_ROLES).unwrap();
    let generated = generate_graph(&roles, &m.skeleton, &m.bones, &clips).unwrap();
    assert!(generated.warnings.is_empty(), "{:?}", generated.warnings);
    assert_eq!(
        generated.speeds.len(),
        10,
        "every gait: {:?}",
        generated.speeds
    );
    for s in &generated.speeds {
        let authored = m
            .clip(&s.clip)
            .unwrap()
            .authored_velocity_model_m_s()
            .unwrap();
        let measured = s.measured.as_ref().unwrap();
        assert_eq!(measured.source, SpeedSource::PlantedFoot, "{s:?}");
        assert!(s.fallback.is_none(), "{s:?}");
        assert!(
            (s.speed_m_s - authored.length()).abs() <= 0.05 * authored.length(),
            "{} measured {:.3} m/s, authored {:.3}",
            s.role,
            s.speed_m_s,
            authored.length()
        );
        let heading = authored.x.atan2(authored.z).to_degrees();
        let off = crate::math::wrap_angle((measured.direction_deg() - heading).to_radians());
        assert!(off.to_degrees().abs() < 10.0, "{s:?} against {authored}");
    }
    // No authored speeds to scale by: playback is not matched to speed.
    let NodeDef::StateMachine(machine) = &generated.def.base else {
        unreachable!()
    };
    let NodeDef::BlendSpace2D { options, .. } = &machine.states[0].node else {
        unreachable!()
    };
    assert_eq!(options.match_speed_param, None);
    GraphAsset::from_ron(&generated.to_ron(), &m.skeleton, clips).unwrap();
}

#[test]
fn missing_roles_are_named_and_forward_gaits_fill_every_direction() {
    let m = Mannequin::new();
    let roles = ClipRoles::from_ron("(idle: \"Idle\", walk_forward: \"Walk_F\")").unwrap();
    let generated = generate_graph(&roles, &m.skeleton, &m.bones, &m.clips).unwrap();
    let missing: Vec<Role> = generated.missing.iter().map(|r| r.role).collect();
    for role in Role::ALL {
        let given = matches!(role, Role::Idle | Role::WalkForward);
        assert_eq!(
            missing.contains(&role),
            !given,
            "{role}: {:?}",
            generated.missing
        );
    }
    let walk_left = generated
        .missing
        .iter()
        .find(|r| r.role == Role::WalkLeft)
        .unwrap();
    assert_eq!(walk_left.instead, Some(Role::WalkForward));
    assert!(
        walk_left.to_string().starts_with("walk_left: "),
        "{walk_left}"
    );
    // The walk plays in every direction; nothing else but Locomotion.
    let samples = locomotion_samples(&generated.def);
    let walk: Vec<(f32, f32)> = samples
        .iter()
        .filter(|(c, _)| c == "Walk_F")
        .map(|(_, p)| *p)
        .collect();
    assert_eq!(
        walk.iter().map(|p| p.0).collect::<Vec<_>>(),
        [0.0, 90.0, -90.0, -180.0, 180.0]
    );
    assert!(walk.iter().all(|p| (p.1 - 1.75).abs() < 0.01), "{walk:?}");
    let asset = GraphAsset::from_ron(&generated.to_ron(), &m.skeleton, m.clips.clone()).unwrap();
    let base = crate::graph::MachineId(0);
    assert_eq!(asset.state_names(base).collect::<Vec<_>>(), ["Locomotion"]);
    assert_eq!(asset.layer_names().count(), 0);

    // A run strafe but no walk strafe: the walk borrows it, placed once at its own speed.
    let roles = ClipRoles {
        run_forward: Some("Run_F".into()),
        run_left: Some("Run_L_HipsFwd".into()),
        ..roles
    };
    let generated = generate_graph(&roles, &m.skeleton, &m.bones, &m.clips).unwrap();
    let walk_left = generated
        .missing
        .iter()
        .find(|r| r.role == Role::WalkLeft)
        .unwrap();
    assert_eq!(walk_left.instead, Some(Role::RunLeft));
    let samples = locomotion_samples(&generated.def);
    assert_eq!(
        samples.iter().filter(|(c, _)| c == "Run_L_HipsFwd").count(),
        1
    );
    // Right has no strafe at all: the forward gaits play there.
    assert!(
        samples.contains(&("Run_F".into(), (-90.0, 3.75))),
        "{samples:?}"
    );
}

#[test]
fn an_unknown_clip_or_mask_joint_is_an_error_with_a_hint() {
    let m = Mannequin::new();
    let roles = ClipRoles::from_ron("(idle: \"Idle\", walk_forward: \"walk_f\")").unwrap();
    let err = generate_graph(&roles, &m.skeleton, &m.bones, &m.clips).unwrap_err();
    let GenerateError::UnknownClip { role, clip, close } = &err else {
        panic!("{err}");
    };
    assert_eq!((*role, clip.as_str()), (Role::WalkForward, "walk_f"));
    assert!(close.contains(&"Walk_F".to_string()), "{err}");
    assert!(err.to_string().contains("did you mean"), "{err}");

    let roles = ClipRoles::from_ron(
        "(idle: \"Idle\", walk_forward: \"Walk_F\", aim: \"Aim\", aim_mask: [(\"chest\", 1.0)])",
    )
    .unwrap();
    assert_eq!(
        generate_graph(&roles, &m.skeleton, &m.bones, &m.clips),
        Err(GenerateError::UnknownMaskJoint("chest".into()))
    );
}

#[test]
fn a_generated_graph_runs_a_character_without_nan() {
    use crate::character::Character;
    use crate::motion::{CharacterConfig, Intent};
    use crate::world::testing::HeightWorld;

    let m = Mannequin::new();
    // In-place clips, as a third-party rig has them.
    let clips: Vec<Clip> = m.clips.iter().map(without_velocity).collect();
    let roles = ClipRoles::from_ron(MANNEQUIN_ROLES).unwrap();
    let generated = generate_graph(&roles, &m.skeleton, &m.bones, &clips).unwrap();
    let graph = Arc::new(GraphAsset::from_ron(&generated.to_ron(), &m.skeleton, clips).unwrap());
    let world = HeightWorld::new(|_, _| Some((0.0, Vec3::Y)));
    let mut c = Character::new(CharacterConfig::default(), graph, Vec3::ZERO, 0.0).unwrap();
    let run = Intent {
        move_world: glam::Vec2::new(0.0, 1.0),
        ..Default::default()
    };
    let jump = Intent { jump: true, ..run };
    for tick in 0..240 {
        let intent = if tick == 150 { &jump } else { &run };
        c.tick(1.0 / 60.0, intent, &world).unwrap();
        assert!(
            c.pose()
                .local()
                .iter()
                .all(|t| t.translation.is_finite() && t.rotation.is_finite()),
            "tick {tick}: a non-finite pose"
        );
        assert!(c.feet_world().is_finite(), "tick {tick}");
    }
    assert!(c.feet_world().z > 6.0, "it ran: {}", c.feet_world());
}

#[test]
fn a_gait_that_cannot_be_measured_falls_back_to_its_typical_speed_and_says_why() {
    let m = Mannequin::new();
    // A "walk" that stands still, and a sprint that is the only other gait.
    let roles = ClipRoles::from_ron(
        "(idle: \"Idle\", walk_forward: \"Crouch_Idle\", sprint_forward: \"Sprint\")",
    )
    .unwrap();
    let generated = generate_graph(&roles, &m.skeleton, &m.bones, &m.clips).unwrap();
    let walk = generated
        .speeds
        .iter()
        .find(|s| s.role == Role::WalkForward)
        .unwrap();
    assert_eq!(walk.speed_m_s, typical_speed_m_s(Role::WalkForward));
    let why = walk.fallback.as_deref().unwrap();
    assert!(why.contains("steps on the spot"), "{why}");
    assert!(generated.to_ron().contains("typical speed, not measured"));
    GraphAsset::from_ron(&generated.to_ron(), &m.skeleton, m.clips.clone()).unwrap();

    // Idle and a sprint alone: every sample on one line, still a graph.
    let roles = ClipRoles::from_ron("(idle: \"Idle\", sprint_forward: \"Sprint\")").unwrap();
    let generated = generate_graph(&roles, &m.skeleton, &m.bones, &m.clips).unwrap();
    assert_eq!(locomotion_samples(&generated.def).len(), 2);
    GraphAsset::from_def(&generated.def, &m.skeleton, m.clips.clone()).unwrap();
}

#[test]
fn placed_at_the_characters_gait_speeds_a_slower_clip_plays_faster_to_match() {
    // Third-party clips (no authored speeds) for a character that walks twice as fast
    // as its walk clip and runs slower than its run clip.
    let m = Mannequin::new();
    let clips: Vec<Clip> = m.clips.iter().map(without_velocity).collect();
    let roles =
        ClipRoles::from_ron("(idle: \"Idle\", walk_forward: \"Walk_F\", run_forward: \"Run_F\")")
            .unwrap();
    let walk_clip_m_s = m.clip("Walk_F").unwrap().authored_speed_m_s().unwrap();
    let run_clip_m_s = m.clip("Run_F").unwrap().authored_speed_m_s().unwrap();
    let speeds = GaitSpeeds {
        walk_m_s: 2.0 * walk_clip_m_s,
        run_m_s: 0.8 * run_clip_m_s,
        sprint_m_s: 6.0,
        crouch_m_s: 1.0,
    };
    let generated = generate_graph_at(&roles, &m.skeleton, &m.bones, &clips, Some(speeds)).unwrap();
    let placed = |role: Role| placed_at(&generated, role);
    // The walk sits where the character walks; the run, measured faster than the
    // character runs, keeps its own place.
    assert!((placed(Role::WalkForward) - 2.0 * walk_clip_m_s).abs() < 0.01);
    assert!((placed(Role::RunForward) - run_clip_m_s).abs() < 0.05 * run_clip_m_s);
    let NodeDef::StateMachine(machine) = &generated.def.base else {
        unreachable!()
    };
    let NodeDef::BlendSpace2D { options, .. } = &machine.states[0].node else {
        unreachable!()
    };
    assert_eq!(options.match_speed_param.as_deref(), Some("speed"));
    // The measured speeds become the clips' authored ones, which the playback rate reads;
    // clips that are not gaits get none.
    let clips = generated.clips_with_measured_speeds(clips);
    let authored = |name: &str| {
        clips
            .iter()
            .find(|c| c.name() == name)
            .unwrap()
            .authored_speed_m_s()
    };
    let walk = authored("Walk_F").unwrap();
    assert!(
        (walk - walk_clip_m_s).abs() < 0.05 * walk_clip_m_s,
        "{walk}"
    );
    assert!(authored("Idle").is_none());
    // Walking at the character's walk speed, the walk clip plays twice as fast: its
    // phase goes round in half its duration.
    let asset = Arc::new(GraphAsset::from_def(&generated.def, &m.skeleton, clips).unwrap());
    let mut graph = crate::graph::GraphInstance::new(asset.clone());
    let speed = graph.params_mut().float("speed").unwrap();
    graph.params_mut().set_float(speed, speeds.walk_m_s);
    let mut pose = crate::pose::Pose::rest(&m.skeleton);
    let dt = 1.0 / 60.0;
    for _ in 0..60 {
        graph.tick(dt, &mut pose).unwrap();
    }
    let walk_id = asset
        .clips()
        .iter()
        .position(|c| c.name() == "Walk_F")
        .unwrap();
    let phase = |g: &crate::graph::GraphInstance| {
        g.sampled_clips()
            .iter()
            .find(|s| s.clip == walk_id)
            .map(|s| s.normalized_time)
            .unwrap()
    };
    let before = phase(&graph);
    graph.tick(dt, &mut pose).unwrap();
    let rate = (phase(&graph) - before).rem_euclid(1.0) / dt * asset.clips()[walk_id].duration_s();
    assert!((rate - 2.0).abs() < 0.05, "the walk plays at {rate}x");
}

#[test]
fn placed_at_the_characters_gait_speeds_a_faster_walk_plays_slower_and_runs_go_together() {
    // A character that walks at 0.6 of its walk clip's speed and runs at 0.45 of its run
    // clip's (a cartoon's clips on a small rig, as Quaternius'), then at 0.55 of it.
    let m = Mannequin::new();
    let clips: Vec<Clip> = m.clips.iter().map(without_velocity).collect();
    let roles = ClipRoles::from_ron(
        "(idle: \"Idle\", walk_forward: \"Walk_F\", run_forward: \"Run_F\", \
         run_left: \"Run_L_HipsFwd\", run_right: \"Run_R_HipsFwd\")",
    )
    .unwrap();
    let walk_clip_m_s = m.clip("Walk_F").unwrap().authored_speed_m_s().unwrap();
    let run_clip_m_s = m.clip("Run_F").unwrap().authored_speed_m_s().unwrap();
    let generate = |run_share: f32| {
        let speeds = GaitSpeeds {
            walk_m_s: 0.6 * walk_clip_m_s,
            run_m_s: run_share * run_clip_m_s,
            sprint_m_s: 6.0,
            crouch_m_s: 1.0,
        };
        let generated =
            generate_graph_at(&roles, &m.skeleton, &m.bones, &clips, Some(speeds)).unwrap();
        let placed = |role: Role| placed_at(&generated, role);
        let placed = [
            Role::WalkForward,
            Role::RunForward,
            Role::RunLeft,
            Role::RunRight,
        ]
        .map(placed);
        let NodeDef::StateMachine(machine) = &generated.def.base else {
            unreachable!()
        };
        let NodeDef::BlendSpace2D { options, .. } = &machine.states[0].node else {
            unreachable!()
        };
        (speeds, placed, options.rate_range)
    };
    // The walk where the character walks, at 0.6 of its clip's rate; the run, less than
    // twice as fast as the character runs, keeps its own place, and so do the strafes.
    let (speeds, placed, rates) = generate(0.55);
    assert!((placed[0] - speeds.walk_m_s).abs() < 0.01, "{placed:?}");
    for strafe_or_run in &placed[1..] {
        assert!(*strafe_or_run > 1.5 * speeds.run_m_s, "{placed:?}");
    }
    assert_eq!(rates.0, 0.5, "the default lowest rate covers 0.6");
    // More than twice as fast: every run at the character's run speed, and the blend may
    // play them as slowly as that needs.
    let (speeds, placed, rates) = generate(0.45);
    assert!((placed[0] - speeds.walk_m_s).abs() < 0.01, "{placed:?}");
    for run in &placed[1..] {
        assert!((run - speeds.run_m_s).abs() < 0.01, "{placed:?}");
    }
    assert!(rates.0 <= 0.45 + 1e-3 && rates.0 >= 0.25, "{rates:?}");
}
