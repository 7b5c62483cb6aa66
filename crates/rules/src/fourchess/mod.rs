//! Four-player chess (Teams and FFA): `../shared/rules/fourchess.md`, rules F.1–F.27.
