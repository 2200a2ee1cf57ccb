//! `--param NAME=VALUE`, repeated, for every verb that takes parameters
//! (`analyze`, `query`, later `simulate`): split at the first `=`, the name
//! trimmed and non-empty, the value exactly as given. A name given twice is
//! a usage error naming it (the layers below check names and values).

use tracelab_schema::error::Error;

/// The pairs in the order given.
pub fn parse(raw: &[String]) -> Result<Vec<(String, String)>, Error> {
    let mut pairs: Vec<(String, String)> = Vec::with_capacity(raw.len());
    for p in raw {
        let (name, value) = p
            .split_once('=')
            .map(|(k, v)| (k.trim(), v))
            .filter(|(k, _)| !k.is_empty())
            .ok_or_else(|| Error::Usage(format!("--param {p}: expected NAME=VALUE, e.g. --param trace=helios")))?;
        if let Some((_, first)) = pairs.iter().find(|(k, _)| k == name) {
            return Err(Error::Usage(format!(
                "--param {name} is given twice ({name}={first} and {name}={value}); give each parameter once"
            )));
        }
        pairs.push((name.to_string(), value.to_string()));
    }
    Ok(pairs)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(v: &[&str]) -> Vec<String> {
        v.iter().map(std::string::ToString::to_string).collect()
    }

    #[test]
    fn pairs_keep_their_order_and_values_their_text() {
        let got = parse(&strings(&["b=2", " a =x=y", "c="])).unwrap();
        assert_eq!(got, [("b".into(), "2".into()), ("a".into(), "x=y".into()), ("c".into(), String::new())]);
    }

    #[test]
    fn a_repeated_or_malformed_parameter_is_a_usage_error() {
        let err = parse(&strings(&["top=5", "trace=pai", "top=7"])).unwrap_err();
        assert_eq!(err.exit_code(), 2);
        assert!(err.to_string().contains("--param top is given twice (top=5 and top=7)"), "{err}");
        for bad in ["top", "=5"] {
            let err = parse(&strings(&[bad])).unwrap_err();
            assert!(err.to_string().contains("expected NAME=VALUE"), "{err}");
        }
    }
}
