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
  off(event: 'close' | 'drain', listener: () => void): unknown
  readonly writableEnded: boolean
  readonly headersSent: boolean
}

/**
 * A Fetch API handler (e.g. `createModelProxy(…)`) as a listener for Node's http server:
 * `createServer(nodeHandler(createModelProxy({ … }))).listen(3000)`. The request body and the
 * answer stream; a client that goes away aborts the request's signal and stops the answer. Nothing
 * a client sends throws out of it: a request that cannot be a Fetch Request is answered 400 or 405.
 */
export function nodeHandler(
  handler: (request: Request) => Promise<Response>,
): (request: IncomingRequest, response: OutgoingResponse) => void {
  return (incoming, outgoing) => {
    const gone = new AbortController()
    outgoing.on('close', () => {
      if (!outgoing.writableEnded) gone.abort()
    })
    const request = requestOf(incoming, gone.signal)
    if (!(request instanceof Request)) return fail(outgoing, request.status, request.message)
    void Promise.resolve()
      .then(() => handler(request))
      .then((response) => send(response, outgoing, gone.signal))
      .catch((error: unknown) => {
        console.error('nodeHandler: the handler failed', error)
        fail(outgoing, 500, 'The server failed on this request.')
      })
  }
}

/** The Fetch Request for Node's request, or why there can be none. */
function requestOf(incoming: IncomingRequest, signal: AbortSignal): Request | { status: number; message: string } {
  const refused = (message: string) => ({ status: 400, message })
  const path = incoming.url ?? '/'
  if (!path.startsWith('/'))
    return refused(`The request target must be a path, got ${JSON.stringify(path.slice(0, 100))}.`)
  const headers = new Headers()
  try {
    for (const [name, value] of Object.entries(incoming.headers)) {
      // HTTP/2's pseudo-headers (`:path`) are no headers of a Fetch Request.
      if (value !== undefined && !name.startsWith(':'))
        headers.set(name, Array.isArray(value) ? value.join(', ') : value)
    }
  } catch {
    return refused('A request header is not valid.')
  }
  const host = headers.get('host') ?? 'localhost'
  const url = `http://${host}${path}`
  // A Host that would move into the path, the query or the credentials is no host.
  if (!URL.canParse(url) || /[\s/?#@\\]/.test(host))
    return refused(`The Host header is not a valid host, got ${JSON.stringify(host.slice(0, 100))}.`)
  const method = incoming.method ?? 'GET'
  try {
    return new Request(url, {
      method,
      headers,
      body: method === 'GET' || method === 'HEAD' ? null : streamOf(incoming),
      signal,
      // @ts-expect-error -- Node's fetch needs it for a streamed body; the DOM types do not know it.
      duplex: 'half',
    })
  } catch {
    return { status: 405, message: `The method ${JSON.stringify(method.slice(0, 20))} is not allowed.` }
  }
}

function fail(outgoing: OutgoingResponse, status: number, message: string): void {
  try {
    if (!outgoing.headersSent) outgoing.writeHead(status, { 'content-type': 'text/plain; charset=utf-8' })
    if (!outgoing.writableEnded) {
      outgoing.write(new TextEncoder().encode(message))
      outgoing.end()
    }
  } catch (error) {
    console.error('nodeHandler: could not answer', error)
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
    cancel: async () => {
      await chunks.return?.()
    },
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
      if (!outgoing.write(value)) await drained(outgoing)
    }
  } catch {
    // The client went away, or the provider's stream broke: the response ends here.
  }
  outgoing.end()
}

/** Resolves when the client can take more, or has gone. */
function drained(outgoing: OutgoingResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      outgoing.off('drain', done)
      outgoing.off('close', done)
      resolve()
    }
    outgoing.on('drain', done)
    outgoing.on('close', done)
  })
}
