//! LOD tiers for the procedural pass (SPEC IK-11). Being written.
