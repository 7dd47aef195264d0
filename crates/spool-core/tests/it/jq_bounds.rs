//! Every jq program the hostile run of issue 39 used, through the box: none ends this process
//! (these tests run in it), each answers within its deadline, saying which bound stopped it.
//! Before the box, the first of these ended the process with SIGABRT, and the time and memory
//! ones never answered. The fuzz property at the end runs generated programs over generated
//! JSON: no death, no answer past its bounds, every output line JSON.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use proptest::prelude::*;
use spool_core::ErrorCode;
use spool_core::jq_box::{Bound, Ended, Limits, run_limited};
use spool_core::query::run_query;

use crate::support::{put, store};

/// A smaller box than the server's, so the time and memory bounds are reached quickly.
const SMALL: Limits = Limits {
    time: Duration::from_secs(2),
    memory: 512 << 20,
    stack: 16 << 20,
    output: 1 << 20,
};

fn boxed(program: &str, input: &[u8], limits: Limits) -> (Ended, Duration) {
    let started = Instant::now();
    let ended = run_limited(program, &mut &input[..], None, limits).unwrap();
    (ended, started.elapsed())
}

/// No run outlives its deadline by more than the time to kill and reap the child.
fn within(took: Duration, limits: Limits) {
    assert!(
        took < limits.time + Duration::from_secs(3),
        "took {took:?} against a {:?} deadline",
        limits.time
    );
}

#[test]
fn recursion_that_ended_the_server_ends_only_its_box() {
    let s = store();
    let list = put(&s.store, b"[1,2,3]");
    for program in ["def f: [f]; f", "def f: 1 + f; f"] {
        let e = run_query(&s.store, &list.reference, program, None).unwrap_err();
        let said = e.to_string();
        assert_eq!(e.code(), ErrorCode::InvalidArgument, "{program}: {said}");
        assert!(
            said.contains("recursed deeper than the 256.0 MiB of stack"),
            "{program}: {said}"
        );
    }
    // Deep values that fit the stack are made and written (the issue's 20,000 levels).
    let deep = run_query(
        &s.store,
        &list.reference,
        "reduce range(20000) as $i (null; [.])",
        None,
    )
    .unwrap();
    assert_eq!(
        deep.bytes, 40_005,
        "20,000 pairs of brackets around `null`, and a newline"
    );
}

#[test]
fn input_nested_past_the_limit_is_refused_before_it_is_parsed() {
    let s = store();
    let deep = format!("{}{}", "[".repeat(20_000), "]".repeat(20_000));
    let stored = put(&s.store, deep.as_bytes());
    let e = run_query(&s.store, &stored.reference, ".", None).unwrap_err();
    assert_eq!(e.code(), ErrorCode::InvalidArgument);
    assert!(
        e.to_string()
            .contains("nests deeper than the 10,000 levels"),
        "{e}"
    );
    // At the limit it is parsed and answered.
    let at_limit = format!("{}{}", "[".repeat(10_000), "]".repeat(10_000));
    let stored = put(&s.store, at_limit.as_bytes());
    let out = run_query(&s.store, &stored.reference, "[..] | length", None).unwrap();
    assert_eq!(out.lines, 1);
}

#[test]
fn programs_that_broke_jaq_answer_invalid_argument() {
    let s = store();
    let list = put(&s.store, b"{}");
    let brackets = "[".repeat(10_000);
    for (program, expect) in [
        (r#""[" * 100000 | fromjson"#, "failed after 0 values"),
        (brackets.as_str(), "does not compile"),
        (r#"import "x" as $f; $f"#, "could not be run"),
    ] {
        let e = run_query(&s.store, &list.reference, program, None).unwrap_err();
        let said = e.to_string();
        assert_eq!(e.code(), ErrorCode::InvalidArgument, "{said}");
        assert!(said.contains(expect), "{said}");
        assert!(said.chars().count() < 1_200, "the words are cut: {said}");
    }
}

#[test]
fn programs_that_never_yield_are_stopped_at_the_deadline() {
    for program in ["until(false; .)", "last(range(1e18))", "def f: f; f"] {
        let (ended, took) = boxed(program, b"null", SMALL);
        assert!(
            matches!(
                ended,
                Ended::Bound {
                    bound: Bound::Time,
                    ..
                }
            ),
            "{program}: {ended:?}"
        );
        within(took, SMALL);
    }
}

#[test]
fn programs_that_grow_without_end_are_stopped_at_the_memory_bound() {
    for program in ["def f(x): f(x+1); f(0)", "[range(1e8)] | tostring"] {
        let (ended, took) = boxed(program, b"null", SMALL);
        assert!(
            matches!(
                ended,
                Ended::Bound {
                    bound: Bound::Memory | Bound::Time,
                    ..
                }
            ),
            "{program}: {ended:?}"
        );
        within(took, SMALL);
    }
}

#[test]
fn output_is_stopped_as_it_passes_its_bound() {
    let (ended, took) = boxed("range(1e12)", b"null", SMALL);
    let Ended::Bound {
        bound: Bound::Output,
        values,
    } = ended
    else {
        panic!("{ended:?}");
    };
    assert!(values > 1_000 && values < 300_000, "{values}");
    within(took, SMALL);
}

#[test]
fn cancelling_kills_the_box() {
    let cancel = AtomicBool::new(false);
    let started = Instant::now();
    let ended = std::thread::scope(|s| {
        s.spawn(|| {
            std::thread::sleep(Duration::from_millis(300));
            cancel.store(true, Ordering::SeqCst);
        });
        run_limited(
            "def f: f; f",
            &mut &b"null"[..],
            Some(&cancel),
            Limits::DEFAULT,
        )
        .unwrap()
    });
    assert!(matches!(ended, Ended::Cancelled), "{ended:?}");
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
}

#[test]
fn what_json_cannot_say_is_stored_as_jq_says_it() {
    let (ended, _) = boxed(
        r#"nan, infinite, -infinite, {(1): 2}, ("a" | tobytes)"#,
        b"null",
        SMALL,
    );
    let Ended::Done { out, values, .. } = ended else {
        panic!("{ended:?}");
    };
    assert_eq!(values, 5);
    let text = String::from_utf8(out).unwrap();
    for line in text.lines() {
        serde_json::from_str::<serde_json::Value>(line).unwrap_or_else(|e| panic!("{line}: {e}"));
    }
    assert!(
        text.starts_with("null\n1.7976931348623157e+308\n"),
        "{text}"
    );
}

#[test]
fn a_corrupt_artifact_answers_corrupt_not_the_program() {
    let s = store();
    let list = put(&s.store, b"[1,2,3,4,5,6,7,8,9]");
    let path = s.store.root().join("content").join(&list.reference);
    let mut bytes = std::fs::read(&path).unwrap();
    bytes[3] = b'7';
    std::fs::write(&path, bytes).unwrap();
    let e = run_query(&s.store, &list.reference, "length", None).unwrap_err();
    assert_eq!(e.code(), ErrorCode::Corrupt, "{e}");
}

/// A JSON value of bounded size and depth.
fn json_value() -> impl Strategy<Value = serde_json::Value> {
    use serde_json::Value;
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i32>().prop_map(Value::from),
        any::<f64>().prop_map(Value::from),
        "[a-z\\\\\"\\[\\]{} ]{0,8}".prop_map(Value::String),
    ];
    leaf.prop_recursive(6, 64, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::btree_map("[a-c]{1,2}", inner, 0..5)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

/// A program built from jq's pieces, hostile ones among them.
fn jq_program() -> impl Strategy<Value = String> {
    let atom = prop_oneof![
        Just(".".to_owned()),
        Just("..".to_owned()),
        Just(".[]?".to_owned()),
        Just(".a?".to_owned()),
        Just("keys?".to_owned()),
        Just("length".to_owned()),
        Just("tostring".to_owned()),
        Just("tojson | fromjson".to_owned()),
        Just("range(1e9)".to_owned()),
        Just("repeat(.)".to_owned()),
        Just("[recurse]".to_owned()),
        Just("nan".to_owned()),
        Just("infinite".to_owned()),
        Just("error(\"x\")".to_owned()),
        Just("def f: [f]; f".to_owned()),
        Just("def g: g; g".to_owned()),
        Just("(\"[\" * 3000 | fromjson)".to_owned()),
        Just("[limit(5; repeat(1))]".to_owned()),
        "[a-z(\\[{.|,;:$ ]{0,12}".prop_map(|s| s),
    ];
    atom.prop_recursive(3, 12, 3, |inner| {
        prop_oneof![
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("{a} | {b}")),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("{a}, {b}")),
            inner.clone().prop_map(|a| format!("[{a}]")),
            inner.clone().prop_map(|a| format!("first({a})")),
            inner.prop_map(|a| format!("try ({a}) catch .")),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn no_program_over_any_input_outlives_its_bounds(program in jq_program(), input in json_value()) {
        let limits = Limits { time: Duration::from_secs(1), ..SMALL };
        let bytes = serde_json::to_vec(&input).unwrap();
        let (ended, took) = boxed(&program, &bytes, limits);
        prop_assert!(took < limits.time + Duration::from_secs(3), "{program}: {took:?}");
        match ended {
            Ended::Done { out, .. } => {
                prop_assert!(out.len() <= limits.output);
                for line in String::from_utf8_lossy(&out).lines() {
                    prop_assert!(serde_json::from_str::<serde_json::Value>(line).is_ok(), "{program}: {line}");
                }
            }
            Ended::BoxFailed(why) => prop_assert!(false, "{program}: the box failed: {why}"),
            _ => {}
        }
    }
}
