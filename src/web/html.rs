//! Small pieces of HTML shared by the server-rendered pages (issue 21): escaping, links to bots
//! and sets, the number and time formats the pages' script also uses, and filling a page
//! template's `{{key}}` slots. Every text that comes from a user goes through [`esc`].

use std::fmt::Write as _;

use serde_json::Value;

pub(crate) use super::standings::{esc, half};

/// `template` with each `{{key}}` replaced by its value from `parts` (HTML, already escaped),
/// in one pass: a value that itself contains `{{...}}` is never expanded. An unknown key is
/// left out.
pub(crate) fn fill(template: &str, parts: &[(&str, String)]) -> String {
    let mut out =
        String::with_capacity(template.len() + parts.iter().map(|p| p.1.len()).sum::<usize>());
    let mut rest = template;
    while let Some(at) = rest.find("{{") {
        out.push_str(&rest[..at]);
        let after = &rest[at + 2..];
        let Some(end) = after.find("}}") else {
            out.push_str(&rest[at..]);
            return out;
        };
        let key = &after[..end];
        if let Some((_, v)) = parts.iter().find(|(k, _)| *k == key) {
            out.push_str(v);
        }
        rest = &after[end + 2..];
    }
    out.push_str(rest);
    out
}

/// The string in `v`, or "" when it is not one.
pub(crate) fn s(v: &Value) -> &str {
    v.as_str().unwrap_or_default()
}

/// Percent-encodes `s` for a path segment (everything but the unreserved characters).
pub(crate) fn pct(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
            out.push(char::from(b));
        } else {
            let _ = write!(out, "%{b:02X}");
        }
    }
    out
}

/// A number as the pages' script prints it: `1216`, `3.5`; "–" when absent.
pub(crate) fn num(v: &Value) -> String {
    match v {
        Value::Number(n) => match (n.as_i64(), n.as_f64()) {
            (Some(i), _) => i.to_string(),
            (None, Some(f)) if f.fract() == 0.0 && f.abs() < 1e15 => format!("{}", f as i64),
            (None, Some(f)) => f.to_string(),
            _ => "–".into(),
        },
        Value::String(t) => esc(t),
        _ => "–".into(),
    }
}

/// A rounded number, "–" when absent.
pub(crate) fn round(v: &Value) -> String {
    v.as_f64()
        .map_or_else(|| "–".into(), |f| format!("{}", f.round() as i64))
}

/// `+12`, `-3`, `0`; "–" when absent.
pub(crate) fn signed(v: &Value) -> String {
    match v.as_f64() {
        Some(f) if f > 0.0 => format!("+{}", num(v)),
        Some(_) => num(v),
        None => "–".into(),
    }
}

/// A table cell with `html` inside, "–" when empty.
pub(crate) fn td(html: &str, class: &str) -> String {
    let body = if html.is_empty() { "–" } else { html };
    if class.is_empty() {
        format!("<td>{body}</td>")
    } else {
        format!("<td class=\"{class}\">{body}</td>")
    }
}

/// A name users chose, escaped and bidi-isolated.
pub(crate) fn isolated(v: &Value) -> String {
    format!("<bdi>{}</bdi>", esc(v.as_str().unwrap_or("?")))
}

/// A link to a bot's page (`dir="auto"` isolates its name); "?" without a name.
pub(crate) fn bot_link(v: &Value) -> String {
    match v.as_str().filter(|n| !n.is_empty()) {
        Some(n) => format!(
            "<a href=\"/bots/{}\" class=\"bot\" dir=\"auto\">{}</a>",
            pct(n),
            esc(n)
        ),
        None => "?".into(),
    }
}

/// A link to a set's page with `html` as its text, or a shortened id.
pub(crate) fn set_link(id: &str, html: Option<&str>) -> String {
    let short = if id.chars().count() > 14 {
        let tail: String = id.chars().skip(id.chars().count() - 8).collect();
        format!("…{}", esc(&tail))
    } else {
        esc(id)
    };
    format!(
        "<a href=\"/sets/{}\" title=\"{}\">{}</a>",
        pct(id),
        esc(id),
        html.map_or(short, str::to_string)
    )
}

/// "A vs B": both bots linked to their pages and "vs" to the set.
pub(crate) fn pairing(id: &str, a: &Value, b: &Value) -> String {
    format!(
        "<span>{} {} {}</span>",
        bot_link(a),
        set_link(id, Some("vs")),
        bot_link(b)
    )
}

/// `1 – ½` from a points pair.
pub(crate) fn points(v: &Value) -> String {
    match v.as_array() {
        Some(p) => p.iter().map(half).collect::<Vec<_>>().join(" – "),
        None => "–".into(),
    }
}

/// `11×11, 4 stones` or `11×11, swap`.
pub(crate) fn board(o: &Value) -> String {
    if !o.is_object() {
        return "–".into();
    }
    let size = o["size"].as_i64().unwrap_or(11);
    let stones = o["random_stones"].as_i64().unwrap_or(4);
    if stones == 0 {
        format!("{size}×{size}, swap")
    } else {
        format!("{size}×{size}, {stones} stones")
    }
}

/// `60 s + 2 s` (no break between a number and its unit).
pub(crate) fn clock_settings(c: &Value) -> String {
    if !c.is_object() {
        return "–".into();
    }
    format!(
        "{}\u{a0}s + {}\u{a0}s",
        num(&c["initial_s"]),
        num(&c["increment_s"])
    )
}

/// `10 PTS`, `none`.
pub(crate) fn stake(v: &Value) -> String {
    match v.as_i64() {
        Some(0) => "none".into(),
        Some(n) => format!("{n} PTS"),
        None => "–".into(),
    }
}

/// An RFC 3339 time as `2026-12-01 18:00 UTC` (plain text); "–" when absent.
pub(crate) fn when(v: &Value) -> String {
    let Some(t) = v.as_str() else {
        return "–".into();
    };
    match (t.get(..10), t.get(11..19)) {
        (Some(d), Some(hms)) if t.ends_with('Z') => format!("{d} {hms} UTC"),
        _ => esc(t),
    }
}

/// An RFC 3339 time to the minute, as the standings pages print it: `2026-12-01 18:00 UTC`;
/// `None` when absent.
pub(crate) fn utc_minute(v: &Value) -> Option<String> {
    let t = v.as_str()?;
    Some(match (t.get(..10), t.get(11..16)) {
        (Some(d), Some(hm)) if t.ends_with('Z') => format!("{d} {hm} UTC"),
        _ => esc(t),
    })
}

/// The scheduled start of a tournament not started yet (`starts 2026-12-01 18:00 UTC`).
pub(crate) fn starts(t: &Value) -> Option<String> {
    if !t["started_at"].is_null() {
        return None;
    }
    utc_minute(&t["start_at"]).map(|d| format!("starts {d}"))
}

/// A `<time>` the pages' script turns into "… ago"; shown meanwhile as a short UTC month,
/// day and minute (`12-02 05:50`; the full time is its title).
pub(crate) fn time(v: &Value) -> String {
    let Some(t) = v.as_str() else {
        return "<span class=\"muted\">–</span>".into();
    };
    let shown = match (t.get(5..10), t.get(11..16)) {
        (Some(d), Some(hm)) if t.ends_with('Z') => format!("{d} {hm}"),
        _ => esc(t),
    };
    format!(
        "<time datetime=\"{0}\" title=\"{0}\">{shown}</time>",
        esc(t)
    )
}

/// A table's rows and the note under it (shown only when there are no rows), as the pages'
/// script fills them: `(rows, note)`.
pub(crate) fn rows_and_note(id: &str, rows: &[String], empty: &str) -> (String, String) {
    let note = if rows.is_empty() {
        format!("<p class=\"empty\" id=\"{id}-empty\">{}</p>", esc(empty))
    } else {
        format!("<p class=\"empty\" id=\"{id}-empty\" hidden></p>")
    };
    (rows.concat(), note)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_template_is_filled_in_one_pass_and_values_are_not_expanded_again() {
        let t = "<h1>{{title}}</h1><p>{{body}}</p>{{unknown}}";
        let out = fill(t, &[("title", "{{body}}".into()), ("body", "x".into())]);
        assert_eq!(out, "<h1>{{body}}</h1><p>x</p>");
    }

    #[test]
    fn names_are_escaped_and_links_percent_encoded() {
        assert_eq!(
            bot_link(&json!("a<b>&\"'")),
            "<a href=\"/bots/a%3Cb%3E%26%22%27\" class=\"bot\" dir=\"auto\">a&lt;b&gt;&amp;&quot;&#39;</a>"
        );
        assert_eq!(isolated(&json!("<i>")), "<bdi>&lt;i&gt;</bdi>");
        assert_eq!(num(&json!(1216.0)), "1216");
        assert_eq!(num(&json!(1.5)), "1.5");
        assert_eq!(signed(&json!(12)), "+12");
        assert_eq!(points(&json!([1.5, 0.5])), "1½ – ½");
    }
}
