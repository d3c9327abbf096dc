import type * as WebLLMModule from '@mlc-ai/web-llm'
import { ChatModelError } from '../models'

type WebLLM = typeof WebLLMModule

/**
 * WebLLM, from the app's own dependency, loaded on first use. It is an optional peer dependency,
 * so an app without it gets this error (naming the package) instead of its bundler's.
 */
export async function loadWebLLM(): Promise<WebLLM> {
  try {
    return await import('@mlc-ai/web-llm')
  } catch (error) {
    throw new ChatModelError(
      `advisor-chain/webllm needs the package @mlc-ai/web-llm, which could not be loaded (${String(error)}). Install it in your app: npm install @mlc-ai/web-llm`,
      { provider: 'webllm', code: 'runtime-missing', retryable: false, cause: error },
    )
  }
}
