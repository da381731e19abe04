//! Graph events (GRAPH-7): state entered/left, transition started/finished, and clip events
//! (footsteps, markers) crossed this tick — each reported once, including across a loop's
//! wrap-around.

use crate::clip::Clip;

/// A state machine of a graph asset (the base machine, or one nested in a state).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MachineId(pub u16);

/// A state within its machine.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct StateId(pub u16);

/// An interned clip-event name (`Footstep_L`, `recovered`, …) of a graph asset.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct EventNameId(pub u32);

/// What happened during one tick. Names resolve through the graph asset
/// (`state_name`, `event_name`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum GraphEvent {
    StateLeft {
        machine: MachineId,
        state: StateId,
    },
    StateEntered {
        machine: MachineId,
        state: StateId,
    },
    TransitionStarted {
        machine: MachineId,
        from: StateId,
        to: StateId,
        duration_s: f32,
    },
    TransitionFinished {
        machine: MachineId,
        to: StateId,
    },
    /// A clip event crossed by the dominant clip of the active pose (the one with the most
    /// weight in its blend space, on the side of a crossfade holding at least half).
    Clip {
        name: EventNameId,
        /// Index of the clip in the graph asset's clip list.
        clip: u32,
    },
}

/// A span of clip time covered by one tick: from `start_s`, `advance_s` seconds further,
/// wrapping at the clip end when it loops. `inclusive_start` is set on the first tick after
/// a reset, so an event at the very start fires once.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct TimeSpan {
    pub start_s: f32,
    pub advance_s: f32,
    pub inclusive_start: bool,
}

/// Calls `f` for each event of `clip` inside `span`, in time order, each once.
pub fn for_each_event_in_span(clip: &Clip, span: TimeSpan, mut f: impl FnMut(usize)) {
    let duration = clip.duration_s();
    let events = clip.events();
    if events.is_empty()
        || span.advance_s.is_nan()
        || span.advance_s < 0.0
        || !span.start_s.is_finite()
    {
        return;
    }
    let start = span.start_s;
    let in_range =
        |t: f32, lo: f32, hi: f32, include_lo: bool| (t > lo || (include_lo && t == lo)) && t <= hi;
    if !clip.is_looping() || duration <= 0.0 {
        let end = (start + span.advance_s).min(duration);
        for (i, e) in events.iter().enumerate() {
            if in_range(e.time_s, start, end, span.inclusive_start) {
                f(i);
            }
        }
        return;
    }
    // A tick never covers more than one whole loop: longer spikes report each event once.
    let advance = span.advance_s.min(duration);
    let end = start + advance;
    if end <= duration {
        for (i, e) in events.iter().enumerate() {
            if in_range(e.time_s, start, end, span.inclusive_start) {
                f(i);
            }
        }
    } else {
        // (start, duration] then [0, end − duration], skipping an event at 0 that coincides
        // with one at `duration` (the same instant of the loop).
        let wrapped_end = end - duration;
        for (i, e) in events.iter().enumerate() {
            if in_range(e.time_s, start, duration, span.inclusive_start) {
                f(i);
            }
        }
        let has_end_event = events.iter().any(|e| e.time_s == duration);
        for (i, e) in events.iter().enumerate() {
            let at_zero_dup = e.time_s == 0.0 && has_end_event;
            let before_start = e.time_s < start || (e.time_s == start && !span.inclusive_start);
            if !at_zero_dup && e.time_s <= wrapped_end && before_start {
                f(i);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clip::JointTracks;

    fn clip(looping: bool) -> Clip {
        Clip::new("c", Some(1.0), vec![JointTracks::default()])
            .unwrap()
            .with_looping(looping)
            .with_event("a", 0.0)
            .unwrap()
            .with_event("b", 0.5)
            .unwrap()
    }

    fn crossed(clip: &Clip, start_s: f32, advance_s: f32, inclusive_start: bool) -> Vec<usize> {
        let mut out = Vec::new();
        let span = TimeSpan {
            start_s,
            advance_s,
            inclusive_start,
        };
        for_each_event_in_span(clip, span, |i| out.push(i));
        out
    }

    #[test]
    fn each_event_once_over_many_ticks_with_wrap() {
        let c = clip(true);
        // 6.75 s at an awkward step: every event fires exactly once per loop.
        let mut counts = [0usize; 2];
        let mut t = 0.0f32;
        let dt = 1.0 / 60.0 * 1.37;
        let mut first = true;
        let mut elapsed = 0.0;
        while elapsed < 6.75 {
            let mut span_events = Vec::new();
            for_each_event_in_span(
                &c,
                TimeSpan {
                    start_s: t,
                    advance_s: dt,
                    inclusive_start: first,
                },
                |i| span_events.push(i),
            );
            for i in span_events {
                counts[i] += 1;
            }
            first = false;
            t = c.local_time_s(t + dt);
            elapsed += dt;
        }
        // a at 0 fires at the start and after each of the 6 wraps; b at 0.5 … 6.5: 7 each.
        assert_eq!(counts, [7, 7], "{counts:?}");
    }

    #[test]
    fn wrap_and_one_shot_spans() {
        let c = clip(true);
        assert_eq!(crossed(&c, 0.9, 0.2, false), vec![0]);
        assert_eq!(crossed(&c, 0.4, 0.2, false), vec![1]);
        assert_eq!(crossed(&c, 0.0, 0.1, true), vec![0]);
        assert_eq!(crossed(&c, 0.0, 0.1, false), Vec::<usize>::new());
        // A 5 s spike reports each event once.
        assert_eq!(crossed(&c, 0.2, 5.0, false).len(), 2);
        let once = clip(false);
        assert_eq!(crossed(&once, 0.9, 0.5, false), Vec::<usize>::new());
        assert_eq!(crossed(&once, 0.4, 5.0, false), vec![1]);
    }
}
