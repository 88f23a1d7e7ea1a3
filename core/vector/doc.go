// Package vector is the in-memory vector index: every live memory's
// embedding for one model with the fields recall filters on, searched
// exactly or through a calibrated sign-bit prefilter, and the encoding of
// vectors as stored blobs.
package vector
