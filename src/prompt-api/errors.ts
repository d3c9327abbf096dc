import { thrownMessage } from '../core'
import { ChatModelError } from '../models'

export type PromptApiFailure =
  | 'no-api'
  | 'unavailable'
  | 'downloadable'
  | 'download-failed'
  | 'not-allowed'
  | 'quota-exceeded'
  | 'unsupported'
  | 'filtered'
  | 'invalid-output'
  | 'failed'

const ADVICE: Record<PromptApiFailure, { text: string; retryable: boolean }> = {
  'no-api': {
    text: 'This browser has no built-in Prompt API (LanguageModel). Use desktop Chrome 148 or later, or pick another engine (WebLLM on WebGPU, llama.cpp in WebAssembly, or a remote model).',
    retryable: false,
  },
  unavailable: {
    text: "The browser's built-in model cannot run on this device (not enough disk, memory or GPU, or an unsupported language). Pick another engine.",
    retryable: false,
  },
  downloadable: {
    text: "The browser's built-in model is not on this device yet. Call PromptApiChatModel.create() from a user gesture (a click) with allowDownload left on; onProgress reports the download.",
    retryable: false,
  },
  'download-failed': {
    text: 'The browser could not download its built-in model. Check the connection and the free disk space, then try again.',
    retryable: true,
  },
  'not-allowed': {
    text: 'The browser does not allow its built-in model here (turned off by the user or by policy, or not allowed in this frame: see the Permissions-Policy "language-model").',
    retryable: false,
  },
  'quota-exceeded': {
    text: "The conversation is larger than the built-in model's context window. Start a new one or keep fewer messages (a window memory).",
    retryable: false,
  },
  unsupported: {
    text: 'The built-in model does not support this input (a message part or option it was not created for).',
    retryable: false,
  },
  filtered: {
    text: "The browser withheld the model's reply (its output filter judged it harmful, inaccurate or nonsensical). Rephrase and retry.",
    retryable: true,
  },
  'invalid-output': {
    text: "The model's reply did not follow the required JSON shape. Retrying usually helps (a RetryAdvisor does it).",
    retryable: true,
  },
  failed: { text: "The browser's built-in model failed.", retryable: false },
}

export function promptApiFailure(code: PromptApiFailure, detail?: string, cause?: unknown): ChatModelError {
  const { text, retryable } = ADVICE[code]
  return new ChatModelError(`Prompt API: ${detail ? `${detail}. ` : ''}${text}`, {
    provider: 'prompt-api',
    code,
    retryable,
    ...(cause === undefined ? {} : { cause }),
  })
}

const BY_NAME: Record<string, PromptApiFailure> = {
  QuotaExceededError: 'quota-exceeded',
  NotSupportedError: 'unsupported',
  NotAllowedError: 'not-allowed',
  NotReadableError: 'filtered',
  NetworkError: 'download-failed',
}

/** A DOMException from the Prompt API as a ChatModelError that says what to do. */
export function promptApiError(error: unknown): ChatModelError {
  if (error instanceof ChatModelError) return error
  const name = error instanceof Error ? error.name : ''
  const code = BY_NAME[name] ?? 'failed'
  let detail = `${name || 'Error'}: ${thrownMessage(error)}`
  // A QuotaExceededError carries how much was asked for and how much there was.
  const { requested, quota } = (error ?? {}) as { requested?: unknown; quota?: unknown }
  if (code === 'quota-exceeded' && typeof requested === 'number' && typeof quota === 'number')
    detail += ` (${requested} tokens needed, ${quota} available)`
  return promptApiFailure(code, detail, error)
}
