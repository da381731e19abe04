//! What the lab's many-character runs (`soak`, `crowd`) share: each character's own seeded
//! random numbers, the kill plane below the course, and the process's memory.

use plantigrade_course::SplitMix64;

/// Below this height (m) a character has fallen off the course and is put back.
pub const KILL_PLANE_Y_M: f32 = -20.0;

/// Seeded random numbers: the same seed replays the same run.
#[derive(Clone, Debug)]
pub struct Rng(pub SplitMix64);

impl Rng {
    /// Character `k`'s own stream of a run seeded `seed`: independent of every other
    /// character's, so characters can be ticked in any order or on any thread.
    pub fn for_character(seed: u64, k: u32) -> Self {
        Rng(SplitMix64(
            seed ^ (u64::from(k) + 1).wrapping_mul(0xD1B5_4A32_D192_ED03),
        ))
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0.next_u64()
    }

    /// Uniform in `0..1`.
    pub fn unit(&mut self) -> f32 {
        self.0.next_unit()
    }

    pub fn chance(&mut self, p: f32) -> bool {
        self.unit() < p
    }

    pub fn range(&mut self, lo: f32, hi: f32) -> f32 {
        lo + (hi - lo) * self.unit()
    }

    pub fn index(&mut self, n: usize) -> usize {
        (self.next_u64() % n.max(1) as u64) as usize
    }
}

/// Resident memory now (bytes), where the system says (Linux's /proc); `None` elsewhere.
pub fn resident_bytes() -> Option<u64> {
    let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: u64 = statm.split_whitespace().nth(1)?.parse().ok()?;
    Some(pages * 4096)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_generator_replays_and_spreads() {
        let (mut a, mut b) = (Rng(SplitMix64(7)), Rng(SplitMix64(7)));
        let xs: Vec<f32> = (0..1000).map(|_| a.unit()).collect();
        assert!(xs
            .iter()
            .zip((0..1000).map(|_| b.unit()))
            .all(|(x, y)| *x == y));
        assert!(xs.iter().all(|x| (0.0..1.0).contains(x)));
        let mean = xs.iter().sum::<f32>() / xs.len() as f32;
        assert!((mean - 0.5).abs() < 0.05, "{mean}");
        // Two characters of one seed draw different numbers.
        let (mut c0, mut c1) = (Rng::for_character(1, 0), Rng::for_character(1, 1));
        assert_ne!(c0.next_u64(), c1.next_u64());
    }
}
