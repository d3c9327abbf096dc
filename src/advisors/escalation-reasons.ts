import { isAbortError, type ChatResponse, type EscalationReason } from '../core'

/** Every reason a round may leave the client's model, as `EscalationAdvisor.builder(...).on(...)` takes them. */
export const ESCALATION_REASONS: readonly EscalationReason[] = [
  'unavailable',
  'context-full',
  'invalid-output',
  'error',
  'slow',
  'rejected',
]

// Error codes of the engines (WebLLM's error names, the Prompt API's and llama.cpp's failures) and
// of the remote providers, lower-cased, by what they mean for a round.
const UNAVAILABLE = new Set([
  'webgpunotavailableerror',
  'shaderf16supporterror',
  'devicelosterror',
  'modelnotfounderror',
  'modelnotloadederror',
  'no-api',
  'unavailable',
  'downloadable',
  'not-allowed',
  'download-failed',
  'not-gguf',
  'too-large',
  'out-of-memory',
  'not-isolated',
  'engine-unresponsive',
  'disposed',
  'model_not_found',
])
const CONTEXT_FULL = new Set([
  'contextwindowsizeexceedederror',
  'quota-exceeded',
  'context-full',
  'context_length_exceeded',
])
const INVALID_OUTPUT = new Set(['invalidoutputerror', 'invalid-output'])

/** Finish reasons that say the prompt did not fit the model's window. */
const CONTEXT_FULL_FINISH = new Set(['model_context_window_exceeded'])
/** Finish reasons that say the provider itself failed (see finish-reason.ts). */
const FAILED_FINISH = /^(error|insufficient.*)$/

/**
 * Why a failed model call may go to the fallback, read off the error as the engines and adapters
 * classify it (its `code`, else its `retryable` flag, which RetryAdvisor honours first); undefined
 * for an abort and for an error another model would fail too (a bad request, a bad key).
 */
export function reasonOfError(error: unknown): EscalationReason | undefined {
  if (isAbortError(error) || error === null || typeof error !== 'object') return undefined
  const { code, retryable } = error as { code?: unknown; retryable?: unknown }
  const known = typeof code === 'string' ? code.toLowerCase() : ''
  if (UNAVAILABLE.has(known)) return 'unavailable'
  if (CONTEXT_FULL.has(known)) return 'context-full'
  if (INVALID_OUTPUT.has(known)) return 'invalid-output'
  return retryable === true ? 'error' : undefined
}

/** Why an answer may not be kept: a prompt over the window, a failed provider, a tool call whose arguments are not JSON. */
export function reasonOfResponse(
  response: ChatResponse | null,
): { reason: EscalationReason; detail: string } | undefined {
  for (const generation of response?.results ?? []) {
    const finishReason = String(generation.metadata.finishReason)
    if (CONTEXT_FULL_FINISH.has(finishReason))
      return { reason: 'context-full', detail: `the answer stopped with finish reason '${finishReason}'` }
    if (FAILED_FINISH.test(finishReason))
      return { reason: 'error', detail: `the answer stopped with finish reason '${finishReason}'` }
    for (const call of generation.output.toolCalls) {
      const problem = jsonProblem(call.arguments)
      if (problem)
        return {
          reason: 'invalid-output',
          detail: `the arguments of tool call '${call.name}' are not JSON (${problem}): ${excerpt(call.arguments)}`,
        }
    }
  }
  return undefined
}

/** Why `text` is not JSON, or undefined when it is (blank arguments mean `{}`). */
function jsonProblem(text: string): string | undefined {
  if (text.trim() === '') return undefined
  try {
    JSON.parse(text)
    return undefined
  } catch (error) {
    return error instanceof Error ? error.message : 'unreadable'
  }
}

function excerpt(text: string): string {
  return text.length > 80 ? `${text.slice(0, 80)}…` : text
}
