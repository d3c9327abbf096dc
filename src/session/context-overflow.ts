// A model's refusal of a prompt as longer than its window, whichever engine or provider said it.
// Matched on the error's code and words (the advisors sit below the adapters and never import them).

/** Codes the adapters give a too-long prompt: WebLLM, llama.cpp (wllama), the Prompt API, OpenAI. */
const CODES = new Set(['ContextWindowSizeExceededError', 'context-full', 'quota-exceeded', 'context_length_exceeded'])

const WORDS =
  /prompt is too long|context_length_exceeded|maximum context length|ContextWindowSizeExceeded|exceeds the available context|context (?:is )?full|kv_cache_full|input is too large|QuotaExceededError/i

/** Whether `error` (or its cause) says the prompt does not fit in the model's context window. */
export function isContextOverflow(error: unknown): boolean {
  for (let depth = 0; depth < 4 && error !== null && typeof error === 'object'; depth++) {
    const { code, name, message } = error as { code?: unknown; name?: unknown; message?: unknown }
    if (typeof code === 'string' && CODES.has(code)) return true
    if (name === 'QuotaExceededError' || name === 'ContextWindowSizeExceededError') return true
    if (typeof message === 'string' && WORDS.test(message)) return true
    error = (error as { cause?: unknown }).cause
  }
  return typeof error === 'string' && WORDS.test(error)
}
