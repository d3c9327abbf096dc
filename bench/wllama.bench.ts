// The tiny test model (scripts/tiny-gguf.mjs: llama, 2 layers, width 64) on the real llama.cpp
// engine in Chromium: prompt evaluation and decoding in tokens/s as llama.cpp times them, with one
// thread and (the bench page is cross-origin isolated) with two; and, as the ratio against a
// baseline in the same run, a WllamaChatModel stream's wall time over the same completion asked of
// the wllama instance directly (what the adapter adds). Chromium only (bench/run.mjs serves the wasm).
import type { Wllama } from '@wllama/wllama'
import { tinyGguf } from '../scripts/tiny-gguf.mjs'
import type { Prompt } from '../src/core'
import { WllamaChatModel } from '../src/wllama'
import { median, report, round } from './measure'

const WASM_URL = '/bench/wllama.wasm'
const DECODE_TOKENS = 256
const REPEATS = 5
// 400 bytes: one token each in the byte-level vocabulary.
const QUESTION = 'Summarise the advisor chain in one paragraph. '.repeat(9).slice(0, 400)

const prompt: Prompt = {
  messages: [{ role: 'user', text: QUESTION }],
  // No prompt cache: every repeat evaluates the whole prompt.
  options: {
    maxTokens: DECODE_TOKENS,
    seed: 1,
    providerOptions: { wllama: { cache_prompt: false, ignore_eos: true } },
  },
}

interface Timings {
  promptTokens: number
  promptMs: number
  predictedTokens: number
  predictedMs: number
}

async function measureThreads(threads: number) {
  const model = await WllamaChatModel.create({ model: new Blob([tinyGguf() as BlobPart]), wasmUrl: WASM_URL, threads })
  const engine = model.engine as Wllama
  const prefill: number[] = []
  const decode: number[] = []
  const adapterMs: number[] = []
  const rawMs: number[] = []
  try {
    for (let repeat = 0; repeat <= REPEATS; repeat++) {
      let started = performance.now()
      let timings: Timings | undefined
      for await (const chunk of model.stream(prompt)) timings = (chunk.metadata['timings'] as Timings) ?? timings
      const adapter = performance.now() - started
      started = performance.now()
      await engine.createChatCompletion({
        messages: [{ role: 'user', content: QUESTION }],
        max_tokens: DECODE_TOKENS,
        seed: 1,
        cache_prompt: false,
        ignore_eos: true,
        stream: true,
        onData: () => {},
      })
      const raw = performance.now() - started
      // The first pass warms the engine up.
      if (repeat === 0 || !timings) continue
      adapterMs.push(adapter)
      rawMs.push(raw)
      prefill.push((timings.promptTokens / timings.promptMs) * 1000)
      decode.push((timings.predictedTokens / timings.predictedMs) * 1000)
    }
  } finally {
    await model.dispose()
  }
  return {
    promptTokensPerSecond: Math.round(median(prefill)),
    decodeTokensPerSecond: Math.round(median(decode)),
    streamMs: round(median(adapterMs), 1),
    rawCompletionMs: round(median(rawMs), 1),
    adapterOverRaw: round(median(adapterMs) / median(rawMs), 3),
  }
}

const oneThread = await measureThreads(1)
const twoThreads = crossOriginIsolated ? await measureThreads(2) : undefined
report('wllama', {
  what: `tiny model (${Math.round(tinyGguf().length / 1024)} KB), ${QUESTION.length}-token prompt, ${DECODE_TOKENS} decoded tokens, median of ${REPEATS}; adapterOverRaw = WllamaChatModel stream / the same completion on the wllama instance`,
  oneThread,
  ...(twoThreads
    ? { twoThreads, twoOverOneDecode: round(twoThreads.decodeTokensPerSecond / oneThread.decodeTokensPerSecond, 3) }
    : {}),
})
