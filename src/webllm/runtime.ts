import type * as WebLLMModule from '@mlc-ai/web-llm'
import { loadOptionalPeer } from '../models'

const WEBLLM = { entry: 'advisor-chain/webllm', pkg: '@mlc-ai/web-llm', provider: 'webllm' }

/** WebLLM, from the app's own dependency (an optional peer), loaded on first use. */
export function loadWebLLM(): Promise<typeof WebLLMModule> {
  return loadOptionalPeer(WEBLLM, () => import('@mlc-ai/web-llm'))
}
