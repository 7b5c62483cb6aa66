//! `fourkings verify` as a user runs it: the built binary on a good record, the same record as the
//! `GET /games/{id}` body, a tampered record and unreadable input, checking exit codes and output.

use std::path::Path;
use std::process::{Command, Output};

use protocol::{GameKind, Seat};
use room::selfplay::play_record;
use serde_json::json;

fn verify(file: &Path, extra: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_fourkings"))
        .arg("verify")
        .arg(file)
        .args(extra)
        .output()
        .expect("the binary runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn verify_accepts_a_good_record_and_pinpoints_a_tampered_one() {
    let dir = tempfile::tempdir().unwrap();
    let doc = play_record(GameKind::Chaturaji, &json!({}), Seat::Green, [9; 32], 9).unwrap();

    // The bare record.
    let bare = dir.path().join("bare.json");
    std::fs::write(&bare, serde_json::to_string_pretty(&doc).unwrap()).unwrap();
    let out = verify(&bare, &[]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}{}", text(&out.stderr));
    assert!(stdout.contains("everything matches"), "{stdout}");
    assert!(
        stdout.contains(doc.dice_commit.as_deref().unwrap()),
        "{stdout}"
    );

    // The REST body around it.
    let wrapped = dir.path().join("wrapped.json");
    let body = json!({"record": doc, "rating_changes": []});
    std::fs::write(&wrapped, body.to_string()).unwrap();
    assert_eq!(verify(&wrapped, &[]).status.code(), Some(0));

    // Die 0 of a throw changed to the other face that moves the same pieces (1 and 5, 4 and 6 on
    // cube dice): the game stays legal, only the dice check can see it.
    let mut tampered = doc.clone();
    let (throw, at) = tampered
        .actions
        .iter()
        .enumerate()
        .filter(|(_, a)| a.action["type"] == "roll")
        .enumerate()
        .map(|(n, (at, _))| (n + 1, at))
        .find(|&(n, at)| {
            n > 3
                && [1, 4, 5, 6].contains(&tampered.actions[at].action["dice"][0].as_u64().unwrap())
        })
        .unwrap();
    let faces = tampered.actions[at].action["dice"].clone();
    let first = faces[0].as_u64().unwrap();
    let changed = match first {
        1 => 5,
        5 => 1,
        4 => 6,
        _ => 4,
    };
    tampered.actions[at].action["dice"][0] = json!(changed);
    let bad = dir.path().join("tampered.json");
    std::fs::write(&bad, serde_json::to_string(&tampered).unwrap()).unwrap();
    let out = verify(&bad, &[]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    let expected_line = format!(
        "MISMATCH seq {at}: throw #{throw} of the seed is [{first}, {}], the log says [{changed}, {}]",
        faces[1], faces[1]
    );
    assert!(stdout.contains(&expected_line), "{stdout}");
    assert!(stdout.contains("1 problem(s)"), "{stdout}");

    // The same as JSON.
    let out = verify(&bad, &["--json"]);
    assert_eq!(out.status.code(), Some(1));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["problems"][0]["problem"], "dice_mismatch");
    assert_eq!(report["problems"][0]["seq"], json!(at));

    // Unreadable input: not JSON, not a record, no file.
    let garbage = dir.path().join("garbage.json");
    std::fs::write(&garbage, "{not json").unwrap();
    let out = verify(&garbage, &[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("not JSON"));
    let other = dir.path().join("other.json");
    std::fs::write(&other, r#"{"hello": 1}"#).unwrap();
    assert_eq!(verify(&other, &[]).status.code(), Some(2));
    assert_eq!(
        verify(&dir.path().join("missing.json"), &[]).status.code(),
        Some(2)
    );
}
