export type ReadBody = { ok: true; body: Record<string, unknown> } | { ok: false; status: number; message: string }

/**
 * The request's JSON object, read no further than `maxBytes` (a forged or missing Content-Length
 * changes nothing: the bytes are counted as they come), or why it is refused.
 */
export async function readLimitedJson(request: Request, maxBytes: number): Promise<ReadBody> {
  const tooLarge: ReadBody = { ok: false, status: 413, message: `The request body is over ${maxBytes} bytes.` }
  const declared = Number(request.headers.get('content-length'))
  if (declared > maxBytes) return tooLarge
  const reader = request.body?.getReader()
  if (!reader) return { ok: false, status: 400, message: 'The request has no body.' }
  const chunks: Uint8Array[] = []
  let size = 0
  for (;;) {
    let read: ReadableStreamReadResult<Uint8Array>
    try {
      read = await reader.read()
    } catch {
      return { ok: false, status: 400, message: 'The request body could not be read.' }
    }
    if (read.done) break
    size += read.value.byteLength
    if (size > maxBytes) {
      await reader.cancel().catch(() => {})
      return tooLarge
    }
    chunks.push(read.value)
  }
  let parsed: unknown
  try {
    parsed = JSON.parse(new TextDecoder().decode(concat(chunks, size)))
  } catch {
    return { ok: false, status: 400, message: 'The request body is not JSON.' }
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
    return { ok: false, status: 400, message: 'The request body is not a JSON object.' }
  return { ok: true, body: parsed as Record<string, unknown> }
}

function concat(chunks: readonly Uint8Array[], size: number): Uint8Array {
  const bytes = new Uint8Array(size)
  let at = 0
  for (const chunk of chunks) {
    bytes.set(chunk, at)
    at += chunk.byteLength
  }
  return bytes
}
