/**
 * The property tests' inputs are the same on every run, so that the suite is green or red by
 * the code alone. Set FAST_CHECK_SEED to explore others: a failure prints the seed and path
 * that reproduce it.
 */
import fc from "fast-check";

fc.configureGlobal({ seed: Number(process.env.FAST_CHECK_SEED ?? 20261201) });
