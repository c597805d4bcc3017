//! Property test of the lossless round trip over random IR: proptest
//! generates the bytes fed to [`onnxtxt::smith::arbitrary_model`], so a
//! failing case shrinks to a short byte string, hence a small model.
//!
//! (a) `encode(parse(print(m))) == encode(m)` and (d) `print(parse(print(m)))
//! == print(m)`, both checked by [`onnxtxt::roundtrip::model_round_trips`] (which
//! also covers the model's parts and the compat text).

use proptest::prelude::*;

fn config() -> ProptestConfig {
    ProptestConfig {
        // Modest: the whole test runs in a couple of seconds.
        cases: 64,
        // A failing case has to be reported, not hunted for long.
        max_shrink_iters: 2048,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn printed_models_parse_back_to_the_same_bytes(
        bytes in proptest::collection::vec(any::<u8>(), 0..2048)
    ) {
        let mut u = arbitrary::Unstructured::new(&bytes);
        let model = onnxtxt::smith::arbitrary_model(&mut u).unwrap();
        onnxtxt::roundtrip::model_round_trips(&model).map_err(TestCaseError::fail)?;
    }
}
