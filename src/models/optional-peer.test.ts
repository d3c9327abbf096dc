import { describe, expect, it } from 'vitest'
import { loadOptionalPeer } from './optional-peer'

const peer = { entry: 'advisor-chain/wllama', pkg: '@wllama/wllama', provider: 'wllama' }

describe('an optional peer dependency', () => {
  it('loaded, is the module itself', async () => {
    const module = { Wllama: class {} }
    await expect(loadOptionalPeer(peer, () => Promise.resolve(module))).resolves.toBe(module)
  })

  it('missing, fails with an error that names the entry, the package and the install command', async () => {
    const missing = new Error("Cannot find package '@wllama/wllama'")
    const failure = await loadOptionalPeer(peer, () => Promise.reject(missing)).catch((error: unknown) => error)
    expect(failure).toMatchObject({ name: 'ChatModelError', provider: 'wllama', code: 'runtime-missing' })
    expect((failure as Error).cause).toBe(missing)
    expect((failure as Error).message).toBe(
      "advisor-chain/wllama needs the package @wllama/wllama (an optional peer dependency), which could not be loaded (Error: Cannot find package '@wllama/wllama'). Install it in your app: npm install @wllama/wllama",
    )
  })
})
