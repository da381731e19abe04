//! ROB-2: the loader never panics. Deterministic, seeded mutation of valid files
//! (truncations, byte flips, digit swaps inside the JSON, special floats in the BIN chunk,
//! semantic edits of JSON numbers) must give `Ok` or `Err`, never a panic. A panic is caught
//! here only to report the offending input; the library itself never relies on unwinding.

mod common;

use std::panic::{catch_unwind, AssertUnwindSafe};

use base64::Engine as _;
use plantigrade_gltf::{export_glb, load_slice};
use serde_json::Value;

use common::*;

/// xorshift64*: tiny, deterministic, good enough to pick offsets and values.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// Loads `bytes`; returns the outcome's name (`Ok` or the error variant), or a description
/// of the panic if there was one.
fn try_load(bytes: &[u8]) -> Result<String, String> {
    match catch_unwind(AssertUnwindSafe(|| load_slice(bytes, None))) {
        Ok(Ok(asset)) => {
            // Whatever loads must be usable: finite rest pose, samplable clips.
            for clip in &asset.clips {
                let mut pose = plantigrade::Pose::rest(&asset.skeleton);
                let ok = clip.sample(
                    0.5 * clip.duration_s(),
                    asset.skeleton.rest_local(),
                    &mut pose,
                );
                if ok.is_err() {
                    return Err(format!("clip {} does not match its skeleton", clip.name()));
                }
            }
            Ok("Ok".into())
        }
        Ok(Err(e)) => {
            let debug = format!("{e:?}");
            let variant = debug.split([' ', '(', '{']).next().unwrap_or("?");
            Ok(variant.to_string())
        }
        Err(panic) => Err(panic
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_else(|| "panic".into())),
    }
}

struct Report {
    label: &'static str,
    cases: usize,
    failures: Vec<String>,
    /// How often each outcome occurred: shows the mutations reach past the parser.
    outcomes: std::collections::BTreeMap<String, usize>,
}

impl Report {
    fn new(label: &'static str) -> Self {
        Self {
            label,
            cases: 0,
            failures: Vec::new(),
            outcomes: Default::default(),
        }
    }
    fn check(&mut self, bytes: &[u8], what: impl FnOnce() -> String) {
        self.cases += 1;
        match try_load(bytes) {
            Ok(outcome) => *self.outcomes.entry(outcome).or_default() += 1,
            Err(panic) => {
                if self.failures.len() < 20 {
                    self.failures
                        .push(format!("{} ({} bytes): {panic}", what(), bytes.len()));
                }
            }
        }
    }
    fn finish(self) {
        println!(
            "{}: {} mutated inputs, {} panics; outcomes {:?}",
            self.label,
            self.cases,
            self.failures.len(),
            self.outcomes
        );
        assert!(
            self.failures.is_empty(),
            "{}: load_slice panicked on:\n{}",
            self.label,
            self.failures.join("\n")
        );
    }
}

fn json_range(glb: &[u8]) -> std::ops::Range<usize> {
    let len = u32::from_le_bytes(glb[12..16].try_into().unwrap()) as usize;
    20..20 + len
}

/// Scales a case count down for large files (each load of a large file costs more), so the
/// whole test stays within seconds in a debug build.
fn scaled(cases: usize, file_len: usize) -> usize {
    let factor = (150_000.0 / file_len.max(1) as f64).clamp(0.1, 1.0);
    ((cases as f64 * factor) as usize).max(20)
}

/// Byte-level mutations of a `.glb` (or `.gltf`) file.
fn fuzz_bytes(report: &mut Report, original: &[u8], seed: u64, flips: usize, cuts: usize) {
    let mut rng = Rng(seed);
    let n = original.len();
    let (flips, cuts) = (
        scaled(flips, n),
        if cuts == usize::MAX {
            cuts
        } else {
            scaled(cuts, n)
        },
    );
    let is_glb = original.starts_with(b"glTF");
    let json = if is_glb { json_range(original) } else { 0..n };

    // Truncations: every byte of small files, sampled cut points of large ones.
    let cut_points: Vec<usize> = if n <= cuts {
        (0..n).collect()
    } else {
        (0..cuts)
            .map(|_| rng.below(n))
            .chain([0, 1, 11, 12, 19, 20, n - 1])
            .collect()
    };
    for cut in cut_points {
        report.check(&original[..cut], || format!("truncated at {cut}"));
    }

    let mut bytes = original.to_vec();
    for case in 0..flips {
        bytes.copy_from_slice(original);
        let mutations = 1 + rng.below(3);
        let mut log = Vec::new();
        for _ in 0..mutations {
            match rng.below(5) {
                // Any byte, any value.
                0 => {
                    let at = rng.below(n);
                    bytes[at] = rng.next() as u8;
                    log.push(format!("byte {at}"));
                }
                // A digit inside the JSON becomes another digit: indices, counts, offsets.
                1 | 2 => {
                    let digits: Vec<usize> = json
                        .clone()
                        .filter(|&i| original[i].is_ascii_digit())
                        .collect();
                    if let Some(&at) = digits.get(rng.below(digits.len())) {
                        bytes[at] = b'0' + rng.below(10) as u8;
                        log.push(format!("digit {at}"));
                    }
                }
                // A special 32-bit word anywhere outside the JSON (lengths, floats).
                3 => {
                    let at = rng.below(n.saturating_sub(4));
                    if json.contains(&at) && is_glb {
                        continue;
                    }
                    let words = [
                        0u32,
                        u32::MAX,
                        0x7fc0_0000,
                        0x7f80_0000,
                        0xff80_0000,
                        0x8000_0000,
                        1,
                    ];
                    let word = words[rng.below(words.len())];
                    bytes[at..at + 4].copy_from_slice(&word.to_le_bytes());
                    log.push(format!("word {word:#x} at {at}"));
                }
                // A bit flip.
                _ => {
                    let at = rng.below(n);
                    bytes[at] ^= 1 << rng.below(8);
                    log.push(format!("bit at {at}"));
                }
            }
        }
        report.check(&bytes, || format!("case {case}: {}", log.join(", ")));
    }
}

/// Paths to every number in a JSON document.
fn number_paths(value: &Value, path: &mut Vec<PathStep>, out: &mut Vec<Vec<PathStep>>) {
    match value {
        Value::Number(_) => out.push(path.clone()),
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                path.push(PathStep::Index(i));
                number_paths(item, path, out);
                path.pop();
            }
        }
        Value::Object(map) => {
            for (key, item) in map {
                path.push(PathStep::Key(key.clone()));
                number_paths(item, path, out);
                path.pop();
            }
        }
        _ => {}
    }
}

#[derive(Clone, Debug)]
enum PathStep {
    Index(usize),
    Key(String),
}

fn at_path<'a>(value: &'a mut Value, path: &[PathStep]) -> &'a mut Value {
    path.iter().fold(value, |v, step| match step {
        PathStep::Index(i) => &mut v[*i],
        PathStep::Key(k) => &mut v[k.as_str()],
    })
}

/// Semantic mutations: a JSON number set to an interesting value, or an object key removed.
fn fuzz_json(report: &mut Report, glb: &[u8], seed: u64, cases: usize) {
    let mut rng = Rng(seed);
    let cases = scaled(cases, glb.len());
    let (json, bin) = split_glb(glb);
    let mut paths = Vec::new();
    number_paths(&json, &mut Vec::new(), &mut paths);
    let interesting: [f64; 14] = [
        0.0,
        1.0,
        2.0,
        3.0,
        4.0,
        5.0,
        7.0,
        255.0,
        65535.0,
        4294967295.0,
        4294967296.0,
        -1.0,
        1e30,
        0.5,
    ];
    for case in 0..cases {
        let mut edited = json.clone();
        let mut log = Vec::new();
        for _ in 0..1 + rng.below(2) {
            let path = &paths[rng.below(paths.len())];
            let target = at_path(&mut edited, path);
            let value = match rng.below(3) {
                0 => interesting[rng.below(interesting.len())],
                1 => target.as_f64().unwrap_or(0.0) + 1.0,
                _ => target.as_f64().unwrap_or(0.0) - 1.0,
            };
            *target = if value.fract() == 0.0 && value.abs() < 1e19 {
                if value >= 0.0 {
                    Value::from(value as u64)
                } else {
                    Value::from(value as i64)
                }
            } else {
                Value::from(value)
            };
            log.push(format!("{path:?} = {value}"));
        }
        if rng.below(4) == 0 {
            // Remove a key from a random object on a number's path.
            let path = &paths[rng.below(paths.len())];
            let cut = rng.below(path.len());
            if let Some(map) = at_path(&mut edited, &path[..cut]).as_object_mut() {
                if let Some(PathStep::Key(key)) = path.get(cut) {
                    map.remove(key);
                    log.push(format!("remove {:?}", &path[..=cut]));
                }
            }
        }
        let bytes = make_glb(&edited, Some(&bin));
        report.check(&bytes, || format!("case {case}: {}", log.join(", ")));
    }
}

fn synthetic_glb() -> Vec<u8> {
    let skeleton = synthetic_skeleton();
    export_glb(&skeleton, &synthetic_clips(&skeleton)).unwrap()
}

#[test]
fn mutated_synthetic_glb_never_panics() {
    let glb = synthetic_glb();
    assert!(load_slice(&glb, None).is_ok());
    let mut report = Report::new("synthetic .glb");
    fuzz_bytes(&mut report, &glb, 0x9E37_79B9_7F4A_7C15, 3000, usize::MAX);
    fuzz_json(&mut report, &glb, 0xD1B5_4A32_D192_ED03, 1500);
    report.finish();
}

#[test]
fn mutated_gltf_with_data_uri_never_panics() {
    let glb = synthetic_glb();
    let (mut json, bin) = split_glb(&glb);
    json["buffers"][0]["uri"] = Value::from(format!(
        "data:application/octet-stream;base64,{}",
        base64::engine::general_purpose::STANDARD.encode(&bin)
    ));
    let gltf = serde_json::to_vec(&json).unwrap();
    assert!(load_slice(&gltf, None).is_ok());
    let mut report = Report::new("synthetic .gltf");
    fuzz_bytes(&mut report, &gltf, 0x5851_F42D_4C95_7F2D, 1500, 400);
    report.finish();
}

#[test]
fn mutated_mannequin_glb_never_panics() {
    let mannequin = plantigrade::mannequin::Mannequin::new();
    let glb = export_glb(&mannequin.skeleton, &mannequin.clips).unwrap();
    let mut report = Report::new("mannequin .glb");
    fuzz_bytes(&mut report, &glb, 0x2545_F491_4F6C_DD1D, 400, 300);
    fuzz_json(&mut report, &glb, 0x1405_7B7E_F767_814F, 300);
    report.finish();
}

#[test]
fn mutated_real_asset_never_panics() {
    let Some(path) = plantigrade_test_assets::require("KayKit_RigMedium_MovementAdvanced.glb")
    else {
        return;
    };
    let glb = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut report = Report::new("KayKit .glb");
    fuzz_bytes(&mut report, &glb, 0xA076_1D64_78BD_642F, 300, 200);
    fuzz_json(&mut report, &glb, 0xE703_7ED1_A0B4_28DB, 200);
    report.finish();
}
