//! The foot IK stage alone (SPEC IK, PERF-1): probes on the analytic course plus support
//! planes, lock, pelvis and both two-bone legs, per character per tick, on the mannequin
//! walking up the 20 cm stairs; and the rays each LOD tier casts per tick.
//!
//! `cargo bench -p plantigrade --bench foot_ik`.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion};
use glam::Vec3;
use plantigrade::ik::{run_foot_probe, FootIk, FootIkConfig, FootIkInput, FootIkMode, FootRig};
use plantigrade::lod::{Lod, LodConfig};
use plantigrade::mannequin::Mannequin;
use plantigrade::pose::{local_to_model, ModelPose, Pose};
use plantigrade::world::QueryFilter;
use plantigrade_course::{AnalyticWorld, Course};

fn foot_ik(c: &mut Criterion) {
    let m = Mannequin::new();
    let course = Course::default_course();
    let world = AnalyticWorld::new(&course);
    let stairs = course.section("stairs_20cm").expect("stairs section");
    let walk = m.clip("Walk_F").expect("Walk_F");
    let rig = FootRig::new(&m.skeleton, &m.bones).expect("mannequin legs");
    let mut animated_pose = Pose::rest(&m.skeleton);
    let mut model = ModelPose::new(animated_pose.num_joints());
    let frames: Vec<(Pose, [f32; 2])> = (0..60)
        .map(|i| {
            let t = i as f32 / 60.0;
            walk.sample(t, m.skeleton.rest_local(), &mut animated_pose)
                .expect("sample");
            let contact = ["FootContact_L", "FootContact_R"]
                .map(|n| walk.sample_curve(n, t).unwrap_or(f32::NAN));
            (animated_pose.clone(), contact)
        })
        .collect();

    let mut predictive_rays_per_foot = 0.0;
    for mode in [FootIkMode::Classic, FootIkMode::Predictive] {
        let mut ik = FootIk::new(
            FootIkConfig {
                mode,
                ..FootIkConfig::default()
            },
            rig,
        );
        let mut pose = Pose::rest(&m.skeleton);
        let mut tick = 0usize;
        let mut rays = 0u64;
        let mut ticks = 0u64;
        c.bench_function(&format!("foot_ik/{}", mode.name()), |b| {
            b.iter(|| {
                let (frame, contact) = &frames[tick % frames.len()];
                let s = (tick % 240) as f32 / 60.0 * 1.4;
                let mut root = stairs.spawn_world + stairs.direction_world * (2.0 + s);
                root.y = course.ground_height(root.x, root.z).unwrap_or(0.0);
                tick += 1;
                pose.copy_from(frame).expect("same skeleton");
                local_to_model(&m.skeleton, &pose, &mut model).expect("model");
                let input = FootIkInput {
                    root_world: root,
                    facing_yaw_rad: 0.0,
                    velocity_world: Vec3::new(0.0, 0.0, 1.4),
                    step_overshoot_world: Vec3::ZERO,
                    grounded: true,
                    dt_s: 1.0 / 60.0,
                    contact_curve: *contact,
                    lod_weight: 1.0,
                    probe_feet: [true; 2],
                    landing_in_s: [f32::NAN; 2],
                    landing_feet_model: [None; 2],
                };
                let animated = ik.rig().animated_feet(&model);
                let requests = ik.plan_probes(&input, &animated);
                let results = requests
                    .map(|r| run_foot_probe(&world, QueryFilter::GROUND, &ik.config.probe, &r));
                let out = ik
                    .solve(
                        &input,
                        &animated,
                        &results,
                        &m.skeleton,
                        &mut pose,
                        &mut model,
                    )
                    .expect("solve");
                rays += u64::from(out.rays_cast);
                ticks += 1;
                black_box(out.pelvis_offset_m)
            })
        });
        if ticks > 0 {
            let per_tick = rays as f64 / ticks as f64;
            println!(
                "foot_ik/{}: {per_tick:.2} rays per character per tick (full tier)",
                mode.name(),
            );
            if mode == FootIkMode::Predictive {
                predictive_rays_per_foot = per_tick / 2.0;
            }
        }
    }

    // Probes per tick per LOD tier: the measured predictive rays per foot, times the feet
    // each tier lets probe in a tick.
    for (label, distance_m) in [
        ("full (3 m)", 3.0),
        ("reduced (15 m)", 15.0),
        ("off (50 m)", 50.0),
    ] {
        let mut lod = Lod::new(LodConfig::default());
        lod.update(distance_m, 1.0 / 60.0);
        let feet = lod.probes_per_tick(1);
        println!(
            "foot_ik LOD {label}: {feet} feet probe per tick, {:.2} rays per tick ({:?})",
            feet as f64 * predictive_rays_per_foot,
            lod.tier()
        );
    }
}

criterion_group!(benches, foot_ik);
criterion_main!(benches);
