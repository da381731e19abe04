//! Graph parameters (GRAPH-1): named floats, bools and 2D vectors that game code sets each
//! tick and that transitions ([`crate::graph::Expr`]) and blend spaces read.
//!
//! A [`ParamSet`] is declared once (name → typed slot, with a default). Code resolves each
//! name once into a typed handle ([`FloatParam`], [`BoolParam`], [`Vec2Param`]) and then sets
//! and reads values through the handle: no string lookups and no allocation per tick.
//!
//! **Non-finite values are refused**: [`ParamSet::set_float`] and [`ParamSet::set_vec2`]
//! keep the previous value when given NaN or ±∞ (a one-tick physics glitch must not make
//! `speed < 0.1` true and start a Run→Idle crossfade). Defaults must be finite, so a stored
//! value is always finite.

use std::sync::Arc;

use glam::Vec2;

/// The standard ALS locomotion parameter names (SPEC GRAPH-1), as declared by
/// [`ParamSet::als_locomotion`].
pub mod names {
    /// Float, m/s: the character's horizontal ground speed. Default 0.
    pub const SPEED: &str = "speed";
    /// Float, m/s: the speed the input asks for (stick magnitude × max speed). Default 0.
    pub const INPUT_SPEED: &str = "input_speed";
    /// Float, **degrees** in −180..=180: the movement direction relative to the facing,
    /// 0 = forward, +90 = left (+X in model space), ±180 = backward. Degrees because graph
    /// files (blend-space axes, conditions) are authored in degrees. Default 0.
    pub const DIRECTION: &str = "direction";
    /// Bool: the character has a horizontal velocity or movement input. Default false.
    pub const IS_MOVING: &str = "is_moving";
    /// Bool: the character is crouched. Default false.
    pub const IS_CROUCHING: &str = "is_crouching";
    /// Bool: the character stands on walkable ground. Default true.
    pub const IS_GROUNDED: &str = "is_grounded";
    /// Float, m/s, world up positive: the vertical velocity (negative while falling).
    /// Default 0.
    pub const VERTICAL_VELOCITY: &str = "vertical_velocity";
    /// Float, m/s, positive: the downward speed at the last landing (picks light or heavy
    /// land). Default 0.
    pub const LAND_VELOCITY: &str = "land_velocity";
    /// Bool: the upper-body aim overlay is wanted. Default false.
    pub const AIMING: &str = "aiming";
}

/// The type of a parameter slot.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ParamKind {
    /// An `f32`.
    Float,
    /// A `bool`.
    Bool,
    /// A [`glam::Vec2`].
    Vec2,
}

impl std::fmt::Display for ParamKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            ParamKind::Float => "float",
            ParamKind::Bool => "bool",
            ParamKind::Vec2 => "vec2",
        })
    }
}

/// Why a parameter could not be declared or resolved.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ParamError {
    #[error("unknown parameter '{name}'")]
    Unknown { name: String },
    #[error("parameter '{name}' is a {found}, not a {expected}")]
    WrongType {
        name: String,
        expected: ParamKind,
        found: ParamKind,
    },
    #[error("parameter '{name}' is declared twice")]
    Duplicate { name: String },
    #[error(
        "parameter name '{name}' is not an identifier (letters, digits, '_', not starting \
         with a digit, not 'true' or 'false')"
    )]
    InvalidName { name: String },
    #[error("parameter '{name}' has a non-finite default")]
    NonFiniteDefault { name: String },
    #[error("too many parameters (at most {max})", max = u32::MAX)]
    TooMany,
}

/// Handle to a float parameter of one [`ParamSet`] (an index into its float slots).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FloatParam(u32);

/// Handle to a bool parameter of one [`ParamSet`] (an index into its bool slots).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct BoolParam(u32);

/// Handle to a 2D-vector parameter of one [`ParamSet`] (an index into its vec2 slots).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Vec2Param(u32);

/// A handle of any kind, as resolved by [`ParamSet::id`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ParamId {
    /// A float slot.
    Float(FloatParam),
    /// A bool slot.
    Bool(BoolParam),
    /// A 2D-vector slot.
    Vec2(Vec2Param),
}

impl ParamId {
    /// The kind of slot this handle points at.
    pub fn kind(self) -> ParamKind {
        match self {
            ParamId::Float(_) => ParamKind::Float,
            ParamId::Bool(_) => ParamKind::Bool,
            ParamId::Vec2(_) => ParamKind::Vec2,
        }
    }
}

/// Typed values of one kind, with their declared defaults.
#[derive(Clone, Debug, Default, PartialEq)]
struct Slots<T> {
    values: Vec<T>,
    defaults: Vec<T>,
}

impl<T: Copy> Slots<T> {
    fn push(&mut self, default: T) -> Result<u32, ParamError> {
        let index = u32::try_from(self.values.len()).map_err(|_| ParamError::TooMany)?;
        self.values.push(default);
        self.defaults.push(default);
        Ok(index)
    }

    fn reset(&mut self) {
        self.values.copy_from_slice(&self.defaults);
    }
}

/// The parameters of one graph instance: a name table (declared once) and typed value slots
/// (written each tick through handles).
///
/// Handles index the slots of the set that produced them. A handle from another set whose
/// index is out of range reads as the zero value (0.0, false, `Vec2::ZERO`) and writes are
/// ignored; no call panics.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ParamSet {
    /// Shared by the sets cloned from one (every instance of a graph): declaring a
    /// parameter copies it first, reading never does.
    names: Arc<Vec<(String, ParamId)>>,
    floats: Slots<f32>,
    bools: Slots<bool>,
    vec2s: Slots<Vec2>,
}

impl ParamSet {
    /// An empty set.
    pub fn new() -> Self {
        Self::default()
    }

    /// The standard ALS locomotion parameters of [`names`], with the defaults documented
    /// there.
    pub fn als_locomotion() -> Self {
        let mut set = Self::new();
        let floats = [
            names::SPEED,
            names::INPUT_SPEED,
            names::DIRECTION,
            names::VERTICAL_VELOCITY,
            names::LAND_VELOCITY,
        ];
        let bools = [
            (names::IS_MOVING, false),
            (names::IS_CROUCHING, false),
            (names::IS_GROUNDED, true),
            (names::AIMING, false),
        ];
        // The names are valid, distinct constants, so declaring them cannot fail.
        for name in floats {
            let _ = set.add_float(name, 0.0);
        }
        for (name, default) in bools {
            let _ = set.add_bool(name, default);
        }
        set
    }

    /// Declares a float parameter with a finite default.
    pub fn add_float(&mut self, name: &str, default: f32) -> Result<FloatParam, ParamError> {
        if !default.is_finite() {
            return Err(ParamError::NonFiniteDefault { name: name.into() });
        }
        self.check_new_name(name)?;
        let handle = FloatParam(self.floats.push(default)?);
        Arc::make_mut(&mut self.names).push((name.into(), ParamId::Float(handle)));
        Ok(handle)
    }

    /// Declares a bool parameter.
    pub fn add_bool(&mut self, name: &str, default: bool) -> Result<BoolParam, ParamError> {
        self.check_new_name(name)?;
        let handle = BoolParam(self.bools.push(default)?);
        Arc::make_mut(&mut self.names).push((name.into(), ParamId::Bool(handle)));
        Ok(handle)
    }

    /// Declares a 2D-vector parameter with a finite default. Expressions read its
    /// components as `name.x` and `name.y`.
    pub fn add_vec2(&mut self, name: &str, default: Vec2) -> Result<Vec2Param, ParamError> {
        if !default.is_finite() {
            return Err(ParamError::NonFiniteDefault { name: name.into() });
        }
        self.check_new_name(name)?;
        let handle = Vec2Param(self.vec2s.push(default)?);
        Arc::make_mut(&mut self.names).push((name.into(), ParamId::Vec2(handle)));
        Ok(handle)
    }

    fn check_new_name(&self, name: &str) -> Result<(), ParamError> {
        if !is_identifier(name) {
            return Err(ParamError::InvalidName { name: name.into() });
        }
        if self.find(name).is_some() {
            return Err(ParamError::Duplicate { name: name.into() });
        }
        Ok(())
    }

    fn find(&self, name: &str) -> Option<ParamId> {
        self.names
            .iter()
            .find(|(n, _)| n == name)
            .map(|&(_, id)| id)
    }

    /// Resolves a name to a handle of any kind (once, at load time).
    pub fn id(&self, name: &str) -> Result<ParamId, ParamError> {
        self.find(name)
            .ok_or_else(|| ParamError::Unknown { name: name.into() })
    }

    fn wrong_type(name: &str, expected: ParamKind, found: ParamId) -> ParamError {
        ParamError::WrongType {
            name: name.into(),
            expected,
            found: found.kind(),
        }
    }

    /// Resolves the float parameter `name` (once, at load time).
    pub fn float(&self, name: &str) -> Result<FloatParam, ParamError> {
        match self.id(name)? {
            ParamId::Float(handle) => Ok(handle),
            other => Err(Self::wrong_type(name, ParamKind::Float, other)),
        }
    }

    /// Resolves the bool parameter `name` (once, at load time).
    pub fn bool(&self, name: &str) -> Result<BoolParam, ParamError> {
        match self.id(name)? {
            ParamId::Bool(handle) => Ok(handle),
            other => Err(Self::wrong_type(name, ParamKind::Bool, other)),
        }
    }

    /// Resolves the 2D-vector parameter `name` (once, at load time).
    pub fn vec2(&self, name: &str) -> Result<Vec2Param, ParamError> {
        match self.id(name)? {
            ParamId::Vec2(handle) => Ok(handle),
            other => Err(Self::wrong_type(name, ParamKind::Vec2, other)),
        }
    }

    /// Sets a float. A non-finite `value` is refused and the previous value kept.
    #[inline]
    pub fn set_float(&mut self, param: FloatParam, value: f32) {
        if let (true, Some(slot)) = (
            value.is_finite(),
            self.floats.values.get_mut(index(param.0)),
        ) {
            *slot = value;
        }
    }

    /// The current float value (0.0 for a handle out of range).
    #[inline]
    pub fn get_float(&self, param: FloatParam) -> f32 {
        self.floats
            .values
            .get(index(param.0))
            .copied()
            .unwrap_or(0.0)
    }

    /// Sets a bool.
    #[inline]
    pub fn set_bool(&mut self, param: BoolParam, value: bool) {
        if let Some(slot) = self.bools.values.get_mut(index(param.0)) {
            *slot = value;
        }
    }

    /// The current bool value (false for a handle out of range).
    #[inline]
    pub fn get_bool(&self, param: BoolParam) -> bool {
        self.bools
            .values
            .get(index(param.0))
            .copied()
            .unwrap_or(false)
    }

    /// Sets a 2D vector. If either component is non-finite the whole value is refused and
    /// the previous value kept.
    #[inline]
    pub fn set_vec2(&mut self, param: Vec2Param, value: Vec2) {
        if let (true, Some(slot)) = (value.is_finite(), self.vec2s.values.get_mut(index(param.0))) {
            *slot = value;
        }
    }

    /// The current 2D-vector value (`Vec2::ZERO` for a handle out of range).
    #[inline]
    pub fn get_vec2(&self, param: Vec2Param) -> Vec2 {
        self.vec2s
            .values
            .get(index(param.0))
            .copied()
            .unwrap_or(Vec2::ZERO)
    }

    /// Restores every value to its declared default (no allocation).
    pub fn reset_to_defaults(&mut self) {
        self.floats.reset();
        self.bools.reset();
        self.vec2s.reset();
    }

    /// Number of declared parameters.
    pub fn len(&self) -> usize {
        self.names.len()
    }

    /// Whether no parameter is declared.
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    /// The declared parameters in declaration order, with their handles.
    pub fn iter(&self) -> impl Iterator<Item = (&str, ParamId)> + '_ {
        self.names.iter().map(|(name, id)| (name.as_str(), *id))
    }
}

#[inline]
fn index(handle: u32) -> usize {
    // u32 → usize is lossless on every target glam supports (32- and 64-bit).
    handle as usize
}

/// Whether `name` can be written bare in an expression: `[A-Za-z_][A-Za-z0-9_]*` and not a
/// bool literal.
pub(crate) fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    let starts_well = chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_');
    starts_well
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
        && name != "true"
        && name != "false"
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clones_share_the_name_table_until_one_declares_more() {
        let a = ParamSet::als_locomotion();
        let mut b = a.clone();
        assert!(Arc::ptr_eq(&a.names, &b.names));
        b.add_float("extra", 0.5).unwrap();
        assert!(!Arc::ptr_eq(&a.names, &b.names));
        assert!(a.float("extra").is_err());
        assert_eq!(b.len(), a.len() + 1);
        assert_eq!(b.float("speed").unwrap(), a.float("speed").unwrap());
    }

    #[test]
    fn als_standard_parameters_are_declared_with_their_types() {
        let set = ParamSet::als_locomotion();
        assert_eq!(set.len(), 9);
        for name in [
            names::SPEED,
            names::INPUT_SPEED,
            names::DIRECTION,
            names::VERTICAL_VELOCITY,
            names::LAND_VELOCITY,
        ] {
            assert!(set.float(name).is_ok(), "{name}");
        }
        for name in [
            names::IS_MOVING,
            names::IS_CROUCHING,
            names::IS_GROUNDED,
            names::AIMING,
        ] {
            assert!(set.bool(name).is_ok(), "{name}");
        }
        let grounded = set.bool(names::IS_GROUNDED).unwrap();
        assert!(set.get_bool(grounded));
    }

    #[test]
    fn handles_set_and_get_by_kind() {
        let mut set = ParamSet::new();
        let speed = set.add_float("speed", 1.5).unwrap();
        let aiming = set.add_bool("aiming", false).unwrap();
        let stick = set.add_vec2("move", Vec2::ZERO).unwrap();
        assert_eq!(set.get_float(speed), 1.5);
        set.set_float(speed, 3.0);
        set.set_bool(aiming, true);
        set.set_vec2(stick, Vec2::new(0.5, -1.0));
        assert_eq!(set.get_float(speed), 3.0);
        assert!(set.get_bool(aiming));
        assert_eq!(set.get_vec2(stick), Vec2::new(0.5, -1.0));
        assert_eq!(set.float("speed").unwrap(), speed);
        assert_eq!(set.id("move").unwrap(), ParamId::Vec2(stick));
        set.reset_to_defaults();
        assert_eq!(set.get_float(speed), 1.5);
        assert!(!set.get_bool(aiming));
        assert_eq!(set.get_vec2(stick), Vec2::ZERO);
    }

    #[test]
    fn resolving_reports_unknown_names_and_wrong_types() {
        let set = ParamSet::als_locomotion();
        assert_eq!(
            set.float("sped").unwrap_err(),
            ParamError::Unknown {
                name: "sped".into()
            }
        );
        assert_eq!(
            set.float("aiming").unwrap_err(),
            ParamError::WrongType {
                name: "aiming".into(),
                expected: ParamKind::Float,
                found: ParamKind::Bool,
            }
        );
        let message = set.bool("speed").unwrap_err().to_string();
        assert_eq!(message, "parameter 'speed' is a float, not a bool");
        assert!(set.vec2("speed").is_err());
    }

    #[test]
    fn declaring_refuses_duplicates_bad_names_and_non_finite_defaults() {
        let mut set = ParamSet::new();
        set.add_float("speed", 0.0).unwrap();
        assert!(matches!(
            set.add_bool("speed", false),
            Err(ParamError::Duplicate { .. })
        ));
        for bad in ["", "1speed", "a-b", "move.x", "true", "false", "sp eed"] {
            assert!(
                matches!(set.add_float(bad, 0.0), Err(ParamError::InvalidName { .. })),
                "{bad:?}"
            );
        }
        assert!(matches!(
            set.add_float("x", f32::NAN),
            Err(ParamError::NonFiniteDefault { .. })
        ));
        assert!(matches!(
            set.add_vec2("v", Vec2::new(0.0, f32::INFINITY)),
            Err(ParamError::NonFiniteDefault { .. })
        ));
        assert_eq!(set.len(), 1);
    }

    #[test]
    fn non_finite_values_keep_the_previous_value() {
        let mut set = ParamSet::new();
        let speed = set.add_float("speed", 0.0).unwrap();
        let stick = set.add_vec2("move", Vec2::ZERO).unwrap();
        set.set_float(speed, 2.0);
        for bad in [f32::NAN, f32::INFINITY, f32::NEG_INFINITY] {
            set.set_float(speed, bad);
            assert_eq!(set.get_float(speed), 2.0);
        }
        set.set_vec2(stick, Vec2::new(1.0, 2.0));
        set.set_vec2(stick, Vec2::new(3.0, f32::NAN));
        assert_eq!(set.get_vec2(stick), Vec2::new(1.0, 2.0));
    }

    #[test]
    fn foreign_handles_never_panic() {
        let mut big = ParamSet::new();
        for i in 0..4 {
            big.add_float(&format!("f{i}"), 0.0).unwrap();
        }
        let foreign = big.float("f3").unwrap();
        let mut small = ParamSet::new();
        small.add_float("f0", 1.0).unwrap();
        small.set_float(foreign, 5.0);
        assert_eq!(small.get_float(foreign), 0.0);
        assert!(!small.get_bool(BoolParam(7)));
        assert_eq!(small.get_vec2(Vec2Param(7)), Vec2::ZERO);
    }
}
