//! What a game with a renderer adds (cargo feature `render`): [`PlantigradeRenderPlugin`].
//!
//! - [`MannequinBody`] on a character gives it the built-in mannequin's skinned body mesh
//!   ([`crate::body::BodyMesh`]) over its joint entities, with a plain material.
//! - [`PlantigradeGizmos`] draws every character's debug view with Bevy's gizmos: probes
//!   (green hit, red miss) and their hit points, predicted landing points and ankle targets,
//!   locked feet, the pelvis axes beside the target and actual ground frames.
//! - Characters and their joints get `bevy_transform_interpolation`'s
//!   `TransformInterpolation`, so a 60 Hz fixed tick renders smoothly at any frame rate.
//!
//! Add it after Bevy's `DefaultPlugins` (it needs the renderer's mesh and material assets
//! and, for the debug view, the gizmos).

use std::collections::HashMap;
use std::sync::{Arc, Weak};

use bevy::asset::RenderAssetUsages;
use bevy::camera::visibility::DynamicSkinnedMeshBounds;
use bevy::gizmos::config::GizmoConfigStore;
use bevy::mesh::skinning::{SkinnedMesh, SkinnedMeshInverseBindposes};
use bevy::mesh::{Indices, PrimitiveTopology, VertexAttributeValues};
use bevy::prelude::*;
use bevy_transform_interpolation::prelude::{TransformInterpolation, TransformInterpolationPlugin};
use plantigrade::debug::{DebugCommand, Rgba};
use plantigrade::graph::GraphAsset;

use crate::body::BodyMesh;
use crate::{CharacterJoints, CharacterToggles, PlantigradeCharacter};

/// Radius of the ring drawn around a locked foot (m).
const LOCKED_FOOT_RING_M: f32 = 0.09;
/// Colour of that ring: white, apart from every other debug colour.
const LOCKED_FOOT: Rgba = Rgba::new(1.0, 1.0, 1.0, 1.0);

/// The render side of the plugin; see the module docs. `interpolate` (default true) adds
/// `TransformInterpolationPlugin` (unless the game already has it) and interpolates every
/// character's and joint's `Transform` between fixed ticks; turn it off when the
/// characters tick in a variable-step schedule.
#[derive(Debug, Clone, Copy)]
pub struct PlantigradeRenderPlugin {
    pub interpolate: bool,
}

impl Default for PlantigradeRenderPlugin {
    fn default() -> Self {
        Self { interpolate: true }
    }
}

impl Plugin for PlantigradeRenderPlugin {
    fn build(&self, app: &mut App) {
        app.register_type::<MannequinBody>()
            .register_type::<PlantigradeGizmos>()
            .init_resource::<PlantigradeGizmos>()
            .init_resource::<BodyCache>()
            .add_systems(Update, (attach_bodies, apply_gizmo_toggle));
        if self.interpolate {
            if !app.is_plugin_added::<TransformInterpolationPlugin>() {
                app.add_plugins(TransformInterpolationPlugin::default());
            }
            app.add_systems(Update, interpolate_new_characters);
        }
    }

    fn finish(&self, app: &mut App) {
        // The debug view needs Bevy's gizmos (DefaultPlugins has them); without them the
        // toggle still records the commands, and nothing draws them.
        if app.world().contains_resource::<GizmoConfigStore>() {
            app.add_systems(Update, draw_debug);
        } else {
            warn!("plantigrade: no GizmoPlugin, so PlantigradeGizmos draws nothing");
        }
    }
}

/// On a character: give it the built-in mannequin's skinned body (once, when added). A
/// skeleton without the mannequin's joint names gets no body (and a warning).
#[derive(Component, Reflect, Debug, Clone, Copy, PartialEq)]
#[reflect(Component)]
pub struct MannequinBody {
    /// The material's base colour.
    pub color: Color,
}

impl Default for MannequinBody {
    fn default() -> Self {
        Self {
            color: Color::srgb(0.82, 0.78, 0.72),
        }
    }
}

/// On the child entity that draws a character's body: which character it belongs to.
#[derive(Component, Debug, Clone, Copy, PartialEq, Eq)]
pub struct BodyOf {
    pub character: Entity,
}

/// The debug view, for every character: `enabled` turns each character's
/// [`CharacterToggles::debug_draw`] on or off and draws what it records.
#[derive(Resource, Reflect, Debug, Clone, Copy, Default, PartialEq, Eq)]
#[reflect(Resource, Default)]
pub struct PlantigradeGizmos {
    pub enabled: bool,
}

/// One mesh and bind poses per skeleton (a crowd of mannequins shares them), one material
/// per colour.
#[derive(Resource, Default)]
struct BodyCache {
    meshes: Vec<(Weak<GraphAsset>, CachedBody)>,
    materials: HashMap<[u8; 4], Handle<StandardMaterial>>,
}

#[derive(Clone)]
struct CachedBody {
    mesh: Handle<Mesh>,
    inverse_bindposes: Handle<SkinnedMeshInverseBindposes>,
}

/// The body mesh for `asset`'s skeleton, made once; `None` when it is not mannequin-like.
fn body_for(
    cache: &mut BodyCache,
    asset: &Arc<GraphAsset>,
    meshes: &mut Assets<Mesh>,
    bindposes: &mut Assets<SkinnedMeshInverseBindposes>,
) -> Option<CachedBody> {
    cache.meshes.retain(|(weak, _)| weak.strong_count() > 0);
    if let Some((_, body)) = cache
        .meshes
        .iter()
        .find(|(weak, _)| std::ptr::eq(weak.as_ptr(), Arc::as_ptr(asset)))
    {
        return Some(body.clone());
    }
    let skeleton = asset.skeleton();
    let body = BodyMesh::mannequin(skeleton)?;
    let inverse: Vec<Mat4> = BodyMesh::inverse_bind_poses(skeleton)
        .into_iter()
        .map(Mat4::from)
        .collect();
    let mut mesh = bevy_mesh(body);
    // The culling box follows the joints (the body walks away from its rest pose).
    if let Err(e) = mesh.generate_skinned_mesh_bounds() {
        warn!("plantigrade: no skinned bounds for the body mesh: {e}");
    }
    let cached = CachedBody {
        mesh: meshes.add(mesh),
        inverse_bindposes: bindposes.add(SkinnedMeshInverseBindposes::from(inverse)),
    };
    cache.meshes.push((Arc::downgrade(asset), cached.clone()));
    Some(cached)
}

/// The plain-data body as a Bevy mesh (joint indices are skeleton indices, which are the
/// indices into [`CharacterJoints`] and so into `SkinnedMesh::joints`).
fn bevy_mesh(body: BodyMesh) -> Mesh {
    Mesh::new(
        PrimitiveTopology::TriangleList,
        RenderAssetUsages::RENDER_WORLD | RenderAssetUsages::MAIN_WORLD,
    )
    .with_inserted_attribute(Mesh::ATTRIBUTE_POSITION, body.positions)
    .with_inserted_attribute(Mesh::ATTRIBUTE_NORMAL, body.normals)
    .with_inserted_attribute(
        Mesh::ATTRIBUTE_JOINT_INDEX,
        VertexAttributeValues::Uint16x4(body.joint_indices),
    )
    .with_inserted_attribute(Mesh::ATTRIBUTE_JOINT_WEIGHT, body.joint_weights)
    .with_inserted_indices(Indices::U32(body.indices))
}

#[allow(clippy::too_many_arguments)]
fn attach_bodies(
    mut commands: Commands,
    added: Query<
        (
            Entity,
            &MannequinBody,
            &PlantigradeCharacter,
            &CharacterJoints,
        ),
        Added<MannequinBody>,
    >,
    mut cache: ResMut<BodyCache>,
    mut meshes: ResMut<Assets<Mesh>>,
    mut bindposes: ResMut<Assets<SkinnedMeshInverseBindposes>>,
    mut materials: ResMut<Assets<StandardMaterial>>,
) {
    for (entity, body, pc, joints) in &added {
        let asset = pc.character().graph().asset();
        let Some(cached) = body_for(&mut cache, asset, &mut meshes, &mut bindposes) else {
            warn!("plantigrade: character {entity}'s skeleton has none of the mannequin's joints; no body");
            continue;
        };
        let material = cache
            .materials
            .entry(body.color.to_srgba().to_u8_array())
            .or_insert_with(|| {
                materials.add(StandardMaterial {
                    base_color: body.color,
                    perceptual_roughness: 0.7,
                    ..default()
                })
            })
            .clone();
        // A mesh's parent must be visible for the mesh to be (Bevy's visibility hierarchy).
        commands.entity(entity).insert_if_new(Visibility::default());
        commands.spawn((
            Name::new("plantigrade body"),
            Mesh3d(cached.mesh),
            MeshMaterial3d(material),
            SkinnedMesh {
                inverse_bindposes: cached.inverse_bindposes,
                joints: joints.entities().to_vec(),
            },
            DynamicSkinnedMeshBounds,
            BodyOf { character: entity },
            Transform::IDENTITY,
            ChildOf(entity),
        ));
    }
}

/// New characters and their joints are interpolated between fixed ticks.
fn interpolate_new_characters(
    mut commands: Commands,
    added: Query<(Entity, &CharacterJoints), Added<CharacterJoints>>,
) {
    for (entity, joints) in &added {
        commands.entity(entity).insert(TransformInterpolation);
        for &joint in joints.entities() {
            commands.entity(joint).insert(TransformInterpolation);
        }
    }
}

/// The resource's switch onto every character (and onto characters spawned later).
fn apply_gizmo_toggle(
    gizmos: Res<PlantigradeGizmos>,
    mut toggles: Query<&mut CharacterToggles, With<PlantigradeCharacter>>,
) {
    for mut t in &mut toggles {
        if (gizmos.is_changed() || t.is_added()) && t.debug_draw != gizmos.enabled {
            t.debug_draw = gizmos.enabled;
        }
    }
}

fn color(c: Rgba) -> Color {
    Color::linear_rgba(c.r, c.g, c.b, c.a)
}

/// Each character's recorded debug commands as gizmos, plus a ring around each locked foot.
fn draw_debug(
    settings: Res<PlantigradeGizmos>,
    characters: Query<&PlantigradeCharacter>,
    mut gizmos: Gizmos,
) {
    if !settings.enabled {
        return;
    }
    for pc in &characters {
        let c = pc.character();
        for command in c.debug_draw().commands() {
            match *command {
                DebugCommand::Line {
                    start_world,
                    end_world,
                    color: rgba,
                } => gizmos.line(start_world, end_world, color(rgba)),
                DebugCommand::Sphere {
                    center_world,
                    radius_m,
                    color: rgba,
                } => {
                    gizmos.sphere(
                        Isometry3d::from_translation(center_world),
                        radius_m,
                        color(rgba),
                    );
                }
                DebugCommand::Axes { .. } => {
                    for (start, end, rgba) in command.axis_lines().into_iter().flatten() {
                        gizmos.line(start, end, color(rgba));
                    }
                }
            }
        }
        if let Some(output) = c.foot_ik_output() {
            for foot in output.feet.iter().filter(|f| f.locked) {
                let t = foot.ankle_target_world;
                let ground = Vec3::new(t.x, foot.support_height_m.unwrap_or(t.y), t.z);
                let flat =
                    Isometry3d::new(ground, Quat::from_rotation_x(std::f32::consts::FRAC_PI_2));
                gizmos.circle(flat, LOCKED_FOOT_RING_M, color(LOCKED_FOOT));
            }
        }
    }
}
