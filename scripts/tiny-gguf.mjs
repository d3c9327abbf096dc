// A tiny llama.cpp model, written from scratch: the `llama` architecture (2 layers, width 64),
// a byte-level `gpt2` vocabulary with ChatML control tokens, and deterministic random weights.
// Its text is nonsense; it exists so that tests, the demo and the benchmark run the real wllama
// engine end to end without downloading anything. The same seed always gives the same bytes.
//
// Runs anywhere (no Node API here): the browser tests and the demo build the model in the page,
// the Vite dev server serves it (tiny-gguf-server.mjs), and `node scripts/write-tiny-gguf.mjs
// out.gguf` writes it to a file.
/* global TextEncoder */

const GGUF_VERSION = 3
const ALIGNMENT = 32
const VALUE = { UINT32: 4, INT32: 5, FLOAT32: 6, BOOL: 7, STRING: 8, ARRAY: 9 }
const TENSOR_F32 = 0

export const TINY_MODEL = Object.freeze({
  name: 'advisor-chain tiny test model (nonsense text)',
  layers: 2,
  width: 64,
  heads: 4,
  feedForward: 128,
  contextLength: 8192,
})

const CHATML =
  "{% for message in messages %}{{ '<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>' + '\\n' }}{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}"

/**
 * The model's bytes.
 * @param {{ seed?: number }} [options]
 * @returns {Uint8Array}
 */
export function tinyGguf({ seed = 34 } = {}) {
  const { layers, width, heads, feedForward, contextLength } = TINY_MODEL
  const vocabulary = byteVocabulary()
  const random = mulberry32(seed)
  const uniform = (scale) => (random() * 2 - 1) * scale

  const metadata = [
    ['general.architecture', 'string', 'llama'],
    ['general.name', 'string', TINY_MODEL.name],
    ['general.alignment', 'u32', ALIGNMENT],
    ['llama.context_length', 'u32', contextLength],
    ['llama.embedding_length', 'u32', width],
    ['llama.block_count', 'u32', layers],
    ['llama.feed_forward_length', 'u32', feedForward],
    ['llama.attention.head_count', 'u32', heads],
    ['llama.attention.head_count_kv', 'u32', heads],
    ['llama.attention.layer_norm_rms_epsilon', 'f32', 1e-5],
    ['llama.rope.dimension_count', 'u32', width / heads],
    ['tokenizer.ggml.model', 'string', 'gpt2'],
    ['tokenizer.ggml.pre', 'string', 'default'],
    ['tokenizer.ggml.tokens', 'strings', vocabulary.tokens],
    ['tokenizer.ggml.token_type', 'i32s', vocabulary.types],
    ['tokenizer.ggml.merges', 'strings', ['Ġ Ġ']],
    ['tokenizer.ggml.bos_token_id', 'u32', vocabulary.endOfText],
    ['tokenizer.ggml.eos_token_id', 'u32', vocabulary.imEnd],
    ['tokenizer.ggml.eot_token_id', 'u32', vocabulary.imEnd],
    ['tokenizer.ggml.padding_token_id', 'u32', vocabulary.endOfText],
    ['tokenizer.ggml.add_bos_token', 'bool', false],
    ['tokenizer.chat_template', 'string', CHATML],
  ]

  const vocab = vocabulary.tokens.length
  /** @type {Array<{ name: string, shape: number[], values: Float32Array }>} */
  const tensors = []
  const tensor = (name, shape, fill) => {
    const values = new Float32Array(shape.reduce((a, b) => a * b, 1))
    for (let i = 0; i < values.length; i++) values[i] = fill(i)
    tensors.push({ name, shape, values })
  }
  // Dimension 0 of every embedding is a constant: after the last norm it stays large and positive,
  // and the output weights read it as "printable ASCII is likely" (random weights otherwise emit
  // bytes that are not UTF-8, which wllama cannot decode).
  tensor('token_embd.weight', [width, vocab], (i) => (i % width === 0 ? 1 : uniform(0.15)))
  for (let layer = 0; layer < layers; layer++) {
    const block = `blk.${layer}`
    tensor(`${block}.attn_norm.weight`, [width], () => 1)
    for (const part of ['attn_q', 'attn_k', 'attn_v', 'attn_output'])
      tensor(`${block}.${part}.weight`, [width, width], () => uniform(0.05))
    tensor(`${block}.ffn_norm.weight`, [width], () => 1)
    tensor(`${block}.ffn_gate.weight`, [width, feedForward], () => uniform(0.05))
    tensor(`${block}.ffn_up.weight`, [width, feedForward], () => uniform(0.05))
    tensor(`${block}.ffn_down.weight`, [feedForward, width], () => uniform(0.05))
  }
  tensor('output_norm.weight', [width], () => 1)
  tensor('output.weight', [width, vocab], (i) => {
    const token = Math.floor(i / width)
    if (i % width !== 0) return uniform(0.5)
    if (token === vocabulary.imEnd) return 0.2
    return vocabulary.printable[token] ? 3 : -3
  })

  return encode(metadata, tensors)
}

/** The 256 GPT-2 byte tokens (id = byte), one merge ("ĠĠ"), then the control tokens. */
function byteVocabulary() {
  const tokens = []
  const printable = []
  for (let byte = 0; byte < 256; byte++) {
    tokens.push(BYTE_TO_UNICODE[byte])
    printable.push(byte >= 0x20 && byte <= 0x7e)
  }
  tokens.push('ĠĠ')
  printable.push(true)
  const endOfText = tokens.push('<|endoftext|>') - 1
  tokens.push('<|im_start|>')
  const imEnd = tokens.push('<|im_end|>') - 1
  const types = tokens.map((token, id) => (id > 256 ? 3 : 1))
  return { tokens, types, printable, endOfText, imEnd }
}

/** GPT-2's reversible byte-to-character table. */
const BYTE_TO_UNICODE = (() => {
  const visible = []
  for (let b = 0x21; b <= 0x7e; b++) visible.push(b)
  for (let b = 0xa1; b <= 0xac; b++) visible.push(b)
  for (let b = 0xae; b <= 0xff; b++) visible.push(b)
  const table = new Array(256)
  for (const b of visible) table[b] = String.fromCodePoint(b)
  let extra = 0
  for (let b = 0; b < 256; b++) if (table[b] === undefined) table[b] = String.fromCodePoint(256 + extra++)
  return table
})()

function mulberry32(seed) {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** GGUF v3: header, key-value pairs, tensor infos, then the aligned tensor data. */
function encode(metadata, tensors) {
  const out = new Writer()
  out.u32(0x46554747) // "GGUF"
  out.u32(GGUF_VERSION)
  out.u64(tensors.length)
  out.u64(metadata.length)
  for (const [key, kind, value] of metadata) {
    out.string(key)
    switch (kind) {
      case 'string':
        out.u32(VALUE.STRING)
        out.string(value)
        break
      case 'u32':
        out.u32(VALUE.UINT32)
        out.u32(value)
        break
      case 'f32':
        out.u32(VALUE.FLOAT32)
        out.f32(value)
        break
      case 'bool':
        out.u32(VALUE.BOOL)
        out.u8(value ? 1 : 0)
        break
      case 'strings':
        out.u32(VALUE.ARRAY)
        out.u32(VALUE.STRING)
        out.u64(value.length)
        for (const item of value) out.string(item)
        break
      case 'i32s':
        out.u32(VALUE.ARRAY)
        out.u32(VALUE.INT32)
        out.u64(value.length)
        for (const item of value) out.i32(item)
        break
    }
  }
  let offset = 0
  for (const { name, shape, values } of tensors) {
    out.string(name)
    out.u32(shape.length)
    for (const size of shape) out.u64(size)
    out.u32(TENSOR_F32)
    out.u64(offset)
    offset = align(offset + values.byteLength)
  }
  out.pad()
  for (const { values } of tensors) {
    out.bytes(new Uint8Array(values.buffer))
    out.pad()
  }
  return out.result()
}

const align = (n) => Math.ceil(n / ALIGNMENT) * ALIGNMENT

class Writer {
  #chunks = []
  #length = 0
  #text = new TextEncoder()

  #view(size) {
    const view = new DataView(new ArrayBuffer(size))
    this.#chunks.push(new Uint8Array(view.buffer))
    this.#length += size
    return view
  }
  u8(value) {
    this.#view(1).setUint8(0, value)
  }
  u32(value) {
    this.#view(4).setUint32(0, value, true)
  }
  i32(value) {
    this.#view(4).setInt32(0, value, true)
  }
  f32(value) {
    this.#view(4).setFloat32(0, value, true)
  }
  u64(value) {
    this.#view(8).setBigUint64(0, BigInt(value), true)
  }
  string(value) {
    const bytes = this.#text.encode(value)
    this.u64(bytes.length)
    this.bytes(bytes)
  }
  bytes(bytes) {
    this.#chunks.push(bytes)
    this.#length += bytes.length
  }
  pad() {
    const padding = align(this.#length) - this.#length
    if (padding > 0) this.bytes(new Uint8Array(padding))
  }
  result() {
    const all = new Uint8Array(this.#length)
    let at = 0
    for (const chunk of this.#chunks) {
      all.set(chunk, at)
      at += chunk.length
    }
    return all
  }
}
