/** A tool call id derived from what identifies the call, for servers that send none (the same call gets the same id). */
export function stableToolCallId(...parts: Array<string | number | undefined>): string {
  let hash = 0x811c9dc5
  for (const char of parts.map((part) => String(part ?? '')).join('\u0000')) {
    hash ^= char.codePointAt(0)!
    hash = Math.imul(hash, 0x01000193) >>> 0
  }
  return `call_${hash.toString(36).padStart(7, '0')}`
}
