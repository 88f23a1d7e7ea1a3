package vector

import (
	"encoding/binary"
	"fmt"
	"math"
)

// A stored vector is quantized to int8 with one scale per vector: the
// BLOB is the scale (little-endian float32) followed by one signed byte per
// dimension, and component j is scale·code[j]. For a unit vector of 512
// dimensions that is 516 bytes instead of 2,048, and the dot product of
// two quantized unit vectors is within about 1e-3 of the exact cosine.
//
// Stores written before this format hold little-endian float32 BLOBs (4
// bytes per dimension). The two are told apart by length, given the
// dimension (dim+4 ≠ 4·dim for every dim ≥ 1 but 4/3): Decode and
// DecodeCode read both, and the embedding service rewrites old ones.

// Code is a quantized vector: Codes[j]·Scale approximates component j.
type Code struct {
	Scale float32
	Codes []int8
}

// Quantize returns the int8 code of v (maximum magnitude → ±127).
func Quantize(v []float32) Code {
	var mx float32
	for _, x := range v {
		mx = max(mx, float32(math.Abs(float64(x))))
	}
	c := Code{Codes: make([]int8, len(v))}
	if mx == 0 || math.IsNaN(float64(mx)) || math.IsInf(float64(mx), 0) {
		return c
	}
	c.Scale = mx / 127
	inv := 127 / mx
	for j, x := range v {
		c.Codes[j] = int8(max(-127, min(127, math.Round(float64(x*inv)))))
	}
	return c
}

// Floats returns the dequantized vector.
func (c Code) Floats() []float32 {
	v := make([]float32, len(c.Codes))
	for j, x := range c.Codes {
		v[j] = float32(x) * c.Scale
	}
	return v
}

// Encode renders v in the stored format: quantized, scale first.
func Encode(v []float32) []byte {
	return EncodeCode(Quantize(v))
}

// EncodeCode renders a code in the stored format.
func EncodeCode(c Code) []byte {
	b := make([]byte, 4+len(c.Codes))
	binary.LittleEndian.PutUint32(b, math.Float32bits(c.Scale))
	for j, x := range c.Codes {
		b[4+j] = byte(x)
	}
	return b
}

// IsLegacy reports whether b is a float32 BLOB of dim dimensions (the
// format before quantization).
func IsLegacy(b []byte, dim int) bool { return dim > 0 && len(b) == 4*dim }

// DecodeCode reads a stored vector of dim dimensions in either format; a
// float32 BLOB is quantized.
func DecodeCode(b []byte, dim int) (Code, error) {
	switch {
	case dim <= 0:
		return Code{}, fmt.Errorf("vector of %d dimensions", dim)
	case len(b) == 4+dim:
		c := Code{Scale: math.Float32frombits(binary.LittleEndian.Uint32(b)), Codes: make([]int8, dim)}
		if math.IsNaN(float64(c.Scale)) || math.IsInf(float64(c.Scale), 0) || c.Scale < 0 {
			return Code{}, fmt.Errorf("vector blob with scale %v", c.Scale)
		}
		for j := range c.Codes {
			c.Codes[j] = int8(b[4+j])
		}
		return c, nil
	case len(b) == 4*dim:
		v := make([]float32, dim)
		for j := range v {
			v[j] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*j:]))
		}
		return Quantize(v), nil
	}
	return Code{}, fmt.Errorf("vector blob of %d bytes is neither %d (int8) nor %d (float32) for %d dimensions",
		len(b), dim+4, 4*dim, dim)
}

// Decode reads a stored vector of dim dimensions in either format, as
// floats (a quantized one is dequantized).
func Decode(b []byte, dim int) ([]float32, error) {
	if IsLegacy(b, dim) {
		v := make([]float32, dim)
		for j := range v {
			v[j] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*j:]))
		}
		return v, nil
	}
	c, err := DecodeCode(b, dim)
	if err != nil {
		return nil, err
	}
	return c.Floats(), nil
}
