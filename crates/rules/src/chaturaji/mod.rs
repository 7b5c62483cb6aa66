//! Chaturaji (dice, four players): `../shared/rules/chaturaji.md`, rules C.1–C.25.
