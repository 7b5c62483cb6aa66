//! `fourkings verify RECORD.json`: checks a finished game's record without trusting the server that
//! wrote it (see `room::verify`). The file is either the bare record or the whole `GET /games/{id}`
//! body (`{"record": …, "rating_changes": …}`); `-` reads standard input.

use std::io::Read;
use std::path::PathBuf;

use clap::Args;
use room::record::GameRecordDoc;
use room::verify::verify_record;
use serde_json::Value;

/// Exit codes: the record matches / disagrees / cannot be read.
pub const MATCHES: i32 = 0;
pub const DISAGREES: i32 = 1;
pub const UNREADABLE: i32 = 2;

/// Problems printed before the rest are only counted (a wrong seed makes every throw disagree).
const SHOWN: usize = 50;

#[derive(Debug, Args)]
pub struct VerifyArgs {
    /// The record file (`-` for standard input).
    file: PathBuf,
    /// Print the report as JSON instead of text.
    #[arg(long)]
    json: bool,
}

pub fn run(args: &VerifyArgs) -> i32 {
    let doc = match read(args) {
        Ok(doc) => doc,
        Err(message) => {
            eprintln!("fourkings verify: {}: {message}", args.file.display());
            return UNREADABLE;
        }
    };
    let report = verify_record(&doc);
    if args.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&report).expect("reports serialize")
        );
    } else {
        if let (Some(commit), Some(seed)) = (&doc.dice_commit, &doc.dice_seed) {
            println!("dice commit {commit}");
            println!("dice seed   {seed}");
        }
        for problem in report.problems.iter().take(SHOWN) {
            println!("MISMATCH {problem}");
        }
        if report.problems.len() > SHOWN {
            println!("… and {} more", report.problems.len() - SHOWN);
        }
        println!("{report}");
    }
    if report.ok() { MATCHES } else { DISAGREES }
}

fn read(args: &VerifyArgs) -> Result<GameRecordDoc, String> {
    let mut text = String::new();
    if args.file.as_os_str() == "-" {
        std::io::stdin()
            .read_to_string(&mut text)
            .map_err(|e| e.to_string())?;
    } else {
        text = std::fs::read_to_string(&args.file).map_err(|e| e.to_string())?;
    }
    let value: Value = serde_json::from_str(&text).map_err(|e| format!("not JSON: {e}"))?;
    // The `GET /games/{id}` body wraps the record; a bare record has a `format` field.
    let record = match value {
        Value::Object(mut body) if !body.contains_key("format") && body.contains_key("record") => {
            body.remove("record").unwrap_or(Value::Null)
        }
        other => other,
    };
    serde_json::from_value(record).map_err(|e| format!("not a game record: {e}"))
}
