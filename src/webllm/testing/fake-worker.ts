// A Web Worker for tests: WebLLM's real worker handler, with the fake engine in place of a GPU one.
import { WebWorkerMLCEngineHandler } from '@mlc-ai/web-llm'
import { FakeWebLLMEngine } from './fake-engine'

const handler = new WebWorkerMLCEngineHandler()
const engine = new FakeWebLLMEngine((request) =>
  request.messages.some((message) => typeof message.content === 'string' && message.content.startsWith('Tool results'))
    ? '{"answer":"It is sunny in Oslo."}'
    : '{"tool_calls":[{"name":"weather","arguments":{"city":"Oslo"}}]}',
)
handler.engine = engine as unknown as typeof handler.engine
// As the handler wires its own engine: loading progress goes back to the page.
engine.setInitProgressCallback((report) =>
  handler.postMessage({ kind: 'initProgressCallback', uuid: '', content: report }),
)
self.onmessage = (message: MessageEvent) => handler.onmessage(message)
