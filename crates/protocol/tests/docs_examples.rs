//! Every JSON example in docs/protocol.md parses into the protocol type its code fence names, and
//! serializing it back gives the same JSON (so the docs show exactly what the server sends).

use protocol::*;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

const DOC: &str = include_str!("../../../docs/protocol.md");

/// (fence tag, JSON text) of every ```json block.
fn examples() -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut lines = DOC.lines();
    while let Some(line) = lines.next() {
        let Some(tag) = line.strip_prefix("```json") else {
            continue;
        };
        let mut body = String::new();
        for line in lines.by_ref() {
            if line.starts_with("```") {
                break;
            }
            body.push_str(line);
            body.push('\n');
        }
        out.push((tag.trim().to_owned(), body));
    }
    out
}

/// Every field of `shown` is in `actual` with the same value (`actual` may add defaulted fields).
fn contains(actual: &Value, shown: &Value) -> bool {
    match (actual, shown) {
        (Value::Object(a), Value::Object(s)) => s
            .iter()
            .all(|(k, v)| a.get(k).is_some_and(|av| contains(av, v))),
        (Value::Array(a), Value::Array(s)) => {
            a.len() == s.len() && a.iter().zip(s).all(|(x, y)| contains(x, y))
        }
        _ => actual == shown,
    }
}

/// Parse as `T`, and check nothing was dropped or renamed on the way back.
fn round_trip<T: DeserializeOwned + Serialize>(tag: &str, text: &str) {
    let value: Value =
        serde_json::from_str(text).unwrap_or_else(|e| panic!("{tag}: not JSON: {e}\n{text}"));
    let typed: T =
        serde_json::from_value(value.clone()).unwrap_or_else(|e| panic!("{tag}: {e}\n{text}"));
    let back = serde_json::to_value(&typed).unwrap();
    assert!(
        contains(&back, &value),
        "{tag}: the example does not round-trip\n{text}\n{back}"
    );
}

#[test]
fn every_docs_example_parses_into_the_protocol_types() {
    let examples = examples();
    assert!(
        examples.len() >= 30,
        "only {} examples found",
        examples.len()
    );
    let mut seen_types = std::collections::BTreeSet::new();
    for (tag, text) in &examples {
        match tag.as_str() {
            "client" => {
                round_trip::<ClientMsg>(tag, text);
                // The server's own parser accepts it too.
                ClientMsg::parse(text).unwrap_or_else(|e| panic!("{e:?}\n{text}"));
                let v: Value = serde_json::from_str(text).unwrap();
                seen_types.insert(format!("client:{}", v["t"].as_str().unwrap()));
            }
            "server" => {
                round_trip::<ServerMsg>(tag, text);
                let v: Value = serde_json::from_str(text).unwrap();
                let t = v["t"].as_str().unwrap();
                seen_types.insert(match v["event"]["e"].as_str() {
                    Some(e) => format!("event:{e}"),
                    None => format!("server:{t}"),
                });
            }
            "rest:CreateRoom" => round_trip::<CreateRoom>(tag, text),
            "rest:CreatedRoom" => round_trip::<CreatedRoom>(tag, text),
            "rest:ChangeSettings" => round_trip::<ChangeSettings>(tag, text),
            "rest:JoinRoom" => round_trip::<JoinRoom>(tag, text),
            "rest:Joined" => round_trip::<Joined>(tag, text),
            "rest:SeatCpu" => round_trip::<SeatCpu>(tag, text),
            "rest:SeatOrder" => round_trip::<SeatOrder>(tag, text),
            "rest:MuteSeat" => round_trip::<MuteSeat>(tag, text),
            "rest:HideMessage" => round_trip::<HideMessage>(tag, text),
            "rest:RoomInfo" => round_trip::<RoomInfo>(tag, text),
            "rest:RoomList" => round_trip::<RoomList>(tag, text),
            "rest:ApiError" => round_trip::<ApiError>(tag, text),
            "rest:Health" => round_trip::<Health>(tag, text),
            "rest:Readiness" => round_trip::<Readiness>(tag, text),
            "rest:CreatePlayer" => round_trip::<CreatePlayer>(tag, text),
            "rest:CreatedPlayer" => round_trip::<CreatedPlayer>(tag, text),
            "rest:Leaderboard" => round_trip::<Leaderboard>(tag, text),
            "rest:PlayerProfile" => round_trip::<PlayerProfile>(tag, text),
            "rest:RatingHistory" => round_trip::<RatingHistory>(tag, text),
            "rest:FinishedGameBody" => round_trip::<FinishedGameBody>(tag, text),
            "rest:GamePositions" => round_trip::<GamePositions>(tag, text),
            "rest:RoomGames" => round_trip::<RoomGames>(tag, text),
            "rest:PlayerGames" => round_trip::<PlayerGames>(tag, text),
            other => panic!("unknown example tag `{other}`"),
        }
        if tag.starts_with("rest:") {
            seen_types.insert(tag.clone());
        }
    }
    // Every message and event kind is documented with an example.
    for kind in [
        "client:join",
        "client:act",
        "client:resign",
        "client:ping",
        "client:chat",
        "server:chat",
        "server:chat_hidden",
        "event:unseated",
        "event:locked",
        "event:muted",
        "server:welcome",
        "server:view",
        "server:ack",
        "server:error",
        "server:pong",
        "server:redirect",
        "event:seat_taken",
        "event:cpu_seated",
        "event:connection",
        "event:control",
        "event:settings_changed",
        "event:game_started",
        "event:acted",
        "event:game_over",
        "event:rated",
    ] {
        assert!(seen_types.contains(kind), "no example for {kind}");
    }
}

#[test]
fn parse_tells_bad_json_from_unknown_types_and_bad_fields() {
    assert_eq!(ClientMsg::parse("{").unwrap_err().0, ErrorCode::BadJson);
    assert_eq!(ClientMsg::parse("[]").unwrap_err().0, ErrorCode::BadJson);
    assert_eq!(
        ClientMsg::parse(r#"{"t":"dance"}"#).unwrap_err().0,
        ErrorCode::UnknownType
    );
    assert_eq!(
        ClientMsg::parse(r#"{"t":"act","ack":1}"#).unwrap_err().0,
        ErrorCode::BadMessage
    );
    assert_eq!(
        ClientMsg::parse(r#"{"t":"ping","extra":1}"#).unwrap_err().0,
        ErrorCode::BadMessage
    );
    assert_eq!(
        ClientMsg::parse(r#"{"t":"resign","ack":5}"#).unwrap(),
        ClientMsg::Resign { ack: 5 }
    );
    assert_eq!(
        ClientMsg::parse(r#"{"t":"chat","phrase":"oops"}"#).unwrap(),
        ClientMsg::Chat {
            text: None,
            phrase: Some("oops".into())
        }
    );
    assert_eq!(
        ClientMsg::parse(r#"{"t":"chat","text":"hi","color":"red"}"#)
            .unwrap_err()
            .0,
        ErrorCode::BadMessage
    );
}

#[test]
fn error_codes_serialize_as_their_stable_names() {
    for code in [
        ErrorCode::BadJson,
        ErrorCode::UnknownType,
        ErrorCode::BadMessage,
        ErrorCode::NotJoined,
        ErrorCode::Spectator,
        ErrorCode::NotYourTurn,
        ErrorCode::IllegalAction,
        ErrorCode::BadToken,
        ErrorCode::RoomFull,
        ErrorCode::GameOver,
        ErrorCode::NoGame,
        ErrorCode::GameRunning,
        ErrorCode::UnknownRoom,
        ErrorCode::BadOptions,
        ErrorCode::SeatTaken,
        ErrorCode::TooManyRooms,
        ErrorCode::Unavailable,
        ErrorCode::NotFound,
        ErrorCode::BadRequest,
        ErrorCode::WrongGame,
        ErrorCode::BadRecord,
        ErrorCode::Redirect,
        ErrorCode::AlreadySeated,
        ErrorCode::ChatTooLong,
        ErrorCode::ChatEmpty,
        ErrorCode::ChatTooFast,
        ErrorCode::Muted,
        ErrorCode::ChatClosed,
        ErrorCode::UnknownPhrase,
        ErrorCode::Unseated,
        ErrorCode::RoomLocked,
        ErrorCode::SeatEmpty,
        ErrorCode::PlayerPresent,
        ErrorCode::HandedOver,
    ] {
        assert_eq!(
            serde_json::to_value(code).unwrap(),
            Value::String(code.as_str().into())
        );
        assert!(
            DOC.contains(&format!("`{}`", code.as_str())),
            "{code} is not documented"
        );
    }
}
