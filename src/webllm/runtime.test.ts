import { describe, expect, it, vi } from 'vitest'
import { WebLLMChatModel } from './model'
import { loadWebLLM } from './runtime'

// As in an app that never installed the optional peer dependency.
vi.mock('@mlc-ai/web-llm', () => {
  throw new Error("Cannot find package '@mlc-ai/web-llm'")
})

describe('WebLLM as an optional peer dependency', () => {
  it('missing, fails with an error that names the package and the install command', async () => {
    const failure = await loadWebLLM().catch((error: unknown) => error)
    expect(failure).toMatchObject({ name: 'ChatModelError', provider: 'webllm', code: 'runtime-missing' })
    expect((failure as Error).message).toMatch(/needs the package @mlc-ai\/web-llm.*npm install @mlc-ai\/web-llm$/)
  })

  it('is not needed to learn that create() was given no worker, with the line that makes one', async () => {
    const failure = await WebLLMChatModel.create({ model: 'Qwen3-0.6B-q4f16_1-MLC' }).catch((error: unknown) => error)
    expect(failure).toMatchObject({ name: 'ChatModelError', code: 'worker-missing' })
    expect((failure as Error).message).toContain(
      "worker: new Worker(new URL('advisor-chain/webllm/worker', import.meta.url), { type: 'module' })",
    )
  })
})
