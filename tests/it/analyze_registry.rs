//! Every registered analysis, run in process over the bundled samples with
//! its default parameters: each published value it declares (for those
//! parameters) reaches the headline of its key with its value, unit and
//! source, and no headline carries a published value nobody declared.

use tracelab_analysis::{registry, Args, Ctx};
use tracelab_store::Store;

use crate::common::sample_store;

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
