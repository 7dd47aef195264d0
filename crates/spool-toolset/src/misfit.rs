//! Tool arguments that do not fit a tool's input schema, named in words.
//!
//! The 2025-11-25 specification (SEP-1303) asks that such a call be answered as a tool error the
//! model can correct, not as a protocol error. serde names a missing or unknown field but not a
//! wrong-typed one ("invalid type: integer `5`, expected a string"); this names the field, from
//! the schema the tool lists, for the top-level arguments.

use serde_json::Value;
use spool_core::Error;

/// A JSON object: a tool's arguments, or its input schema.
pub type JsonObject = serde_json::Map<String, Value>;

/// The tool error for arguments of `tool` that do not fit its schema: what does not fit, and,
/// when an upstream refused them, its own words.
pub fn invalid(tool: &str, misfit: &str, upstream_said: Option<&str>) -> Error {
    let said = upstream_said.map_or(String::new(), |s| format!(" (the upstream said: {s})"));
    Error::InvalidArgument {
        message: format!("the arguments of `{tool}` do not fit its input schema: {misfit}{said}")
            .into(),
        hint: Some(format!("call `{tool}` again with the arguments its inputSchema lists").into()),
    }
}

/// The first argument that does not fit `schema`, in words (`` `line` must be an integer (got
/// a string) ``), or `None` when every top-level argument fits.
pub fn misfit(schema: &JsonObject, args: &JsonObject) -> Option<String> {
    let properties = schema.get("properties").and_then(Value::as_object);
    if let Some(required) = schema.get("required").and_then(Value::as_array) {
        for name in required.iter().filter_map(Value::as_str) {
            if !args.contains_key(name) {
                return Some(format!("`{name}` is required"));
            }
        }
    }
    for (name, value) in args {
        let Some(property) = properties.and_then(|p| p.get(name)) else {
            if schema.get("additionalProperties") == Some(&Value::Bool(false)) {
                return Some(format!("`{name}` is not an argument of this tool"));
            }
            continue;
        };
        if let Some(wanted) = wanted_types(property)
            && !wanted.iter().any(|t| fits(t, value))
        {
            return Some(format!(
                "`{name}` must be {} (got {})",
                wanted
                    .iter()
                    .map(|t| article(t))
                    .collect::<Vec<_>>()
                    .join(" or "),
                describe(value)
            ));
        }
        if let Some(choices) = property.get("enum").and_then(Value::as_array)
            && !choices.contains(value)
        {
            let list: Vec<String> = choices.iter().map(Value::to_string).collect();
            return Some(format!(
                "`{name}` must be one of {} (got {value})",
                list.join(", ")
            ));
        }
    }
    None
}

/// The JSON types a property admits: `type` as a string or a list, or the types of its
/// `anyOf`/`oneOf` branches (schemars writes `Option<T>` so); `None` when unconstrained.
fn wanted_types(property: &Value) -> Option<Vec<String>> {
    match property.get("type") {
        Some(Value::String(t)) => return Some(vec![t.clone()]),
        Some(Value::Array(ts)) => {
            return Some(
                ts.iter()
                    .filter_map(Value::as_str)
                    .map(str::to_owned)
                    .collect(),
            );
        }
        _ => {}
    }
    let branches = property
        .get("anyOf")
        .or_else(|| property.get("oneOf"))?
        .as_array()?;
    let mut all = Vec::new();
    for branch in branches {
        all.extend(wanted_types(branch)?);
    }
    Some(all)
}

fn fits(wanted: &str, value: &Value) -> bool {
    match wanted {
        "string" => value.is_string(),
        "integer" => value.is_i64() || value.is_u64(),
        "number" => value.is_number(),
        "boolean" => value.is_boolean(),
        "array" => value.is_array(),
        "object" => value.is_object(),
        "null" => value.is_null(),
        _ => true,
    }
}

fn article(t: &str) -> String {
    match t {
        "integer" | "array" | "object" => format!("an {t}"),
        "null" => "null".to_owned(),
        other => format!("a {other}"),
    }
}

fn describe(value: &Value) -> String {
    match value {
        Value::Null => "null".to_owned(),
        Value::Bool(b) => format!("the boolean {b}"),
        Value::Number(n) => format!("the number {n}"),
        Value::String(s) if s.chars().count() > 40 => "a string".to_owned(),
        Value::String(s) => format!("the string {}", Value::String(s.clone())),
        Value::Array(_) => "an array".to_owned(),
        Value::Object(_) => "an object".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn obj(v: Value) -> JsonObject {
        match v {
            Value::Object(o) => o,
            _ => JsonObject::new(),
        }
    }

    #[test]
    fn a_wrong_type_names_the_field() {
        let schema = obj(json!({
            "type": "object",
            "properties": {
                "command": { "type": ["string", "null"] },
                "line": { "type": "integer" },
                "preview": { "anyOf": [{ "type": "string", "enum": ["head", "tail"] }, { "type": "null" }] },
                "mode": { "type": "string", "enum": ["a", "b"] }
            },
            "required": ["line"],
            "additionalProperties": false
        }));
        assert_eq!(
            misfit(&schema, &obj(json!({ "line": 1, "command": 5 }))).as_deref(),
            Some("`command` must be a string or null (got the number 5)")
        );
        assert_eq!(
            misfit(&schema, &obj(json!({ "line": "97" }))).as_deref(),
            Some("`line` must be an integer (got the string \"97\")")
        );
        assert_eq!(
            misfit(&schema, &obj(json!({}))).as_deref(),
            Some("`line` is required")
        );
        assert_eq!(
            misfit(&schema, &obj(json!({ "line": 1, "lines": 3 }))).as_deref(),
            Some("`lines` is not an argument of this tool")
        );
        assert_eq!(
            misfit(&schema, &obj(json!({ "line": 1, "mode": "c" }))).as_deref(),
            Some("`mode` must be one of \"a\", \"b\" (got \"c\")")
        );
        assert_eq!(
            misfit(&schema, &obj(json!({ "line": 1, "preview": null }))),
            None
        );
    }
}
