/** What `nodeHandler` needs of Node's http request; no Node types in this package. */
interface IncomingRequest extends AsyncIterable<Uint8Array> {
  method?: string
  url?: string
  headers: Record<string, string | string[] | undefined>
  on(event: 'close', listener: () => void): unknown
}

/** What `nodeHandler` needs of Node's http response. */
interface OutgoingResponse {
  writeHead(status: number, headers: Record<string, string>): unknown
  write(chunk: Uint8Array): boolean
  end(): unknown
  on(event: 'close' | 'drain', listener: () => void): unknown
  readonly writableEnded: boolean
}

/**
 * A Fetch API handler (e.g. `createModelProxy(…)`) as a listener for Node's http server:
 * `createServer(nodeHandler(createModelProxy({ … }))).listen(3000)`. The request body and the
 * answer stream; a client that goes away aborts the request's signal and stops the answer.
 */
export function nodeHandler(
  handler: (request: Request) => Promise<Response>,
): (request: IncomingRequest, response: OutgoingResponse) => void {
  return (incoming, outgoing) => {
    const gone = new AbortController()
    outgoing.on('close', () => {
      if (!outgoing.writableEnded) gone.abort()
    })
    const headers = new Headers()
    for (const [name, value] of Object.entries(incoming.headers)) {
      if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value)
    }
    const method = incoming.method ?? 'GET'
    const body = method === 'GET' || method === 'HEAD' ? null : streamOf(incoming)
    const request = new Request(`http://${headers.get('host') ?? 'localhost'}${incoming.url ?? '/'}`, {
      method,
      headers,
      body,
      signal: gone.signal,
      // @ts-expect-error -- Node's fetch needs it for a streamed body; the DOM types do not know it.
      duplex: 'half',
    })
    void handler(request)
      .then((response) => send(response, outgoing, gone.signal))
      .catch((error: unknown) => {
        console.error('nodeHandler: the handler failed', error)
        if (!outgoing.writableEnded) {
          outgoing.writeHead(500, { 'content-type': 'text/plain' })
          outgoing.end()
        }
      })
  }
}

function streamOf(incoming: AsyncIterable<Uint8Array>): ReadableStream<Uint8Array> {
  const chunks = incoming[Symbol.asyncIterator]()
  return new ReadableStream({
    async pull(controller) {
      const next = await chunks.next()
      if (next.done) controller.close()
      else controller.enqueue(next.value)
    },
    cancel: () => void chunks.return?.(),
  })
}

async function send(response: Response, outgoing: OutgoingResponse, gone: AbortSignal): Promise<void> {
  const headers: Record<string, string> = {}
  response.headers.forEach((value, name) => (headers[name] = value))
  outgoing.writeHead(response.status, headers)
  const reader = response.body?.getReader()
  if (!reader) return void outgoing.end()
  gone.addEventListener('abort', () => void reader.cancel().catch(() => {}), { once: true })
  try {
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      // Backpressure: a slow client slows the reading of the provider's answer.
      if (!outgoing.write(value)) await new Promise<void>((resolve) => outgoing.on('drain', resolve))
    }
  } catch {
    // The client went away, or the provider's stream broke: the response ends here.
  }
  outgoing.end()
}
