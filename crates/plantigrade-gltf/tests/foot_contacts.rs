//! Foot contacts derived at import (SPEC RIG-6) on the third-party CC0 rigs in
//! `../shared/assets/`, whose clips carry no contact curves: each walk or run cycle plants
//! each foot once, for a plausible share of the cycle, the feet taking turns. Skips (with a
//! printed reason) when the assets are absent.

use plantigrade::foot_contacts::{curve_crossings, ContactSource, Crossing};
use plantigrade::Clip;
use plantigrade_gltf::{load_path, load_path_with, ImportOptions, ImportedAsset};

fn load(name: &str) -> Option<ImportedAsset> {
    let path = plantigrade_test_assets::require(name)?;
    Some(load_path(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display())))
}

fn crossings(clip: &Clip, name: &str) -> Vec<Crossing> {
    curve_crossings(clip, clip.curve(name).expect("a derived curve"))
}

/// The stance of a foot as (touch-down, lift-off) times over one loop.
fn stance(clip: &Clip, name: &str) -> (f32, f32) {
    let c = crossings(clip, name);
    assert_eq!(
        c.len(),
        2,
        "{} {name}: one stance per cycle: {c:?}",
        clip.name()
    );
    let down = c.iter().find(|x| x.rising).unwrap().time_s;
    let up = c.iter().find(|x| !x.rising).unwrap().time_s;
    (down, up)
}

/// Checks a walk or run loop: one stance per foot per cycle, share within `share`, the
/// feet's touch-downs about half a cycle apart (they alternate).
fn check_gait(asset: &ImportedAsset, clip_name: &str, share: (f32, f32)) {
    let (index, clip) = asset
        .clips
        .iter()
        .enumerate()
        .find(|(_, c)| c.name() == clip_name)
        .unwrap_or_else(|| panic!("no clip {clip_name}"));
    let report = &asset.foot_contacts[index];
    assert_eq!(report.clip, clip_name);
    assert_eq!(report.source, [ContactSource::Derived; 2], "{report:?}");
    let shares = report.stance_share.map(|s| s.unwrap());
    let (l_down, _) = stance(clip, "FootContact_L");
    let (r_down, _) = stance(clip, "FootContact_R");
    let d = clip.duration_s();
    let apart = (r_down - l_down).rem_euclid(d) / d;
    eprintln!(
        "{clip_name:<28} {d:.3} s  stance share L {:.2} R {:.2}  touch-downs L {l_down:.3} s R {r_down:.3} s ({apart:.2} of a cycle apart)",
        shares[0], shares[1]
    );
    for s in shares {
        assert!(
            (share.0..=share.1).contains(&s),
            "{clip_name}: stance share {s} outside {share:?}"
        );
    }
    assert!(
        (0.35..=0.65).contains(&apart),
        "{clip_name}: the feet land {apart} of a cycle apart, not in turn"
    );
}

#[test]
fn ual_walk_and_runs_plant_each_foot_once_per_cycle_in_turn() {
    let Some(asset) = load("Mesh2Motion_HumanBase_UAL1.glb") else {
        return;
    };
    check_gait(&asset, "Walk_Loop", (0.5, 0.7));
    check_gait(&asset, "Walk_Formal_Loop", (0.5, 0.7));
    // The jog and sprint touch down for less of their cycle than a run's 0.25: their feet
    // are on the floor about 0.15-0.2 of it (heel strike to toe-off), sliding at metres per
    // second against the ground speed that holds them stillest.
    check_gait(&asset, "Jog_Fwd_Loop", (0.1, 0.45));
    check_gait(&asset, "Sprint_Loop", (0.1, 0.45));
    check_gait(&asset, "Crouch_Fwd_Loop", (0.45, 0.75));
    // Standing clips stand.
    for name in ["Idle_Loop", "Crouch_Idle_Loop", "Pistol_Idle_Loop"] {
        let i = asset.clips.iter().position(|c| c.name() == name).unwrap();
        let r = &asset.foot_contacts[i];
        assert_eq!(r.stance_share, [Some(1.0); 2], "{r:?}");
    }
}

#[test]
fn kaykit_walks_and_runs_plant_each_foot_once_per_cycle_in_turn() {
    let Some(asset) = load("KayKit_RigMedium_MovementBasic.glb") else {
        return;
    };
    // Hand-keyed and stylised: a walking foot lands sliding forward and is on the floor
    // about 0.4 of the cycle, still for 0.2-0.3 of it; the run touches for a few ticks.
    for walk in ["Walking_A", "Walking_B", "Walking_C"] {
        check_gait(&asset, &format!("Rig_Medium|{walk}"), (0.15, 0.7));
    }
    check_gait(&asset, "Rig_Medium|Running_A", (0.1, 0.45));
    let Some(advanced) = load("KayKit_RigMedium_MovementAdvanced.glb") else {
        return;
    };
    check_gait(&advanced, "Rig_Medium|Sneaking", (0.3, 0.7));
    check_gait(&advanced, "Rig_Medium|Walking_Backwards", (0.15, 0.7));
}

/// Quaternius with its skin's vertices (its sole points from the skin, as the lab and the
/// Bevy plugin read them); `None` (printed) without the shared assets.
fn quaternius_with_skin() -> Option<ImportedAsset> {
    let path = plantigrade_test_assets::require("Quaternius_Platformer_Character.glb")?;
    Some(
        load_path_with(&path, ImportOptions::default().with_skin_vertices(true))
            .unwrap_or_else(|e| panic!("{}: {e}", path.display())),
    )
}

/// Quaternius' walk strikes with the heel and rolls its toes 10 cm under the floor before
/// toe-off (its sole points from the skin, as the lab and the Bevy plugin read them). With
/// one floor for the foot, at the toes', the heel stood "in the air" for most of its
/// stance: 0.2 and 0.11 of the cycle planted, each foot only as it slowed to lift, and a
/// graph measured the walk at 0.72 m/s instead of about 1.9.
#[test]
fn quaternius_walk_plants_each_foot_from_heel_strike_to_toe_off() {
    let Some(asset) = quaternius_with_skin() else {
        return;
    };
    check_gait(&asset, "CharacterArmature|Walk", (0.35, 0.6));
}

/// Quaternius' dash pitches each swinging foot toes-down and scuffs the toe 2–3 cm under
/// the floor mid-swing, moving forward at twice the gait's speed. Its floor was taken from
/// the scuff's depth: the right foot's real stance stood 7 mm over it and was never planted,
/// and the left's scuff was planted as a stance.
#[test]
fn quaternius_dash_plants_each_foot_and_not_the_toe_it_scuffs_mid_swing() {
    let Some(asset) = quaternius_with_skin() else {
        return;
    };
    check_gait(&asset, "CharacterArmature|Run", (0.05, 0.3));
}

#[test]
fn every_shared_clip_gets_contacts_or_a_reason_and_the_option_turns_it_off() {
    for file in [
        "Mesh2Motion_HumanBase_UAL1.glb",
        "KayKit_RigMedium_MovementBasic.glb",
        "KayKit_RigMedium_MovementAdvanced.glb",
        "KayKit_RigMedium_General.glb",
        "Quaternius_Platformer_Character.glb",
    ] {
        let Some(asset) = load(file) else {
            continue;
        };
        assert_eq!(asset.foot_contacts.len(), asset.clips.len(), "{file}");
        for (clip, report) in asset.clips.iter().zip(&asset.foot_contacts) {
            assert_eq!(report.clip, clip.name());
            for (f, name) in ["FootContact_L", "FootContact_R"].iter().enumerate() {
                match report.source[f] {
                    ContactSource::Derived => {
                        // 0 and 1, but for a ramp cut at 0.5 at the clip's ends (a loop
                        // landing on its first sample, a one-shot on its last).
                        let curve = clip.curve(name).unwrap();
                        let (times, values) = (curve.track.times_s(), curve.track.values());
                        let end_s = times.last().copied().unwrap_or(0.0);
                        for (t, v) in times.iter().zip(values) {
                            let at_end = *t == 0.0 || *t == end_s;
                            assert!(
                                *v == 0.0 || *v == 1.0 || at_end && (*v - 0.5).abs() < 1e-4,
                                "{file} {}: {v} at {t} s",
                                clip.name()
                            );
                        }
                        let share = report.stance_share[f].unwrap();
                        assert!((0.0..=1.0).contains(&share), "{file} {}", clip.name());
                    }
                    ContactSource::Missing => {
                        assert!(clip.curve(name).is_none());
                        assert!(report.problem.is_some(), "{file} {}", clip.name());
                    }
                    ContactSource::Authored => panic!("{file} {} has no curves", clip.name()),
                }
            }
        }
        let path = plantigrade_test_assets::require(file).unwrap();
        let bare =
            load_path_with(&path, ImportOptions::default().with_foot_contacts(false)).unwrap();
        assert!(bare.foot_contacts.is_empty());
        assert!(bare
            .clips
            .iter()
            .all(|c| c.curve("FootContact_L").is_none()));
    }
}
