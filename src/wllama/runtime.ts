import type * as WllamaModule from '@wllama/wllama'
import { loadOptionalPeer } from '../models'

const WLLAMA = { entry: 'advisor-chain/wllama', pkg: '@wllama/wllama', provider: 'wllama' }

/** wllama, from the app's own dependency (an optional peer), loaded on first use. */
export function loadWllama(): Promise<typeof WllamaModule> {
  return loadOptionalPeer(WLLAMA, () => import('@wllama/wllama'))
}
