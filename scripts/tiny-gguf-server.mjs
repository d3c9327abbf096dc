// Serves the tiny test model (scripts/tiny-gguf.mjs) from the Vite dev server, built on first
// request, so that tests and the demo can load it by URL like a real model.
import { Buffer } from 'node:buffer'
import { tinyGguf } from './tiny-gguf.mjs'

export const TINY_MODEL_PATH = '/tiny-test-model.gguf'

/** @returns {import('vite').Plugin} */
export function tinyModelServer() {
  /** @type {Buffer | undefined} */
  let bytes
  return {
    name: 'advisor-chain:tiny-test-model',
    configureServer(server) {
      server.middlewares.use(TINY_MODEL_PATH, (_request, response) => {
        bytes ??= Buffer.from(tinyGguf())
        response.setHeader('Content-Type', 'application/octet-stream')
        response.setHeader('Content-Length', String(bytes.length))
        response.end(bytes)
      })
    },
  }
}
