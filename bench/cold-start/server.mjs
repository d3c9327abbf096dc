// One run's server on 127.0.0.1: the built app's files and an OpenAI-compatible
// POST /v1/chat/completions (model-script.mjs), each answered after a fixed delay. It records when
// each request arrived, and what was wrong with any model request.
import { Buffer } from 'node:buffer'
import { readFile } from 'node:fs/promises'
import { createServer } from 'node:http'
import { extname, join, normalize } from 'node:path'
import { performance } from 'node:perf_hooks'
import { setTimeout as sleep } from 'node:timers/promises'
import { URL } from 'node:url'
import { MODEL_PATH, replyCompletion, replyEvents, replyKind, requestProblems } from './model-script.mjs'

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.wasm': 'application/wasm',
}
const CORS = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'POST, GET, OPTIONS',
  'access-control-allow-headers': '*',
  'access-control-max-age': '600',
}

/**
 * @typedef {{ method: string, path: string, at: number, status?: number, kind?: string }} Arrival
 * @param {{ root: string, delayMs: number }} options `root`: the folder of the built app
 */
export async function startServer({ root, delayMs }) {
  /** @type {Arrival[]} */
  const arrivals = []
  /** @type {string[]} */
  const problems = []

  const server = createServer(async (request, response) => {
    const path = new URL(request.url ?? '/', 'http://bench').pathname
    const arrival = { method: request.method ?? 'GET', path, at: performance.now() }
    arrivals.push(arrival)
    try {
      if (request.method === 'OPTIONS') {
        arrival.status = 204
        response.writeHead(204, CORS).end()
      } else if (path === MODEL_PATH && request.method === 'POST') {
        const text = await readBody(request)
        let body
        try {
          body = JSON.parse(text)
        } catch {
          body = undefined
        }
        const kind = replyKind(body ?? {})
        arrival.kind = kind
        problems.push(
          ...requestProblems(body).map((problem) => `model request ${arrivals.indexOf(arrival)}: ${problem}`),
        )
        await sleep(delayMs)
        arrival.status = 200
        if (body?.stream === true) {
          response.writeHead(200, { ...CORS, 'content-type': 'text/event-stream', 'cache-control': 'no-store' })
          for (const event of replyEvents(kind, body.model)) response.write(event)
          response.end()
        } else {
          response.writeHead(200, { ...CORS, 'content-type': 'application/json' })
          response.end(JSON.stringify(replyCompletion(kind, body?.model)))
        }
      } else if (request.method === 'GET') {
        const file = join(root, normalize(path === '/' ? '/index.html' : decodeURIComponent(path)))
        const content = file.startsWith(root) ? await readFile(file).catch(() => undefined) : undefined
        await sleep(delayMs)
        arrival.status = content ? 200 : 404
        response.writeHead(arrival.status, {
          ...CORS,
          'content-type': TYPES[extname(file)] ?? 'application/octet-stream',
          'cache-control': 'no-store',
        })
        response.end(content)
      } else {
        arrival.status = 405
        response.writeHead(405, CORS).end()
      }
    } catch (error) {
      problems.push(`${request.method} ${path}: ${error}`)
      if (!response.headersSent) response.writeHead(500, CORS)
      response.end()
    }
  })
  await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)))
  const address = server.address()
  const origin = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`
  return {
    origin,
    arrivals,
    problems,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve(undefined))
      }),
  }
}

/** @param {import('node:http').IncomingMessage} request */
async function readBody(request) {
  const chunks = []
  for await (const chunk of request) chunks.push(chunk)
  return Buffer.concat(chunks).toString('utf8')
}
