//! Humanoid bone map: which joint is the pelvis, the spine, each leg and arm, found by an
//! explicit map, by name presets (UE mannequin, Mixamo, Rigify/UAL, KayKit) or by a name
//! heuristic; and the foot sockets (heel, ball, mid-foot points) derived from the rest pose
//! (ANIM-1). A rig without a leg chain is reported, never a panic.

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
}

/// Shoulder-to-hand chain of one arm.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ArmChain {
    pub upperarm: usize,
    pub lowerarm: usize,
    pub hand: usize,
}

/// Points fixed to a foot joint, in the foot joint's local frame (metres): the bottom of the
/// heel, the bottom of the ball, and the mid-foot point between them that ground probes use.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "reflect", derive(bevy_reflect::Reflect))]
pub struct FootSockets {
    pub heel_foot_local: Vec3,
    pub ball_foot_local: Vec3,
    pub mid_foot_local: Vec3,
}

/// Which naming scheme a map came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BonePreset {
    UnrealMannequin,
    Mixamo,
    Rigify,
    KayKit,
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
    #[error("'{child}' ({child_role}) is not below '{parent}' ({parent_role}) in the hierarchy")]
    BrokenChain {
        parent_role: &'static str,
        parent: String,
        child_role: &'static str,
        child: String,
    },
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
}

/// A leg as found; any joint may be missing.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PartialLeg {
    pub thigh: Option<usize>,
    pub calf: Option<usize>,
    pub foot: Option<usize>,
    pub ball: Option<usize>,
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

const PRESETS: [PresetTable; 4] = [
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
];

/// Joint-name lookup that ignores case and a namespace prefix (`mixamorig:`, `Armature|`).
struct NameIndex {
    normalized: Vec<String>,
}

impl NameIndex {
    fn new(skeleton: &Skeleton) -> Self {
        Self {
            normalized: skeleton.names().iter().map(|n| normalize(n)).collect(),
        }
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

fn normalize(name: &str) -> String {
    let base = name.rsplit([':', '|']).next().unwrap_or(name);
    base.to_ascii_lowercase()
}

impl HumanoidMap {
    /// Finds the humanoid bones by the best-matching preset, then fills whatever it missed
    /// with the name heuristic; foot sockets come from the rest pose.
    pub fn detect(skeleton: &Skeleton) -> Self {
        let index = NameIndex::new(skeleton);
        let best = PRESETS
            .iter()
            .map(|table| from_preset(skeleton, &index, table))
            .max_by_key(|map| map.found_count())
            .filter(|map| map.found_count() > 0);
        let heuristic = heuristic_map(skeleton);
        let mut map = match best {
            Some(mut map) => {
                map.fill_from(&heuristic);
                map
            }
            None => heuristic,
        };
        map.derive_foot_sockets(skeleton);
        map
    }

    /// A map from explicit names; every given name must exist. Chains are checked for
    /// parent-child order.
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
                },
                PartialLeg {
                    thigh: find("thigh_r", &names.thigh_r)?,
                    calf: find("calf_r", &names.calf_r)?,
                    foot: find("foot_r", &names.foot_r)?,
                    ball: find("ball_r", &names.ball_r)?,
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
        };
        for side in Side::BOTH {
            map.check_leg_order(skeleton, side)?;
        }
        map.derive_foot_sockets(skeleton);
        if let Some(s) = names.foot_sockets_l {
            map.feet[0] = Some(s);
        }
        if let Some(s) = names.foot_sockets_r {
            map.feet[1] = Some(s);
        }
        Ok(map)
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
            }),
            _ => {
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
        self
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
            // Only take the heuristic's leg whole, so a chain never mixes two schemes.
            if a.thigh.is_none() && a.calf.is_none() && a.foot.is_none() {
                *a = *b;
            } else if a.ball.is_none() && a.foot.is_some() && a.foot == b.foot {
                a.ball = b.ball;
            }
            let (a, b) = (&mut self.arms[i], &other.arms[i]);
            if a.upperarm.is_none() && a.lowerarm.is_none() && a.hand.is_none() {
                *a = *b;
            }
        }
    }

    fn check_leg_order(&self, skeleton: &Skeleton, side: Side) -> Result<(), BoneMapError> {
        let leg = &self.legs[side.index()];
        let s = side.suffix();
        let pairs = [
            (leg.thigh, leg.calf, "thigh", "calf"),
            (leg.calf, leg.foot, "calf", "foot"),
            (leg.foot, leg.ball, "foot", "ball"),
        ];
        for (parent, child, parent_role, child_role) in pairs {
            if let (Some(p), Some(c)) = (parent, child) {
                if p == c || !skeleton.is_ancestor_or_self(p, c) {
                    let _ = s;
                    return Err(BoneMapError::BrokenChain {
                        parent_role,
                        parent: skeleton.name(p).to_string(),
                        child_role,
                        child: skeleton.name(c).to_string(),
                    });
                }
            }
        }
        Ok(())
    }

    /// Derives heel, ball and mid-foot sockets from the rest pose, assuming the rig stands on
    /// model-space y = 0 in its rest pose (soles at the lower of 0 and the ball joint).
    fn derive_foot_sockets(&mut self, skeleton: &Skeleton) {
        let rest_model = skeleton.rest_model();
        for side in Side::BOTH {
            self.feet[side.index()] = self
                .leg(side)
                .ok()
                .and_then(|leg| derive_sockets(&rest_model, &leg));
        }
    }
}

fn derive_sockets(rest_model: &[Affine3A], leg: &LegChain) -> Option<FootSockets> {
    let foot_model = rest_model[leg.foot];
    let ankle = Vec3::from(foot_model.translation);
    let calf = Vec3::from(rest_model[leg.calf].translation);
    let shin_length = (ankle - calf).length();
    let ball = match leg.ball {
        Some(b) => Vec3::from(rest_model[b].translation),
        // No toe joint: a typical ball 55 % of a shin length ahead of the ankle along +Z.
        None => Vec3::new(ankle.x, 0.0, ankle.z + 0.35 * shin_length),
    };
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

fn from_preset(skeleton: &Skeleton, index: &NameIndex, table: &PresetTable) -> HumanoidMap {
    let spine = table.spine.iter().filter_map(|n| index.find(n)).collect();
    let mut legs = [PartialLeg::default(); 2];
    let mut arms = [PartialArm::default(); 2];
    for side in Side::BOTH {
        let s = Some(table.sides[side.index()]);
        legs[side.index()] = PartialLeg {
            thigh: index.first(table.thigh, s),
            calf: index.first(table.calf, s),
            foot: index.first(table.foot, s),
            ball: index.first(table.ball, s),
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
    };
    // A preset leg whose joints are not a parent-child chain is not that preset's leg.
    for side in Side::BOTH {
        if map.check_leg_order(skeleton, side).is_err() {
            map.legs[side.index()] = PartialLeg::default();
        }
    }
    map
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
        let foot = below(Guess::Foot, calf);
        let ball = below(Guess::Ball, foot);
        map.legs[side.index()] = PartialLeg {
            thigh,
            calf,
            foot,
            ball,
        };
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
        let cases: [([&str; 10], BonePreset); 4] = [
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
            Err(BoneMapError::BrokenChain { .. })
        ));
    }
}
