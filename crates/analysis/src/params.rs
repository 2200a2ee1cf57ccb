//! Analysis parameters: declared per analysis with a default and the allowed
//! values, validated before any work so a typo is a usage error naming the
//! parameters the analysis takes.

use tracelab_schema::error::{Error, Result};

use super::Analysis;

/// A declared parameter.
#[derive(Debug)]
pub struct Param {
    pub name: &'static str,
    pub default: &'static str,
    pub doc: &'static str,
    /// Allowed values; empty means free-form (numbers, durations).
    pub choices: &'static [&'static str],
}

/// Validated parameter values, defaults filled, in declaration order.
#[derive(Debug, Clone)]
pub struct Args {
    values: Vec<(&'static str, String)>,
    id: &'static str,
}

impl Args {
    pub fn validate(analysis: &Analysis, given: &[(String, String)]) -> Result<Args> {
        for (name, value) in given {
            let Some(p) = analysis.params.iter().find(|p| p.name == name) else {
                return Err(Error::Usage(format!(
                    "{} takes no parameter `{name}`; it takes: {}",
                    analysis.id,
                    describe(analysis)
                )));
            };
            if !p.choices.is_empty() && !p.choices.contains(&value.as_str()) {
                return Err(Error::Usage(format!(
                    "{}: --param {name}={value}: expected one of {}",
                    analysis.id,
                    p.choices.join(", ")
                )));
            }
        }
        let values = analysis
            .params
            .iter()
            .map(|p| {
                let v = given.iter().rev().find(|(n, _)| n == p.name).map_or(p.default.to_string(), |g| g.1.clone());
                (p.name, v)
            })
            .collect();
        Ok(Args { values, id: analysis.id })
    }

    /// The values as (name, value) pairs, for the output's record.
    pub fn pairs(&self) -> Vec<(String, String)> {
        self.values.iter().map(|(k, v)| (k.to_string(), v.clone())).collect()
    }

    pub fn str(&self, name: &str) -> &str {
        self.values
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v.as_str())
            .unwrap_or_else(|| panic!("{}: parameter {name} is not declared", self.id))
    }

    pub fn f64(&self, name: &str) -> Result<f64> {
        let raw = self.str(name);
        raw.parse::<f64>().ok().filter(|v| v.is_finite()).ok_or_else(|| self.bad(name, raw, "a number"))
    }

    pub fn u64(&self, name: &str) -> Result<u64> {
        let raw = self.str(name);
        raw.parse::<u64>().map_err(|_| self.bad(name, raw, "a whole number"))
    }

    pub fn bool(&self, name: &str) -> Result<bool> {
        match self.str(name) {
            "true" | "yes" | "1" => Ok(true),
            "false" | "no" | "0" => Ok(false),
            raw => Err(self.bad(name, raw, "true or false")),
        }
    }

    /// A duration such as `300s`, `5m`, `1h`, `1d`, in seconds (> 0).
    pub fn duration_s(&self, name: &str) -> Result<i64> {
        let raw = self.str(name);
        parse_duration(raw).ok_or_else(|| self.bad(name, raw, "a duration such as 30s, 5m, 1h or 1d"))
    }

    fn bad(&self, name: &str, raw: &str, expected: &str) -> Error {
        Error::Usage(format!("{}: --param {name}={raw}: expected {expected}", self.id))
    }
}

fn parse_duration(raw: &str) -> Option<i64> {
    let split = raw.find(|c: char| !c.is_ascii_digit())?;
    let (n, unit) = raw.split_at(split);
    let n: i64 = n.parse().ok()?;
    let mult = match unit {
        "s" => 1,
        "m" | "min" => 60,
        "h" => 3600,
        "d" => 86_400,
        _ => return None,
    };
    (n > 0).then_some(n * mult)
}

/// `name=default (choices)` for every parameter, or "none".
pub fn describe(analysis: &Analysis) -> String {
    if analysis.params.is_empty() {
        return "none".into();
    }
    analysis
        .params
        .iter()
        .map(|p| {
            if p.choices.is_empty() {
                format!("{}={}", p.name, p.default)
            } else {
                format!("{}={} ({})", p.name, p.default, p.choices.join("|"))
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_parse_with_units() {
        assert_eq!(parse_duration("5m"), Some(300));
        assert_eq!(parse_duration("300s"), Some(300));
        assert_eq!(parse_duration("2h"), Some(7200));
        assert_eq!(parse_duration("1d"), Some(86_400));
        assert_eq!(parse_duration("0m"), None);
        assert_eq!(parse_duration("5"), None);
        assert_eq!(parse_duration("m"), None);
    }
}
