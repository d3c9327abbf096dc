import { describe, expect, it } from 'vitest'
import { checkWebGPU } from './capabilities'
import { WebLLMChatModel } from './model'

// Chromium started without --enable-unsafe-webgpu: WebGPU is there, but it finds no adapter.

describe('WebLLM capability check without a GPU', () => {
  it('reports that no usable GPU was found, in words for the user', async () => {
    const report = await checkWebGPU()
    expect(report).toMatchObject({ ok: false, reason: 'no-adapter', shaderF16: false })
    expect(report.message).toMatch(/found no usable GPU/)
  })

  it('refuses to load a model, before downloading anything', async () => {
    await expect(WebLLMChatModel.create({ model: 'Qwen3-0.6B-q4f16_1-MLC', worker: false })).rejects.toMatchObject({
      name: 'ChatModelError',
      provider: 'webllm',
      code: 'no-adapter',
    })
    expect(performance.getEntriesByType('resource').some((entry) => entry.name.includes('huggingface'))).toBe(false)
  })
})
