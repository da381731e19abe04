//! The default ALS graph evaluated per character per tick: parameters set, state machine
//! and 2D blend space updated, up to three clips sampled and blended, the aim overlay layered
//! through its mask; and with the rig's fingers and twist bones culled, as on a far
//! character (SPEC PERF-5). On the mannequin, and on the UAL rig with `ual_als.ron` when
//! ../shared/assets is present.
//!
//! `cargo bench -p plantigrade --bench graph_tick`

use std::hint::black_box;
use std::sync::Arc;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use plantigrade::bone_map::HumanoidMap;
use plantigrade::graph::{GraphAsset, GraphInstance};
use plantigrade::mannequin::Mannequin;
use plantigrade::pose::Pose;

fn bench_graph(c: &mut Criterion, label: &str, asset: GraphAsset) {
    let asset = Arc::new(asset);
    let joints = asset.skeleton().num_joints();
    let mut graph = GraphInstance::new(asset.clone());
    let mut pose = Pose::rest(asset.skeleton());
    let p = asset.params();
    let (speed, direction, aiming) = (
        p.float("speed").unwrap(),
        p.float("direction").unwrap(),
        p.bool("aiming").unwrap(),
    );
    // SPEC PERF-5's joint culling of a far character: fingers and twist bones at rest.
    let skeleton = asset.skeleton();
    let culled: Vec<usize> =
        plantigrade::lod::suggested_culled_joints(skeleton, &HumanoidMap::detect(skeleton))
            .iter()
            .filter_map(|name| skeleton.find(name))
            .collect();
    println!(
        "graph_tick/{label}: {} of {joints} joints culled in locomotion_culled",
        culled.len()
    );
    graph.set_culled_joints(&culled).ok();
    let mut group = c.benchmark_group(format!("graph_tick/{label}"));
    group.throughput(Throughput::Elements(joints as u64));
    for (name, aim, cull) in [
        ("locomotion", false, false),
        ("locomotion_aim_overlay", true, false),
        ("locomotion_culled", false, true),
    ] {
        let mut t = 0.0f32;
        graph.params_mut().set_bool(aiming, aim);
        graph.set_culling(cull);
        group.bench_function(name, |b| {
            b.iter(|| {
                t += 1.0 / 60.0;
                // Speed between walk and run, direction sweeping: three clips blend.
                let params = graph.params_mut();
                params.set_float(speed, 2.6 + (t * 0.7).sin());
                params.set_float(direction, 40.0 * (t * 0.3).sin());
                graph.tick(black_box(1.0 / 60.0), &mut pose).ok();
                black_box(&pose);
            })
        });
    }
    group.finish();
}

fn graph_tick(c: &mut Criterion) {
    let m = Mannequin::new();
    match m.default_graph() {
        Ok(asset) => bench_graph(c, "mannequin", asset),
        Err(err) => eprintln!("skipping the mannequin: {err}"),
    }
    let Some(ual) = plantigrade_test_assets::require("Mesh2Motion_HumanBase_UAL1.glb") else {
        return;
    };
    match plantigrade_gltf::load_path(&ual) {
        Ok(rig) => {
            let source = include_str!("ual_als.ron");
            match GraphAsset::from_ron(source, &rig.skeleton, rig.clips) {
                Ok(asset) => bench_graph(c, "ual", asset),
                Err(err) => eprintln!("skipping the UAL rig: ual_als.ron: {err}"),
            }
        }
        Err(err) => eprintln!("skipping the UAL rig: {} ({err})", ual.display()),
    }
}

criterion_group!(benches, graph_tick);
criterion_main!(benches);
