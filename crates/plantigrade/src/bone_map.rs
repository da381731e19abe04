//! Humanoid bone map: which joint is the pelvis, the spine, each leg and arm, found by an
//! explicit map, by name presets (UE mannequin, Mixamo, Rigify/UAL, KayKit, Quaternius) or
//! by a name heuristic; and the foot sockets (heel, ball, mid-foot points) derived from the
//! rest pose (ANIM-1, RIG-1, RIG-3). A rig without a leg chain is reported with the reason
//! (which joint is not below which), never a panic.

use glam::{Affine3A, Vec3};

use crate::skeleton::Skeleton;

/// Left or right, from the character's point of view (left is +X in model space).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum Side {
    Left,
    Right,
}

impl Side {
    pub const BOTH: [Side; 2] = [Side::Left, Side::Right];

    /// 0 for left, 1 for right (index into per-side arrays).
    pub fn index(self) -> usize {
        self as usize
    }

    /// `"l"` or `"r"`, as in UE names (`thigh_l`).
    pub fn suffix(self) -> &'static str {
        match self {
            Side::Left => "l",
            Side::Right => "r",
        }
    }
}

/// Hip, knee and ankle joints of one leg, with the optional ball (toe) joint.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LegChain {
    pub thigh: usize,
    pub calf: usize,
    pub foot: usize,
    pub ball: Option<usize>,
    /// The foot is an IK target: it does not hang below the calf but from the armature root
    /// or an IK-control bone (Quaternius and other Blender rigs exported with IK-target
    /// feet), so posing the thigh and calf does not move it. Foot IK then treats the foot
    /// joint's rest position, fixed in the calf's frame, as the shin's end (the "virtual
    /// ankle", [`LegChain::ankle_in_calf`]) and writes the foot joint's own transform.
    pub foot_is_ik_target: bool,
}

impl LegChain {
    /// The ankle in the calf's local frame, from the rest pose: where the shin ends. For a
    /// foot below the calf this is just where the foot joint rests; for an IK-target foot it
    /// is the virtual ankle that foot IK places. Non-finite for out-of-range joints.
    pub fn ankle_in_calf(&self, skeleton: &Skeleton) -> Vec3 {
        if self.calf >= skeleton.num_joints() || self.foot >= skeleton.num_joints() {
            return Vec3::NAN;
        }
        let rest = skeleton.rest_model();
        rest[self.calf]
            .inverse()
            .transform_point3(rest[self.foot].translation.into())
    }
}

/// Shoulder-to-hand chain of one arm.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ArmChain {
    pub upperarm: usize,
    pub lowerarm: usize,
    pub hand: usize,
}

/// Points fixed to a foot joint, in the foot joint's local frame: the bottom of the heel, the
/// bottom of the ball, and the mid-foot point between them that ground probes use. Metres
/// when the joint's rest model transform has no scale; an armature scale baked into the
/// joints scales them (Quaternius rigs: 100, so sockets 20 cm apart are 0.002 apart here).
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "reflect", derive(bevy_reflect::Reflect))]
pub struct FootSockets {
    pub heel_foot_local: Vec3,
    pub ball_foot_local: Vec3,
    pub mid_foot_local: Vec3,
}

/// Which naming scheme a map came from: the preset whose names found the most roles (ties
/// go to the preset whose names match the joints' letter case exactly).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BonePreset {
    UnrealMannequin,
    Mixamo,
    Rigify,
    KayKit,
    /// Quaternius rigs (`Hips`, `Abdomen`, `Torso`, `UpperLeg.L`, `LowerLeg.L`, `Foot.L`,
    /// `Fist.L`). KayKit's names are the same words in lower case, so before this preset
    /// existed these rigs were labelled `KayKit` by a case-insensitive match.
    Quaternius,
    /// Matched by keywords in the names (thigh/upleg/upperleg, shin/calf, …).
    Heuristic,
    /// Given by the user ([`BoneNames`]).
    Explicit,
}

/// Why a bone map could not be built or a chain is unavailable.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum BoneMapError {
    #[error("bone map names '{name}' for {role}, but the skeleton has no such joint")]
    UnknownJoint { role: &'static str, name: String },
    #[error("the {side:?} leg is incomplete: no joint found for {missing:?}; foot IK is disabled for this rig")]
    MissingLeg {
        side: Side,
        missing: Vec<&'static str>,
    },
    /// Two joints of a chain that are not parent and descendant. Roles are [`BoneNames`]
    /// field names (`calf_l`, `foot_l`).
    /// (Boxed: the names would make every error that carries this one large.)
    #[error("{0}")]
    BrokenChain(Box<BrokenChain>),
    /// A foot that is not below its calf and cannot be an IK target either: it is the
    /// calf or thigh, or one of their ancestors (moving it would move the leg itself).
    #[error("{}", foot_above_leg(.0))]
    FootAboveLeg(Box<BrokenChain>),
}

/// The joints of a [`BoneMapError::BrokenChain`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{child_role} '{child}' (joint {child_joint}) is not below {parent_role} '{parent}' (joint {parent_joint}): its parent chain is {}", child_ancestry.join(" → "))]
pub struct BrokenChain {
    pub parent_role: &'static str,
    pub parent: String,
    pub parent_joint: usize,
    pub child_role: &'static str,
    pub child: String,
    pub child_joint: usize,
    /// The child and its ancestors up to its root, by name.
    pub child_ancestry: Vec<String>,
}

/// The message of [`BoneMapError::FootAboveLeg`].
fn foot_above_leg(chain: &BrokenChain) -> String {
    let relation = if chain.child_joint == chain.parent_joint {
        "the same joint as"
    } else {
        "an ancestor of"
    };
    format!(
        "{} '{}' (joint {}) cannot be this leg's foot: it is {relation} {} '{}' (joint {}), so placing it would move the leg it ends; its parent chain is {}",
        chain.child_role,
        chain.child,
        chain.child_joint,
        chain.parent_role,
        chain.parent,
        chain.parent_joint,
        chain.child_ancestry.join(" → ")
    )
}

/// Where a foot's sockets came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SocketSource {
    /// The rest pose of the foot and its ball (toe) joint.
    ToeJoint,
    /// The skin's vertices weighted to the foot ([`HumanoidMap::sockets_from_skin`]).
    Mesh,
    /// No toe joint and no mesh: leg-length proportions ([`FootSockets::from_proportions`]).
    Proportions,
    /// Given in the bone map ([`BoneNames::foot_sockets_l`]) or by
    /// [`HumanoidMap::with_foot_sockets`].
    Explicit,
}

/// The humanoid joints of a skeleton. Every role is optional: a rig may lack arms or toes,
/// and code that needs a chain asks for it with [`HumanoidMap::leg`].
#[derive(Clone, Debug, PartialEq)]
pub struct HumanoidMap {
    pub preset: BonePreset,
    pub pelvis: Option<usize>,
    /// Spine joints from the pelvis upward (not including the pelvis or neck).
    pub spine: Vec<usize>,
    pub neck: Option<usize>,
    pub head: Option<usize>,
    /// Indexed by [`Side::index`].
    pub legs: [PartialLeg; 2],
    pub arms: [PartialArm; 2],
    /// Foot sockets per side, derived from the rest pose unless overridden.
    pub feet: [Option<FootSockets>; 2],
    /// Where each of [`Self::feet`] came from (`None` when there are no sockets).
    pub feet_source: [Option<SocketSource>; 2],
    /// Why detection dropped joints it had found by name for a leg (e.g. a foot that is not
    /// below the calf); [`Self::leg`] returns this error when the leg is incomplete.
    pub leg_problems: [Option<BoneMapError>; 2],
}

/// A leg as found; any joint may be missing.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PartialLeg {
    pub thigh: Option<usize>,
    pub calf: Option<usize>,
    pub foot: Option<usize>,
    pub ball: Option<usize>,
    /// The foot does not hang below the calf (see [`LegChain::foot_is_ik_target`]).
    pub foot_is_ik_target: bool,
}

/// An arm as found; any joint may be missing.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PartialArm {
    pub upperarm: Option<usize>,
    pub lowerarm: Option<usize>,
    pub hand: Option<usize>,
}

/// An explicit bone map, e.g. loaded from RON. Names must match joints exactly.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "reflect", derive(bevy_reflect::Reflect))]
#[serde(default)]
pub struct BoneNames {
    pub pelvis: Option<String>,
    pub spine: Vec<String>,
    pub neck: Option<String>,
    pub head: Option<String>,
    pub thigh_l: Option<String>,
    pub calf_l: Option<String>,
    pub foot_l: Option<String>,
    pub ball_l: Option<String>,
    pub thigh_r: Option<String>,
    pub calf_r: Option<String>,
    pub foot_r: Option<String>,
    pub ball_r: Option<String>,
    pub upperarm_l: Option<String>,
    pub lowerarm_l: Option<String>,
    pub hand_l: Option<String>,
    pub upperarm_r: Option<String>,
    pub lowerarm_r: Option<String>,
    pub hand_r: Option<String>,
    /// Socket overrides (foot-local metres); derived from the rest pose when absent.
    pub foot_sockets_l: Option<FootSockets>,
    pub foot_sockets_r: Option<FootSockets>,
}

/// Names per role for one preset, in priority order. `{s}` is replaced by the side token.
struct PresetTable {
    preset: BonePreset,
    pelvis: &'static [&'static str],
    spine: &'static [&'static str],
    neck: &'static [&'static str],
    head: &'static [&'static str],
    thigh: &'static [&'static str],
    calf: &'static [&'static str],
    foot: &'static [&'static str],
    ball: &'static [&'static str],
    upperarm: &'static [&'static str],
    lowerarm: &'static [&'static str],
    hand: &'static [&'static str],
    /// Side tokens (left, right) substituted for `{s}`.
    sides: [&'static str; 2],
}

const PRESETS: [PresetTable; 5] = [
    PresetTable {
        preset: BonePreset::UnrealMannequin,
        pelvis: &["pelvis"],
        spine: &["spine_01", "spine_02", "spine_03", "spine_04", "spine_05"],
        neck: &["neck_01"],
        head: &["head"],
        thigh: &["thigh_{s}"],
        calf: &["calf_{s}"],
        foot: &["foot_{s}"],
        ball: &["ball_{s}"],
        upperarm: &["upperarm_{s}"],
        lowerarm: &["lowerarm_{s}"],
        hand: &["hand_{s}"],
        sides: ["l", "r"],
    },
    PresetTable {
        preset: BonePreset::Mixamo,
        pelvis: &["Hips"],
        spine: &["Spine", "Spine1", "Spine2"],
        neck: &["Neck"],
        head: &["Head"],
        thigh: &["{s}UpLeg"],
        calf: &["{s}Leg"],
        foot: &["{s}Foot"],
        ball: &["{s}ToeBase"],
        upperarm: &["{s}Arm"],
        lowerarm: &["{s}ForeArm"],
        hand: &["{s}Hand"],
        sides: ["Left", "Right"],
    },
    PresetTable {
        preset: BonePreset::Rigify,
        // UAL names the pelvis DEF-hips; plain Rigify calls it DEF-spine.
        pelvis: &["DEF-hips", "DEF-spine"],
        spine: &["DEF-spine.001", "DEF-spine.002", "DEF-spine.003"],
        neck: &["DEF-neck", "DEF-spine.004"],
        head: &["DEF-head", "DEF-spine.006"],
        thigh: &["DEF-thigh.{s}"],
        calf: &["DEF-shin.{s}"],
        foot: &["DEF-foot.{s}"],
        ball: &["DEF-toe.{s}"],
        upperarm: &["DEF-upper_arm.{s}"],
        lowerarm: &["DEF-forearm.{s}"],
        hand: &["DEF-hand.{s}"],
        sides: ["L", "R"],
    },
    PresetTable {
        preset: BonePreset::KayKit,
        pelvis: &["hips"],
        spine: &["spine", "chest"],
        neck: &["neck"],
        head: &["head"],
        thigh: &["upperleg.{s}"],
        calf: &["lowerleg.{s}"],
        foot: &["foot.{s}"],
        ball: &["toes.{s}"],
        upperarm: &["upperarm.{s}"],
        lowerarm: &["lowerarm.{s}"],
        hand: &["wrist.{s}", "hand.{s}"],
        sides: ["l", "r"],
    },
    PresetTable {
        preset: BonePreset::Quaternius,
        pelvis: &["Hips"],
        spine: &["Abdomen", "Torso", "Chest"],
        neck: &["Neck"],
        head: &["Head"],
        thigh: &["UpperLeg.{s}"],
        calf: &["LowerLeg.{s}"],
        foot: &["Foot.{s}"],
        ball: &["Toes.{s}", "Toe.{s}"],
        upperarm: &["UpperArm.{s}"],
        lowerarm: &["LowerArm.{s}"],
        hand: &["Fist.{s}", "Hand.{s}", "Wrist.{s}"],
        sides: ["L", "R"],
    },
];

/// Joint-name lookup that ignores case and a namespace prefix (`mixamorig:`, `Armature|`).
struct NameIndex {
    normalized: Vec<String>,
    /// The names without their namespace prefix, case kept (for the exact-case tie-break).
    bases: Vec<String>,
}

impl NameIndex {
    fn new(skeleton: &Skeleton) -> Self {
        Self {
            normalized: skeleton.names().iter().map(|n| normalize(n)).collect(),
            bases: skeleton
                .names()
                .iter()
                .map(|n| base_name(n).to_string())
                .collect(),
        }
    }

    /// How many of `joints` a candidate of `candidates` names with the exact letter case.
    fn exact_matches(
        &self,
        candidates: &[&str],
        side: Option<&str>,
        joint: Option<usize>,
    ) -> usize {
        let Some(joint) = joint else { return 0 };
        let exact = candidates.iter().any(|c| {
            let c = match side {
                Some(s) => c.replace("{s}", s),
                None => c.to_string(),
            };
            self.bases[joint] == c
        });
        usize::from(exact)
    }

    fn find(&self, name: &str) -> Option<usize> {
        let wanted = normalize(name);
        self.normalized.iter().position(|n| *n == wanted)
    }

    fn first(&self, candidates: &[&str], side: Option<&str>) -> Option<usize> {
        candidates.iter().find_map(|c| match side {
            Some(s) => self.find(&c.replace("{s}", s)),
            None => self.find(c),
        })
    }
}

fn base_name(name: &str) -> &str {
    name.rsplit([':', '|']).next().unwrap_or(name)
}

fn normalize(name: &str) -> String {
    base_name(name).to_ascii_lowercase()
}

/// [`BoneNames`] field names of each leg's roles, by side: thigh, calf, foot, ball.
const LEG_ROLES: [[&str; 4]; 2] = [
    ["thigh_l", "calf_l", "foot_l", "ball_l"],
    ["thigh_r", "calf_r", "foot_r", "ball_r"],
];

impl HumanoidMap {
    /// Finds the humanoid bones by the best-matching preset, then fills whatever it missed
    /// with the name heuristic; foot sockets come from the rest pose.
    pub fn detect(skeleton: &Skeleton) -> Self {
        let index = NameIndex::new(skeleton);
        // Most roles found wins; a tie goes to the preset whose names match the letter case.
        let best = PRESETS
            .iter()
            .map(|table| from_preset(skeleton, &index, table))
            .filter(|(map, _)| map.found_count() > 0)
            .max_by_key(|(map, exact)| (map.found_count(), *exact))
            .map(|(map, _)| map);
        let heuristic = heuristic_map(skeleton);
        let mut map = match best {
            Some(mut map) => {
                map.fill_from(&heuristic);
                map
            }
            None => heuristic,
        };
        map.mark_ik_target_feet(skeleton);
        map.derive_foot_sockets(skeleton);
        map
    }

    /// Every problem of an explicit map, in role order: names that are not joints, then legs
    /// whose joints are not a parent-child chain (checked once all their names exist). Empty
    /// when [`Self::from_names`] succeeds.
    pub fn check_names(skeleton: &Skeleton, names: &BoneNames) -> Vec<BoneMapError> {
        let mut problems = Vec::new();
        let mut check = |role: &'static str, name: Option<&String>| {
            if let Some(name) = name {
                if skeleton.find(name).is_none() {
                    problems.push(BoneMapError::UnknownJoint {
                        role,
                        name: name.clone(),
                    });
                }
            }
        };
        check("pelvis", names.pelvis.as_ref());
        for name in &names.spine {
            check("spine", Some(name));
        }
        check("neck", names.neck.as_ref());
        check("head", names.head.as_ref());
        for (role, name) in names.leg_roles().into_iter().flatten() {
            check(role, name.as_ref());
        }
        for (role, name) in names.arm_roles() {
            check(role, name.as_ref());
        }
        let legs = names.leg_names();
        for (side, leg) in Side::BOTH.into_iter().zip(&legs) {
            let joints = leg.clone().map(|n| n.and_then(|n| skeleton.find(&n)));
            let all_exist = leg
                .iter()
                .zip(&joints)
                .all(|(n, j)| n.is_none() || j.is_some());
            if !all_exist {
                continue;
            }
            let partial = PartialLeg {
                thigh: joints[0],
                calf: joints[1],
                foot: joints[2],
                ball: joints[3],
                foot_is_ik_target: false,
            };
            if let Some((_, err)) = chain_break(skeleton, &partial, side) {
                problems.push(err);
            }
        }
        problems
    }

    /// A map from explicit names; every given name must exist. Chains are checked for
    /// parent-child order. See [`Self::check_names`] for every problem at once.
    pub fn from_names(skeleton: &Skeleton, names: &BoneNames) -> Result<Self, BoneMapError> {
        let find = |role: &'static str,
                    name: &Option<String>|
         -> Result<Option<usize>, BoneMapError> {
            match name {
                None => Ok(None),
                Some(n) => skeleton
                    .find(n)
                    .map(Some)
                    .ok_or_else(|| BoneMapError::UnknownJoint {
                        role,
                        name: n.clone(),
                    }),
            }
        };
        let mut spine = Vec::with_capacity(names.spine.len());
        for n in &names.spine {
            spine.push(find("spine", &Some(n.clone()))?.unwrap_or_default());
        }
        let mut map = Self {
            preset: BonePreset::Explicit,
            pelvis: find("pelvis", &names.pelvis)?,
            spine,
            neck: find("neck", &names.neck)?,
            head: find("head", &names.head)?,
            legs: [
                PartialLeg {
                    thigh: find("thigh_l", &names.thigh_l)?,
                    calf: find("calf_l", &names.calf_l)?,
                    foot: find("foot_l", &names.foot_l)?,
                    ball: find("ball_l", &names.ball_l)?,
                    foot_is_ik_target: false,
                },
                PartialLeg {
                    thigh: find("thigh_r", &names.thigh_r)?,
                    calf: find("calf_r", &names.calf_r)?,
                    foot: find("foot_r", &names.foot_r)?,
                    ball: find("ball_r", &names.ball_r)?,
                    foot_is_ik_target: false,
                },
            ],
            arms: [
                PartialArm {
                    upperarm: find("upperarm_l", &names.upperarm_l)?,
                    lowerarm: find("lowerarm_l", &names.lowerarm_l)?,
                    hand: find("hand_l", &names.hand_l)?,
                },
                PartialArm {
                    upperarm: find("upperarm_r", &names.upperarm_r)?,
                    lowerarm: find("lowerarm_r", &names.lowerarm_r)?,
                    hand: find("hand_r", &names.hand_r)?,
                },
            ],
            feet: [None, None],
            feet_source: [None, None],
            leg_problems: [None, None],
        };
        for side in Side::BOTH {
            if let Some((_, err)) = chain_break(skeleton, &map.legs[side.index()], side) {
                return Err(err);
            }
        }
        map.mark_ik_target_feet(skeleton);
        map.derive_foot_sockets(skeleton);
        for (i, sockets) in [names.foot_sockets_l, names.foot_sockets_r]
            .into_iter()
            .enumerate()
        {
            if let Some(sockets) = sockets {
                map.feet[i] = Some(sockets);
                map.feet_source[i] = Some(SocketSource::Explicit);
            }
        }
        Ok(map)
    }

    /// The names of this map's joints as an explicit map, with the sockets the skeleton
    /// alone cannot give again: explicit ones and those from the mesh (so a character built
    /// from the names, with no mesh at hand, keeps them). `HumanoidMap::from_names(skeleton,
    /// &map.to_names(skeleton))` gives back the same roles and sockets (mesh sockets then
    /// count as explicit).
    pub fn to_names(&self, skeleton: &Skeleton) -> BoneNames {
        let name = |j: Option<usize>| j.map(|j| skeleton.name(j).to_string());
        let [l, r] = self.legs;
        let [al, ar] = self.arms;
        let explicit = |i: usize| {
            matches!(
                self.feet_source[i],
                Some(SocketSource::Explicit | SocketSource::Mesh)
            )
            .then_some(self.feet[i])
            .flatten()
        };
        BoneNames {
            pelvis: name(self.pelvis),
            spine: self
                .spine
                .iter()
                .map(|&j| skeleton.name(j).to_string())
                .collect(),
            neck: name(self.neck),
            head: name(self.head),
            thigh_l: name(l.thigh),
            calf_l: name(l.calf),
            foot_l: name(l.foot),
            ball_l: name(l.ball),
            thigh_r: name(r.thigh),
            calf_r: name(r.calf),
            foot_r: name(r.foot),
            ball_r: name(r.ball),
            upperarm_l: name(al.upperarm),
            lowerarm_l: name(al.lowerarm),
            hand_l: name(al.hand),
            upperarm_r: name(ar.upperarm),
            lowerarm_r: name(ar.lowerarm),
            hand_r: name(ar.hand),
            foot_sockets_l: explicit(0),
            foot_sockets_r: explicit(1),
        }
    }

    /// Replaces the sockets of each foot that has no toe joint (sockets from proportions)
    /// with sockets from the skin: `foot_points_model(foot joint)` gives the rest-pose
    /// model-space positions of the vertices weighted to that joint (see
    /// [`FootSockets::from_sole_points`]). Toe-joint and explicit sockets are kept. Returns
    /// how many feet changed.
    pub fn sockets_from_skin(
        &mut self,
        skeleton: &Skeleton,
        foot_points_model: impl Fn(usize) -> Vec<Vec3>,
    ) -> usize {
        let mut changed = 0;
        for side in Side::BOTH {
            let i = side.index();
            if self.feet_source[i] != Some(SocketSource::Proportions) {
                continue;
            }
            let Ok(leg) = self.leg(side) else { continue };
            let points = foot_points_model(leg.foot);
            if let Some(sockets) = FootSockets::from_sole_points(skeleton, leg.foot, &points) {
                self.feet[i] = Some(sockets);
                self.feet_source[i] = Some(SocketSource::Mesh);
                changed += 1;
            }
        }
        changed
    }

    /// The complete leg chain of `side`, or an error naming the missing joints.
    pub fn leg(&self, side: Side) -> Result<LegChain, BoneMapError> {
        let leg = &self.legs[side.index()];
        match (leg.thigh, leg.calf, leg.foot) {
            (Some(thigh), Some(calf), Some(foot)) => Ok(LegChain {
                thigh,
                calf,
                foot,
                ball: leg.ball,
                foot_is_ik_target: leg.foot_is_ik_target,
            }),
            _ => {
                if let Some(problem) = &self.leg_problems[side.index()] {
                    return Err(problem.clone());
                }
                let missing = [("thigh", leg.thigh), ("calf", leg.calf), ("foot", leg.foot)]
                    .into_iter()
                    .filter(|(_, j)| j.is_none())
                    .map(|(r, _)| r)
                    .collect();
                Err(BoneMapError::MissingLeg { side, missing })
            }
        }
    }

    /// The complete arm chain of `side`, if found.
    pub fn arm(&self, side: Side) -> Option<ArmChain> {
        let arm = &self.arms[side.index()];
        Some(ArmChain {
            upperarm: arm.upperarm?,
            lowerarm: arm.lowerarm?,
            hand: arm.hand?,
        })
    }

    /// Replaces the derived sockets of one foot.
    pub fn with_foot_sockets(mut self, side: Side, sockets: FootSockets) -> Self {
        self.feet[side.index()] = Some(sockets);
        self.feet_source[side.index()] = Some(SocketSource::Explicit);
        self
    }

    /// Every joint the map found a role for (each once per role it has).
    pub fn joints(&self) -> Vec<usize> {
        self.roles()
            .into_iter()
            .filter_map(|(_, joint)| joint)
            .collect()
    }

    /// Every role with the joint found for it (or `None`), in a fixed order, for reports.
    pub fn roles(&self) -> Vec<(String, Option<usize>)> {
        let mut roles = vec![("pelvis".to_string(), self.pelvis)];
        if self.spine.is_empty() {
            roles.push(("spine".into(), None));
        }
        for (i, &j) in self.spine.iter().enumerate() {
            roles.push((format!("spine[{i}]"), Some(j)));
        }
        roles.push(("neck".into(), self.neck));
        roles.push(("head".into(), self.head));
        for side in Side::BOTH {
            let s = side.suffix();
            let leg = &self.legs[side.index()];
            roles.push((format!("thigh_{s}"), leg.thigh));
            roles.push((format!("calf_{s}"), leg.calf));
            roles.push((format!("foot_{s}"), leg.foot));
            roles.push((format!("ball_{s}"), leg.ball));
        }
        for side in Side::BOTH {
            let s = side.suffix();
            let arm = &self.arms[side.index()];
            roles.push((format!("upperarm_{s}"), arm.upperarm));
            roles.push((format!("lowerarm_{s}"), arm.lowerarm));
            roles.push((format!("hand_{s}"), arm.hand));
        }
        roles
    }

    fn found_count(&self) -> usize {
        self.roles().iter().filter(|(_, j)| j.is_some()).count()
    }

    fn fill_from(&mut self, other: &HumanoidMap) {
        self.pelvis = self.pelvis.or(other.pelvis);
        if self.spine.is_empty() {
            self.spine = other.spine.clone();
        }
        self.neck = self.neck.or(other.neck);
        self.head = self.head.or(other.head);
        for i in 0..2 {
            let (a, b) = (&mut self.legs[i], &other.legs[i]);
            // Only take the heuristic's leg whole, so a chain never mixes two schemes: when
            // this leg has none of its joints, or is incomplete and the heuristic's complete
            // leg agrees with the joints it has.
            let complete =
                |l: &PartialLeg| l.thigh.is_some() && l.calf.is_some() && l.foot.is_some();
            let agrees = |x: Option<usize>, y: Option<usize>| x.is_none() || x == y;
            let takes_whole = (a.thigh.is_none() && a.calf.is_none() && a.foot.is_none())
                || (!complete(a)
                    && complete(b)
                    && agrees(a.thigh, b.thigh)
                    && agrees(a.calf, b.calf));
            if takes_whole {
                *a = *b;
                if self.leg_problems[i].is_none() {
                    self.leg_problems[i] = other.leg_problems[i].clone();
                }
            } else if a.ball.is_none() && a.foot.is_some() && a.foot == b.foot {
                a.ball = b.ball;
            }
            if a.thigh.is_some() && a.calf.is_some() && a.foot.is_some() {
                self.leg_problems[i] = None;
            }
            let (a, b) = (&mut self.arms[i], &other.arms[i]);
            if a.upperarm.is_none() && a.lowerarm.is_none() && a.hand.is_none() {
                *a = *b;
            }
        }
    }

    /// Flags each leg whose foot does not hang below its calf (an IK target; the chain
    /// checks have already refused feet that cannot be one).
    fn mark_ik_target_feet(&mut self, skeleton: &Skeleton) {
        for leg in &mut self.legs {
            leg.foot_is_ik_target = match (leg.calf, leg.foot) {
                (Some(calf), Some(foot)) => !skeleton.is_ancestor_or_self(calf, foot),
                _ => false,
            };
        }
    }

    /// Derives heel, ball and mid-foot sockets from the rest pose, assuming the rig stands on
    /// model-space y = 0 in its rest pose: from the toe joint when the leg has one, else from
    /// leg-length proportions ([`FootSockets::from_proportions`]).
    fn derive_foot_sockets(&mut self, skeleton: &Skeleton) {
        let rest_model = skeleton.rest_model();
        for side in Side::BOTH {
            let i = side.index();
            let derived = self.leg(side).ok().and_then(|leg| {
                derive_sockets(&rest_model, &leg)
                    .map(|s| (s, SocketSource::ToeJoint))
                    .or_else(|| {
                        sockets_from_proportions(&rest_model, leg.thigh, leg.calf, leg.foot)
                            .map(|s| (s, SocketSource::Proportions))
                    })
            });
            self.feet[i] = derived.map(|(s, _)| s);
            self.feet_source[i] = derived.map(|(_, source)| source);
        }
    }
}

impl BoneNames {
    /// Each leg's roles with their field names (`thigh_l`, `calf_l`, `foot_l`, `ball_l`,
    /// then the right side's), indexed by [`Side::index`].
    pub fn leg_roles(&self) -> [[(&'static str, &Option<String>); 4]; 2] {
        let names = [
            [&self.thigh_l, &self.calf_l, &self.foot_l, &self.ball_l],
            [&self.thigh_r, &self.calf_r, &self.foot_r, &self.ball_r],
        ];
        [0, 1].map(|side| [0, 1, 2, 3].map(|k| (LEG_ROLES[side][k], names[side][k])))
    }

    /// The arms' roles with their field names: upper arm, lower arm, hand; left, then right.
    pub fn arm_roles(&self) -> [(&'static str, &Option<String>); 6] {
        [
            ("upperarm_l", &self.upperarm_l),
            ("lowerarm_l", &self.lowerarm_l),
            ("hand_l", &self.hand_l),
            ("upperarm_r", &self.upperarm_r),
            ("lowerarm_r", &self.lowerarm_r),
            ("hand_r", &self.hand_r),
        ]
    }

    /// Thigh, calf, foot and ball names of each leg, indexed by [`Side::index`].
    fn leg_names(&self) -> [[Option<String>; 4]; 2] {
        [
            [
                self.thigh_l.clone(),
                self.calf_l.clone(),
                self.foot_l.clone(),
                self.ball_l.clone(),
            ],
            [
                self.thigh_r.clone(),
                self.calf_r.clone(),
                self.foot_r.clone(),
                self.ball_r.clone(),
            ],
        ]
    }
}

/// The first link of `leg` (thigh → calf → foot → ball, skipping missing joints' links)
/// whose lower joint is not below the upper one: the index of that lower role (1 calf,
/// 2 foot, 3 ball) and the error naming both joints and the lower one's parent chain. A foot
/// that is not below its calf is not a break when it can be an IK target (it hangs from the
/// root or an IK-control bone); it is one ([`BoneMapError::FootAboveLeg`]) when it is the
/// calf or one of the calf's ancestors.
fn chain_break(skeleton: &Skeleton, leg: &PartialLeg, side: Side) -> Option<(usize, BoneMapError)> {
    let joints = [leg.thigh, leg.calf, leg.foot, leg.ball];
    let roles = LEG_ROLES[side.index()];
    for upper in 0..3 {
        let lower = upper + 1;
        let (Some(p), Some(c)) = (joints[upper], joints[lower]) else {
            continue;
        };
        if p != c && skeleton.is_ancestor_or_self(p, c) {
            continue;
        }
        let is_foot = lower == 2;
        let carries_leg = skeleton.is_ancestor_or_self(c, p);
        if is_foot && !carries_leg {
            continue; // an IK-target foot
        }
        let ancestry = std::iter::successors(Some(c), |&j| skeleton.parent(j))
            .map(|j| skeleton.name(j).to_string())
            .collect();
        let chain = Box::new(BrokenChain {
            parent_role: roles[upper],
            parent: skeleton.name(p).to_string(),
            parent_joint: p,
            child_role: roles[lower],
            child: skeleton.name(c).to_string(),
            child_joint: c,
            child_ancestry: ancestry,
        });
        let err = if is_foot {
            BoneMapError::FootAboveLeg(chain)
        } else {
            BoneMapError::BrokenChain(chain)
        };
        return Some((lower, err));
    }
    None
}

/// Keeps the part of `leg` above its first broken link and returns the error for that link.
fn cut_at_break(skeleton: &Skeleton, leg: &mut PartialLeg, side: Side) -> Option<BoneMapError> {
    let (lower, err) = chain_break(skeleton, leg, side)?;
    let slots = [&mut leg.calf, &mut leg.foot, &mut leg.ball];
    for slot in slots.into_iter().skip(lower - 1) {
        *slot = None;
    }
    Some(err)
}

/// Foot length as a fraction of leg length (hip to knee plus knee to ankle): 0.152 H over
/// 0.245 H + 0.246 H, the segment lengths as fractions of stature H of Drillis & Contini
/// (1966), as tabulated in Winter, *Biomechanics and Motor Control of Human Movement*, fig. 4.1.
const FOOT_PER_LEG_LENGTH: f32 = 0.31;
/// Back of the heel behind the ankle, as a fraction of foot length (the ankle axis sits about
/// a quarter of the foot length in front of the back of the heel).
const HEEL_BEHIND_ANKLE_PER_FOOT: f32 = 0.25;
/// Ball (metatarsal heads) ahead of the ankle, as a fraction of foot length: the ball lies at
/// about 72 % of the foot length from the back of the heel (the shoe-last ball line),
/// 0.72 − 0.25 = 0.47 ahead of the ankle.
const BALL_AHEAD_OF_ANKLE_PER_FOOT: f32 = 0.47;

impl FootSockets {
    /// Sockets of a foot without a toe joint from leg-length proportions (rest pose, model
    /// space +Z forward, ground at y = 0 or the ankle if lower): foot length 0.31 × (thigh +
    /// shin length); the ball 0.47 and the back of the heel 0.25 foot lengths ahead of and
    /// behind the ankle, both on the ground. `None` for a degenerate (zero-length or
    /// non-finite) leg or out-of-range joints.
    pub fn from_proportions(
        skeleton: &Skeleton,
        thigh: usize,
        calf: usize,
        foot: usize,
    ) -> Option<FootSockets> {
        let n = skeleton.num_joints();
        if thigh >= n || calf >= n || foot >= n {
            return None;
        }
        sockets_from_proportions(&skeleton.rest_model(), thigh, calf, foot)
    }

    /// Sockets of `foot` from points of its skin: `points_model` are rest-pose model-space
    /// positions of the vertices weighted to the foot (y up, +Z forward). The sole is the
    /// lowest 10 % of the points' height range; the heel socket is at the sole's rearmost
    /// point and the ball socket at its frontmost (a foot without a toe joint pivots at the
    /// front of its sole), each at the mean x of the sole points in the rear or front fifth
    /// of its length, both at the lowest point's height. `None` with fewer than 4 finite
    /// points or a sole shorter than 1 cm.
    pub fn from_sole_points(
        skeleton: &Skeleton,
        foot: usize,
        points_model: &[Vec3],
    ) -> Option<FootSockets> {
        if foot >= skeleton.num_joints() {
            return None;
        }
        let points: Vec<Vec3> = points_model
            .iter()
            .copied()
            .filter(|p| p.is_finite())
            .collect();
        if points.len() < 4 {
            return None;
        }
        let (low, high) = points.iter().fold((f32::MAX, f32::MIN), |(lo, hi), p| {
            (lo.min(p.y), hi.max(p.y))
        });
        let band = 0.1 * (high - low);
        let sole: Vec<Vec3> = points
            .iter()
            .copied()
            .filter(|p| p.y <= low + band)
            .collect();
        let (rear, front) = sole
            .iter()
            .fold((f32::MAX, f32::MIN), |(r, f), p| (r.min(p.z), f.max(p.z)));
        let length = front - rear;
        if length.is_nan() || length < 0.01 {
            return None;
        }
        let mean_x = |keep: &dyn Fn(f32) -> bool| {
            let (sum, count) = sole
                .iter()
                .filter(|p| keep(p.z))
                .fold((0.0, 0), |(s, c), p| (s + p.x, c + 1));
            sum / count.max(1) as f32
        };
        let heel_x = mean_x(&|z| z <= rear + 0.2 * length);
        let ball_x = mean_x(&|z| z >= front - 0.2 * length);
        let to_foot = skeleton.rest_model()[foot].inverse();
        let heel = to_foot.transform_point3(Vec3::new(heel_x, low, rear));
        let ball = to_foot.transform_point3(Vec3::new(ball_x, low, front));
        (heel.is_finite() && ball.is_finite()).then_some(FootSockets {
            heel_foot_local: heel,
            ball_foot_local: ball,
            mid_foot_local: (heel + ball) * 0.5,
        })
    }
}

fn sockets_from_proportions(
    rest_model: &[Affine3A],
    thigh: usize,
    calf: usize,
    foot: usize,
) -> Option<FootSockets> {
    let at = |j: usize| Vec3::from(rest_model[j].translation);
    let (hip, knee, ankle) = (at(thigh), at(calf), at(foot));
    let leg_length = (knee - hip).length() + (ankle - knee).length();
    let foot_length = FOOT_PER_LEG_LENGTH * leg_length;
    if !foot_length.is_finite() || foot_length <= 1e-4 {
        return None;
    }
    let sole_y = ankle.y.min(0.0);
    let heel_model = Vec3::new(
        ankle.x,
        sole_y,
        ankle.z - HEEL_BEHIND_ANKLE_PER_FOOT * foot_length,
    );
    let ball_model = Vec3::new(
        ankle.x,
        sole_y,
        ankle.z + BALL_AHEAD_OF_ANKLE_PER_FOOT * foot_length,
    );
    let to_foot = rest_model[foot].inverse();
    let heel = to_foot.transform_point3(heel_model);
    let ball = to_foot.transform_point3(ball_model);
    (heel.is_finite() && ball.is_finite()).then_some(FootSockets {
        heel_foot_local: heel,
        ball_foot_local: ball,
        mid_foot_local: (heel + ball) * 0.5,
    })
}

/// Sockets from the foot and its ball (toe) joint in the rest pose.
fn derive_sockets(rest_model: &[Affine3A], leg: &LegChain) -> Option<FootSockets> {
    let foot_model = rest_model[leg.foot];
    let ankle = Vec3::from(foot_model.translation);
    let ball = Vec3::from(rest_model[leg.ball?].translation);
    // A toe joint (almost) straight below or above the ankle says nothing about the foot's
    // length: heel and ball would be millimetres apart. Leave it to the proportions.
    let shin_length = (ankle - Vec3::from(rest_model[leg.calf].translation)).length();
    let ahead = Vec3::new(ball.x - ankle.x, 0.0, ball.z - ankle.z).length();
    if !ahead.is_finite() || !shin_length.is_finite() || ahead < 0.1 * shin_length {
        return None;
    }
    let sole_y = ball.y.min(0.0);
    let forward = {
        let f = Vec3::new(ball.x - ankle.x, 0.0, ball.z - ankle.z);
        if f.length_squared() > 1e-8 {
            f.normalize()
        } else {
            Vec3::Z
        }
    };
    let ankle_to_ball = Vec3::new(ball.x - ankle.x, 0.0, ball.z - ankle.z).length();
    // The heel sticks out behind the ankle by about a third of the ankle-to-ball length.
    let heel_model = Vec3::new(ankle.x, sole_y, ankle.z) - forward * (0.35 * ankle_to_ball);
    let ball_model = Vec3::new(ball.x, sole_y, ball.z);
    let to_foot = foot_model.inverse();
    let heel = to_foot.transform_point3(heel_model);
    let ball = to_foot.transform_point3(ball_model);
    let sockets = FootSockets {
        heel_foot_local: heel,
        ball_foot_local: ball,
        mid_foot_local: (heel + ball) * 0.5,
    };
    (heel.is_finite() && ball.is_finite()).then_some(sockets)
}

/// The map a preset's names give, and how many of its roles matched with the exact letter
/// case (the tie-break between presets that differ only in case, e.g. KayKit and Quaternius).
fn from_preset(
    skeleton: &Skeleton,
    index: &NameIndex,
    table: &PresetTable,
) -> (HumanoidMap, usize) {
    let spine: Vec<usize> = table.spine.iter().filter_map(|n| index.find(n)).collect();
    let mut legs = [PartialLeg::default(); 2];
    let mut arms = [PartialArm::default(); 2];
    for side in Side::BOTH {
        let s = Some(table.sides[side.index()]);
        legs[side.index()] = PartialLeg {
            thigh: index.first(table.thigh, s),
            calf: index.first(table.calf, s),
            foot: index.first(table.foot, s),
            ball: index.first(table.ball, s),
            foot_is_ik_target: false,
        };
        arms[side.index()] = PartialArm {
            upperarm: index.first(table.upperarm, s),
            lowerarm: index.first(table.lowerarm, s),
            hand: index.first(table.hand, s),
        };
    }
    let mut map = HumanoidMap {
        preset: table.preset,
        pelvis: index.first(table.pelvis, None),
        spine,
        neck: index.first(table.neck, None),
        head: index.first(table.head, None),
        legs,
        arms,
        feet: [None, None],
        feet_source: [None, None],
        leg_problems: [None, None],
    };
    // A joint of a preset leg that is not below the one above it is not that leg's joint
    // (except an IK-target foot, see `chain_break`): keep the chain above it and remember
    // why.
    for side in Side::BOTH {
        let i = side.index();
        map.leg_problems[i] = cut_at_break(skeleton, &mut map.legs[i], side);
    }
    let mut exact = table
        .spine
        .iter()
        .filter(|n| index.bases.iter().any(|b| b == *n))
        .count();
    exact += index.exact_matches(table.pelvis, None, map.pelvis);
    exact += index.exact_matches(table.neck, None, map.neck);
    exact += index.exact_matches(table.head, None, map.head);
    for side in Side::BOTH {
        let s = Some(table.sides[side.index()]);
        let (leg, arm) = (map.legs[side.index()], map.arms[side.index()]);
        exact += index.exact_matches(table.thigh, s, leg.thigh);
        exact += index.exact_matches(table.calf, s, leg.calf);
        exact += index.exact_matches(table.foot, s, leg.foot);
        exact += index.exact_matches(table.ball, s, leg.ball);
        exact += index.exact_matches(table.upperarm, s, arm.upperarm);
        exact += index.exact_matches(table.lowerarm, s, arm.lowerarm);
        exact += index.exact_matches(table.hand, s, arm.hand);
    }
    (map, exact)
}

/// Splits a name into lowercase words at separators and camel-case humps:
/// `mixamorig:LeftUpLeg` → `["left", "up", "leg"]`, `DEF-thigh.L` → `["def", "thigh", "l"]`.
fn words(name: &str) -> Vec<String> {
    let base = name.rsplit([':', '|']).next().unwrap_or(name);
    let mut out = Vec::new();
    let mut current = String::new();
    let mut prev_lower = false;
    for ch in base.chars() {
        if !ch.is_ascii_alphanumeric() {
            if !current.is_empty() {
                out.push(std::mem::take(&mut current));
            }
            prev_lower = false;
            continue;
        }
        if ch.is_ascii_uppercase() && prev_lower && !current.is_empty() {
            out.push(std::mem::take(&mut current));
        }
        prev_lower = ch.is_ascii_lowercase() || ch.is_ascii_digit();
        current.push(ch.to_ascii_lowercase());
    }
    if !current.is_empty() {
        out.push(current);
    }
    out
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Guess {
    Pelvis,
    Spine,
    Neck,
    Head,
    Thigh,
    Calf,
    Foot,
    Ball,
    UpperArm,
    LowerArm,
    Hand,
}

/// Role and side guessed from a joint name's words; helper and control bones are skipped.
fn guess(name: &str) -> Option<(Guess, Option<Side>)> {
    let w = words(name);
    let has = |s: &str| w.iter().any(|x| x == s);
    const SKIP: [&str; 12] = [
        "twist", "roll", "ik", "fk", "pole", "target", "ctrl", "mch", "org", "end", "slot", "tip",
    ];
    if SKIP.iter().any(|s| has(s))
        || w.iter()
            .any(|x| x.ends_with("slot") || x.ends_with("twist"))
    {
        return None;
    }
    let side = if has("l") || has("left") || w.first().is_some_and(|f| f == "left") {
        Some(Side::Left)
    } else if has("r") || has("right") {
        Some(Side::Right)
    } else {
        None
    };
    let joined: String = w
        .iter()
        .filter(|x| !["l", "r", "left", "right", "def", "b", "bip01", "bip"].contains(&x.as_str()))
        .cloned()
        .collect::<Vec<_>>()
        .join("");
    // Strip trailing digits (spine01, spine_02 …) for the keyword match.
    let key = joined.trim_end_matches(|c: char| c.is_ascii_digit());
    let role = match key {
        "pelvis" | "hips" | "hip" | "root_pelvis" => Guess::Pelvis,
        "spine" | "chest" | "upperchest" | "torso" | "abdomen" => Guess::Spine,
        "neck" => Guess::Neck,
        "head" => Guess::Head,
        "thigh" | "upleg" | "upperleg" | "femur" | "legupper" => Guess::Thigh,
        "calf" | "shin" | "lowerleg" | "knee" | "leg" | "leglower" | "crus" => Guess::Calf,
        "foot" | "ankle" => Guess::Foot,
        "ball" | "toe" | "toes" | "toebase" => Guess::Ball,
        "upperarm" | "arm" | "armupper" => Guess::UpperArm,
        "forearm" | "lowerarm" | "elbow" | "armlower" => Guess::LowerArm,
        "hand" | "wrist" => Guess::Hand,
        _ => return None,
    };
    let sided = matches!(
        role,
        Guess::Thigh
            | Guess::Calf
            | Guess::Foot
            | Guess::Ball
            | Guess::UpperArm
            | Guess::LowerArm
            | Guess::Hand
    );
    match (sided, side) {
        (true, None) => None,
        (true, s) => Some((role, s)),
        (false, _) => Some((role, None)),
    }
}

fn heuristic_map(skeleton: &Skeleton) -> HumanoidMap {
    let guesses: Vec<Option<(Guess, Option<Side>)>> =
        skeleton.names().iter().map(|n| guess(n)).collect();
    // The shallowest joint with a role wins (the deform bone, not a deeper helper).
    let pick = |role: Guess, side: Option<Side>| -> Option<usize> {
        (0..skeleton.num_joints())
            .filter(|&j| guesses[j] == Some((role, side)))
            .min_by_key(|&j| skeleton.depth(j))
    };
    let mut spine: Vec<usize> = (0..skeleton.num_joints())
        .filter(|&j| matches!(guesses[j], Some((Guess::Spine, _))))
        .collect();
    spine.sort_by_key(|&j| skeleton.depth(j));
    let mut map = HumanoidMap {
        preset: BonePreset::Heuristic,
        pelvis: pick(Guess::Pelvis, None),
        spine,
        neck: pick(Guess::Neck, None),
        head: pick(Guess::Head, None),
        legs: [PartialLeg::default(); 2],
        arms: [PartialArm::default(); 2],
        feet: [None, None],
        feet_source: [None, None],
        leg_problems: [None, None],
    };
    for side in Side::BOTH {
        let s = Some(side);
        let thigh = pick(Guess::Thigh, s);
        // Lower joints are chosen among the descendants of the one above, so a chain holds.
        let below = |role: Guess, above: Option<usize>| -> Option<usize> {
            let above = above?;
            (0..skeleton.num_joints())
                .filter(|&j| {
                    j != above
                        && guesses[j] == Some((role, s))
                        && skeleton.is_ancestor_or_self(above, j)
                })
                .min_by_key(|&j| skeleton.depth(j))
        };
        let calf = below(Guess::Calf, thigh);
        // An IK-target foot hangs from the root or an IK-control bone, not below the calf;
        // a foot above the calf is no foot of this leg.
        let foot = below(Guess::Foot, calf).or_else(|| {
            let calf = calf?;
            pick(Guess::Foot, s).filter(|&f| !skeleton.is_ancestor_or_self(f, calf))
        });
        let ball = below(Guess::Ball, foot);
        map.legs[side.index()] = PartialLeg {
            thigh,
            calf,
            foot,
            ball,
            foot_is_ik_target: false,
        };
        // A joint named like this leg's calf or foot that is not below the joint above it
        // (a calf outside the thigh, a foot above the calf): say so rather than "not found".
        if calf.is_none() || foot.is_none() {
            let named = PartialLeg {
                thigh,
                calf: calf.or_else(|| pick(Guess::Calf, s)),
                foot: foot.or_else(|| pick(Guess::Foot, s)),
                ball: None,
                foot_is_ik_target: false,
            };
            map.leg_problems[side.index()] = chain_break(skeleton, &named, side).map(|(_, e)| e);
        }
        let upperarm = pick(Guess::UpperArm, s);
        let lowerarm = below(Guess::LowerArm, upperarm);
        let hand = below(Guess::Hand, lowerarm);
        map.arms[side.index()] = PartialArm {
            upperarm,
            lowerarm,
            hand,
        };
    }
    map
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::skeleton::{Joint, Transform};

    /// A minimal leg rig with the given names: root → hips → (thigh → calf → foot → toe) × 2.
    fn leg_rig(names: [&str; 10]) -> Skeleton {
        let [root, hips, tl, cl, fl, bl, tr, cr, fr, br] = names;
        let j = |name: &str, parent: Option<usize>, t: Vec3| Joint {
            name: name.into(),
            parent,
            rest_local: Transform::from_translation(t),
        };
        Skeleton::new(vec![
            j(root, None, Vec3::ZERO),
            j(hips, Some(0), Vec3::new(0.0, 0.95, 0.0)),
            j(tl, Some(1), Vec3::new(0.1, -0.05, 0.0)),
            j(cl, Some(2), Vec3::new(0.0, -0.42, 0.0)),
            j(fl, Some(3), Vec3::new(0.0, -0.4, 0.0)),
            j(bl, Some(4), Vec3::new(0.0, -0.06, 0.13)),
            j(tr, Some(1), Vec3::new(-0.1, -0.05, 0.0)),
            j(cr, Some(6), Vec3::new(0.0, -0.42, 0.0)),
            j(fr, Some(7), Vec3::new(0.0, -0.4, 0.0)),
            j(br, Some(8), Vec3::new(0.0, -0.06, 0.13)),
        ])
        .unwrap()
    }

    #[test]
    fn presets_find_legs() {
        let cases: [([&str; 10], BonePreset); 5] = [
            (
                [
                    "root", "pelvis", "thigh_l", "calf_l", "foot_l", "ball_l", "thigh_r", "calf_r",
                    "foot_r", "ball_r",
                ],
                BonePreset::UnrealMannequin,
            ),
            (
                [
                    "mixamorig:Root",
                    "mixamorig:Hips",
                    "mixamorig:LeftUpLeg",
                    "mixamorig:LeftLeg",
                    "mixamorig:LeftFoot",
                    "mixamorig:LeftToeBase",
                    "mixamorig:RightUpLeg",
                    "mixamorig:RightLeg",
                    "mixamorig:RightFoot",
                    "mixamorig:RightToeBase",
                ],
                BonePreset::Mixamo,
            ),
            (
                [
                    "root",
                    "DEF-hips",
                    "DEF-thigh.L",
                    "DEF-shin.L",
                    "DEF-foot.L",
                    "DEF-toe.L",
                    "DEF-thigh.R",
                    "DEF-shin.R",
                    "DEF-foot.R",
                    "DEF-toe.R",
                ],
                BonePreset::Rigify,
            ),
            (
                [
                    "root",
                    "hips",
                    "upperleg.l",
                    "lowerleg.l",
                    "foot.l",
                    "toes.l",
                    "upperleg.r",
                    "lowerleg.r",
                    "foot.r",
                    "toes.r",
                ],
                BonePreset::KayKit,
            ),
            (
                [
                    "Root",
                    "Hips",
                    "UpperLeg.L",
                    "LowerLeg.L",
                    "Foot.L",
                    "Toes.L",
                    "UpperLeg.R",
                    "LowerLeg.R",
                    "Foot.R",
                    "Toes.R",
                ],
                BonePreset::Quaternius,
            ),
        ];
        for (names, preset) in cases {
            let s = leg_rig(names);
            let map = HumanoidMap::detect(&s);
            assert_eq!(map.preset, preset, "{names:?}");
            assert_eq!(map.pelvis, Some(1));
            let l = map.leg(Side::Left).unwrap();
            assert_eq!(
                (l.thigh, l.calf, l.foot, l.ball),
                (2, 3, 4, Some(5)),
                "{names:?}"
            );
            let r = map.leg(Side::Right).unwrap();
            assert_eq!(
                (r.thigh, r.calf, r.foot, r.ball),
                (6, 7, 8, Some(9)),
                "{names:?}"
            );
        }
    }

    #[test]
    fn heuristic_handles_unknown_schemes() {
        let s = leg_rig([
            "Bip01",
            "Bip01_Pelvis",
            "Bip01_L_Thigh",
            "Bip01_L_Calf",
            "Bip01_L_Foot",
            "Bip01_L_Toe0",
            "Bip01_R_Thigh",
            "Bip01_R_Calf",
            "Bip01_R_Foot",
            "Bip01_R_Toe0",
        ]);
        let map = HumanoidMap::detect(&s);
        assert_eq!(map.preset, BonePreset::Heuristic);
        assert_eq!(map.pelvis, Some(1));
        assert_eq!(map.leg(Side::Left).unwrap().foot, 4);
        assert_eq!(map.leg(Side::Right).unwrap().ball, Some(9));
        assert_eq!(words("mixamorig:LeftUpLeg"), ["left", "up", "leg"]);
    }

    #[test]
    fn missing_leg_is_reported() {
        let s = Skeleton::new(vec![Joint {
            name: "blob".into(),
            parent: None,
            rest_local: Transform::IDENTITY,
        }])
        .unwrap();
        let map = HumanoidMap::detect(&s);
        let err = map.leg(Side::Left).unwrap_err();
        assert_eq!(
            err,
            BoneMapError::MissingLeg {
                side: Side::Left,
                missing: vec!["thigh", "calf", "foot"]
            }
        );
        assert!(err.to_string().contains("foot IK is disabled"));
        assert_eq!(map.feet, [None, None]);
    }

    #[test]
    fn sockets_from_rest_pose() {
        let s = leg_rig([
            "root", "pelvis", "thigh_l", "calf_l", "foot_l", "ball_l", "thigh_r", "calf_r",
            "foot_r", "ball_r",
        ]);
        let map = HumanoidMap::detect(&s);
        let feet = map.feet[0].unwrap();
        // Ankle at (0.1, 0.08, 0), ball joint at (0.1, 0.02, 0.13): the ball socket is under
        // the ball on the ground, the heel behind the ankle on the ground.
        let ankle = s.rest_position_model(4);
        assert!((ankle - Vec3::new(0.1, 0.08, 0.0)).length() < 1e-5);
        assert!((ankle + feet.ball_foot_local - Vec3::new(0.1, 0.0, 0.13)).length() < 1e-5);
        let heel_model = ankle + feet.heel_foot_local;
        assert!(heel_model.y.abs() < 1e-5 && heel_model.z < -0.04 && heel_model.z > -0.06);
    }

    /// Quaternius-style rig: thigh → calf, but each foot hangs from the armature root
    /// (an IK target), and there are no toe joints.
    fn detached_feet_rig() -> Skeleton {
        let j = |name: &str, parent: Option<usize>, t: Vec3| Joint {
            name: name.into(),
            parent,
            rest_local: Transform::from_translation(t),
        };
        Skeleton::new(vec![
            j("Root", None, Vec3::ZERO),
            j("Foot.L", Some(0), Vec3::new(0.1, 0.08, 0.0)),
            j("Hips", Some(0), Vec3::new(0.0, 0.95, 0.0)),
            j("UpperLeg.L", Some(2), Vec3::new(0.1, -0.05, 0.0)),
            j("LowerLeg.L", Some(3), Vec3::new(0.0, -0.42, 0.0)),
            j("UpperLeg.R", Some(2), Vec3::new(-0.1, -0.05, 0.0)),
            j("LowerLeg.R", Some(5), Vec3::new(0.0, -0.42, 0.0)),
            j("Foot.R", Some(0), Vec3::new(-0.1, 0.08, 0.0)),
        ])
        .unwrap()
    }

    #[test]
    fn an_ik_target_foot_ends_its_leg() {
        let s = detached_feet_rig();
        let map = HumanoidMap::detect(&s);
        // Quaternius names, not KayKit's lower-case ones.
        assert_eq!(map.preset, BonePreset::Quaternius);
        let left = map.leg(Side::Left).unwrap();
        assert_eq!(
            left,
            LegChain {
                thigh: 3,
                calf: 4,
                foot: 1,
                ball: None,
                foot_is_ik_target: true,
            }
        );
        assert_eq!(map.leg(Side::Right).unwrap().foot, 7);
        assert!(map.leg(Side::Right).unwrap().foot_is_ik_target);
        // The virtual ankle: the foot's rest position in the calf's frame.
        let ankle = left.ankle_in_calf(&s);
        assert!(
            (ankle - Vec3::new(0.0, -0.4, 0.0)).length() < 1e-6,
            "{ankle}"
        );
        // Sockets from leg proportions, on the ground (no toe joint, no mesh).
        assert_eq!(map.feet_source[0], Some(SocketSource::Proportions));
        // The same from explicit names, and read back from them.
        let names = map.to_names(&s);
        assert_eq!(names.foot_l.as_deref(), Some("Foot.L"));
        let explicit = HumanoidMap::from_names(&s, &names).unwrap();
        assert_eq!(explicit.leg(Side::Left).unwrap(), left);
        // A foot below its calf is not an IK target.
        let normal = leg_rig([
            "root", "pelvis", "thigh_l", "calf_l", "foot_l", "ball_l", "thigh_r", "calf_r",
            "foot_r", "ball_r",
        ]);
        let leg = HumanoidMap::detect(&normal).leg(Side::Left).unwrap();
        assert!(!leg.foot_is_ik_target);
        assert!((leg.ankle_in_calf(&normal) - Vec3::new(0.0, -0.4, 0.0)).length() < 1e-6);
    }

    #[test]
    fn a_foot_above_its_calf_is_refused_with_the_reason() {
        // The "foot" carries the leg: hips hang from it.
        let j = |name: &str, parent: Option<usize>, t: Vec3| Joint {
            name: name.into(),
            parent,
            rest_local: Transform::from_translation(t),
        };
        let s = Skeleton::new(vec![
            j("Root", None, Vec3::ZERO),
            j("Foot.L", Some(0), Vec3::new(0.1, 0.08, 0.0)),
            j("Hips", Some(1), Vec3::new(0.0, 0.95, 0.0)),
            j("UpperLeg.L", Some(2), Vec3::new(0.1, -0.05, 0.0)),
            j("LowerLeg.L", Some(3), Vec3::new(0.0, -0.42, 0.0)),
        ])
        .unwrap();
        let names = BoneNames {
            thigh_l: Some("UpperLeg.L".into()),
            calf_l: Some("LowerLeg.L".into()),
            foot_l: Some("Foot.L".into()),
            ..Default::default()
        };
        let err = HumanoidMap::from_names(&s, &names).unwrap_err();
        assert!(matches!(err, BoneMapError::FootAboveLeg(_)), "{err:?}");
        assert_eq!(
            err.to_string(),
            "foot_l 'Foot.L' (joint 1) cannot be this leg's foot: it is an ancestor of calf_l 'LowerLeg.L' (joint 4), so placing it would move the leg it ends; its parent chain is Foot.L → Root"
        );
        // Detection keeps the thigh and calf and gives the same reason.
        let map = HumanoidMap::detect(&s);
        assert_eq!(map.legs[0].calf, Some(4));
        assert_eq!(map.legs[0].foot, None);
        assert_eq!(map.leg(Side::Left).unwrap_err(), err);
        // The calf named as its own foot.
        let same = BoneNames {
            foot_l: Some("LowerLeg.L".into()),
            ..names
        };
        let err = HumanoidMap::from_names(&s, &same).unwrap_err().to_string();
        assert!(err.contains("it is the same joint as calf_l"), "{err}");
    }

    #[test]
    fn the_heuristic_also_finds_ik_target_feet_and_says_which_foot_is_unusable() {
        // Names no preset knows. The left foot hangs from the rig root (an IK target); the
        // right "foot" carries the right leg.
        let j = |name: &str, parent: Option<usize>| Joint {
            name: name.into(),
            parent,
            rest_local: Transform::from_translation(Vec3::new(0.0, -0.1, 0.0)),
        };
        let s = Skeleton::new(vec![
            j("rig", None),
            j("ik_free_foot_left", Some(0)),
            j("my_hips", Some(0)),
            j("Thigh_Left", Some(2)),
            j("Shin_Left", Some(3)),
            j("Foot_Left", Some(0)),
            j("Foot_Right", Some(2)),
            j("Thigh_Right", Some(6)),
            j("Shin_Right", Some(7)),
        ])
        .unwrap();
        let map = HumanoidMap::detect(&s);
        assert_eq!(map.preset, BonePreset::Heuristic);
        let left = map.leg(Side::Left).unwrap();
        assert_eq!((left.foot, left.foot_is_ik_target), (5, true));
        match map.leg(Side::Right).unwrap_err() {
            BoneMapError::FootAboveLeg(chain) => {
                let BrokenChain {
                    child,
                    parent,
                    child_ancestry,
                    ..
                } = *chain;
                assert_eq!(
                    (child.as_str(), parent.as_str()),
                    ("Foot_Right", "Shin_Right")
                );
                assert_eq!(child_ancestry, ["Foot_Right", "my_hips", "rig"]);
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn truly_absent_joints_are_still_reported_as_missing() {
        let j = |name: &str, parent: Option<usize>| Joint {
            name: name.into(),
            parent,
            rest_local: Transform::IDENTITY,
        };
        let s = Skeleton::new(vec![j("rig", None), j("Thigh_Left", Some(0))]).unwrap();
        assert!(matches!(
            HumanoidMap::detect(&s).leg(Side::Right).unwrap_err(),
            BoneMapError::MissingLeg { .. }
        ));
    }

    #[test]
    fn check_names_lists_every_problem() {
        let s = detached_feet_rig();
        let names = BoneNames {
            pelvis: Some("Pelvis".into()),
            // Thigh and calf swapped (the IK-target foot itself is fine).
            thigh_l: Some("LowerLeg.L".into()),
            calf_l: Some("UpperLeg.L".into()),
            foot_l: Some("Foot.L".into()),
            thigh_r: Some("UpperLeg.R".into()),
            calf_r: Some("LowerLeg.R".into()),
            foot_r: Some("Foot_R".into()),
            hand_r: Some("Fist.R".into()),
            ..Default::default()
        };
        let problems: Vec<String> = HumanoidMap::check_names(&s, &names)
            .iter()
            .map(|e| e.to_string())
            .collect();
        assert_eq!(
            problems,
            [
                "bone map names 'Pelvis' for pelvis, but the skeleton has no such joint",
                "bone map names 'Foot_R' for foot_r, but the skeleton has no such joint",
                "bone map names 'Fist.R' for hand_r, but the skeleton has no such joint",
                "calf_l 'UpperLeg.L' (joint 3) is not below thigh_l 'LowerLeg.L' (joint 4): its parent chain is UpperLeg.L → Hips → Root",
            ]
        );
        // from_names stops at the first.
        assert_eq!(
            HumanoidMap::from_names(&s, &names).unwrap_err().to_string(),
            problems[0]
        );
    }

    #[test]
    fn a_map_written_as_names_reads_back_the_same() {
        let s = leg_rig([
            "root", "pelvis", "thigh_l", "calf_l", "foot_l", "ball_l", "thigh_r", "calf_r",
            "foot_r", "ball_r",
        ]);
        let detected = HumanoidMap::detect(&s);
        let names = detected.to_names(&s);
        assert_eq!(names.foot_l.as_deref(), Some("foot_l"));
        let back = HumanoidMap::from_names(&s, &names).unwrap();
        assert_eq!(back.preset, BonePreset::Explicit);
        assert_eq!(back.roles(), detected.roles());
        assert_eq!(back.feet, detected.feet);
        assert_eq!(back.feet_source, detected.feet_source);
        // Explicit sockets are written and read back as explicit.
        let sockets = FootSockets {
            heel_foot_local: Vec3::new(0.0, -0.08, -0.05),
            ball_foot_local: Vec3::new(0.0, -0.08, 0.15),
            mid_foot_local: Vec3::new(0.0, -0.08, 0.05),
        };
        let custom = detected.with_foot_sockets(Side::Right, sockets);
        let back = HumanoidMap::from_names(&s, &custom.to_names(&s)).unwrap();
        assert_eq!(back.feet[1], Some(sockets));
        assert_eq!(
            back.feet_source,
            [Some(SocketSource::ToeJoint), Some(SocketSource::Explicit)]
        );
    }

    #[test]
    fn sockets_without_toe_joints_come_from_leg_proportions() {
        // The leg rig without its toe joints: leg length 0.42 + 0.4 = 0.82 m.
        let s = leg_rig([
            "root", "pelvis", "thigh_l", "calf_l", "foot_l", "ball_l", "thigh_r", "calf_r",
            "foot_r", "ball_r",
        ]);
        let names = BoneNames {
            thigh_l: Some("thigh_l".into()),
            calf_l: Some("calf_l".into()),
            foot_l: Some("foot_l".into()),
            ..Default::default()
        };
        let map = HumanoidMap::from_names(&s, &names).unwrap();
        assert_eq!(map.feet_source[0], Some(SocketSource::Proportions));
        let feet = map.feet[0].unwrap();
        let ankle = s.rest_position_model(4);
        let (heel, ball) = (ankle + feet.heel_foot_local, ankle + feet.ball_foot_local);
        let foot_length = 0.31 * 0.82;
        assert!(
            (ball - Vec3::new(0.1, 0.0, 0.47 * foot_length)).length() < 1e-5,
            "{ball}"
        );
        assert!(
            (heel - Vec3::new(0.1, 0.0, -0.25 * foot_length)).length() < 1e-5,
            "{heel}"
        );
        // 0.72 × 0.254 m = 18.3 cm heel to ball, on the ground.
        assert!(((ball - heel).length() - 0.183).abs() < 0.001);
        assert_eq!(
            feet.mid_foot_local,
            (feet.heel_foot_local + feet.ball_foot_local) * 0.5
        );
    }

    #[test]
    fn a_toe_joint_under_the_ankle_falls_back_to_proportions() {
        let j = |name: &str, parent: Option<usize>, t: Vec3| Joint {
            name: name.into(),
            parent,
            rest_local: Transform::from_translation(t),
        };
        // ball_l 2 mm ahead of the ankle: sockets from it would be 2.7 mm apart.
        let s = Skeleton::new(vec![
            j("pelvis", None, Vec3::new(0.0, 0.95, 0.0)),
            j("thigh_l", Some(0), Vec3::new(0.1, -0.05, 0.0)),
            j("calf_l", Some(1), Vec3::new(0.0, -0.42, 0.0)),
            j("foot_l", Some(2), Vec3::new(0.0, -0.4, 0.0)),
            j("ball_l", Some(3), Vec3::new(0.0, -0.06, 0.002)),
        ])
        .unwrap();
        let map = HumanoidMap::detect(&s);
        assert_eq!(map.leg(Side::Left).unwrap().ball, Some(4));
        assert_eq!(map.feet_source[0], Some(SocketSource::Proportions));
        let f = map.feet[0].unwrap();
        assert!((f.ball_foot_local - f.heel_foot_local).length() > 0.15);
    }

    #[test]
    fn sockets_from_sole_points_take_the_rear_and_front_of_the_sole() {
        let s = detached_feet_rig();
        let foot = 1; // Foot.L at (0.1, 0.08, 0.0)
                      // A box-shaped shoe: sole at y = 0.005 from z = -0.06 to 0.18, top at 0.105, plus a
                      // stray point above the sole band at the very front (the toe cap curving up).
        let mut points = Vec::new();
        for &x in &[0.06, 0.14] {
            for &z in &[-0.06, 0.0, 0.06, 0.12, 0.18] {
                points.push(Vec3::new(x, 0.005, z));
                points.push(Vec3::new(x, 0.105, z));
            }
        }
        points.push(Vec3::new(0.1, 0.05, 0.2));
        points.push(Vec3::NAN);
        let f = FootSockets::from_sole_points(&s, foot, &points).unwrap();
        let ankle = s.rest_position_model(foot);
        let (heel, ball) = (ankle + f.heel_foot_local, ankle + f.ball_foot_local);
        assert!(
            (heel - Vec3::new(0.1, 0.005, -0.06)).length() < 1e-5,
            "{heel}"
        );
        assert!(
            (ball - Vec3::new(0.1, 0.005, 0.18)).length() < 1e-5,
            "{ball}"
        );
        // Too few points, or a sole of no length: no sockets.
        assert_eq!(FootSockets::from_sole_points(&s, foot, &points[..3]), None);
        let flat = [Vec3::new(0.1, 0.0, 0.05); 6];
        assert_eq!(FootSockets::from_sole_points(&s, foot, &flat), None);
        assert_eq!(FootSockets::from_sole_points(&s, 99, &points), None);
    }

    #[test]
    fn skin_sockets_replace_proportions_only() {
        let s = leg_rig([
            "root", "pelvis", "thigh_l", "calf_l", "foot_l", "ball_l", "thigh_r", "calf_r",
            "foot_r", "ball_r",
        ]);
        let mut names = HumanoidMap::detect(&s).to_names(&s);
        names.ball_r = None; // the right foot has no toe joint: proportions
        let mut map = HumanoidMap::from_names(&s, &names).unwrap();
        assert_eq!(
            map.feet_source,
            [
                Some(SocketSource::ToeJoint),
                Some(SocketSource::Proportions)
            ]
        );
        let left_before = map.feet[0];
        let shoe = |x: f32| {
            (0..8)
                .map(move |i| {
                    Vec3::new(
                        x,
                        if i % 2 == 0 { 0.0 } else { 0.1 },
                        -0.07 + 0.04 * (i / 2) as f32,
                    )
                })
                .collect::<Vec<_>>()
        };
        let changed = map.sockets_from_skin(&s, |joint| shoe(s.rest_position_model(joint).x));
        assert_eq!(changed, 1);
        assert_eq!(map.feet[0], left_before);
        assert_eq!(
            map.feet_source,
            [Some(SocketSource::ToeJoint), Some(SocketSource::Mesh)]
        );
        let ankle = s.rest_position_model(8);
        let heel = ankle + map.feet[1].unwrap().heel_foot_local;
        assert!(
            (heel - Vec3::new(-0.1, 0.0, -0.07)).length() < 1e-5,
            "{heel}"
        );
        // Written as names, the mesh sockets are kept (the skeleton alone cannot give them
        // again) and read back as explicit; the toe-joint ones are derived again.
        let names = map.to_names(&s);
        assert_eq!(names.foot_sockets_l, None);
        assert_eq!(names.foot_sockets_r, map.feet[1]);
        let back = HumanoidMap::from_names(&s, &names).unwrap();
        assert_eq!(back.feet, map.feet);
        assert_eq!(
            back.feet_source,
            [Some(SocketSource::ToeJoint), Some(SocketSource::Explicit)]
        );
    }

    #[test]
    fn explicit_names_are_checked() {
        let s = leg_rig(["a", "b", "c", "d", "e", "f", "g", "h", "i", "j"]);
        let names = BoneNames {
            pelvis: Some("b".into()),
            thigh_l: Some("c".into()),
            calf_l: Some("d".into()),
            foot_l: Some("e".into()),
            ..Default::default()
        };
        let map = HumanoidMap::from_names(&s, &names).unwrap();
        assert_eq!(map.leg(Side::Left).unwrap().foot, 4);
        assert!(map.leg(Side::Right).is_err());
        let bad = BoneNames {
            thigh_l: Some("zz".into()),
            ..Default::default()
        };
        assert!(matches!(
            HumanoidMap::from_names(&s, &bad),
            Err(BoneMapError::UnknownJoint { .. })
        ));
        let reversed = BoneNames {
            thigh_l: Some("e".into()),
            calf_l: Some("c".into()),
            ..Default::default()
        };
        assert!(matches!(
            HumanoidMap::from_names(&s, &reversed),
            Err(BoneMapError::BrokenChain(_))
        ));
    }
}
