//! Every RON file a user hands the core, mutated (truncated, or a few bytes replaced by
//! RON's own punctuation, digits and letters): the graph, the character settings, the
//! clip-role map and the bone map. Each mutation gives a result or a typed error with a
//! message, never a panic; what is accepted is then used (a graph compiled, a character
//! spawned and ticked, a graph generated, a bone map resolved) and must not panic either.
//! The course file has its own in `plantigrade-course`, glTF files in `plantigrade-gltf`.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

use plantigrade::bone_map::{BoneNames, HumanoidMap};
use plantigrade::graph::roles::{generate_graph, ClipRoles};
use plantigrade::graph::GraphAsset;
use plantigrade::mannequin::Mannequin;
use plantigrade::prelude::*;
use plantigrade_course::{AnalyticWorld, Course};

/// `cases` mutations of `source` (xorshift from `seed`, so a failure replays): a third
/// truncated, the rest with 1–3 bytes replaced. Mutations that are not UTF-8 are skipped.
fn mutations(source: &str, cases: usize, mut seed: u64) -> Vec<String> {
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let replacements = b"\"(),:[]!&|<>=.-0123456789eE aXZ_";
    let source = source.as_bytes();
    (0..cases)
        .filter_map(|case| {
            let mut bytes = source.to_vec();
            if case % 3 == 0 {
                bytes.truncate(next() as usize % bytes.len());
            } else {
                for _ in 0..1 + next() % 3 {
                    let at = next() as usize % bytes.len();
                    bytes[at] = replacements[next() as usize % replacements.len()];
                }
            }
            String::from_utf8(bytes).ok()
        })
        .collect()
}

/// Runs `load` on each mutation of `source`: a panic fails with the text; an error must
/// say something. Returns how many were refused.
fn refused<E: std::fmt::Display>(
    what: &str,
    source: &str,
    cases: usize,
    seed: u64,
    load: impl Fn(&str) -> Result<(), E>,
) -> usize {
    let mut errors = 0;
    for (case, text) in mutations(source, cases, seed).iter().enumerate() {
        match catch_unwind(AssertUnwindSafe(|| load(text))) {
            Ok(Err(err)) => {
                errors += 1;
                assert!(!err.to_string().is_empty(), "{what} {case}: an empty error");
            }
            Ok(Ok(())) => {}
            Err(_) => panic!("{what}: panicked on mutation {case}:\n{text}"),
        }
    }
    errors
}

#[test]
fn mutated_graph_files_give_errors_not_panics() {
    let m = Mannequin::new();
    let errors = refused(
        "graph",
        plantigrade::mannequin::DEFAULT_GRAPH_RON,
        400,
        0x9E37_79B9_7F4A_7C15,
        |text| GraphAsset::from_ron(text, &m.skeleton, m.clips.clone()).map(|_| ()),
    );
    assert!(errors > 200, "most mutations should be refused ({errors})");
}

#[test]
fn mutated_settings_files_give_errors_not_panics_and_accepted_ones_tick() {
    let graph = Arc::new(Mannequin::new().default_graph().unwrap());
    let course = Course::default_course();
    let world = AnalyticWorld::new(&course);
    let spawn = course.section("flat").unwrap().spawn_world;
    let walk = Intent {
        move_world: glam::Vec2::new(0.0, 1.0),
        ..Default::default()
    };
    let source = CharacterSettings::default().to_ron();
    let errors = refused("settings", &source, 300, 0x2545_F491_4F6C_DD1D, |text| {
        let settings = CharacterSettings::from_ron(text).map_err(|e| e.to_string())?;
        let mut c = Character::builder(Arc::clone(&graph))
            .settings(settings)
            .spawn(spawn, 0.0)
            .map_err(|e| e.to_string())?;
        for _ in 0..5 {
            c.tick(1.0 / 60.0, &walk, &world)
                .map_err(|e| e.to_string())?;
        }
        if !c.feet_world().is_finite() {
            return Err("accepted settings moved the feet to a non-finite place".to_string());
        }
        Ok(())
    });
    assert!(errors > 50, "many mutations should be refused ({errors})");
}

#[test]
fn mutated_role_maps_give_errors_not_panics_and_accepted_ones_generate() {
    let m = Mannequin::new();
    let source = r#"ClipRoles(
    idle: "Idle",
    walk_forward: "Walk_F",
    run_forward: "Run_F",
    sprint_forward: "Sprint",
    walk_left: "Walk_L",
    walk_right: "Walk_R",
    crouch_idle: "Crouch_Idle",
    crouch_walk: "Crouch_Walk_F",
    jump_start: "Jump_Start",
    jump_loop: "Jump_Fall",
    jump_land: "Land_Light",
    aim: "Aim",
    aim_mask: [("spine_02", 0.5), ("neck_01", 1.0)],
)"#;
    let errors = refused("role map", source, 300, 0x9E6C_63D0_676A_9A99, |text| {
        let roles = ClipRoles::from_ron(text).map_err(|e| e.to_string())?;
        let generated =
            generate_graph(&roles, &m.skeleton, &m.bones, &m.clips).map_err(|e| e.to_string())?;
        GraphAsset::from_def(&generated.def, &m.skeleton, m.clips.clone())
            .map(|_| ())
            .map_err(|e| e.to_string())
    });
    assert!(errors > 100, "most mutations should be refused ({errors})");
}

#[test]
fn mutated_bone_maps_give_errors_not_panics() {
    let m = Mannequin::new();
    let source = ron::ser::to_string_pretty(
        &m.bones.to_names(&m.skeleton),
        ron::ser::PrettyConfig::default(),
    )
    .unwrap();
    let errors = refused("bone map", &source, 300, 0xD1B5_4A32_D192_ED03, |text| {
        let names: BoneNames = ron::from_str(text).map_err(|e| e.to_string())?;
        HumanoidMap::from_names(&m.skeleton, &names)
            .map(|_| ())
            .map_err(|e| e.to_string())
    });
    assert!(errors > 50, "many mutations should be refused ({errors})");
}
