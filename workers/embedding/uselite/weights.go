package uselite

import (
	"embed"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io/fs"
	"math"
	"path"
)

// modelFS holds the converted weights (see model/README.md and
// internal/convert). It is only read by Load.
//
//go:embed model/weights.json model/weights-*.bin model/vocab.json
var modelFS embed.FS

const modelDir = "model"

// manifest is the schema of model/weights.json, written by internal/convert.
type manifest struct {
	Format  int      `json:"format"`
	Source  string   `json:"source"`
	Shards  []string `json:"shards"`
	Tensors []struct {
		Name      string `json:"name"`
		DType     string `json:"dtype"`
		Shape     []int  `json:"shape"`
		Offset    int64  `json:"offset"`
		Size      int64  `json:"size"`
		ScaleAxis int    `json:"scale_axis"`
	} `json:"tensors"`
}

// readTensors decodes every tensor of the manifest in dir to float32.
func readTensors(fsys fs.FS, dir string) (map[string][]float32, error) {
	raw, err := fs.ReadFile(fsys, path.Join(dir, "weights.json"))
	if err != nil {
		return nil, err
	}
	var man manifest
	if err := json.Unmarshal(raw, &man); err != nil {
		return nil, fmt.Errorf("weights.json: %w", err)
	}
	if man.Format != 1 {
		return nil, fmt.Errorf("weights.json: unsupported format %d", man.Format)
	}
	var blob []byte
	for _, s := range man.Shards {
		b, err := fs.ReadFile(fsys, path.Join(dir, s))
		if err != nil {
			return nil, err
		}
		if blob == nil {
			blob = make([]byte, 0, len(b)*len(man.Shards))
		}
		blob = append(blob, b...)
	}
	out := make(map[string][]float32, len(man.Tensors))
	for _, t := range man.Tensors {
		n := 1
		for _, d := range t.Shape {
			if d <= 0 {
				return nil, fmt.Errorf("%s: bad shape %v", t.Name, t.Shape)
			}
			n *= d
		}
		if t.Offset < 0 || t.Size < 0 || t.Offset+t.Size > int64(len(blob)) {
			return nil, fmt.Errorf("%s: bytes %d+%d outside the %d-byte weights", t.Name, t.Offset, t.Size, len(blob))
		}
		b := blob[t.Offset : t.Offset+t.Size]
		vals := make([]float32, n)
		switch t.DType {
		case "float32":
			if len(b) != 4*n {
				return nil, fmt.Errorf("%s: %d bytes for %d float32", t.Name, len(b), n)
			}
			for i := range vals {
				vals[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
			}
		case "float16":
			if len(b) != 2*n {
				return nil, fmt.Errorf("%s: %d bytes for %d float16", t.Name, len(b), n)
			}
			for i := range vals {
				vals[i] = f16ToF32(binary.LittleEndian.Uint16(b[2*i:]))
			}
		case "int8":
			if len(t.Shape) != 2 || t.ScaleAxis < 0 || t.ScaleAxis > 1 {
				return nil, fmt.Errorf("%s: int8 needs a matrix and scale_axis 0 or 1", t.Name)
			}
			rows, cols := t.Shape[0], t.Shape[1]
			nScales := t.Shape[t.ScaleAxis]
			if len(b) != n+4*nScales {
				return nil, fmt.Errorf("%s: %d bytes for %d int8 and %d scales", t.Name, len(b), n, nScales)
			}
			scales := make([]float32, nScales)
			for i := range scales {
				scales[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[n+4*i:]))
			}
			for i := range rows {
				row := vals[i*cols : (i+1)*cols]
				q := b[i*cols : (i+1)*cols]
				if t.ScaleAxis == 0 {
					s := scales[i]
					for j := range row {
						row[j] = float32(int8(q[j])) * s
					}
				} else {
					for j := range row {
						row[j] = float32(int8(q[j])) * scales[j]
					}
				}
			}
		default:
			return nil, fmt.Errorf("%s: unsupported dtype %q", t.Name, t.DType)
		}
		out[t.Name] = vals
	}
	return out, nil
}

// f16ToF32 converts an IEEE 754 binary16 value.
func f16ToF32(h uint16) float32 {
	sign := uint32(h&0x8000) << 16
	exp := uint32(h>>10) & 0x1f
	mant := uint32(h & 0x3ff)
	switch {
	case exp == 0 && mant == 0:
		return math.Float32frombits(sign)
	case exp == 0: // subnormal
		e := uint32(127 - 15 + 1)
		for mant&0x400 == 0 {
			mant <<= 1
			e--
		}
		return math.Float32frombits(sign | e<<23 | (mant&0x3ff)<<13)
	case exp == 0x1f:
		return math.Float32frombits(sign | 0xff<<23 | mant<<13)
	}
	return math.Float32frombits(sign | (exp+127-15)<<23 | mant<<13)
}
