//! Look-at for head and spine (SPEC IK-14). Being written.
