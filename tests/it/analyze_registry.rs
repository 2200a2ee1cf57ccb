//! Every registered analysis, run in process over the bundled samples with
//! its default parameters: each published value it declares (for those
//! parameters) reaches the headline of its key with its value, unit and
//! source, and no headline carries a published value nobody declared.

use tracelab_analysis::{registry, Args, Ctx};
use tracelab_store::Store;

use crate::common::{root, sample_store, tracelab, tracelab_ok};

#[test]
fn every_declared_published_value_reaches_its_headline() {
    let ctx = Ctx::new(Store::open(sample_store()).expect("sample store"));
    let mut attached = 0;
    for a in registry() {
        let out = a.run(&ctx, &[]).unwrap_or_else(|e| panic!("{}: {e}", a.id));
        let args = Args::validate(a, &[]).unwrap();
        let declared = a.published();
        for p in declared.iter().filter(|p| p.applies(&args)) {
            let h = out.all_headlines().find(|h| h.key == p.key);
            let h = h.unwrap_or_else(|| panic!("{}: no headline `{}` for its published value", a.id, p.key));
            assert_eq!(h.published, Some(p.value), "{}: {}", a.id, p.key);
            assert_eq!((h.source.as_str(), h.unit.as_str()), (p.source, p.unit), "{}: {}", a.id, p.key);
            attached += 1;
        }
        for h in out.all_headlines().filter(|h| h.published.is_some()) {
            assert!(declared.iter().any(|p| p.key == h.key), "{}: {} has an undeclared published value", a.id, h.key);
        }
    }
    // Every declared value holds for the default parameters on the samples
    // (all four Helios clusters are there, and Earth's real VC names).
    let declared: usize = registry().iter().map(|a| a.published().len()).sum();
    assert_eq!(attached, declared);
}

/// docs/definitions.md is generated from the declarations (each analysis's
/// DOC, parameters, published values and definition): the committed file is
/// exactly what `tracelab analyze --describe` prints, as docs/schema.md is
/// against `tracelab schema`.
#[test]
fn definitions_md_is_what_the_declarations_generate() {
    let doc = std::fs::read_to_string(root().join("docs/definitions.md")).unwrap();
    let out = tracelab_ok(&["analyze", "--describe"]);
    assert!(
        doc == out,
        "docs/definitions.md is stale: regenerate it with `tracelab analyze --describe > docs/definitions.md`"
    );
}

/// `--describe` prints one analysis's section for the parameters given,
/// without a store: pai.machine-util with bin=1h states 3600 s bins (1 h =
/// 3600 s) and the idle rule chosen; a parameter it does not take is a
/// usage error.
#[test]
fn describe_prints_one_definition_for_the_parameters_given() {
    let out =
        tracelab_ok(&["analyze", "pai.machine-util", "--describe", "--param", "bin=1h", "--param", "idle=absent"]);
    assert!(out.starts_with("## pai.machine-util\n"), "{out}");
    assert!(
        out.contains("`tracelab analyze pai.machine-util` with `bin=1h`, `idle=absent`, `misc-gpu-mem=16`"),
        "{out}"
    );
    assert!(out.contains("bins of 3600 s on epoch time"), "{out}");
    assert!(out.contains("idle=absent: a machine with no covering row in a bin is left out"), "{out}");
    assert!(out.contains("machine_gpu_pct") && !out.contains("`machine_gpu`"), "{out}");
    let (code, _, err) = tracelab(&["analyze", "pai.machine-util", "--describe", "--param", "bins=1h"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("pai.machine-util takes no parameter `bins`"), "{err}");
}
