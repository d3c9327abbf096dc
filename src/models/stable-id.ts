import { textHash } from '../core'

/** A tool call id derived from what identifies the call, for servers that send none (the same call gets the same id). */
export function stableToolCallId(...parts: Array<string | number | undefined>): string {
  const hash = textHash(parts.map((part) => String(part ?? '')).join('\u0000')) >>> 0
  return `call_${hash.toString(36).padStart(7, '0')}`
}
