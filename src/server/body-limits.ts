import { concat } from './bytes'

export type BoundedRead = { ok: true; bytes: Uint8Array } | { ok: false; reason: 'too-large' | 'too-slow' | 'broken' }

/**
 * A body read whole, but no further than `maxBytes` (counted as the bytes come: a forged or missing
 * Content-Length changes nothing) and no longer than `timeoutMs`; past either it is cancelled.
 */
export async function readBounded(
  body: ReadableStream<Uint8Array> | null,
  maxBytes: number,
  timeoutMs: number,
): Promise<BoundedRead> {
  if (!body) return { ok: true, bytes: new Uint8Array(0) }
  const reader = body.getReader()
  let timer: ReturnType<typeof setTimeout> | undefined
  const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), timeoutMs)))
  const stop = (reason: 'too-large' | 'too-slow' | 'broken'): BoundedRead => {
    reader.cancel().catch(() => {})
    return { ok: false, reason }
  }
  try {
    const chunks: Uint8Array[] = []
    let size = 0
    for (;;) {
      let read: ReadableStreamReadResult<Uint8Array> | 'late'
      try {
        read = await Promise.race([reader.read(), late])
      } catch {
        return stop('broken')
      }
      if (read === 'late') return stop('too-slow')
      if (read.done) return { ok: true, bytes: concat(chunks) }
      size += read.value.byteLength
      if (size > maxBytes) return stop('too-large')
      chunks.push(read.value)
    }
  } finally {
    clearTimeout(timer)
  }
}
