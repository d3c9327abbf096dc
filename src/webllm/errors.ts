import { ChatModelError } from '../models'

// WebLLM's errors, matched by name (through a worker they arrive as plain strings), in plain words.
const KNOWN: Record<string, { message: string; retryable?: boolean }> = {
  WebGPUNotAvailableError: {
    message:
      'This browser has no WebGPU, so the model cannot run here. Use a recent Chrome or Edge, or pick a remote model.',
  },
  ShaderF16SupportError: {
    message:
      "This GPU has no shader-f16 support; load the model's q4f32 variant instead (checkWebGPU and modelVariantFor pick it for you).",
  },
  DeviceLostError: {
    message: 'The GPU was lost (out of memory, or the tab was in the background too long). Reload the model.',
    retryable: false,
  },
  ModelNotFoundError: { message: 'WebLLM does not know this model id. Pick one from listModels().' },
  ModelNotLoadedError: { message: 'No model is loaded in the engine yet.' },
  ContentTypeError: { message: 'WebLLM refused a message: assistant and tool messages need text content.' },
  CustomSystemPromptNotSupportedError: { message: 'This function-calling model does not take a custom system prompt.' },
  UnsupportedToolChoiceTypeError: { message: 'This model does not support the requested tool choice.' },
  InvalidOutputError: { message: "The model's reply did not follow the required JSON shape.", retryable: true },
  ContextWindowSizeExceededError: {
    message:
      'The conversation is longer than the model can read; start a new one or keep fewer messages (a window memory).',
  },
}

/** A WebLLM failure as a ChatModelError with a message that says what to do. */
export function webllmError(error: unknown, model: string): ChatModelError {
  if (error instanceof ChatModelError) return error
  const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error)
  const name =
    error instanceof Error && error.name !== 'Error'
      ? error.name
      : (/^(?:Error: )?(\w+Error)\b/.exec(text)?.[1] ?? 'Error')
  if (/Failed to fetch|NetworkError|ERR_INTERNET_DISCONNECTED|Load failed/i.test(text)) {
    return new ChatModelError(
      `Cannot download model '${model}': ${text}. The weights come from the network the first time (then from the cache); check the connection, and that the page's Content-Security-Policy allows connect-src to the model hosts.`,
      { provider: 'webllm', code: 'download-failed', retryable: true, cause: error },
    )
  }
  const known = KNOWN[name]
  return new ChatModelError(known ? `${known.message} (${text})` : `WebLLM failed: ${text}`, {
    provider: 'webllm',
    code: name,
    retryable: known?.retryable ?? false,
    cause: error,
  })
}
