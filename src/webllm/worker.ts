// advisor-chain/webllm/worker: the Web Worker that runs a WebLLM engine off the main thread, with
// WebLLM's own handler. The app's bundler builds it from the app's @mlc-ai/web-llm:
//   new Worker(new URL('advisor-chain/webllm/worker', import.meta.url), { type: 'module' })
import { WebWorkerMLCEngineHandler } from '@mlc-ai/web-llm'

// Imported where it is no worker (a server render, a test), it does nothing.
if (typeof self !== 'undefined') {
  const handler = new WebWorkerMLCEngineHandler()
  self.onmessage = (message: MessageEvent) => handler.onmessage(message)
}
