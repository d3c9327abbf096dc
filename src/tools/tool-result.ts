import { thrownMessage } from '../core'
import { ToolCallError } from './tool-errors'

const ADVICE = 'return a string or JSON-encodable data'

/**
 * The text sent to the model for what a tool returned: strings are kept, other values
 * JSON-encoded, `undefined` and `null` become `""`. A value JSON cannot carry (a function, a
 * symbol, a bigint, a cycle) is a ToolCallError, so the model gets an `Error:` response.
 */
export function encodeResult(result: unknown, toolName: string): string {
  if (result === undefined || result === null) return ''
  if (typeof result === 'string') return result
  let encoded: string | undefined
  try {
    encoded = JSON.stringify(result)
  } catch (error) {
    // V8's cycle message spans lines; its first line says enough.
    const reason = thrownMessage(error).split('\n', 1)[0]
    throw new ToolCallError(`tool '${toolName}' returned a value that cannot be encoded as JSON (${reason}); ${ADVICE}`)
  }
  if (encoded === undefined) {
    throw new ToolCallError(
      `tool '${toolName}' returned a ${typeof result}, which cannot be sent to the model; ${ADVICE}`,
    )
  }
  return encoded
}
