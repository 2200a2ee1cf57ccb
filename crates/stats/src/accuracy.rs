//! Forecast and prediction errors: mean and median absolute percentage
//! error (MAPE, MdAPE) and the root mean squared logarithmic error (RMSLE),
//! the headline of the duration predictor (NSDI'22 Sec 6 predicts task
//! durations). Pairs are (actual, predicted); each function says which
//! pairs it skips, and returns None when none is left.

/// 100 x mean(|predicted - actual| / |actual|) over the pairs with both
/// values finite and actual != 0 (a percentage error is undefined at 0).
pub fn mape(pairs: &[(f64, f64)]) -> Option<f64> {
    let ape = ape(pairs);
    (!ape.is_empty()).then(|| ape.iter().sum::<f64>() / ape.len() as f64)
}

/// The median (linear interpolation, as numpy) of the same absolute
/// percentage errors as [`mape`].
pub fn median_ape(pairs: &[(f64, f64)]) -> Option<f64> {
    let mut ape = ape(pairs);
    (!ape.is_empty()).then(|| crate::quantiles_in_place(&mut ape, &[0.5])[0])
}

/// The absolute percentage errors of [`mape`], in input order.
pub fn ape(pairs: &[(f64, f64)]) -> Vec<f64> {
    pairs
        .iter()
        .filter(|(a, p)| a.is_finite() && p.is_finite() && *a != 0.0)
        .map(|(a, p)| 100.0 * (p - a).abs() / a.abs())
        .collect()
}

/// sqrt(mean((ln(1 + predicted) - ln(1 + actual))^2)) over the pairs with
/// both values finite and >= 0 (durations).
pub fn rmsle(pairs: &[(f64, f64)]) -> Option<f64> {
    let sq: Vec<f64> = pairs
        .iter()
        .filter(|(a, p)| a.is_finite() && p.is_finite() && *a >= 0.0 && *p >= 0.0)
        .map(|(a, p)| (p.ln_1p() - a.ln_1p()).powi(2))
        .collect();
    (!sq.is_empty()).then(|| (sq.iter().sum::<f64>() / sq.len() as f64).sqrt())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// (actual, predicted) = (100, 110), (50, 25), (0, 5), (NaN, 1): APEs
    /// 10 % and 50 % (the zero and NaN actuals skipped): MAPE 30, MdAPE 30.
    #[test]
    fn percentage_errors_by_hand() {
        let pairs = [(100.0, 110.0), (50.0, 25.0), (0.0, 5.0), (f64::NAN, 1.0)];
        assert_eq!(ape(&pairs), vec![10.0, 50.0]);
        assert_eq!(mape(&pairs), Some(30.0));
        assert_eq!(median_ape(&pairs), Some(30.0));
        assert_eq!(mape(&[(0.0, 1.0)]), None);
    }

    /// ln(1 + e - 1) - ln(1 + 0) = 1 and 0 for an exact pair: sqrt(1/2).
    #[test]
    fn rmsle_by_hand() {
        let e1 = std::f64::consts::E - 1.0;
        let r = rmsle(&[(0.0, e1), (3.0, 3.0), (-1.0, 2.0)]).unwrap();
        assert!((r - 0.5f64.sqrt()).abs() < 1e-12);
        assert_eq!(rmsle(&[]), None);
    }
}
