import { REDACTED, type Redactor } from '../../trace'

/**
 * How streamed chunks must be masked, written the slow, obvious way: each chunk is checked with
 * the 64 characters streamed before it, or with all of a secret that ran to the end of the text
 * before it when that began earlier; a chunk in which a secret is found becomes REDACTED.
 */
export function referenceMask(redactor: Redactor): (chunk: string) => string {
  let streamed = ''
  let openAt = -1
  return (chunk) => {
    if (chunk === '') return chunk
    const from = Math.max(0, Math.min(streamed.length - 64, openAt < 0 ? Infinity : openAt))
    const seen = streamed.slice(from) + chunk
    streamed += chunk
    openAt = -1
    if (redactor.text(seen) === seen) return chunk
    const open = redactor.openSecretAt(seen)
    if (open >= 0) openAt = from + open
    return REDACTED
  }
}
