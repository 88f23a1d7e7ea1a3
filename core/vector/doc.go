// Package vector is the in-memory vector index: every live memory's
// embedding for one model as int8 codes with a scale, with the fields
// recall filters on, scanned in full (an AVX2 integer dot product where
// the CPU has it) or through a calibrated sign-bit prefilter; and the
// stored format of vectors (quantized, or float32 in older stores).
package vector
