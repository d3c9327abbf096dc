// Not exported from the trace entry: what the observer needs to check streamed text cheaply.

// Every built-in secret pattern contains one of these; text without them skips the regular expressions.
const SECRET_MARKERS = ['sk-', 'gsk_', 'AIza', 'hf_', 'Bearer']
// One scan for all markers: it runs on every traced string and streamed chunk.
const ANY_MARKER = new RegExp(SECRET_MARKERS.join('|'))

/** Whether `text` contains a marker of a built-in secret pattern: text without one holds no built-in secret. */
export function hasSecretMarker(text: string): boolean {
  return ANY_MARKER.test(text)
}

/** Redactors with patterns of the app's own, which text without a marker may match. */
export const redactorsWithOwnPatterns = new WeakSet<object>()
