//! Transition conditions (GRAPH-3): boolean expressions over graph parameters, such as
//! `is_grounded && speed < 0.1`.
//!
//! An expression is parsed once against a [`ParamSet`] (names resolved to handles, types
//! checked) into a compact postfix program; [`Expr::eval`] then runs it each tick with no
//! allocation, no recursion and no panic.
//!
//! Grammar, loosest binding first:
//!
//! ```text
//! or      := and ( "||" and )*
//! and     := compare ( "&&" compare )*
//! compare := unary ( ( "<" | "<=" | ">" | ">=" | "==" | "!=" ) unary )?
//! unary   := "!" unary | "-" unary | primary
//! primary := number | "true" | "false" | name | name "." ("x" | "y") | "(" or ")"
//! ```
//!
//! `!` binds tightest, as in C and Rust: `!a && b` is `(!a) && b`. Comparisons do not chain
//! (`a < b < c` is an error). Floats compare with all six operators, bools only with `==`
//! and `!=`. A bool parameter may stand alone (`is_grounded`); a float may not. Numbers are
//! decimal with optional fraction and exponent (`2`, `0.1`, `.5`, `1e-3`); `-` negates a
//! number or a float parameter. Vec2 parameters are read by component (`move.x`).
//!
//! **NaN**: every comparison with a NaN operand is false, `!=` included (so `speed != 0`
//! is false for a NaN speed). [`ParamSet`] never stores NaN, so this is a second guard.

use super::params::{BoolParam, FloatParam, ParamId, ParamSet, Vec2Param};

/// The deepest nesting of parentheses and unary operators the parser accepts.
pub const MAX_NESTING: usize = 32;

/// The largest number of pending bool values an expression may need while evaluating.
const MAX_STACK: u32 = 64;

/// The value type of a sub-expression, for type errors.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ValueType {
    /// `true` / `false`, bool parameters, comparisons, `!`, `&&`, `||`.
    Bool,
    /// Numbers, float parameters, vec2 components.
    Float,
}

impl std::fmt::Display for ValueType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            ValueType::Bool => "bool",
            ValueType::Float => "float",
        })
    }
}

/// Why an expression was refused. Every variant but [`ExprError::Empty`] names the
/// offending token and where it starts: `offset` in bytes from the start of the source,
/// `column` counted in characters from 1.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ExprError {
    #[error("empty expression")]
    Empty,
    #[error("unexpected character '{token}' at column {column}")]
    InvalidCharacter {
        token: String,
        offset: usize,
        column: usize,
    },
    #[error("bad number '{token}' at column {column}")]
    BadNumber {
        token: String,
        offset: usize,
        column: usize,
    },
    #[error("unexpected token '{token}' at column {column}")]
    UnexpectedToken {
        token: String,
        offset: usize,
        column: usize,
    },
    #[error("unexpected end of expression at column {column}")]
    UnexpectedEnd { offset: usize, column: usize },
    #[error("unclosed '(' at column {column}")]
    UnclosedParen {
        token: String,
        offset: usize,
        column: usize,
    },
    #[error("unknown parameter '{token}' at column {column}")]
    UnknownParameter {
        token: String,
        offset: usize,
        column: usize,
    },
    #[error("'{token}' at column {column} is not a vec2 component (use .x or .y on a vec2)")]
    BadComponent {
        token: String,
        offset: usize,
        column: usize,
    },
    #[error("vec2 parameter '{token}' at column {column} needs a component (.x or .y)")]
    BareVec2 {
        token: String,
        offset: usize,
        column: usize,
    },
    #[error("expected a {expected} but '{token}' at column {column} is a {found}")]
    TypeMismatch {
        token: String,
        offset: usize,
        column: usize,
        expected: ValueType,
        found: ValueType,
    },
    #[error("'{token}' at column {column} compares floats, not bools (use == or !=)")]
    OrderedBoolCompare {
        token: String,
        offset: usize,
        column: usize,
    },
    #[error("expression nests too deeply at '{token}', column {column}")]
    TooDeep {
        token: String,
        offset: usize,
        column: usize,
    },
}

impl ExprError {
    /// The 1-based character column of the offending token (1 for [`ExprError::Empty`]).
    pub fn column(&self) -> usize {
        self.location().1
    }

    /// The byte offset of the offending token in the source (0 for [`ExprError::Empty`]).
    pub fn offset(&self) -> usize {
        self.location().0
    }

    fn location(&self) -> (usize, usize) {
        use ExprError::*;
        match self {
            Empty => (0, 1),
            UnexpectedEnd { offset, column }
            | InvalidCharacter { offset, column, .. }
            | BadNumber { offset, column, .. }
            | UnexpectedToken { offset, column, .. }
            | UnclosedParen { offset, column, .. }
            | UnknownParameter { offset, column, .. }
            | BadComponent { offset, column, .. }
            | BareVec2 { offset, column, .. }
            | TypeMismatch { offset, column, .. }
            | OrderedBoolCompare { offset, column, .. }
            | TooDeep { offset, column, .. } => (*offset, *column),
        }
    }
}

/// A comparison operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum CompareOp {
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
}

/// Compares two floats; any NaN operand makes the result false, `!=` included.
#[inline]
fn compare(op: CompareOp, a: f32, b: f32) -> bool {
    match op {
        CompareOp::Lt => a < b,
        CompareOp::Le => a <= b,
        CompareOp::Gt => a > b,
        CompareOp::Ge => a >= b,
        CompareOp::Eq => a == b,
        CompareOp::Ne => a != b && !a.is_nan() && !b.is_nan(),
    }
}

/// Where a float operand comes from.
#[derive(Clone, Copy, Debug, PartialEq)]
enum FloatSource {
    Literal(f32),
    Param(FloatParam),
    X(Vec2Param),
    Y(Vec2Param),
}

/// A float operand of a comparison, possibly negated.
#[derive(Clone, Copy, Debug, PartialEq)]
struct FloatAtom {
    source: FloatSource,
    negated: bool,
}

impl FloatAtom {
    fn negate(self) -> Self {
        match self.source {
            FloatSource::Literal(v) => Self {
                source: FloatSource::Literal(-v),
                negated: false,
            },
            _ => Self {
                negated: !self.negated,
                ..self
            },
        }
    }

    #[inline]
    fn value(self, params: &ParamSet) -> f32 {
        let v = match self.source {
            FloatSource::Literal(v) => v,
            FloatSource::Param(p) => params.get_float(p),
            FloatSource::X(p) => params.get_vec2(p).x,
            FloatSource::Y(p) => params.get_vec2(p).y,
        };
        if self.negated {
            -v
        } else {
            v
        }
    }
}

/// One instruction of the postfix program; each pushes one bool.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Op {
    Const(bool),
    Bool(BoolParam),
    Compare {
        op: CompareOp,
        lhs: FloatAtom,
        rhs: FloatAtom,
    },
    /// Pops one.
    Not,
    /// Pop two.
    And,
    Or,
    BoolEq,
    BoolNe,
}

impl Op {
    /// How many values the instruction pops.
    fn pops(self) -> u32 {
        match self {
            Op::Const(_) | Op::Bool(_) | Op::Compare { .. } => 0,
            Op::Not => 1,
            Op::And | Op::Or | Op::BoolEq | Op::BoolNe => 2,
        }
    }
}

/// A compiled condition over the parameters of one [`ParamSet`].
#[derive(Clone, Debug, PartialEq)]
pub struct Expr {
    source: String,
    program: Vec<Op>,
}

impl Expr {
    /// Parses `source` and resolves its names against `params`.
    pub fn parse(source: &str, params: &ParamSet) -> Result<Self, ExprError> {
        let tokens = tokenize(source)?;
        let mut parser = Parser {
            tokens: &tokens,
            position: 0,
            nesting: 0,
            params,
            program: Vec::new(),
        };
        parser.parse_condition()?;
        check_stack_depth(&parser.program, source)?;
        Ok(Self {
            source: source.to_string(),
            program: parser.program,
        })
    }

    /// The text the expression was parsed from.
    pub fn source(&self) -> &str {
        &self.source
    }

    /// Evaluates the condition on the current parameter values. Pass the set the
    /// expression was parsed against (or a clone of it); handles out of range read as
    /// 0.0 / false.
    pub fn eval(&self, params: &ParamSet) -> bool {
        let mut stack = BitStack::default();
        for &op in &self.program {
            let value = match op {
                Op::Const(b) => b,
                Op::Bool(p) => params.get_bool(p),
                Op::Compare { op, lhs, rhs } => compare(op, lhs.value(params), rhs.value(params)),
                Op::Not => !stack.pop(),
                Op::And => stack.pop() & stack.pop(),
                Op::Or => stack.pop() | stack.pop(),
                Op::BoolEq => stack.pop() == stack.pop(),
                Op::BoolNe => stack.pop() != stack.pop(),
            };
            stack.push(value);
        }
        stack.pop()
    }
}

impl std::fmt::Display for Expr {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.source)
    }
}

/// A stack of up to 64 bools in one word. Popping an empty stack gives false (the
/// compiler never emits such a program).
#[derive(Default)]
struct BitStack {
    bits: u64,
    len: u32,
}

impl BitStack {
    #[inline]
    fn push(&mut self, value: bool) {
        if self.len < MAX_STACK {
            self.bits = (self.bits << 1) | u64::from(value);
            self.len += 1;
        }
    }

    #[inline]
    fn pop(&mut self) -> bool {
        if self.len == 0 {
            return false;
        }
        let value = self.bits & 1 == 1;
        self.bits >>= 1;
        self.len -= 1;
        value
    }
}

fn check_stack_depth(program: &[Op], source: &str) -> Result<(), ExprError> {
    let mut depth: u32 = 0;
    for &op in program {
        depth = depth.saturating_sub(op.pops()) + 1;
        if depth > MAX_STACK {
            return Err(ExprError::TooDeep {
                token: source.chars().take(16).collect(),
                offset: 0,
                column: 1,
            });
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------
// Tokenizer

#[derive(Clone, Copy, Debug, PartialEq)]
enum TokenKind {
    Number(f32),
    Name,
    True,
    False,
    And,
    Or,
    Not,
    Minus,
    Compare(CompareOp),
    LeftParen,
    RightParen,
    End,
}

#[derive(Clone, Copy, Debug)]
struct Token<'a> {
    kind: TokenKind,
    text: &'a str,
    offset: usize,
    column: usize,
}

/// Splits the source into tokens, ending with one [`TokenKind::End`].
fn tokenize(source: &str) -> Result<Vec<Token<'_>>, ExprError> {
    let mut tokens = Vec::new();
    let mut chars = source.char_indices().peekable();
    let mut column = 1;
    while let Some(&(offset, c)) = chars.peek() {
        if c.is_whitespace() {
            chars.next();
            column += 1;
            continue;
        }
        let rest = &source[offset..];
        let length = token_length(rest, c);
        let text = &rest[..length];
        let kind = classify(text, offset, column)?;
        tokens.push(Token {
            kind,
            text,
            offset,
            column,
        });
        // Token texts are ASCII apart from a lone invalid character, which errors above.
        for _ in text.chars() {
            chars.next();
            column += 1;
        }
    }
    tokens.push(Token {
        kind: TokenKind::End,
        text: "",
        offset: source.len(),
        column,
    });
    Ok(tokens)
}

/// The byte length of the token starting with `c` at the start of `rest`.
fn token_length(rest: &str, c: char) -> usize {
    let bytes = rest.as_bytes();
    let run = |from: usize, accept: fn(u8) -> bool| {
        from + bytes[from..].iter().take_while(|&&b| accept(b)).count()
    };
    if c.is_ascii_digit() || (c == '.' && bytes.get(1).is_some_and(u8::is_ascii_digit)) {
        number_length(bytes)
    } else if c.is_ascii_alphabetic() || c == '_' {
        let name_end = run(0, is_name_byte);
        // Component access: `name.x` is one token.
        if bytes.get(name_end) == Some(&b'.')
            && bytes
                .get(name_end + 1)
                .is_some_and(|&b| b.is_ascii_alphabetic() || b == b'_')
        {
            run(name_end + 1, is_name_byte)
        } else {
            name_end
        }
    } else if ["&&", "||", "<=", ">=", "==", "!="]
        .iter()
        .any(|op| rest.starts_with(op))
    {
        2
    } else {
        c.len_utf8()
    }
}

fn is_name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// Digits and dots, then an optional exponent `e[+-]digits`.
fn number_length(bytes: &[u8]) -> usize {
    let mut end = bytes
        .iter()
        .take_while(|&&b| b.is_ascii_digit() || b == b'.')
        .count();
    if matches!(bytes.get(end), Some(b'e' | b'E')) {
        let mut exponent = end + 1;
        if matches!(bytes.get(exponent), Some(b'+' | b'-')) {
            exponent += 1;
        }
        let digits = bytes[exponent.min(bytes.len())..]
            .iter()
            .take_while(|b| b.is_ascii_digit())
            .count();
        // `2e` or `2e+` keep the bad exponent in the token so the error shows it.
        end = exponent + digits;
    }
    end.min(bytes.len())
}

fn classify(text: &str, offset: usize, column: usize) -> Result<TokenKind, ExprError> {
    let first = text.chars().next().unwrap_or(' ');
    let kind = match text {
        "&&" => TokenKind::And,
        "||" => TokenKind::Or,
        "!" => TokenKind::Not,
        "-" => TokenKind::Minus,
        "(" => TokenKind::LeftParen,
        ")" => TokenKind::RightParen,
        "<" => TokenKind::Compare(CompareOp::Lt),
        "<=" => TokenKind::Compare(CompareOp::Le),
        ">" => TokenKind::Compare(CompareOp::Gt),
        ">=" => TokenKind::Compare(CompareOp::Ge),
        "==" => TokenKind::Compare(CompareOp::Eq),
        "!=" => TokenKind::Compare(CompareOp::Ne),
        "true" => TokenKind::True,
        "false" => TokenKind::False,
        _ if first.is_ascii_digit() || (first == '.' && text.len() > 1) => {
            match text.parse::<f32>() {
                Ok(v) if v.is_finite() => TokenKind::Number(v),
                _ => {
                    return Err(ExprError::BadNumber {
                        token: text.into(),
                        offset,
                        column,
                    })
                }
            }
        }
        _ if first.is_ascii_alphabetic() || first == '_' => TokenKind::Name,
        _ => {
            return Err(ExprError::InvalidCharacter {
                token: text.into(),
                offset,
                column,
            })
        }
    };
    Ok(kind)
}

// ---------------------------------------------------------------------------------------
// Parser

/// A parsed sub-expression: a bool whose code is already emitted, or a float operand held
/// until a comparison consumes it. `at` is its first token, for error messages.
#[derive(Clone, Copy)]
enum Typed<'a> {
    Bool { at: Token<'a> },
    Float { atom: FloatAtom, at: Token<'a> },
}

impl<'a> Typed<'a> {
    fn at(&self) -> Token<'a> {
        match *self {
            Typed::Bool { at } | Typed::Float { at, .. } => at,
        }
    }

    fn value_type(&self) -> ValueType {
        match self {
            Typed::Bool { .. } => ValueType::Bool,
            Typed::Float { .. } => ValueType::Float,
        }
    }
}

struct Parser<'t, 'a, 'p> {
    tokens: &'t [Token<'a>],
    position: usize,
    nesting: usize,
    params: &'p ParamSet,
    program: Vec<Op>,
}

impl<'a> Parser<'_, 'a, '_> {
    fn peek(&self) -> Token<'a> {
        // `tokenize` always ends the list with `End`, which is never consumed.
        self.tokens[self.position.min(self.tokens.len() - 1)]
    }

    fn next(&mut self) -> Token<'a> {
        let token = self.peek();
        if token.kind != TokenKind::End {
            self.position += 1;
        }
        token
    }

    /// The whole source: one bool-valued expression, then the end.
    fn parse_condition(&mut self) -> Result<(), ExprError> {
        if self.peek().kind == TokenKind::End {
            return Err(ExprError::Empty);
        }
        let result = self.parse_or()?;
        let trailing = self.peek();
        if trailing.kind != TokenKind::End {
            return Err(unexpected(trailing));
        }
        require(result, ValueType::Bool)?;
        Ok(())
    }

    fn parse_or(&mut self) -> Result<Typed<'a>, ExprError> {
        let mut lhs = self.parse_and()?;
        while self.peek().kind == TokenKind::Or {
            self.next();
            require(lhs, ValueType::Bool)?;
            let rhs = self.parse_and()?;
            require(rhs, ValueType::Bool)?;
            self.program.push(Op::Or);
            lhs = Typed::Bool { at: lhs.at() };
        }
        Ok(lhs)
    }

    fn parse_and(&mut self) -> Result<Typed<'a>, ExprError> {
        let mut lhs = self.parse_compare()?;
        while self.peek().kind == TokenKind::And {
            self.next();
            require(lhs, ValueType::Bool)?;
            let rhs = self.parse_compare()?;
            require(rhs, ValueType::Bool)?;
            self.program.push(Op::And);
            lhs = Typed::Bool { at: lhs.at() };
        }
        Ok(lhs)
    }

    fn parse_compare(&mut self) -> Result<Typed<'a>, ExprError> {
        let lhs = self.parse_unary()?;
        let TokenKind::Compare(op) = self.peek().kind else {
            return Ok(lhs);
        };
        let op_token = self.next();
        let rhs = self.parse_unary()?;
        let op = match (lhs, rhs) {
            (Typed::Float { atom: a, .. }, Typed::Float { atom: b, .. }) => {
                Op::Compare { op, lhs: a, rhs: b }
            }
            (Typed::Bool { .. }, Typed::Bool { .. }) => match op {
                CompareOp::Eq => Op::BoolEq,
                CompareOp::Ne => Op::BoolNe,
                _ => {
                    return Err(located(op_token, |t, o, c| ExprError::OrderedBoolCompare {
                        token: t,
                        offset: o,
                        column: c,
                    }))
                }
            },
            _ => return Err(mismatch(rhs.at(), lhs.value_type(), rhs.value_type())),
        };
        self.program.push(op);
        Ok(Typed::Bool { at: lhs.at() })
    }

    fn parse_unary(&mut self) -> Result<Typed<'a>, ExprError> {
        let token = self.peek();
        if !matches!(token.kind, TokenKind::Not | TokenKind::Minus) {
            return self.parse_primary();
        }
        self.next();
        self.enter(token)?;
        let operand = self.parse_unary();
        self.nesting -= 1;
        let operand = operand?;
        if token.kind == TokenKind::Not {
            require(operand, ValueType::Bool)?;
            self.program.push(Op::Not);
            Ok(Typed::Bool { at: token })
        } else {
            match operand {
                Typed::Float { atom, .. } => Ok(Typed::Float {
                    atom: atom.negate(),
                    at: token,
                }),
                Typed::Bool { at } => Err(mismatch(at, ValueType::Float, ValueType::Bool)),
            }
        }
    }

    fn parse_primary(&mut self) -> Result<Typed<'a>, ExprError> {
        let token = self.next();
        match token.kind {
            TokenKind::Number(v) => Ok(Typed::Float {
                atom: FloatAtom {
                    source: FloatSource::Literal(v),
                    negated: false,
                },
                at: token,
            }),
            TokenKind::True | TokenKind::False => {
                self.program.push(Op::Const(token.kind == TokenKind::True));
                Ok(Typed::Bool { at: token })
            }
            TokenKind::Name => self.resolve_name(token),
            TokenKind::LeftParen => self.parse_parenthesised(token),
            TokenKind::End => Err(ExprError::UnexpectedEnd {
                offset: token.offset,
                column: token.column,
            }),
            _ => Err(unexpected(token)),
        }
    }

    fn parse_parenthesised(&mut self, open: Token<'a>) -> Result<Typed<'a>, ExprError> {
        self.enter(open)?;
        let inner = self.parse_or();
        self.nesting -= 1;
        let inner = inner?;
        let close = self.next();
        match close.kind {
            TokenKind::RightParen => Ok(inner),
            TokenKind::End => Err(located(open, |t, o, c| ExprError::UnclosedParen {
                token: t,
                offset: o,
                column: c,
            })),
            _ => Err(unexpected(close)),
        }
    }

    fn enter(&mut self, token: Token<'a>) -> Result<(), ExprError> {
        if self.nesting >= MAX_NESTING {
            return Err(located(token, |t, o, c| ExprError::TooDeep {
                token: t,
                offset: o,
                column: c,
            }));
        }
        self.nesting += 1;
        Ok(())
    }

    fn resolve_name(&mut self, token: Token<'a>) -> Result<Typed<'a>, ExprError> {
        let (name, component) = match token.text.split_once('.') {
            Some((name, component)) => (name, Some(component)),
            None => (token.text, None),
        };
        let Ok(id) = self.params.id(name) else {
            return Err(located(token, |t, o, c| ExprError::UnknownParameter {
                token: t,
                offset: o,
                column: c,
            }));
        };
        let float = |source| Typed::Float {
            atom: FloatAtom {
                source,
                negated: false,
            },
            at: token,
        };
        match (id, component) {
            (ParamId::Float(p), None) => Ok(float(FloatSource::Param(p))),
            (ParamId::Bool(p), None) => {
                self.program.push(Op::Bool(p));
                Ok(Typed::Bool { at: token })
            }
            (ParamId::Vec2(p), Some("x")) => Ok(float(FloatSource::X(p))),
            (ParamId::Vec2(p), Some("y")) => Ok(float(FloatSource::Y(p))),
            (ParamId::Vec2(_), None) => Err(located(token, |t, o, c| ExprError::BareVec2 {
                token: t,
                offset: o,
                column: c,
            })),
            (_, Some(_)) => Err(located(token, |t, o, c| ExprError::BadComponent {
                token: t,
                offset: o,
                column: c,
            })),
        }
    }
}

/// Builds an error located at `token` (text, byte offset, column).
fn located(token: Token<'_>, make: impl FnOnce(String, usize, usize) -> ExprError) -> ExprError {
    make(token.text.to_string(), token.offset, token.column)
}

fn unexpected(token: Token<'_>) -> ExprError {
    if token.kind == TokenKind::End {
        return ExprError::UnexpectedEnd {
            offset: token.offset,
            column: token.column,
        };
    }
    located(token, |t, o, c| ExprError::UnexpectedToken {
        token: t,
        offset: o,
        column: c,
    })
}

fn mismatch(at: Token<'_>, expected: ValueType, found: ValueType) -> ExprError {
    located(at, |t, o, c| ExprError::TypeMismatch {
        token: t,
        offset: o,
        column: c,
        expected,
        found,
    })
}

fn require(value: Typed<'_>, expected: ValueType) -> Result<(), ExprError> {
    if value.value_type() == expected {
        Ok(())
    } else {
        Err(mismatch(value.at(), expected, value.value_type()))
    }
}

#[cfg(test)]
mod tests {
    use glam::Vec2;

    use super::*;
    use crate::graph::params::names;

    struct Fixture {
        params: ParamSet,
        a: BoolParam,
        b: BoolParam,
        c: BoolParam,
        speed: FloatParam,
        stick: Vec2Param,
    }

    fn fixture() -> Fixture {
        let mut params = ParamSet::als_locomotion();
        let a = params.add_bool("a", false).unwrap();
        let b = params.add_bool("b", false).unwrap();
        let c = params.add_bool("c", false).unwrap();
        let stick = params.add_vec2("move", Vec2::ZERO).unwrap();
        let speed = params.float(names::SPEED).unwrap();
        Fixture {
            params,
            a,
            b,
            c,
            speed,
            stick,
        }
    }

    fn eval(source: &str, params: &ParamSet) -> bool {
        Expr::parse(source, params)
            .unwrap_or_else(|e| panic!("{source}: {e}"))
            .eval(params)
    }

    fn error(source: &str) -> ExprError {
        Expr::parse(source, &fixture().params).expect_err(source)
    }

    /// Every assignment of a, b, c.
    fn truth_table(f: &mut Fixture, mut check: impl FnMut(&ParamSet, bool, bool, bool)) {
        for bits in 0..8u8 {
            let (a, b, c) = (bits & 1 != 0, bits & 2 != 0, bits & 4 != 0);
            f.params.set_bool(f.a, a);
            f.params.set_bool(f.b, b);
            f.params.set_bool(f.c, c);
            check(&f.params, a, b, c);
        }
    }

    #[test]
    fn and_binds_tighter_than_or() {
        let mut f = fixture();
        truth_table(&mut f, |p, a, b, c| {
            assert_eq!(eval("a || b && c", p), a || (b && c));
            assert_eq!(eval("a && b || c", p), (a && b) || c);
            assert_eq!(eval("(a || b) && c", p), (a || b) && c);
            assert_eq!(eval("a || b || c", p), a || b || c);
        });
    }

    #[test]
    fn not_binds_tightest() {
        let mut f = fixture();
        truth_table(&mut f, |p, a, b, c| {
            assert_eq!(eval("!a && b", p), !a && b);
            assert_eq!(eval("!(a && b)", p), !(a && b));
            assert_eq!(eval("!a || !b && c", p), !a || (!b && c));
            assert_eq!(eval("!!a", p), a);
            // `(!a) == b`, which is `a != b`.
            assert_eq!(eval("!a == b", p), a != b);
        });
        f.params.set_float(f.speed, 5.0);
        assert!(eval("!(speed < 0.1)", &f.params));
    }

    #[test]
    fn parentheses_group() {
        let mut f = fixture();
        truth_table(&mut f, |p, a, b, c| {
            assert_eq!(eval("((a))", p), a);
            assert_eq!(eval("a && (b || c)", p), a && (b || c));
            assert_eq!(eval("(a == b) != c", p), (a == b) != c);
        });
        f.params.set_float(f.speed, 0.05);
        assert!(eval("((speed)) < (0.1)", &f.params));
    }

    #[test]
    fn every_comparison() {
        let mut f = fixture();
        for (speed, expected) in [
            (1.0, [false, true, false, true, true, false]),
            (0.5, [true, true, false, false, false, true]),
            (2.0, [false, false, true, true, false, true]),
        ] {
            f.params.set_float(f.speed, speed);
            let got = [
                "speed < 1",
                "speed <= 1",
                "speed > 1",
                "speed >= 1",
                "speed == 1",
                "speed != 1",
            ]
            .map(|s| eval(s, &f.params));
            assert_eq!(got, expected, "speed = {speed}");
        }
        truth_table(&mut f, |p, a, b, _| {
            assert_eq!(eval("a == b", p), a == b);
            assert_eq!(eval("a != b", p), a != b);
            assert_eq!(eval("a == true", p), a);
            assert_eq!(eval("false != a", p), a);
        });
    }

    #[test]
    fn float_literal_forms() {
        let f = fixture();
        for source in [
            "0.1 > 0.09",
            "-2 < 0",
            "1e-3 == 0.001",
            "1E3 == 1000",
            "2.5e+1 == 25",
            ".5 == 0.5",
            "3. == 3",
            "--2 == 2",
            "-speed == 0",
        ] {
            assert!(eval(source, &f.params), "{source}");
        }
        assert!(!eval("-2 > -1", &f.params));
    }

    #[test]
    fn the_spec_example_and_bare_bool_parameters() {
        let mut f = fixture();
        let grounded = f.params.bool(names::IS_GROUNDED).unwrap();
        let expr = Expr::parse("is_grounded && speed < 0.1", &f.params).unwrap();
        assert_eq!(expr.source(), "is_grounded && speed < 0.1");
        assert!(expr.eval(&f.params));
        f.params.set_float(f.speed, 0.2);
        assert!(!expr.eval(&f.params));
        f.params.set_float(f.speed, 0.0);
        f.params.set_bool(grounded, false);
        assert!(!expr.eval(&f.params));
        assert!(eval("true", &f.params));
        assert!(!eval("false", &f.params));
    }

    #[test]
    fn vec2_components() {
        let mut f = fixture();
        f.params.set_vec2(f.stick, Vec2::new(0.25, -0.75));
        assert!(eval("move.x > 0.2 && move.y < -0.5", &f.params));
        assert!(eval("-move.y == 0.75", &f.params));
        assert!(matches!(
            error("move > 1"),
            ExprError::BareVec2 { column: 1, .. }
        ));
        assert!(matches!(
            error("move.z > 1"),
            ExprError::BadComponent { column: 1, .. }
        ));
        assert!(matches!(
            error("speed.x > 1"),
            ExprError::BadComponent { column: 1, .. }
        ));
    }

    #[test]
    fn errors_name_the_token_and_column() {
        let cases: [(&str, &str); 17] = [
            ("is_grounded && )", "unexpected token ')' at column 16"),
            ("(speed < 0.1))", "unexpected token ')' at column 14"),
            ("sped < 0.1", "unknown parameter 'sped' at column 1"),
            (
                "is_grounded && sped",
                "unknown parameter 'sped' at column 16",
            ),
            (
                "speed",
                "expected a bool but 'speed' at column 1 is a float",
            ),
            (
                "is_grounded && speed",
                "expected a bool but 'speed' at column 16 is a float",
            ),
            (
                "speed && a",
                "expected a bool but 'speed' at column 1 is a float",
            ),
            (
                "!speed",
                "expected a bool but 'speed' at column 2 is a float",
            ),
            ("a == 1", "expected a bool but '1' at column 6 is a float"),
            (
                "speed < a",
                "expected a float but 'a' at column 9 is a bool",
            ),
            ("-a", "expected a float but 'a' at column 2 is a bool"),
            (
                "a < b",
                "'<' at column 3 compares floats, not bools (use == or !=)",
            ),
            ("speed < 1 < 2", "unexpected token '<' at column 11"),
            ("(a && b", "unclosed '(' at column 1"),
            ("a &&", "unexpected end of expression at column 5"),
            ("a & b", "unexpected character '&' at column 3"),
            ("speed < 1e", "bad number '1e' at column 9"),
        ];
        for (source, message) in cases {
            assert_eq!(error(source).to_string(), message, "{source}");
        }
        assert_eq!(error("").to_string(), "empty expression");
        assert_eq!(error("   ").to_string(), "empty expression");
        assert!(matches!(
            error("speed = 1"),
            ExprError::InvalidCharacter { column: 7, .. }
        ));
        assert!(matches!(error("1.2.3 > 0"), ExprError::BadNumber { .. }));
        assert!(matches!(error("1e99 > 0"), ExprError::BadNumber { .. }));
        assert!(matches!(
            error("a b"),
            ExprError::UnexpectedToken { column: 3, .. }
        ));
        assert!(matches!(
            error("-2 == 0 - 2"),
            ExprError::UnexpectedToken { column: 9, .. }
        ));
    }

    #[test]
    fn error_offsets_are_bytes_and_columns_are_characters() {
        let e = error("a && \"é\" b");
        assert_eq!(e.to_string(), "unexpected character '\"' at column 6");
        let e = error("a && é");
        assert_eq!((e.offset(), e.column()), (5, 6));
        assert_eq!(e.to_string(), "unexpected character 'é' at column 6");
        let e = error("(a) && é && ƒ");
        assert_eq!((e.offset(), e.column()), (7, 8));
        let e = error("a ∧ b");
        assert_eq!((e.offset(), e.column()), (2, 3));
    }

    #[test]
    fn nesting_is_bounded_without_overflowing_the_stack() {
        let f = fixture();
        let ok = format!("{}a{}", "(".repeat(20), ")".repeat(20));
        assert!(!eval(&ok, &f.params));
        let deep = format!("{}a{}", "(".repeat(10_000), ")".repeat(10_000));
        assert!(matches!(error(&deep), ExprError::TooDeep { .. }));
        let nots = format!("{}a", "!".repeat(10_000));
        assert!(matches!(error(&nots), ExprError::TooDeep { .. }));
        // Long flat chains are fine: left-associative, the stack stays shallow.
        let chain = vec!["a"; 1000].join(" || ");
        assert!(!eval(&chain, &f.params));
    }

    #[test]
    fn nan_comparisons_are_false() {
        for op in [
            CompareOp::Lt,
            CompareOp::Le,
            CompareOp::Gt,
            CompareOp::Ge,
            CompareOp::Eq,
            CompareOp::Ne,
        ] {
            assert!(!compare(op, f32::NAN, 1.0), "{op:?}");
            assert!(!compare(op, 1.0, f32::NAN), "{op:?}");
            assert!(!compare(op, f32::NAN, f32::NAN), "{op:?}");
        }
        // A NaN written to a parameter is refused, so the expression sees the last value.
        let mut f = fixture();
        let expr = Expr::parse("speed != 0", &f.params).unwrap();
        f.params.set_float(f.speed, f32::NAN);
        assert!(!expr.eval(&f.params));
    }
}
