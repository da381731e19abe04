//! The pelvis tilt stage alone (SPEC TILT, PERF-1): three ground rays (more on stairs),
//! filtering and decomposition, then the pelvis and head written into the pose, per
//! character per tick, on the analytic course.
//!
//! `cargo bench -p plantigrade --bench tilt`.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion};
use glam::Vec3;
use plantigrade::mannequin::Mannequin;
use plantigrade::pose::{local_to_model, ModelPose, Pose};
use plantigrade::tilt::{NormalSourceChoice, PelvisTilt, TiltConfig, TiltInput};
use plantigrade::world::QueryFilter;
use plantigrade_course::{AnalyticWorld, Course};

fn tilt(c: &mut Criterion) {
    let m = Mannequin::new();
    let course = Course::default_course();
    let world = AnalyticWorld::new(&course);
    let pelvis = m.bones.pelvis.expect("pelvis");
    let mut pose = Pose::rest(&m.skeleton);
    let mut model = ModelPose::new(pose.num_joints());
    local_to_model(&m.skeleton, &pose, &mut model).expect("model");
    let rest = pose.clone();
    for section in ["ramp_20deg", "stairs_20cm", "pebbles"] {
        let s = course.section(section).expect("section");
        let mut stage = PelvisTilt::new(TiltConfig::default());
        let source = NormalSourceChoice::Ground;
        let mut tick = 0usize;
        let mut rays = 0u64;
        let mut ticks = 0u64;
        c.bench_function(&format!("tilt/{section}"), |b| {
            b.iter(|| {
                let d = 2.0 + (tick % 240) as f32 / 60.0 * 1.4;
                tick += 1;
                let mut root = s.spawn_world + s.direction_world * d;
                root.y = course.ground_height(root.x, root.z).unwrap_or(0.0);
                let input = TiltInput {
                    world: &world,
                    filter: QueryFilter::GROUND,
                    root_world: root,
                    facing_yaw_rad: 0.0,
                    pelvis_model: model.position_model(pelvis),
                    feet_world: [
                        root + Vec3::new(0.1, 0.0, 0.3),
                        root + Vec3::new(-0.1, 0.0, -0.3),
                    ],
                    grounded: true,
                    aiming: false,
                    dt_s: 1.0 / 60.0,
                };
                let out = stage.update(&input, &source);
                pose.copy_from(&rest).expect("same skeleton");
                stage
                    .apply(
                        &m.skeleton,
                        pelvis,
                        m.bones.spine.first().copied(),
                        m.bones.head,
                        &model,
                        &mut pose,
                    )
                    .expect("apply");
                rays += out.frame.rays().len() as u64;
                ticks += 1;
                black_box(out.pitch_rad)
            })
        });
        if ticks > 0 {
            println!(
                "tilt/{section}: {:.1} rays per character per tick",
                rays as f64 / ticks as f64
            );
        }
    }
}

criterion_group!(benches, tilt);
criterion_main!(benches);
