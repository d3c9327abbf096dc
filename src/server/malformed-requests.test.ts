// Nothing a client sends throws out of the proxy: a malformed request is a 4xx, an upstream oddity a
// 5xx, and the server answers the next good request.
import { createServer } from 'node:http'
import { connect, type AddressInfo } from 'node:net'
import { describe, expect, it } from 'vitest'
import { nodeHandler, type ModelProxyOptions } from './index'
import { loopbackProvider, MOUNTS, post, proxyTo, sendJson } from './testing/loopback'

const KEY = 'sk-malformed-SECRET-0123456789'
const provider = loopbackProvider()
const proxyOf = (options: Partial<ModelProxyOptions> = {}) => proxyTo(provider, KEY, options)

/** Sends raw bytes to the server and resolves with the status line of its answer ('' when the client leaves first). */
function rawRequest(port: number, text: string, leave: boolean): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(text, () => leave && socket.destroy()))
    let answer = ''
    socket.on('data', (data: Buffer) => {
      answer += data.toString('latin1')
      if (answer.includes('\r\n')) {
        socket.destroy()
        resolve(answer.slice(0, answer.indexOf('\r\n')))
      }
    })
    socket.on('error', reject)
    socket.on('close', () => resolve(answer))
  })
}

const CHAT = '/api/openai/chat/completions'
const BODY = '{"model":"gpt-test"}'

function raw(requestLine: string, host: string, method = 'POST'): string {
  return `${method} ${requestLine} HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: ${BODY.length}\r\n\r\n${BODY}`
}

describe('a real Node server with nodeHandler answers every malformed request, then the next good one', () => {
  const malformed: Array<[string, string, RegExp, leave?: boolean]> = [
    ['a Host with a space', raw(CHAT, 'a b'), /^HTTP\/1\.1 400/],
    ['a Host with a port out of range', raw(CHAT, '127.0.0.1:99999'), /^HTTP\/1\.1 400/],
    ['a Host with an unclosed IPv6 bracket', raw(CHAT, '[::1'), /^HTTP\/1\.1 400/],
    ['a Host that carries a path', raw(CHAT, 'evil.test/x?'), /^HTTP\/1\.1 400/],
    ['a Host that carries credentials', raw(CHAT, 'user@evil.test'), /^HTTP\/1\.1 400/],
    ['an absolute-form target', raw(`http://evil.test${CHAT}`, 'app.test'), /^HTTP\/1\.1 400/],
    ['an asterisk target', raw('*', 'app.test', 'OPTIONS'), /^HTTP\/1\.1 400/],
    ['a TRACE, which a Fetch Request cannot carry', raw(CHAT, 'app.test', 'TRACE'), /^HTTP\/1\.1 405/],
    ['an unknown method', raw(CHAT, 'app.test', 'PROPFIND'), /^HTTP\/1\.1 405/],
    [
      'a body cut off by a client that leaves',
      `POST ${CHAT} HTTP/1.1\r\nHost: app.test\r\nContent-Length: 1000\r\n\r\n{"model":`,
      /^$/,
      true,
    ],
  ]

  it.each(malformed)('%s', async (_, request, status, leave = false) => {
    const server = createServer(nodeHandler(proxyOf()))
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const port = (server.address() as AddressInfo).port
    try {
      expect(await rawRequest(port, request, leave)).toMatch(status)
      const good = await fetch(`http://127.0.0.1:${port}${CHAT}`, { method: 'POST', body: BODY })
      expect(good.status).toBe(200)
    } finally {
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    }
  })

  it('answers 500 when the handler itself throws, synchronously or not, and goes on', async () => {
    let calls = 0
    const server = createServer(
      nodeHandler((request) => {
        calls++
        if (calls === 1) throw new Error('a synchronous failure')
        if (calls === 2) return Promise.reject(new Error('an asynchronous failure'))
        return proxyOf()(request)
      }),
    )
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}${CHAT}`
    try {
      expect((await fetch(url, { method: 'POST', body: BODY })).status).toBe(500)
      expect((await fetch(url, { method: 'POST', body: BODY })).status).toBe(500)
      expect((await fetch(url, { method: 'POST', body: BODY })).status).toBe(200)
    } finally {
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    }
  })
})

describe.each(MOUNTS)('the proxy %s', (_, mount) => {
  async function send(request: Request, options: Partial<ModelProxyOptions> = {}): Promise<Response> {
    const mounted = await mount(proxyOf(options))
    try {
      const response = await mounted.send(request)
      await response
        .clone()
        .arrayBuffer()
        .catch(() => undefined)
      return response
    } finally {
      await mounted.close()
    }
  }

  it('answers 401 when authorize answers anything but true', async () => {
    const response = await send(post(CHAT, BODY), { authorize: () => 'yes' as unknown as boolean })
    expect(response.status).toBe(401)
  })

  it('answers 502 when the provider hangs up without an answer', async () => {
    provider.answer = (_, response) => response.socket?.destroy()
    const response = await send(post(CHAT, BODY))
    expect(response.status).toBe(502)
    expect(await response.text()).toMatch(/could not reach the provider/)
  })

  it('ends the answer when the provider hangs up mid-stream, and answers the next request', async () => {
    provider.answer = (_, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' })
      response.write('data: {"n":1}\n\n', () => response.socket?.destroy())
    }
    const mounted = await mount(proxyOf())
    try {
      const broken = await mounted.send(post(CHAT, { model: 'gpt-test', stream: true }))
      expect(broken.status).toBe(200)
      const text = await broken.text().catch(() => 'broke off')
      expect(text.length).toBeGreaterThan(0)
      provider.answer = (_, response) => sendJson(response, 200, { ok: true })
      const next = await mounted.send(post(CHAT, BODY))
      expect(await next.json()).toEqual({ ok: true })
    } finally {
      await mounted.close()
    }
  })

  it('answers even when onUsage throws or rejects', async () => {
    provider.answer = (_, response) => sendJson(response, 200, { usage: { prompt_tokens: 1, completion_tokens: 2 } })
    for (const onUsage of [
      () => {
        throw new Error('budget store down')
      },
      () => Promise.reject(new Error('budget store down')) as unknown as void,
    ]) {
      const response = await send(post(CHAT, BODY), { onUsage })
      expect(response.status).toBe(200)
    }
  })
})

describe('the proxy as a Fetch handler', () => {
  it('answers 400 when the request body breaks off', async () => {
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('{"model":'))
        controller.error(new Error('connection reset'))
      },
    })
    // @ts-expect-error -- Node's fetch needs it for a streamed body; the DOM types do not know it.
    const response = await proxyOf()(post(CHAT, '', { body, duplex: 'half' }))
    expect(response.status).toBe(400)
    expect(provider.received).toHaveLength(0)
  })
})
