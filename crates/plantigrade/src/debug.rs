//! Backend-neutral debug draw commands (SPEC IK-12, TILT-10). Being written.
