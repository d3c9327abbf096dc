import { readBounded } from './body-limits'
import { headersForPage } from './header-allow-list'
import { keyScrubber, scrubKey } from './key-scrubber'
import { proxyError } from './proxy-errors'
import type { ProviderName } from './providers'
import { usageReader, type TokenCount } from './usage-reader'

/** An error body from the provider is short; one longer than this is not read on. */
const MAX_ERROR_BYTES = 64 * 1024
/** Statuses whose answer has no body (a Response with one cannot be built). */
const NO_BODY = new Set([204, 205])

export interface RelayContext {
  provider: ProviderName
  apiKey: string
  bodyTimeoutMs: number
  /** Called once when a successful answer ends: its usage if it said, and whether it came whole. */
  onEnd: (usage: TokenCount | undefined, whole: boolean) => void
}

/**
 * The provider's answer for the page: a success streams as it comes, the key scrubbed from every
 * byte; an error is read within bounds and scrubbed; a redirect is never followed. Headers pass
 * through the allow-list.
 */
export async function relay(answer: Response, context: RelayContext): Promise<Response> {
  const { provider, apiKey } = context
  if (answer.type === 'opaqueredirect' || (answer.status >= 300 && answer.status < 400)) {
    await answer.body?.cancel().catch(() => {})
    const status = answer.status === 0 ? 'a redirect' : answer.status
    return proxyError(
      provider,
      502,
      `The provider answered ${status}; the model proxy follows no redirect: check baseURL on the server.`,
    )
  }
  // The page must not learn anything of the key, not even that it was refused in the provider's words.
  if (answer.status === 401 || answer.status === 403) {
    await answer.body?.cancel().catch(() => {})
    return proxyError(provider, 502, "The provider refused the model proxy's key; check the key on the server.")
  }
  const headers = headersForPage(answer, apiKey)
  if (answer.status < 200 || answer.status > 299) return relayError(answer, headers, context)
  if (NO_BODY.has(answer.status) || !answer.body) {
    await answer.body?.cancel().catch(() => {})
    context.onEnd(undefined, true)
    return new Response(null, { status: answer.status, headers })
  }
  const body = scrubbed(answer.body, apiKey, usageReader(answer.headers.get('content-type') ?? ''), context.onEnd)
  return new Response(body, { status: answer.status, headers })
}

async function relayError(answer: Response, headers: Headers, context: RelayContext): Promise<Response> {
  const read = await readBounded(answer.body, MAX_ERROR_BYTES, context.bodyTimeoutMs)
  if (!read.ok) {
    const why = {
      'too-large': `was over ${MAX_ERROR_BYTES} bytes`,
      'too-slow': `did not end within ${context.bodyTimeoutMs} ms`,
      broken: 'broke off',
    }[read.reason]
    return proxyError(context.provider, 502, `The provider's error answer (status ${answer.status}) ${why}.`)
  }
  const text = scrubKey(new TextDecoder().decode(read.bytes), context.apiKey)
  return new Response(text, { status: answer.status, headers })
}

function scrubbed(
  body: ReadableStream<Uint8Array>,
  apiKey: string,
  usage: ReturnType<typeof usageReader>,
  onEnd: RelayContext['onEnd'],
): ReadableStream<Uint8Array> {
  const reader = body.getReader()
  const scrubber = keyScrubber(apiKey)
  let ended = false
  const end = (whole: boolean) => {
    if (ended) return
    ended = true
    onEnd(usage.end(), whole)
  }
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      let read: ReadableStreamReadResult<Uint8Array>
      try {
        read = await reader.read()
      } catch {
        end(false)
        return controller.error(new Error("The provider's answer broke off."))
      }
      if (read.done) {
        const rest = scrubber.end()
        if (rest.length > 0) controller.enqueue(rest)
        end(true)
        return controller.close()
      }
      usage.read(read.value)
      const bytes = scrubber.scrub(read.value)
      if (bytes.length > 0) controller.enqueue(bytes)
    },
    cancel(reason) {
      end(false)
      return reader.cancel(reason).catch(() => {})
    },
  })
}
