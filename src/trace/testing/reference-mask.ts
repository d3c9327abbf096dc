import { REDACTED, type Redactor } from '../redact'

/**
 * How streamed chunks must be masked, written the slow, obvious way: each chunk is checked with
 * the 64 characters streamed before it or, when a key (a marker and its characters) ran to the end
 * of the text before it, with that key's first 256 characters; a chunk in which a secret is found,
 * or a key that may still become one runs to its end, becomes REDACTED.
 */
export function referenceMask(redactor: Redactor): (chunk: string) => string {
  let streamed = ''
  let open = ''
  return (chunk) => {
    if (chunk === '') return chunk
    const seen = (open || streamed.slice(-64)) + chunk
    streamed += chunk
    const from = redactor.openSecretAt(seen)
    open = from < 0 ? '' : seen.slice(from, from + 256)
    return from < 0 && redactor.text(seen) === seen ? chunk : REDACTED
  }
}
