//! Sampling and blending cost per character pose, on the built-in mannequin and on the
//! third-party UAL rig (53 joints) when ../shared/assets is present.
//!
//! `cargo bench -p plantigrade --bench sample_blend`. Criterion prints the time per
//! character pose and, as throughput, joints per second.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use plantigrade::mannequin::Mannequin;
use plantigrade::pose::{blend, blend_layer, local_to_model, BoneMask, ModelPose, Pose};
use plantigrade::{Clip, Skeleton};

/// One rig's inputs: a clip to sample alone, three to blend, an overlay and its mask.
struct Rig {
    label: &'static str,
    skeleton: Skeleton,
    single: Clip,
    blend3: [Clip; 3],
    overlay: Clip,
    mask: BoneMask,
}

fn find(clips: &[Clip], name: &str) -> Option<Clip> {
    clips.iter().find(|c| c.name() == name).cloned()
}

fn mannequin_rig() -> Option<Rig> {
    let m = Mannequin::new();
    let mask = BoneMask::from_chain_weights(
        &m.skeleton,
        &[
            ("spine_01", 0.3),
            ("spine_02", 0.6),
            ("spine_03", 0.9),
            ("neck_01", 1.0),
            ("clavicle_l", 1.0),
            ("clavicle_r", 1.0),
        ],
    )
    .ok()?;
    Some(Rig {
        label: "mannequin",
        single: find(&m.clips, "Walk_F")?,
        blend3: [
            find(&m.clips, "Walk_F")?,
            find(&m.clips, "Walk_FL")?,
            find(&m.clips, "Run_F")?,
        ],
        overlay: find(&m.clips, "Aim")?,
        mask,
        skeleton: m.skeleton,
    })
}

fn ual_rig() -> Option<Rig> {
    let path = plantigrade_test_assets::require("Mesh2Motion_HumanBase_UAL1.glb")?;
    let asset = match plantigrade_gltf::load_path(&path) {
        Ok(a) => a,
        Err(err) => {
            eprintln!("skipping the UAL rig: {} ({err})", path.display());
            return None;
        }
    };
    let mask = BoneMask::from_chain_weights(
        &asset.skeleton,
        &[
            ("DEF-spine.001", 0.3),
            ("DEF-spine.002", 0.6),
            ("DEF-spine.003", 0.9),
            ("DEF-neck", 1.0),
            ("DEF-shoulder.L", 1.0),
            ("DEF-shoulder.R", 1.0),
        ],
    )
    .ok()?;
    Some(Rig {
        label: "ual",
        single: find(&asset.clips, "Walk_Loop")?,
        blend3: [
            find(&asset.clips, "Walk_Loop")?,
            find(&asset.clips, "Jog_Fwd_Loop")?,
            find(&asset.clips, "Sprint_Loop")?,
        ],
        overlay: find(&asset.clips, "Pistol_Aim_Neutral")?,
        mask,
        skeleton: asset.skeleton,
    })
}

fn bench_rig(c: &mut Criterion, rig: &Rig) {
    let joints = rig.skeleton.num_joints();
    let rest = rig.skeleton.rest_local();
    let mut group = c.benchmark_group(format!("sample_blend/{}", rig.label));
    group.throughput(Throughput::Elements(joints as u64));

    let mut out = Pose::rest(&rig.skeleton);
    let mut phase = 0.0f32;
    group.bench_function("sample_one_clip", |b| {
        b.iter(|| {
            phase = (phase + 0.013) % 1.0;
            rig.single
                .sample_phase(black_box(phase), rest, &mut out)
                .ok();
            black_box(&out);
        })
    });

    let mut poses = [
        Pose::rest(&rig.skeleton),
        Pose::rest(&rig.skeleton),
        Pose::rest(&rig.skeleton),
    ];
    let mut overlay = Pose::rest(&rig.skeleton);
    let mut blended = Pose::rest(&rig.skeleton);
    let mut model = ModelPose::new(joints);
    group.bench_function("blend3_overlay_mask_to_model", |b| {
        b.iter(|| {
            phase = (phase + 0.013) % 1.0;
            for (clip, pose) in rig.blend3.iter().zip(poses.iter_mut()) {
                clip.sample_phase(black_box(phase), rest, pose).ok();
            }
            blend(
                &[(&poses[0], 0.5), (&poses[1], 0.3), (&poses[2], 0.2)],
                &mut blended,
            )
            .ok();
            rig.overlay.sample_phase(phase, rest, &mut overlay).ok();
            blend_layer(&mut blended, &overlay, 0.8, Some(&rig.mask)).ok();
            local_to_model(&rig.skeleton, &blended, &mut model).ok();
            black_box(&model);
        })
    });
    group.finish();
}

fn sample_blend(c: &mut Criterion) {
    match mannequin_rig() {
        Some(rig) => bench_rig(c, &rig),
        None => eprintln!("skipping the mannequin: a benchmark clip is missing"),
    }
    if let Some(rig) = ual_rig() {
        bench_rig(c, &rig);
    }
}

criterion_group!(benches, sample_blend);
criterion_main!(benches);
