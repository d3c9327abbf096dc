// The Web Worker that runs a WebLLM engine off the main thread: WebLLM's own handler, nothing more.
import { WebWorkerMLCEngineHandler } from '@mlc-ai/web-llm'

const handler = new WebWorkerMLCEngineHandler()
self.onmessage = (message: MessageEvent) => handler.onmessage(message)
