import { readBounded } from './body-limits'

export type ReadBody = { ok: true; body: Record<string, unknown> } | { ok: false; status: number; message: string }

/** The request's JSON object, read within `maxBytes` and `timeoutMs`, or why it is refused. */
export async function readLimitedJson(request: Request, maxBytes: number, timeoutMs: number): Promise<ReadBody> {
  const tooLarge: ReadBody = { ok: false, status: 413, message: `The request body is over ${maxBytes} bytes.` }
  if (Number(request.headers.get('content-length')) > maxBytes) return tooLarge
  if (!request.body) return { ok: false, status: 400, message: 'The request has no body.' }
  const read = await readBounded(request.body, maxBytes, timeoutMs)
  if (!read.ok) {
    if (read.reason === 'too-large') return tooLarge
    if (read.reason === 'too-slow')
      return { ok: false, status: 408, message: `The request body did not arrive within ${timeoutMs} ms.` }
    return { ok: false, status: 400, message: 'The request body could not be read.' }
  }
  let parsed: unknown
  try {
    parsed = JSON.parse(new TextDecoder().decode(read.bytes))
  } catch {
    return { ok: false, status: 400, message: 'The request body is not JSON.' }
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
    return { ok: false, status: 400, message: 'The request body is not a JSON object.' }
  return { ok: true, body: parsed as Record<string, unknown> }
}
