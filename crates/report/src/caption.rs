//! A caption's placeholders: `{name}` is the figure's value of the
//! analysis's parameter `name` (as given in the spec, else its default), and
//! `{name:s}` a duration parameter in seconds (`bin = "5m"` gives `300`), so
//! a caption states the parameters the figure was drawn with, never a copy
//! that can disagree. `{{` and `}}` are literal braces. An unknown name is
//! an error (the caller places it at the figure's line).

use tracelab_analysis::Args;

/// `caption` with its placeholders filled from `args`, or what is wrong.
pub fn fill(caption: &str, args: &Args, analysis: &str) -> Result<String, String> {
    let mut out = String::with_capacity(caption.len());
    let mut rest = caption;
    while let Some(at) = rest.find(['{', '}']) {
        out.push_str(&rest[..at]);
        let tail = &rest[at..];
        if tail.starts_with("{{") || tail.starts_with("}}") {
            out.push_str(&tail[..1]);
            rest = &tail[2..];
            continue;
        }
        if tail.starts_with('}') {
            return Err("caption: a `}` without its `{` (write `}}` for a brace)".into());
        }
        let end = tail.find('}').ok_or("caption: a `{` without its `}` (write `{{` for a brace)")?;
        out.push_str(&value(&tail[1..end], args, analysis)?);
        rest = &tail[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

fn value(placeholder: &str, args: &Args, analysis: &str) -> Result<String, String> {
    let (name, format) = placeholder.split_once(':').unwrap_or((placeholder, ""));
    let known = || {
        let names: Vec<String> = args.pairs().into_iter().map(|(n, _)| format!("{{{n}}}")).collect();
        if names.is_empty() {
            format!("{analysis} takes no parameters")
        } else {
            format!("{analysis} takes {}", names.join(", "))
        }
    };
    let Some((raw, kind)) = args.value(name) else {
        return Err(format!("caption: unknown placeholder `{{{placeholder}}}` ({})", known()));
    };
    match format {
        "" => Ok(raw.to_string()),
        "s" => kind.seconds(raw).map(|s| s.to_string()).ok_or_else(|| {
            format!("caption: `{{{placeholder}}}`: `:s` (seconds) applies to durations; {name} is {}", kind.label())
        }),
        other => Err(format!(
            "caption: `{{{placeholder}}}`: unknown format `:{other}` (expected `{{{name}}}` or `{{{name}:s}}`)"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(given: &[(&str, &str)]) -> Args {
        let a = tracelab_analysis::find("pai.machine-util").unwrap();
        let given: Vec<(String, String)> = given.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        Args::validate(a, &given).unwrap()
    }

    #[test]
    fn placeholders_take_the_figures_parameters_or_the_defaults() {
        // bin defaults to 5m (= 300 s); idle to zero.
        let text = "per {bin:s} s bin ({bin}), idle={idle}, {{literal}}";
        assert_eq!(fill(text, &args(&[]), "pai.machine-util").unwrap(), "per 300 s bin (5m), idle=zero, {literal}");
        // 1h = 3600 s, worked by hand.
        assert_eq!(
            fill(text, &args(&[("bin", "1h"), ("idle", "absent")]), "pai.machine-util").unwrap(),
            "per 3600 s bin (1h), idle=absent, {literal}"
        );
    }

    #[test]
    fn an_unknown_placeholder_or_format_is_an_error_naming_what_exists() {
        let e = fill("per {bins} bin", &args(&[]), "pai.machine-util").unwrap_err();
        assert_eq!(e, "caption: unknown placeholder `{bins}` (pai.machine-util takes {bin}, {idle}, {misc-gpu-mem})");
        let e = fill("{idle:s}", &args(&[]), "pai.machine-util").unwrap_err();
        assert_eq!(e, "caption: `{idle:s}`: `:s` (seconds) applies to durations; idle is zero|absent");
        let e = fill("{bin:h}", &args(&[]), "pai.machine-util").unwrap_err();
        assert!(e.starts_with("caption: `{bin:h}`: unknown format `:h`"), "{e}");
        assert!(fill("a } b", &args(&[]), "x").is_err());
        assert!(fill("a { b", &args(&[]), "x").is_err());
    }
}
