import { thrownMessage } from '../core'
import { ChatModelError } from '../models'

/** The failures a WllamaChatModel reports, each with what to do about it. */
export type WllamaFailure =
  | 'not-gguf'
  | 'too-large'
  | 'out-of-memory'
  | 'not-isolated'
  | 'unsupported-schema'
  | 'grammar-mismatch'
  | 'engine-unresponsive'
  | 'context-full'
  | 'disposed'
  | 'download-failed'
  | 'invalid-output'
  | 'engine-failed'

const ADVICE: Record<WllamaFailure, { text: string; retryable: boolean }> = {
  'not-gguf': {
    text: 'The file is not a GGUF model (or it is cut short). Give a .gguf file made for llama.cpp, e.g. a quantized model from Hugging Face.',
    retryable: false,
  },
  'too-large': {
    text: 'The model is larger than this page can hold. Pick a smaller or more strongly quantized GGUF (Q4_K_M of a 0.5-3B model), or raise maxModelBytes if you know the memory is there.',
    retryable: false,
  },
  'out-of-memory': {
    text: 'The page ran out of memory loading or running the model. Pick a smaller GGUF or a shorter contextLength.',
    retryable: false,
  },
  'not-isolated': {
    text: "More than one thread needs a cross-origin isolated page: serve it with the headers 'Cross-Origin-Opener-Policy: same-origin' and 'Cross-Origin-Embedder-Policy: require-corp', or leave threads unset to run on one.",
    retryable: false,
  },
  'unsupported-schema': {
    text: "llama.cpp could not turn this JSON Schema into a grammar. Simplify the tool's input schema or the response schema (no remote $ref, no unusual keywords).",
    retryable: false,
  },
  'grammar-mismatch': {
    text: "llama.cpp made a grammar of the schema, but the model's tokens broke it while decoding (e.g. a vocabulary that puts a space before words, after the chat template's generation prompt); the schema itself is fine. Use another model for tools and structured answers, or send no response schema and let a StructuredOutputValidationAdvisor check the answer.",
    retryable: false,
  },
  'engine-unresponsive': {
    text: 'The engine stopped responding and was shut down. Create the model again (WllamaChatModel.create); if it keeps happening, raise stallTimeoutMs or pick a smaller model.',
    retryable: false,
  },
  'context-full': {
    text: 'The conversation is longer than the context the model was loaded with. Start a new one, keep fewer messages (a window memory), or load with a larger contextLength.',
    retryable: false,
  },
  disposed: { text: 'The model was disposed. Create it again with WllamaChatModel.create.', retryable: false },
  'download-failed': {
    text: "Could not download the model file. Check the URL, the connection, and that the page's Content-Security-Policy allows connect-src to it.",
    retryable: true,
  },
  'invalid-output': {
    text: "The model's reply did not follow the required JSON shape. Retrying usually helps (a RetryAdvisor does it); a larger maxTokens avoids cut-off replies.",
    retryable: true,
  },
  'engine-failed': { text: 'llama.cpp failed.', retryable: false },
}

/** A ChatModelError for a known failure, naming the model. */
export function wllamaFailure(code: WllamaFailure, model: string, detail?: string, cause?: unknown): ChatModelError {
  const { text, retryable } = ADVICE[code]
  return new ChatModelError(`llama.cpp model '${model}': ${detail ? `${detail}. ` : ''}${text}`, {
    provider: 'wllama',
    code,
    retryable,
    ...(cause === undefined ? {} : { cause }),
  })
}

/** Whatever wllama threw, as a ChatModelError (recognised by message, since the worker flattens errors). */
export function wllamaError(error: unknown, model: string, nativeError?: string): ChatModelError {
  if (error instanceof ChatModelError) return error
  const thrown = thrownMessage(error).split('\n')[0]!
  // The engine's own message is often a meaningless RangeError; llama.cpp's log line says what happened.
  const text =
    !nativeError || thrown.includes(nativeError)
      ? thrown
      : nativeError.includes(thrown)
        ? nativeError
        : `${nativeError} (${thrown})`
  const code: WllamaFailure =
    /out of memory|Cannot enlarge memory|Aborted\(OOM\)|allocation failed|failed to allocate/i.test(text)
      ? 'out-of-memory'
      : /kv_cache_full|context (?:is )?full|exceeds the available context|context size/i.test(text)
        ? 'context-full'
        : /json[_ ]schema|\$ref|parse grammar|parsing grammar/i.test(text)
          ? 'unsupported-schema'
          : /grammar/i.test(text)
            ? 'grammar-mismatch'
            : /Failed to fetch|NetworkError|download_error|status code 4\d\d|status code 5\d\d/i.test(text)
              ? 'download-failed'
              : 'engine-failed'
  return wllamaFailure(code, model, text, error)
}
