import type * as WllamaModule from '@wllama/wllama'
import { ChatModelError } from '../models'

type Wllama = typeof WllamaModule

/**
 * wllama, from the app's own dependency, loaded on first use. It is an optional peer dependency,
 * so an app without it gets this error (naming the package) instead of its bundler's.
 */
export async function loadWllama(): Promise<Wllama> {
  try {
    return await import('@wllama/wllama')
  } catch (error) {
    throw new ChatModelError(
      `advisor-chain/wllama needs the package @wllama/wllama, which could not be loaded (${String(error)}). Install it in your app: npm install @wllama/wllama`,
      { provider: 'wllama', code: 'runtime-missing', retryable: false, cause: error },
    )
  }
}
