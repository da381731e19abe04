//! Clips from several files onto one skeleton (`ImportedAsset::add_clips_from_path`): the
//! mannequin split over synthetic files, rigs that do not match, and KayKit's three files,
//! from which the example role map makes a graph.

use std::path::PathBuf;

use glam::{Quat, Vec3};
use plantigrade::foot_contacts::ContactSource;
use plantigrade::graph::roles::{generate_graph, ClipRoles, Role};
use plantigrade::graph::GraphAsset;
use plantigrade::mannequin::Mannequin;
use plantigrade::{Clip, HumanoidMap, Joint, JointTracks, Skeleton, Track};
use plantigrade_gltf::{
    error_chain, export_glb, load_slice, GltfError, ImportOptions, SkeletonMismatch,
};

/// The clip's motion only: no curves, events or velocity (as most third-party clips come).
fn bare(clip: &Clip) -> Clip {
    Clip::new(
        clip.name(),
        Some(clip.duration_s()),
        clip.joint_tracks().to_vec(),
    )
    .unwrap()
}

fn mannequin_clips(m: &Mannequin, names: &[&str]) -> Vec<Clip> {
    names.iter().map(|n| bare(m.clip(n).unwrap())).collect()
}

/// The skeleton with `edit` applied to its joints (kept in order).
fn edited(skeleton: &Skeleton, edit: impl Fn(usize, &mut Joint)) -> Vec<Joint> {
    (0..skeleton.num_joints())
        .map(|j| {
            let mut joint = Joint {
                name: skeleton.name(j).to_string(),
                parent: skeleton.parent(j),
                rest_local: skeleton.rest_local()[j],
            };
            edit(j, &mut joint);
            joint
        })
        .collect()
}

#[test]
fn clips_of_a_second_file_join_the_first_with_their_contacts() {
    let m = Mannequin::new();
    let first = export_glb(&m.skeleton, &mannequin_clips(&m, &["Idle", "Walk_F"])).unwrap();
    let second = export_glb(
        &m.skeleton,
        &mannequin_clips(&m, &["Walk_F", "Run_F", "Jump_Start"]),
    )
    .unwrap();
    let mut asset = load_slice(&first, None).unwrap();
    assert_eq!(asset.foot_contacts.len(), 2);
    let added = asset
        .add_clips_from_slice(&second, None, ImportOptions::default())
        .unwrap();
    assert_eq!(added.added, ["Run_F", "Jump_Start"]);
    assert_eq!(added.duplicates, ["Walk_F"]);
    assert!(added.unmatched_joints.is_empty());
    assert!(added.joints_not_in_file.is_empty());
    assert!(added.rest_differs.is_empty(), "{:?}", added.rest_differs);
    let names: Vec<&str> = asset.clips.iter().map(Clip::name).collect();
    assert_eq!(names, ["Idle", "Walk_F", "Run_F", "Jump_Start"]);
    // The added clips' keys are the file's, on the same joints.
    let run = asset.clips.iter().find(|c| c.name() == "Run_F").unwrap();
    let original = m.clip("Run_F").unwrap();
    for (a, b) in run.joint_tracks().iter().zip(original.joint_tracks()) {
        assert_eq!(a.rotation.is_some(), b.rotation.is_some());
        if let (Some(a), Some(b)) = (&a.rotation, &b.rotation) {
            assert_eq!(a.times_s(), b.times_s());
        }
    }
    // Contacts derived for the added clips as at import, and listed in clip order.
    assert_eq!(added.foot_contacts.len(), 2);
    assert_eq!(asset.foot_contacts.len(), asset.clips.len());
    for contacts in &asset.foot_contacts[2..] {
        assert_eq!(contacts.source, [ContactSource::Derived; 2], "{contacts:?}");
    }
    assert!(run.curve("FootContact_L").is_some());

    // Without contacts asked for, none are derived.
    let mut plain = load_slice(&first, None).unwrap();
    let added = plain
        .add_clips_from_slice(
            &second,
            None,
            ImportOptions::default().with_foot_contacts(false),
        )
        .unwrap();
    assert!(added.foot_contacts.is_empty());
    assert_eq!(plain.foot_contacts.len(), 2);
    let run = plain.clips.iter().find(|c| c.name() == "Run_F").unwrap();
    assert!(run.curve("FootContact_L").is_none());
}

#[test]
fn keys_of_a_joint_the_first_skeleton_lacks_are_skipped_and_named() {
    let m = Mannequin::new();
    let hand = m.skeleton.find("hand_r").unwrap();
    let mut joints = edited(&m.skeleton, |_, _| {});
    joints.push(Joint {
        name: "sword".into(),
        parent: Some(hand),
        rest_local: plantigrade::Transform::from_translation(Vec3::new(0.0, 0.1, 0.0)),
    });
    let with_prop = Skeleton::new(joints).unwrap();
    let mut tracks = m.clip("Aim").unwrap().joint_tracks().to_vec();
    tracks.push(JointTracks {
        rotation: Some(
            Track::linear([(0.0, Quat::IDENTITY), (1.0, Quat::from_rotation_x(0.5))]).unwrap(),
        ),
        ..Default::default()
    });
    let swing = Clip::new("Swing", Some(1.0), tracks).unwrap();
    let file = export_glb(&with_prop, &[swing]).unwrap();

    let first = export_glb(&m.skeleton, &mannequin_clips(&m, &["Idle"])).unwrap();
    let mut asset = load_slice(&first, None).unwrap();
    let added = asset
        .add_clips_from_slice(&file, None, ImportOptions::default())
        .unwrap();
    assert_eq!(added.added, ["Swing"]);
    assert_eq!(added.unmatched_joints.len(), 1);
    assert_eq!(added.unmatched_joints[0].clip, "Swing");
    assert_eq!(added.unmatched_joints[0].joint, "sword");
    assert_eq!(asset.clips[1].joint_tracks().len(), m.skeleton.num_joints());
}

#[test]
fn another_rig_is_refused_naming_the_mismatch_and_changes_nothing() {
    let m = Mannequin::new();
    let first = export_glb(&m.skeleton, &mannequin_clips(&m, &["Idle"])).unwrap();
    let mut asset = load_slice(&first, None).unwrap();

    // Every joint renamed but the root: one name in common is not the same rig.
    let renamed = Skeleton::new(edited(&m.skeleton, |j, joint| {
        if j > 0 {
            joint.name = format!("mixamorig:{}", joint.name);
        }
    }))
    .unwrap();
    let file = export_glb(&renamed, &mannequin_clips(&m, &["Walk_F"])).unwrap();
    let err = asset
        .add_clips_from_slice(&file, None, ImportOptions::default())
        .unwrap_err();
    let GltfError::SkeletonMismatch(SkeletonMismatch::FewCommonJoints {
        common,
        file_joints,
        not_found,
    }) = &err
    else {
        panic!("{}", error_chain(&err));
    };
    assert_eq!((*common, *file_joints), (1, m.skeleton.num_joints()));
    assert_eq!(not_found[0], format!("mixamorig:{}", m.skeleton.name(1)));
    assert!(
        error_chain(&err).contains("only 1 of the file's"),
        "{}",
        error_chain(&err)
    );

    // A hand hung from the root instead of the forearm.
    let hand = m.skeleton.find("hand_l").unwrap();
    let moved = Skeleton::new(edited(&m.skeleton, |j, joint| {
        if j == hand {
            joint.parent = Some(0);
        }
    }))
    .unwrap();
    let file = export_glb(&moved, &mannequin_clips(&m, &["Walk_F"])).unwrap();
    let err = asset
        .add_clips_from_slice(&file, None, ImportOptions::default())
        .unwrap_err();
    assert!(
        matches!(
            &err,
            GltfError::SkeletonMismatch(SkeletonMismatch::DifferentParent { joint, file_parent, .. })
                if joint == "hand_l" && file_parent.as_deref() == Some(m.skeleton.name(0))
        ),
        "{}",
        error_chain(&err)
    );
    assert_eq!(asset.clips.len(), 1, "a refused file adds nothing");
    assert_eq!(asset.foot_contacts.len(), 1);

    // Not glTF at all: the file's own error.
    assert!(matches!(
        asset.add_clips_from_slice(b"not a glb", None, ImportOptions::default()),
        Err(GltfError::Parse(_))
    ));
}

fn example_roles(name: &str) -> ClipRoles {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples/characters")
        .join(name);
    let text = std::fs::read_to_string(&path).unwrap();
    ClipRoles::from_ron(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn kaykit_loads_from_three_files_and_its_roles_make_a_graph() {
    let files = [
        "KayKit_RigMedium_MovementBasic.glb",
        "KayKit_RigMedium_MovementAdvanced.glb",
        "KayKit_RigMedium_General.glb",
    ];
    let Some(paths) = files
        .iter()
        .map(|f| plantigrade_test_assets::require(f))
        .collect::<Option<Vec<_>>>()
    else {
        return;
    };
    let mut asset = plantigrade_gltf::load_path(&paths[0]).unwrap();
    for path in &paths[1..] {
        let added = asset
            .add_clips_from_path(path, ImportOptions::default())
            .unwrap();
        // Every KayKit file holds the T-pose.
        assert_eq!(
            added.duplicates,
            ["Rig_Medium|T-Pose"],
            "{}",
            path.display()
        );
        assert!(added.unmatched_joints.is_empty());
        assert!(added.joints_not_in_file.is_empty());
        assert!(added.rest_differs.is_empty(), "{:?}", added.rest_differs);
    }
    assert_eq!(asset.clips.len(), 11 + 13 + 15 - 2);
    assert_eq!(asset.foot_contacts.len(), asset.clips.len());
    assert!(asset
        .foot_contacts
        .iter()
        .all(|c| c.source == [ContactSource::Derived; 2]));

    let roles = example_roles("kaykit.roles.ron");
    let bones = HumanoidMap::detect(&asset.skeleton);
    let generated = generate_graph(&roles, &asset.skeleton, &bones, &asset.clips).unwrap();
    GraphAsset::from_ron(&generated.to_ron(), &asset.skeleton, asset.clips.clone()).unwrap();
    // Clips from all three files are used, each gait measured from its planted feet.
    for s in &generated.speeds {
        assert!(s.fallback.is_none(), "{s:?}");
    }
    let speed = |role: Role| {
        generated
            .speeds
            .iter()
            .find(|s| s.role == role)
            .map(|s| s.speed_m_s)
            .unwrap()
    };
    assert!(speed(Role::WalkForward) < speed(Role::RunForward));
    assert!(speed(Role::WalkForward) > 0.3 && speed(Role::RunForward) < 6.0);
    let missing: Vec<Role> = generated.missing.iter().map(|m| m.role).collect();
    assert!(missing.contains(&Role::CrouchIdle) && missing.contains(&Role::Aim));
}

#[test]
fn the_ual_and_quaternius_roles_make_graphs() {
    for (file, roles) in [
        ("Mesh2Motion_HumanBase_UAL1.glb", "ual.roles.ron"),
        (
            "Quaternius_Platformer_Character.glb",
            "quaternius.roles.ron",
        ),
    ] {
        let roles = example_roles(roles);
        let Some(path) = plantigrade_test_assets::require(file) else {
            continue;
        };
        let asset = plantigrade_gltf::load_path(&path).unwrap();
        let bones = HumanoidMap::detect(&asset.skeleton);
        let generated = generate_graph(&roles, &asset.skeleton, &bones, &asset.clips)
            .unwrap_or_else(|e| panic!("{file}: {e}"));
        GraphAsset::from_ron(&generated.to_ron(), &asset.skeleton, asset.clips.clone())
            .unwrap_or_else(|e| panic!("{file}: {e}"));
        assert_eq!(generated.def.layers.len(), 1, "{file}: the aim layer");
    }
}
