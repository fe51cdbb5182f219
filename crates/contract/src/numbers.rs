//! How the contract reads JSON numbers (agents.md, conventions): an integer field takes any
//! number JSON Schema calls an integer, `7` as well as `7.0` or `7e0`.

use serde_json::Value;

/// The integer a JSON number stands for, if it is one (`7`, `7.0`, `7e0`); None for a
/// fraction, a non-number, or a float beyond ±9e15 (where floats skip integers).
#[must_use]
pub fn integral(v: &Value) -> Option<i64> {
    v.as_i64().or_else(|| {
        v.as_f64()
            .filter(|f| f.fract() == 0.0 && f.abs() < 9.0e15)
            .map(|f| f as i64)
    })
}

/// [`integral`] for a non-negative integer up to `u64::MAX` (`nodes` counts may exceed
/// `i64`): a JSON unsigned integer, or a whole non-negative float.
#[must_use]
pub fn non_negative(v: &Value) -> Option<u64> {
    v.as_u64()
        .or_else(|| integral(v).and_then(|n| u64::try_from(n).ok()))
}

#[cfg(test)]
mod tests {
    use super::{integral, non_negative};
    use serde_json::json;

    #[test]
    fn whole_floats_are_integers_and_fractions_are_not() {
        assert_eq!(integral(&json!(7)), Some(7));
        assert_eq!(integral(&json!(7.0)), Some(7));
        assert_eq!(
            integral(&serde_json::from_str("7e0").expect("json")),
            Some(7)
        );
        assert_eq!(integral(&json!(-3.0)), Some(-3));
        assert_eq!(integral(&json!(7.5)), None);
        assert_eq!(integral(&json!("7")), None);
        assert_eq!(integral(&json!(1e300)), None);
        assert_eq!(non_negative(&json!(u64::MAX)), Some(u64::MAX));
        assert_eq!(non_negative(&json!(12.0)), Some(12));
        assert_eq!(non_negative(&json!(-1)), None);
        assert_eq!(non_negative(&json!(-1.0)), None);
    }
}
