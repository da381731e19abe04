//! plantigrade world traits on rapier3d.
